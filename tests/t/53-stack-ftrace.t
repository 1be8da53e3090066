#!/bin/bash
# An update stacked on a function ftrace redirects (issue 10).  psi_show
# has a jump label right after its ftrace site, so no jump fits: sf1's
# ftrace_ops redirects it to sf1's code (its output ends in "stk=f1").
# sf2, built from the tree with sf1's patch, prints "stk=f2" first (in the
# part of psi_show before the jump label, which sf1's build split off into
# psi_show.part.0): it registers nothing: inside its stop_machine it
# retargets sf1's redirection to its own code, and its undo points it back.  Checked by what /proc/pressure/cpu prints
# (booted with psi=1): each update's code runs in turn; undoing sf1 while
# sf2 stands on it is refused naming sf2 and changes nothing; undoing sf2
# makes sf1's code run again, undoing sf1 the stock code.
# Then replace updates (--replace, from the stock source) over the same
# stack: sr carries psi_show (both changes, as "stk=r2" and "stk=r1"):
# inside its stop_machine it retargets sf1's redirection to its own code
# and then owns it (sf1 and sf2 go, nothing registers again); its undo
# switches the redirection off: the stock code.  sc, a replace update of
# cmdline_proc_show only, over sf1: its stop_machine switches sf1's
# redirection off (psi_show is stock again) as it patches /proc/cmdline.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 34
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/f1.patch")
ok $? "the source tree with sf1's patch is made"
u1=$(make_update "$P/f1.patch" sf1) && u2=$(make_update "$P/f2.patch" sf2 "$t1")
ok $? "both updates of psi_show build"
ur=$(make_replace "$P/fr.patch" sr) && uc=$(make_replace "$P/v1.patch" sc)
ok $? "the replace updates sr (psi_show) and sc (cmdline_proc_show) build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${ur:-}" ] && [ -s "${uc:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

out=$(vm --append psi=1 --file "$u1" --file "$u2" --file "$ur" --file "$uc" -- '
	st() { c=$(sed -n "s/^stk=//p" /proc/pressure/cpu | tr "\n" " ")
		echo "STATE $1: [$c] lines=$(grep -c avg10= /proc/pressure/cpu)"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	st stock
	run APPLY1 ksplice-apply ksplice-sf1.tar.gz; st one
	run APPLY2 ksplice-apply ksplice-sf2.tar.gz; st two
	run UNDO1 ksplice-undo sf1; st undo1-refused
	echo "STAGE1: $(cat /sys/kernel/ksplice/sf1/stage)"
	run UNDO2 ksplice-undo sf2; st two-undone
	run UNDO1B ksplice-undo sf1; st end
	run APPLY1C ksplice-apply ksplice-sf1.tar.gz
	run APPLY2C ksplice-apply ksplice-sf2.tar.gz; st two-again
	run REPLACE ksplice-apply ksplice-sr.tar.gz; st replaced
	grep -E "^ksplice_sf[12] " /proc/modules | sed "s/^/LEFT: /"
	echo "STAGE-SR: $(cat /sys/kernel/ksplice/sr/stage)"
	run UNDOR ksplice-undo sr; st replace-undone
	run APPLY1D ksplice-apply ksplice-sf1.tar.gz; st one-again
	c0=$(cat /proc/cmdline)
	run REPLACEC ksplice-apply ksplice-sc.tar.gz; st sc
	c=$(cat /proc/cmdline); echo "CMDLINE-SC: [${c#"$c0"}]"
	run UNDOC ksplice-undo sc; st final
	c=$(cat /proc/cmdline); echo "CMDLINE-FINAL: [${c#"$c0"}]"
	dmesg | grep "ftrace redirects it" | sed "s/^.*\] /REDIRECT /"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"

like "$out" 'STATE stock: \[\] lines=[12]$' "the stock psi_show runs first"
like "$out" 'APPLY1-STATUS=0' "sf1 applies"
like "$out" 'REDIRECT ksplice: psi_show: no room for a jump after its ftrace site: ftrace redirects it' \
	"  ftrace redirects psi_show to it"
like "$out" 'STATE one: \[f1 \] lines=[12]$' "  its code runs"
like "$out" 'APPLY2-STATUS=0' "sf2 applies on top of sf1"
like "$out" 'STATE two: \[f2 f1 \] lines=[12]$' "  sf1's redirection now leads to sf2's code"
is "$(printf '%s\n' "$out" | grep -c '^REDIRECT .*psi_show:')" 3 \
	"  sf2 and sr registered no redirection of their own (sf1 did, three times)"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing sf1 under sf2 is refused"
like "$out" 'UNDO1: .*sf2' "  naming sf2"
like "$out" 'STATE undo1-refused: \[f2 f1 \] lines=[12]$' "  and nothing changed"
like "$out" 'STAGE1: applied' "  sf1 stays applied"
like "$out" 'UNDO2-STATUS=0' "undoing sf2 succeeds"
like "$out" 'STATE two-undone: \[f1 \] lines=[12]$' "  sf1's code runs again"
like "$out" 'STATE end: \[\] lines=[12]$' "undoing sf1 then brings the stock psi_show back"
like "$out" 'STATE two-again: \[f2 f1 \] lines=[12]$' "sf1 and sf2 applied again"
like "$out" 'REPLACE-STATUS=0' "sr, a replace update carrying psi_show, applies over them"
like "$out" 'STATE replaced: \[r2 r1 \] lines=[12]$' "  its code runs"
unlike "$out" '^LEFT: ' "  sf1's and sf2's modules are gone"
like "$out" 'STAGE-SR: applied' "  sr stands alone"
like "$out" 'UNDOR-STATUS=0' "undoing sr succeeds"
like "$out" 'STATE replace-undone: \[\] lines=[12]$' "  the stock psi_show runs"
like "$out" 'APPLY1D-STATUS=0' "sf1 applies once more"
like "$out" 'STATE one-again: \[f1 \] lines=[12]$' "  its code runs"
like "$out" 'REPLACEC-STATUS=0' "sc, a replace update without psi_show, applies over sf1"
like "$out" 'STATE sc: \[\] lines=[12]$' "  psi_show is stock again"
like "$out" 'CMDLINE-SC: \[ reads=101\]$' "  and sc's cmdline_proc_show runs"
like "$out" 'UNDOC-STATUS=0' "undoing sc succeeds"
like "$out" 'STATE final: \[\] lines=[12]$' "  psi_show stays stock"
like "$out" 'CMDLINE-FINAL: \[\]$' "  and /proc/cmdline is stock"
unlike "$out" '^DMESG' "no oops or warning"
