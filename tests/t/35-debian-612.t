#!/bin/bash
# Debian 12's 6.12 line (issue 14): updates built from linux-source-6.12
# and applied live to the stock linux-image-6.12.117+deb12-amd64 (IBT,
# 16 bytes of function padding, ITS, call depth tracking).  Kbuild runs
# objtool only on what it links there: ksplice-create runs it on each
# unit's object so pre code has the sites the kernel rewrites.
#  - Debian's own fixes, one file each out of the stable update
#    6.12.117 -> 6.12.118 (--debian OLD..NEW:PATH): do_pagemap_cmd
#    (fs/proc/task_mmu.c: an unknown ioctl on /proc/PID/pagemap now fails
#    ENOTTY, not EINVAL) and, in the module ip_gre, erspan_tunnel_init;
#    the first rebuilt identical by --verify;
#  - a stacked update on the first (EOPNOTSUPP), refused while the first
#    is not applied (built from another source than the running code's:
#    nothing changes) and in the wrong undo order;
#  - a header change (loadavg.h's LOAD_FRAC: /proc/loadavg's new digits);
#  - a busy function (read_iter_zero while readvzero runs it): refused,
#    naming the task; applies once it is gone.  readvzero is outside
#    read_iter_zero only between two readv(2) calls, but under TCG the stop's
#    interrupt seems to land there more often than time alone says: one
#    rehearsal's apply went through with 16 MiB calls (the stop found no
#    task in the code), where a loop of 24 tries in one guest was refused
#    24 times; 64 MiB a call makes those moments four times rarer;
#  - with call depth tracking on (Skylake-Client, retbleed=stuff: direct
#    calls and static calls go to the callee's accounting thunk, indirect
#    ones to the call-depth retpoline thunks): the header change's five
#    functions match and apply;
#  - the cloud flavour (6.12.117+deb12-cloud-amd64, its own configuration
#    and prepared tree): Debian's task_mmu.c fix applied and undone there.
# (The rt flavour is refused at create, as on 6.1: Debian builds it with
# RT patches linux-source-6.12 lacks.)
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 66
abi=$KSPLICE_612_ABI
range=$KSPLICE_612_UPDATE
build=$("$KSPLICE_TOP/scripts/fetch-headers" "$abi" | tail -n 1)
[ -d "$build" ] || bail "no headers of $abi"
src=$("$KSPLICE_TOP/scripts/fetch-source" "${range%%..*}" | tail -n 1)
[ -d "$src" ] || bail "no linux-source ${range%%..*}"

# mk ID ARGS...: ksplice-create for the 6.12 kernel; prints the update file.
mk() {
	local id=$1 out
	shift
	out=$(ksplice-create --build "$build" --id "$id" -o "$tmp" "$@" \
		2>"$tmp/create-$id.log") || return
	printf '%s\n' "${out##*$'\n'}"
}
need() {	# need ID FILE: bail with the create log if FILE is missing
	[ -s "${2:-}" ] || { sed 's/^/# /' "$tmp/create-$1.log" | tail -20; bail "no update $1"; }
}

tm=$(mk tm --debian "$range:fs/proc/task_mmu.c")
ok $? "ksplice-create --debian $range:fs/proc/task_mmu.c builds the update"
need tm "$tm"
log=$(cat "$tmp/create-tm.log")
like "$log" 'changed function: do_pagemap_cmd \(fs/proc/task_mmu.c, vmlinux\)' \
	"  its changed function is do_pagemap_cmd"
is "$(grep -c '^  compiling' <<<"$log")" 2 "  one unit compiled, before and after"
like "$log" 'the change to 1 file only: no CVE ids recorded' "  it says it records no CVE ids"
man=$(tar -xzOf "$tm" manifest)
like "$man" "^debian: ${range//./\\.}:fs/proc/task_mmu\\.c\$" "  the manifest records the range and the file"
like "$man" '^source: linux-source-6\.12=6\.12\.117-1~deb12u1$' "  and the source package, linux-source-6.12"
unlike "$man" '^cve:' "  and no CVE"
like "$man" '^headers: linux-headers-6\.12\.117\+deb12-amd64=6\.12\.117-1~deb12u1$' \
	"  and the headers package (fetched, not installed)"
