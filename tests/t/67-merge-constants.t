#!/bin/bash
# Pre code that reads a merged constant: info_print_prefix stores " \0"
# with one 2-byte load of an anonymous .rodata.cst2 entry (the assembler
# keeps it against the local label .LC7; the running kernel has no name
# for it).  Matching compares the constant's bytes: an update of
# info_print_prefix applies (dmesg's prefix becomes "[time]|"), and is
# undone; the same update built from a source whose constant is "_\0"
# is refused, naming the data that differs.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/skew-match.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 12
src=$(ksplice_source)
f=kernel/printk/printk.c
sed_patch "$src" $f "$tmp/prefix.patch" '/^static size_t info_print_prefix/,/^}/s/^\treturn len;$/\tif (time \&\& len > 1 \&\& buf[len - 2] == 0x5d)\n\t\tbuf[len - 1] = 0x7c;\n&/' ||
	bail "the edit does not fit this source"
[ "$(grep -c '^+' "$tmp/prefix.patch")" -eq 3 ] || bail "the patch does not apply to this source"

upd=$(make_update "$tmp/prefix.patch" prefix)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-prefix.log"; bail "no update file"; }
like "$(cat "$tmp/create-prefix.log")" 'changed function: info_print_prefix' "info_print_prefix changed"

skew=$(skew_match_source) || bail "cannot make the skewed source"
bad=$(make_update "$tmp/prefix.patch" prefixskew "$skew")
ok $? "ksplice-create builds the update from a source whose constant is \"_\""
[ -s "$bad" ] || { sed 's/^/# /' "$tmp/create-prefixskew.log"; bail "no update file"; }

out=$(vm --file "$upd" --file "$bad" -- '
	echo "BEFORE: $(dmesg | tail -n 1)"
	ksplice-apply ksplice-prefix.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(dmesg | tail -n 1)"
	ksplice-undo prefix; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(dmesg | tail -n 1)"
	ksplice-apply ksplice-prefixskew.tar.gz; echo "SKEW-STATUS=$?"
	lsmod | grep -q "^ksplice_prefixskew " && echo "UPDATE-MODULE-STILL-LOADED"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
like "$out" '^BEFORE: \[ *[0-9]+\.[0-9]+\] ' "before: the stock prefix"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER: \[ *[0-9]+\.[0-9]+\]\|' "after apply: the new code writes the prefix"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" '^UNDONE: \[ *[0-9]+\.[0-9]+\] ' "after undo: the stock prefix again"
like "$out" 'SKEW-STATUS=[1-9]' "the update from the other source is refused"
like "$out" 'info_print_prefix\+0x[0-9a-f]+: data at .* differs from the pre object' "... because the constant's bytes differ"
unlike "$out" 'UPDATE-MODULE-STILL-LOADED|^DMESG' "nothing left loaded, no oops or warning"
