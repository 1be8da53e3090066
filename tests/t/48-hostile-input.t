#!/bin/bash
# Hostile and broken update files, in the guest: truncated, bit-flipped,
# update module replaced by a non-x86 ELF or by garbage, core module
# replaced by garbage, kernel_release edited, module built against another
# kernel ABI (its modversions CRCs differ), duplicate members.  (A module
# whose vermagic alone names another release loads: with modversions the
# kernel compares CRCs, not the release; an update built from another
# kernel's source is refused by run-pre matching, see 42-no-match.t.)  ksplice-apply refuses each with a
# clear message; no update module is loaded, the function's text and
# uname -v are unchanged, the kernel keeps running.  Then: the same update
# applied twice (also from a second copy of the file), undo of an unknown
# id, of a malformed id, and a second undo give clear messages.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cases="coregarbage trunc flip elfarch garbage release abi dupmember digest"
plan $((3 + 4 * 9 + 12 + 1))
upd=$(make_update "$KSPLICE_TOP/examples/uname.patch" uname)
ok $? "ksplice-create builds the uname update"

# The broken files, made from the good one.
x=$tmp/x; mkdir -p "$x"
tar xzf "$upd" -C "$x"
ok $([ -f "$x/manifest" ] && [ -f "$x/ksplice_uname.ko" ] && [ -f "$x/ksplice.ko" ]; echo $?) \
	"the update file holds manifest, ksplice_uname.ko and ksplice.ko"
