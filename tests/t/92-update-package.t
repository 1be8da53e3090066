#!/bin/bash
# ksplice-package and what its packages do, against a fake sysfs tree
# (KSPLICE_FAKE_MODULES=1: nothing is loaded into this machine's kernel):
# the .deb's name, version and contents; its postinst applying the update
# when the running kernel is its ABI (ksplice-apply --installed), saying
# it will at the next boot otherwise, and never failing when the update
# cannot apply; its prerm undoing it; the kill switches; an upgrade: the
# old prerm leaves its update applied, a new cumulative update that cannot
# apply leaves it in force (and the new prerm undoes it on removal), a new
# one that is not cumulative is applied after it is undone.  (The one-step
# replace itself needs the real core: tests/t/94 upgrades in the guest.)
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 63

# Never the real kernel: every tool only says what it would load.
. tests/lib/fake-sysfs.sh
fake_setup update-package root/var/lib/ksplice/updates
other=6.1.0-99-amd64
echo "BOOT_IMAGE=/vmlinuz root=/dev/vda1 quiet" >"$tmp/cmdline"

fake_update nfsd "$rel" 6.1.192-2..6.1.192-3
fake_update plain "$rel"
fake_update elsewhere "$other" 6.1.192-2..6.1.192-3
UPDATE_FILE_TEST_REPLACE=1 fake_update cumul "$rel" 6.1.192-2..6.1.192-4
fake_update plain2 "$rel" 6.1.192-2..6.1.192-4
[ -n "${UPDATE_FILE_TEST_DEBIAN:-}" ] && bail "env leak"

stage() { cat "$KSPLICE_SYSFS/$1/stage" 2>/dev/null || echo none; }

### The package.
mkdir "$tmp/out"
out=$(ksplice-package -o "$tmp/out" "$tmp/nfsd.tar.gz" 2>&1)
ok $? "ksplice-package makes a package of a --debian update"
deb=$tmp/out/ksplice-updates-${rel}_6.1.192-3_amd64.deb
is "$out" "$deb" "... named ksplice-updates-<ABI>_<NEW>_amd64.deb, its path printed"
is "$(dpkg-deb -f "$deb" Package Version Depends)" \
	"$(printf 'Package: ksplice-updates-%s\nVersion: 6.1.192-3\nDepends: ksplice' "$rel")" \
	"... Package, Version (NEW of the update's OLD..NEW) and Depends"
dpkg-deb -x "$deb" "$tmp/root"
dpkg-deb -e "$deb" "$tmp/ctl"
cmp -s "$tmp/nfsd.tar.gz" "$KSPLICE_STORE/$rel/01-nfsd.tar.gz"
ok $? "... which installs the update file as /var/lib/ksplice/updates/<ABI>/01-nfsd.tar.gz"
[ -x "$tmp/ctl/postinst" ] && [ -x "$tmp/ctl/prerm" ]
ok $? "... with a postinst and a prerm"
(cd "$tmp/root" && md5sum -c --quiet "$tmp/ctl/md5sums")
ok $? "... and md5sums that match"

out=$(ksplice-package -o "$tmp/out" "$tmp/nfsd.tar.gz" "$tmp/elsewhere.tar.gz" 2>&1)
st=$?
[ $st -eq 1 ]; ok $? "updates of two kernels in one package: refused (exit $st)"
like "$out" "elsewhere.tar.gz is for kernel $other, but the updates before it are for $rel" "... saying which"
out=$(ksplice-package -o "$tmp/out" "$tmp/plain.tar.gz" 2>&1)
st=$?
[ $st -eq 1 ]; ok $? "an update made with --patch, no --version: refused (exit $st)"
like "$out" 'say which version they bring .* with --version' "... asking for --version"
out=$(ksplice-package -o "$tmp/out" --version 6.1.192-3+k1 "$tmp/plain.tar.gz" 2>&1)
ok $? "... and packaged with --version 6.1.192-3+k1"
[ -s "$tmp/out/ksplice-updates-${rel}_6.1.192-3+k1_amd64.deb" ]; ok $? "... as that version"
echo 'not an update' >"$tmp/junk.tar.gz"
out=$(ksplice-package -o "$tmp/out" "$tmp/junk.tar.gz" 2>&1)
[ $? -eq 1 ]; ok $? "a file that is not an update: refused"
like "$out" 'not a ksplice update file' "... saying so"
is "$(ls "$tmp/out" | wc -l)" 2 "no package was written by the refused runs"

