#!/bin/bash
# Undo is checked like apply, against the new code: with the pipe_read
# update applied, cat sleeping in the new pipe_read makes undo retry and
# fail with code_busy naming cat and pipe_read; the update stays applied
# and the text is unchanged.  Once cat has left, undo succeeds.  Also:
# the apply's pause and its stack-walk part (check_ns) in sysfs and in
# ksplice-view.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 13
upd=$(make_update "$KSPLICE_TOP/tests/patches/pipe_read.patch" pipe)
ok $? "ksplice-create builds the pipe_read update"

# Output goes to files, never through a pipe (see 44-code-busy.t).
out=$(vm --file "$upd" -- '
	ksplice-apply ksplice-pipe.tar.gz >/tmp/apply 2>&1; echo "APPLY-STATUS=$?"
	echo "PAUSE-NS=$(cat /sys/kernel/ksplice/pipe/pause_ns) CHECK-NS=$(cat /sys/kernel/ksplice/pipe/check_ns)"
	ksplice-view pipe >/tmp/view 2>&1; sed -n "s/^last pause/VIEW: last pause/p" /tmp/view
	sleep 600 | cat >/dev/null &
	sleep 1
	echo "CAT-PID=$(pidof cat)"
	before=$(kpeek pipe_read 16)
	start=$(cut -d" " -f1 /proc/uptime)
	ksplice-undo --max-tries 3 --retry-interval 300 pipe >/tmp/undo1 2>&1
	st=$?
	end=$(cut -d" " -f1 /proc/uptime)
	echo "UNDO1-STATUS=$st"
	echo "UNDO1-MS=$(echo "$start $end" | awk "{ printf \"%d\", (\$2 - \$1) * 1000 }")"
	sed "s/^/UNDO1: /" /tmp/undo1
	echo "STAGE=$(cat /sys/kernel/ksplice/pipe/stage)"
	[ -n "$before" ] && [ "$before" = "$(kpeek pipe_read 16)" ] && echo TEXT-UNCHANGED
	lsmod | grep -q "^ksplice_pipe" && echo MODULE-STILL-LOADED
	kill $(pidof sleep); wait
	ksplice-undo pipe >/tmp/undo2 2>&1; echo "UNDO2-STATUS=$?"
	lsmod | grep -q "^ksplice_pipe" && echo MODULE-LEFT-AFTER-UNDO
	echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-WORKS=$(cat /tmp/y)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
catpid=$(printf '%s\n' "$out" | sed -n 's/^CAT-PID=//p')
like "$out" 'APPLY-STATUS=0' "the pipe_read update applies"
p=$(printf '%s\n' "$out" | sed -n 's/^PAUSE-NS=\([0-9]*\) CHECK-NS=\([0-9]*\)$/\1 \2/p')
ok $(set -- $p; [ $# = 2 ] && [ "$2" -gt 0 ] && [ "$2" -le "$1" ]; echo $?) \
	"sysfs check_ns (the stack walk) is positive and part of pause_ns ($p)"
like "$out" 'VIEW: last pause +[0-9.]+ us \(stack walk [0-9.]+ us, patching [0-9.]+ us\)' \
	"ksplice-view shows the pause split into stack walk and patching"
like "$out" 'UNDO1-STATUS=[1-9]' "undo fails while cat sleeps in the new pipe_read"
like "$out" "UNDO1: .*cat.*$catpid.*pipe_read|UNDO1: .*cat.*\($catpid\).*pipe_read" "the blocking task (cat, its pid) and the function are named"
like "$out" 'UNDO1: .*(code_busy|running the (update.s )?code).*3 tries, 300 ms apart' "the cause is that the code is busy, in each of the 3 tries"
ms=$(printf '%s\n' "$out" | sed -n 's/^UNDO1-MS=//p')
ok $([ -n "$ms" ] && [ "$ms" -ge 500 ]; echo $?) "undo retried before giving up (${ms:-?} ms for 3 tries 300 ms apart)"
like "$out" 'STAGE=applied' "the update stays applied"
like "$out" 'TEXT-UNCHANGED' "the kernel text is unchanged by the refused undo"
like "$out" 'UNDO2-STATUS=0' "once cat has left the new code, undo succeeds"
unlike "$out" 'MODULE-LEFT-AFTER-UNDO|^DMESG|PIPE-WORKS=$' "module unloaded, pipes work, no oops or warning"
