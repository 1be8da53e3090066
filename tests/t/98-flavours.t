#!/bin/bash
# The other flavours of the pinned kernel, from the table ../../kernels.
#
# cloud-amd64: the demo's fix (examples/cmdline.patch, fs/proc/cmdline.c)
# built against the flavour's own headers (config) from linux-source-6.1 and
# applied in a guest booted on that flavour: the amd64 flavour's update is
# refused there and changes nothing; then, while threads call uname and
# read /proc/cmdline in loops, the update is applied and undone
# KSPLICE_FLAVOUR_CYCLES times (5): /proc/cmdline gains " ksplice=applied"
# after each apply and is as before after each undo, every concurrent read
# is the old or the new text, and dmesg has no oops, warning or hung task.
# The pause in stop_machine of each apply and undo (the core's dmesg line)
# is printed.
#
# rt-amd64 (PREEMPT_RT): linux-source-6.1 lacks Debian's RT patches, so it
# cannot build the rt configuration (make olddefconfig drops PREEMPT_RT);
# ksplice-create refuses it, saying so, and writes no update.  The rig
# boots the rt kernel (it is PREEMPT_RT), where the amd64 update is refused
# and the core's self-test, built against the rt headers, passes (below).
# Two guest boots in all.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cycles=${KSPLICE_FLAVOUR_CYCLES:-5}
patch=$KSPLICE_TOP/examples/cmdline.patch
base=${KSPLICE_KERNEL_ABI%-amd64}

plan 41

# Every ABI versions pins has its line in the table, with its version.
bad=""
for role in KERNEL PREV_KERNEL COVERAGE_KERNEL COVERAGE2_KERNEL; do
	a=KSPLICE_${role}_ABI v=KSPLICE_${role}_VERSION
	[ "$("$KSPLICE_TOP/scripts/kernels" get "${!a}" version 2>/dev/null)" = "${!v}" ] ||
		bad+=" ${!a}=${!v}"
done
is "$bad" "" "the table of kernels has every ABI of versions, at its version"

# create FLAVOUR: ksplice-create for $base-FLAVOUR with its headers and the
# source its table line names, into $tmp/FLAVOUR; status, log in
# $tmp/create-FLAVOUR.log.
create() {
	local abi=$base-$1 version src
	version=$("$KSPLICE_TOP/scripts/kernels" get "$abi" source) || return
	src=$("$KSPLICE_TOP/scripts/fetch-source" "$version" | tail -n 1) || return
	mkdir -p "$tmp/$1"
	ksplice-create --build "/usr/src/linux-headers-$abi" --patch "$patch" \
		--id cmdline -o "$tmp/$1" "$src" >/dev/null 2>"$tmp/create-$1.log"
}

create cloud-amd64
ok $? "cloud-amd64: ksplice-create builds the update against $base-cloud-amd64's headers"
log=$(cat "$tmp/create-cloud-amd64.log")
like "$log" "update cmdline for $base-cloud-amd64\$" "cloud-amd64: the update is for $base-cloud-amd64"
like "$log" 'changed function: cmdline_proc_show' "cloud-amd64: create reports the changed function"
[ -s "$tmp/cloud-amd64/ksplice-cmdline.tar.gz" ] ||
	{ sed 's/^/# /' "$tmp/create-cloud-amd64.log"; bail "no update file for cloud-amd64"; }

create rt-amd64
status=$?
log=$(cat "$tmp/create-rt-amd64.log")
[ "$status" != 0 ]
ok $? "rt-amd64: ksplice-create refuses linux-source-6.1 for the rt configuration"
like "$log" 'cannot build this configuration: make olddefconfig changed .*CONFIG_ARCH_SUPPORTS_RT=y dropped' \
	"rt-amd64: ... naming the options it cannot build"
[ -z "$(ls -A "$tmp/rt-amd64")" ]
ok $? "rt-amd64: ... and writes no update file"

# The wrong flavour's update, for both guests: amd64's.
create amd64
ok $? "amd64: ksplice-create builds the update (the other guests' wrong flavour)"
mkdir -p "$tmp/wrong"
cp "$tmp/amd64/ksplice-cmdline.tar.gz" "$tmp/wrong/ksplice-wrong.tar.gz" || bail "no amd64 update"

