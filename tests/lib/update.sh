# Helpers for tests that build real updates of the pinned Debian kernel.
# Source after tap.sh.
. "$KSPLICE_TOP/versions"
KSPLICE_BUILD=/usr/src/linux-headers-$KSPLICE_KERNEL_ABI
export PATH="$KSPLICE_TOP/bin:$PATH"

# The pinned linux-source tree (downloaded and unpacked once, cached).
ksplice_source() {
	"$KSPLICE_TOP/scripts/fetch-source" | tail -n 1
}

# make_update PATCH ID [SOURCE]: build an update into $tmp; print its path.
# ksplice-create's progress goes to $tmp/create-ID.log.
make_update() {
	local src=${3:-$(ksplice_source)} out
	out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$1" --id "$2" \
		-o "$tmp" "$src" 2>"$tmp/create-$2.log") || return
	printf '%s\n' "${out##*$'\n'}"
}

# make_replace PATCH ID: a cumulative update (--replace) of the pinned
# source into $tmp; print its path.
make_replace() {
	local out
	out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$1" --id "$2" \
		--replace -o "$tmp" "$(ksplice_source)" 2>"$tmp/create-$2.log") || return
	printf '%s\n' "${out##*$'\n'}"
}

# vm [RIG OPTIONS] -- COMMAND: the VM rig.
vm() {
	"$KSPLICE_TOP/tests/vm/run" "$@"
}

# patched_source PATCH...: a copy of the pinned source (hard links; of the
# tree $PATCHED_BASE if set) with the PATCHes applied in order, for an
# update built on top of others (its pre code is their post code).  Cached,
# keyed by the base and the patches' contents, so ksplice-create's prepared
# tree for it is reused; prints its path.
patched_source() {
	local src key dir f
	src=${PATCHED_BASE:-$(ksplice_source)} || return
	key=$({ [ -z "${PATCHED_BASE:-}" ] || echo "$src"; cat "$@"; } | sha256sum | cut -c1-16)
	dir=${KSPLICE_CACHE:-$HOME/.cache/ksplice}/patched-source/$key
	if [ ! -e "$dir/.complete" ]; then
		rm -rf "$dir"; mkdir -p "$dir"
		cp -al "$src" "$dir/linux" || return
		for f in $(sed -n 's|^+++ b/\([^\t]*\).*|\1|p' "$@" | sort -u); do
			# its own copy: patching must not write through the links
			cp --remove-destination "$src/$f" "$dir/linux/$f" || return
		done
		for f in "$@"; do
			patch -p1 --batch --silent -d "$dir/linux" -i "$(realpath "$f")" || return
		done
		touch "$dir/.complete"
	fi
	printf '%s\n' "$dir/linux"
}

# sed_patch SOURCE FILE PATCH SED-ARGS...: PATCH, the change sed SED-ARGS
# makes to FILE (a path in the kernel tree SOURCE); fails when sed changed
# nothing (the edit does not fit this source).
sed_patch() {
	local src=$1 f=$2 out=$3
	shift 3
	sed "$@" "$src/$f" >"$out.c" || return
	diff -u --label "a/$f" --label "b/$f" "$src/$f" "$out.c" >"$out"
	[ $? -eq 1 ]
}

# prepared_tree SOURCE [CONFIG]: the directory of ksplice-create's prepared
# tree of SOURCE for CONFIG (default the target's), named as tree_key() in
# src/create/build.c names it; fails if there is none.
prepared_tree() {
	local cache=${KSPLICE_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/ksplice}} key
	cache=${cache:-$HOME/.cache/ksplice}
	key=$(python3 - "$1" "${2:-$KSPLICE_BUILD/.config}" <<'PY'
import os, re, sys
src, cfg = os.path.realpath(sys.argv[1]), open(sys.argv[2], 'rb').read()
cc = re.search(rb'CONFIG_CC_VERSION_TEXT="([^ "]*)', cfg).group(1)
h = 14695981039346656037
for b in src.encode() + b'\0' + cfg + cc:
    h = ((h ^ b) * 1099511628211) & (2**64 - 1)
print('%016x' % h)
PY
) || return
	[ -d "$cache/trees/$key/src" ] && printf '%s\n' "$cache/trees/$key"
}
