#!/bin/bash
# Exports a patch adds (src/create/newexports.c, kmod/exports.c): the core
# publishes them as the update module's once the code behind them is
# live, and a module of a "later release" that uses them
# (kmod/test/export-users) loads, with the versions genksyms gives.
#  - vmlinux (tests/patches/new-exports.patch, a function and a variable
#    and nothing else): published on apply; a user with a wrong version
#    is refused; a second update exporting the same names is refused, a
#    cumulative one (--replace) takes them over; undo is refused while a
#    module uses them, and they are gone after it.
#  - a module (tests/patches/new-export-module.patch, dummy's code): not
#    published while dummy is not loaded, published as it loads (the code
#    reads dummy's static: relocated), and dummy stays while they are.
#  - an export of what the running kernel has is not carried, noted.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 47
src=$(ksplice_source)
# create PATCH ID [OPTION]: an update into $tmp, its work directory kept
# (for the versions genksyms gave); prints the work directory.
create() {
	ksplice-create --keep --build "$KSPLICE_BUILD" --patch "$1" --id "$2" \
		${3:-} -o "$tmp" "$src" >"$tmp/create-$2.out" 2>"$tmp/create-$2.log" || return
	sed -n 's/^ksplice-create: work directory kept: //p' "$tmp/create-$2.log"
}
work=$(create "$KSPLICE_TOP/tests/patches/new-exports.patch" nexp)
ok $? "an update of new exports alone builds"
log=$(cat "$tmp/create-nexp.log")
like "$log" 'new export: ksplice_test_twice \(fs/proc/loadavg.c, vmlinux\)' "  naming the new exports"
like "$log" 'no function replaced: the update adds exports' "  and saying what it does"
tar -xzf "$tmp/ksplice-nexp.tar.gz" -C "$tmp" ksplice_nexp.ko manifest
unlike "$(readelf -SW "$tmp/ksplice_nexp.ko")" '__ksymtab' \
	"  its module exports nothing as it loads (no __ksymtab)"
like "$(readelf -SW "$tmp/ksplice_nexp.ko")" 'ksplice_gpl_exports_0' "  (positive) it holds the table the core publishes"
like "$(cat "$tmp/manifest")" '^export: vmlinux ksplice_test_twice$' "  the manifest lists them"
create "$KSPLICE_TOP/tests/patches/new-exports.patch" nexp2 --replace >/dev/null
ok $? "a cumulative update (--replace) of the same exports builds"
create "$KSPLICE_TOP/tests/patches/new-exports.patch" nexp3 >/dev/null
ok $? "a second, not cumulative, one builds"
mwork=$(create "$KSPLICE_TOP/tests/patches/new-export-module.patch" nexpm)
ok $? "an update of a new export of dummy's code builds"

# Exports of two objects: the update carries one object's, and notes the other's.
cat "$KSPLICE_TOP/tests/patches/new-exports.patch" "$KSPLICE_TOP/tests/patches/new-export-module.patch" \
	>"$tmp/two.patch"
upd=$(make_update "$tmp/two.patch" nexptwo)
ok $? "a patch adding exports to vmlinux and to dummy builds"
like "$(cat "$tmp/create-nexptwo.log")" 'note: new export \S+ is not carried: an update carries one object.s exports, and (vmlinux|dummy) has some' \
	"  carrying one object's, and saying which it does not"

# Existing code exported anew: nothing of the update's would be exported.
sed_patch "$src" fs/proc/generic.c "$tmp/old.patch" \
	's/^static int proc_notify_change(/EXPORT_SYMBOL(proc_lookup_de);\n\n&/'
ok $? "(the edit fits the source)"
upd=$(make_update "$tmp/old.patch" nexpold)
[ $? != 0 ] && [ -z "$upd" ]
ok $? "an export of a function the running kernel has is not carried: alone, nothing to update"
like "$(cat "$tmp/create-nexpold.log")" 'note: new export proc_lookup_de is not carried: it exports what the running kernel has' \
	"  saying why"

