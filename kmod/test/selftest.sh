#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The core's self-test, run as root in a test guest (tests/vm/run) with
# ksplice.ko, ksplice_target.ko and selftest_update.ko in the cwd.
# Prints one line per check; exits non-zero if any failed.

fails=0
ok() { echo "ok   $*"; }
nok() { echo "FAIL $*"; fails=$((fails + 1)); }
check() {	# DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: want '$2', got '$3'"; fi
}
u=/sys/kernel/ksplice/selftest
old="41 61 60" new="140 62 63"
value() { cat /proc/ksplice_target; }

v=/sys/devices/system/cpu/vulnerabilities
for f in spectre_v2 retbleed spec_rstack_overflow indirect_target_selection; do
	[ -e $v/$f ] && echo "     $f: $(cat $v/$f)"
done
# Boot's own notices ("RETBleed: WARNING: Spectre v2 mitigation leaves
# CPU vulnerable") are not the test's: only what follows counts.
boot=$(dmesg | wc -l)
insmod ksplice.ko || { nok "insmod ksplice.ko"; exit 1; }
check "core creates /sys/kernel/ksplice" yes "$([ -d /sys/kernel/ksplice ] && echo yes)"
insmod ksplice_target.ko
check "target runs old code" "$old" "$(value)"

# Registration must refuse broken updates, each for its own reason (a
# glob of the core's "rejected update: WHY" message).
reject_why() {
	case $1 in
	1) echo "abi 99, core speaks *" ;;
	2|12) echo "bad id" ;;
	3) echo "built for another kernel release" ;;
	4) echo "bad function array" ;;
	5) echo "ksplice_test_target: reloc at +0x* outside the code" ;;
	6) echo "ksplice_test_target: reloc at +0x*: unsupported type 999" ;;
	7) echo "function 0: bad name" ;;
	8) echo "ksplice_test_target: new code not in the update's text" ;;
	9) echo "ksplice_test_target: site at +0x*: unknown kind 99" ;;
	10|17) echo "ksplice_test_target: bad pre code" ;;
	11) echo "ksplice_test_target: reloc at +0x*: bad symbol name" ;;
	13) echo "ksplice_test_target: bad reloc array" ;;
	14) echo "ksplice_test_target: site kind 1 at +0x*: unexpected pre code" ;;
	15) echo "ksplice_test_target: anonymous reloc at +0x* expects nothing" ;;
	16) echo "update not in its module" ;;
	18) echo "ksplice_test_ops: reloc at +0x9 outside the variable" ;;
	19) echo "ksplice_test_ops: reloc at +0x0: unsupported type 2" ;;
	20) echo "ksplice_test_ops: relocs overlap or are unsorted at +0x4" ;;
	21) echo "ksplice_test_ops: bad images" ;;
	22) echo "*: a cumulative update patching data in place is not supported" ;;
	23) echo "ksplice_test_ops: unknown flags 0x80" ;;
	24|25) echo "ksplice_test_ops: bad callback fields" ;;
	26) echo "ksplice_test_ops: anchors without callback fields" ;;
	27|28) echo "ksplice_test_ops: bad anchors" ;;
	29) echo "ksplice_test_target: reloc at +0x*: unknown flags 0x1" ;;
	esac
}
for bad in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29; do
	n=$(dmesg | wc -l)	# only this insmod's message counts
	if insmod selftest_update.ko bad=$bad 2>/dev/null; then
		nok "bad=$bad registered"
		rmmod selftest_update
		continue
	fi
	why=$(dmesg | tail -n +$((n + 1)) | grep 'rejected update' | tail -n 1 |
		sed 's/.*rejected update: //')
	want=$(reject_why $bad)
	case $why in
	$want) ok "bad=$bad rejected: $why" ;;
	*) nok "bad=$bad rejected for the wrong reason: want '$want', got '$why'" ;;
	esac
done
check "no update left in sysfs" "" "$(ls /sys/kernel/ksplice)"

