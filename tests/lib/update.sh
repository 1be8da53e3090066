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

# vm [RIG OPTIONS] -- COMMAND: the VM rig.
vm() {
	"$KSPLICE_TOP/tests/vm/run" "$@"
}
