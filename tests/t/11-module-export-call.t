#!/bin/bash
# A module's new code that calls another module's export (newobj.c's
# linked_export(), KSPLICE_RELOC_EXPORT): tests/patches/vlan-gvrp-note.patch
# makes 8021q's vlan_gvrp_init_applicant log a line before it calls
# garp_init_applicant, garp's export.  The update module does not link
# against garp, so it loads while neither 8021q nor garp is loaded (as it
# must where a module loads only on its hardware: hv_vmbus off Hyper-V),
# and the core resolves the call among the modules 8021q uses as 8021q
# loads.  Behaviour: a VLAN on a dummy device runs the new code, whose
# call reaches garp (the VLAN is made, its GVRP applicant with it); after
# undo a new first VLAN does not log.
# tests/patches/fuse-dev-note.patch: fuse's new code calls fuse's own
# exports (fuse_dev_alloc, fuse_dev_install), resolved to fuse's globals;
# mounting a fuse filesystem runs it (its log line), and not after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 20
upd=$(make_update "$KSPLICE_TOP/tests/patches/vlan-gvrp-note.patch" vgrp)
ok $? "ksplice-create builds the update"
like "$(cat "$tmp/create-vgrp.log")" 'changed function: vlan_gvrp_init_applicant \(net/8021q/vlan_gvrp.c, 8021q\)' \
	"  of 8021q's vlan_gvrp_init_applicant"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-vgrp.log"; bail "no update file"; }
fz=$(make_update "$KSPLICE_TOP/tests/patches/fuse-dev-note.patch" fzdev)
ok $? "ksplice-create builds the fuse update"
[ -s "${fz:-}" ] || { sed 's/^/# /' "$tmp/create-fzdev.log"; bail "no update file"; }

out=$(vm --module 8021q --module dummy --module fuse --file "$upd" --file "$fz" -- '
	notes() { echo "NOTES $1 $(dmesg | grep -c "ksplice test: GVRP applicant for dummy0")"; }
	ksplice-apply ksplice-vgrp.tar.gz >/tmp/apply.out 2>&1; echo "APPLY=$?"
	sed "s/^/APPLY-SAYS /" /tmp/apply.out
	lsmod | grep -qE "^(garp|8021q) " && echo "GARP-OR-8021Q-LOADED"
	modprobe 8021q; echo "LOAD=$?"
	dmesg | grep "vgrp: patched module 8021q as it loads" | sed "s/^.*\] /LOG /"
	modprobe dummy && ip link set dummy0 up
	vconfig add dummy0 5 >/dev/null; echo "VLAN=$?"
	[ -e /proc/net/vlan/dummy0.5 ] && echo "VLAN-THERE"
	notes applied
	vconfig rem dummy0.5 >/dev/null
	ksplice-undo vgrp; echo "UNDO=$?"
	vconfig add dummy0 6 >/dev/null; echo "VLAN-UNDONE=$?"
	notes undone
	fmount() {
		mount -t fuse -o fd=3,rootmode=40000,user_id=0,group_id=0 fz /mnt/f 3<>/dev/fuse
		echo "FMOUNT $1 $? $(dmesg | grep -c "ksplice test: a fuse connection")"
		umount /mnt/f; }
	mkdir -p /mnt/f; modprobe fuse
	ksplice-apply ksplice-fzdev.tar.gz >/dev/null; echo "FAPPLY=$?"; fmount applied
	ksplice-undo fzdev >/dev/null; echo "FUNDO=$?"; fmount undone
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -vE '^\[')"
like "$out" 'APPLY=0' "applied while 8021q and garp are not loaded"
unlike "$out" 'APPLY-SAYS +loading module' "  loading no module"
unlike "$out" 'GARP-OR-8021Q-LOADED' "  (neither is loaded after it)"
like "$out" 'LOAD=0' "8021q loads, garp with it"
like "$out" '^LOG ksplice: vgrp: patched module 8021q as it loads' "  and is patched as it loads"
like "$out" 'VLAN=0' "a first VLAN on dummy0 is made"
like "$out" 'VLAN-THERE' "  and is there"
like "$out" '^NOTES applied 1$' "  the new code ran, and its call of garp's export returned"
like "$out" 'UNDO=0' "undone"
like "$out" "VLAN-UNDONE=0" "a new first VLAN is made after undo"
like "$out" '^NOTES undone 1$' "  a new first VLAN runs the old code"
like "$out" 'FAPPLY=0' "the fuse update applies with fuse loaded"
like "$out" '^FMOUNT applied 0 1$' "  a fuse mount runs its new code, whose calls of fuse's own exports return"
like "$out" 'FUNDO=0' "  undone"
like "$out" '^FMOUNT undone 0 1$' "  a mount then runs the old code"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
