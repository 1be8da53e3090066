#!/bin/bash
# One name, several functions: matching tells them apart by their code.
#  - vmlinux has 17 static functions named type_show; an update of
#    drivers/base/cacheinfo.c's replaces that one, and only that one: the
#    cache's sysfs type changes and the 16 others keep their bytes.
#  - The module lockd has two static decode_cookie (clntxdr.c and
#    clnt4xdr.c) of the same source, so the same code: an update of one
#    alone cannot say which copy is its own and is refused as ambiguous,
#    changing nothing; one update of both makes them twins, and it
#    replaces each.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
p=$KSPLICE_TOP/tests/patches
ci=$(make_update "$p/cacheinfo-type.patch" ci) &&
l3=$(make_update "$p/lockd-cookie.patch" lk) &&
cat "$p/lockd-cookie.patch" "$p/lockd4-cookie.patch" >"$tmp/lockd-both.patch" &&
l4=$(make_update "$tmp/lockd-both.patch" lk4)
ok $? "updates of type_show, of one decode_cookie and of both build"
[ -s "${l4:-}" ] || { sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

out=$(vm --module lockd --file "$ci" --file "$l3" --file "$l4" -- "$guest_peek"'
	typ=/sys/devices/system/cpu/cpu0/cache/index0/type
	addrs() { awk -v n=$1 -v m=$2 "\$3 == n && \$4 == m { print \"0x\" \$1 }" /proc/kallsyms; }
	echo "TYPE-BEFORE $(cat $typ)"
	for a in $(addrs type_show ""); do echo "TS $a $(kpeek $a 16)"; done >/tmp/before
	echo "TYPE-SHOWS $(wc -l </tmp/before)"
	ksplice-apply ksplice-ci.tar.gz >/dev/null; echo "APPLY-CI=$?"
	echo "TYPE-APPLIED $(cat $typ)"
	peek ci applied
	for a in $(addrs type_show ""); do echo "TS $a $(kpeek $a 16)"; done >/tmp/after
	grep -vxFf /tmp/before /tmp/after | sed "s/^TS /CHANGED /"
	ksplice-undo ci >/dev/null; echo "UNDO-CI=$?"
	echo "TYPE-UNDONE $(cat $typ)"
	modprobe lockd
	echo "COOKIES $(addrs decode_cookie "[lockd]" | sort | tr "\n" " ")"
	for a in $(addrs decode_cookie "[lockd]"); do kpeek $a 16; done >/tmp/cb
	ksplice-apply ksplice-lk.tar.gz 2>&1 | sed "s/^/APPLY-ONE: /"
	for a in $(addrs decode_cookie "[lockd]"); do kpeek $a 16; done | cmp -s - /tmp/cb && echo COOKIES-UNCHANGED
	ksplice-apply ksplice-lk4.tar.gz >/dev/null
	echo "APPLY-BOTH=$?"
	peek lk4 lockd
	ksplice-undo lk4 >/dev/null; echo "UNDO-BOTH=$?"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
like "$out" '^TYPE-BEFORE Data$' "the cache's type reads Data"
like "$out" 'TYPE-SHOWS 17' "vmlinux has 17 functions named type_show"
like "$out" 'APPLY-CI=0' "the update of cacheinfo.c's type_show applies"
like "$out" '^TYPE-APPLIED Data cache$' "  and the cache's type reads Data cache"
ts=$(awk '$1 == "PEEK" && $2 == "applied" && $3 == "type_show" { print $4 }' <<<"$out")
is "$(grep -c '^CHANGED ' <<<"$out")" 1 "  one type_show's bytes changed"
like "$out" "CHANGED ${ts:-none} " "  the one matching chose"
check_jumps applied "$out"; ok $? "  and it jumps to the new code"
like "$out" 'UNDO-CI=0' "the type_show update undoes"
# anchored: 'TYPE-UNDONE Data' alone would also match the new "Data cache"
like "$out" '^TYPE-UNDONE Data$' "  and the cache's type reads Data again"
like "$out" 'APPLY-ONE: .*decode_cookie: ambiguous' "an update of one of lockd's two identical decode_cookie is refused as ambiguous"
like "$out" 'COOKIES-UNCHANGED' "  and changes neither"
like "$out" 'APPLY-BOTH=0' "one update of both (twins) applies"
cookies=$(sed -n 's/^COOKIES //p' <<<"$out" | sed 's/ $//')
got=$(awk '$1 == "PEEK" && $2 == "lockd" && $3 == "decode_cookie" { print $4 }' <<<"$out" | sort | tr '\n' ' ' | sed 's/ $//')
is "$got" "$cookies" "  and replaces each of the two"
check_jumps lockd "$out"; ok $? "  and both jump to their new code"
like "$out" 'UNDO-BOTH=0' "both undo"