# The users, with the versions of the patched source; one with a wrong one.
symvers() {	# WORK NAME MODULE KIND
	printf '%s\t%s\t%s\t%s\t\n' \
		"$(sed -n "s/^#SYMVER $2 //p" "$1"/post-0.o.symvers)" "$2" "$3" "$4"
}
{ symvers "$work" ksplice_test_twice vmlinux EXPORT_SYMBOL
  symvers "$work" ksplice_test_answer vmlinux EXPORT_SYMBOL_GPL
  symvers "$mwork" ksplice_dummy_count drivers/net/dummy EXPORT_SYMBOL_GPL; } >"$tmp/extra.symvers"
like "$(cat "$tmp/extra.symvers")" '^0x[0-9a-f]{8}	ksplice_test_twice	' "genksyms versioned the new exports"
mkdir "$tmp/users" "$tmp/bad"
cp "$KSPLICE_TOP"/kmod/test/export-users/{Kbuild,*.c} "$tmp/users/"
cp "$KSPLICE_TOP"/kmod/test/export-users/{Kbuild,ksplice_export_user.c} "$tmp/bad/"
echo 'obj-m := ksplice_export_user.o' >"$tmp/bad/Kbuild"
sed 's/^0x[0-9a-f]*\(\tksplice_test_twice\)/0x00c0ffee\1/' "$tmp/extra.symvers" >"$tmp/bad.symvers"
make -C "$KSPLICE_BUILD" M="$tmp/users" KBUILD_EXTRA_SYMBOLS="$tmp/extra.symvers" \
	modules >"$tmp/users.log" 2>&1 &&
make -C "$KSPLICE_BUILD" M="$tmp/bad" KBUILD_EXTRA_SYMBOLS="$tmp/bad.symvers" \
	modules >>"$tmp/users.log" 2>&1
ok $? "the modules using them build" || sed 's/^/# /' "$tmp/users.log" | tail -20
cp "$tmp/bad/ksplice_export_user.ko" "$tmp/badver.ko"
rm -rf "$tmp"/ksplice-create.* "$work" "$mwork"

