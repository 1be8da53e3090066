#!/bin/bash
# The real Debian update 6.1.192-1 -> 6.1.192-2 (ext4 mballoc NULL folio
# fix), made by ksplice-create --debian and applied to the running stock
# 6.1.0-55-amd64 while a workload writes, syncs, reads back and deletes
# files on an ext4 filesystem (ext4 and loop modules): every file's
# checksum is verified after apply and after undo.  The stock kernel has
# the bug (a NULL folio from __filemap_get_folio() taken for an error
# pointer): evicting mballoc's buddy pages crashes it, which the workload
# does only while the update is applied.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

abi=$KSPLICE_PREV_KERNEL_ABI
plan 16
upd=$(make_debian_update "$KSPLICE_EXT4_UPDATE" ext4fix "/usr/src/linux-headers-$abi")
ok $? "ksplice-create --debian $KSPLICE_EXT4_UPDATE builds the update for $abi"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-ext4fix.log" | tail -20; bail "no update file"; }
log=$(cat "$tmp/create-ext4fix.log")
like "$log" 'changed function: ext4_mb_load_buddy_gfp \(fs/ext4/mballoc.c, ext4\)' "  it replaces mballoc functions of the module ext4"
is "$(grep '^  compiling' <<<"$log" | sed 's/ (.*//' | sort -u)" "  compiling fs/ext4/mballoc.o" "  and compiles fs/ext4/mballoc.c only"

# The bug is real: without the update, the stock kernel dies as soon as
# mballoc's buddy pages are evicted (drop_caches) and a block is allocated.
setup='
	modprobe ext4 && modprobe loop || echo "NO-MODULES"
	dd if=/dev/zero of=/tmp/img bs=1M count=64 2>/dev/null
	losetup /dev/loop0 /tmp/img && mke2fs -q /dev/loop0 >/dev/null &&
		mkdir -p /mnt && mount -t ext4 /dev/loop0 /mnt
	grep " /mnt ext4 " /proc/mounts >/dev/null && echo "MOUNTED-EXT4"
