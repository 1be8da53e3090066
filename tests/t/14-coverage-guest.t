#!/bin/bash
# The guest side of bench/coverage (bench/lib/coverage-guest.sh) loads each
# update's target modules first.  vfb and mtdoops refuse to load without an
# argument naming what to drive, so their updates were never tried (stage
# rig); the guest now gives them one.  Plain modprobe of each still fails
# (the arguments are what makes them load), and an update file that is not
# there is reported by ksplice-apply, not taken for a crash.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 7
echo "cv9999 vfb mtdoops" >"$tmp/batch.list"
plain='for m in vfb mtdoops; do
	modprobe $m 2>/dev/null && echo "PLAIN $m loaded" && rmmod $m
	lsmod | grep -q "^$m " || echo "PLAIN $m refused"
done'
"$KSPLICE_TOP/tests/vm/run" --timeout 120 --module vfb --module mtdoops \
	--file "$tmp/batch.list" -- \
	"$plain; $(cat "$KSPLICE_TOP/bench/lib/coverage-guest.sh")" >"$tmp/out" 2>&1
is "$?" 0 "the guest ran the batch (rig exit status)"
for m in vfb mtdoops; do
	ok $(grep -qx "PLAIN $m refused" "$tmp/out"; echo $?) "plain modprobe $m fails"
	ok $(grep -qx "COV cv9999 loaded $m" "$tmp/out"; echo $?) \
		"  the coverage guest loads $m with its argument"
done
ok $(grep -q '^COV cv9999 apply [1-9]' "$tmp/out"; echo $?) \
	"the missing update file is a failed apply"
ok $(grep -qx 'COV-BATCH-DONE' "$tmp/out"; echo $?) "the batch runs to its end"
grep -q COV-BATCH-DONE "$tmp/out" || diag "$(tail -n 20 "$tmp/out")"