### Its maintainer scripts, on the running ABI.
fake_registered nfsd
out=$("$tmp/ctl/postinst" configure 2>&1)
ok $? "postinst configure succeeds"
like "$out" 'Done! Applied update nfsd' "... applying the update (ksplice-apply --installed)"
like "$out" "would load module .*/ksplice_nfsd.ko" "... loading its module"
is "$(stage nfsd)" applied "... which is now applied"
out=$("$tmp/ctl/postinst" configure 2>&1)
ok $? "postinst again succeeds"
like "$out" 'Update nfsd is already applied' "... leaving the applied update as it is"

out=$("$tmp/ctl/prerm" remove 2>&1)
ok $? "prerm remove succeeds"
like "$out" 'Done! Reversed update nfsd' "... undoing the update"
is "$(stage nfsd)" reversed "... which is now reversed"

# An update that cannot apply: its module does not register.
rm -rf "$KSPLICE_SYSFS"
mkdir -p "$KSPLICE_SYSFS"
out=$("$tmp/ctl/postinst" configure 2>&1)
ok $? "postinst succeeds when the update cannot apply"
like "$out" 'did not register with the ksplice core' "... saying why"
like "$out" 'installed but not applied now; it is tried again at the next boot' "... and when it is tried again"
ksplice-apply --installed >/dev/null 2>&1
st=$?
[ $st -eq 1 ]; ok $? "ksplice-apply --installed then exits 1"

# The kill switches.
fake_registered nfsd
echo "root=/dev/vda1 ksplice=off quiet" >"$tmp/cmdline"
out=$(ksplice-apply --installed 2>&1)
ok $? "ksplice=off: --installed succeeds"
like "$out" 'ksplice is disabled \(ksplice=off is on the kernel command line\)' "... saying it is disabled"
is "$(stage nfsd)" loaded "... and applies nothing"
echo "root=/dev/vda1 ksplice=offline quiet" >"$tmp/cmdline"
touch "$tmp/disable"
out=$(ksplice-apply --installed 2>&1)
like "$out" 'ksplice is disabled \(/etc/ksplice/disable exists\)' "/etc/ksplice/disable: disabled too"
is "$(stage nfsd)" loaded "... nothing applied"
rm "$tmp/disable"
out=$(ksplice-apply --installed 2>&1)
is "$(stage nfsd)" applied "neither (ksplice=offline is another word): applied"

# One update that cannot apply does not stop the others.
rm -rf "$KSPLICE_SYSFS"
fake_registered nfsd
cp "$tmp/elsewhere.tar.gz" "$KSPLICE_STORE/$rel/00-elsewhere.tar.gz"
out=$(ksplice-apply --installed 2>&1)
st=$?
[ $st -eq 1 ]; ok $? "an installed update for another kernel: --installed exits 1"
like "$out" "00-elsewhere.tar.gz is installed but not applied" "... naming it"
is "$(stage nfsd)" applied "... and applies the next one"

### On another ABI: nothing now, at the next boot.
rm -rf "$KSPLICE_SYSFS" "$tmp/root" "$tmp/ctl"
fake_registered elsewhere
ksplice-package -o "$tmp/out" "$tmp/elsewhere.tar.gz" >/dev/null
dpkg-deb -e "$tmp/out/ksplice-updates-${other}_6.1.192-3_amd64.deb" "$tmp/ctl"
out=$("$tmp/ctl/postinst" configure 2>&1)
ok $? "postinst of another ABI's package succeeds"
like "$out" "the running kernel is $rel: the update applies at the next boot of $other" "... saying when it applies"
unlike "$out" 'would load' "... loading nothing"
is "$(stage elsewhere)" loaded "... applying nothing"

