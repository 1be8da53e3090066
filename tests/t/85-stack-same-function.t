#!/bin/bash
# Updates stacked on one function (issue 10): su1 changes cmdline_proc_show,
# pipe_read and newuname; su2, built from the tree with su1's patch, changes
# cmdline_proc_show and pipe_read again; su3, from the tree with both, changes
# cmdline_proc_show a third time.  /proc/cmdline ends in " stk=N" for the
# update whose code runs, uname -v is "stk1" while su1 stands.  Checked: each
# later update takes over the function; a task asleep in su1's copy of
# pipe_read blocks su2 (code_busy naming it, nothing changed); undo is
# last-in-first-out per function (undoing an earlier update is refused naming
# the later one, nothing changed; undoing the later one makes the earlier
# one's code run again); an update built from the stock tree for a function
# su1 replaced is refused naming su1 (and applies on the stock kernel).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 32
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/s1.patch") && t2=$(patched_source "$P/s1.patch" "$P/s2.patch")
ok $? "the source trees with su1's patch, and with su1's and su2's, are made"
u1=$(make_update "$P/s1.patch" su1) &&
u2=$(make_update "$P/s2.patch" su2 "$t1") &&
u3=$(make_update "$P/s3.patch" su3 "$t2") &&
uw=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" suw)
ok $? "the three stacked updates and one built from the stock tree build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${u3:-}" ] && [ -s "${uw:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

# Output goes to files, never through a pipe: a shell reading a pipe would
# itself be inside pipe_read.
out=$(vm --file "$u1" --file "$u2" --file "$u3" --file "$uw" -- '
	st() { c=$(sed -n "s/.* stk=\([0-9]\)$/\1/p" /proc/cmdline)
		grep -q "ksplice=applied" /proc/cmdline && c=wrong
		u=stock; [ "$(uname -v)" = stk1 ] && u=1
		echo "STATE $1: cmdline=${c:-stock} uname=$u"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	st stock
	run APPLY1 ksplice-apply ksplice-su1.tar.gz; st one
	b=$(kpeek cmdline_proc_show 16)
	run WRONG ksplice-apply ksplice-suw.tar.gz; st wrong-refused
	[ -n "$b" ] && [ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo WRONG-UNCHANGED
	sleep 600 | cat >/dev/null &
	sleep 1; echo "CAT-PID=$(pidof cat)"
	run BUSY ksplice-apply --max-tries 2 --retry-interval 200 ksplice-su2.tar.gz
	st busy
	[ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo BUSY-UNCHANGED
	kill $(pidof sleep); wait
	run APPLY2 ksplice-apply ksplice-su2.tar.gz; st two
	echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE=$(cat /tmp/y)"
	b=$(kpeek cmdline_proc_show 16)
	run UNDO1 ksplice-undo su1; st undo1-refused
	[ -n "$b" ] && [ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo UNDO1-UNCHANGED
	run APPLY3 ksplice-apply ksplice-su3.tar.gz; st three
	ksplice-view su1 >/tmp/v; sed "s/^/VIEW1: /" /tmp/v
	run UNDO2 ksplice-undo su2; st undo2-refused
	run UNDO3 ksplice-undo su3; st three-undone
	run UNDO2B ksplice-undo su2; st two-undone
	echo again >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE2=$(cat /tmp/y)"
	run UNDO1B ksplice-undo su1; st one-undone
	run STOCK ksplice-apply ksplice-suw.tar.gz; st wrong-on-stock
	ksplice-undo suw >/dev/null; st end
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
catpid=$(printf '%s\n' "$out" | sed -n 's/^CAT-PID=//p')

like "$out" 'STATE one: cmdline=1 uname=1' "su1 applies: its code runs"
like "$out" 'WRONG-STATUS=[1-9]' "an update of cmdline_proc_show built from the stock tree is refused"
like "$out" 'WRONG: .*cmdline_proc_show.*stock code.*su1' "  naming the function and su1, which replaced it"
like "$out" 'STATE wrong-refused: cmdline=1 uname=1' "  and su1's code still runs"
like "$out" 'WRONG-UNCHANGED' "  with the entry's bytes unchanged"
like "$out" 'BUSY-STATUS=[1-9]' "su2 is refused while cat sleeps in su1's copy of pipe_read"
like "$out" "BUSY: .*cat.*${catpid:-none}.*pipe_read" "  naming the task and the function"
like "$out" 'STATE busy: cmdline=1 uname=1' "  and nothing changed"
like "$out" 'BUSY-UNCHANGED' "  not even bytes"
like "$out" 'APPLY2-STATUS=0' "once cat is gone, su2 applies on top of su1"
like "$out" 'STATE two: cmdline=2 uname=1' "  su2's cmdline_proc_show runs, su1's newuname still does"
like "$out" 'PIPE=data' "  pipes work through su2's pipe_read"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing su1 while su2 stands on it is refused"
like "$out" 'UNDO1: .*su2' "  naming su2"
like "$out" 'STATE undo1-refused: cmdline=2 uname=1' "  and nothing changed"
like "$out" 'UNDO1-UNCHANGED' "  not even bytes"
like "$out" 'APPLY3-STATUS=0.*' "su3 applies on top of su2"
like "$out" 'STATE three: cmdline=3 uname=1' "  three deep: su3's code runs"
like "$out" 'VIEW1: +cmdline_proc_show: su1 su2 su3$' "ksplice-view shows the stack of updates on cmdline_proc_show"
like "$out" 'VIEW1: +pipe_read: su1 su2$' "  and on pipe_read"
unlike "$out" 'VIEW1: +__do_sys_newuname:' "  not on newuname, which su1 alone replaced"
like "$out" 'VIEW1: +vmlinux: .*cmdline_proc_show' "  and the update's functions per target"
like "$out" 'UNDO2-STATUS=[1-9]' "undoing su2 under su3 is refused"
like "$out" 'STATE three-undone: cmdline=2 uname=1' "undoing su3 makes su2's code run again"
like "$out" 'STATE two-undone: cmdline=1 uname=1' "then undoing su2, su1's"
like "$out" 'STATE one-undone: cmdline=stock uname=stock' "then undoing su1, the stock kernel's"
like "$out" 'STATE wrong-on-stock: cmdline=wrong uname=stock' "the stock-tree update applies on the stock kernel"
like "$out" 'STATE end: cmdline=stock' "  and undoes"
unlike "$out" '^DMESG' "no oops or warning"
