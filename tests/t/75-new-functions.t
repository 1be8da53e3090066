#!/bin/bash
# What functions an update adds refer to, checked by what they do.  The
# patch (tests/patches/sys-new-helpers.patch) adds to kernel/sys.c a prctl
# option served by three new functions: ksplice_t_helper, which calls the
# unit's static do_prlimit (a call the core must relocate), takes the
# address of the static do_getpgid (an absolute reference the core must
# relocate: it reports it), and calls one of ksplice_t_double and
# ksplice_t_negate through a table of pointers in new read-only data (new
# functions whose addresses are data, relocated by the module loader), and
# takes the address of __do_sys_prctl, which the update replaces: that
# must be the running function's, the one the kernel's pointers hold and
# that outlives an undo, not the new copy's.
# Before the fix, references of added functions to the running kernel's
# non-exported symbols were never written: the call went to the next
# instruction and the address read 0.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
cat >"$tmp/probe.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
int main(int argc, char **argv)
{
	unsigned long out[5] = { 0 };
	struct rlimit r;
	long v;

	getrlimit(RLIMIT_NOFILE, &r);
	setpgid(0, 0);		/* a pgid of its own: its pid, not 0 */
	errno = 0;
	v = prctl(0x6b730010, atol(argv[1]), atol(argv[2]), (unsigned long)out, 0);
	printf("r=%ld errno=%d getpgid=%lx op=%lx pgid=%lu nofile=%lu prctl=%lx user_pgid=%d user_nofile=%lu\n",
	       v, v < 0 ? errno : 0, out[0], out[1], out[2], out[3], out[4],
	       (int)getpgid(0), (unsigned long)r.rlim_cur);
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$KSPLICE_TOP/tests/patches/sys-new-helpers.patch" sysnew)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-sysnew.log"; bail "no update file"; }
log=$(cat "$tmp/create-sysnew.log")
like "$log" 'new function: ksplice_t_helper' "the helper is a new function"
like "$log" 'new function: ksplice_t_negate' "so are the functions of its table"

out=$(vm --file "$upd" --file "$tmp/probe" -- '
	ulimit -n 777
	echo "BEFORE: $(./probe 21 0)"
	ksplice-apply ksplice-sysnew.tar.gz >/tmp/apply 2>&1; echo "APPLY-STATUS=$?"
	awk "\$3 ~ /^(do_getpgid|ksplice_t_double|ksplice_t_negate|__do_sys_prctl)\$/" /proc/kallsyms | sed "s/^/KALLSYMS: /"
	echo "DOUBLE: $(./probe 21 0)"
	echo "NEGATE: $(./probe 100000 1)"
	ksplice-undo sysnew >/tmp/undo 2>&1; echo "UNDO-STATUS=$?"
	echo "AFTER: $(./probe 21 0)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$out"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"

# sym NAME [MODULE]: its address, in vmlinux or in [MODULE]
sym() {
	printf '%s\n' "$out" | awk -v n="$1" -v m="${2:+[$2]}" '
		$1 == "KALLSYMS:" && $4 == n && $5 == m { print $2; exit }' | sed 's/^0*//'
}
field() { printf '%s\n' "$out" | sed -n "s/^$1: .*[ ^]$2=\([^ ]*\).*/\1/p" | head -n 1; }

like "$out" 'BEFORE: r=-1 errno=22 ' "before the update the option does not exist (EINVAL)"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" 'DOUBLE: r=42 errno=0 ' "the new option calls through the table: ksplice_t_double(21)"
like "$out" 'NEGATE: r=-100000 ' "... and ksplice_t_negate(100000)"
getpgid=$(sym do_getpgid)
is "$(field DOUBLE getpgid)" "${getpgid:-none}" "the address of the static do_getpgid is the running kernel's"
is "$(field DOUBLE op)" "$(sym ksplice_t_double ksplice_sysnew)" "the table holds the new ksplice_t_double"
is "$(field NEGATE op)" "$(sym ksplice_t_negate ksplice_sysnew)" "... and the new ksplice_t_negate"
prctl=$(sym __do_sys_prctl)
is "$(field DOUBLE prctl)" "${prctl:-none}" \
	"the address of a replaced function (__do_sys_prctl) is the running one, which the kernel's pointers hold ..."
new_prctl=$(sym __do_sys_prctl ksplice_sysnew)
[ -n "$new_prctl" ] && [ "$new_prctl" != "$prctl" ]
ok $? "... not its new copy (${new_prctl:-none}) in the update module"
like "$(field DOUBLE nofile)/$(field DOUBLE pgid)" "^777/[1-9][0-9]*\$" "the new code's pgid and open files limit are real ..."
is "$(field DOUBLE nofile)/$(field DOUBLE pgid)" "777/$(field DOUBLE user_pgid)" \
	"the static do_prlimit and the inlined do_getpgid answer what userspace sees"
like "$out" 'AFTER: r=-1 errno=22 ' "after undo the option is gone again"
unlike "$out" 'DMESG: ' "no oops, BUG or warning in dmesg"