# Broken updates that register but must not apply: the abort cause, and
# a glob of the detail that says where and why.
apply_detail() {
	case $1 in
	100) echo "ksplice_test_target+0x*: running *, expected *" ;;
	101) echo "ksplice_test_target+0x*: refers to * not to ksplice_test_op*" ;;
	102) echo "ksplice_test_target+0x*: data at * differs from the pre object's" ;;
	103) echo "ksplice_no_such_function: no such symbol in ksplice_target" ;;
	104) echo "ksplice_test_target+0x*: symbol ksplice_no_such_symbol is not found" ;;
	106) echo "retpoline site at ksplice_test_target+0x*: running *, pre *" ;;
	107) echo "ksplice_test_target: all * candidates taken by other functions of the update" ;;
	109) echo "jump label target site at ksplice_test_jl+0x*: running *, pre *" ;;
	110) echo "ksplice_test_target (*): it cannot be patched live: it is the ksplice core, *" ;;
	111) echo "ksplice_test_target (kernel/stop_machine.c): it cannot be patched live: stop_machine() holds every CPU *" ;;
	112) echo "ksplice_test_jl_nt: jump label where the jump goes, and no ftrace site: the kernel rewrites a loading module's jump labels even when pinned, so module ksplice_target's cannot be" ;;
	113) echo "ksplice_no_such_table (ksplice_target): not found" ;;
	114) echo "ksplice_test_ops (ksplice_target): no variable of that name holds the pre image (1 of that name)" ;;
	115) echo "ksplice_test_counter (ksplice_target): not in read-only data: it cannot be patched in place" ;;
	116) echo "ksplice_test_ops (ksplice_target): not in writable data: it cannot be patched in place" ;;
	117) echo "ksplice_test_nmi_res+0x0: ksplice_test_counter is not a function: not a callback" ;;
	esac
}
for case in 100:no_match 101:no_match 102:no_match 103:failed_to_find \
	    104:failed_to_find 106:no_match 107:bad_update 109:no_match \
	    110:unpatchable 111:unpatchable 112:unpatchable \
	    113:failed_to_find 114:no_match 115:unpatchable 116:unpatchable 117:no_match; do
	bad=${case%%:*} want=${case#*:}
	insmod selftest_update.ko bad=$bad || { nok "bad=$bad insmod"; continue; }
	if echo applied >$u/stage 2>/dev/null; then
		nok "bad=$bad applied"
		echo reversed >$u/stage
	else
		detail=$(cat $u/abort_detail)
		check "bad=$bad: $detail" "$want" "$(cat $u/abort_cause)"
		wantd=$(apply_detail $bad)
		case $detail in
		$wantd) ok "bad=$bad: the detail says why" ;;
		*) nok "bad=$bad: the detail: want '$wantd', got '$detail'" ;;
		esac
	fi
	check "bad=$bad stays loaded" loaded "$(cat $u/stage)"
	check "bad=$bad: old code still runs" "$old" "$(value)"
	rmmod selftest_update
done

# No room for the jump (a static call right after the ftrace site of
# ksplice_test_wrapper, which replaces ksplice_test_tail here): ftrace
# redirects that function, switched on with the others' jumps.
t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs none $t 2>/dev/null
insmod selftest_update.ko bad=108 || nok "bad=108 insmod"
echo applied >$u/stage && ok "bad=108 (no room for the jump) applies" ||
	nok "bad=108 applies: $(cat $u/abort_detail)"
check "bad=108: ftrace redirects ksplice_test_wrapper" yes \
	"$(grep -q '^ksplice_test_wrapper .*I' $t/enabled_functions && echo yes)"
check "bad=108: the other functions run new code, the tail old" "140 62 60" "$(value)"
rmmod ksplice_target && ok "bad=108: the target can go" || nok "bad=108: rmmod ksplice_target"
check "bad=108: its redirection went with it" no \
	"$(grep -q '^ksplice_test_wrapper' $t/enabled_functions && echo yes || echo no)"
