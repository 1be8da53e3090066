#!/bin/sh
# bench/per-call's guest side: ROUNDS rounds, each timing N getpid calls
# (getpidloop) stock, with ksplice's update applied (a jmp at the entry of
# __task_pid_nr_ns), the same redirected by ksplice through ftrace, and
# with the livepatch module enabled (ftrace handler),
# the order turning each round; every variant is checked to be in force
# before it is timed, and each time is the best of 3 runs.  Prints
# "NS function variant round ns/call" lines, "BAD ..." on a failure.
# Optional: FUNCTION UPDATE-ID KLP-MODULE ppid, for getppid(2)'s own code.
rounds=$1 n=$2 fn=${3:-__task_pid_nr_ns} id=${4:-pid} klp=${5:-klp_pid} call=${6:-}
lp=/sys/kernel/livepatch/$klp
stock=$(kpeek $fn 16)
[ -n "$stock" ] || { echo "BAD no bytes read at $fn"; exit 1; }
getpidloop 100000 10 $call >/dev/null || { echo "BAD getpidloop"; exit 1; }
# best of 3 runs: a TCG guest on a shared host is preempted at random,
# which only ever adds time
timed() { # VARIANT ROUND
	b=
	for i in 1 2 3; do
		t=$(getpidloop "$n" 10 $call) || { echo "BAD getpidloop"; exit 1; }
		b=$(echo "$b $t" | awk '{ print ($1 == "" || $NF < $1) ? $NF : $1 }')
	done
	echo "NS $fn $1 $2 $b"
}
stock() {
	[ "$(kpeek $fn 16)" = "$stock" ] || { echo "BAD round $r: $fn not stock"; exit 1; }
	timed stock $r
}
ksplice() {
	ksplice-apply ksplice-$id.tar.gz >/tmp/apply 2>&1 ||
		{ sed 's/^/BAD apply: /' /tmp/apply; exit 1; }
	read -r name old new </sys/kernel/ksplice/$id/functions
	[ "$name" = $fn ] && [ "$(kpeek $fn 16)" != "$stock" ] ||
		{ echo "BAD round $r: ksplice did not patch $fn"; exit 1; }
	timed ksplice $r
	ksplice-undo $id >/tmp/undo 2>&1 || { sed 's/^/BAD undo: /' /tmp/undo; exit 1; }
	[ "$(kpeek $fn 16)" = "$stock" ] || { echo "BAD round $r: undo left $fn changed"; exit 1; }
}
# ksplice's own ftrace redirection (what it uses where no jmp fits),
# forced on the same function by the core's prefer_ftrace: the ftrace
# site at the entry changes, the bytes after it (where the jmp would go)
# do not.
ftrace() {
	p=/sys/module/ksplice/parameters/prefer_ftrace
	echo 1 >$p || { echo "BAD no $p"; exit 1; }
	ksplice-apply ksplice-$id.tar.gz >/tmp/apply 2>&1 ||
		{ sed 's/^/BAD apply: /' /tmp/apply; exit 1; }
	echo 0 >$p
	now=$(kpeek $fn 16)
	[ "${now:0:10}" != "${stock:0:10}" ] && [ "${now:10}" = "${stock:10}" ] ||
		{ echo "BAD round $r: ksplice did not redirect $fn through ftrace ($now)"; exit 1; }
	timed ftrace $r
	ksplice-undo $id >/tmp/undo 2>&1 || { sed 's/^/BAD undo: /' /tmp/undo; exit 1; }
	[ "$(kpeek $fn 16)" = "$stock" ] || { echo "BAD round $r: undo left $fn changed"; exit 1; }
}
livepatch() {
	insmod $klp.ko || { echo "BAD insmod $klp.ko"; exit 1; }
	t=0
	while [ "$(cat $lp/transition)" != 0 ]; do
		t=$((t + 1)); [ $t -lt 300 ] || { echo "BAD livepatch transition stuck"; exit 1; }
		sleep 0.1
	done
	[ "$(cat $lp/enabled)" = 1 ] && [ "$(kpeek $fn 16)" != "$stock" ] ||
		{ echo "BAD round $r: livepatch did not patch $fn"; exit 1; }
	timed livepatch $r
	echo 0 >$lp/enabled
	t=0
	while [ -e $lp ]; do
		t=$((t + 1)); [ $t -lt 300 ] || { echo "BAD livepatch disable stuck"; exit 1; }
		sleep 0.1
	done
	rmmod $klp || { echo "BAD rmmod $klp"; exit 1; }
}
# The order turns each round (stock ksplice ftrace livepatch, then
# ksplice ftrace livepatch stock, ...): a drift in the host's load spreads
# over all four.  The core is loaded by the first apply.
ksplice-apply ksplice-$id.tar.gz >/dev/null 2>&1 && ksplice-undo $id >/dev/null 2>&1 ||
	{ echo "BAD first apply and undo"; exit 1; }
for r in $(seq "$rounds"); do
	case $((r % 4)) in
	1) stock; ksplice; ftrace; livepatch ;;
	2) ksplice; ftrace; livepatch; stock ;;
	3) ftrace; livepatch; stock; ksplice ;;
	0) livepatch; stock; ksplice; ftrace ;;
	esac
done
dmesg | grep -E "Oops|BUG:|WARNING:" | sed 's/^/BAD dmesg: /'
echo DONE
