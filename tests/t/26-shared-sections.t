#!/bin/bash
# Functions that share a section (__sched's .sched.text and the like): the
# assembler resolves calls and jumps between them itself, without a
# relocation (src/create/shared.c).  On a small object: a call to a
# neighbour gets its relocation; a short jump to one cannot have one, and
# that function is refused.  Then the real case: a change to do_nanosleep
# (kernel/time/hrtimer.c, __sched) builds as that one function (its
# neighbour hrtimer_nanosleep_restart, whose call to it moved, is not taken
# as changed), applies, and clock_nanosleep() shows the new code until
# undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/driver.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$KSPLICE_TOP

plan 15
build_driver shared-relocs src/create/shared.o src/create/arch_x86.o src/create/elf.o \
	-lelf -lcapstone
cat >"$tmp/s.c" <<'C'
#define __sched __attribute__((section(".sched.text")))
int counter;
static void __sched __attribute__((noinline)) inc(void) { counter++; }
void __sched calls(void) { inc(); counter += 2; }
void __sched tail(void) { inc(); }
C
gcc -O2 -fno-pic -c -o "$tmp/s.o" "$tmp/s.c" || bail "cannot compile the small object"
out=$("$tmp/shared-relocs" "$tmp/s.o" .sched.text 2>&1)
diag "$out"
like "$out" '^calls: \+0x[0-9a-f]+->inc-4 ok$' \
	"a call to a neighbour in the section gets a relocation against it"
like "$out" '^inc: ok$' "a function with no references out of itself is fine"
like "$out" '^tail: refused$' "a short jump to a neighbour (no relocation can hold it) is refused"
like "$out" 'tail jumps short to inc\+0, in its section .sched.text, without a relocation \(none can hold a short jump\)' \
	"  ... saying why"

upd=$(make_update "$top/tests/patches/nanosleep-sched.patch" nsl)
ok $? "ksplice-create builds the do_nanosleep update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-nsl.log"; bail "no update file"; }
log=$(cat "$tmp/create-nsl.log")
like "$log" 'changed function: do_nanosleep \(kernel/time/hrtimer.c, vmlinux\)' \
	"do_nanosleep is the changed function"
unlike "$log" 'changed function: hrtimer_nanosleep_restart' \
	"  and not its neighbour, whose call to it only moved"

out=$(vm --file "$upd" -- '
	echo "BEFORE: $(abssleep 42) $(abssleep 43)"
	ksplice-apply ksplice-nsl.tar.gz >/tmp/apply 2>&1; echo "APPLY-STATUS=$?"
	sed "s/^/APPLY: /" /tmp/apply
	echo "APPLIED: $(abssleep 42) $(abssleep 43)"
	sleep 0.2 && echo "SLEEP-OK"
	ksplice-undo nsl >/tmp/undo 2>&1; echo "UNDO-STATUS=$?"
	echo "AFTER: $(abssleep 42) $(abssleep 43)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$out"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"
like "$out" '^BEFORE: 0 0$' "before: an absolute sleep into the past returns 0"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^APPLIED: 33 0$' "applied: at 42 ns the new do_nanosleep says EDOM (33); at 43, 0"
like "$out" '^SLEEP-OK$' "  and a relative sleep still sleeps and returns"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" '^AFTER: 0 0$' "after undo: 0 again"
unlike "$out" 'DMESG: ' "no oops or warning in the kernel log"
