#!/bin/bash
# Functions in a loadable module (nfsd, from the Debian nfsd4_sequence fix):
# an update applied while its target is not loaded patches it as it loads,
# before its init runs; unloading the target while patched leaves nothing
# stale and a reload is patched again; undo works with the target loaded or
# not; applying with the target loaded patches it at once; a target that
# cannot be patched as it loads is refused, and the refusal is reported.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 27
# The fix alone, as a plain patch (tests/t/71 makes it with --debian).
trees=$(debian_trees "$KSPLICE_NFSD_UPDATE") || bail "cannot fetch the sources"
old=$(sed -n 1p <<<"$trees") new=$(sed -n 2p <<<"$trees")
diff -u --label a/fs/nfsd/nfs4state.c --label b/fs/nfsd/nfs4state.c \
	"$old/fs/nfsd/nfs4state.c" "$new/fs/nfsd/nfs4state.c" >"$tmp/nfsd.patch"
a=$(make_update "$tmp/nfsd.patch" nfa "$old") &&
b=$(make_update "$tmp/nfsd.patch" nfb "$old")
ok $? "two updates of nfsd4_sequence build"
[ -s "${a:-}" ] && [ -s "${b:-}" ] || { sed 's/^/# /' "$tmp"/create-*.log | tail -20; bail "no update file"; }
like "$(cat "$tmp/create-nfa.log")" 'changed function: nfsd4_sequence \(fs/nfsd/nfs4state.c, nfsd\)' \
	"the function's target is the module nfsd"

# The new code calls sunrpc's exports: the core resolves those calls as nfsd
# loads (and sunrpc with it), so applying loads no module.
out=$(vm --module nfsd --file "$a" --file "$b" -- "$guest_peek"'
	addr() { awk "\$3 == \"nfsd4_sequence\" && \$4 == \"[nfsd]\" { print \"0x\" \$1 }" /proc/kallsyms; }
	fresh() { echo "PEEK $1 nfsd4_sequence $(addr) $nw $(kpeek $(addr) 16)"; }
	ksplice-apply ksplice-nfa.tar.gz >/dev/null 2>/tmp/apply.err; echo "APPLY-ABSENT=$?"
	lsmod | grep -q "^sunrpc " && echo "SUNRPC-LOADED"
	sed "s/^/APPLY-SAYS /" /tmp/apply.err
	peek nfa absent
	modprobe nfsd; echo "LOAD-AFTER=$?"
	peek nfa loaded-after
	echo "KALLSYMS $(addr)"
	dmesg | grep "nfa: patched module nfsd as it loads" | sed "s/^.*\] /LOG /"
	rmmod nfsd; echo "RMMOD=$?"
	peek nfa unloaded
	modprobe nfsd; echo "RELOAD=$?"
	peek nfa reloaded
	nw=$(awk "\$1 == \"nfsd4_sequence\" { print \$3 }" /sys/kernel/ksplice/nfa/functions)
	ksplice-undo nfa >/dev/null; echo "UNDO-LOADED=$?"
	fresh undone
	rmmod nfsd && modprobe nfsd; fresh after-undo
	ksplice-apply ksplice-nfa.tar.gz >/dev/null; echo "APPLY-LOADED=$?"
	peek nfa at-apply
	nw=$(awk "\$1 == \"nfsd4_sequence\" { print \$3 }" /sys/kernel/ksplice/nfa/functions)
	rmmod nfsd; echo "RMMOD-APPLIED=$?"
	ksplice-undo nfa >/dev/null; echo "UNDO-UNLOADED=$?"
	modprobe nfsd; fresh after-undo-unloaded
	rmmod nfsd
	ksplice-apply ksplice-nfa.tar.gz >/dev/null && ksplice-apply ksplice-nfb.tar.gz >/dev/null
	echo "APPLY-BOTH=$?"
	modprobe nfsd 2>/dev/null; echo "LOAD-REFUSED=$?"
	lsmod | grep -q "^nfsd " && echo "NFSD-LOADED-ANYWAY"
	grep -qw nfsd /proc/filesystems && echo "NFSD-INIT-RAN"
	echo "NFB-CAUSE $(cat /sys/kernel/ksplice/nfb/abort_cause): $(cat /sys/kernel/ksplice/nfb/abort_detail)"
	peek nfa refused
	dmesg | grep "refusing to load" | sed "s/^.*\] /REFUSAL /"
	ksplice-undo nfb >/dev/null && modprobe nfsd; echo "LOAD-AFTER-UNDO-B=$?"
	peek nfa without-b
	ksplice-undo nfa >/dev/null; echo "UNDO-LAST=$?"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -40)"

like "$out" 'APPLY-ABSENT=0' "the update applies while its target module is not loaded"
unlike "$out" 'SUNRPC-LOADED' "  without loading sunrpc, whose exports the new code calls"
unlike "$out" 'APPLY-SAYS +loading module' "  (ksplice-apply loads no module)"
like "$out" 'PEEK absent nfsd4_sequence 0x0 ' "  and its function has no address until the module loads"
like "$out" 'LOAD-AFTER=0' "the target module then loads"
ka=$(sed -n 's/^KALLSYMS //p' <<<"$out")
like "$out" "PEEK loaded-after nfsd4_sequence ${ka:-none} " "  and its function is matched at the module's nfsd4_sequence"
check_jumps loaded-after "$out"; ok $? "  and jumps into the update"
like "$out" '^LOG ksplice: nfa: patched module nfsd as it loads' "  as it loaded (before its init: see the refusal below)"
like "$out" 'RMMOD=0' "the patched target unloads (the update holds no reference on it)"
like "$out" 'PEEK unloaded nfsd4_sequence 0x0 ' "  and its addresses are forgotten"
like "$out" 'RELOAD=0' "the target reloads"
check_jumps reloaded "$out"; ok $? "  and is patched again as it loads"
like "$out" 'UNDO-LOADED=0' "undo with the target loaded"
check_unpatched undone "$out" && check_unpatched after-undo "$out"
ok $? "  restores its code, and a reload after undo is not patched"
like "$out" 'APPLY-LOADED=0' "apply with the target loaded"
check_jumps at-apply "$out"; ok $? "  patches it at once"
like "$out" 'RMMOD-APPLIED=0.*' "undo with the target unloaded:"
like "$out" 'UNDO-UNLOADED=0' "  succeeds"
check_unpatched after-undo-unloaded "$out"; ok $? "  and the target loads unpatched after it"
like "$out" 'LOAD-REFUSED=[1-9]' "a target that cannot be patched as it loads (a second update of the same function) is refused"
unlike "$out" 'NFSD-LOADED-ANYWAY|NFSD-INIT-RAN' "  before its init ran (it registered no nfsd filesystem)"
like "$out" 'NFB-CAUSE (no_match|already_applied): .*nfsd4_sequence' "  the update that could not patch it says why"
check_jumps without-b "$out"; ok $? "  and without that update the target loads, patched by the first"
unlike "$out" '^DMESG' "no oops or warning"
