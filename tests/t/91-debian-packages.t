#!/bin/bash
# The Debian packages: dpkg-buildpackage -b builds ksplice and
# ksplice-create from a copy of the checkout, they hold what each machine
# needs (with a man page for every command), and lintian finds no error
# in them -- while it does find one in a package that has one, so a
# lintian that reports nothing is not mistaken for a clean package.
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 23

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debpkg-t.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The working tree's files, as a fresh clone would have them.
mkdir "$tmp/src"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$tmp/src"
(cd "$tmp/src" && nice -n 10 dpkg-buildpackage -b -us -uc -j2) >"$tmp/build.log" 2>&1
ok $? "dpkg-buildpackage -b -us -uc succeeds" || tail -n 30 "$tmp/build.log" | sed 's/^/# /'

ver=$(cd "$tmp/src" && dpkg-parsechangelog -S Version)
deb=$tmp/ksplice_${ver}_amd64.deb cdeb=$tmp/ksplice-create_${ver}_amd64.deb
[ -s "$deb" ] && [ -s "$cdeb" ]
ok $? "it makes ksplice_${ver}_amd64.deb and ksplice-create_${ver}_amd64.deb"

files=$(dpkg-deb -c "$deb" | awk '{print $6}')
cfiles=$(dpkg-deb -c "$cdeb" | awk '{print $6}')
like "$files" '^\./usr/sbin/ksplice-apply$' "ksplice holds ksplice-apply"
like "$files" '^\./usr/bin/ksplice-view$' "... and ksplice-view"
like "$files" '^\./usr/bin/ksplice-uname$' "... and ksplice-uname"
like "$files" '^\./lib/systemd/system/ksplice\.service$' "... and ksplice.service"
like "$files" '^\./var/lib/ksplice/updates/$' "... and the store of installed updates"
unlike "$files" 'ksplice-create|/kmod/' "... but not the builder nor the core's source"
like "$cfiles" '^\./usr/bin/ksplice-create$' "ksplice-create holds ksplice-create"
like "$cfiles" '^\./usr/bin/ksplice-package$' "... and ksplice-package"
like "$cfiles" '^\./usr/bin/ksplice-repo$' "... and ksplice-repo"
like "$cfiles" '^\./usr/bin/ksplice-build-abis$' "... and ksplice-build-abis"
like "$cfiles" '^\./usr/share/ksplice/include/ksplice-unpatchable\.h$' "... and the headers the core's source needs"
like "$cfiles" '^\./usr/share/ksplice/kmod/Kbuild$' "... the core's source"
like "$cfiles" '^\./usr/share/ksplice/scripts/fetch-source$' "... and fetch-source with its versions"

# Every command has its man page, in the package that has the command.
missing=
for pkg in "$deb" "$cdeb"; do
	list=$(dpkg-deb -c "$pkg" | awk '{print $6}')
	for cmd in $(printf '%s\n' "$list" | sed -n 's|^\./usr/s\{0,1\}bin/||p'); do
		printf '%s\n' "$list" | grep -Eq "/man[18]/$cmd\.[18]\.gz$" || missing+=" $cmd"
	done
done
is "${missing:-none}" none "every command in the packages has a man page"

dep=$(dpkg-deb -f "$deb" Depends)
unlike "$dep" 'gcc|make|libelf-dev' "ksplice needs no compiler ($dep)"
like "$(dpkg-deb -f "$cdeb" Depends)" 'gcc-12' "ksplice-create depends on gcc-12"
like "$(dpkg-deb -f "$cdeb" Recommends)" 'gnupg.*reprepro' "... and recommends gnupg and reprepro (ksplice-repo)"

# dh_installsystemd enables (and starts) the unit on install.
dpkg-deb -e "$deb" "$tmp/ctl"
grep -q "deb-systemd-helper enable 'ksplice.service'" "$tmp/ctl/postinst"
ok $? "ksplice's postinst enables ksplice.service"

# The packaged tools run.
dpkg-deb -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/ksplice-view" --help >"$tmp/help" 2>&1
ok $? "the packaged ksplice-view runs ($(head -n 1 "$tmp/help"))"

lintian --fail-on error "$tmp"/ksplice_"${ver}"_amd64.changes >"$tmp/lintian" 2>&1
st=$?
ok $st "lintian: no errors in ksplice and ksplice-create"
[ $st -eq 0 ] || sed 's/^/# /' "$tmp/lintian"

# A package lintian must fail: no copyright file.
mkdir -p "$tmp/bad/DEBIAN" "$tmp/bad/usr/bin"
printf 'Package: bad\nVersion: 1\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: bad\n bad\n' \
	>"$tmp/bad/DEBIAN/control"
dpkg-deb -b "$tmp/bad" "$tmp/bad_1_all.deb" >/dev/null 2>&1
out=$(lintian --fail-on error "$tmp/bad_1_all.deb" 2>&1)
st=$?
[ $st -ne 0 ] && printf '%s\n' "$out" | grep -q '^E: bad: no-copyright-file'
ok $? "... while lintian fails a package without a copyright file (exit $st)"