# PAUSES FILE WHAT: min/median/max in microseconds of the core's dmesg
# lines "cmdline: WHAT, N ns in stop_machine" in FILE.
pauses() {
	sed -n "s/.*cmdline: $2, \([0-9]*\) ns in stop_machine.*/\1/p" "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "n %d  min %.1f  median %.1f  max %.1f us\n",
			NR, v[1] / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

# In both guests: which kernel, and the wrong flavour's update refused.
# The rig loads what the table's rig column names for a flavour: on cloud, a
# copy of the table that names loop (a module there) shows it loaded; rt
# boots with the real table, which names none.
guest_common='
	echo "KERNEL: $(uname -r) realtime=$(cat /sys/kernel/realtime 2>/dev/null || echo 0)"
	lsmod | grep -q "^loop " && echo "RIG-MODULE-LOADED"
	read -r old </proc/cmdline
	ksplice-apply ksplice-wrong.tar.gz >/tmp/wrong.log 2>&1; echo "WRONG-STATUS=$?"
	sed "s/^/WRONG: /" /tmp/wrong.log | head -n 5
	read -r v </proc/cmdline; [ "$v" = "$old" ] && echo "WRONG-UNCHANGED"
	lsmod | grep -q "^ksplice_cmdline " && echo "WRONG-LOADED"
'
# check_common FLAVOUR STATUS OUT
check_common() {
	local f=$1 abi=$base-$1
	is "$2" 0 "$f: the guest ran the scenario (rig exit status)"
	like "$3" "^KERNEL: $abi " "$f: the guest runs $abi"
	case $f in
	rt-*) like "$3" '^KERNEL: .* realtime=1$' "$f: the kernel is PREEMPT_RT (/sys/kernel/realtime)"
	      unlike "$3" '^RIG-MODULE-LOADED' "$f: the rig loads no module the table does not name" ;;
	*) like "$3" '^KERNEL: .* realtime=0$' "$f: the kernel is not PREEMPT_RT"
	   like "$3" '^RIG-MODULE-LOADED' "$f: the rig loads the module the table names (loop)" ;;
	esac
	like "$3" '^WRONG-STATUS=[1-9]' "$f: the amd64 update is refused"
	like "$3" "^WRONG: .*built for kernel $KSPLICE_KERNEL_ABI, but the running kernel is $abi" \
		"$f: the refusal names both kernels"
	ok "$(printf '%s\n' "$3" | grep -qx WRONG-UNCHANGED; echo $?)" \
		"$f: the refused update changed nothing (/proc/cmdline)"
	unlike "$3" '^WRONG-LOADED' "$f: the refused update's module is not loaded"
}

abi=$base-cloud-amd64
awk -v a="$abi" '$1 == a { $NF = "loop" } { print }' "$KSPLICE_TOP/kernels" >"$tmp/kernels"
is "$(KSPLICE_KERNELS=$tmp/kernels "$KSPLICE_TOP/scripts/kernels" get "$abi" rig)" loop \
	"cloud-amd64: the copy of the table names loop in the rig column"
