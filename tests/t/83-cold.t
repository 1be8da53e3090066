#!/bin/bash
# A function gcc splits into a hot part and a cold part: a patch adding a
# printk (a cold call) to cmdline_proc_show makes cmdline_proc_show.cold, a
# new function the changed hot part jumps to.  Reading /proc/cmdline runs
# both: the cold part's line is logged after apply, and not before it nor
# after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 10
upd=$(make_update "$KSPLICE_TOP/tests/patches/cmdline-cold.patch" cmdcold)
ok $? "ksplice-create builds the update"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-cmdcold.log"; bail "no update file"; }
log=$(cat "$tmp/create-cmdcold.log")
like "$log" 'changed function: cmdline_proc_show \(fs/proc/cmdline.c, vmlinux\)' "  the hot part changed"
like "$log" 'new function: cmdline_proc_show.cold \(fs/proc/cmdline.c, vmlinux\)' "  and its cold part is new"

out=$(vm --file "$upd" -- '
	show() { dmesg -c >/dev/null; cat /proc/cmdline >/dev/null
		echo "$1 $(dmesg | grep -c "ksplice: cold part of cmdline_proc_show")"; }
	show BEFORE
	ksplice-apply ksplice-cmdcold.tar.gz; echo "APPLY-STATUS=$?"
	show AFTER
	ksplice-undo cmdcold; echo "UNDO-STATUS=$?"
	show UNDONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | head -20)"
like "$out" '^BEFORE 0$' "before: the stock cmdline_proc_show logs nothing"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER 1$' "after apply: the new hot part runs the new cold part, which logs"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" '^UNDONE 0$' "after undo: nothing logged again"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