insmod ksplice_target.ko || nok "bad=108: insmod ksplice_target.ko again"
check "bad=108: the target is redirected again as it loads" yes \
	"$(grep -q '^ksplice_test_wrapper .*I' $t/enabled_functions && echo yes)"
check "bad=108: and runs the new code" "140 62 60" "$(value)"
echo reversed >$u/stage
check "bad=108: no redirection after undo" no \
	"$(grep -q '^ksplice_test_wrapper' $t/enabled_functions && echo yes || echo no)"
check "bad=108: old code runs again" "$old" "$(value)"
rmmod selftest_update

# A function of a module that is not loaded waits for it: the rest applies.
insmod selftest_update.ko bad=105 || nok "bad=105 insmod"
echo applied >$u/stage && ok "bad=105 (a target not loaded) applies" ||
	nok "bad=105 applies: $(cat $u/abort_detail)"
check "bad=105: its function has no address yet" 0x0 "$(awk '$2 == "0x0" { print $2 }' $u/functions)"
echo reversed >$u/stage
rmmod selftest_update

# The good update.
insmod selftest_update.ko || nok "insmod selftest_update.ko"
check "stage after load" loaded "$(cat $u/stage)"
check "abort_cause after load" none "$(cat $u/abort_cause)"
echo applied >$u/stage && ok "apply" || nok "apply: $(cat $u/abort_cause): $(cat $u/abort_detail)"
check "stage after apply" applied "$(cat $u/stage)"
check "new code runs" "$new" "$(value)"
echo "     functions:"; sed 's/^/       /' $u/functions
echo "     pause_ns: $(cat $u/pause_ns)"
rmmod selftest_update 2>/dev/null && nok "rmmod of an applied update" || ok "applied update cannot be removed"
# The core holds no reference on a target module: it may go, and comes back patched.
rmmod ksplice_target && ok "patched target can be removed" || nok "rmmod of a patched target"
check "its functions are forgotten" 0x0 "$(awk '{ print $2 }' $u/functions | sort -u)"
insmod ksplice_target.ko || nok "insmod ksplice_target.ko again"
check "re-inserted target is patched as it loads" "$new" "$(value)"
echo applied >$u/stage 2>/dev/null && nok "second apply" || check "second apply refused" already_applied "$(cat $u/abort_cause)"

# ftrace keeps working on a patched function.
if [ -d $t ]; then
	echo ksplice_test_target >$t/set_ftrace_filter
	echo function >$t/current_tracer
	check "traced patched function runs new code" "$new" "$(value)"
	check "tracer sees the old entry" yes "$(grep -q ksplice_test_target $t/trace && echo yes)"
fi

# Undo blocked by a task sleeping in the new code.
echo 2 >$u/max_tries
echo 100 >$u/retry_interval_ms
echo "sleep 4000" >/proc/ksplice_target &
sleep 1
echo reversed >$u/stage 2>/dev/null && nok "undo with a task in new code" ||
	check "undo blocked: $(cat $u/abort_detail)" code_busy "$(cat $u/abort_cause)"
echo "     conflicts: $(cat $u/conflicts)"
check "conflict names the function" yes "$(grep -q ' ksplice_test_sleeper$' $u/conflicts && echo yes)"
wait
echo reversed >$u/stage && ok "undo" || nok "undo: $(cat $u/abort_cause): $(cat $u/abort_detail)"
check "stage after undo" reversed "$(cat $u/stage)"
check "old code runs again (traced)" "$old" "$(value)"

# Apply blocked by a task sleeping in the old code; works once it left.
echo "sleep 4000" >/proc/ksplice_target &
sleep 1
echo applied >$u/stage 2>/dev/null && nok "apply with a task in old code" ||
	check "apply blocked: $(cat $u/abort_detail)" code_busy "$(cat $u/abort_cause)"
