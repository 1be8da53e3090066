#!/bin/bash
# The VM rig (tests/vm/run): it boots the pinned stock kernel, runs commands
# as root, passes back their status, ships files and modules, and turns
# timeouts and crashes into clear failures instead of hangs.
# Boots go two at a time, which also checks that rigs can run in parallel.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/versions"
vm=$repo/tests/vm/run
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

n=0
# check DESCRIPTION COMMAND...: one TAP line; on failure, the rig's stderr.
check() {
	local what=$1; shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		for f in "$t"/*.out "$t"/*.err; do sed "s|^|# ${f##*/}: |" "$f"; done
	fi
}

echo 1..15

# Round 1: a normal command, and in parallel one that must time out.
echo "hello from the host $$" >"$t/hello.txt"
"$vm" --file "$t/hello.txt" -- \
	'uname -r; cat hello.txt; grep -w _text /proc/kallsyms; exit 3' \
	>"$t/a.out" 2>"$t/a.err" &
a=$!
start=$SECONDS
"$vm" --timeout 5 -- 'echo sleeping; sleep 100' >"$t/b.out" 2>"$t/b.err"
b_status=$? b_time=$((SECONDS - start))
wait "$a"
a_status=$?

check "guest runs the pinned kernel $KSPLICE_KERNEL_ABI" \
	[ "$(sed -n 1p "$t/a.out")" = "$KSPLICE_KERNEL_ABI" ]
check "guest exit status is propagated (3)" [ "$a_status" = 3 ]
check "--file arrives in the working dir" \
	[ "$(sed -n 2p "$t/a.out")" = "hello from the host $$" ]
check "/proc/kallsyms has real addresses" \
	grep -Eq '^ffffffff[0-9a-f]{8} T _text$' "$t/a.out"
check "--timeout 5 kills a long command (status $b_status)" [ "$b_status" = 124 ]
timeout_said() { grep -q "vm: command timed out after 5 s" "$t/b.err" && [ "$b_time" -lt 100 ]; }
check "... with a clear message, in reasonable time (${b_time} s)" timeout_said

# Round 2: a module with its dependencies, and in parallel a kernel panic.
rm -f "$t"/*.out "$t"/*.err
"$vm" --module vfat -- 'modprobe vfat && grep -w vfat /proc/filesystems' \
	>"$t/c.out" 2>"$t/c.err" &
c=$!
start=$SECONDS
"$vm" -- 'echo c >/proc/sysrq-trigger; sleep 100' >"$t/d.out" 2>"$t/d.err"
d_status=$? d_time=$((SECONDS - start))
wait "$c"
c_status=$?

vfat_loaded() { [ "$c_status" = 0 ] && grep -q vfat "$t/c.out"; }
check "--module vfat loads with modprobe" vfat_loaded
check "a guest panic fails the run (status $d_status)" [ "$d_status" = 125 ]
check "... and says so, with the panic's lines" \
	grep -q "vm: guest kernel crashed" "$t/d.err"
check "... (the panic's own words)" grep -q "vm: .*Kernel panic - not syncing: sysrq triggered crash" "$t/d.err"
last_names_it() { tail -n 1 "$t/d.err" | grep -q '^vm: guest kernel crashed: .*Kernel panic - not syncing: sysrq'; }
check "... and its last line says which report it was" last_names_it
check "... in reasonable time (${d_time} s)" [ "$d_time" -lt 100 ]

# Round 3: a guest that stays hung after its panic (panic=0: no reset, as
# when the panic deadlocks on the serial console) must still end the run
# within seconds; and in parallel, a command that only prints such words
# is no crash.
rm -f "$t"/*.out "$t"/*.err
"$vm" -- 'echo "Kernel panic - not syncing: only words"; echo "BUG: words too"; exit 0' \
	>"$t/e.out" 2>"$t/e.err" &
e=$!
start=$SECONDS
"$vm" --verbose --append panic=0 -- 'sleep 1; echo c >/proc/sysrq-trigger; sleep 600' \
	>"$t/f.out" 2>"$t/f.err"
f_status=$? f_time=$((SECONDS - start))
wait "$e"
e_status=$?

words_only() { [ "$e_status" = 0 ] && grep -q "only words" "$t/e.out" && ! grep -q crashed "$t/e.err"; }
check "a command printing a panic's words is no crash (status $e_status)" words_only
hung_ended() { [ "$f_status" = 125 ] && grep -q "vm: guest kernel crashed" "$t/f.err"; }
check "a guest hung after its panic fails the run as a crash (status $f_status)" hung_ended
# (from the guest's start: the boot under TCG is no part of it)
crashed_fast() {
	local up
	up=$(sed -n 's/^vm: guest up after \([0-9]*\) s$/\1/p' "$t/f.err")
	[ -n "$up" ] && [ $((f_time - up)) -lt 30 ]
}
check "... within 30 s of the guest's start (${f_time} s in all)" crashed_fast