start=$SECONDS
out=$(KSPLICE_KERNELS=$tmp/kernels vm --kernel "$abi" --smp 2 --timeout 600 \
	--file "$tmp/cloud-amd64/ksplice-cmdline.tar.gz" --file "$tmp/wrong/ksplice-wrong.tar.gz" -- "
	$guest_common"'
	new="$old ksplice=applied"
	# The load: uname callers (SCHED_IDLE threads) and /proc/cmdline readers.
	unamestress 8 unused >/tmp/us.out 2>&1 & us=$!
	for i in 1 2 3; do
		(n=0 bad=0 seen=0
		 while [ ! -e /tmp/stop ]; do
			read -r v </proc/cmdline; n=$((n + 1))
			if [ "$v" = "$new" ]; then seen=1
			elif [ "$v" != "$old" ]; then bad=$((bad + 1)); echo "BAD-READ: $v"; fi
		 done
		 echo "READER $i reads=$n bad=$bad seen_new=$seen") &
	done
	while ! grep -q ready /tmp/us.out; do sleep 1; done
	applied=0 undone=0
	for c in $(seq '"$cycles"'); do
		ksplice-apply --max-tries 20 --retry-interval 100 ksplice-cmdline.tar.gz \
			>/tmp/apply.log 2>&1 && applied=$((applied + 1)) ||
			sed "s/^/APPLY-FAILED $c: /" /tmp/apply.log
		read -r v </proc/cmdline; [ "$v" = "$new" ] || echo "NOT-NEW-AFTER-APPLY $c: $v"
		ksplice-undo --max-tries 20 --retry-interval 100 cmdline \
			>/tmp/undo.log 2>&1 && undone=$((undone + 1)) ||
			sed "s/^/UNDO-FAILED $c: /" /tmp/undo.log
		read -r v </proc/cmdline; [ "$v" = "$old" ] || echo "NOT-OLD-AFTER-UNDO $c: $v"
	done
	touch /tmp/stop; kill $us; wait
	echo "APPLIED=$applied UNDONE=$undone"
	sed -n "s/^threads=/UNAME: threads=/p" /tmp/us.out
	dmesg | grep -E "cmdline: (applied|reversed), [0-9]+ ns in stop_machine" | sed "s/^/PAUSE: /"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace|scheduling while atomic|blocked for more than" |
		sed "s/^/DMESG: /"
	true
' 2>&1)
status=$?
diag "cloud-amd64: guest run of $((SECONDS - start)) s"
f=cloud-amd64
check_common $f "$status" "$out"
like "$out" "^APPLIED=$cycles UNDONE=$cycles\$" "$f: all $cycles applies and undos under load succeed"
unlike "$out" 'NOT-NEW-AFTER-APPLY|NOT-OLD-AFTER-UNDO' \
	"$f: /proc/cmdline is the new text after each apply, the old after each undo"
ok "$(printf '%s\n' "$out" | grep -c '^READER .* bad=0 seen_new=1$' | grep -qx 3; echo $?)" \
	"$f: the 3 readers ran, each saw the new text and never anything but old or new"
like "$out" '^UNAME: threads=8 calls=[1-9][0-9]* .* bad=0' "$f: the uname load ran alongside"
unlike "$out" '^DMESG' "$f: no oops, warning or hung task in dmesg"
printf '%s\n' "$out" | grep '^PAUSE: ' >"$tmp/pause-$f"
is "$(grep -c 'applied, ' "$tmp/pause-$f")/$(grep -c 'reversed, ' "$tmp/pause-$f")" \
	"$cycles/$cycles" "$f: the core reports the pause of each apply and undo"
diag "$f: $(printf '%s\n' "$out" | grep -E '^(READER|UNAME)' | tr '\n' ';')"
diag "$f: pause in stop_machine, apply: $(pauses "$tmp/pause-$f" applied)"
diag "$f: pause in stop_machine, undo:  $(pauses "$tmp/pause-$f" reversed)"
[ "$status" = 0 ] || diag "$(printf '%s\n' "$out" | tail -n 40)"

# On rt, stop_machine and the stack check are exercised by the core's own
# self-test (as test 50), whose modules Kbuild builds out of tree against
# the rt headers alone, so they are right for PREEMPT_RT: every case passes,
# a task sleeping in the target blocks apply and undo, and the pause of
# each apply and undo is printed; 8 uname threads run meanwhile.
abi=$base-rt-amd64
self=$tmp/self
mkdir -p "$self"
cp -a "$KSPLICE_TOP/kmod" "$KSPLICE_TOP/include" "$KSPLICE_TOP/versions" "$self/"
kdir=/usr/src/linux-headers-$abi
for d in kmod kmod/test/target kmod/test/update; do
	make -s -C "$kdir" M="$self/$d" clean >/dev/null 2>&1
done
KDIR=$kdir "$self/kmod/test/build.sh" >"$tmp/self-build.log" 2>&1
ok $? "rt-amd64: the core and its self-test build against $abi's headers"
like "$(modinfo -F vermagic "$self/kmod/ksplice.ko" 2>&1)" "^$abi SMP preempt_rt " \
	"rt-amd64: ... for PREEMPT_RT (vermagic)"
t=$self/kmod/test
start=$SECONDS
out=$(vm --kernel "$abi" --smp 2 --timeout 300 --file "$tmp/wrong/ksplice-wrong.tar.gz" \
	--file "$self/kmod/ksplice.ko" --file "$t/target/ksplice_target.ko" \
	--file "$t/update/selftest_update.ko" --file "$t/selftest.sh" -- "
	$guest_common
	unamestress 8 unused >/tmp/us.out 2>&1 & us=\$!
	while ! grep -q ready /tmp/us.out; do sleep 1; done
	sh selftest.sh >/tmp/self.out 2>&1; echo SELFTEST-STATUS=\$?
	kill \$us; wait \$us
	sed -n 's/^threads=/UNAME: threads=/p' /tmp/us.out
	sed 's/^/SELF: /' /tmp/self.out
	dmesg | grep -E 'selftest: (applied|reversed), [0-9]+ ns in stop_machine' | sed 's/^/PAUSE: /'
	dmesg | grep -E 'Oops|BUG:|WARNING:|general protection|Call Trace|scheduling while atomic|blocked for more than' |
		sed 's/^/DMESG: /'
	true" 2>&1)
status=$?
diag "rt-amd64: guest run of $((SECONDS - start)) s"
check_common rt-amd64 "$status" "$out"
like "$out" '^SELFTEST-STATUS=0$' "rt-amd64: the core's self-test passes on PREEMPT_RT"
like "$out" '^UNAME: threads=8 calls=[1-9][0-9]* .* bad=0' "rt-amd64: ... with 8 uname threads running alongside"
ok "$(printf '%s\n' "$out" | grep -c '^SELF: ok ' | awk '{ exit !($1 >= 100) }'; echo $?)" \
	"rt-amd64: ... all of its 100-odd cases ran"
unlike "$out" '^SELF: FAIL' "rt-amd64: ... none failed"
like "$out" '^SELF: ok   apply blocked: 1 tasks in the code, first .* in ksplice_test_sleeper' \
	"rt-amd64: the stack check blocks apply while a task sleeps in the code"
like "$out" '^SELF: ok   undo blocked: 1 tasks in the code, first .* in ksplice_test_sleeper' \
	"rt-amd64: ... and undo"
unlike "$out" '^DMESG' "rt-amd64: no oops, warning or hung task in dmesg"
printf '%s\n' "$out" | grep '^PAUSE: ' | sed 's/selftest: /cmdline: /' >"$tmp/pause-rt"
like "$(cat "$tmp/pause-rt")" 'applied, ' "rt-amd64: the core reports the pause of its applies"
diag "rt-amd64: pause in stop_machine (self-test), apply: $(pauses "$tmp/pause-rt" applied)"
diag "rt-amd64: pause in stop_machine (self-test), undo:  $(pauses "$tmp/pause-rt" reversed)"
[ "$status" = 0 ] || diag "$(printf '%s\n' "$out" | tail -n 40)"
