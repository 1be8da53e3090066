#!/bin/bash
# Alternatives whose replacements are calls: _copy_to_iter inlines
# copy_user_generic(), an ALTERNATIVE_2 of "call copy_user_generic_unrolled",
# "call copy_user_generic_string" (REP_GOOD: qemu64) and "call
# copy_user_enhanced_fast_string" (ERMS: max), each call re-aimed by
# apply_alternatives().  An update of it applies (matching accepts the call
# each CPU got, and only at its real target), runs every read(2), and is
# undone, on both CPU models.
# And an ALTERNATIVE_3: iov_iter_zero inlines __clear_user(), "rep stosb"
# or a call of clear_user_erms, _rep_good or _original (ALT_NOT of FSRM,
# ERMS, REP_GOOD), three entries at one offset.  An update of it loads
# (the core took only two entries there for one group), applies, and
# reads run through the new code: a readv(2) of 1234 bytes of /dev/zero
# (read_iter_zero hands them to iov_iter_zero) fails while it is applied.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 30
src=$(ksplice_source)
f=lib/iov_iter.c
mkdir -p "$tmp/a/lib"
cp "$src/$f" "$tmp/a/$f"
# update ID FUNCTION SED: the update of FUNCTION that SED (three added
# lines) makes of lib/iov_iter.c, its file in $upd.
update() {
	local id=$1 fn=$2
	sed "$3" "$tmp/a/$f" >"$tmp/new.c"
	(cd "$tmp/a" && diff -u $f ../new.c | sed "1s|.*|--- a/$f|;2s|.*|+++ b/$f|") >"$tmp/$id.patch"
	[ "$(grep -c '^+' "$tmp/$id.patch")" -eq 3 ] || bail "the $fn patch does not apply to this source"
	upd=$(make_update "$tmp/$id.patch" "$id")
	ok $? "ksplice-create builds the update of $fn"
	[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-$id.log"; bail "no update file"; }
}

update cu _copy_to_iter '/^static int copyout(void __user \*to, const void \*from, size_t n)$/,/^}/s/^\t\treturn n;$/&\n\tif (unlikely(!n))\n\t\treturn 0;/'
like "$(cat "$tmp/create-cu.log")" 'changed function: _copy_to_iter' "_copy_to_iter changed"

# The call of the first copy_user_generic() is at _copy_to_iter+0xb5.
for cpu in qemu64 max; do
	out=$(vm --cpu $cpu --file "$upd" -- '
		a=$(grep " _copy_to_iter$" /proc/kallsyms | cut -d" " -f1)
		c=$(kpeek _copy_to_iter 186 | tr -d " \n" | tail -c 10)
		r=$(echo "$c" | cut -c3-10 | sed "s/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/")
		d=$(printf "%x" $(( 0x$a + 0xb5 + 5 + ($(printf "%d" 0x$r) ^ 0x80000000) - 0x80000000 )))
		echo "CALLS: ${c%????????} $(grep -i "^0*$d " /proc/kallsyms | cut -d" " -f3)"
		ksplice-apply ksplice-cu.tar.gz; echo "APPLY-STATUS=$?"
		echo "READ: $(cat /proc/version | cut -c1-13)"
		ksplice-undo cu; echo "UNDO-STATUS=$?"
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	' 2>&1)
	ok $? "$cpu: the guest ran the scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
	if [ $cpu = max ]; then
		like "$out" 'CALLS: e8 copy_user_enhanced_fast_string' "$cpu: the kernel calls copy_user_enhanced_fast_string there"
	else
		like "$out" 'CALLS: e8 copy_user_generic_string' "$cpu: the kernel calls copy_user_generic_string there"
	fi
	like "$out" 'APPLY-STATUS=0' "$cpu: ksplice-apply succeeds"
	like "$out" 'READ: Linux version' "$cpu: reads run through the new code"
	like "$out" 'UNDO-STATUS=0' "$cpu: ksplice-undo succeeds"
	unlike "$out" '^DMESG' "$cpu: no oops or warning"
done

update zero iov_iter_zero '/^size_t iov_iter_zero(size_t bytes, struct iov_iter \*i)$/,/^}/s/^{$/&\n\tif (bytes == 1234)\n\t\treturn 0;/'
like "$(cat "$tmp/create-zero.log")" 'changed function: iov_iter_zero' "  iov_iter_zero changed"
for cpu in qemu64 max; do
	out=$(vm --cpu $cpu --file "$upd" -- '
		z() { echo "$1: $(readvzero -n 1234 2>&1)"; }
		z BEFORE
		ksplice-apply ksplice-zero.tar.gz; echo "APPLY-STATUS=$?"
		z APPLIED
		ksplice-undo zero; echo "UNDO-STATUS=$?"
		z UNDONE
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace|rejected" | sed "s/^/DMESG: /"
	' 2>&1)
	ok $? "$cpu: the guest ran the ALTERNATIVE_3 scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | head -12)"
	like "$out" 'APPLY-STATUS=0' "$cpu: the update of iov_iter_zero applies"
	like "$out" 'BEFORE: 1234' "$cpu: (positive) before it, a readv of 1234 bytes of /dev/zero gives them"
	like "$out" 'APPLIED: readvzero: readv: Bad address' "$cpu: applied, the new code runs: the readv fails (iov_iter_zero gave nothing)"
	like "$out" 'UNDO-STATUS=0' "$cpu: ksplice-undo succeeds"
	like "$out" 'UNDONE: 1234' "$cpu: undone, the readv gives 1234 bytes again"
	unlike "$out" '^DMESG' "$cpu: no oops, warning or rejected update"
done
