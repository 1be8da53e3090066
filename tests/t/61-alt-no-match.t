#!/bin/bash
# A real difference at an alternative site is a mismatch: an update built
# from a source whose TASK_SIZE_MAX alternative (original and LA57
# replacement) differs from the running kernel's is refused with no_match
# on qemu64 (the original runs there) and on max (the replacement runs).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 12
src=$(ksplice_source)
skew=${KSPLICE_CACHE:-$HOME/.cache/ksplice}/skewed-alt-source
if [ ! -e "$skew/.complete" ]; then
	rm -rf "$skew"; mkdir -p "$skew"
	cp -al "$src" "$skew/linux"
	f=$skew/linux/arch/x86/include/asm/page_64.h
	sed 's/\(\[\(small\|large\)\] "i" ((1ul << [0-9]*)\)-PAGE_SIZE)/\1-2*PAGE_SIZE)/' "$f" >"$f.new" && mv "$f.new" "$f"
	touch "$skew/.complete"
fi
[ "$(grep -c '2\*PAGE_SIZE' "$skew/linux/arch/x86/include/asm/page_64.h")" -eq 2 ]
ok $? "the skewed source differs in both forms of the TASK_SIZE_MAX alternative"

sed_patch "$skew/linux" kernel/sys.c "$tmp/skew.patch" -e '/opt != PR_SET_MM_MAP_SIZE)))/{n;s/$/\n\tif (opt == 0x6b73)\n\t\treturn 0x4b53;/}' ||
	bail "the edit does not fit this source"
upd=$(make_update "$tmp/skew.patch" altskew "$skew/linux")
ok $? "ksplice-create builds the update from the skewed source"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-altskew.log"; bail "no update file"; }

for cpu in qemu64 max; do
	out=$(vm --cpu $cpu --file "$upd" -- '
		ksplice-apply ksplice-altskew.tar.gz; echo "APPLY-STATUS=$?"
		echo "CAUSE: $(cat /sys/kernel/ksplice/altskew/abort_cause 2>/dev/null || echo gone)"
		lsmod | grep -q "^ksplice_altskew " && echo "UPDATE-MODULE-STILL-LOADED"
		true
	' 2>&1)
	ok $? "$cpu: the guest ran the scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | head -12)"
	like "$out" 'APPLY-STATUS=[1-9]' "$cpu: ksplice-apply fails"
	like "$out" 'no_match|not built from .*source|does not match' "$cpu: the failure says the code does not match"
	like "$out" 'alternative site at prctl_set_mm\+0x101' "$cpu: it names the alternative site"
	unlike "$out" 'UPDATE-MODULE-STILL-LOADED' "$cpu: nothing of the update is left loaded"
done
