#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzes the update file reader (tests/fuzz/fuzz-update-file.c) for
# KSPLICE_FUZZ_SECONDS (default 60), after replaying every input in
# tests/fuzz/regressions/: each crash the fuzzer ever found, kept there
# once fixed.  The corpus grows in build/fuzz/corpus across local runs.
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || exit 1
plan 4

seconds=${KSPLICE_FUZZ_SECONDS:-60}
out=build/fuzz
fuzzer=$out/fuzz-update-file
# Each input is written and extracted to files: on tmpfs that runs ~3x
# faster than on disk.
TMPDIR=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d) ||
	bail "cannot make a temporary directory"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

make -s -C tests/fuzz >"$TMPDIR/build.log" 2>&1
status=$?
ok $status "builds the fuzz target and its seeds"
[ $status -eq 0 ] ||
	{ sed 's/^/# /' "$TMPDIR/build.log"; bail "no fuzz target"; }
mkdir -p "$out/corpus" "$out/artifacts"

# -close_fd_mask=2: the parser's refusals would flood stderr; libFuzzer
# and the sanitizers still report on a copy of it.
flags=(-close_fd_mask=2 -timeout=10 -artifact_prefix="$out/artifacts/")

mapfile -t regressions < <(find tests/fuzz/regressions -type f ! -name .keep |
			   sort)
status=0
if [ ${#regressions[@]} -gt 0 ]; then
	"$fuzzer" "${flags[@]}" "${regressions[@]}" >"$TMPDIR/replay.log" 2>&1
	status=$?
fi
ok $status "replays the ${#regressions[@]} inputs in tests/fuzz/regressions/"
[ $status -eq 0 ] || tail -n 40 "$TMPDIR/replay.log" | sed 's/^/# /'

# The timeout only catches a hung fuzzer; -max_total_time ends a good one.
timeout $((seconds + 300)) "$fuzzer" "${flags[@]}" \
	-max_total_time="$seconds" -print_final_stats=1 \
	"$out/corpus" "$out/seeds" >"$TMPDIR/fuzz.log" 2>&1
status=$?
log=$(cat "$TMPDIR/fuzz.log")
ok $status "fuzzes for $seconds s without a crash, leak or hang"
if [ $status -ne 0 ]; then
	printf '%s\n' "$log" | tail -n 60 | sed 's/^/# /'
	diag "The input is in $out/artifacts/; replay it with $fuzzer FILE." \
	     "Fix the bug, then add the input to tests/fuzz/regressions/."
fi
unlike "$log" 'ERROR: (Address|Leak|Undefined|libFuzzer)|runtime error:|SUMMARY' \
	"no sanitizer report"

# "#N DONE cov: C ft: F corp: U/S lim: ..." and "stat::name: value" lines
done=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*\(.*\) lim:.*/\1/p' \
	"$TMPDIR/fuzz.log")
stat_of() { sed -n "s/^stat::$1:[[:space:]]*//p" "$TMPDIR/fuzz.log"; }
diag "executions: $(stat_of number_of_executed_units)," \
     "exec/s: $(stat_of average_exec_per_sec)," \
     "new units: $(stat_of new_units_added)," \
     "peak RSS: $(stat_of peak_rss_mb) MB"
diag "reached ${done:-(no DONE line)}"
