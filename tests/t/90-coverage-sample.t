#!/bin/bash
# bench/coverage on a fixed sample of 30 patches of Debian's update
# KSPLICE_COVERAGE_RANGE (--sample 30 --seed 1), applied to the stock kernel
# of its first version: the tool runs to its end, every patch has a row with
# a known stage, every update that applied was undone, none crashed the
# guest.  The coverage figure is printed, not asserted.  Two batches
# (--batch 13): the first boots while the rest are created.  About 7 minutes
# with the sources and the prepared tree cached; an estimated 11-12 on a
# fresh cache (fetches, tree prepare, the diff of the trees).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/versions"
set -u
cache=${KSPLICE_CACHE:-$HOME/.cache/ksplice}
dir=$cache/coverage/$KSPLICE_COVERAGE_RANGE-sample30-seed1
# The raw results stay in the cache for a look; each run starts afresh.
rm -rf "$dir"; mkdir -p "$cache/coverage"

plan 10
t0=$SECONDS
out=$("$KSPLICE_TOP/bench/coverage" "$KSPLICE_COVERAGE_RANGE" --sample 30 --seed 1 --batch 13 \
	-o "$dir" 2>"$dir.log")
ok $? "bench/coverage $KSPLICE_COVERAGE_RANGE --sample 30 --seed 1 runs to its end"
diag "$out"
diag "wall time $((SECONDS - t0)) s; results in $dir/results.tsv"
tsv=$dir/results.tsv
[ -s "$tsv" ] || { sed 's/^/# /' "$dir.log" | tail -20; bail "no results"; }

is "$(head -n 1 "$tsv")" "$(printf 'file\tunits\tstage\tcause\tdetail\tseconds\tid\tundo\trev')" \
	"the TSV has its header"
is "$(tail -n +2 "$tsv" | wc -l)" 30 "it has a row for each of the 30 patches"
is "$(tail -n +2 "$tsv" | cut -f7 | sort -u | wc -l)" 30 "  each patch once"
is "$(tail -n +2 "$tsv" | cut -f9 | sed 's/-dirty$//' | sort -u)" "$(git -C "$KSPLICE_TOP" rev-parse --short=12 HEAD)" \
	"  every row names the commit that made it"
bad=$(tail -n +2 "$tsv" | awk -F'\t' '$3 !~ /^(applied|create|match|apply|smoke|undo|crash|nature|noop|data|rig)$/ || $4 == ""')
is "$bad" "" "every row has a known stage and a cause"
# Applied: undone (the undo column), and the guest ran its smoke check.
applied=$(tail -n +2 "$tsv" | awk -F'\t' '$3 == "applied"' | wc -l)
notundone=$(tail -n +2 "$tsv" | awk -F'\t' '$3 == "applied" && $8 != "ok"')
is "$notundone" "" "every update that applied was undone cleanly ($applied applied)"
undofail=$(tail -n +2 "$tsv" | awk -F'\t' '$3 == "undo"')
is "$undofail" "" "  no update failed to undo"
crash=$(tail -n +2 "$tsv" | awk -F'\t' '$3 == "crash"')
is "$crash" "" "no update crashed or hung the guest"
like "$out" "applied live: $applied of [0-9]+ = [0-9.]+%" "the table gives the fraction applied"
