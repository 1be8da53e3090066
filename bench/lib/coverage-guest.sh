# Guest side of bench/coverage (busybox sh, run by tests/vm/run in /root).
# /root/batch.list: one update a line, "ID MODULE..." (its target modules).
# For each: load the targets, apply, smoke check, reload the targets (they
# are patched as they load), undo.  Everything it learns is a "COV ID ..."
# line on the command's output, written before the step that could crash, so that
# the host knows which update a crash belongs to.
ip link set lo up 2>/dev/null

# Cheap triggers of common kernel paths: syscalls, /proc and /sys reads,
# files on tmpfs and the page cache, pipes, signals, sockets.
smoke() {
	for f in version cmdline meminfo stat vmstat zoneinfo slabinfo interrupts \
		softirqs modules mounts filesystems partitions diskstats cpuinfo \
		buddyinfo schedstat loadavg uptime swaps devices misc locks keys \
		crypto timer_list sched_debug net/dev net/tcp net/udp net/unix \
		net/netlink net/route net/arp net/snmp net/sockstat; do
		cat /proc/$f
	done >/dev/null 2>&1
	for f in status stat statm maps smaps mountinfo limits io sched cgroup \
		wchan stack syscall mounts environ; do
		cat /proc/self/$f /proc/1/$f
	done >/dev/null 2>&1
	ls -l /proc/self/fd /proc/self/ns /proc/self/task >/dev/null 2>&1
	sysctl -a >/dev/null 2>&1
	find /sys/kernel /sys/class /sys/bus -maxdepth 3 >/dev/null 2>&1
	uname -a >/dev/null; hostname >/dev/null; date >/dev/null
	sh -c 'exit 0'; (sleep 0.1 &) ; wait
	sleep 5 & kill -TERM $! 2>/dev/null; wait 2>/dev/null
	echo pipe | cat | wc -c >/dev/null
	for d in /tmp /mnt; do
		[ $d = /tmp ] || mount -t tmpfs none /mnt 2>/dev/null || continue
		dd if=/dev/urandom of=$d/cov bs=4k count=64 2>/dev/null
		sync; cp $d/cov $d/cov2; cmp $d/cov $d/cov2 || echo "SMOKE-CMP-FAILED"
		mv $d/cov2 $d/cov3; ln -s cov3 $d/link; cat $d/link >/dev/null
		mkdir $d/dir; touch $d/dir/a; chmod 600 $d/dir/a; rm -r $d/dir
		truncate -s 1M $d/cov3 2>/dev/null; rm -f $d/cov $d/cov3 $d/link
		[ $d = /tmp ] || umount /mnt
	done
	echo 3 >/proc/sys/vm/drop_caches
	ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1
	echo x | nc -w 1 127.0.0.1 9 >/dev/null 2>&1
	ps >/dev/null; free >/dev/null; df >/dev/null; dmesg >/dev/null
}

# Modules that refuse to load unless told what to drive: without these
# arguments their updates could never be tried (stage "rig").
modargs() {
	case $1 in
	vfb) echo vfb_enable=1 ;;		# a framebuffer in memory
	mtdoops) echo mtddev=0 ;;		# waits for MTD device 0
	esac
}

# A kernel thread: PF_KTHREAD in the flags of /proc/PID/stat.
kthread() {
	f=$(awk '{ print $9 }' /proc/$1/stat 2>/dev/null)
	[ -n "$f" ] && [ $((f & 0x200000)) != 0 ]
}

while read -r id mods; do
	[ -n "$id" ] || continue
	echo "COV-BEGIN $id"
	t0=$(cut -d. -f1 /proc/uptime)
	loaded=""
	for m in $mods; do
		if modprobe "$m" $(modargs "$m") 2>/dev/null; then
			loaded="$m $loaded"; echo "COV $id loaded $m"
		else
			echo "COV $id notloaded $m"
		fi
	done
	dmesg -c >/dev/null
	ksplice-apply --max-tries 5 --retry-interval 200 ksplice-$id.tar.gz >/tmp/apply.out 2>&1
	rc=$?
	echo "COV $id apply $rc"
	if [ $rc != 0 ]; then
		sed "s/^/COV $id applyout /" /tmp/apply.out | head -n 30
		dmesg | grep -v "ksplice: loading out-of-tree" | tail -n 3 | sed "s/^/COV $id applydmesg /"
		sed -n 's/.*(pid \([0-9]*\)) in \(.*\)$/\1 \2/p' /tmp/apply.out |
		while read -r pid func; do
			k=0; kthread "$pid" && k=1
			echo "COV $id busy $pid $k $func $(cat /proc/$pid/comm 2>/dev/null)"
		done
	else
		echo "COV $id smoke"
		smoke
		for m in $loaded; do
			if ! rmmod "$m" 2>/dev/null; then
				echo "COV $id reload $m in-use"
			elif modprobe "$m" $(modargs "$m") 2>/dev/null; then
				echo "COV $id reload $m ok"
			else
				echo "COV $id reload $m refused $(cat /sys/kernel/ksplice/$id/abort_cause): $(cat /sys/kernel/ksplice/$id/abort_detail)"
			fi
		done
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace|RIP:" |
			head -n 3 | sed "s/^/COV $id dmesg /"
		ksplice-undo "$id" >/tmp/undo.out 2>&1
		rc=$?
		echo "COV $id undo $rc"
		[ $rc = 0 ] || sed "s/^/COV $id undoout /" /tmp/undo.out | head -n 20
	fi
	for m in $loaded; do rmmod "$m" 2>/dev/null; done
	echo "COV-END $id $(( $(cut -d. -f1 /proc/uptime) - t0 ))"
done </root/batch.list
echo "COV-BATCH-DONE"
