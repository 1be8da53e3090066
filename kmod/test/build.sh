#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Builds the core, the self-test target module and the self-test update.
set -e
test_dir=$(cd "$(dirname "$0")" && pwd)
kmod=$(dirname "$test_dir")
. "$kmod/../versions"
kdir=${KDIR:-/usr/src/linux-headers-$KSPLICE_KERNEL_ABI}

make -s -C "$kdir" M="$kmod" modules
make -s -C "$kdir" M="$test_dir/target" modules
# The modules' linked objects, not target_pre.o and target_v2.o: on an IBT
# kernel (6.12) Kbuild runs objtool, which writes the return, retpoline,
# static call and call sites, only when it links the module's object.
"$test_dir/gen-update.py" selftest ksplice_target \
	"$test_dir/target/ksplice_target_pre.o" "$test_dir/target/ksplice_target_v2.o" \
	ksplice_test_target ksplice_test_sleeper ksplice_test_caller \
	ksplice_test_jl ksplice_test_tail -- ksplice_test_wrapper ksplice_test_jl_nt \
	+ ksplice_test_cb_new \
	>"$test_dir/update/update.c"
# The NMI test's update (tests/t/38-nmi.t): one function, run by NMIs.
"$test_dir/gen-update.py" nmi ksplice_target \
	"$test_dir/target/ksplice_target_pre.o" "$test_dir/target/ksplice_target_v2.o" \
	ksplice_test_nmi >"$test_dir/update/nmi.c"
make -s -C "$kdir" M="$test_dir/update" \
	KBUILD_EXTRA_SYMBOLS="$kmod/Module.symvers" modules
