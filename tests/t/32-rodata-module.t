#!/bin/bash
# Read-only data of a module patched in place (kmod/data.c):
# tests/patches/sunrpc-portnr-hex.patch points sunrpc's param_ops_portnr
# (a static ops table its min_resvport parameter points at) at
# param_get_hexint, so /sys/module/sunrpc/parameters/min_resvport reads
# 0x000299 instead of 665 while the update is applied.  Applied with
# sunrpc loaded it is patched at once; applied while sunrpc is not loaded,
# sunrpc is patched as it loads, and again when it is reloaded; undo puts
# the table back, and a later load is the stock one.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
upd=$(make_update "$KSPLICE_TOP/tests/patches/sunrpc-portnr-hex.patch" rdmod)
ok $? "ksplice-create builds the update"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-rdmod.log"; bail "no update file"; }
like "$(cat "$tmp/create-rdmod.log")" \
	'changed data: param_ops_portnr: its initial value \(what it points at\), read-only: patched in place \(32 bytes\)' \
	"the module's ops table is patched in place"

out=$(vm --module sunrpc --file "$upd" -- '
	rv() { echo "RV $1 $(cat /sys/module/sunrpc/parameters/min_resvport 2>&1)"; }
	modprobe sunrpc; rv stock
	ksplice-apply ksplice-rdmod.tar.gz; echo "APPLY-LOADED=$?"; rv applied-loaded
	ksplice-undo rdmod; echo "UNDO-LOADED=$?"; rv undone-loaded
	rmmod sunrpc; echo "RMMOD=$?"
	ksplice-apply ksplice-rdmod.tar.gz; echo "APPLY-UNLOADED=$?"
	modprobe sunrpc; echo "LOAD=$?"; rv loaded-after
	rmmod sunrpc && modprobe sunrpc; rv reloaded
	ksplice-undo rdmod; echo "UNDO=$?"; rv undone
	rmmod sunrpc && modprobe sunrpc; rv reloaded-after-undo
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -vE '^\[')"
like "$out" '^RV stock 665$' "stock: min_resvport reads 665"
like "$out" 'APPLY-LOADED=0' "applied with sunrpc loaded"
like "$out" '^RV applied-loaded 0x000299$' "  the parameter reads through param_get_hexint"
like "$out" 'UNDO-LOADED=0' "undone"
like "$out" '^RV undone-loaded 665$' "  and reads 665 again"
like "$out" 'RMMOD=0' "sunrpc unloads"
like "$out" 'APPLY-UNLOADED=0' "applied while sunrpc is not loaded"
like "$out" 'LOAD=0' "sunrpc loads"
like "$out" '^RV loaded-after 0x000299$' "  patched as it loads"
like "$out" '^RV reloaded 0x000299$' "  and again when reloaded"
like "$out" 'UNDO=0' "undone with sunrpc loaded"
like "$out" '^RV undone 665$' "  the table is back"
like "$out" '^RV reloaded-after-undo 665$' "  and a later load is the stock one"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
