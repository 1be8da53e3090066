#!/bin/bash
# Paravirt sites the running kernel holds in their native form: do_exit's
# pv_ops calls for irq.save_fl, irq_disable and irq_enable are also
# alternatives (ALT_NOT(X86_FEATURE_XENPV)), so on bare metal and KVM the
# kernel runs "pushf; pop %rax", "cli" and "sti" padded with nops there.
# An update of do_exit applies (a task that exits with status 107 through
# exit(2), not exit_group(2), is reported with 75), runs and is undone;
# the same update built from a source whose save_fl form is
# "pushf; pop %rax; cld" is refused at that site.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/skew-match.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 12
src=$(ksplice_source)
f=kernel/exit.c
sed_patch "$src" $f "$tmp/exit.patch" 's/^\tWARN_ON(irqs_disabled());$/&\n\tif (code == (0x6b << 8))\n\t\tcode = 0x4b << 8;/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/exit.patch")" -eq 3 ] || bail "the patch does not apply to this source"

cat >"$tmp/probe.c" <<'C'
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		syscall(SYS_exit, 107);
	waitpid(pid, &status, 0);
	printf("STATUS=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$tmp/exit.patch" pvexit)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-pvexit.log"; bail "no update file"; }
like "$(cat "$tmp/create-pvexit.log")" 'changed function: do_exit ' "do_exit changed"

skew=$(skew_match_source) || bail "cannot make the skewed source"
bad=$(make_update "$tmp/exit.patch" pvexitskew "$skew")
ok $? "ksplice-create builds the update from a source with another save_fl form"
[ -s "$bad" ] || { sed 's/^/# /' "$tmp/create-pvexitskew.log"; bail "no update file"; }

out=$(vm --file "$upd" --file "$bad" --file "$tmp/probe" -- '
	echo "BEFORE: $(./probe)"
	ksplice-apply ksplice-pvexit.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(./probe)"
	ksplice-undo pvexit; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(./probe)"
	ksplice-apply ksplice-pvexitskew.tar.gz; echo "SKEW-STATUS=$?"
	lsmod | grep -q "^ksplice_pvexitskew " && echo "UPDATE-MODULE-STILL-LOADED"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
like "$out" 'BEFORE: STATUS=107' "before: the stock code"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" 'AFTER: STATUS=75' "after apply: the new do_exit runs"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" 'UNDONE: STATUS=107' "after undo: the stock code again"
like "$out" 'SKEW-STATUS=[1-9]' "the update from the other source is refused"
like "$out" '(alternative|paravirt) site at do_exit\+0x2f/' "... at the save_fl site"
unlike "$out" 'UPDATE-MODULE-STILL-LOADED|^DMESG' "nothing left loaded, no oops or warning"
