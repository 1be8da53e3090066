#!/bin/bash
# The preprocessing filter at scale (make check-slow: it preprocesses
# thousands of units).  A patch adds a bit to the enum of
# include/linux/trace_recursion.h, which some 5,700 units of Debian's
# configuration include, and tests it in kernel/trace/trace.c's
# tracing_mark_write.  Compiling every includer (twice) would take hours;
# ksplice-create preprocesses them, compiles the few whose code can see
# the enum's change, and the update is tracing_mark_write.  In the guest,
# writes to trace_marker still reach the trace buffer with the update
# applied, and after undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 13
t0=$(date +%s)
upd=$(make_update "$KSPLICE_TOP/tests/patches/trace-recursion.patch" trrec)
ok $? "an update builds from a new bit in trace_recursion.h used in trace.c"
t1=$(date +%s)
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-trrec.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-trrec.log")
diag "$(grep -E 'include what|preprocessed [0-9]+ units|compiling' <<<"$log")"
diag "ksplice-create took $((t1 - t0)) s on $(nproc) cpus"
n=$(sed -n 's/^  \([0-9]*\) of the configuration.s units include what the patch changes$/\1/p' <<<"$log")
ok $(( ${n:-0} < 5000 )) "thousands of units include trace_recursion.h (${n:-none})"
k=$(sed -n 's/^  preprocessed [0-9]* units before and after the patch in [0-9.]* s: \([0-9]*\) can compile differently$/\1/p' <<<"$log")
ok $(( ${k:-1000} > 50 )) "  preprocessed, only a few can compile differently (${k:-none})"
like "$log" '  compiling [0-9]+ units \(post\)|compiling kernel/trace/trace.o \(post\)' "  and only those and trace.o are compiled"
like "$log" 'changed function: tracing_mark_write \(kernel/trace/trace.c, vmlinux\)' \
	"tracing_mark_write is the changed function"
is "$(grep -c 'changed function' <<<"$log")" 1 "  and the only one"

out=$(vm --file "$upd" -- "$guest_peek"'
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	m=/sys/kernel/tracing/trace_marker
	ksplice-apply ksplice-trrec.tar.gz >/dev/null; echo "APPLY=$?"
	peek trrec applied
	echo applied-marker >$m; echo "WRITE=$?"
	grep -c applied-marker /sys/kernel/tracing/trace | sed "s/^/TRACED /"
	ksplice-undo trrec >/dev/null; echo "UNDO=$?"
	echo undone-marker >$m
	grep -c undone-marker /sys/kernel/tracing/trace | sed "s/^/UNDONE /"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
like "$out" 'APPLY=0' "the update applies"
check_jumps applied "$out"; ok $? "  tracing_mark_write jumps to its new code"
like "$out" 'TRACED 1' "  a write to trace_marker, through the new code, is traced"
like "$out" 'UNDO=0' "undo"
like "$out" 'UNDONE 1' "  and trace_marker still works through the old code"
unlike "$out" 'DMESG:' "  no oops or warning in the kernel log"
