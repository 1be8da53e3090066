#!/bin/bash
# Reproducible updates: the same inputs give the same update file, byte
# for byte, whatever the work directory, the time, SOURCE_DATE_EPOCH, the
# make jobs, the user, whether the core module came from its cache and
# whether the units came from ccache's (or were compiled, --no-ccache); the
# id is a hash of the inputs, so a one-character change of the patch gives
# another id and file.  --verify rebuilds an update from the inputs its
# manifest records and says "identical", or names the member that differs.
# No VM: nothing is loaded.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 30
make -s -C "$KSPLICE_TOP" all >/dev/null || bail "make all failed"
command -v faketime >/dev/null || bail "faketime is missing (scripts/deps)"
command -v ccache >/dev/null || bail "ccache is missing (scripts/deps)"
export CCACHE_DIR=$tmp/ccache	# empty: the first build fills it
src=$(ksplice_source)
patch=$KSPLICE_TOP/examples/cmdline.patch

# create NAME [ENV...]: ksplice-create without --id into $tmp/NAME/, under
# env; the work dir under $tmp/work-NAME (TMPDIR); prints the update's path.
create() {
	local name=$1; shift
	mkdir -p "$tmp/$name" "$tmp/work-$name"
	env TMPDIR="$tmp/work-$name" "$@" ksplice-create ${CREATE_OPTS:-} --build "$KSPLICE_BUILD" \
		--patch "${PATCH:-$patch}" -o "$tmp/$name" "$src" \
		2>"$tmp/$name.log" | tail -n 1
}

a=$(create a env -u SOURCE_DATE_EPOCH MAKEFLAGS=-j1 USER=alice LANG=C)
[ -s "$a" ]; ok $? "the first build writes $a" || { diag "$(tail -n 20 "$tmp/a.log")"; bail "no update"; }
core=$(sed -n 's/^  .*core module.*(\(for \)\{0,1\}\(.*\))$/\2/p' "$tmp/a.log")
[ -n "$core" ] && [ -d "$core" ]; ok $? "the core module cache dir is named: $core"

# The second: another work dir (longer), time, SOURCE_DATE_EPOCH, jobs,
# user and locale, and its core module built again, not from the cache.
rm -rf "$core"
sleep 2
b=$(create b-with-another-work-directory faketime '2031-07-04 12:34:56' \
	env SOURCE_DATE_EPOCH=1234567890 MAKEFLAGS=-j2 USER=bob LANG=C.UTF-8)
[ -s "$b" ]; ok $? "the second build writes $b" || diag "$(tail -n 20 "$tmp/b-with-another-work-directory.log")"
like "$(cat "$tmp/b-with-another-work-directory.log")" '^  building the core module' \
	"  ... building its core module (the cache emptied)"
is "$(basename "$b")" "$(basename "$a")" "both have the same id (from the inputs): $(basename "$a")"
is "$(sha256sum <"$b")" "$(sha256sum <"$a")" "both files are the same, byte for byte"
like "$(basename "$a")" '^ksplice-[0-9a-f]{16}\.tar\.gz$' "the id is 16 hex digits of a hash"

# ccache: the first build compiled the unit twice (before and after the
# patch) into the empty cache, the second found both there; without it,
# the same file, and the cache is not asked.
stat() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
is "$(stat direct_cache_miss)" 2 "the first build compiled its unit twice, through ccache"
is "$(stat direct_cache_hit)" 2 "  ... and the second took both objects from ccache's cache"
d=$(CREATE_OPTS=--no-ccache create d)
[ -s "$d" ]; ok $? "--no-ccache builds" || diag "$(tail -n 20 "$tmp/d.log")"
is "$(sha256sum <"$d")" "$(sha256sum <"$a")" "  ... the same file, byte for byte"
is "$(stat direct_cache_hit):$(stat direct_cache_miss)" 2:2 "  ... and ccache was not asked"
e=$(CCACHE_DIR=/proc/ksplice-no-such-dir create e)
is "$(sha256sum <"${e:-/dev/null}")" "$(sha256sum <"$a")" \
	"a ccache dir that cannot be written: compiled without ccache, the same file"

