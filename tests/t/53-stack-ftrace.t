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
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 18
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/f1.patch")
ok $? "the source tree with sf1's patch is made"
u1=$(make_update "$P/f1.patch" sf1) && u2=$(make_update "$P/f2.patch" sf2 "$t1")
ok $? "both updates of psi_show build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

out=$(vm --append psi=1 --file "$u1" --file "$u2" -- '
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
is "$(printf '%s\n' "$out" | grep -c '^REDIRECT .*psi_show:')" 1 "  sf2 registered no redirection of its own"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing sf1 under sf2 is refused"
like "$out" 'UNDO1: .*sf2' "  naming sf2"
like "$out" 'STATE undo1-refused: \[f2 f1 \] lines=[12]$' "  and nothing changed"
like "$out" 'STAGE1: applied' "  sf1 stays applied"
like "$out" 'UNDO2-STATUS=0' "undoing sf2 succeeds"
like "$out" 'STATE two-undone: \[f1 \] lines=[12]$' "  sf1's code runs again"
like "$out" 'STATE end: \[\] lines=[12]$' "undoing sf1 then brings the stock psi_show back"
unlike "$out" '^DMESG' "no oops or warning"