vout=$(ksplice-create --build "$build" --verify "$tm" 2>"$tmp/verify.log")
ok $? "ksplice-create --verify rebuilds it from the recorded inputs"
is "$vout" identical "  identical"

out=$(ksplice-create --build "$build" -o "$tmp" --debian "$range:../etc/passwd" 2>&1)
if [ $? != 0 ]; then like "$out" "'../etc/passwd' is not a file of the source tree" "--debian A..B:PATH with a path out of the tree is refused, saying so"
else ok 1 "--debian A..B:PATH with a path out of the tree is refused"; fi
out=$(ksplice-create --build "$build" -o "$tmp" --debian "$range:fs/proc/cmdline.c" 2>&1)
if [ $? != 0 ]; then like "$out" 'fs/proc/cmdline.c is the same in both versions' "  and a file the update does not change, saying so"
else ok 1 "  and a file the update does not change"; fi

gre=$(mk gre --debian "$range:net/ipv4/ip_gre.c")
ok $? "the ip_gre fix of the same update builds (a module target)"
need gre "$gre"
like "$(cat "$tmp/create-gre.log")" 'changed function: erspan_tunnel_init \(net/ipv4/ip_gre.c, ip_gre\)' \
	"  its changed function is erspan_tunnel_init, in ip_gre"

