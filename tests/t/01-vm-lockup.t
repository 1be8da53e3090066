#!/bin/bash
# The VM rig (tests/vm/run) on a guest that is stuck rather than crashed: a
# soft lockup ends the run within seconds as a crash, with the stuck CPU's
# backtrace and the other CPUs', instead of running into the command's
# timeout.  The kernel's messages travel on their own serial port: the
# command's output has none of them, --console saves them.
# The lockup is the self-test target's "spin" (kmod/test/target), with
# watchdog_thresh=1 (a soft lockup after 2 s instead of 20).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
target=$KSPLICE_TOP/kmod/test/target/ksplice_target.ko

plan 11
"$KSPLICE_TOP/kmod/test/build.sh" >"$tmp/build.log" 2>&1
st=$?
ok $st "kmod/test/build.sh builds the self-test target"
[ $st = 0 ] || { diag "$(tail -n 30 "$tmp/build.log")"; exit 1; }

# Both guests at once: a spin below the threshold, and one far above it
# (100 s) under a timeout that would end it at 200 s.
vm --file "$target" --append watchdog_thresh=1 --console "$tmp/a.console" -- \
	'insmod ksplice_target.ko && echo spin 500 >/proc/ksplice_target && echo short spin done' \
	>"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
start=$SECONDS
vm --file "$target" --append watchdog_thresh=1 --timeout 200 -- \
	'insmod ksplice_target.ko && echo spin 100000 >/proc/ksplice_target; echo survived' \
	>"$tmp/b.out" 2>"$tmp/b.err"
b_status=$? b_time=$((SECONDS - start))
wait $a
a_status=$?

is "$a_status" 0 "a spin under the threshold: the run passes (rig status 0)"
like "$(cat "$tmp/a.out")" '^short spin done$' "  and the command ran to its end"
unlike "$(cat "$tmp/a.err")" 'crashed' "  no crash is reported"
unlike "$(cat "$tmp/a.out")" 'taints kernel' "  the command's output has no kernel message"
like "$(cat "$tmp/a.console")" 'ksplice_target: loading out-of-tree module taints kernel' \
	"  --console saved the kernel's messages, info level included"

is "$b_status" 125 "a soft lockup fails the run as a crash (rig status 125)"
like "$(cat "$tmp/b.err")" '^vm:   \[ *[0-9.]+\] watchdog: BUG: soft lockup - CPU#[0-9]+ stuck' \
	"  saying so, with the watchdog's words"
like "$(cat "$tmp/b.err")" '^vm:   .* ksplice_test_write\+0x' "  and the stuck CPU's backtrace"
like "$(cat "$tmp/b.err")" '^vm:   .*NMI backtrace for cpu' "  and the other CPU's"
ok $([ "$b_time" -lt 60 ] && ! grep -q survived "$tmp/b.out"; echo $?) \
	"  within seconds, not at the end of the spin or the timeout (${b_time} s in all)"
