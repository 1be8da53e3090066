#!/bin/bash
# The preprocessing filter.  A patch adds a static inline to
# include/linux/utsname.h and calls it in kernel/sys.c's newuname: a few
# hundred units include utsname.h, so the new function is in the
# preprocessed text of each; ksplice-create preprocesses them before and
# after the patch, finds that none of them but sys.c (compiled anyway: its
# source changed) can compile differently, and compiles only sys.c.  In
# the guest, uname -v ends in " +ksplice" once the update is applied, and
# no longer after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 15
t0=$(date +%s)
upd=$(make_update "$KSPLICE_TOP/tests/patches/utsname-mark.patch" uts)
ok $? "an update builds from a new static inline in utsname.h and its use in kernel/sys.c"
t1=$(date +%s)
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-uts.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-uts.log")
diag "$(grep -E 'include what|preprocessed|compiling' <<<"$log")"
diag "ksplice-create took $((t1 - t0)) s"
n=$(sed -n 's/^  \([0-9]*\) of the configuration.s units include what the patch changes$/\1/p' <<<"$log")
ok $(( ${n:-0} < 200 || ${n:-0} > 1000 )) "the include graph finds the few hundred units including utsname.h (${n:-none})"
like "$log" "  preprocessed $(( ${n:-0} - 1 )) units before and after the patch in [0-9.]+ s: " \
	"  all but sys.c (compiled anyway: its source changed) are preprocessed"
unlike "$log" '^  [^ ]+\.o: .*(changed|moved)' \
	"  none can compile differently (one that does not preprocess, wanting a header Kbuild makes while building, is compiled)"
is "$(grep -c '^  compiling' <<<"$log")" 2 "  so only those are compiled, before and after"
like "$log" 'changed function: __do_sys_newuname \(kernel/sys.c, vmlinux\)' \
	"newuname changed"
is "$(grep -c 'changed function' <<<"$log")" 1 "  and nothing else"

out=$(vm --file "$upd" -- "$guest_peek"'
	echo "BEFORE $(uname -v)"
	ksplice-apply ksplice-uts.tar.gz >/dev/null; echo "APPLY=$?"
	peek uts applied
	echo "APPLIED $(uname -v)"
	ksplice-undo uts >/dev/null; echo "UNDO=$?"
	echo "UNDONE $(uname -v)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
unlike "$(grep '^BEFORE' <<<"$out")" '\+ksplice' "before: uname -v is the stock version"
like "$out" 'APPLY=0' "the update applies"
check_jumps applied "$out"; ok $? "  its changed functions jump to their new code"
like "$out" 'APPLIED .* \+ksplice$' "  and uname -v now ends in +ksplice"
like "$out" 'UNDO=0' "undo"
unlike "$(grep '^UNDONE' <<<"$out")" '\+ksplice' "  and uname -v is the stock version again"
unlike "$out" 'DMESG:' "  no oops or warning in the kernel log"
