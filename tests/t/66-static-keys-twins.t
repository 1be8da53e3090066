#!/bin/bash
# A header change inside a module (fs/ext4/extents_status.h's
# ext4_es_is_delayed, a NULL check added): every ext4 unit includes it.
#  - Twins: inode.c and extents.c each take the function's address, so ext4
#    has two copies of one name with the same code before and after; both
#    are replaced, one each, whichever pairing matching picks.
#  - Static keys the target does not export: the new ext4_es_insert_extent
#    has the tracepoint ext4_es_insert_extent, whose key ext4 keeps to
#    itself.  ksplice-apply resolves it from kallsyms before loading (and
#    refuses while ext4 is not loaded); the tracepoint in the new code is
#    live: enabling it makes the new code emit events, disabling stops
#    them.  ext4 stays loaded while the update is.
#  - The update module, loaded by hand without ksplice-apply, is refused by
#    the kernel's loader.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 21
upd=$(make_update "$KSPLICE_TOP/tests/patches/ext4-es-delayed.patch" esd)
ok $? "an update builds from a change to ext4's extents_status.h"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-esd.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-esd.log")
like "$log" '  37 of the configuration.s units include what the patch changes' "every ext4 unit includes it (those whose code can change are compiled)"
like "$log" 'ext4_es_is_delayed: the same in fs/ext4/extents.c and fs/ext4/inode.c' \
	"the two out-of-line copies of ext4_es_is_delayed are twins"
like "$log" 'changed function: ext4_es_insert_extent \(fs/ext4/extents_status.c, ext4\)' \
	"ext4_es_insert_extent (with a tracepoint) is replaced"
like "$(tar xzf "$upd" -O manifest)" 'load_symbol: ext4 __tracepoint_ext4_es_insert_extent' \
	"  its static key is a load symbol of the update"

out=$(vm --module ext4 --module loop --file "$upd" -- "$guest_peek"'
	ksplice-apply ksplice-esd.tar.gz; echo "APPLY-WITHOUT-EXT4=$?"
	lsmod | grep -q "^ksplice_esd " && echo "UPDATE-LEFT-LOADED"
	mkdir -p x && tar xzf ksplice-esd.tar.gz -C x
	modprobe ext4 && modprobe loop
	insmod x/ksplice_esd.ko 2>/dev/null; echo "INSMOD-BY-HAND=$?"
	dmesg | grep "ksplice_esd: Unknown symbol" | sed "s/^.*\] /INSMOD-LOG /"
	dd if=/dev/zero of=/tmp/img bs=1M count=64 2>/dev/null
	losetup /dev/loop0 /tmp/img && mke2fs -q /dev/loop0 >/dev/null &&
		mkdir -p /mnt && mount -t ext4 /dev/loop0 /mnt
	awk "\$3 == \"ext4_es_is_delayed\" { print \"COPY 0x\" \$1 }" /proc/kallsyms
	ksplice-apply ksplice-esd.tar.gz >/dev/null; echo "APPLY=$?"
	peek esd applied
	rmmod ext4 2>/dev/null; echo "RMMOD-WHILE-APPLIED=$?"
	t=/sys/kernel/tracing; mkdir -p $t && mount -t tracefs none $t
	echo 1 >$t/events/ext4/ext4_es_insert_extent/enable
	echo one >/mnt/a; sync
	echo "EVENTS-ON $(grep -c "ext4_es_insert_extent:" $t/trace)"
	echo 0 >$t/events/ext4/ext4_es_insert_extent/enable; echo >$t/trace
	echo two >/mnt/b; sync
	echo "EVENTS-OFF $(grep -c "ext4_es_insert_extent:" $t/trace)"
	echo "FILES $(cat /mnt/a /mnt/b | tr "\n" " ")"
	ksplice-undo esd >/dev/null; echo "UNDO=$?"
	umount /mnt && rmmod ext4; echo "RMMOD-AFTER-UNDO=$?"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
like "$out" 'APPLY-WITHOUT-EXT4=1' "applying while ext4 is not loaded is refused"
like "$out" 'needs __tracepoint_ext4_es_insert_extent of module ext4, which is not loaded: load ext4' \
	"  saying which module to load"
unlike "$out" 'UPDATE-LEFT-LOADED' "  and nothing is left loaded"
like "$out" 'INSMOD-BY-HAND=[1-9]' "the update module alone does not load: its load symbols are unset"
like "$out" 'INSMOD-LOG ksplice_esd: Unknown symbol __ksplice_load_0' "  the kernel's loader says which"
like "$out" 'APPLY=0' "with ext4 loaded and mounted, the update applies"
copies=$(sed -n 's/^COPY //p' <<<"$out" | sort | tr '\n' ' ')
got=$(awk '$1 == "PEEK" && $2 == "applied" && $3 == "ext4_es_is_delayed" { print $4 }' <<<"$out" | sort | tr '\n' ' ')
is "$got" "$copies" "each copy of ext4_es_is_delayed is replaced by one twin"
check_jumps applied "$out"; ok $? "  and every function jumps to its new code"
like "$out" 'RMMOD-WHILE-APPLIED=1' "ext4 cannot be unloaded while the update uses its static key"
ok "$(sed -n 's/^EVENTS-ON //p' <<<"$out" | awk '{ print ($1 > 0) ? 0 : 1 }')" \
	"the tracepoint in the new ext4_es_insert_extent fires when enabled"
like "$out" 'EVENTS-OFF 0' "  and not when disabled: its static key is live"
like "$out" 'UNDO=0' "undo"
like "$out" 'RMMOD-AFTER-UNDO=0' "  and ext4 can go once the update has"
like "$out" 'FILES one two' "the files written meanwhile read back"
unlike "$out" 'DMESG:' "  and the kernel log has no oops or warning"