oopses='dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"'
out=$(vm --file "$tmp/ksplice-nexp.tar.gz" --file "$tmp/ksplice-nexp2.tar.gz" \
	--file "$tmp/ksplice-nexp3.tar.gz" --file "$tmp/users/ksplice_export_user.ko" \
	--file "$tmp/badver.ko" -- '
	insmod ksplice_export_user.ko 2>/dev/null; echo "USE-BEFORE=$?"
	ksplice-apply ksplice-nexp.tar.gz >/tmp/a.out 2>&1; echo "APPLY=$?"
	sed "s/^/SAYS /" /tmp/a.out
	insmod badver.ko 2>/dev/null; echo "USE-BADVER=$?"
	insmod ksplice_export_user.ko; echo "USE=$?"
	ksplice-apply ksplice-nexp3.tar.gz >/tmp/a3.out 2>&1; echo "APPLY3=$?"
	sed "s/^/SAYS3 /" /tmp/a3.out
	ksplice-apply ksplice-nexp2.tar.gz >/dev/null 2>&1; echo "APPLY2=$?"
	echo "STAGES $(cat /sys/kernel/ksplice/nexp/stage) $(cat /sys/kernel/ksplice/nexp2/stage)"
	rmmod ksplice_export_user; insmod ksplice_export_user.ko; echo "USE2=$?"
	echo "HOLDERS $(ls /sys/module/ksplice_nexp2/holders)"
	rmmod ksplice_nexp; echo "RM-OLD=$?"
	ksplice-undo nexp2 >/tmp/u.out 2>&1; echo "UNDO-HELD=$?"
	sed "s/^/USAYS /" /tmp/u.out
	echo "STAGE-HELD $(cat /sys/kernel/ksplice/nexp2/stage)"
	echo reversed 2>/dev/null >/sys/kernel/ksplice/nexp2/stage; echo "CORE-UNDO=$?"
	echo "CORE-SAYS $(cat /sys/kernel/ksplice/nexp2/abort_cause): $(cat /sys/kernel/ksplice/nexp2/abort_detail)"
	rmmod ksplice_export_user; ksplice-undo nexp2 >/dev/null; echo "UNDO=$?"
	insmod ksplice_export_user.ko 2>/dev/null; echo "USE-AFTER=$?"
	dmesg | grep -E "ksplice export user:|disagrees about version" | sed "s/^.*\] /LOG /"
'"$oopses" 2>&1)
ok $? "the guest ran the vmlinux scenario (the rig exited 0)"
diag "$out"
like "$out" 'USE-BEFORE=[1-9]' "before the update, the module using the exports does not load"
like "$out" 'APPLY=0' "the update applies"
like "$out" 'SAYS   exports ksplice_test_answer' "  saying what it exports"
like "$out" 'USE=0' "the module using them loads"
like "$out" 'LOG ksplice export user: 42' "  and its calls reach the new code and variable (2 x 21)"
like "$out" 'USE-BADVER=[1-9]' "one built with a wrong version of them is refused"
like "$out" 'LOG ksplice_export_user: disagrees about version of symbol ksplice_test_twice' "  by the loader's version check"
like "$out" 'APPLY3=1' "a second update exporting the same names is refused"
like "$out" 'SAYS3 .*The ksplice core says: another applied update exports ksplice_test_' "  with the core's reason"
like "$out" 'APPLY2=0' "a cumulative one takes them over"
like "$out" 'STAGES reversed applied' "  replacing the first"
like "$out" 'USE2=0' "the module using them loads again"
like "$out" 'HOLDERS ksplice_export_user' "  bound to the cumulative update"
like "$out" 'RM-OLD=0' "  and the first update's module goes once unused"
like "$out" 'UNDO-HELD=1' "undo is refused while a module uses the exports"
like "$out" 'USAYS .*modules use what it exports: ksplice_export_user' "  naming it"
like "$out" 'STAGE-HELD applied' "  the update stays applied"
like "$out" 'CORE-UNDO=[1-9]' "the core itself refuses it (the stage written directly)"
like "$out" 'CORE-SAYS exports: modules use its exports: ksplice_export_user' "  with its cause and the module's name"
like "$out" 'UNDO=0' "undone once the module is gone"
like "$out" 'USE-AFTER=[1-9]' "  and the exports are gone with it"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"

out=$(vm --module dummy --file "$tmp/ksplice-nexpm.tar.gz" \
	--file "$tmp/users/ksplice_export_user_dummy.ko" -- '
	ksplice-apply ksplice-nexpm.tar.gz; echo "APPLY=$?"
	insmod ksplice_export_user_dummy.ko 2>/dev/null; echo "USE-NODUMMY=$?"
	modprobe dummy; echo "LOAD=$?"
	insmod ksplice_export_user_dummy.ko; echo "USE=$?"
	rmmod dummy 2>/dev/null; echo "RM-DUMMY=$?"
	rmmod ksplice_export_user_dummy; ksplice-undo nexpm >/dev/null; echo "UNDO=$?"
	rmmod dummy; echo "RM-DUMMY2=$?"
	dmesg | grep -E "ksplice export user of dummy|nexpm: exports" | sed "s/^.*\] /LOG /"
'"$oopses" 2>&1)
ok $? "the guest ran the module scenario (the rig exited 0)"
diag "$out"
like "$out" 'exports ksplice_dummy_count once module dummy loads' "applied while dummy is not loaded, saying when it exports"
like "$out" 'USE-NODUMMY=[1-9]' "  nothing is exported before dummy loads"
like "$out" 'LOG ksplice: nexpm: exports 1 names of dummy' "  and is, as dummy loads"
like "$out" 'LOG ksplice export user of dummy: 1007' "the user's call runs the new code, reading dummy's numdummies (7 + 1000)"
like "$out" 'RM-DUMMY=[1-9]' "dummy does not go while its exports are published"
like "$out" 'RM-DUMMY2=0' "  (positive) and goes after undo"
unlike "$out" 'DMESG: ' "no oops or warning in dmesg"
