#!/bin/bash
# An update of hooks alone for a module (tests/patches/hooks-only-module.patch:
# hooks of every kind in lib/crc8.c, no changed function): applied while
# crc8 is not loaded, it runs nothing; crc8's hooks run when it loads,
# their mirror when it unloads and, loaded again, at undo; applied again
# and its module unloaded by force (rmmod -f), the undo hooks run too.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 14
upd=$(make_update "$KSPLICE_TOP/tests/patches/hooks-only-module.patch" hom)
ok $? "ksplice-create builds the update of a module's hooks alone"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-hom.log" | tail -30; bail "no update file"; }
like "$(tar xzOf "$upd" manifest)" '^target: crc8$' "  its target is crc8"

out=$(vm --module crc8 --file "$upd" -- '
	hooklog() { dmesg -c | tee -a /tmp/kmsg | sed -n "s/^.*ksplice-test-hook: //p" | tr "\n" "|"; }
	dmesg -c >/tmp/kmsg
	ksplice-apply ksplice-hom.tar.gz; echo "APPLY-STATUS=$?"
	echo "STAGE $(cat /sys/kernel/ksplice/hom/stage)"
	echo "LOG-APPLY $(hooklog)"
	modprobe crc8; echo "LOAD1=$?"
	echo "LOG-LOAD $(hooklog)"
	rmmod crc8; echo "RMMOD=$?"
	echo "LOG-RMMOD $(hooklog)"
	modprobe crc8; echo "LOAD2=$?"
	ksplice-undo hom; echo "UNDO-STATUS=$?"
	echo "LOG-UNDO $(hooklog)"
	ksplice-apply ksplice-hom.tar.gz >/dev/null; echo "APPLY2-STATUS=$?"
	rmmod -f ksplice_hom; echo "FORCE-STATUS=$?"
	lsmod | grep -q "^ksplice_hom " && echo STILL-LOADED
	echo "LOG-FORCE $(hooklog)"
	dmesg >>/tmp/kmsg
	grep -E "Oops|BUG:|WARNING:|general protection" /tmp/kmsg | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$out"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"
like "$out" 'APPLY-STATUS=0' "it applies while crc8 is not loaded"
is "$(sed -n 's/^LOG-APPLY //p' <<<"$out")" "" "  no hook runs then"
is "$(sed -n 's/^LOG-LOAD //p' <<<"$out")" "crc8 pre-apply|crc8 stop-apply|crc8 post-apply|" \
	"crc8 loads (LOAD1=$(sed -n 's/^LOAD1=//p' <<<"$out")): its apply hooks run"
is "$(sed -n 's/^LOG-RMMOD //p' <<<"$out")" "crc8 pre-undo|crc8 stop-undo|crc8 post-undo|" \
	"crc8 unloads: their mirror"
like "$out" 'UNDO-STATUS=0' "loaded again, the update undoes"
is "$(sed -n 's/^LOG-UNDO //p' <<<"$out")" \
	"crc8 pre-apply|crc8 stop-apply|crc8 post-apply|crc8 pre-undo|crc8 stop-undo|crc8 post-undo|" \
	"  the reload ran the apply hooks, the undo their mirror"
like "$out" 'APPLY2-STATUS=0' "applied again"
like "$out" 'FORCE-STATUS=0' "  the update module unloads by force"
unlike "$out" 'STILL-LOADED' "  it is gone"
is "$(sed -n 's/^LOG-FORCE //p' <<<"$out")" \
	"crc8 pre-apply|crc8 stop-apply|crc8 post-apply|crc8 pre-undo|crc8 stop-undo|crc8 post-undo|" \
	"  its apply hooks ran, then at the forced unload their mirror"
unlike "$out" '^DMESG' "no oops or warning"
