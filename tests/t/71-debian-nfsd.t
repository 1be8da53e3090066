#!/bin/bash
# The real Debian security update 6.1.192-2 -> 6.1.192-3 (CVE-2026-99362,
# fs/nfsd/nfs4state.c, nfsd4_sequence), made by ksplice-create --debian
# from the two linux-source-6.1 packages and applied to the running stock
# 6.1.0-56-amd64 with nfsd loaded: matched in the module's text, the running
# nfsd4_sequence jumps into the update, undo restores its bytes.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 21
out=$(ksplice-create --build "$KSPLICE_BUILD" --debian 6.1.192-2 -o "$tmp" 2>&1)
if [ $? != 0 ]; then like "$out" 'want OLD\.\.NEW' "--debian without OLD..NEW is refused, saying so"
else ok 1 "--debian without OLD..NEW is refused"; fi
out=$(ksplice-create --build "$KSPLICE_BUILD" --debian '6.1.192-2..$(id)' -o "$tmp" 2>&1)
if [ $? != 0 ]; then like "$out" 'two different Debian versions' "--debian with a bad version is refused"
else ok 1 "--debian with a bad version is refused"; fi

upd=$(make_debian_update "$KSPLICE_NFSD_UPDATE" cve "$KSPLICE_BUILD")
ok $? "ksplice-create --debian $KSPLICE_NFSD_UPDATE builds the update"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-cve.log" | tail -20; bail "no update file"; }
# Reproducible: the Debian sources are fetched again by the versions the
# manifest records, and the rebuild is the same file.
vout=$(ksplice-create --build "$KSPLICE_BUILD" --verify "$upd" 2>"$tmp/verify.log")
ok $? "ksplice-create --verify rebuilds the --debian update from its recorded inputs"
is "$vout" identical "  and says it is identical"
like "$(tar -xzOf "$upd" manifest)" '^cve: CVE-2026-99362$' \
	"  its manifest records CVE-2026-99362, from 6.1.192-3's changelog entry"
log=$(cat "$tmp/create-cve.log")
like "$log" "diff -urN .*/${KSPLICE_NFSD_UPDATE%%..*}/linux-source-6.1 .*/${KSPLICE_NFSD_UPDATE##*..}/linux-source-6.1" \
	"  from the diff of the two Debian source trees"
is "$(grep -c '^  compiling' <<<"$log")" 2 "  which changes one unit (compiled before and after)"
like "$log" 'changed function: nfsd4_sequence \(fs/nfsd/nfs4state.c, nfsd\)' "  whose changed function is nfsd4_sequence, in the module nfsd"

out=$(vm --module nfsd --file "$upd" -- "$guest_peek"'
	modprobe nfsd; echo "MODPROBE=$?"
	echo "KALLSYMS $(awk "\$3 == \"nfsd4_sequence\" && \$4 == \"[nfsd]\" { print \"0x\" \$1 }" /proc/kallsyms)"
	a=$(awk "\$3 == \"nfsd4_sequence\" && \$4 == \"[nfsd]\" { print \"0x\" \$1 }" /proc/kallsyms)
	echo "BEFORE $(kpeek $a 32)"
	ksplice-apply ksplice-cve.tar.gz; echo "APPLY=$?"
	ksplice-view cve | sed "s/^/VIEW: /"
	echo "UNAME $(uname -v)"
	echo "KUNAME $(ksplice-uname -v)"
	peek cve applied
	ksplice-undo cve; echo "UNDO=$?"
	echo "KUNAME-AFTER $(ksplice-uname -v)"
	echo "AFTER $(kpeek $a 32)"
	lsmod | grep -q "^nfsd " || echo "NFSD-GONE"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(grep -vE '^PEEK' <<<"$out" | head -30)"
like "$out" 'MODPROBE=0' "nfsd is loaded"
like "$out" 'APPLY=0' "ksplice-apply succeeds"
ka=$(sed -n 's/^KALLSYMS //p' <<<"$out")
like "$out" "VIEW: +nfsd4_sequence ${ka:-none} 0x[0-9a-f]+" "ksplice-view shows nfsd4_sequence's old address (nfsd's) and its new one"
like "$out" 'VIEW: cves +CVE-2026-99362' "ksplice-view shows the CVE"
like "$out" 'KUNAME .*Debian 6\.1\.192-3 ' "ksplice-uname -v: Debian 6.1.192-3 while applied"
is "$(sed -n 's/^KUNAME-AFTER //p' <<<"$out")" "$(sed -n 's/^UNAME //p' <<<"$out")" "  uname -v's again after undo"
check_jumps applied "$out"; ok $? "the running nfsd4_sequence jumps into the update"
like "$out" 'UNDO=0' "ksplice-undo succeeds"
is "$(sed -n 's/^AFTER //p' <<<"$out")" "$(sed -n 's/^BEFORE //p' <<<"$out")" "undo restores nfsd4_sequence's bytes"
unlike "$out" 'NFSD-GONE' "nfsd stays loaded throughout"
unlike "$out" '^DMESG' "no oops or warning"
