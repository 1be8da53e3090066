#!/bin/bash
# Run-pre matching through the kernel's boot-time rewrites: prctl_set_mm
# holds an alternative (X86_FEATURE_LA57: TASK_SIZE_MAX, replaced on
# --cpu max, original on qemu64) and jump labels; __do_sys_prctl holds
# lock prefixes (.smp_locks) and jump labels.  An update of both applies,
# runs and is undone on both CPU models; on max with the mmap_lock
# tracepoints enabled, so that their jump labels are jumps, not nops; and
# on a uniprocessor qemu64, where the lock prefixes are ds prefixes.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 31
src=$(ksplice_source)
sed_patch "$src" kernel/sys.c "$tmp/prctl.patch" -e '/opt != PR_SET_MM_MAP_SIZE)))/{n;s/$/\n\tif (opt == 0x6b73)\n\t\treturn 0x4b53;/}' \
    -e 's/^\tcase PR_SET_VMA:$/\tcase 0x6b73706c:\n\t\terror = 0x4b53;\n\t\tbreak;\n&/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/prctl.patch")" -eq 6 ] || bail "the patch does not apply to this source"

cat >"$tmp/probe.c" <<'C'
#include <stdio.h>
#include <sys/prctl.h>
int main(void)
{
	long a = prctl(0x6b73706c, 0, 0, 0, 0);
	long b = prctl(PR_SET_MM, 0x6b73, 0, 0, 0);

	printf("PRCTL=%ld SETMM=%ld\n", a, b);
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$tmp/prctl.patch" prctl)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-prctl.log"; bail "no update file"; }
log=$(cat "$tmp/create-prctl.log")
like "$log" 'changed function: prctl_set_mm' "prctl_set_mm changed"
like "$log" 'changed function: __do_sys_prctl' "__do_sys_prctl changed"

# The LA57 alternative is the movabs of TASK_SIZE_MAX at prctl_set_mm+0x101.
run() {
	vm --cpu "$1" --smp "$3" --file "$upd" --file "$tmp/probe" -- "set -- x $2"'
		echo "SITE: $(kpeek prctl_set_mm 267 | tr -d " \n" | tail -c 20)"
		if [ "$2" = trace ]; then
			mount -t tracefs nodev /sys/kernel/tracing
			echo 1 >/sys/kernel/tracing/events/mmap_lock/enable
		fi
		echo "LOCK: $(kpeek __do_sys_prctl 647 | tr -d " \n" | tail -c 2)"
		echo "JUMP-LABEL: $(kpeek __do_sys_prctl 600 | tr -d " \n" | tail -c 10)"
		echo "BEFORE: $(./probe)"
		ksplice-apply ksplice-prctl.tar.gz; echo "APPLY-STATUS=$?"
		echo "DETAIL: $(cat /sys/kernel/ksplice/prctl/abort_detail 2>/dev/null)"
		echo "AFTER: $(./probe)"
		ksplice-undo prctl; echo "UNDO-STATUS=$?"
		echo "UNDONE: $(./probe)"
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	' 2>&1
}

for cfg in qemu64:1 qemu64:2 max:2; do
	cpu=${cfg%:*} smp=${cfg#*:}
	out=$(run $cpu $([ $cpu = max ] && echo trace || echo plain) $smp)
	ok $? "$cfg: the guest ran the scenario (the rig exited 0)"
	cpu="$cpu -smp $smp"
	diag "$cpu: $(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
	case $cfg in
	max:2)
		like "$out" 'SITE: 48b.00f0ffffffffff00' "$cpu: the LA57 alternative is replaced"
		like "$out" 'JUMP-LABEL: e9' "$cpu: the tracepoint's jump label is a jump" ;;
	qemu64:2)
		like "$out" 'SITE: 48b.00f0ffffff7f0000' "$cpu: the LA57 alternative is the original"
		like "$out" 'JUMP-LABEL: 0f1f440000' "$cpu: the tracepoint's jump label is a nop" ;;
	qemu64:1)
		like "$out" 'LOCK: 3e' "$cpu: uniprocessor: the lock prefix is a ds prefix" ;;
	esac
	[ $smp = 2 ] && like "$out" 'LOCK: f0' "$cpu: the lock prefix is one"
	like "$out" 'BEFORE: PRCTL=-1 SETMM=-1' "$cpu: before: the stock code"
	like "$out" 'APPLY-STATUS=0' "$cpu: ksplice-apply succeeds"
	like "$out" 'AFTER: PRCTL=19283 SETMM=19283' "$cpu: after apply: both new functions run"
	like "$out" 'UNDO-STATUS=0' "$cpu: ksplice-undo succeeds"
	like "$out" 'UNDONE: PRCTL=-1 SETMM=-1' "$cpu: after undo: the stock code again"
	unlike "$out" '^DMESG' "$cpu: no oops or warning"
done