# What the manifest records, and no path of the build machine in the modules.
mkdir "$tmp/xa" && tar -xzf "$a" -C "$tmp/xa"
man=$(cat "$tmp/xa/manifest")
like "$man" '^format: 2$' "the manifest is format 2"
like "$man" "^patch_sha256: $(sha256sum <"$patch" | cut -d' ' -f1)\$" "it records the patch's sha256"
like "$man" "^source: linux-source-6.1=$KSPLICE_SOURCE_VERSION\$" "  ... the source package and version"
like "$man" "^headers: linux-headers-$KSPLICE_KERNEL_ABI=$KSPLICE_KERNEL_VERSION\$" "  ... the headers package and version"
like "$man" '^compiler: gcc-12 .*12\.' "  ... the compiler"
like "$man" "^config_sha256: $(sha256sum <"$KSPLICE_BUILD/.config" | cut -d' ' -f1)\$" "  ... the config's hash"
like "$man" '^ksplice_version: .+' "  ... the ksplice version"
ko=$(cd "$tmp/xa" && ls ksplice_*.ko)
grep -qa "vermagic=$KSPLICE_KERNEL_ABI" "$tmp/xa/$ko" && ! grep -qa "$tmp" "$tmp/xa/$ko" "$tmp/xa/ksplice.ko"
ok $? "the modules hold their vermagic but not the work directory"

# One character of the patch changed: another id, another file.
sed 's/ksplice=applied/ksplice=applieD/' "$patch" >"$tmp/other.patch"
c=$(PATCH=$tmp/other.patch create c)
[ -s "$c" ] && [ "$(basename "$c")" != "$(basename "$a")" ] &&
	[ "$(sha256sum <"$c")" != "$(sha256sum <"$a")" ]
ok $? "a one-character change of the patch gives another id and file: $(basename "$c")"

# --verify: the same inputs rebuild the same file.
out=$(ksplice-create --build "$KSPLICE_BUILD" --verify "$a" --patch "$patch" "$src" 2>"$tmp/v.log")
st=$?
is "$st:$out" "0:identical" "--verify of the update says identical" || diag "$(tail -n 20 "$tmp/v.log")"

out=$(ksplice-create --build "$KSPLICE_BUILD" --verify "$a" --patch "$tmp/other.patch" "$src" 2>&1)
ok $(( $? == 0 )) "--verify with another patch fails"
like "$out" 'is not the patch this update was made from' "  ... saying the patch is not the recorded one"

# A copy with one byte of the update module changed, the tar rebuilt: with
# the old manifest the reader refuses it; with the manifest's sha256 made
# to fit, --verify rebuilds and names the module.
mkdir "$tmp/bad" && cp "$tmp/xa/"* "$tmp/bad/"
printf '\x5a' | dd of="$tmp/bad/$ko" bs=1 seek=100 conv=notrunc status=none
tar --format=ustar --owner=0 --group=0 -czf "$tmp/bad1.tar.gz" -C "$tmp/bad" manifest "$ko" ksplice.ko
out=$(ksplice-create --build "$KSPLICE_BUILD" --verify "$tmp/bad1.tar.gz" --patch "$patch" "$src" 2>&1)
st=$?
ok $(( st == 0 )) "a copy with a changed byte in $ko is refused"
like "$out" "member '$ko' does not match its sha256" "  ... by the reader, naming the member"

sed -i "s/^member_sha256: $ko .*/member_sha256: $ko $(sha256sum <"$tmp/bad/$ko" | cut -d' ' -f1)/" "$tmp/bad/manifest"
tar --format=ustar --owner=0 --group=0 -czf "$tmp/bad2.tar.gz" -C "$tmp/bad" manifest "$ko" ksplice.ko
out=$(ksplice-create --build "$KSPLICE_BUILD" --verify "$tmp/bad2.tar.gz" --patch "$patch" "$src" 2>"$tmp/v2.log")
st=$?
ok $(( st == 0 )) "--verify of a consistent copy with a changed module fails"
like "$out" "^differs: $ko\$" "  ... naming $ko" || diag "$(tail -n 20 "$tmp/v2.log")"
unlike "$out" '^differs: ksplice\.ko$' "  ... and not the core module, which is the same"

exit $((_tap_fail > 0))
