#!/bin/bash
# ksplice next to the kernel's other code patchers, on one function
# (cmdline_proc_show, examples/cmdline.patch), in one guest boot.  Each
# pairing ends with both working -- the probe or trace fires and
# /proc/cmdline shows the new code -- or with the later one refused with a
# clear message and nothing changed:
#  (a) a kprobe at the entry of the patched function, then an ftrace
#      function filter on it (both go through the ftrace call at the entry,
#      before ksplice's jmp after it).  A kprobe by name is refused by the
#      kernel (6.1.y refuses a name kallsyms has twice: the update module
#      holds the new cmdline_proc_show), saying "not unique" in error_log;
#      by the old function's address it is set and fires;
#  (b) the reverse: ksplice applied over a kprobe, then over an ftrace
#      filter, already set;
#  (c) a kprobe inside the bytes ksplice's jmp overwrites (+5, right after
#      the ftrace call): its int3 is not the code the update was built
#      against, so apply must refuse, and the probe must still fire.  The
#      refusal says a kprobe is set there, naming the function, the
#      offset and the bytes found (the optimized probe's jmp, or its int3).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 38
cl=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" cmdline)
ok $? "the cmdline update builds"

out=$(vm --smp 2 --file "$cl" -- '
	T=/sys/kernel/tracing
	[ -e $T/trace ] || mount -t tracefs nodev $T
	[ -e $T/trace ] || echo NO-TRACEFS
	fn=cmdline_proc_show
	cmd=$(cat /proc/cmdline)
	new() { [ "$(cat /proc/cmdline)" = "$cmd ksplice=applied" ] && echo "$1-NEW"; }
	old() { [ "$(cat /proc/cmdline)" = "$cmd" ] && echo "$1-OLD"; }
	probe() { # NAME WHERE
		echo "p:$1 $2" >>$T/kprobe_events && echo 1 >$T/events/kprobes/$1/enable
	}
	unprobe() { echo 0 >$T/events/kprobes/$1/enable; echo "-:$1" >>$T/kprobe_events; }
	hits() { # NAME: hits of probe NAME since the last clear
		grep -c " $1: " $T/trace
	}
	filter() { echo $fn >$T/set_ftrace_filter && echo function >$T/current_tracer; }
	unfilter() { echo nop >$T/current_tracer; : >$T/set_ftrace_filter; }
	traced() { grep -c " $fn <-" $T/trace; }

	# (a) ksplice first
	ksplice-apply ksplice-cmdline.tar.gz >/tmp/a 2>&1; echo "A-APPLY=$?"
	: >$T/trace
	# By name: the update module holds a second cmdline_proc_show (the
	# new code), and a kernel with the stable fix for ambiguous kprobe
	# symbols refuses the name, saying so in error_log.  By the old
	# code'"'"'s address (sysfs functions file) it is not ambiguous.
	probe kn $fn 2>/dev/null; echo "A-PROBE-NAME=$?"
	tail -n 3 $T/error_log | sed "s/^/A-ERROR-LOG: /"
	[ -e $T/events/kprobes/kn ] && unprobe kn
	read -r name oldaddr newaddr </sys/kernel/ksplice/cmdline/functions
	probe ka $oldaddr; echo "A-PROBE=$?"
	new A-KPROBE; echo "A-KPROBE-HITS=$(hits ka)"
	unprobe ka
	: >$T/trace
	filter; echo "A-FILTER=$?"
	new A-FTRACE; echo "A-FTRACE-HITS=$(traced)"
	unfilter
	ksplice-undo cmdline >/dev/null 2>&1; echo "A-UNDO=$?"
	old A-UNDONE

	# (b) the probe, then the trace filter, first
	: >$T/trace
	probe kb $fn; echo "B-PROBE=$?"
	ksplice-apply ksplice-cmdline.tar.gz >/tmp/b 2>&1; echo "B-APPLY=$?"
	sed "s/^/B-APPLY: /" /tmp/b
	new B-KPROBE; echo "B-KPROBE-HITS=$(hits kb)"
	ksplice-undo cmdline >/dev/null 2>&1; echo "B-UNDO=$?"
	: >$T/trace; old B-UNDONE; echo "B-KPROBE-HITS-AFTER-UNDO=$(hits kb)"
	unprobe kb
	filter; echo "B-FILTER=$?"
	ksplice-apply ksplice-cmdline.tar.gz >/tmp/b2 2>&1; echo "B-APPLY2=$?"
	sed "s/^/B-APPLY2: /" /tmp/b2
	: >$T/trace
	new B-FTRACE; echo "B-FTRACE-HITS=$(traced)"
	unfilter
	ksplice-undo cmdline >/dev/null 2>&1; echo "B-UNDO2=$?"
	old B-UNDONE2

	# (c) a probe where the jmp goes
	probe kc $fn+5; echo "C-PROBE=$?"
	ksplice-apply ksplice-cmdline.tar.gz >/tmp/c 2>&1; echo "C-APPLY=$?"
	sed "s/^/C-APPLY: /" /tmp/c
	dmesg | grep -q "cmdline: probed: cmdline_proc_show+0x5: a kprobe" && echo "C-CAUSE=probed"
	: >$T/trace
	old C-UNCHANGED; echo "C-KPROBE-HITS=$(hits kc)"
	[ -e /sys/kernel/ksplice/cmdline ] && echo C-LEFT
	unprobe kc
	ksplice-apply ksplice-cmdline.tar.gz >/dev/null 2>&1; echo "C-APPLY-UNPROBED=$?"
	new C
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
unlike "$out" 'NO-TRACEFS' "tracefs is mounted"
like "$out" '^A-APPLY=0$' "(a) the update applies"
like "$out" '^A-PROBE-NAME=0$|^A-ERROR-LOG: .*not unique' "(a) a kprobe by the patched function's name is set, or refused as not unique, saying so"
like "$out" '^A-PROBE=0$' "(a) a kprobe at the patched function's address is set"
like "$out" '^A-KPROBE-NEW$' "(a) /proc/cmdline shows the new code under the kprobe"
like "$out" '^A-KPROBE-HITS=[1-9]' "(a) and the kprobe fires"
like "$out" '^A-FILTER=0$' "(a) an ftrace filter on the patched function is set"
like "$out" '^A-FTRACE-NEW$' "(a) /proc/cmdline shows the new code under the tracer"
like "$out" '^A-FTRACE-HITS=[1-9]' "(a) and the function is traced"
like "$out" '^A-UNDO=0$' "(a) the update undoes with neither left behind"
like "$out" '^A-UNDONE-OLD$' "(a) /proc/cmdline is the stock one again"
like "$out" '^B-PROBE=0$' "(b) a kprobe at the entry is set first"
like "$out" '^B-APPLY=0$' "(b) the update applies over it"
like "$out" '^B-KPROBE-NEW$' "(b) the new code runs"
like "$out" '^B-KPROBE-HITS=[1-9]' "(b) and the kprobe still fires"
like "$out" '^B-UNDO=0$' "(b) the update undoes under the kprobe"
like "$out" '^B-UNDONE-OLD$' "(b) /proc/cmdline is the stock one again"
like "$out" '^B-KPROBE-HITS-AFTER-UNDO=[1-9]' "(b) and the kprobe still fires on the old code"
like "$out" '^B-FILTER=0$' "(b) an ftrace filter is set first"
like "$out" '^B-APPLY2=0$' "(b) the update applies over it"
like "$out" '^B-FTRACE-NEW$' "(b) the new code runs"
like "$out" '^B-FTRACE-HITS=[1-9]' "(b) and the function is still traced"
like "$out" '^B-UNDO2=0$' "(b) the update undoes under the tracer"
like "$out" '^B-UNDONE2-OLD$' "(b) /proc/cmdline is the stock one again"
like "$out" '^C-PROBE=0$' "(c) a kprobe inside the bytes the jmp would take is set"
like "$out" '^C-APPLY=[1-9]' "(c) the update is refused"
like "$out" '^C-APPLY: .*could not apply update cmdline: a kprobe is set in the code being replaced$' "(c) with a message saying a kprobe is in the way"
like "$out" '^C-APPLY: .*cmdline_proc_show\+0x5: a kprobe is set at cmdline_proc_show\+0x5/0x[0-9a-f]+ \(running (e9|cc) ' "(c) naming the function, the offset, the probe and its bytes"
like "$out" '^C-APPLY: .*remove the kprobe .*kprobe_events\) and retry' "(c) and saying how to go on"
like "$out" '^C-CAUSE=probed$' "(c) the core's abort cause is probed (kernel log)"
like "$out" '^C-UNCHANGED-OLD$' "(c) /proc/cmdline is unchanged"
like "$out" '^C-KPROBE-HITS=[1-9]' "(c) and the kprobe still fires"
unlike "$out" '^C-LEFT' "(c) no update is left loaded"
like "$out" '^C-APPLY-UNPROBED=0$' "(c) with the kprobe gone the update applies"
like "$out" '^C-NEW$' "(c) and the new code runs"
unlike "$out" '^DMESG' "no oops or warning"
