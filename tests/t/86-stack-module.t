#!/bin/bash
# Updates stacked on one function of a module target (binfmt_misc's
# bm_status_read, which prints /proc/sys/fs/binfmt_misc/status): sm1 makes it
# print "enabled stk=1", sm2, built from the tree with sm1's patch, "enabled
# stk=2".  The target unloaded and reloaded while both stand is patched by
# both as it loads, in order, so sm2's code runs; both applied while the
# target is not loaded, the same; undo is last-in-first-out with the target
# loaded or not (the target not loaded, the order in which they were applied
# says which stands on which).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
P=$KSPLICE_TOP/tests/patches/stack
t1=$(patched_source "$P/m1.patch") &&
m1=$(make_update "$P/m1.patch" sm1) &&
m2=$(make_update "$P/m2.patch" sm2 "$t1")
ok $? "two stacked updates of bm_status_read build"
[ -s "${m1:-}" ] && [ -s "${m2:-}" ] ||
	{ sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }

out=$(vm --module binfmt_misc --file "$m1" --file "$m2" -- '
	d=/proc/sys/fs/binfmt_misc
	load() { modprobe binfmt_misc && mount -t binfmt_misc none $d; }
	unload() { umount $d; rmmod binfmt_misc; }
	st() { s=$(cat $d/status 2>/dev/null); echo "STATE $1: ${s:-unreadable}"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	load; st stock
	run APPLY1 ksplice-apply ksplice-sm1.tar.gz; st one
	run APPLY2 ksplice-apply ksplice-sm2.tar.gz; st two
	unload; load; st reloaded
	run UNDO1 ksplice-undo sm1; st undo1-refused
	unload
	run UNDO1U ksplice-undo sm1
	run UNDO2 ksplice-undo sm2
	load; st two-undone-unloaded
	unload
	run APPLY2B ksplice-apply ksplice-sm2.tar.gz
	load; st loaded-after-both
	run UNDO2C ksplice-undo sm2; st two-undone
	run UNDO1C ksplice-undo sm1; st stock-again
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"

like "$out" 'STATE stock: enabled$' "the stock module prints 'enabled'"
like "$out" 'STATE one: enabled stk=1' "sm1 applies: its code runs"
like "$out" 'STATE two: enabled stk=2' "sm2 applies on top of it: its code runs"
like "$out" 'STATE reloaded: enabled stk=2' "unloaded and reloaded, the target gets sm2's jump"
like "$out" 'UNDO1-STATUS=[1-9]' "undoing sm1 under sm2 is refused"
like "$out" 'UNDO1: .*sm2' "  naming sm2"
like "$out" 'STATE undo1-refused: enabled stk=2' "  and sm2's code still runs"
like "$out" 'UNDO1U-STATUS=[1-9]' "with the target not loaded, undoing sm1 under sm2 is refused too"
like "$out" 'UNDO1U: .*sm2' "  naming sm2"
like "$out" 'UNDO2-STATUS=0' "sm2 undoes with the target not loaded"
like "$out" 'STATE two-undone-unloaded: enabled stk=1' "  and the target loads patched by sm1"
like "$out" 'STATE loaded-after-both: enabled stk=2' "both applied while the target is not loaded: it loads with sm2's code"
like "$out" 'STATE two-undone: enabled stk=1' "undoing sm2 makes sm1's code run again"
like "$out" 'STATE stock-again: enabled$' "undoing sm1 restores the stock code"
unlike "$out" '^DMESG' "no oops or warning"
