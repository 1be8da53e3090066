#!/bin/bash
# An update of the uname syscall path applied and undone 20 times while 8
# processes call uname in a loop: every call sees the old or the new
# string, never anything else, and the kernel does not oops.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cycles=${KSPLICE_UNAME_CYCLES:-20}

plan 8
upd=$(make_update "$KSPLICE_TOP/examples/uname.patch" uname)
ok $? "ksplice-create builds the uname update"
like "$(cat "$tmp/create-uname.log")" 'changed function: __do_sys_newuname' "the changed function is the uname syscall"

out=$(vm --smp 2 --file "$upd" -- '
	old=$(uname -v); new="ksplice: patched live"
	echo "OLD: $old"
	for i in 1 2 3 4 5 6 7 8; do
		(n=0; bad=0; seen_new=0
		 while [ ! -e /tmp/stop ]; do
			v=$(uname -v); n=$((n + 1))
			if [ "$v" = "$new" ]; then seen_new=1
			elif [ "$v" != "$old" ]; then bad=$((bad + 1)); echo "BAD-RESULT: $v"; fi
		 done
		 echo "LOOPER $i calls=$n bad=$bad seen_new=$seen_new") &
	done
	applied=0 undone=0
	for c in $(seq '"$cycles"'); do
		ksplice-apply ksplice-uname.tar.gz >/tmp/apply.log 2>&1 && applied=$((applied + 1)) || cat /tmp/apply.log
		[ "$(uname -v)" = "$new" ] || echo "NOT-NEW-AFTER-APPLY $c"
		ksplice-undo uname >/tmp/undo.log 2>&1 && undone=$((undone + 1)) || cat /tmp/undo.log
		[ "$(uname -v)" = "$old" ] || echo "NOT-OLD-AFTER-UNDO $c"
	done
	touch /tmp/stop; wait
	echo "APPLIED=$applied UNDONE=$undone"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the stress scenario"
diag "$(printf '%s\n' "$out" | grep -E 'LOOPER|APPLIED|OLD' | head -12)"
like "$out" "APPLIED=$cycles UNDONE=$cycles" "all $cycles applies and undos succeeded"
unlike "$out" 'NOT-NEW-AFTER-APPLY|NOT-OLD-AFTER-UNDO' "uname changes with every apply and undo"
unlike "$out" 'BAD-RESULT' "every concurrent call returned the old or the new string"
is "$(printf '%s\n' "$out" | grep -c '^LOOPER .* bad=0 ')" 8 "all 8 loopers ran to the end"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
