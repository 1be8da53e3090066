#!/bin/bash
# A fix to kernel/sched/rt.c, which is no unit of the configuration: Kbuild
# compiles it inside kernel/sched/build_policy.c (#include "rt.c").  The
# include graph finds that unit, preprocessing shows its code can change,
# and sched_rr_handler is updated: in the guest, writing a negative
# sched_rr_timeslice_ms succeeds before the update (it means "default"),
# fails with EINVAL once it is applied, and succeeds again after undo.
# A .c the configuration does not build (vc4, an ARM driver) is named as
# such, and is no error next to rt.c; alone, the patch is refused.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 18
src=$(ksplice_source)
vc4='--- a/drivers/gpu/drm/vc4/vc4_drv.c
+++ b/drivers/gpu/drm/vc4/vc4_drv.c
@@ -1,2 +1,3 @@
+/* not built for x86 */
'"$(head -n 2 "$src/drivers/gpu/drm/vc4/vc4_drv.c" | sed 's/^/ /')"
{ cat "$KSPLICE_TOP/tests/patches/rt-rr-timeslice.patch"; printf '%s\n' "$vc4"; } >"$tmp/rt.patch"
printf '%s\n' "$vc4" >"$tmp/vc4.patch"

upd=$(make_update "$tmp/rt.patch" rt)
ok $? "an update builds from a fix to kernel/sched/rt.c (and a file not built)"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-rt.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-rt.log")
like "$log" '  1 of the configuration.s units include what the patch changes' \
	"the include graph finds the one unit that includes rt.c"
like "$log" 'kernel/sched/build_policy.o: sched_rr_handler emits code or data and changed' \
	"  build_policy.o, whose sched_rr_handler changed in its preprocessed text"
like "$log" '  compiling kernel/sched/build_policy.o \(post\)' "  and it is compiled"
like "$log" 'changed function: sched_rr_handler \(kernel/sched/build_policy.c, vmlinux\)' \
	"sched_rr_handler is the changed function"
is "$(grep -c 'changed function' <<<"$log")" 1 "  and the only one"
like "$log" 'drivers/gpu/drm/vc4/vc4_drv.c: not built by this configuration' \
	"vc4_drv.c is named as not built by this configuration"

out=$(vm --file "$upd" -- "$guest_peek"'
	f=/proc/sys/kernel/sched_rr_timeslice_ms
	try() { echo "$1" >$f 2>/dev/null; echo "$2 write=$? value=$(cat $f)"; }
	try -5 BEFORE
	ksplice-apply ksplice-rt.tar.gz >/dev/null; echo "APPLY=$?"
	peek rt applied
	try 50 APPLIED-POS
	try -5 APPLIED-NEG
	ksplice-undo rt >/dev/null; echo "UNDO=$?"
	try -5 UNDONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
like "$out" 'BEFORE write=0 value=100' "before: a negative timeslice is taken as the default (100 ms)"
like "$out" 'APPLY=0' "the update applies"
check_jumps applied "$out"; ok $? "  sched_rr_handler jumps to its new code"
like "$out" 'APPLIED-POS write=0 value=50' "  a positive timeslice is still set"
like "$out" 'APPLIED-NEG write=1 value=50' "  a negative one is refused now, the value kept"
like "$out" 'UNDO=0' "undo"
like "$out" 'UNDONE write=0 value=100' "  and a negative timeslice means the default again"
unlike "$out" 'DMESG:' "  no oops or warning in the kernel log"

msg=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$tmp/vc4.patch" --id vc4 -o "$tmp" "$src" 2>&1)
is "$?" 1 "a patch of only a file the configuration does not build is refused"
like "$msg" 'changes no C source that this configuration builds' "  saying so"
