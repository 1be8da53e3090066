#!/bin/bash
# Static locals renumbered by a patch (tests/patches/oom-adj-statics.patch):
# oom_adj_read gains a counter and a pr_info_once, new static locals that
# renumber fs/proc/base.c's others (its post __already_done.4 is the
# running __already_done.3, the legacy /proc/PID/oom_adj warning's flag of
# __set_oom_adj).  After apply the patched __set_oom_adj runs and tests the
# running flag: the warning, which fired before, stays quiet; the new
# counter counts from zero and the new once message is logged once.  Bound
# by number, or with the once flags of .data.once misread, the new flag
# would have been the running one.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 13
upd=$(make_update "$KSPLICE_TOP/tests/patches/oom-adj-statics.patch" oomst)
ok $? "ksplice-create builds the update"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-oomst.log"; bail "no update file"; }
log=$(cat "$tmp/create-oomst.log")
like "$log" 'static local __already_done\.[0-9]+ of __set_oom_adj[^:]*: bound to the running __already_done\.[0-9]+$' \
	"the create output says the warning's flag is bound"
like "$log" 'static local ksplice_reads\.[0-9]+ of oom_adj_read[^:]*: new, carried \(zero\)$' \
	"  and the new counter is new"
like "$log" 'static local __already_done\.[0-9]+ of oom_adj_read[^:]*: new, carried' \
	"  and the new once flag is new"

out=$(vm --file "$upd" -- '
	show() { echo "$1 warned=$(dmesg | grep -c "oom_adj is deprecated")" \
		"patched=$(dmesg | grep -c "ksplice: patched __set_oom_adj")" \
		"first=$(dmesg | grep -c "ksplice: first read of oom_adj")" \
		"reads=$(dmesg | grep -o "ksplice: oom_adj read [0-9]*" | awk "{ printf \"%s,\", \$4 }")"; }
	echo 0 > /proc/self/oom_adj; echo 0 > /proc/self/oom_adj
	show BEFORE
	ksplice-apply ksplice-oomst.tar.gz; echo "APPLY-STATUS=$?"
	echo 0 > /proc/self/oom_adj; echo 0 > /proc/self/oom_adj
	cat /proc/self/oom_adj >/dev/null; cat /proc/self/oom_adj >/dev/null
	show AFTER
	ksplice-undo oomst; echo "UNDO-STATUS=$?"
	echo 0 > /proc/self/oom_adj; cat /proc/self/oom_adj >/dev/null
	show UNDONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | head -20)"
like "$out" '^BEFORE warned=1 patched=0 first=0 reads=$' "before: the stock kernel warns once about oom_adj"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER .*patched=2 ' "after apply: the patched __set_oom_adj runs"
like "$out" '^AFTER warned=1 ' "  and tests the running once flag: the warning stays quiet"
like "$out" '^AFTER .*first=1 reads=1,2,3,4,$' "  the new counter counts from zero (two reads per cat) and the new once message is logged once"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" '^UNDONE warned=1 patched=2 first=1 reads=1,2,3,4,$' "after undo: the stock functions again, nothing new logged"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
