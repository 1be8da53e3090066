#!/bin/bash
# The pre-walk (kmod/prewalk.c): stacks are walked before stop_machine and
# inside it only the tasks that may have moved since.  The core's test knob
# prewalk_delay_ms opens a window between the two.
# (a) A task sleeping elsewhere at the pre-walk (a shell polling for a
# file) that then becomes cat, reading an empty pipe (same task: exec), so
# is blocked in pipe_read when the machine stops, still blocks the apply:
# its context-switch count moved.  (b) Without it the same update applies
# in the same window, pipes work through the new code and fewer stacks are
# walked inside the pause than there are tasks.  (c) Undo the same way: a
# new task created in the window that blocks in the new pipe_read blocks
# the undo; without it the undo goes through.
# Nothing reads a pipe in the guest but those tasks: output goes to files.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 20
upd=$(make_update "$KSPLICE_TOP/tests/patches/pipe_read.patch" pipe)
ok $? "ksplice-create builds the pipe_read update"

out=$(vm --file "$upd" -- '
	tar xzf ksplice-pipe.tar.gz ksplice.ko && insmod ksplice.ko prewalk_delay_ms=3000 && echo CORE-LOADED
	echo "DELAY=$(cat /sys/module/ksplice/parameters/prewalk_delay_ms)"
	# The pre-walk has been done when the core says so (then the window);
	# bounded, so that a broken run fails rather than waits for the rig.
	wait_prewalk() {
		for i in $(seq 300); do
			dmesg >/tmp/dmesg
			[ "$(grep -c "pre-walk done" /tmp/dmesg)" -gt "$1" ] && return
			sleep 0.1
		done
		echo "NO-PREWALK-$1"
	}
	# Blocked in pipe_read: its wchan, at most 2 s after the pre-walk.
	in_pipe_read() {
		for i in $(seq 20); do
			[ "$(cat /proc/$1/wchan 2>/dev/null)" = pipe_read ] && return
			sleep 0.1
		done
		return 1
	}
	before=$(kpeek pipe_read 16)

	# (a) a task woken into pipe_read between the pre-walk and the stop
	sleep 600 | sh -c "while [ ! -e /tmp/go ]; do sleep 0.1; done; exec cat >/dev/null" &
	pid=$!
	sleep 1
	echo "WAS=$(cat /proc/$pid/comm) $(cat /proc/$pid/wchan)"
	ksplice-apply --max-tries 1 ksplice-pipe.tar.gz >/tmp/apply1 2>&1 & apid=$!
	wait_prewalk 0
	touch /tmp/go
	in_pipe_read $pid && echo "WOKEN-IN-WINDOW=$(cat /proc/$pid/comm)"
	wait $apid; echo "APPLY1-STATUS=$? PID=$pid"
	sed "s/^/APPLY1: /" /tmp/apply1
	[ -n "$before" ] && [ "$before" = "$(kpeek pipe_read 16)" ] && echo TEXT-UNCHANGED
	kill $(pidof sleep) $(pidof cat); wait

	# (b) the same without it
	rm -f /tmp/go
	tasks=$(ls -d /proc/[0-9]*/task/[0-9]* | wc -l)
	ksplice-apply --max-tries 1 ksplice-pipe.tar.gz >/tmp/apply2 2>&1
	echo "APPLY2-STATUS=$?"
	echo "TASKS=$tasks WALKED=$(cat /sys/kernel/ksplice/pipe/check_walked)"
	echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-WORKS=$(cat /tmp/y)"
	[ -n "$before" ] && [ "$(kpeek pipe_read 16)" != "$before" ] && echo TEXT-PATCHED

	# (c) undo: a task created in the window, blocked in the new pipe_read
	sleep 600 | sh -c "while [ ! -e /tmp/go ]; do sleep 0.1; done; cat >/dev/null" &
	ksplice-undo --max-tries 1 pipe >/tmp/undo1 2>&1 & upid=$!
	wait_prewalk 2
	touch /tmp/go
	sleep 0.5
	catpid=$(pidof cat); in_pipe_read $catpid && echo "NEW-IN-WINDOW=$catpid"
	wait $upid; echo "UNDO1-STATUS=$? CAT=$catpid"
	sed "s/^/UNDO1: /" /tmp/undo1
	kill $(pidof sleep) $(pidof cat); wait
	ksplice-undo --max-tries 1 pipe >/tmp/undo2 2>&1; echo "UNDO2-STATUS=$?"
	[ -n "$before" ] && [ "$(kpeek pipe_read 16)" = "$before" ] && echo TEXT-RESTORED
	echo again >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-AFTER-UNDO=$(cat /tmp/y)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
pid=$(printf '%s\n' "$out" | sed -n 's/^APPLY1-STATUS=.* PID=//p')
catpid=$(printf '%s\n' "$out" | sed -n 's/^UNDO1-STATUS=.* CAT=//p')
like "$out" 'CORE-LOADED' "the core loads with the test knob"
like "$out" 'DELAY=3000' "the window is 3 s"
like "$out" 'WAS=sh ' "at the pre-walk the task was a shell, not in pipe_read"
like "$out" 'WOKEN-IN-WINDOW=cat' "it became cat blocked in pipe_read within the window"
like "$out" 'APPLY1-STATUS=[1-9]' "the apply is refused"
like "$out" "APPLY1: .*cat.* $pid .*pipe_read|APPLY1: .*cat.*\\($pid\\).*pipe_read" "naming that task and pipe_read"
like "$out" 'TEXT-UNCHANGED' "the kernel text is unchanged"
like "$out" 'APPLY2-STATUS=0' "without that task the update applies, with the same window"
if [[ $out =~ TASKS=([0-9]+)\ WALKED=([0-9]+) ]] &&
	[ "${BASH_REMATCH[2]}" -ge 1 ] && [ "${BASH_REMATCH[2]}" -lt "${BASH_REMATCH[1]}" ]; then
	ok 0 "fewer stacks walked inside the pause (${BASH_REMATCH[2]}) than tasks (${BASH_REMATCH[1]})"
else
	ok 1 "fewer stacks walked inside the pause than tasks"
fi
like "$out" 'PIPE-WORKS=data' "pipes work through the new code"
like "$out" 'TEXT-PATCHED' "pipe_read's entry changed"
like "$out" "NEW-IN-WINDOW=$catpid" "undo: a task created in the window blocked in the new pipe_read"
like "$out" "UNDO1-STATUS=[1-9]" "and the undo is refused"
like "$out" "UNDO1: .*cat.* $catpid .*pipe_read|UNDO1: .*cat.*\\($catpid\\).*pipe_read" "naming it"
like "$out" 'UNDO2-STATUS=0' "without it the undo goes through"
like "$out" 'TEXT-RESTORED' "and pipe_read's bytes are the stock ones again"
like "$out" 'PIPE-AFTER-UNDO=again' "pipes work through the old code"
unlike "$out" '^DMESG' "no oops or warning"
