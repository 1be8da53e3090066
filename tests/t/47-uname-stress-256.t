#!/bin/bash
# Under load: 256 threads (tests/vm/unamestress) call the uname syscall
# directly in a loop, sleeping 1 ms after each call, while the uname
# update is applied and undone KSPLICE_STRESS_CYCLES times (30 here;
# `make stress` runs 1,000), and fsyncload writes and fsyncs files on an
# ext2 image on a loop device (ext4 driver) all along.  (Without the
# 1 ms sleep, some of 256 spinning threads are always preempted inside
# __do_sys_newuname and every apply is, rightly, refused: code_busy.)
# Every uname result is the old or the new version, never anything else;
# every file reads back with its checksum; no oops, warning or hung task.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cycles=${KSPLICE_STRESS_CYCLES:-30}
threads=${KSPLICE_STRESS_THREADS:-256}
pause_us=${KSPLICE_STRESS_PAUSE_US:-1000}

plan 12
upd=$(make_update "$KSPLICE_TOP/examples/uname.patch" uname)
ok $? "ksplice-create builds the uname update"

out=$(vm --smp 2 --mem 1024 --timeout $((600 + cycles * 30)) --module ext4 --module loop \
	--file "$upd" -- '
	new="ksplice: patched live"
	old=$(uname -v); echo "OLD: $old"
	dir=/tmp/fsync
	mkdir -p $dir /mnt
	modprobe loop; modprobe ext4
	dd if=/dev/zero of=/tmp/fs.img bs=1M count=48 2>/dev/null
	if mke2fs -q -F /tmp/fs.img >/dev/null 2>&1 && mount -t ext4 -o loop /tmp/fs.img /mnt; then
		dir=/mnt; echo "FS: ext2 image on a loop device"
	else
		echo "FS: no loop mount, files in the initramfs"
	fi
	unamestress '"$threads"' "$new" '"$pause_us"' >/tmp/us.out 2>&1 & us=$!
	fsyncload $dir >/tmp/fl.out 2>&1 & fl=$!
	while ! grep -q ready /tmp/us.out || ! grep -q ready /tmp/fl.out; do sleep 1; done
	echo "WORKLOADS-READY"
	applied=0 undone=0
	for c in $(seq '"$cycles"'); do
		ksplice-apply --max-tries 20 --retry-interval 100 ksplice-uname.tar.gz >/tmp/apply.log 2>&1 && applied=$((applied + 1)) || sed "s/^/APPLY-FAIL $c: /" /tmp/apply.log
		[ "$(uname -v)" = "$new" ] || echo "NOT-NEW-AFTER-APPLY $c"
		ksplice-undo --max-tries 20 --retry-interval 100 uname >/tmp/undo.log 2>&1 && undone=$((undone + 1)) || sed "s/^/UNDO-FAIL $c: /" /tmp/undo.log
		[ "$(uname -v)" = "$old" ] || echo "NOT-OLD-AFTER-UNDO $c"
	done
	echo "APPLIED=$applied UNDONE=$undone"
	echo "BUSY-RETRIES=$(dmesg | grep -c "ksplice.*tasks in the code\|code_busy")"
	kill -TERM $us $fl
	wait $us; echo "US-STATUS=$?"
	wait $fl; echo "FL-STATUS=$?"
	sed "s/^/US: /" /tmp/us.out
	sed "s/^/FL: /" /tmp/fl.out
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace|blocked for more than|hung_task|EXT[24]-fs error" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the guest ran the stress scenario"
diag "$(printf '%s\n' "$out" | grep -vE '^(APPLY-FAIL|UNDO-FAIL|DMESG)' | head -20)"
like "$out" 'WORKLOADS-READY' "$threads uname threads and the fsync workload started"
like "$out" 'FS: ext2 image on a loop device' "the files are on a real file system on a block device"
like "$out" "APPLIED=$cycles UNDONE=$cycles" "all $cycles applies and undos succeeded"
unlike "$out" 'NOT-NEW-AFTER-APPLY|NOT-OLD-AFTER-UNDO' "uname -v changes with every apply and undo"
like "$out" "US: threads=$threads calls=[0-9]+ old=[1-9][0-9]* new=[1-9][0-9]* bad=0$" "the threads saw old and new versions, and nothing else"
unlike "$out" 'US: BAD' "no call returned a mangled version"
like "$out" 'US-STATUS=0' "unamestress exits cleanly"
like "$out" 'FL: files=[1-9][0-9]* verified=[1-9][0-9]* bad=0$' "every file written and fsynced during the cycles has its checksum"
like "$out" 'FL-STATUS=0' "fsyncload exits cleanly"
unlike "$out" '^DMESG' "no oops, warning or hung task in dmesg"
