#!/bin/bash
# bench/coverage's rows of one boot, from the guest's "COV ID ..." lines
# (bench/lib/coverage-classify.pl): an update whose target module the VM
# cannot load (kvm_intel: TCG has no VMX) was not tried, whether
# ksplice-apply refused it for want of the module or accepted it: stage
# rig, counted apart by the summary.  A module that loads, or a refusal
# that names a module the guest did not try to load, stays what it was.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 7
lib=$KSPLICE_TOP/bench/lib
need='ksplice-apply: the update needs enable_evmcs of module kvm_intel, which is not loaded: load kvm_intel (modprobe kvm_intel), then apply the update'

cat >"$tmp/out" <<EOF
COV-BEGIN cv0001
COV cv0001 loaded snd_dummy
COV cv0001 apply 0
COV cv0001 smoke
COV cv0001 reload snd_dummy ok
COV cv0001 undo 0
COV-END cv0001 3
COV-BEGIN cv0002
COV cv0002 notloaded kvm_intel
COV cv0002 apply 1
COV cv0002 applyout $need
COV-END cv0002 1
COV-BEGIN cv0003
COV cv0003 apply 1
COV cv0003 applyout $need
COV-END cv0003 1
COV-BEGIN cv0004
COV cv0004 notloaded xen_gntalloc
COV cv0004 apply 0
COV cv0004 smoke
COV cv0004 undo 0
COV-END cv0004 2
EOF
: >"$tmp/console"
perl "$lib/coverage-classify.pl" "$tmp/out" "$tmp/console" 0 >"$tmp/rows"
ok $? "coverage-classify.pl reads the boot"
row() { awk -F'\t' -v id="$1" '$1 == id { print $2 "\t" $3 }' "$tmp/rows"; }
is "$(row cv0001)" "$(printf 'applied\tok')" "(positive) a target that loads: applied"
is "$(row cv0002)" "$(printf 'rig\ttarget not loadable in the VM')" \
	"refused for want of a module the guest cannot load: rig"
is "$(row cv0003)" "$(printf 'apply\tload symbol: module not loaded')" \
	"(positive) refused for want of a module the guest did not try: an apply failure"
is "$(row cv0004)" "$(printf 'rig\ttarget not loadable in the VM')" \
	"accepted, but its target did not load: rig, not applied"

# The summary counts rig apart, and so a row saved before the stage was
# made (applied, "not loadable M").
mkdir "$tmp/r"
printf 'cv0001\ta.c\tc\ncv0002\tb.c\tc\ncv0003\tc.c\tc\n' >"$tmp/r/plan.tsv"
{
	printf 'file\tunits\tstage\tcause\tdetail\tseconds\tid\tundo\trev\n'
	printf 'a.c\t1\tapplied\tok\tvmlinux\t3\tcv0001\tok\tr\n'
	printf 'b.c\t1\tapplied\tok\tnot loadable xen_gntalloc\t3\tcv0002\tok\tr\n'
	printf 'c.c\t1\tapply\tcode_busy\tx\t3\tcv0003\t-\tr\n'
} >"$tmp/r/results.tsv"
sum=$(perl "$lib/coverage-summary.pl" "$tmp/r")
like "$sum" 'applied live: 1 of 2 = 50\.0%' "the summary: a saved applied row with a target not loadable is not applied"
like "$sum" 'rig +target not loadable in the VM +1' "  it is counted apart, as rig"
