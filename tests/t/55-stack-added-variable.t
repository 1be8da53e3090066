#!/bin/bash
# Updates stacked on variables an earlier update added (issue 10).  sv1
# adds two variables to fs/proc/cmdline.c: a static, cmdline_stk_reads
# (100 at first), which its cmdline_proc_show counts up and prints
# (" reads=N"), and a global, cmdline_stk_total (zero), which it counts
# up too.  Built from the tree with sv1's patch: sv2 changes
# cmdline_proc_show again (" reads=N v2"), so its pre code refers to the
# static, which is nowhere in vmlinux, only in sv1's module; sv3 changes
# another unit, fs/proc/version.c, whose new code prints the global
# ("total=N").  The core proves each reference against the address sv1
# says it gave that variable (for the static: of that unit), and binds the
# new code to the same one: the counts go on, they do not start again.
# Checked: sv2 and sv3 alone (no sv1) are refused and change nothing; on
# sv1 each applies and its code runs, counting on; undoing sv1 is refused
# while sv2 stands on its function, and while sv3 (another function) uses
# its variable, naming sv3 and the variable, and changes nothing; LIFO
# back to the stock kernel.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 36
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/v1.patch")
ok $? "the source tree with sv1's patch is made"
u1=$(make_update "$P/v1.patch" sv1) && u2=$(make_update "$P/v2.patch" sv2 "$t1") &&
u3=$(make_update "$P/v3.patch" sv3 "$t1")
ok $? "the three updates build"
[ -s "${u1:-}" ] && [ -s "${u2:-}" ] && [ -s "${u3:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }
log1=$(cat "$tmp/create-sv1.log")
like "$log1" 'new variable: cmdline_stk_reads \(fs/proc/cmdline.c, static, 8 bytes\): carried, initialised' \
	"sv1 adds the static, initialised"
like "$log1" 'new variable: cmdline_stk_total \(fs/proc/cmdline.c, global, 8 bytes\): carried, zero' \
	"  and the global, zero"
unlike "$(cat "$tmp/create-sv2.log")" 'new variable' "sv2 adds none: the static is sv1's"

out=$(vm --file "$u1" --file "$u2" --file "$u3" -- '
	base=$(cat /proc/cmdline)
	st() { c=$(cat /proc/cmdline); echo "STATE $1: [${c#"$base"}]"; }
	ver() { echo "VERSION $1: $(sed -n 2p /proc/version) lines=$(wc -l </proc/version)"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	stage() { echo "STAGE $1: $(cat /sys/kernel/ksplice/$2/stage 2>/dev/null)"; }
	st stock; ver stock
	run ALONE2 ksplice-apply ksplice-sv2.tar.gz; st alone2
	run ALONE3 ksplice-apply ksplice-sv3.tar.gz; ver alone3
	run APPLY1 ksplice-apply ksplice-sv1.tar.gz; st one; st one-again
	run APPLY3 ksplice-apply ksplice-sv3.tar.gz; ver three
	run APPLY2 ksplice-apply ksplice-sv2.tar.gz; st two
	b=$(kpeek cmdline_proc_show 16)
	run UNDO1 ksplice-undo sv1; st undo1-refused; stage undo1-refused sv1
	[ -n "$b" ] && [ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo UNDO1-UNCHANGED
	run UNDO2 ksplice-undo sv2; st two-undone
	run UNDO1B ksplice-undo sv1; st undo1b-refused; stage undo1b-refused sv1
	ver undo1b-refused
	run UNDO3 ksplice-undo sv3; ver three-undone
	run UNDO1C ksplice-undo sv1; st end
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"

like "$out" 'STATE stock: \[\]$' "the stock kernel's cmdline_proc_show runs first"
like "$out" 'VERSION stock:  lines=1$' "  and its version_proc_show"
like "$out" 'ALONE2-STATUS=[1-9]' "sv2 without sv1 is refused"
like "$out" 'ALONE2: .*not built from this kernel.s source' "  its pre code is not what runs"
like "$out" 'STATE alone2: \[\]$' "  and nothing changed"
like "$out" 'ALONE3-STATUS=[1-9]' "sv3 without sv1 is refused"
like "$out" 'ALONE3: .*cmdline_stk_total is not found' "  naming the variable found nowhere"
like "$out" 'VERSION alone3:  lines=1$' "  and nothing changed"
like "$out" 'APPLY1-STATUS=0' "sv1 applies"
like "$out" 'STATE one: \[ reads=101\]$' "  its code counts its new static, from its initial value"
like "$out" 'STATE one-again: \[ reads=102\]$' "  and on"
like "$out" 'APPLY3-STATUS=0' "sv3, whose new code reads sv1's global, applies on top of sv1"
like "$out" 'VERSION three: total=2 lines=2$' "  and reads sv1's count (two reads so far)"
like "$out" 'APPLY2-STATUS=0' "sv2, whose pre code refers to sv1's static, applies on top of sv1"
like "$out" 'STATE two: \[ reads=103 v2\]$' "  its code runs and counts on in sv1's static"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing sv1 under sv2 is refused"
like "$out" 'UNDO1: .*sv2' "  naming sv2"
like "$out" 'STATE undo1-refused: \[ reads=104 v2\]$' "  and nothing changed"
like "$out" 'STAGE undo1-refused: applied' "  sv1 stays applied"
like "$out" 'UNDO1-UNCHANGED' "  not even bytes"
like "$out" 'UNDO2-STATUS=0' "undoing sv2 succeeds"
like "$out" 'STATE two-undone: \[ reads=105\]$' "  sv1's code runs again, counting on"
like "$out" 'UNDO1B-STATUS=[1-9]' "undoing sv1 while sv3 uses its global is refused"
like "$out" 'UNDO1B: .*sv3 uses cmdline_stk_total' "  naming sv3 and the variable"
like "$out" 'STATE undo1b-refused: \[ reads=106\]$' "  and nothing changed"
like "$out" 'STAGE undo1b-refused: applied' "  sv1 stays applied"
like "$out" 'VERSION undo1b-refused: total=6 lines=2$' "  sv3 still reads sv1's count"
like "$out" 'VERSION three-undone:  lines=1$' "undoing sv3 brings the stock version_proc_show back"
like "$out" 'STATE end: \[\]$' "undoing sv1 then brings the stock kernel back"
unlike "$out" '^DMESG' "no oops or warning"