pack() {	# NAME DIR [MEMBERS...]: $tmp/ksplice-NAME.tar.gz from DIR
	local name=$1 dir=$2 m; shift 2
	[ $# -gt 0 ] || set -- manifest ksplice_uname.ko ksplice.ko
	# The manifest's sha256s made to fit, as a careful tamperer would:
	# what is tested past the reader is the kernel's own checks.
	for m in ksplice_uname.ko ksplice.ko; do
		sed -i "s/^member_sha256: $m .*/member_sha256: $m $(sha256sum <"$dir/$m" | cut -d' ' -f1)/" \
			"$dir/manifest"
	done
	tar czf "$tmp/ksplice-$name.tar.gz" -C "$dir" "$@"
}
variant() {	# NAME: a fresh copy of the members in $tmp/v-NAME
	rm -rf "$tmp/v-$1"; cp -a "$x" "$tmp/v-$1"; echo "$tmp/v-$1"
}
size=$(stat -c %s "$upd")
head -c $((size / 2)) "$upd" >"$tmp/ksplice-trunc.tar.gz"
cp "$upd" "$tmp/ksplice-flip.tar.gz"
for off in $((size / 3)) $((size / 3 + 1)) $((size / 2)); do
	printf '\xa5' | dd of="$tmp/ksplice-flip.tar.gz" bs=1 seek=$off conv=notrunc 2>/dev/null
done
d=$(variant elfarch)	# e_machine = EM_AARCH64 (183)
printf '\xb7\x00' | dd of="$d/ksplice_uname.ko" bs=1 seek=18 conv=notrunc 2>/dev/null
pack elfarch "$d"
d=$(variant garbage)
head -c 9000 /dev/urandom >"$d/ksplice_uname.ko"
pack garbage "$d"
d=$(variant coregarbage)
head -c 9000 /dev/urandom >"$d/ksplice.ko"
pack coregarbage "$d"
d=$(variant release)
sed -i 's/^kernel_release: .*/kernel_release: 6.1.0-99-amd64/' "$d/manifest"
pack release "$d"
d=$(variant abi)	# as if built against another ABI: every symbol CRC differs
read -r voff vsize < <(readelf -S -W "$d/ksplice_uname.ko" |
	sed -n 's/.*__versions *PROGBITS *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
voff=$((16#${voff:-0})) vsize=$((16#${vsize:-0}))
for ((e = 0; e < ${vsize:-0}; e += 64)); do
	printf '\xa5' | dd of="$d/ksplice_uname.ko" bs=1 seek=$((voff + e)) conv=notrunc 2>/dev/null
done
pack abi "$d"
d=$(variant digest)	# one byte changed, the manifest's sha256 left as it was
printf '\xa5' | dd of="$d/ksplice_uname.ko" bs=1 seek=100 conv=notrunc 2>/dev/null
tar czf "$tmp/ksplice-digest.tar.gz" -C "$d" manifest ksplice_uname.ko ksplice.ko
d=$(variant dupmember)
tar czf "$tmp/ksplice-dupmember.tar.gz" --hard-dereference -C "$d" \
	manifest ksplice_uname.ko ksplice.ko ksplice_uname.ko
ok $([ "${vsize:-0}" -ge 64 ] && ! cmp -s "$x/ksplice_uname.ko" "$tmp/v-abi/ksplice_uname.ko"; echo $?) \
	"the other-ABI variant has its __versions CRCs changed"
cp "$upd" "$tmp/ksplice-copy.tar.gz"

files=()
for c in $cases copy; do files+=(--file "$tmp/ksplice-$c.tar.gz"); done
out=$(vm --file "$upd" "${files[@]}" -- '
	old=$(uname -v); before=$(kpeek __do_sys_newuname 32)
	for c in '"$cases"'; do
		ksplice-apply ksplice-$c.tar.gz >/tmp/o 2>&1; echo "CASE-$c-STATUS=$?"
		sed "s/^/CASE-$c: /" /tmp/o
		lsmod | grep "^ksplice_" | sed "s/^/CASE-$c-LOADED: /"
		[ -n "$before" ] && [ "$(kpeek __do_sys_newuname 32)" = "$before" ] || echo "CASE-$c-TEXT-CHANGED"
		[ "$(uname -v)" = "$old" ] || echo "CASE-$c-UNAME-CHANGED"
	done
	ksplice-apply ksplice-uname.tar.gz >/tmp/o 2>&1; echo "GOOD-STATUS=$?"
	ksplice-apply ksplice-uname.tar.gz >/tmp/o 2>&1; echo "TWICE-STATUS=$?"; sed "s/^/TWICE: /" /tmp/o
	ksplice-apply ksplice-copy.tar.gz >/tmp/o 2>&1; echo "COPY-STATUS=$?"; sed "s/^/COPY: /" /tmp/o
	echo "STILL-NEW=$(uname -v)"
	ksplice-undo nosuch >/tmp/o 2>&1; echo "UNKNOWN-STATUS=$?"; sed "s/^/UNKNOWN: /" /tmp/o
	ksplice-undo "Bad-Id" >/tmp/o 2>&1; echo "BADID-STATUS=$?"; sed "s/^/BADID: /" /tmp/o
	ksplice-undo uname >/tmp/o 2>&1; echo "UNDO-STATUS=$?"
	ksplice-undo uname >/tmp/o 2>&1; echo "UNDO2-STATUS=$?"; sed "s/^/UNDO2: /" /tmp/o
	dmesg | grep -E "Oops|BUG:|general protection" | sed "s/^/DMESG: /"
	echo ALIVE
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
msg_coregarbage='cannot load the ksplice core module'
msg_trunc='corrupt or truncated'
msg_flip='corrupt|truncated|not a ksplice update'
msg_elfarch='cannot load the update module.*(Exec format|architecture)'
msg_garbage='cannot load the update module.*(Exec format|Invalid|not an ELF|not a kernel module)'
msg_release='built for kernel 6\.1\.0-99-amd64, but the running kernel is 6\.1\.0-56-amd64'
msg_abi='cannot load the update module.*(Exec format error|Invalid argument)'
msg_digest="member 'ksplice_uname.ko' does not match its sha256"
msg_dupmember="ksplice_uname.ko' (is a second update module|appears twice)"
for c in $cases; do
	like "$out" "CASE-$c-STATUS=[1-9]" "$c: ksplice-apply refuses"
	eval re=\$msg_$c
	like "$out" "CASE-$c: .*($re)" "$c: saying why"
	unlike "$out" "CASE-$c-LOADED" "$c: no update module is loaded"
	unlike "$out" "CASE-$c-(TEXT|UNAME)-CHANGED" "$c: kernel text and uname unchanged"
done
like "$out" 'GOOD-STATUS=0' "the good update applies after all that"
like "$out" 'TWICE-STATUS=[1-9]' "applying it twice is refused"
like "$out" 'TWICE: .*already applied' "... as already applied"
like "$out" 'COPY-STATUS=[1-9].*|COPY: .*already applied' "a second file with the same update is refused as already applied"
like "$out" 'STILL-NEW=ksplice: patched live' "the applied update stays in"
like "$out" 'UNKNOWN-STATUS=[1-9]' "undo of an unknown id fails"
like "$out" 'UNKNOWN: .*no update nosuch is loaded' "... saying no such update is loaded"
like "$out" "BADID: .*'Bad-Id' is not an update id" "undo of a malformed id says so"
like "$out" 'UNDO-STATUS=0' "the update undoes"
like "$out" 'UNDO2-STATUS=[1-9]|UNDO2: .*(no update uname is loaded|not applied)' "a second undo says there is nothing to undo"
like "$out" 'ALIVE' "the kernel keeps running"
unlike "$out" '^DMESG' "no oops in dmesg"
