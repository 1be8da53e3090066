#!/bin/bash
# The table of target kernels (../../kernels) as scripts/kernels reads it:
# every line complete, the headers scripts/deps installs (apt lines only:
# 6.12's headers package depends on its image), the source package of a
# source version (linux-source-6.1 or -6.12), and scripts/fetch-headers'
# answer for an apt line.  No download, no guest: well under a second.
. "$(dirname "$0")/../lib/tap.sh"
set -u
k=$KSPLICE_TOP/scripts/kernels
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for abi in $("$k" list); do
	for f in version common source srcpkg headers; do
		v=$("$k" get "$abi" $f) && [ -n "$v" ] ||
			{ ok 1 "$abi: field $f"; continue 2; }
	done
	case $("$k" get "$abi" headers) in apt|fetch) st=0 ;; *) st=1 ;; esac
	ok $st "$abi: a complete line (headers: apt or fetch)"
done
pk=$("$k" packages)
like "$pk" '^linux-headers-6\.1\.0-56-amd64=6\.1\.192-2$' "packages: an apt line's headers, pinned"
unlike "$pk" '6\.12' "packages: not a fetch line's (6.12: its headers depend on its 107 MB image)"
is "$("$k" srcpkg 6.12.120-1~deb12u1)" linux-source-6.12 "srcpkg: a 6.12 version not in the table -> linux-source-6.12"
is "$("$k" srcpkg 6.1.192-3)" linux-source-6.1 "srcpkg: a 6.1 version -> linux-source-6.1 (6.1. is not a prefix of 6.12.)"
"$k" srcpkg 5.10.1-1 >/dev/null 2>&1
is $? 1 "srcpkg: a series without a line is an error"
"$k" get 6.1.0-56-amd64 nosuchfield >/dev/null 2>&1
is $? 1 "get: an unknown field is an error"

# A line with a column missing is refused, saying so.
sed 's/^\(6\.1\.0-56-amd64 .*\) -$/\1/' "$KSPLICE_TOP/kernels" >"$tmp/kernels"
out=$(KSPLICE_KERNELS=$tmp/kernels "$k" get 6.1.0-56-amd64 rig 2>&1)
is $? 1 "a short line: error"
like "$out" 'has not 7 columns' "... saying so"

is "$("$KSPLICE_TOP/scripts/fetch-headers" 6.1.0-56-amd64 2>/dev/null)" \
	/usr/src/linux-headers-6.1.0-56-amd64 "fetch-headers: an apt line's installed headers"
"$KSPLICE_TOP/scripts/fetch-headers" no-such-abi >/dev/null 2>&1
is $? 1 "fetch-headers: an ABI not in the table is an error"
echo "1..$_tap_n"
