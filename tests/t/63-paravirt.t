#!/bin/bash
# Run-pre matching through apply_paravirt(): do_arch_prctl_64 holds pv_ops
# calls (.parainstructions, made direct calls at boot) and alternatives
# (LA57).  An update of it applies, runs (including ARCH_GET_FS, through
# the new code's own paravirt and alternative sites, which the module
# loader rewrote) and is undone, on qemu64 and on max.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 16
src=$(ksplice_source)
f=arch/x86/kernel/process_64.c
sed_patch "$src" $f "$tmp/pv.patch" 's/^\tcase ARCH_GET_GS: {$/\tcase 0x6b73:\n\t\tret = 0x4b53;\n\t\tbreak;\n&/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/pv.patch")" -eq 4 ] || bail "the patch does not apply to this source"

cat >"$tmp/probe.c" <<'C'
#include <asm/prctl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	unsigned long fs = 0;
	long r = syscall(SYS_arch_prctl, 0x6b73, 0);
	long g = syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	unsigned long want;

	asm("mov %%fs:0, %0" : "=r" (want));	/* glibc's TCB points at itself */
	printf("ARCH=%ld GETFS=%ld %s\n", r, g, fs == want ? "fs-ok" : "fs-wrong");
	return 0;
}
C
gcc -O2 -static -o "$tmp/probe" "$tmp/probe.c" || bail "cannot build the probe"

upd=$(make_update "$tmp/pv.patch" pv)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-pv.log"; bail "no update file"; }
like "$(cat "$tmp/create-pv.log")" 'changed function: do_arch_prctl_64' "do_arch_prctl_64 changed"

for cpu in qemu64 max; do
	out=$(vm --cpu $cpu --file "$upd" --file "$tmp/probe" -- '
		echo "BEFORE: $(./probe)"
		ksplice-apply ksplice-pv.tar.gz; echo "APPLY-STATUS=$?"
		echo "AFTER: $(./probe)"
		ksplice-undo pv; echo "UNDO-STATUS=$?"
		echo "UNDONE: $(./probe)"
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	' 2>&1)
	ok $? "$cpu: the guest ran the scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
	like "$out" 'BEFORE: ARCH=-1 GETFS=0 fs-ok' "$cpu: before: the stock code"
	like "$out" 'APPLY-STATUS=0' "$cpu: ksplice-apply succeeds"
	like "$out" 'AFTER: ARCH=19283 GETFS=0 fs-ok' "$cpu: after apply: the new code runs, ARCH_GET_FS included"
	like "$out" 'UNDO-STATUS=0' "$cpu: ksplice-undo succeeds"
	like "$out" 'UNDONE: ARCH=-1 GETFS=0 fs-ok' "$cpu: after undo: the stock code again"
	unlike "$out" '^DMESG' "$cpu: no oops or warning"
done
