#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the self-test in guests whose mitigations rewrite the special sites
# differently (retpolines inlined or not, with LFENCE, ITS thunks, the
# return thunks of each vendor).  Builds first.  Prints a line per config.
set -u
test_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$test_dir/../.." && pwd)
"$test_dir/build.sh" >/dev/null 2>&1 || { echo "build failed"; exit 1; }

configs=(
	"qemu64|"
	"qemu64|spectre_v2=off"
	"qemu64|spectre_v2=off retbleed=off"
	"qemu64|spectre_v2=retpoline,lfence"
	"Skylake-Client-IBRS|spectre_v2=ibrs indirect_target_selection=force"
	"EPYC|"
	"EPYC|retbleed=unret spec_rstack_overflow=off"
	"EPYC|spectre_v2=retpoline,lfence"
)
out=$(mktemp -d)
for i in "${!configs[@]}"; do
	cpu=${configs[$i]%%|*} args=${configs[$i]#*|}
	"$repo/tests/vm/run" --smp 4 --cpu "$cpu" ${args:+--append "$args"} \
		--file "$repo/kmod/ksplice.ko" \
		--file "$test_dir/target/ksplice_target.ko" \
		--file "$test_dir/update/selftest_update.ko" \
		--file "$test_dir/selftest.sh" -- ./selftest.sh \
		>"$out/$i" 2>&1 &
	# TCG guests are CPU-hungry; too many at once miss boot timer checks.
	while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do sleep 1; done
done
wait
fails=0
for i in "${!configs[@]}"; do
	res=$(tail -n 1 "$out/$i")
	echo "== ${configs[$i]}: $res"
	grep -E '^     (spectre_v2|retbleed|spec_rstack|indirect)' "$out/$i"
	# the running form of the retpoline site, as a mismatch reports it
	grep -o 'retpoline site at .*' "$out/$i" | sed 's/^/     /'
	grep -o 'pause_ns: .*' "$out/$i" | sed 's/^/     /' 
	grep '^FAIL' "$out/$i"
	[ "$res" = "0 failures" ] || { fails=1; tail -n 20 "$out/$i"; }
done
rm -rf "$out"
exit $fails
