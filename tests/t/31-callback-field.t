#!/bin/bash
# Callback fields of writable data patched in place (KSPLICE_DATA_FIELDS,
# kmod/data.c, src/create/datafields.c).  tests/patches/memory-uevent.patch
# gives memory_subsys, a writable bus_type that the kernel registered (and
# wrote into: its subsys_private), a .uevent callback, a function the
# patch adds: dev_uevent() calls it for a memory block, so its uevent file
# in sysfs says KSPLICE_CB=memoryN while the update is applied, and not
# before or after undo.  Only the field is checked and written: the
# running structure's other bytes are the kernel's, but for .online and
# .offline, functions: the core proves them as anchors.
# The same update under another id, applied on top, finds the field no
# longer NULL (its pre value) and is refused with nothing changed; once
# the first is undone, it applies.
# tests/patches/param-bool-new-get.patch points read-only param_ops_bool's
# .get at a function another unit (kernel/sysctl.c) adds: printk.time
# reads "yes" while applied, Y after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 27
p=$KSPLICE_TOP/tests/patches
mu=$(make_update "$p/memory-uevent.patch" cbmem)
ok $? "ksplice-create builds the memory_subsys update"
like "$(cat "$tmp/create-cbmem.log")" \
	'^  changed data: memory_subsys: callback fields \(1\) of writable data: patched in place \(anchors: 2\)$' \
	"  its .uevent field is patched in place, proven by .online and .offline (anchors)"
like "$(cat "$tmp/create-cbmem.log")" 'new function: memory_subsys_uevent' \
	"  and the callback is a new function of the update"
mu2=$(make_update "$p/memory-uevent.patch" cbmem2)
ok $? "the same update under another id builds"
pb=$(make_update "$p/param-bool-new-get.patch" cbpb)
ok $? "the param_ops_bool update (another unit's new function) builds"
[ -s "${mu:-}" ] && [ -s "${mu2:-}" ] && [ -s "${pb:-}" ] || {
	sed 's/^/# /' "$tmp"/create-*.log; bail "an update was not built"; }

out=$(vm --file "$mu" --file "$mu2" --file "$pb" -- '
	m=$(ls -d /sys/devices/system/memory/memory* | head -n 1)
	echo "BLOCK ${m##*/}"
	ue() { echo "UE $1 $(grep -c "^KSPLICE_CB=${m##*/}$" $m/uevent)"; }
	ue stock
	ksplice-apply ksplice-cbmem.tar.gz; echo "APPLY=$?"; ue applied
	echo "DATA $(cat /sys/kernel/ksplice/cbmem/data)"
	ksplice-apply ksplice-cbmem2.tar.gz; echo "APPLY-ON-TOP=$?"; ue on-top
	lsmod | grep -q "^ksplice_cbmem2 " && echo "ON-TOP-MODULE-LEFT"
	ksplice-undo cbmem; echo "UNDO=$?"; ue undone
	ksplice-apply ksplice-cbmem2.tar.gz; echo "APPLY2=$?"; ue applied2
	ksplice-undo cbmem2; echo "UNDO2=$?"; ue undone2
	pt() { echo "PT $1 $(cat /sys/module/printk/parameters/time)"; }
	pt stock
	ksplice-apply ksplice-cbpb.tar.gz; echo "APPLY-PB=$?"; pt applied
	ksplice-undo cbpb; echo "UNDO-PB=$?"; pt undone
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
like "$out" '^BLOCK memory[0-9]+$' "the guest has memory blocks in sysfs"
diag "$(printf '%s\n' "$out" | grep -vE '^\[')"
like "$out" '^UE stock 0$' "stock: a memory block's uevent has no KSPLICE_CB"
like "$out" 'APPLY=0' "the update applies"
like "$out" '^UE applied 1$' "  and dev_uevent() calls the new callback: KSPLICE_CB=memoryN"
like "$out" '^DATA memory_subsys vmlinux 0xffffffff[0-9a-f]+ patched$' \
	"  its sysfs data says the variable, where it runs and that it is patched"
like "$out" 'APPLY-ON-TOP=[1-9]' "the same change under another id is refused on top of it"
like "$out" 'memory_subsys: update cbmem changed it' "  naming the update that changed the field"
unlike "$out" 'ON-TOP-MODULE-LEFT' "  and nothing of it is left loaded"
like "$out" '^UE on-top 1$' "  with the callback unchanged (one variable, one field)"
like "$out" 'UNDO=0' "the first undoes"
like "$out" '^UE undone 0$' "  and the field is NULL again: no KSPLICE_CB"
like "$out" 'APPLY2=0' "then the second applies (the field is NULL, its pre value)"
like "$out" '^UE applied2 1$' "  calling its own copy of the callback"
like "$out" 'UNDO2=0' "it undoes"
like "$out" '^UE undone2 0$' "  and the uevent is the stock one"
like "$out" '^PT stock Y$' "stock: printk.time reads Y"
like "$out" 'APPLY-PB=0' "the param_ops_bool update applies"
like "$out" '^PT applied yes$' "  and the table's .get is the new function of kernel/sysctl.c"
like "$out" 'UNDO-PB=0' "it undoes"
like "$out" '^PT undone Y$' "  and printk.time reads Y again"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
