#!/bin/bash
# Cumulative updates (ksplice-create --replace, issue 10).  sr is built from
# the stock tree with a patch that changes cmdline_proc_show (" stk=R") and
# pipe_read, but not newuname; su1 (cmdline " stk=1", pipe_read, newuname
# "stk1") and su2 (on su1's tree: " stk=2", pipe_read) are the updates it
# replaces.  Checked by what the functions do: sr applies from nothing, from
# su1, and from su1+su2 stacked; afterwards its code runs, newuname (which
# it does not carry) is the stock one again, the replaced updates' modules
# are gone and ksplice-view lists sr alone; undo gives the stock kernel.  A
# task asleep in su2's pipe_read makes the replace fail (code_busy, naming
# it), leaving su1 and su2 in force, byte-identical.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 24
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/s1.patch") &&
u1=$(make_update "$P/s1.patch" su1) &&
u2=$(make_update "$P/s2.patch" su2 "$t1") &&
ur=$(make_replace "$P/replace.patch" sr)
ok $? "su1, su2 (stacked) and the replace update sr build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${ur:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }
like "$(tar -xzOf "$ur" manifest)" '^replaces: all$' "sr's manifest says it replaces all applied updates"

# Output goes to files, never through a pipe: a shell reading a pipe would
# itself be inside pipe_read.
out=$(vm --file "$u1" --file "$u2" --file "$ur" -- '
	st() { c=$(sed -n "s/.* stk=\([0-9R]\)$/\1/p" /proc/cmdline)
		u=stock; [ "$(uname -v)" = stk1 ] && u=1
		m=$(lsmod | sed -n "s/^ksplice_\(s[a-z0-9]*\) .*/\1/p" | sort | tr "\n" " ")
		echo "STATE $1: cmdline=${c:-stock} uname=$u modules=${m% }"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	peeks() { echo "$(kpeek cmdline_proc_show 16) $(kpeek __do_sys_newuname 16) $(kpeek pipe_read 16)"; }
	run R0 ksplice-apply ksplice-sr.tar.gz; st from-nothing
	ksplice-view >/tmp/v; sed "s/^/VIEW0: /" /tmp/v
	run U0 ksplice-undo sr; st undone0
	ksplice-apply ksplice-su1.tar.gz >/dev/null; st one
	run R1 ksplice-apply ksplice-sr.tar.gz; st from-one
	run U1 ksplice-undo sr; st undone1
	ksplice-apply ksplice-su1.tar.gz >/dev/null && ksplice-apply ksplice-su2.tar.gz >/dev/null
	st two
	b=$(peeks)
	sleep 600 | cat >/dev/null &
	sleep 1; echo "CAT-PID=$(pidof cat)"
	run BUSY ksplice-apply --max-tries 2 --retry-interval 200 ksplice-sr.tar.gz
	st busy
	[ -n "$b" ] && [ "$(peeks)" = "$b" ] && echo BUSY-UNCHANGED
	kill $(pidof sleep); wait
	run R2 ksplice-apply ksplice-sr.tar.gz; st from-two
	echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE=$(cat /tmp/y)"
	ksplice-view >/tmp/v; sed "s/^/VIEW2: /" /tmp/v
	run U2 ksplice-undo sr; st undone2
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
catpid=$(printf '%s\n' "$out" | sed -n 's/^CAT-PID=//p')

like "$out" 'STATE from-nothing: cmdline=R uname=stock modules=sr$' "sr applies with nothing applied: its code runs"
like "$out" 'VIEW0: .*sr' "  ksplice-view lists it"
like "$out" 'STATE undone0: cmdline=stock uname=stock modules=$' "  and undoing it gives the stock kernel"
like "$out" 'STATE one: cmdline=1 uname=1 modules=su1$' "su1 applies"
like "$out" 'R1-STATUS=0' "sr applies over su1"
like "$out" 'R1: .*replaced update su1' "  saying it replaced su1"
like "$out" 'STATE from-one: cmdline=R uname=stock modules=sr$' "  sr's code runs, newuname is stock again, su1's module is gone"
like "$out" 'STATE undone1: cmdline=stock uname=stock modules=$' "  undoing sr gives the stock kernel"
like "$out" 'STATE two: cmdline=2 uname=1 modules=su1 su2$' "su1 and su2 (stacked) apply"
like "$out" 'BUSY-STATUS=[1-9]' "sr is refused while cat sleeps in su2's pipe_read"
like "$out" "BUSY: .*cat.*${catpid:-none}.*pipe_read" "  naming the task and the function"
like "$out" 'STATE busy: cmdline=2 uname=1 modules=su1 su2$' "  su1 and su2 stay in force"
like "$out" 'BUSY-UNCHANGED' "  byte-identical"
like "$out" 'R2-STATUS=0' "once cat is gone, sr applies over su1 and su2"
like "$out" 'STATE from-two: cmdline=R uname=stock modules=sr$' "  sr's code runs, newuname is stock, both modules are gone"
like "$out" 'PIPE=data' "  pipes work through sr's pipe_read"
like "$out" 'VIEW2: .*sr' "  ksplice-view lists sr"
unlike "$out" 'VIEW2: .*su[12]' "  and sr alone"
like "$out" 'U2-STATUS=0' "sr undoes"
like "$out" 'STATE undone2: cmdline=stock uname=stock modules=$' "  giving the stock kernel"
unlike "$out" '^DMESG' "no oops or warning"
