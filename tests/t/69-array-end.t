#!/bin/bash
# Code that points one past a static array's end (proc_tgid_base_lookup
# passes tgid_base_stuff + ARRAY_SIZE(tgid_base_stuff); sel_fill_super
# compares with the end of its files table) refers to that array, at its
# size: an update of it applies, /proc/<pid>/ lookups find every entry
# through the running array (the last one included), a new name answers
# EXDEV, and undo restores it.  Built from a source whose array is one
# entry longer, the update is refused.  And when the core rejects an
# update module as it loads (one doctored to name another kernel
# release), ksplice-apply prints the core's reason from the kernel log.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/skew-match.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
src=$(ksplice_source)
f=fs/proc/base.c
sed_patch "$src" $f "$tmp/tgid.patch" '/^static struct dentry \*proc_tgid_base_lookup/,/^}/s/^\treturn proc_pident_lookup(dir, dentry,$/\tif (dentry->d_name.len == 7 \&\& !memcmp(dentry->d_name.name, "ksplice", 7))\n\t\treturn ERR_PTR(-EXDEV);\n&/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/tgid.patch")" -eq 3 ] || bail "the patch does not apply to this source"

upd=$(make_update "$tmp/tgid.patch" tgid)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-tgid.log"; bail "no update file"; }
like "$(cat "$tmp/create-tgid.log")" 'changed function: proc_tgid_base_lookup' "proc_tgid_base_lookup changed"

# sel_fill_super's loop ends at its files table's end: it matches too
# (nothing runs it after boot: selinuxfs is mounted once, if at all).
f=security/selinux/selinuxfs.c
sed_patch "$src" $f "$tmp/sel.patch" 's/^\tret = simple_fill_super(sb, SELINUX_MAGIC, selinux_files);$/\tpr_debug("ksplice sel_fill_super\\n");\n&/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/sel.patch")" -eq 2 ] || bail "the selinuxfs patch does not apply to this source"
sel=$(make_update "$tmp/sel.patch" sel)
ok $? "ksplice-create builds the update of sel_fill_super"
[ -s "$sel" ] || { sed 's/^/# /' "$tmp/create-sel.log"; bail "no update file"; }

skew=$(skew_match_source) || bail "cannot make the skewed source"
bad=$(make_update "$tmp/tgid.patch" tgidskew "$skew")
ok $? "ksplice-create builds the update from a source with a longer array"
[ -s "$bad" ] || { sed 's/^/# /' "$tmp/create-tgidskew.log"; bail "no update file"; }

# The doctored update: its module names release 6.1.0-99-amd64 (the
# string of struct ksplice_update, not the module's vermagic).
rel=$(tar -xOzf "$upd" manifest | sed -n 's/^kernel_release[ =:]*//p' | head -n 1)
[ -n "$rel" ] || rel=$KSPLICE_KERNEL_ABI
mkdir "$tmp/doc" && tar -xzf "$upd" -C "$tmp/doc" || bail "cannot unpack the update"
python3 - "$tmp/doc/ksplice_tgid.ko" "$rel" <<'PY' || bail "cannot doctor the update module"
import sys
p, rel = sys.argv[1], sys.argv[2].encode()
d = open(p, "rb").read()
# The last: the .note.Linux of the build and vermagic come first.
old, new = b"\0" + rel + b"\0", b"\0" + rel.replace(b"-56-", b"-99-") + b"\0"
at = d.rfind(old)
assert old != new and at > d.find(b"vermagic=")
open(p, "wb").write(d[:at] + new + d[at + len(old):])
PY
# Its sha256 in the manifest made to fit, as a careful tamperer would: what
# is tested is the core's own check and that ksplice-apply shows its reason.
sed -i "s/^member_sha256: ksplice_tgid.ko .*/member_sha256: ksplice_tgid.ko $(sha256sum <"$tmp/doc/ksplice_tgid.ko" | cut -d' ' -f1)/" \
	"$tmp/doc/manifest" || bail "cannot fix the manifest"
tar -czf "$tmp/ksplice-tgiddoc.tar.gz" -C "$tmp/doc" $(tar -tzf "$upd") || bail "cannot repack"

out=$(vm --file "$upd" --file "$bad" --file "$sel" --file "$tmp/ksplice-tgiddoc.tar.gz" -- '
	look() { for n in status ksm_stat ksplice; do
		if cat /proc/self/$n >/dev/null 2>/tmp/err; then echo -n "$n=ok "; else echo -n "$n=$(sed "s/.*: //" /tmp/err) "; fi
	done; echo; }
	echo "BEFORE: $(look)"
	ksplice-apply ksplice-tgid.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(look)"
	ksplice-undo tgid; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(look)"
	ksplice-apply ksplice-sel.tar.gz && ksplice-undo sel; echo "SEL-STATUS=$?"
	ksplice-apply ksplice-tgidskew.tar.gz; echo "SKEW-STATUS=$?"
	ksplice-apply ksplice-tgiddoc.tar.gz; echo "DOC-STATUS=$?"
	lsmod | grep -q "^ksplice_\(tgid\|sel\)" && echo "UPDATE-MODULE-STILL-LOADED"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^DMESG' | head -24)"
like "$out" 'BEFORE: status=ok ksm_stat=ok ksplice=No such file or directory' "before: the stock lookups"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" 'AFTER: status=ok ksm_stat=ok ksplice=Invalid cross-device link' "after apply: the new code runs, and finds the array's last entry"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" 'UNDONE: status=ok ksm_stat=ok ksplice=No such file or directory' "after undo: the stock lookups again"
like "$out" 'SEL-STATUS=0' "the update of sel_fill_super applies and is undone"
like "$out" 'SKEW-STATUS=[1-9]' "the update from the longer array is refused"
like "$out" 'proc_tgid_base_lookup\+0x[0-9a-f]+: refers to .*, not to tgid_base_stuff' "... at the array's end"
like "$out" 'DOC-STATUS=[1-9]' "the doctored update is refused"
like "$out" 'The kernel log says: ksplice: rejected update: built for another kernel release' "ksplice-apply shows the core's reason"
unlike "$out" 'was it built for a different kernel' "... not a guess"
unlike "$out" 'UPDATE-MODULE-STILL-LOADED|^DMESG' "nothing left loaded, no oops or warning"
