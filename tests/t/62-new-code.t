#!/bin/bash
# New code runs the way the rest of the kernel runs.  An update of
# __do_sys_prctl adds three options: one hits a WARN_ON_ONCE (its
# __bug_table entry: a proper warning naming kernel/sys.c and the line,
# then the call goes on), one reads a user pointer with __get_user (its
# __ex_table entry: a bad pointer gives -EFAULT, not an oops; its stac/clac
# alternatives: SMAP on max, none on qemu64), one sleeps in schedule_timeout (its ORC data: the
# stack of a task sleeping in new code unwinds through it, so undo refuses
# with code_busy naming it, and /proc/PID/stack shows it).  Both CPU models.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 27
src=$(ksplice_source)
mkdir -p "$tmp/a/kernel"
cp "$src/kernel/sys.c" "$tmp/a/kernel/sys.c"
sed -e 's/^\tcase PR_SET_VMA:$/\tcase 0x6b730001:\n\t\tWARN_ON_ONCE(arg2 == 0x6b73); \/* ksplice-warn *\/\n\t\terror = 0x4b53;\n\t\tbreak;\n\tcase 0x6b730002: {\n\t\tu32 v = 0;\n\n\t\terror = __get_user(v, (u32 __user *)arg2) ?: (int)v;\n\t\tbreak;\n\t}\n\tcase 0x6b730003:\n\t\terror = schedule_timeout_interruptible(msecs_to_jiffies(arg2)) ? -EINTR : 0;\n\t\tbreak;\n&/' \
	"$tmp/a/kernel/sys.c" >"$tmp/sys.c"
(cd "$tmp/a" && diff -u kernel/sys.c ../sys.c | sed '1s|.*|--- a/kernel/sys.c|;2s|.*|+++ b/kernel/sys.c|') >"$tmp/newcode.patch"
line=$(grep -n 'ksplice-warn' "$tmp/sys.c" | cut -d: -f1)
[ -n "$line" ] || bail "the patch does not apply to this source"

cat >"$tmp/probe.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
int main(int argc, char **argv)
{
	unsigned int val = 0x1234;
	long r;

	switch (argv[1][0]) {
	case 'w':
		r = prctl(0x6b730001, 0x6b73, 0, 0, 0);
		break;
	case 'g':
		r = prctl(0x6b730002, (unsigned long)&val, 0, 0, 0);
		break;
	case 'e':
		r = prctl(0x6b730002, 8UL, 0, 0, 0);
		break;
	default:
		r = prctl(0x6b730003, 60000, 0, 0, 0);
		break;
	}
	printf("%s=%ld errno=%d\n", argv[1], r, r < 0 ? errno : 0);
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$tmp/newcode.patch" newcode)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-newcode.log"; bail "no update file"; }

run() {
	vm --cpu "$1" --file "$upd" --file "$tmp/probe" -- '
		grep -qw smap /proc/cpuinfo && echo "HAS-SMAP"
		ksplice-apply ksplice-newcode.tar.gz; echo "APPLY-STATUS=$?"
		echo "GOOD: $(./probe g)"
		echo "BAD: $(./probe e)"
		echo "WARN1: $(./probe w)"
		echo "WARN2: $(./probe w)"
		./probe s >/dev/null & pid=$!
		sleep 2
		cat /proc/$pid/stack | sed "s/^/STACK: /"
		echo 1 >/sys/kernel/ksplice/newcode/max_tries
		ksplice-undo newcode 2>&1 | sed "s/^/BUSY: /"
		kill $pid; wait $pid
		ksplice-undo newcode; echo "UNDO-STATUS=$?"
		dmesg | grep -E "WARNING:|Oops|BUG:|general protection|Call Trace|RIP:" | sed "s/^/DMESG: /"
	' 2>&1
}

for cpu in qemu64 max; do
	out=$(run $cpu)
	ok $? "$cpu: the guest ran the scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | head -40)"
	if [ $cpu = max ]; then
		like "$out" 'HAS-SMAP' "$cpu: SMAP (the good read below needs the new code's stac alternative applied)"
	else
		unlike "$out" 'HAS-SMAP' "$cpu: no SMAP (stac/clac stay nops)"
	fi
	like "$out" 'APPLY-STATUS=0' "$cpu: ksplice-apply succeeds"
	like "$out" 'GOOD: g=4660 ' "$cpu: new code reads a good user pointer"
	like "$out" 'BAD: e=-1 errno=14' "$cpu: a bad user pointer in new code gives EFAULT"
	like "$out" 'WARN1: w=19283' "$cpu: the call goes on after the WARN"
	like "$out" "DMESG: .*WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel/sys.c:$line __do_sys_prctl" "$cpu: the warning names kernel/sys.c:$line and the function"
	is "$(printf '%s\n' "$out" | grep -c 'DMESG: .*WARNING:')" 1 "$cpu: WARN_ON_ONCE warns once"
	unlike "$out" 'DMESG: .*(Oops|BUG:|general protection)' "$cpu: no oops"
	like "$(printf '%s\n' "$out" | grep -A1 '^STACK: .*__do_sys_prctl+.*\[ksplice_newcode\]' | tail -n 1)" \
		'^STACK: .*do_syscall_64' "$cpu: /proc/PID/stack unwinds through the new function to its caller"
	like "$out" 'BUSY: .*(code_busy|busy|running).*' "$cpu: undo is refused while a task sleeps in new code"
	like "$out" 'BUSY: .*__do_sys_prctl' "$cpu: the refusal names the new function"
	like "$out" 'UNDO-STATUS=0' "$cpu: undo succeeds once the task left"
done
