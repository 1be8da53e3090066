#!/bin/bash
# Read-only data that other data points at, patched in place (kmod/data.c).
#  - tests/patches/ngroups-max.patch halves ngroups_max, which only
#    kern_table's entry points at: /proc/sys/kernel/ngroups_max says 32768
#    while applied, 65536 after undo.  ngroups-max-quarter.patch, built on
#    top of it, quarters it: stacked, it applies (16384), the first one's
#    undo is refused while it stands (the running bytes are not the first
#    one's post image) with the kernel unchanged, and they undo in order.
#    On the stock kernel the second finds no variable holding its pre
#    image and is refused, changing nothing.
#  - tests/patches/param-bool-get.patch points param_ops_bool's .get at
#    param_get_invbool: relocations in both images (the pre ones proven
#    against the running table, the post one resolved by name), and
#    /sys/module/printk/parameters/time reads N while applied.
#  - tests/patches/seg6-policy.patch, the Debian-style case: a netlink
#    policy and a function of the same unit in one update, so one stop
#    writes both.  What the policy does is seen only through generic
#    netlink, which the guest lacks: its SEG6_ATTR_SECRETLEN entry is read
#    (kpeek) instead, NLA_U8 with no check before, NLA_VALIDATE_MAX 64
#    while applied.
# Refused as a change of existing data, or carried as a copy nothing
# points at, the files would not change.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 37
p=$KSPLICE_TOP/tests/patches
ng=$(make_update "$p/ngroups-max.patch" rdng)
ok $? "ksplice-create builds the ngroups_max update"
like "$(cat "$tmp/create-rdng.log")" \
	'^  changed data: ngroups_max: its initial value, read-only: patched in place \(4 bytes\)$' \
	"  saying the variable is patched in place"
ng2=$(make_update "$p/ngroups-max-quarter.patch" rdng2 "$(patched_source "$p/ngroups-max.patch")")
ok $? "ksplice-create builds the stacked update (from the tree with the first)"
pb=$(make_update "$p/param-bool-get.patch" rdpb)
ok $? "ksplice-create builds the param_ops_bool update"
like "$(cat "$tmp/create-rdpb.log")" \
	'changed data: param_ops_bool: its initial value \(what it points at\), read-only: patched in place \(32 bytes\)' \
	"  an ops table whose pointer changes is patched in place"
seg=$(make_update "$p/seg6-policy.patch" rdseg)
ok $? "ksplice-create builds the seg6 policy update (a function and the table)"
[ -s "${ng:-}" ] && [ -s "${ng2:-}" ] && [ -s "${pb:-}" ] && [ -s "${seg:-}" ] || {
	sed 's/^/# /' "$tmp"/create-*.log; bail "an update was not built"; }

out=$(vm --file "$ng" --file "$ng2" --file "$pb" --file "$seg" -- '
	ng() { echo "NG $1 $(cat /proc/sys/kernel/ngroups_max)"; }
	pt() { echo "PT $1 $(cat /sys/module/printk/parameters/time)"; }
	ng stock; pt stock
	ksplice-apply ksplice-rdng2.tar.gz; echo "STALE-APPLY=$?"
	lsmod | grep -q "^ksplice_rdng2 " && echo "STALE-MODULE-LEFT"
	ng after-stale
	ksplice-apply ksplice-rdng.tar.gz; echo "APPLY1=$?"; ng one
	ksplice-apply ksplice-rdng2.tar.gz; echo "APPLY2=$?"; ng two
	ksplice-undo rdng; echo "UNDO-OUT-OF-ORDER=$?"; ng out-of-order
	echo "STAGE1 $(cat /sys/kernel/ksplice/rdng/stage)"
	echo "DATA1 $(cat /sys/kernel/ksplice/rdng/data)"
	ksplice-undo rdng2; echo "UNDO2=$?"; ng undo-two
	ksplice-undo rdng; echo "UNDO1=$?"; ng undo-one
	ksplice-apply ksplice-rdpb.tar.gz; echo "APPLY-PB=$?"; pt applied
	ksplice-undo rdpb; echo "UNDO-PB=$?"; pt undone
	seg() {	# the SEG6_ATTR_SECRETLEN entry (the sixth, of 16 bytes)
		a=$(awk "\$3 == \"seg6_genl_policy\" { print \$1 }" /proc/kallsyms)
		echo "SEG $1 $(kpeek 0x$(printf %x $((0x$a + 80))) 16)"; }
	seg stock
	ksplice-apply ksplice-rdseg.tar.gz; echo "APPLY-SEG=$?"; seg applied
	echo "SEGFN $(cat /sys/kernel/ksplice/rdseg/functions)"
	ksplice-undo rdseg; echo "UNDO-SEG=$?"; seg undone
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0)"
diag "$(printf '%s\n' "$out" | grep -vE '^\[')"
like "$out" '^NG stock 65536$' "stock: ngroups_max is 65536"
like "$out" '^PT stock Y$' "stock: printk.time reads Y"
like "$out" 'STALE-APPLY=[1-9]' "the stacked update alone (pre image 32768) is refused on the stock kernel"
like "$out" 'ngroups_max \(vmlinux\): no variable of that name holds the pre image' "  saying no variable holds its pre image"
unlike "$out" 'STALE-MODULE-LEFT' "  and nothing of it is left loaded"
like "$out" '^NG after-stale 65536$' "  and ngroups_max is unchanged"
like "$out" 'APPLY1=0' "the first update applies"
like "$out" '^NG one 32768$' "  and the running variable says 32768"
like "$out" 'APPLY2=0' "the stacked update applies on top"
like "$out" '^NG two 16384$' "  and the running variable says 16384"
like "$out" 'UNDO-OUT-OF-ORDER=[1-9]' "undoing the first while the second stands is refused"
like "$out" 'ngroups_max: update rdng2 changed it on top of this one; reverse it first' "  naming the update on top"
like "$out" '^NG out-of-order 16384$' "  with the kernel unchanged"
like "$out" '^STAGE1 applied$' "  and the first still applied"
like "$out" '^DATA1 ngroups_max vmlinux 0xffffffff[0-9a-f]+ patched$' \
	"  its sysfs data says the variable, where it runs and that it is patched"
like "$out" 'UNDO2=0' "the second undoes"
like "$out" '^NG undo-two 32768$' "  back to the first's value"
like "$out" 'UNDO1=0' "then the first undoes"
like "$out" '^NG undo-one 65536$' "  back to the stock value"
like "$out" 'APPLY-PB=0' "the param_ops_bool update applies"
like "$out" '^PT applied N$' "  and a bool parameter reads through param_get_invbool (N)"
like "$out" 'UNDO-PB=0' "it undoes"
like "$out" '^PT undone Y$' "  and the parameter reads Y again"
like "$out" '^SEG stock 01000000000000000000000000000000$' "stock: seg6's SECRETLEN policy is NLA_U8, unchecked"
like "$out" 'APPLY-SEG=0' "the seg6 update applies"
like "$out" '^SEG applied 01040000000000000000400000000000$' "  and the running policy entry is NLA_POLICY_MAX(NLA_U8, 64)"
like "$out" '^SEGFN seg6_genl_get_tunsrc 0xffffffff[0-9a-f]+ 0x' "  with its function replaced in the same update"
like "$out" 'UNDO-SEG=0' "it undoes"
like "$out" '^SEG undone 01000000000000000000000000000000$' "  and the entry is the stock one again"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
