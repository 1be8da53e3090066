#!/bin/bash
# Stacked and cumulative updates applied and undone in cycles while 4
# processes read /proc/cmdline and call uname in a loop (issue 10): each
# cycle applies su1, su2 on top of it, then either the replace update sr
# (undone after) or undoes su2 and su1 in turn.  Every step must succeed and
# leave the functions doing what the step says; every concurrent read sees
# one of the states the updates make (cmdline stock, " stk=1", " stk=2" or
# " stk=R"; uname stock or "stk1"); no oops.  The loopers use no pipes: a
# task reading a pipe sleeps in pipe_read, which the updates replace.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cycles=${KSPLICE_STACK_CYCLES:-30}

plan 8
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/s1.patch") &&
u1=$(make_update "$P/s1.patch" su1) &&
u2=$(make_update "$P/s2.patch" su2 "$t1") &&
ur=$(make_replace "$P/replace.patch" sr)
ok $? "su1, su2 (stacked) and the replace update sr build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${ur:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

out=$(vm --smp 2 --file "$u1" --file "$u2" --file "$ur" -- '
	read -r stock </proc/cmdline; uname -v >/tmp/uv; read -r ustock </tmp/uv
	for i in 1 2 3 4; do
		(n=0; bad=0
		 while [ ! -e /tmp/stop ]; do
			read -r c </proc/cmdline; uname -v >/tmp/u$i; read -r u </tmp/u$i
			n=$((n + 1))
			case $c in "$stock"|"$stock stk=1"|"$stock stk=2"|"$stock stk=R") ;;
			*) bad=$((bad + 1)); echo "BAD-CMDLINE: $c" ;; esac
			case $u in "$ustock"|stk1) ;;
			*) bad=$((bad + 1)); echo "BAD-UNAME: $u" ;; esac
		 done
		 echo "LOOPER $i reads=$n bad=$bad") &
	done
	want() { read -r c </proc/cmdline; uname -v >/tmp/uv; read -r u </tmp/uv
		[ "$c" = "$stock$1" ] && [ "$u" = "$2" ] || echo "WRONG $3 cycle $k: cmdline=$c uname=$u"; }
	step() { "$@" >/tmp/step 2>&1 && ok=$((ok + 1)) || { echo "FAILED cycle $k: $*"; cat /tmp/step; }; }
	ok=0
	for k in $(seq '"$cycles"'); do
		step ksplice-apply ksplice-su1.tar.gz; want " stk=1" stk1 su1
		step ksplice-apply ksplice-su2.tar.gz; want " stk=2" stk1 su2
		if [ $((k % 2)) = 1 ]; then
			step ksplice-apply ksplice-sr.tar.gz; want " stk=R" "$ustock" sr
			step ksplice-undo sr; want "" "$ustock" undo-sr
		else
			step ksplice-undo su2; want " stk=1" stk1 undo-su2
			step ksplice-undo su1; want "" "$ustock" undo-su1
		fi
	done
	touch /tmp/stop; wait
	echo "STEPS-OK=$ok"
	lsmod | grep -q "^ksplice_s" && echo "MODULES-LEFT"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the cycles"
diag "$(printf '%s\n' "$out" | grep -E 'LOOPER|STEPS|FAILED|WRONG' | head -20)"
like "$out" "STEPS-OK=$((cycles * 4))$" "all $((cycles * 4)) applies, replaces and undos of $cycles cycles succeeded"
unlike "$out" '^WRONG' "after each step the functions do what it says"
unlike "$out" '^BAD-' "every concurrent read saw one of the updates' states"
is "$(printf '%s\n' "$out" | grep -c '^LOOPER .* bad=0$')" 4 "all 4 loopers ran to the end"
unlike "$out" 'MODULES-LEFT' "no update module is left loaded"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
