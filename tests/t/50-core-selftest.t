#!/bin/bash
# The core's own self-test (kmod/test/): built on the host with
# kmod/test/build.sh, run in the guest with kmod/test/selftest.sh, which
# feeds 17 broken updates that registration must reject, each for its
# expected reason, 8 that must fail to apply with the right cause and
# detail, 2 of code that must never be patched (the core itself,
# stop_machine's), one whose target module is not loaded (it applies) and one with
# no room for a jump (ftrace redirects it), and then applies, traces,
# blocks and undoes a good one; then, with cb=1, a callback field of
# writable data pointed at a function only the update has, and undone
# while a task that read it has not yet called it: the update module stays
# until the task has left it (kmod/drain.c), within the undo's tries or,
# with one try, after it.
# Each of its "ok"/"FAIL" lines becomes a TAP line.
# KSPLICE_SELFTEST_KERNEL=ABI runs it on another kernel of the table
# ../../kernels (make check-612: 6.12.117+deb12-amd64), built out of tree
# against that kernel's headers (scripts/fetch-headers).
# KSPLICE_SELFTEST_CPU=MODEL and KSPLICE_SELFTEST_APPEND=KARGS set the
# guest's CPU and kernel arguments (make check-612: 6.12 with call depth
# tracking, Skylake-Client and retbleed=stuff).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/selftest.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
selftest_build
st=$?
ok $([ -e "$kdir/Makefile" ]; echo $?) "the headers of $abi are there ($kdir)"
t=$self/kmod/test
ok $st "kmod/test/build.sh builds the core, the target and the self-test update for $abi"
[ $st = 0 ] || { diag "$(tail -n 30 "$tmp/build.log")"; echo "1..$_tap_n"; exit 1; }
like "$(modinfo -F vermagic "$self/kmod/ksplice.ko" 2>&1)" "^${abi//+/[+]} SMP " "... for $abi (vermagic)"

out=$(vm --kernel "$abi" ${KSPLICE_SELFTEST_CPU:+--cpu "$KSPLICE_SELFTEST_CPU"} \
	${KSPLICE_SELFTEST_APPEND:+--append "$KSPLICE_SELFTEST_APPEND"} --file "$self/kmod/ksplice.ko" --file "$t/target/ksplice_target.ko" \
	--file "$t/update/selftest_update.ko" --file "$t/selftest.sh" -- '
	sh selftest.sh; echo "SELFTEST-STATUS=$?"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
while IFS= read -r line; do
	case $line in
	"ok   "*) ok 0 "${line#ok   }" ;;
	"FAIL "*) ok 1 "${line#FAIL }" ;;
	*) diag "$line" ;;
	esac
done <<<"$out"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=([1-9]|1[0-7]) rejected')" 17 \
	"all 17 broken updates were rejected at registration"
is "$(printf '%s\n' "$out" | grep -E '^ok   bad=10[0-46-7]: ' | grep -vcE ': (old code still runs|the detail says why)$')" 7 \
	"all 7 broken updates failed to apply with the expected cause (105's target is only not loaded: it applies)"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=10[0-46-79]: the detail says why$')" 8 \
	"all 8 of them (and 109's jump label) say where and why, as expected"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=11[01]: the detail says why$')" 2 \
	"updates of the core itself and of stop_machine's code are refused as unpatchable, saying why"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=112: (ksplice_test_jl_nt: jump label where the jump goes, .*|the detail says why|old code still runs)$')" 3 \
	"a module's notrace function that starts with a jump label is refused as unpatchable, saying why (module sites are not pinned), the old code running"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=(2[345] rejected|11[67]: the detail says why$)')" 5 \
	"callback fields (ABI 9): unknown data flags, fields without a relocation or with an addend are rejected; fields of read-only data, or naming a variable, refused at apply"
is "$(printf '%s\n' "$out" | grep -cE '^ok   (bad=2[678] rejected|cb=3: )')" 6 \
	"anchors (ABI 10): of other data than callback fields, on a field, or with an addend, rejected; one the running variable does not hold refused at apply, named, nothing written"
is "$(printf '%s\n' "$out" | grep -cE '^ok   bad=29 rejected: ')" 1 \
	"reloc flags (ABI 11): a pre relocation marked as a call of another module's export is rejected"
like "$out" 'SELFTEST-STATUS=0' "selftest.sh reports no failures"
unlike "$out" '^     .*(WARNING|BUG|Oops)' "no oops or warning in dmesg"
echo "1..$_tap_n"
