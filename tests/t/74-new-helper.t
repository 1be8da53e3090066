#!/bin/bash
# A patch that moves n_tty_write's body into a new noinline static helper,
# n_tty_write_locked, and leaves a wrapper of the old name calling it.  The
# helper calls the unit's statics (process_echoes, do_output_char), takes
# the address of a non-exported function (redirected_tty_write) and of an
# exported one (woken_wake_function, in its wait-queue entry): all of them
# must be relocated, or the first tty write after apply oopses (it did: a
# zero call field called the next instruction, shifting the helper's frame,
# and the serial interrupt woke a wait entry whose func was a heap pointer).
# Every line of the command's own output goes through the patched path
# (the console is ttyS0), and so does a pty pair written hard for seconds
# and checked line by line.  The wrapper tail-calls the helper: a writer
# asleep in the helper has no replacement on its stack, and undo must
# still refuse while it is there.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
upd=$(make_update "$KSPLICE_TOP/tests/patches/n_tty-write-helper.patch" ntty)
ok $? "ksplice-create builds the n_tty_write update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-ntty.log"; bail "no update file"; }
like "$(cat "$tmp/create-ntty.log")" 'new function: n_tty_write_locked' \
	"the helper is a new function of the update"

out=$(vm --timeout 300 --file "$upd" -- '
	mkdir -p /dev/pts; mount -t devpts devpts /dev/pts
	echo "BEFORE: $(ptywrite check 2)"
	ksplice-apply ksplice-ntty.tar.gz >/tmp/apply 2>&1; echo "APPLY-STATUS=$?"
	grep -w n_tty_write_locked /proc/kallsyms | sed "s/^/KALLSYMS: /"
	i=0; while [ $i -lt 2000 ]; do echo "CONSOLE $i abcdefghijklmnopqrstuvwxyz0123456789"; i=$((i + 1)); done
	echo "PTY: $(ptywrite check 8)"
	ptywrite block >/tmp/block & bpid=$!
	sleep 2
	w=$(sed -n "s/^PTY-BLOCKED pid=//p" /tmp/block)
	sed "s/^/STACK: /" /proc/$w/stack
	echo 1 >/sys/kernel/ksplice/ntty/max_tries
	ksplice-undo ntty >/tmp/busy 2>&1; echo "BUSY-STATUS=$?"
	sed "s/^/BUSY: /" /tmp/busy
	echo "STILL: $(cat /sys/kernel/ksplice/ntty/stage)"
	kill $bpid; wait $bpid
	ksplice-undo ntty >/tmp/undo 2>&1; echo "UNDO-STATUS=$?"
	echo "AFTER: $(ptywrite check 2)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|stack-protector" | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$(printf '%s\n' "$out" | grep -v '^CONSOLE ' | head -60)"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"
like "$out" '^BEFORE: PTY-OK lines=[1-9]' "pty writes are intact before the update (the check's own check)"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^KALLSYMS: .* n_tty_write_locked.*\[ksplice_ntty\]' "the helper is in the update module"
is "$(printf '%s\n' "$out" | grep -c '^CONSOLE [0-9]* abcdefghijklmnopqrstuvwxyz0123456789$')" 2000 \
	"2000 console lines written through the new code arrive whole"
is "$(printf '%s\n' "$out" | grep '^CONSOLE ' | awk '{ if ($2 != NR - 1) bad++ } END { print bad + 0 }')" 0 \
	"... and in order"
like "$out" '^PTY: PTY-OK lines=[0-9]{4,} ' "8 s of pty writes through the new code arrive whole and in order"
like "$out" '^STACK: .*n_tty_write_locked\+.*\[ksplice_ntty\]' \
	"a writer that has to wait sleeps inside the new helper"
unlike "$(printf '%s\n' "$out" | grep '^STACK: ')" '^STACK: .*n_tty_write\+' \
	"... with no replacement on its stack (the wrapper tail-called it)"
like "$out" 'BUSY-STATUS=[1-9]' "undo is refused while it sleeps there"
like "$out" 'BUSY: .*ptywrite.*n_tty_write_locked' "... naming the task and the helper"
like "$out" 'STILL: applied' "... and the update stays applied"
like "$out" 'UNDO-STATUS=0' "undo succeeds once the writer is gone"
like "$out" '^AFTER: PTY-OK lines=[1-9]' "pty writes are intact after undo"
unlike "$out" 'DMESG: ' "no oops, BUG or warning in dmesg"
