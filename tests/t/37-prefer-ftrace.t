#!/bin/bash
# The core's prefer_ftrace parameter (bench/per-call's ksplice-through-
# ftrace variant): with it set, a function that has room for a jump is
# redirected through ftrace instead -- the ftrace site at the entry
# changes, the bytes after it stay stock, ftrace lists the function, and
# the new code runs; undo restores every byte.  Unset, the same update
# writes its jmp after the site, as always.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 13
upd=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" cmdline)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-cmdline.log"; bail "no update file"; }

out=$(vm --file "$upd" -- '
	fn=cmdline_proc_show p=/sys/module/ksplice/parameters/prefer_ftrace
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	old=$(cat /proc/cmdline) stock=$(kpeek $fn 16)
	echo "STOCK: $stock"
	# the first apply loads the core
	ksplice-apply ksplice-cmdline.tar.gz >/dev/null && ksplice-undo cmdline >/dev/null || exit 1
	echo 1 >$p || exit 1
	ksplice-apply ksplice-cmdline.tar.gz || exit 1
	echo 0 >$p
	now=$(kpeek $fn 16)
	echo "FTRACE: $now"
	[ "$(cat /proc/cmdline)" != "$old" ] && echo "FTRACE-NEW-CODE: $(cat /proc/cmdline)"
	[ "${now:0:10}" != "${stock:0:10}" ] && echo "FTRACE-SITE-CHANGED"
	[ "${now:10}" = "${stock:10}" ] && echo "FTRACE-REST-STOCK"
	grep -q "^$fn" /sys/kernel/tracing/enabled_functions && echo "FTRACE-LISTS-IT"
	ksplice-undo cmdline || exit 1
	[ "$(kpeek $fn 16)" = "$stock" ] && [ "$(cat /proc/cmdline)" = "$old" ] && echo "FTRACE-UNDONE"
	grep -q "^$fn" /sys/kernel/tracing/enabled_functions || echo "FTRACE-UNLISTED"
	ksplice-apply ksplice-cmdline.tar.gz || exit 1
	now=$(kpeek $fn 16)
	echo "JMP: $now"
	[ "${now:0:10}" = "${stock:0:10}" ] && [ "${now:10:2}" = e9 ] && echo "JMP-AFTER-SITE"
	[ "$(cat /proc/cmdline)" != "$old" ] && echo "JMP-NEW-CODE"
	ksplice-undo cmdline || exit 1
	[ "$(kpeek $fn 16)" = "$stock" ] && echo "JMP-UNDONE"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -E '^(STOCK|FTRACE|JMP):')"
like "$out" 'FTRACE-NEW-CODE: .*ksplice' "prefer_ftrace: the new code runs"
like "$out" 'FTRACE-SITE-CHANGED' "... through the ftrace site at the entry"
like "$out" 'FTRACE-REST-STOCK' "... and no jmp after it (the rest of the entry is stock)"
like "$out" 'FTRACE-LISTS-IT' "... ftrace lists the function as traced"
like "$out" 'FTRACE-UNDONE' "undo: every byte stock, the old code runs"
like "$out" 'FTRACE-UNLISTED' "... and ftrace no longer lists it"
like "$out" 'JMP-AFTER-SITE' "prefer_ftrace unset: the jmp after the ftrace site, as always"
like "$out" 'JMP-NEW-CODE' "... the new code runs"
like "$out" 'JMP-UNDONE' "... and undo restores every byte"
unlike "$out" 'DMESG: ' "no oops or warning"
like "$out" 'STOCK: [0-9a-f]{32}' "(positive) the entry's bytes were read"