# The stacked update: on the source with the first fix applied.
diff -u --label a/fs/proc/task_mmu.c --label b/fs/proc/task_mmu.c \
	"$src/fs/proc/task_mmu.c" "$("$KSPLICE_TOP/scripts/fetch-source" "${range##*..}" | tail -n 1)/fs/proc/task_mmu.c" \
	>"$tmp/tm.patch"
stsrc=$(PATCHED_BASE=$src patched_source "$tmp/tm.patch")
sed_patch "$stsrc" fs/proc/task_mmu.c "$tmp/st.patch" \
	'/^static long do_pagemap_cmd/,/^}/s/return -ENOIOCTLCMD;/return -EOPNOTSUPP;/'
ok $? "a second change of do_pagemap_cmd, on top of the first"
st=$(mk st --patch "$tmp/st.patch" "$stsrc")
ok $? "  builds as an update stacked on the first"
need st "$st"

lm=$(mk lm --patch "$KSPLICE_TOP/tests/patches/loadavg-macro.patch" "$src")
ok $? "the header change (loadavg.h's LOAD_FRAC) builds"
need lm "$lm"
like "$(cat "$tmp/create-lm.log")" 'changed function: loadavg_proc_show \(fs/proc/loadavg.c, vmlinux\)' \
	"  loadavg_proc_show, which expands the macro, changes"
zero=$(mk zero --patch "$KSPLICE_TOP/tests/patches/read_iter_zero.patch" "$src")
ok $? "the read_iter_zero update builds"
need zero "$zero"

out=$(vm --kernel "$abi" --smp 2 --module ip_gre --file "$tm" --file "$gre" --file "$st" --file "$lm" \
	--file "$zero" -- "$guest_peek"'
	e() { echo "$1 $(ioctlerr /proc/self/pagemap 0x1234)"; }
	e STOCK
	ksplice-apply ksplice-st.tar.gz >/tmp/st1 2>&1; echo "ST-FIRST=$?"
	sed "s/^/ST1: /" /tmp/st1
	lsmod | grep -q "^ksplice_st " && echo ST-MODULE-LEFT
	e STOCK-STILL
	ksplice-apply ksplice-tm.tar.gz; echo "TM-APPLY=$?"
	peek tm tm-applied
	e TM
	ksplice-apply ksplice-st.tar.gz; echo "ST-APPLY=$?"
	e ST
	ksplice-undo tm >/tmp/u1 2>&1; echo "TM-UNDO-FIRST=$?"
	sed "s/^/U1: /" /tmp/u1
	e ST-STILL
	ksplice-undo st; echo "ST-UNDO=$?"
	e TM-AGAIN
	ksplice-undo tm; echo "TM-UNDO=$?"
	e UNDONE
	modprobe ip_gre; echo "MODPROBE=$?"
	a=$(awk "\$3 == \"erspan_tunnel_init\" && \$4 == \"[ip_gre]\" { print \"0x\" \$1 }" /proc/kallsyms)
	echo "GRE-BEFORE $(kpeek $a 16)"
	ksplice-apply ksplice-gre.tar.gz; echo "GRE-APPLY=$?"
	peek gre gre-applied
	ksplice-undo gre; echo "GRE-UNDO=$?"
	echo "GRE-AFTER $(kpeek $a 16)"
	echo "LOADAVG-BEFORE $(cat /proc/loadavg)"
	ksplice-apply ksplice-lm.tar.gz >/dev/null; echo "LM-APPLY=$?"
	echo "LOADAVG-APPLIED $(cat /proc/loadavg)"
	ksplice-undo lm >/dev/null; echo "LM-UNDO=$?"
	echo "LOADAVG-UNDONE $(cat /proc/loadavg)"
	taskset 2 readvzero 64 >/tmp/rz.out & p=$!
	while ! grep -q reading /tmp/rz.out && kill -0 $p; do sleep 0.2; done
	sleep 0.5
	echo "RZ-PID=$p"
	taskset 1 ksplice-apply --max-tries 3 --retry-interval 100 ksplice-zero.tar.gz >/tmp/z1 2>&1
	echo "ZERO-BUSY=$?"
	sed "s/^/Z1: /" /tmp/z1
	kill $p; wait $p
	ksplice-apply ksplice-zero.tar.gz >/dev/null 2>&1; echo "ZERO-APPLY=$?"
	readvzero 1 >/tmp/rz2.out & p=$!
	sleep 1; grep -q reading /tmp/rz2.out && kill -0 $p && echo ZERO-READS
	kill $p; wait $p
	ksplice-undo zero >/dev/null 2>&1; echo "ZERO-UNDO=$?"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the 6.12 guest ran the scenario (no boot failure, crash or timeout)"
diag "$(grep -v '^PEEK' <<<"$out" | head -60)"
like "$out" 'STOCK errno 22' "stock do_pagemap_cmd: EINVAL"
like "$out" 'ST-FIRST=[1-9]' "the stacked update alone is refused: its pre code is not the running code"
like "$out" 'ST1: .*do_pagemap_cmd' "  naming do_pagemap_cmd"
unlike "$out" 'ST-MODULE-LEFT' "  and its module is not left loaded"
like "$out" 'STOCK-STILL errno 22' "  nothing changed: still EINVAL"
like "$out" 'TM-APPLY=0' "Debian's fix applies"
check_jumps tm-applied "$out"; ok $? "  do_pagemap_cmd jumps to its new code (after endbr64 and the ftrace site)"
like "$out" 'TM errno 25' "  and an unknown ioctl now fails ENOTTY, as in 6.12.118"
like "$out" 'ST-APPLY=0' "the stacked update applies on it"
like "$out" 'ST errno 95' "  EOPNOTSUPP"
like "$out" 'TM-UNDO-FIRST=[1-9]' "undoing the first under the second is refused"
like "$out" 'U1: .*st' "  naming the update on top"
like "$out" 'ST-STILL errno 95' "  nothing changed"
like "$out" 'ST-UNDO=0' "undo of the second"
like "$out" 'TM-AGAIN errno 25' "  back to the first's ENOTTY"
like "$out" 'TM-UNDO=0' "undo of the first"
like "$out" 'UNDONE errno 22' "  back to EINVAL"
like "$out" 'MODPROBE=0' "ip_gre loads"
like "$out" 'GRE-APPLY=0' "the ip_gre fix applies to the module"
like "$out" 'PEEK gre-applied erspan_tunnel_init 0x' "  erspan_tunnel_init is replaced"
check_jumps gre-applied "$out"; ok $? "  erspan_tunnel_init, in ip_gre, jumps to its new code"
like "$out" 'GRE-UNDO=0' "  and is undone"
gb=$(sed -n 's/^GRE-BEFORE //p' <<<"$out")
is "$(sed -n 's/^GRE-AFTER //p' <<<"$out")" "${gb:-none}" "  erspan_tunnel_init's bytes are the stock ones again"
two='[0-9]+\.[0-9]{2}'
three='[0-9]+\.1[0-9]{2}'
like "$out" "LOADAVG-BEFORE $two $two $two " "/proc/loadavg: two decimals"
like "$out" 'LM-APPLY=0' "the header change applies"
like "$out" "LOADAVG-APPLIED $three $three $three " "  /proc/loadavg prints what the new macro computes"
like "$out" "LOADAVG-UNDONE $two $two $two " "  and two decimals again after undo"
rz=$(sed -n 's/^RZ-PID=//p' <<<"$out")
like "$out" 'ZERO-BUSY=[1-9]' "read_iter_zero is refused while readvzero runs it"
like "$out" "Z1: .*readvzero.*${rz:-none}.*read_iter_zero" "  naming readvzero, its pid and read_iter_zero"
like "$out" 'ZERO-APPLY=0' "  and applies once it is gone"
like "$out" 'ZERO-READS' "  readv of /dev/zero works through the new code"
like "$out" 'ZERO-UNDO=0' "  and is undone"
unlike "$out" '^DMESG' "no oops or warning in the 6.12 guest"

out=$(vm --kernel "$abi" --cpu Skylake-Client --append retbleed=stuff --file "$lm" -- '
	echo "RETBLEED $(cat /sys/devices/system/cpu/vulnerabilities/retbleed)"
	echo "D-BEFORE $(cat /proc/loadavg)"
	ksplice-apply ksplice-lm.tar.gz 2>&1 | sed "s/^/D-LM: /"
	echo "D-APPLIED $(cat /proc/loadavg)"
	ksplice-undo lm >/dev/null; echo "D-UNDO=$?"
	echo "D-UNDONE $(cat /proc/loadavg)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the call depth tracking guest ran it"
diag "$out"
like "$out" 'RETBLEED Mitigation: Stuffing' "  call depth tracking is on (retbleed: Stuffing)"
like "$out" 'D-LM: Done! Applied update lm' "  the header change matches through the accounting thunks and applies"
like "$out" "D-APPLIED $three $three $three " "  /proc/loadavg prints the new macro's digits"
like "$out" "D-UNDONE $two $two $two " "  and two decimals after undo"
unlike "$out" '^DMESG' "  no oops or warning"

cloud=${abi%-amd64}-cloud-amd64
cbuild=$("$KSPLICE_TOP/scripts/fetch-headers" "$cloud" | tail -n 1)
out=$(ksplice-create --build "$cbuild" --id tmc -o "$tmp" --debian "$range:fs/proc/task_mmu.c" \
	2>"$tmp/create-tmc.log")
ok $? "the same fix builds for $cloud"
tmc=${out##*$'\n'}
need tmc "$tmc"
out=$(vm --kernel "$cloud" --file "$tmc" -- '
	echo "C-STOCK $(ioctlerr /proc/self/pagemap 0x1234)"
	ksplice-apply ksplice-tmc.tar.gz; echo "C-APPLY=$?"
	echo "C-TM $(ioctlerr /proc/self/pagemap 0x1234)"
	ksplice-undo tmc; echo "C-UNDO=$?"
	echo "C-UNDONE $(ioctlerr /proc/self/pagemap 0x1234)"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	true
' 2>&1)
ok $? "the cloud guest ran it"
diag "$out"
like "$out" 'C-APPLY=0' "  it applies on the cloud kernel"
like "$out" 'C-STOCK errno 22' "  EINVAL before"
like "$out" 'C-TM errno 25' "  ENOTTY while applied"
like "$out" 'C-UNDONE errno 22' "  EINVAL after undo"
unlike "$out" '^DMESG' "  no oops or warning"
