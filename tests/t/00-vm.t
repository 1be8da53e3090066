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

echo 1..9

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
"$vm" -- 'echo c >/proc/sysrq-trigger' >"$t/d.out" 2>"$t/d.err"
d_status=$?
wait "$c"
c_status=$?

vfat_loaded() { [ "$c_status" = 0 ] && grep -q vfat "$t/c.out"; }
check "--module vfat loads with modprobe" vfat_loaded
check "a guest panic fails the run (status $d_status)" [ "$d_status" = 125 ]
check "... and says so" grep -q "vm: guest kernel panicked" "$t/d.err"
