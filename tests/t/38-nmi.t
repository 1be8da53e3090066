#!/bin/bash
# NMIs during the write of the jump (issue 13).  stop_machine() does not
# stop NMI handlers, so a function an NMI handler runs may be executed
# while its jump is being written.  The rig injects NMIs (tests/vm/run
# --nmi; they reach CPU 0; TCG has no PMU, so no perf event raises any);
# the self-test target's NMI handler calls ksplice_test_nmi() 256 times per
# NMI, tallies what it returned -- the old code's value, the new code's,
# or neither (a torn jump would run garbage: a crash, or neither) -- and
# sends the next NMI to the other CPU, so that NMIs run on both CPUs all
# along, inside every stop_machine too.  The
# one-function update kmod/test builds for it is applied and undone
# KSPLICE_NMI_CYCLES times (100).  The core writes an int3 first
# (kmod/arch_x86_poke.c): its dmesg line counts the CPUs that met one and
# were sent on to the new code, which must happen here.
# KSPLICE_SELFTEST_KERNEL=ABI runs it on another kernel of the table, as
# test 50 (make check-612 does, on each 6.12 flavour).  (Under TCG a
# plain five-byte write is not seen torn -- a translation block's stores
# are not interrupted -- so what this proves is that NMIs arrive in the
# middle of the int3 protocol and come out of it right; on hardware the
# torn write is the real hazard.)
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/selftest.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cycles=${KSPLICE_NMI_CYCLES:-100}
hz=${KSPLICE_NMI_HZ:-500}

plan 16
selftest_build
st=$?
t=$self/kmod/test
ok $st "kmod/test/build.sh builds the core, the target and the NMI test's update for $abi"
[ $st = 0 ] || { diag "$(tail -n 30 "$tmp/build.log")"; echo "1..$_tap_n"; exit 1; }

out=$(vm --kernel "$abi" --smp 2 --nmi "$hz" --timeout 900 --file "$self/kmod/ksplice.ko" \
	--file "$t/target/ksplice_target.ko" --file "$t/update/nmi_update.ko" -- '
	u=/sys/kernel/ksplice/nmi
	tally() { cat /proc/ksplice_target_nmi; }
	# old and new counts of a tally line
	col() { echo "$1" | awk -v k=$2 "{ for (i = 1; i < NF; i++) if (\$i == k) print \$(i + 1) }"; }
	# sees THIS OTHER: over 0.2 s the NMIs ran THIS code and not the OTHER
	sees() {
		a=$(tally); sleep 0.2; b=$(tally)
		[ $(col "$b" $1) -gt $(col "$a" $1) ] && [ $(col "$b" $2) = $(col "$a" $2) ]
	}
	insmod ksplice.ko && insmod ksplice_target.ko && insmod nmi_update.ko || exit 1
	echo nmi 2 >/proc/ksplice_target || exit 1
	echo KSPLICE-NMI-ON	# the rig starts injecting
	for i in $(seq 60); do
		[ "$(col "$(tally)" nmis)" -gt 20 ] && break
		sleep 0.5
	done
	echo "BEFORE: $(tally)"
	applied=0 undone=0 wrong=0
	for c in $(seq '"$cycles"'); do
		echo applied >$u/stage && applied=$((applied + 1)) ||
			echo "APPLY-FAILED $c: $(cat $u/abort_cause): $(cat $u/abort_detail)"
		# Every tenth cycle: what runs now, as the NMIs see it.
		if [ $((c % 10)) = 0 ]; then
			sees new old || { wrong=$((wrong + 1)); echo "NOT-NEW $c: $a / $b"; }
		fi
		echo reversed >$u/stage && undone=$((undone + 1)) ||
			echo "UNDO-FAILED $c: $(cat $u/abort_cause): $(cat $u/abort_detail)"
		if [ $((c % 10)) = 5 ]; then
			sees old new || { wrong=$((wrong + 1)); echo "NOT-OLD $c: $a / $b"; }
		fi
	done
	echo "APPLIED=$applied UNDONE=$undone WRONG=$wrong"
	echo "AFTER: $(tally)"
	# Stop the NMIs before they go unclaimed (see tests/vm/run).
	echo KSPLICE-NMI-OFF
	n=$(col "$(tally)" nmis)
	for i in $(seq 40); do
		sleep 0.5
		m=$(col "$(tally)" nmis)
		[ "$m" = "$n" ] && break
		n=$m
	done
	echo nmi 0 >/proc/ksplice_target
	rmmod nmi_update && rmmod ksplice_target && echo "REMOVED"
	echo "DETOURS=$(dmesg | sed -n "s/.*nmi: \(applied\|reversed\), .* \([0-9]*\) CPUs detoured.*/\2/p" | awk "{ s += \$1 } END { print s + 0 }")"
	echo "PAUSES=$(dmesg | grep -c "nmi: \(applied\|reversed\), [0-9]* ns in stop_machine")"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|int3|unknown reason" | sed "s/^/DMESG: /"
' 2>&1)
st=$?
diag "$(printf '%s\n' "$out" | grep -E '^(BEFORE|AFTER|APPLIED|DETOURS|PAUSES|vm: [0-9]+ NMIs)')"
is $st 0 "the guest ran the scenario under NMIs (the rig exited 0: no crash, hang or timeout)" ||
	diag "$(printf '%s\n' "$out" | grep '^vm: ')"
nmis=$(printf '%s\n' "$out" | sed -n 's/^vm: \([0-9]*\) NMIs injected$/\1/p')
ok $([ "${nmis:-0}" -gt 0 ]; echo $?) "the rig injected NMIs all along (${nmis:-none})"
like "$out" "APPLIED=$cycles UNDONE=$cycles WRONG=0" "all $cycles applies and undos succeeded, and the NMIs saw the new code after each apply and the old after each undo"
unlike "$out" '(APPLY|UNDO)-FAILED|NOT-(NEW|OLD)' "no apply or undo failed, no NMI ran the wrong code"
after=$(printf '%s\n' "$out" | sed -n 's/^AFTER: //p')
field() { echo "$after" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
ok $([ "$(field nmis)" -gt 1000 ]; echo $?) "the guest handled NMIs: $(field nmis)"
ok $([ "$(field in_stop)" -gt 0 ]; echo $?) "some of them came during a stop_machine: $(field in_stop)"
ok $([ "$(field old)" -gt 0 ] && [ "$(field new)" -gt 0 ]; echo $?) \
	"the NMIs ran the old code ($(field old) calls) and the new ($(field new))"
is "$(field neither)" 0 "no call returned anything but the old or the new value"
like "$out" 'REMOVED' "the update and the target come out"
pauses=$(printf '%s\n' "$out" | sed -n 's/^PAUSES=//p')
is "$pauses" $((2 * cycles)) "the core logged each apply and undo with its pause"
detours=$(printf '%s\n' "$out" | sed -n 's/^DETOURS=//p')
ok $([ "${detours:-0}" -gt 0 ]; echo $?) \
	"NMIs met the int3 of a write in progress and were sent on to the new code: ${detours:-none} times (a plain write has none; without the die notifier they crash the guest)"
unlike "$out" 'DMESG: ' "no oops, BUG, warning, stray int3 or unclaimed NMI in dmesg (the rig stopped at KSPLICE-NMI-OFF)"
like "$out" 'BEFORE: nmis [1-9][0-9]' "(positive) NMIs were handled before the first apply"
like "$out" 'APPLIED=' "(positive) the scenario ran to its end"
like "$(cat "$tmp/build.log"; ls "$t/update/nmi_update.ko")" 'nmi_update.ko' "(positive) the NMI update was built"