### Upgrades, on the running ABI.
rm -rf "$KSPLICE_SYSFS" "$KSPLICE_RUN" "$tmp/root" "$tmp/ctl"
mkdir -p "$tmp/up"
ksplice-package -o "$tmp/up" "$tmp/nfsd.tar.gz" >/dev/null &&
	ksplice-package -o "$tmp/up" "$tmp/cumul.tar.gz" >/dev/null &&
	ksplice-package -o "$tmp/up" --version 6.1.192-4+nc "$tmp/plain2.tar.gz" >/dev/null
ok $? "packages of version 6.1.192-3 (nfsd), 6.1.192-4 (cumul, --replace) and 6.1.192-4+nc (plain2)"
for v in 6.1.192-3 6.1.192-4 6.1.192-4+nc; do
	dpkg-deb -e "$tmp/up/ksplice-updates-${rel}_${v}_amd64.deb" "$tmp/ctl-$v"
done
prev=$KSPLICE_RUN/previous-ksplice-updates-$rel
mkdir -p "$KSPLICE_STORE/$rel"
cp "$tmp/nfsd.tar.gz" "$KSPLICE_STORE/$rel/01-nfsd.tar.gz"
fake_registered nfsd
"$tmp/ctl-6.1.192-3/postinst" configure >/dev/null 2>&1
is "$(stage nfsd)" applied "version 6.1.192-3 installed: nfsd applied"
out=$("$tmp/ctl-6.1.192-3/prerm" upgrade 6.1.192-4 2>&1)
ok $? "the old prerm upgrade succeeds"
unlike "$out" 'Reversed|would unload' "... undoing nothing"
is "$(stage nfsd)" applied "... nfsd stays applied"
is "$(cat "$prev")" " nfsd" "... and is listed for the new postinst"
# dpkg unpacks the new version: the old file goes, the new one comes.
rm -f "$KSPLICE_STORE/$rel"/*
cp "$tmp/cumul.tar.gz" "$KSPLICE_STORE/$rel/01-cumul.tar.gz"
out=$("$tmp/ctl-6.1.192-4/postinst" configure 6.1.192-3 2>&1)
ok $? "the new postinst succeeds when its cumulative update cannot apply"
like "$out" 'cumul.tar.gz is installed but not applied' "... saying so"
unlike "$out" 'Reversed|would unload module ksplice_nfsd' "... and leaves nfsd alone"
is "$(stage nfsd)" applied "... nfsd stays in force"
like "$out" "previous version's updates stay applied: nfsd" "... saying so too"
is "$(cat "$prev" 2>/dev/null)" " nfsd" "... still listed"
fake_registered cumul
out=$("$tmp/ctl-6.1.192-4/prerm" remove 2>&1)
ok $? "the new prerm remove succeeds"
like "$out" 'Done! Reversed update nfsd' "... undoing the previous version's update too"
is "$(stage nfsd)" reversed "... which is reversed"
[ ! -e "$prev" ]; ok $? "... and no longer listed"

# Not cumulative: the old one is undone first, then the new one applies.
rm -rf "$KSPLICE_SYSFS" "$KSPLICE_STORE/$rel"/*
fake_registered nfsd
fake_registered plain2
cp "$tmp/nfsd.tar.gz" "$KSPLICE_STORE/$rel/01-nfsd.tar.gz"
"$tmp/ctl-6.1.192-3/postinst" configure >/dev/null 2>&1
"$tmp/ctl-6.1.192-3/prerm" upgrade 6.1.192-4+nc >/dev/null 2>&1
rm -f "$KSPLICE_STORE/$rel"/*
cp "$tmp/plain2.tar.gz" "$KSPLICE_STORE/$rel/01-plain2.tar.gz"
out=$("$tmp/ctl-6.1.192-4+nc/postinst" configure 6.1.192-3 2>&1)
ok $? "a new version that is not cumulative: postinst succeeds"
like "$out" 'not cumulative .*undoing the previous ones first' "... saying it undoes the old update first"
like "$out" 'Done! Reversed update nfsd' "... undoes nfsd"
like "$out" 'Done! Applied update plain2' "... and applies plain2"
is "$(stage nfsd) $(stage plain2)" "reversed applied" "... nfsd reversed, plain2 applied"
[ ! -e "$prev" ]; ok $? "... nothing left listed"
