#!/bin/bash
# bench/coverage's failure causes, read from what ksplice-create says
# (create_cause in bench/lib/coverage-rows.sh), on logs of the shapes the
# corpus gives.  A layout change found while some of the probed units do
# not compile with the patch is a layout change (counted apart, and the
# bench's rounds stop there); a unit that does not compile, alone, is not.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/bench/lib/coverage-rows.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 10

cause() {	# RC, then the log's lines
	local rc=$1
	shift
	printf '%s\n' "$@" >"$tmp/log"
	create_cause "$tmp/log" "$rc"
}
no_compile='ksplice-create: net/netfilter/nft_immediate.o does not compile with the patch'
layout='  changed layout: struct nft_set_ops (in net/netfilter/nft_set_hash.o): 200 -> 224 bytes'

like "$(cause 1 "$no_compile" "$layout" \
	'ksplice-create: the patch changes the layout of struct nft_set_ops: running code ...')" \
	'^struct-layout struct nft_set_ops \(in net/netfilter/nft_set_hash.o\)' \
	"a layout change with a unit that does not compile: struct-layout"
like "$(cause 1 "$no_compile" \
	'ksplice-create: the patch reaches 65 units whose code can change, more than --max-units 40: ...')" \
	'^compile-post ' "(positive) a unit that does not compile, then too many units: compile-post"
like "$(cause 1 "$layout" 'ksplice-create: the patch changes the layout of struct pde_opener: ...')" \
	'^struct-layout ' "a layout change alone: struct-layout"
like "$(cause 1 'ksplice-create: the patch reaches 65 units whose code can change, more than --max-units 40: ...')" \
	'^max-units ' "too many units: max-units"
like "$(cause 1 '  changed data: piix4_ids: its size (.rodata.piix4_ids; used by data piix4_driver)' \
	'ksplice-create: the patch changes 1 existing variable ("changed data" above): ...')" \
	'^existing-data piix4_ids: its size' "a change of existing data: existing-data"
like "$(cause 1 '  changed data: ad_dpot_i2c_driver: callback fields (1) of writable data: patched in place (anchors: 2)' \
	'ksplice-create: changed data: ad_dpot_i2c_driver: its new value refers to ad_dpot_groups, new in this update: it cannot be patched in place')" \
	'^existing-data ad_dpot_i2c_driver: its new value refers to ad_dpot_groups' "existing data whose new value names new data: existing-data"
like "$(cause 1 'ksplice-create: changed data: its new value is odd')" \
	'^other ' "(positive) another message about changed data: other"

# "Nothing to update" because only what runs at initialization changed is
# by nature: __init code, or a table only __init code reads (a DMI quirk
# table gaining an entry).
printf '%s\n' '  note: atkbd_dmi_quirk_table is used only at initialization; its change (size) is not applied' \
	'ksplice-create: the patch changes no code in a function: nothing to update (...)' >"$tmp/log"
like "$(init_only "$tmp/log")" 'initialization changed: atkbd_dmi_quirk_table \(data\)' \
	"data used only at initialization: init-only"
printf '%s\n' '  new function: typec_partner_usb_power_delivery_register (drivers/usb/typec/class.c, typec)' \
	'ksplice-create: the patch changes no code in a function: nothing to update (...)' >"$tmp/log"
init_only "$tmp/log" >/dev/null; ok $((! $?)) "(positive) a new function alone: not init-only"
like "$(cause 1 '  changed table: .pci_fixup_final: a new entry calling new function quirk_amd_nbio_7_7_disable_enhanced_atomic+0 (PCI quirks, ...)' \
	'ksplice-create: the patch changes 6 entries of tables the kernel built at boot ("changed table" above): ...')" \
	'^boot-table \.pci_fixup_final: a new entry calling new function quirk_amd' "new entries of a boot table: boot-table"