wait
echo applied >$u/stage && ok "re-apply (traced)" || nok "re-apply: $(cat $u/abort_cause): $(cat $u/abort_detail)"
check "new code runs after re-apply" "$new" "$(value)"
[ -d $t ] && echo nop >$t/current_tracer
echo reversed >$u/stage && ok "undo again" || nok "undo again"
echo reversed >$u/stage 2>/dev/null && nok "second undo" || check "second undo refused" not_applied "$(cat $u/abort_cause)"
check "old code runs" "$old" "$(value)"

# Static calls pointed elsewhere (and the NULL one at a function): the
# sites are calls to other functions now, which matching must accept.
echo "sc 1" >/proc/ksplice_target
check "retargeted static calls" "41 41 40" "$(value)"
echo applied >$u/stage && ok "apply with retargeted static calls" ||
	nok "apply with retargeted static calls: $(cat $u/abort_detail)"
check "new code with retargeted static calls" "140 42 42" "$(value)"
echo "sc 0" >/proc/ksplice_target
check "static calls back, new code" "$new" "$(value)"
echo reversed >$u/stage && ok "undo" || nok "undo: $(cat $u/abort_detail)"
check "old code runs" "$old" "$(value)"

# The jump's bytes (kpeek: the rig's tool): apply writes it after the
# entry's ftrace site, and on an IBT kernel (6.12) after the endbr64 before
# it too (or the nop the loader turned it into), so that indirect calls
# still land on one; undo restores every byte.
before=$(kpeek ksplice_test_target 16)
case $before in f30f1efa*|660f1f00*) keep=18 ;; *) keep=10 ;; esac
echo applied >$u/stage || nok "apply for the byte check: $(cat $u/abort_detail)"
during=$(kpeek ksplice_test_target 16)
echo reversed >$u/stage || nok "undo for the byte check: $(cat $u/abort_detail)"
after=$(kpeek ksplice_test_target 16)
echo "     entry: before $before, applied $during"
check "apply kept the entry's first $((keep / 2)) bytes (endbr64, ftrace site)" \
	"${before:0:$keep}" "${during:0:$keep}"
check "... and wrote a jmp right after them" e9 "$(echo "${during:$keep:2}")"
check "undo restored every byte" "$before" "$after"
check "old code runs after the byte check" "$old" "$(value)"

rmmod selftest_update && ok "reversed update can be removed" || nok "rmmod selftest_update"
# A callback field patched in place to a function only the update has
# (cb=1).  A task that read the field before the undo took it back calls it
# after: the update's module stays until no such task can be in it
# (kmod/drain.c), within the undo's retries or else after it.
hold() { echo "hold $1" >/proc/ksplice_target 2>/dev/null; }
go() { sleep "$1"; echo go >/proc/ksplice_target; }
hold 0 & go 0.3; wait $!
check "cb: stock, a task finds the callback NULL" 1 "$?"
insmod selftest_update.ko cb=1 || nok "insmod selftest_update.ko cb=1"
echo applied >$u/stage && ok "cb: applies" || nok "cb: apply: $(cat $u/abort_detail)"
hold 0 & go 0.3; wait $!
check "cb: applied, the task calls the update's function" 0 "$?"
drain() {	# TRIES MS: undo while a task holds the callback it read
	echo "$1" >$u/max_tries
	echo 1000 >$u/retry_interval_ms
	rm -f /tmp/undo-rc /tmp/hold-rc
	(hold $2; echo $? >/tmp/hold-rc) & hp=$!
	sleep 0.5
	(echo reversed >$u/stage; echo $? >/tmp/undo-rc) & up=$!
	sleep 2
	check "cb: undo waits for the task ($1 tries)" absent \
		"$([ -e /tmp/undo-rc ] && echo present || echo absent)"
	rmmod selftest_update 2>/dev/null && nok "cb: module removed under the task" ||
		ok "cb: its module cannot be removed meanwhile ($1 tries)"
	go 0
	wait $up
	task_at_end=$([ -e /tmp/hold-rc ] && echo out || echo in)
	check "cb: undo done ($1 tries)" 0 "$(cat /tmp/undo-rc)"
	check "cb: stage after undo ($1 tries)" reversed "$(cat $u/stage)"
}
drain 5 2500
check "cb: the undo ended once the task had left the update's function" out "$task_at_end"
wait $hp
check "cb: the task called what it read" 0 "$(cat /tmp/hold-rc)"
hold 0 & go 0.3; wait $!
check "cb: undone, the task finds the callback NULL again" 1 "$?"
echo applied >$u/stage && ok "cb: applies again" || nok "cb: apply again: $(cat $u/abort_detail)"
drain 1 4000
check "cb: with one try, the undo ended with the task in the function" in "$task_at_end"
check "cb: saying the module stays" yes \
	"$(dmesg | grep -q 'selftest: undone, but tasks are in its code (1, ' && echo yes)"
