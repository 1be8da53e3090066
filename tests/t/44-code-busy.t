#!/bin/bash
# The safety check: a task blocked inside the function being replaced (cat
# reading an empty pipe sleeps in pipe_read) makes apply retry and then give
# up with code_busy, naming the task; the kernel text is unchanged.  Once
# the task has left the function, the same update applies.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 14
upd=$(make_update "$KSPLICE_TOP/tests/patches/pipe_read.patch" pipe)
ok $? "ksplice-create builds the pipe_read update"

# Output goes to files, never through a pipe: a shell reading a pipe would
# itself be inside pipe_read.
out=$(vm --file "$upd" -- '
	sleep 600 | cat >/dev/null &
	sleep 1
	catpid=$(pidof cat)
	echo "CAT-PID=$catpid"
	before=$(kpeek pipe_read 16)
	start=$(date +%s)
	ksplice-apply --max-tries 3 --retry-interval 300 ksplice-pipe.tar.gz >/tmp/apply1 2>&1
	echo "APPLY1-STATUS=$? SECONDS=$(( $(date +%s) - start ))"
	sed "s/^/APPLY1: /" /tmp/apply1
	after=$(kpeek pipe_read 16)
	[ -n "$before" ] && [ "$before" = "$after" ] && echo TEXT-UNCHANGED
	kill $(pidof sleep); wait
	ksplice-apply ksplice-pipe.tar.gz >/tmp/apply2 2>&1
	echo "APPLY2-STATUS=$?"
	echo data >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-WORKS=$(cat /tmp/y)"
	[ "$(kpeek pipe_read 16)" != "$before" ] && echo TEXT-PATCHED
	ksplice-undo pipe >/tmp/undo 2>&1; echo "UNDO-STATUS=$?"
	[ -n "$before" ] && [ "$(kpeek pipe_read 16)" = "$before" ] && echo TEXT-RESTORED
	lsmod | grep -q "^ksplice_pipe" || echo MODULE-GONE
	echo again >/tmp/x; cat /tmp/x | cat >/tmp/y; echo "PIPE-AFTER-UNDO=$(cat /tmp/y)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
catpid=$(printf '%s\n' "$out" | sed -n 's/^CAT-PID=//p')
like "$out" 'APPLY1-STATUS=[1-9]' "apply fails while cat sleeps in pipe_read"
like "$out" 'APPLY1: .*(code_busy|running the code)' "the cause is that the code is busy"
like "$out" "APPLY1: .*cat.* $catpid .*pipe_read|APPLY1: .*cat.*\($catpid\).*pipe_read" "the blocking task (comm, pid) and the function are named"
like "$out" 'TEXT-UNCHANGED' "the kernel text is unchanged after the refusal"
like "$out" 'APPLY2-STATUS=0' "once the task has left the function, the update applies"
like "$out" 'PIPE-WORKS=data' "pipes work through the new code"
like "$out" 'TEXT-PATCHED' "the applied update changed pipe_read's entry"
like "$out" 'UNDO-STATUS=0' "and it undoes"
like "$out" 'TEXT-RESTORED' "after undo pipe_read's bytes are the stock ones again"
like "$out" 'MODULE-GONE' "after undo the update module is unloaded"
like "$out" 'PIPE-AFTER-UNDO=again' "pipes work through the old code after undo"
unlike "$out" '^DMESG' "no oops or warning"
