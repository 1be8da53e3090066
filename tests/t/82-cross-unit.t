#!/bin/bash
# Two units in one patch: a new global function in fs/proc/version.c,
# called from cmdline_proc_show in fs/proc/cmdline.c, is linked inside the
# update (the running kernel has no such symbol).  The new function calls
# dma_buf_get, an export of the namespace DMA_BUF: the update module
# imports it (modpost and the loader refuse it otherwise).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 14
upd=$(make_update "$KSPLICE_TOP/tests/patches/cross-unit.patch" xunit)
ok $? "ksplice-create builds the update of two units"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-xunit.log"; bail "no update file"; }
log=$(cat "$tmp/create-xunit.log")
like "$log" 'new function: ksplice_proc_note \(fs/proc/version.c, vmlinux\)' "  the new global function's unit is kept"
like "$log" 'changed function: cmdline_proc_show \(fs/proc/cmdline.c, vmlinux\)' "  with the changed caller's"
tar -xzf "$upd" -C "$tmp" ksplice_xunit.ko
like "$(modinfo -F import_ns "$tmp/ksplice_xunit.ko")" '^DMA_BUF$' "  the update module imports the namespace DMA_BUF"
like "$(nm "$tmp/ksplice_xunit.ko")" ' T ksplice_proc_note$' "  and defines the new function for its callers"

# The new function alone, called from nowhere: nothing would run it.
awk '/^--- a\/fs\/proc\/version.c/ { p = 1 } p' "$KSPLICE_TOP/tests/patches/cross-unit.patch" >"$tmp/alone.patch"
alone=$(make_update "$tmp/alone.patch" alone)
[ $? != 0 ] && [ -z "$alone" ]
ok $? "a patch that only adds a new function is refused"
like "$(cat "$tmp/create-alone.log")" 'changes no code in a function: nothing to update' "  saying why"

out=$(vm --file "$upd" -- '
	echo "BEFORE: $(cat /proc/cmdline)"
	ksplice-apply ksplice-xunit.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(cat /proc/cmdline)"
	ksplice-undo xunit; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(cat /proc/cmdline)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | head -20)"
unlike "$(grep '^BEFORE' <<<"$out")" 'ksplice_note' "before: the stock /proc/cmdline"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER: .* ksplice_note=-9$' "after apply: the caller runs the other unit's new function, which calls dma_buf_get"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
before=$(sed -n 's/^BEFORE: //p' <<<"$out")
[ -n "$before" ] && [ "$(sed -n 's/^UNDONE: //p' <<<"$out")" = "$before" ]
ok $? "after undo: the stock /proc/cmdline again"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
