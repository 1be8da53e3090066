#!/bin/bash
# Two ksplice-apply at once, in one guest boot.  (a) Different updates
# (uname, cmdline) started together: the core serializes them (one mutex
# around stop_machine); each either applies, its new code live, or fails
# with a clear error and changes nothing.  (b) One update, four
# ksplice-apply at once: exactly one applies it ("Done!"); each other one
# says it is already applied (or already loaded, and then already
# applied), and none unloads or reverses the winner's: afterwards the
# update is applied once, uname -v is the new one, its module loaded.
# Then everything undoes to the stock kernel.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 18
un=$(make_update "$KSPLICE_TOP/examples/uname.patch" uname) &&
cl=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" cmdline)
ok $? "the uname and cmdline updates build"

out=$(vm --smp 2 --file "$un" --file "$cl" -- '
	new="ksplice: patched live"
	old=$(uname -v); cmd=$(cat /proc/cmdline)
	# (a) different updates together
	(ksplice-apply ksplice-uname.tar.gz >/tmp/a1 2>&1; echo $? >/tmp/a1.st) &
	(ksplice-apply ksplice-cmdline.tar.gz >/tmp/a2 2>&1; echo $? >/tmp/a2.st) &
	wait
	echo "DIFF-STATUS uname=$(cat /tmp/a1.st) cmdline=$(cat /tmp/a2.st)"
	sed "s/^/A-UNAME: /" /tmp/a1; sed "s/^/A-CMDLINE: /" /tmp/a2
	u=$(uname -v); c=$(cat /proc/cmdline)
	if [ "$(cat /tmp/a1.st)" = 0 ]; then
		[ "$u" = "$new" ] && [ "$(cat /sys/kernel/ksplice/uname/stage)" = applied ] || echo "HALF uname applied but not live"
	else
		[ "$u" = "$old" ] && [ ! -e /sys/kernel/ksplice/uname ] || echo "HALF uname refused but changed"
	fi
	if [ "$(cat /tmp/a2.st)" = 0 ]; then
		[ "$c" = "$cmd ksplice=applied" ] && [ "$(cat /sys/kernel/ksplice/cmdline/stage)" = applied ] || echo "HALF cmdline applied but not live"
	else
		[ "$c" = "$cmd" ] && [ ! -e /sys/kernel/ksplice/cmdline ] || echo "HALF cmdline refused but changed"
	fi
	[ -e /sys/kernel/ksplice/cmdline ] && { ksplice-undo cmdline >/dev/null 2>&1; echo "UNDO-CMDLINE=$?"; }
	[ "$(cat /proc/cmdline)" = "$cmd" ] && echo CMDLINE-STOCK
	[ -e /sys/kernel/ksplice/uname ] && { ksplice-undo uname >/dev/null 2>&1; echo "UNDO-UNAME-A=$?"; }
	[ "$(uname -v)" = "$old" ] && echo UNAME-STOCK-A

	# (b) one update, four at once
	for i in 1 2 3 4; do
		(ksplice-apply ksplice-uname.tar.gz >/tmp/s$i 2>&1; echo $? >/tmp/s$i.st) &
	done
	wait
	for i in 1 2 3 4; do
		echo "SAME-$i-STATUS=$(cat /tmp/s$i.st)"; sed "s/^/SAME-$i: /" /tmp/s$i
	done
	echo "SAME-DONE=$(cat /tmp/s[1-4] | grep -c "^Done! Applied update uname")"
	echo "SAME-STAGE=$(cat /sys/kernel/ksplice/uname/stage)"
	echo "SAME-UNAME=$(uname -v)"
	lsmod | grep -q "^ksplice_uname " && echo SAME-MODULE-LOADED
	ksplice-undo uname >/tmp/u 2>&1; echo "UNDO-UNAME-B=$?"
	[ "$(uname -v)" = "$old" ] && echo UNAME-STOCK-B
	lsmod | grep -q "^ksplice_uname " || echo SAME-MODULE-GONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
like "$out" '^DIFF-STATUS uname=[0-9]+ cmdline=[0-9]+$' "(a) both applies ran to the end"
like "$out" '^DIFF-STATUS uname=0 cmdline=0$' "(a) two different updates at once both apply (the core serializes them)"
unlike "$out" '^HALF' "(a) each update is live if its apply succeeded, and untouched if not"
like "$out" '^CMDLINE-STOCK$' "(a) cmdline undoes to the stock output"
like "$out" '^UNAME-STOCK-A$' "(a) uname undoes to the stock version"
is "$(grep -c '^SAME-[1-4]-STATUS=[0-9]' <<<"$out")" 4 "(b) all four applies of one update ran to the end"
is "$(sed -n 's/^SAME-DONE=//p' <<<"$out")" 1 "(b) exactly one of them applied it"
# Each loser is told, clearly; none tried to take the winner's module out.
losers=$(grep -E '^SAME-[1-4]: ' <<<"$out" | grep -vE 'Done! Applied|  replaced ' |
	grep -vE 'already (applied|loaded)|Nothing was changed' || true)
is "$losers" "" "(b) every other one says the update is already applied or loaded, nothing else"
unlike "$out" 'SAME-[1-4]: .*(could not unload|rmmod)' "(b) no loser tried to unload the applied update's module"
like "$out" '^SAME-STAGE=applied$' "(b) the update is applied"
like "$out" '^SAME-UNAME=ksplice: patched live$' "(b) and its new code is live"
like "$out" '^SAME-MODULE-LOADED$' "(b) and its module is loaded"
like "$out" '^UNDO-UNAME-B=0$' "(b) it undoes"
like "$out" '^UNAME-STOCK-B$' "(b) to the stock version"
like "$out" "^SAME-MODULE-GONE$" "(b) and its module is unloaded"
unlike "$out" '^DMESG' "no oops or warning"
