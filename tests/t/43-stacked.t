#!/bin/bash
# Two updates of different functions, stacked: both apply, and they undo in
# either order, each leaving the other one in force.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 9
a=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" sta) &&
b=$(make_update "$KSPLICE_TOP/examples/uname.patch" stb)
ok $? "both updates build"

out=$(vm --file "$a" --file "$b" -- '
	state() { c=old; u=old
		grep -q ksplice=applied /proc/cmdline && c=new
		[ "$(uname -v)" = "ksplice: patched live" ] && u=new
		echo "STATE $1: cmdline=$c uname=$u"; }
	ksplice-apply ksplice-sta.tar.gz >/dev/null && ksplice-apply ksplice-stb.tar.gz >/dev/null
	state both-applied
	ksplice-undo sta >/dev/null; state first-undone-a
	ksplice-undo stb >/dev/null; state then-b
	ksplice-apply ksplice-sta.tar.gz >/dev/null && ksplice-apply ksplice-stb.tar.gz >/dev/null
	state reapplied
	ksplice-undo stb >/dev/null; state first-undone-b
	ksplice-undo sta >/dev/null; state then-a
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
like "$out" 'STATE both-applied: cmdline=new uname=new' "both updates in force together"
like "$out" 'STATE first-undone-a: cmdline=old uname=new' "undoing the first keeps the second"
like "$out" 'STATE then-b: cmdline=old uname=old' "undoing the second restores the stock kernel"
like "$out" 'STATE reapplied: cmdline=new uname=new' "both apply again"
like "$out" 'STATE first-undone-b: cmdline=new uname=old' "undoing the later one first keeps the earlier"
like "$out" 'STATE then-a: cmdline=old uname=old' "and undoing the earlier one restores the stock kernel"
unlike "$out" '^DMESG' "no oops or warning"
