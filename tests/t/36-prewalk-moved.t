#!/bin/bash
# The pre-walk (issue 13): stacks are walked before the stop, and the stop
# re-walks only the tasks that ran since.  A task that moves into the code
# between the two must still block the apply.  The update changes
# pipe_read and cmdline_proc_show (tests/patches/prewalk-moved.patch); its
# pre-apply hook runs after the pre-walk, before the stop: while the
# domainname is ksplice-moved:PID it continues the stopped task PID (a
# shell that then execs cat on an empty pipe) and waits until it sleeps
# in pipe_read.  With one try the apply must be refused code_busy naming
# cat, its pid and pipe_read; nothing changed.  Without the trigger, the
# same update applies with such a stopped shell about (a task outside the
# code keeps its pre-walk verdict: no false conflict), the new code runs,
# and undo brings the stock code back.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 19
upd=$(make_update "$KSPLICE_TOP/tests/patches/prewalk-moved.patch" moved)
ok $? "the update builds"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-moved.log" | tail -20; bail "no update file"; }

# Output goes to files, never through a pipe (a reader would sit in
# pipe_read).  stopped: a shell, stopped before it execs cat on an empty
# pipe whose writer (sleep) stays open; its pid in $pid.
out=$(vm --smp 2 --file "$upd" -- '
	dn() { echo "$1" >/proc/sys/kernel/domainname; }
	base=$(cat /proc/cmdline)
	st() { c=$(cat /proc/cmdline); echo "STATE $1: [${c#"$base"}]"; }
	stopped() {
		sleep 600 | sh -c "kill -STOP \$\$; exec cat >/dev/null" >/dev/null &
		pid=$!
		while ! grep -q "^State:.*stopped" /proc/$pid/status; do sleep 0.1; done
	}
	b=$(kpeek pipe_read 16)
	stopped
	echo "SH-PID=$pid"
	dn ksplice-moved:$pid
	ksplice-apply --max-tries 1 ksplice-moved.tar.gz >/tmp/a 2>&1
	echo "MOVED-STATUS=$?"; sed "s/^/MOVED: /" /tmp/a; st moved
	[ -n "$b" ] && [ "$(kpeek pipe_read 16)" = "$b" ] && echo MOVED-BYTES-UNCHANGED
	grep -q "^ksplice_moved " /proc/modules && echo MOVED-MODULE-LOADED
	echo "NOW $(cat /proc/$pid/comm) $(cat /proc/$pid/wchan)"
	dmesg | sed -n "s/^.*ksplice-moved: /HOOK: /p"
	kill $(pidof sleep); wait
	dn ksplice-ok
	stopped
	echo "SH2-PID=$pid"
	ksplice-apply --max-tries 1 ksplice-moved.tar.gz >/tmp/a 2>&1
	echo "APPLY-STATUS=$?"; sed "s/^/APPLY: /" /tmp/a; st applied
	[ -n "$b" ] && [ "$(kpeek pipe_read 16)" != "$b" ] && echo APPLY-BYTES-CHANGED
	echo "SH2 $(cat /proc/$pid/comm) $(grep ^State: /proc/$pid/status)"
	kill -CONT $pid; echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-WORKS=$(cat /tmp/y)"
	kill $(pidof sleep); wait
	ksplice-undo moved >/tmp/u 2>&1; echo "UNDO-STATUS=$?"; sed "s/^/UNDO: /" /tmp/u; st undone
	[ -n "$b" ] && [ "$(kpeek pipe_read 16)" = "$b" ] && echo UNDO-BYTES-RESTORED
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|soft lockup" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
pid=$(printf '%s\n' "$out" | sed -n 's/^SH-PID=//p')

like "$out" "HOOK: task $pid \\(sh\\) sleeps in pipe_read|HOOK: task $pid \\(cat\\) sleeps in pipe_read" \
	"the hook, after the pre-walk, moved the stopped task into pipe_read"
like "$out" 'MOVED-STATUS=[1-9]' "a task moved into the code after the pre-walk: the apply is refused"
like "$out" 'MOVED: .*(code_busy|running the code)' "  as code busy"
like "$out" "MOVED: .*cat.* $pid .*pipe_read|MOVED: .*cat.*\\($pid\\).*pipe_read" \
	"  naming the moved task (cat, pid $pid) and pipe_read"
like "$out" 'STATE moved: \[\]$' "  nothing changed (/proc/cmdline)"
like "$out" 'MOVED-BYTES-UNCHANGED' "  not even pipe_read's bytes"
unlike "$out" 'MOVED-MODULE-LOADED' "  the update module is not left loaded"
like "$out" "NOW cat pipe_read" "  the task still sleeps in pipe_read"
like "$out" 'APPLY-STATUS=0' "without the trigger the same update applies, a stopped task about"
like "$out" 'SH2 sh State:.*stopped' "  the stopped task stayed stopped (outside the code)"
like "$out" 'STATE applied: \[ moved=new\]$' "  the new cmdline_proc_show runs"
like "$out" 'APPLY-BYTES-CHANGED' "  pipe_read is patched"
like "$out" 'PIPE-WORKS=data' "  pipes work through the new pipe_read"
like "$out" 'UNDO-STATUS=0' "undo succeeds"
like "$out" 'STATE undone: \[\]$' "  the stock cmdline_proc_show runs"
like "$out" 'UNDO-BYTES-RESTORED' "  pipe_read's stock bytes are back"
unlike "$out" '^DMESG' "no oops, warning or lockup"
