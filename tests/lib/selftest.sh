# The core's self-test modules (kmod/test) for a kernel of the table:
# KSPLICE_SELFTEST_KERNEL=ABI (default the pinned one) picks it.
#
# selftest_build: sets abi, kdir (its headers) and self (a tree whose
# kmod/ holds ksplice.ko and whose kmod/test the target and the updates,
# built by kmod/test/build.sh for abi, its log in $tmp/build.log); returns
# the build's status.  Another kernel's modules are built in a copy, so
# that the tree's own kmod/ stays built for the pinned kernel.
selftest_build() {
	abi=${KSPLICE_SELFTEST_KERNEL:-$KSPLICE_KERNEL_ABI}
	self=$KSPLICE_TOP
	if [ "$abi" != "$KSPLICE_KERNEL_ABI" ]; then
		self=$tmp/self
		mkdir -p "$self"
		cp -a "$KSPLICE_TOP/kmod" "$KSPLICE_TOP/include" "$KSPLICE_TOP/versions" "$self/"
		find "$self/kmod" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' \) -delete
	fi
	kdir=$("$KSPLICE_TOP/scripts/fetch-headers" "$abi" 2>"$tmp/headers.log" | tail -n 1) ||
		{ cat "$tmp/headers.log" >"$tmp/build.log"; return 1; }
	KDIR=$kdir "$self/kmod/test/build.sh" >"$tmp/build.log" 2>&1
}