'
ctl=$(vm --kernel "$abi" --module ext4 --module loop -- "$setup"'
	for i in 1 2 3 4 5 6 7 8 9 10; do
		dd if=/dev/urandom of=/mnt/f$i bs=4k count=8 2>/dev/null; sync
		echo 1 >/proc/sys/vm/drop_caches
	done
	echo "SURVIVED"
' 2>&1)
is "$?" 125 "the rig reports the control run's guest crash (status 125)"
like "$ctl" 'RIP: .*ext4_mb_load_buddy_gfp' "without the update the stock $abi crashes in ext4_mb_load_buddy_gfp (the bug)"

# The workload: each round writes a file of random data (its checksum taken
# from the source), syncs and reads the file back; every third round
# deletes an older file.  While the update is applied each round also drops
# the caches, so mballoc reloads its buddy pages through the fixed code.
# It pauses while all files are verified (a file it deletes is not a fault).
out=$(vm --kernel "$abi" --module ext4 --module loop --file "$upd" -- "$guest_peek$setup"'
	: >/tmp/sums; : >/tmp/bad; echo 0 >/tmp/rounds
	work() {
		i=0
		while [ ! -e /tmp/stop ]; do
			while [ -e /tmp/pause ]; do touch /tmp/paused; sleep 0.1; done
			i=$((i + 1))
			dd if=/dev/urandom of=/tmp/src bs=4k count=$((i % 32 + 1)) 2>/dev/null
			s=$(md5sum </tmp/src | cut -d" " -f1)
			cp /tmp/src /mnt/f$i && sync
			[ ! -e /tmp/drop ] || echo 1 >/proc/sys/vm/drop_caches
			[ "$(md5sum </mnt/f$i | cut -d" " -f1)" = "$s" ] || echo "f$i" >>/tmp/bad
			echo "$s  /mnt/f$i" >>/tmp/sums
			if [ $((i % 3)) = 0 ]; then
				rm /mnt/f$((i - 2)); sed -i "\\#/mnt/f$((i - 2))\$#d" /tmp/sums
			fi
			echo $i >/tmp/rounds
		done
	}
	rounds() { cat /tmp/rounds; }
	wait_rounds() { n=$(($(rounds) + $1)); while [ "$(rounds)" -lt $n ]; do sleep 0.2; done; }
	pause() { touch /tmp/pause; while [ ! -e /tmp/paused ]; do sleep 0.1; done; }
	resume() { rm -f /tmp/pause /tmp/paused; }
	verify() {
		n=$(wc -l </tmp/sums)
		if md5sum -c /tmp/sums >/tmp/md5.out 2>&1; then r=ok; else r=FAILED; fi
		echo "VERIFY $1 $r $n files, $(wc -l </tmp/bad) bad read-backs"
		[ $r = ok ] || grep -v ": OK" /tmp/md5.out | head -5
	}
	work & wpid=$!
	wait_rounds 5
	for f in ext4_mb_init_group ext4_mb_load_buddy_gfp; do echo "BEFORE $f $(kpeek $f 32)"; done
	echo "ROUNDS-AT-APPLY $(rounds)"
	ksplice-apply --max-tries 20 --retry-interval 200 ksplice-ext4fix.tar.gz; echo "APPLY=$?"
	peek ext4fix applied
	touch /tmp/drop; wait_rounds 20
	pause; echo 3 >/proc/sys/vm/drop_caches; verify applied; resume
	rm /tmp/drop; wait_rounds 2
	# Buddy pages of every group back in the cache: the old code needs them.
	cat /proc/fs/ext4/loop0/mb_groups >/dev/null
	echo "ROUNDS-AT-UNDO $(rounds)"
	ksplice-undo ext4fix; echo "UNDO=$?"
	for f in ext4_mb_init_group ext4_mb_load_buddy_gfp; do echo "AFTER $f $(kpeek $f 32)"; done
	wait_rounds 10
	touch /tmp/stop; wait $wpid
	echo "ROUNDS-AT-END $(rounds)"
	umount /mnt && mount -t ext4 /dev/loop0 /mnt && verify undone
	umount /mnt
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace|EXT4-fs error" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(grep -vE '^(PEEK|BEFORE|AFTER)' <<<"$out" | head -40)"
like "$out" 'MOUNTED-EXT4' "an ext4 filesystem is mounted (module ext4 on a loop device)"
like "$out" 'APPLY=0' "ksplice-apply succeeds while the workload runs"
check_jumps applied "$out"; ok $? "  the running mballoc functions jump into the update"
like "$out" 'VERIFY applied ok [1-9][0-9]* files, 0 bad' "every file reads back with its checksum after apply (caches dropped each round)"
r1=$(sed -n 's/^ROUNDS-AT-APPLY //p' <<<"$out") r2=$(sed -n 's/^ROUNDS-AT-UNDO //p' <<<"$out")
r3=$(sed -n 's/^ROUNDS-AT-END //p' <<<"$out")
[ "${r2:-0}" -gt "$((${r1:-0} + 1))" ]; ok $? "  files were written, synced and read back while applied ($r1 -> $r2 rounds)"
like "$out" 'UNDO=0' "ksplice-undo succeeds while the workload runs"
same=0
for f in ext4_mb_init_group ext4_mb_load_buddy_gfp; do
	[ -n "$(sed -n "s/^BEFORE $f //p" <<<"$out")" ] &&
	[ "$(sed -n "s/^BEFORE $f //p" <<<"$out")" = "$(sed -n "s/^AFTER $f //p" <<<"$out")" ] || same=1
done
ok $same "  and restores the functions' bytes"
[ "${r3:-0}" -gt "${r2:-0}" ]; ok $? "  the workload went on after undo ($r2 -> $r3 rounds)"
like "$out" 'VERIFY undone ok [1-9][0-9]* files, 0 bad' "every file reads back with its checksum after undo (and a remount)"
unlike "$out" '^DMESG' "no oops, warning or ext4 error"
