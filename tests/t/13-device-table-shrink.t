#!/bin/bash
# A read-only device table that loses an entry, patched in place (data.c,
# kmod/data.c): tests/patches/piix4-ids-shrink.patch drops Intel's PIIX4
# SMBus function from i2c-piix4's piix4_ids, the shape of btsdio's fix in
# 6.1.187.  The table shrinks from 16 entries to 15: the running one gets
# the new entries and a zeroed tail.  Behaviour: QEMU's pc machine has
# that function at 0000:00:01.3, and while the update is applied the
# driver no longer binds to it (the PCI core's unchanged matching walks
# the table to its zero entry), whether the update came before the module
# or after it; after undo it binds again.  The bytes: the entry the tail
# holds (the 15th, of 40 bytes) is zero while applied, the stock entry
# before and after.
# The same table gaining an entry (piix4-ids-grow.patch) is refused: there
# is no room for it where it is.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 24
p=$KSPLICE_TOP/tests/patches
upd=$(make_update "$p/piix4-ids-shrink.patch" idshr)
ok $? "ksplice-create builds the update of a table that shrinks"
log=$(cat "$tmp/create-idshr.log")
like "$log" '^  changed data: piix4_ids: shrinks from 640 to 600 bytes, read-only: patched in place, the rest zeroed$' \
	"  saying it is patched in place, and how"
unlike "$log" '__mod_pci__piix4_ids_device_table' \
	"  its other name (MODULE_DEVICE_TABLE's alias) is not a second variable"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-idshr.log"; bail "no update file"; }

make_update "$p/piix4-ids-grow.patch" idgrw >/dev/null
ok $((! $?)) "the table gaining an entry is refused"
like "$(cat "$tmp/create-idgrw.log")" \
	'note: piix4_ids is read-only, but cannot be patched in place: it grows, and there is no room for it where it is' \
	"  because it grows"
[ ! -e "$tmp/ksplice-idgrw.tar.gz" ]
ok $? "  and no update file is written"

out=$(vm --module i2c-piix4 --file "$upd" -- '
	dev=0000:00:01.3 drv=/sys/bus/pci/drivers/piix4_smbus
	bound() { echo "BOUND $1 $(basename "$(readlink /sys/bus/pci/devices/$dev/driver)" 2>/dev/null)"; }
	tail15() {	# the 15th entry: a device, or the zero tail
		a=$(awk "\$3 == \"piix4_ids\" { print \$1 }" /proc/kallsyms)
		echo "TAIL $1 $(kpeek 0x$(printf %x $((0x$a + 560))) 8)"; }
	modprobe i2c-piix4; echo "LOAD=$?"; bound stock; tail15 stock
	echo $dev >$drv/unbind
	ksplice-apply ksplice-idshr.tar.gz; echo "APPLY-LOADED=$?"; tail15 applied
	echo $dev >$drv/bind; echo "BIND-APPLIED=$?"; bound applied
	ksplice-undo idshr; echo "UNDO-LOADED=$?"; tail15 undone
	echo $dev >$drv/bind; echo "BIND-UNDONE=$?"; bound undone
	rmmod i2c-piix4; echo "RMMOD=$?"
	ksplice-apply ksplice-idshr.tar.gz; echo "APPLY-UNLOADED=$?"
	modprobe i2c-piix4; echo "LOAD-AFTER=$?"; bound loaded-after
	ksplice-undo idshr; echo "UNDO=$?"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -vE '^\[')"
like "$out" 'LOAD=0' "i2c-piix4 loads"
like "$out" '^BOUND stock piix4_smbus$' "stock: the driver binds to the PIIX4 SMBus function"
like "$out" '^TAIL stock 66110000' "  the table's 15th entry is a device (vendor 0x1166)"
like "$out" 'APPLY-LOADED=0' "applied with i2c-piix4 loaded"
like "$out" '^TAIL applied 0000000000000000$' "  the 15th entry is now zero: the tail"
unlike "$out" 'BIND-APPLIED=0' "  binding the driver to the function fails"
like "$out" '^BOUND applied $' "  and it is not bound"
like "$out" 'UNDO-LOADED=0' "undone"
like "$out" '^TAIL undone 66110000' "  the stock entry is back"
like "$out" 'BIND-UNDONE=0' "  the driver binds again"
like "$out" '^BOUND undone piix4_smbus$' "  and is bound"
like "$out" 'RMMOD=0' "i2c-piix4 unloads"
like "$out" 'APPLY-UNLOADED=0' "applied while i2c-piix4 is not loaded"
like "$out" 'LOAD-AFTER=0' "i2c-piix4 loads again"
like "$out" '^BOUND loaded-after $' "  the module, patched as it loads, does not bind to the function"
like "$out" 'UNDO=0' "undone"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
