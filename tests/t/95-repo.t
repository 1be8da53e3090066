#!/bin/bash
# ksplice-repo: a signed apt repository (reprepro; bookworm, main) of some
# packages, checked as a client sees it: the InRelease signature verifies
# with the exported key file alone and not with another key; this host's
# apt (with its own lists and cache dirs, installing nothing) accepts the
# repository with signed-by= that file and refuses it with another key's;
# a newer version added replaces the older one; --unsigned only when asked;
# refusals (no key given, an unknown key, a file that is not a package)
# write nothing.  The key is a throwaway ed25519 one in a temporary
# GNUPGHOME, made in well under a second.
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 26

tmp=$(mktemp -d "${TMPDIR:-/tmp}/repo-t.XXXXXX")
trap 'gpgconf --kill all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
make -s tools >/dev/null || bail "cannot build the tools"
export PATH=$KSPLICE_TOP/bin:$PATH TMPDIR=$tmp GNUPGHOME=$tmp/gnupg

# key NAME: a throwaway signing key; prints its fingerprint.
key() {
	gpg --batch --passphrase '' --quick-gen-key "$1 <$1@example.org>" ed25519 sign never \
		>/dev/null 2>&1 || return
	gpg --batch --with-colons --list-secret-keys "$1@example.org" 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}
mkdir -m 700 "$GNUPGHOME"
t0=$(date +%s.%N)
fpr=$(key ksplice-test) && other=$(key other-test) && [ -n "$fpr" ] && [ -n "$other" ] ||
	bail "cannot make the test keys"
diag "two ed25519 keys: $(printf '%.2f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
gpg --batch --export "$other" >"$tmp/other.gpg"

# deb NAME VERSION: a minimal package in $tmp/debs.
mkdir -p "$tmp/debs"
deb() {
	local d=$tmp/pkg-$1-$2
	mkdir -p "$d/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nSection: kernel\nPriority: optional\nMaintainer: t <t@example.org>\nDescription: test package\n' \
		"$1" "$2" >"$d/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$d" "$tmp/debs/$1_$2_amd64.deb" >/dev/null
}
deb ksplice-updates-test 1.0 && deb ksplice-updates-test 2.0 || bail "cannot build the test packages"
v1=$tmp/debs/ksplice-updates-test_1.0_amd64.deb v2=$tmp/debs/ksplice-updates-test_2.0_amd64.deb

# apt_client REPO KEYFILE|trusted: this host's apt, with lists, cache and
# trusted keys of its own: apt-get update's status, then the candidate.
apt_client() {
	local c=$tmp/apt opt
	rm -rf "$c"; mkdir -p "$c/lists/partial" "$c/cache/archives/partial" "$c/parts" "$c/prefs"; : >"$c/apt.conf"
	if [ "$2" = trusted ]; then opt="trusted=yes"; else opt="signed-by=$2"; fi
	echo "deb [$opt] file:$1 bookworm main" >"$c/sources.list"
	APT_CONFIG=$c/apt.conf apt-get -o Dir::Etc::SourceList="$c/sources.list" \
		-o Dir::Etc::SourceParts="$c/parts" -o Dir::Etc::Trusted="$c/none.gpg" \
		-o Dir::Etc::TrustedParts="$c/parts" -o Dir::Etc::PreferencesParts="$c/prefs" \
		-o Dir::State::Lists="$c/lists" -o Dir::Cache="$c/cache" \
		-o APT::Sandbox::User=root -o Debug::NoLocking=1 update >"$c/log" 2>&1
	echo "UPDATE=$?"
	grep -E '^(E|W):' "$c/log"
	apt-cache -o Dir::Etc::SourceList="$c/sources.list" -o Dir::Etc::SourceParts="$c/parts" \
		-o Dir::State::Lists="$c/lists" -o Dir::Cache="$c/cache" \
		policy ksplice-updates-test 2>&1 | sed -n 's/^ *Candidate: /CANDIDATE /p'
}

### Refusals write nothing.
out=$(ksplice-repo "$tmp/r0" "$v1" 2>&1)
st=$?
[ $st -eq 1 ]; ok $? "neither --key nor --unsigned: refused (exit $st)"
like "$out" 'a repository is signed: give --key KEYID' "... asking for a key"
out=$(ksplice-repo --key nosuch@example.org "$tmp/r0" "$v1" 2>&1)
st=$?
[ $st -eq 1 ]; ok $? "an unknown key: refused (exit $st)"
like "$out" 'no such secret key' "... saying so"
echo junk >"$tmp/junk.deb"
out=$(ksplice-repo --key "$fpr" "$tmp/r0" "$tmp/junk.deb" 2>&1)
[ $? -eq 1 ]; ok $? "a file that is not a package: refused"
like "$out" 'junk.deb: not a Debian package' "... naming it"
[ ! -e "$tmp/r0" ]; ok $? "... and nothing was written"

### Signed.
repo=$tmp/repo keyring=$tmp/repo/ksplice-archive-keyring.gpg
out=$(ksplice-repo --key "$fpr" "$repo" "$v1" 2>&1)
ok $? "ksplice-repo --key makes the repository" || diag "$out"
[ -s "$repo/dists/bookworm/InRelease" ] && [ -s "$repo/dists/bookworm/Release.gpg" ]
ok $? "... with a signed InRelease and Release.gpg"
rel=$(cat "$repo/dists/bookworm/Release" 2>/dev/null)
like "$rel" '^Origin: ksplice$' "... Origin: ksplice (for unattended-upgrades' Origins-Pattern)"
like "$rel" '^Codename: bookworm$' "... Codename: bookworm"
like "$rel" '^Components: main$' "... Components: main"
v=$(gpgv --status-fd 1 --keyring "$keyring" "$repo/dists/bookworm/InRelease" 2>/dev/null)
ok $? "the exported key file verifies InRelease"
like "$v" "VALIDSIG $fpr" "... as signed by the key given"
gpgv --keyring "$tmp/other.gpg" "$repo/dists/bookworm/InRelease" >/dev/null 2>&1
[ $? -ne 0 ]; ok $? "another key does not"
out=$(apt_client "$repo" "$keyring")
like "$out" '^UPDATE=0$' "apt-get update with signed-by= the exported key succeeds"
unlike "$out" '^(E|W):' "... with no error or warning"
like "$out" '^CANDIDATE 1\.0$' "... and apt sees ksplice-updates-test 1.0"
out=$(apt_client "$repo" "$tmp/other.gpg")
unlike "$out" '^UPDATE=0$' "with signed-by= another key apt-get update fails"
like "$out" 'NO_PUBKEY|not signed' "... the repository's signature is not trusted"

### A newer version.
out=$(ksplice-repo --key "$fpr" "$repo" "$v2" 2>&1)
ok $? "ksplice-repo adds version 2.0" || diag "$out"
is "$(sed -n 's/^Version: //p' "$repo/dists/bookworm/main/binary-amd64/Packages")" 2.0 \
	"... which replaces 1.0 in the index"
out=$(apt_client "$repo" "$keyring")
like "$out" '^CANDIDATE 2\.0$' "... and apt, still verifying it, sees 2.0"

### Unsigned, only when asked.
out=$(ksplice-repo --unsigned "$tmp/plain" "$v1" 2>&1)
ok $? "ksplice-repo --unsigned makes a repository"
like "$out" 'NOT signed' "... saying it is not signed"
[ ! -e "$tmp/plain/dists/bookworm/InRelease" ] && [ ! -e "$tmp/plain/ksplice-archive-keyring.gpg" ]
ok $? "... with no signature and no key file"
