#!/bin/bash
# An update stacked on a function an earlier update added (issue 10).  sh1
# adds a static helper, cmdline_stk_tag (" stk=h1"), and changes
# cmdline_proc_show to call it; sh2, built from the tree with sh1's patch,
# changes cmdline_proc_show again (" b2" after the helper's call): its pre
# code calls the helper, which is nowhere in vmlinux, only in sh1's module;
# sh3, from the tree with both, changes the helper itself (" stk=h3"): its
# jump goes on sh1's copy.  /proc/cmdline says whose code runs.  Checked:
# sh3 alone (no sh1) is refused, the helper found nowhere; each applies on
# top of sh1 and its code runs; undoing sh1 while sh2 stands on its
# cmdline_proc_show, and again while only sh3 (on sh1's helper) stands, is
# refused naming them and changes nothing; undoing sh2 leaves sh1's
# cmdline_proc_show calling sh3's helper; undoing sh3 brings sh1's back,
# undoing sh1 the stock kernel.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 30
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/h1.patch") && t2=$(patched_source "$P/h1.patch" "$P/h2.patch")
ok $? "the source trees with sh1's patch, and with sh1's and sh2's, are made"
u1=$(make_update "$P/h1.patch" sh1) &&
u2=$(make_update "$P/h2.patch" sh2 "$t1") &&
u3=$(make_update "$P/h3.patch" sh3 "$t2")
ok $? "the three updates build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${u3:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }
like "$(cat "$tmp/create-sh1.log")" 'new function: cmdline_stk_tag' "sh1 adds the helper"
like "$(cat "$tmp/create-sh3.log")" 'changed function: cmdline_stk_tag' "sh3 changes it"

out=$(vm --file "$u1" --file "$u2" --file "$u3" -- '
	base=$(cat /proc/cmdline)
	st() { c=$(cat /proc/cmdline); echo "STATE $1: [${c#"$base"}]"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	stage() { echo "STAGE $1: $(cat /sys/kernel/ksplice/$2/stage 2>/dev/null)"; }
	st stock
	run ALONE3 ksplice-apply ksplice-sh3.tar.gz; st alone3
	run APPLY1 ksplice-apply ksplice-sh1.tar.gz; st one
	run APPLY2 ksplice-apply ksplice-sh2.tar.gz; st two
	b=$(kpeek cmdline_proc_show 16)
	run UNDO1 ksplice-undo sh1; st undo1-refused; stage undo1-refused sh1
	[ -n "$b" ] && [ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo UNDO1-UNCHANGED
	run APPLY3 ksplice-apply ksplice-sh3.tar.gz; st three
	grep -w cmdline_stk_tag /proc/kallsyms | sed "s/^/KALLSYMS: /"
	run UNDO2 ksplice-undo sh2; st two-undone
	run UNDO1B ksplice-undo sh1; st undo1b-refused; stage undo1b-refused sh1
	run UNDO3 ksplice-undo sh3; st three-undone
	run UNDO1C ksplice-undo sh1; st end
	grep ksplice_sh /proc/modules | sed "s/^/MODULE: /"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"

like "$out" 'STATE stock: \[\]$' "the stock kernel's cmdline_proc_show runs first"
like "$out" 'ALONE3-STATUS=[1-9]' "sh3 without sh1 is refused"
like "$out" 'ALONE3: .*cmdline_stk_tag.*no such symbol' "  the helper it changes is nowhere"
like "$out" 'STATE alone3: \[\]$' "  and nothing changed"
like "$out" 'APPLY1-STATUS=0' "sh1 applies"
like "$out" 'STATE one: \[ stk=h1\]$' "  its cmdline_proc_show calls its helper"
like "$out" 'APPLY2-STATUS=0' "sh2, whose pre code calls sh1's helper, applies on top of sh1"
like "$out" 'STATE two: \[ stk=h1 b2\]$' "  its code runs and calls sh1's helper"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing sh1 under sh2 is refused"
like "$out" 'UNDO1: .*sh2' "  naming sh2"
like "$out" 'STATE undo1-refused: \[ stk=h1 b2\]$' "  and nothing changed"
like "$out" 'STAGE undo1-refused: applied' "  sh1 stays applied"
like "$out" 'UNDO1-UNCHANGED' "  not even bytes"
like "$out" 'APPLY3-STATUS=0' "sh3 applies: its jump goes on sh1's copy of the helper"
like "$out" 'STATE three: \[ stk=h3 b2\]$' "  sh2's cmdline_proc_show calls it and sh3's code runs"
like "$out" 'KALLSYMS: .*cmdline_stk_tag.*\[ksplice_sh1\]' "  the helper is sh1's, in sh1's module"
like "$out" 'UNDO2-STATUS=0' "undoing sh2 under sh3 (another function) succeeds"
like "$out" 'STATE two-undone: \[ stk=h3\]$' "  sh1's cmdline_proc_show runs, calling sh3's helper"
like "$out" 'UNDO1B-STATUS=[1-9]' "undoing sh1 while sh3's jump is in its helper is refused"
like "$out" 'UNDO1B: .*sh3.*cmdline_stk_tag' "  naming sh3 and the helper"
like "$out" 'STATE undo1b-refused: \[ stk=h3\]$' "  and nothing changed"
like "$out" 'STAGE undo1b-refused: applied' "  sh1 stays applied"
like "$out" 'STATE three-undone: \[ stk=h1\]$' "undoing sh3 brings sh1's helper back"
like "$out" 'STATE end: \[\]$' "undoing sh1 then brings the stock kernel back"
unlike "$out" '^DMESG' "no oops or warning"
