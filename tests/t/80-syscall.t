#!/bin/bash
# A fix to a system call.  SYSCALL_DEFINE0(getppid) makes one function with
# three names (__do_sys_getppid and its __alias()es __x64_sys_getppid and
# __ia32_sys_getppid): it is replaced once, matched under a name kallsyms
# has once.  getppid(2) from a static program shows the new result after
# apply and the old one after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 11
# The probe prints getppid(2) and its parent's pid as /proc/self/status
# tells it (which does not go through the syscall).
cat >"$tmp/ppid.c" <<'C'
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void)
{
	char line[256];
	long ppid = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "PPid: %ld", &ppid);
	printf("%ld %ld\n", (long)syscall(SYS_getppid), ppid);
	return 0;
}
C
gcc -O2 -static -o "$tmp/ppid" "$tmp/ppid.c" || bail "cannot build the probe"

upd=$(make_update "$KSPLICE_TOP/tests/patches/getppid.patch" getppid)
ok $? "ksplice-create builds the update of a SYSCALL_DEFINE0"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-getppid.log"; bail "no update file"; }
log=$(cat "$tmp/create-getppid.log")
is "$(grep -c 'changed function:' <<<"$log")" 1 "  one function changed, not one per alias"
like "$log" 'note: __x64_sys_getppid is an alias of __ia32_sys_getppid' "  the aliases are named as one function"

out=$(vm --file "$upd" --file "$tmp/ppid" -- '
	echo "BEFORE $(./ppid)"
	ksplice-apply ksplice-getppid.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER $(./ppid)"
	cat /sys/kernel/ksplice/getppid/functions | sed "s/^/FUNCS /"
	ksplice-undo getppid; echo "UNDO-STATUS=$?"
	echo "UNDONE $(./ppid)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | head -20)"
pp() { # TAG: getppid(2) minus the real parent's pid
	grep "^$1 " <<<"$out" | awk '$3 > 0 { print $2 - $3 }'
}
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" 'FUNCS __ia32_sys_getppid 0x[0-9a-f]+ 0x[0-9a-f]+' "  the function is replaced under its global name"
is "$(pp BEFORE)" 0 "before: getppid is the parent's pid"
is "$(pp AFTER)" 4000000 "after apply: getppid returns the parent's pid + 4,000,000"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
is "$(pp UNDONE)" 0 "after undo: the old getppid again"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