rmmod selftest_update 2>/dev/null && nok "cb: module removed with the task in it" ||
	ok "cb: its module stays after the undo while the task is in it"
wait $hp
check "cb: the task called what it read, in the module" 0 "$(cat /tmp/hold-rc)"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	dmesg | grep -q 'selftest: no task is in its code any more' && break
	sleep 1
done
check "cb: then the core lets it go" yes \
	"$(dmesg | grep -q 'selftest: no task is in its code any more' && echo yes)"
rmmod selftest_update && ok "cb: then its module can be removed" || nok "cb: rmmod selftest_update"
# cb=2: a name the target has (its static ksplice_test_double) and
# another unit of the update adds as a global: the field is the target's.
le64() { h=$1 o=; while [ -n "$h" ]; do o=${h:0:2}$o; h=${h:2}; done; echo "$o"; }
tsym() { awk -v s="$1" '$3 == s && $4 == "[ksplice_target]" { print $1 }' /proc/kallsyms; }
insmod selftest_update.ko cb=2 || nok "insmod selftest_update.ko cb=2"
echo applied >$u/stage && ok "cb=2: applies" || nok "cb=2: apply: $(cat $u/abort_detail)"
check "cb=2: the field is the target's function of that name, not the update's" \
	"$(tsym ksplice_test_double)" "$(le64 "$(kpeek 0x$(tsym ksplice_test_cb) 8)")"
echo reversed >$u/stage && ok "cb=2: undone" || nok "cb=2: undo: $(cat $u/abort_detail)"
check "cb=2: the field is NULL again" 0000000000000000 "$(kpeek 0x$(tsym ksplice_test_cb) 8)"
rmmod selftest_update || nok "cb=2: rmmod selftest_update"
# cb=3: the variable does not hold an anchor (its op is not what the
# update was built for): refused, naming the anchor, nothing written.
insmod selftest_update.ko cb=3 || nok "insmod selftest_update.ko cb=3"
echo applied >$u/stage 2>/dev/null && nok "cb=3: applied with a wrong anchor" ||
	ok "cb=3: a wrong anchor is refused"
check "cb=3: the reason names it" yes \
	"$(grep -q 'ksplice_test_cb (ksplice_target): its field at +0x10 does not hold ksplice_test_cb_new' $u/abort_detail && echo yes)"
check "cb=3: the field is left NULL" 0000000000000000 "$(kpeek 0x$(tsym ksplice_test_cb) 8)"
rmmod selftest_update || nok "cb=3: rmmod selftest_update"
rmmod ksplice_target && ok "target can be removed" || nok "rmmod ksplice_target"
rmmod ksplice && ok "core can be removed" || nok "rmmod ksplice"
dmesg | tail -n +$((boot + 1)) | grep -E 'WARNING|BUG|Oops|ksplice: (selftest: (applied|reversed))' | sed 's/^/     /'
echo "$fails failures"
[ "$fails" = 0 ]
