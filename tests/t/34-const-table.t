#!/bin/bash
# A changed constant only code reads (tests/patches/proc-state-table.patch):
# fs/proc/array.c's task_state_array, whose first entry /proc/self/status
# prints for a running task, gains a word.  The table is static and
# read-only, and only get_task_state()'s inlined copies read it, so the
# update carries the new table and replaces its readers (data.c): while
# applied, /proc/self/status says "R (running, live-patched)", after undo
# "R (running)" again.  Refused as a change of existing data, or bound to
# the running table, it would say "R (running)" throughout.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 9
upd=$(make_update "$KSPLICE_TOP/tests/patches/proc-state-table.patch" cstab)
ok $? "ksplice-create builds the update"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-cstab.log"; bail "no update file"; }
log=$(cat "$tmp/create-cstab.log")
like "$log" "note: task_state_array, a constant only this unit's functions use, changes: the update carries the new one" \
	"the create output says the table is carried anew"
like "$log" 'changed function: proc_pid_status ' "  and its readers are replaced (proc_pid_status)"

out=$(vm --file "$upd" -- '
	state() { echo "$1 $(grep "^State:" /proc/self/status | tr "\t" " ")"; }
	state BEFORE
	ksplice-apply ksplice-cstab.tar.gz; echo "APPLY-STATUS=$?"
	state AFTER
	ksplice-undo cstab; echo "UNDO-STATUS=$?"
	state UNDONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -E '^(BEFORE|AFTER|UNDONE|DMESG)')"
like "$out" '^BEFORE State: R \(running\)$' "before: the stock table"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER State: R \(running, live-patched\)$' "after apply: the new table, read by the new code"
like "$out" '^UNDONE State: R \(running\)$' "after undo: the stock table again"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
