#!/bin/bash
# bench/coverage stopped while its creates run (a signal, or its own exit
# on an error): the creates stop with it.  They run under xargs, whose
# children a kill of xargs alone leaves running: two such orphans once
# shared the machine with a whole CI run.
# The CI sample's first creates: after 90-coverage-sample.t, which fetched
# and prepared what they need (a fresh cache takes minutes before them).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/versions"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/run

plan 4
"$KSPLICE_TOP/bench/coverage" "$KSPLICE_COVERAGE_RANGE" --sample 30 --seed 1 --jobs 2 \
	-o "$out" >"$tmp/log" 2>&1 &
bench=$!
creates() { pgrep -f "coverage-create $out " | wc -l; }
compilers() { pgrep -f "ksplice-create .*-o $out/updates" | wc -l; }
for _ in $(seq 1 2400); do
	[ "$(compilers)" -gt 0 ] && break
	kill -0 $bench 2>/dev/null || break
	sleep 0.5
done
n=$(creates) c=$(compilers)
ok $([ "$n" -gt 0 ] && [ "$c" -gt 0 ]; echo $?) \
	"bench/coverage is running its creates ($n, $c ksplice-create)"
[ "$c" -gt 0 ] || diag "$(tail -n 20 "$tmp/log")"
kill -TERM $bench
wait $bench
st=$?
ok $([ "$st" -ne 0 ]; echo $?) "bench/coverage stops on TERM (status $st)"
for _ in $(seq 1 20); do
	[ "$(creates)" = 0 ] && [ "$(compilers)" = 0 ] && break
	sleep 0.5
done
is "$(creates)" 0 "  no create of it is left running"
is "$(compilers)" 0 "  nor any ksplice-create it started"
