#!/bin/bash
# A function that dispatches through a table of label addresses: the BPF
# interpreter ___bpf_prog_run (`goto *jumptable[insn->code]`).  Its pre
# code refers to the running kernel's jumptable.50, which matching binds
# by name; its new code must jump through a table of its own, whose
# entries are places in the new code.  With the JIT off, a seccomp filter
# that fails getppid with errno 107 is run by the interpreter: after
# apply the new code (which turns 107 into 75 at BPF_EXIT) runs it to the
# end (through the old table it would go back into the old code at its
# first instruction, and still say 107), and after undo the stock code.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 9
src=$(ksplice_source)
f=kernel/bpf/core.c
sed_patch "$src" $f "$tmp/bpf.patch" 's/^\tJMP_EXIT:$/&\n\t\tif (BPF_R0 == 0x0005006b)\n\t\t\tBPF_R0 = 0x0005004b;/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/bpf.patch")" -eq 3 ] || bail "the patch does not apply to this source"

cat >"$tmp/probe.c" <<'C'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 107),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(200);
		_exit(syscall(SYS_getppid) < 0 ? errno : 0);
	}
	waitpid(pid, &status, 0);
	printf("ERRNO=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$tmp/bpf.patch" bpftab)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-bpftab.log"; bail "no update file"; }
like "$(cat "$tmp/create-bpftab.log")" 'changed function: ___bpf_prog_run ' "___bpf_prog_run changed"

out=$(vm --file "$upd" --file "$tmp/probe" -- '
	echo 0 >/proc/sys/net/core/bpf_jit_enable
	echo "BEFORE: $(./probe)"
	ksplice-apply ksplice-bpftab.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(./probe)"
	ksplice-undo bpftab; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(./probe)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
like "$out" 'BEFORE: ERRNO=107' "before: the stock interpreter"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" 'AFTER: ERRNO=75' "after apply: the new interpreter runs the filter to its end"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" 'UNDONE: ERRNO=107' "after undo: the stock interpreter again"
unlike "$out" '^DMESG' "no oops or warning"
