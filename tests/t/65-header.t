#!/bin/bash
# Changes in headers.  A static inline (include/linux/sched/xacct.h's
# inc_syscr): ksplice-create finds, without building the kernel, the units
# of the configuration that include it (the include graph), preprocesses
# them before and after the patch, compiles those whose code can change
# (not fs/remap_range.c and ksmbd's vfs.c, which do not call it), and
# updates every function whose code changed: read paths of vmlinux
# (fs/read_write.c) and of the module btrfs (fs/btrfs/ioctl.c), in one
# update.  In the guest every read(2) then counts 1,000,000 in
# /proc/PID/io; btrfs, loaded after the update, is patched as it loads;
# undo puts everything back.  A macro (include/linux/sched/loadavg.h's
# LOAD_FRAC): of the 12 units that include it, the two that expand it
# are compiled and change (kernel/sched/psi.c is compiled inside build_utility.c), and
# /proc/loadavg prints what the new macro computes.  (psi_show has a jump
# label right after its ftrace site: ftrace redirects it.)  A patch whose
# units to compile are more than --max-units is refused before compiling.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 36
patch=$KSPLICE_TOP/tests/patches/xacct.patch
upd=$(make_update "$patch" xa)
ok $? "an update builds from a patch that changes only a header"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-xa.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-xa.log")
like "$log" '  4 of the configuration.s units include what the patch changes' \
	"the include graph finds the 4 units that include xacct.h"
like "$log" '  preprocessed 4 units before and after the patch in [0-9.]+ s: 2 can compile differently' \
	"  preprocessed, 2 of them can compile differently"
unlike "$log" '(remap_range|smb/server/vfs).o: ' "  not fs/remap_range.c and ksmbd's vfs.c, which include it but do not call it"
is "$(grep -c '^  compiling 2 units' <<<"$log")" 2 "  and only those 2 are compiled, before and after"
like "$log" 'changed function: vfs_read \(fs/read_write.c, vmlinux\)' "vfs_read (vmlinux) inlines inc_syscr: changed"
like "$log" 'changed function: do_preadv \(fs/read_write.c, vmlinux\)' "  and so does do_preadv"
like "$log" 'changed function: btrfs_ioctl_encoded_read \(fs/btrfs/ioctl.c, btrfs\)' \
	"btrfs_ioctl_encoded_read (module btrfs) too"
like "$log" '  2 of 2 units changed' "  both changed"
is "$(tar xzf "$upd" -O manifest | sed -n 's/^target: //p' | tr ' ' '\n' | sort | tr '\n' ' ')" "btrfs vmlinux " \
	"the manifest names both targets"

lm=$(make_update "$KSPLICE_TOP/tests/patches/loadavg-macro.patch" lm)
ok $? "an update builds from a patch that changes only a macro"
[ -s "${lm:-}" ] || { sed 's/^/# /' "$tmp/create-lm.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-lm.log")
like "$log" '  12 of the configuration.s units include what the patch changes' "  12 units include loadavg.h"
like "$log" 'changed function: loadavg_proc_show \(fs/proc/loadavg.c, vmlinux\)' "  loadavg_proc_show expands LOAD_FRAC"
like "$log" 'changed function: psi_show \(kernel/sched/build_utility.c, vmlinux\)' \
	"  and psi_show, of psi.c included in build_utility.c"
like "$log" '  preprocessed 12 units before and after the patch in [0-9.]+ s: 2 can compile differently' \
	"  only the 2 that expand it can compile differently"
like "$log" '  2 of 2 units changed' "  and both changed"

out=$(vm --module btrfs --file "$upd" --file "$lm" -- "$guest_peek"'
	echo "BEFORE $(ioreads 100)"
	ksplice-apply ksplice-xa.tar.gz >/dev/null; echo "APPLY=$?"
	echo "APPLIED $(ioreads 100)"
	peek xa applied
	modprobe btrfs; echo "LOAD-AFTER=$?"
	peek xa btrfs-loaded
	echo "BTRFS $(awk "\$3 == \"btrfs_ioctl_encoded_read\" { print \"0x\" \$1 }" /proc/kallsyms)"
	ksplice-undo xa >/dev/null; echo "UNDO=$?"
	echo "UNDONE $(ioreads 100)"
	echo "LOADAVG-BEFORE $(cat /proc/loadavg)"
	ksplice-apply ksplice-lm.tar.gz >/dev/null; echo "APPLY-LM=$?"
	echo "LOADAVG-APPLIED $(cat /proc/loadavg)"
	dmesg | grep "ftrace redirects it" | sed "s/^.*\] /REDIRECT /"
	ksplice-undo lm >/dev/null; echo "UNDO-LM=$?"
	echo "LOADAVG-UNDONE $(cat /proc/loadavg)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
syscr() { sed -n "s/^$1 syscr: //p" <<<"$out"; }
b=$(syscr BEFORE) a=$(syscr APPLIED) u=$(syscr UNDONE)
ok "$([ -n "$b" ] && [ "$b" -ge 100 ] && [ "$b" -lt 1000 ] && echo 0 || echo 1)" \
	"before: 100 reads count about 100 in syscr ($b)"
like "$out" 'APPLY=0' "the update applies"
ok "$([ -n "$a" ] && [ "$a" -ge 100000000 ] && [ "$a" -lt 1000000000 ] && echo 0 || echo 1)" \
	"  and 100 reads now count 1,000,000 each ($a): the new vfs_read runs"
like "$out" 'PEEK applied btrfs_ioctl_encoded_read 0x0 ' "  btrfs is not loaded: its function waits"
check_jumps applied "$(grep -v 'btrfs_ioctl_encoded_read' <<<"$out")"
ok $? "  every vmlinux function jumps to its new code"
like "$out" 'LOAD-AFTER=0' "btrfs loads after the update"
bt=$(sed -n 's/^BTRFS //p' <<<"$out")
like "$out" "PEEK btrfs-loaded btrfs_ioctl_encoded_read ${bt:-none} " "  its function is matched in the module's text"
check_jumps btrfs-loaded "$out"; ok $? "  and every function of both targets now jumps to its new code"
like "$out" 'UNDO=0' "undo"
ok "$([ -n "$u" ] && [ "$u" -ge 100 ] && [ "$u" -lt 1000 ] && echo 0 || echo 1)" \
	"  and reads count one each again ($u)"
two='[0-9]+\.[0-9]{2}'
three='[0-9]+\.1[0-9]{2}'
like "$out" "LOADAVG-BEFORE $two $two $two " "/proc/loadavg prints two decimals"
like "$out" "LOADAVG-APPLIED $three $three $three " "  and after the macro update three, from 100 up"
like "$out" "LOADAVG-UNDONE $two $two $two " "  and two again after undo"
like "$out" 'REDIRECT ksplice: psi_show: no room for a jump after its ftrace site: ftrace redirects it' \
	"psi_show, with a jump label after its ftrace site, went through ftrace"
unlike "$out" 'DMESG:' "  no oops or warning in the kernel log"

msg=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$patch" --id xb --max-units 1 \
	-o "$tmp" "$(ksplice_source)" 2>&1)
is "$?" 1 "with --max-units 1 the same patch is refused"
like "$msg" 'the patch reaches 2 units whose code can change, more than --max-units 1' \
	"  saying how many units it would compile"
like "$msg" '2 units: compiling 1 of them to compare structure layouts first' \
	"  after compiling only as many as --max-units allows, to look for a layout change"
unlike "$msg" 'compiling 2 units' "  not all of them"
