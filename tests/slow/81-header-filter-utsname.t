#!/bin/bash
# The preprocessing filter at the scale of a few hundred includers
# (tests/t/78-header-filter.t has a few dozen).  A patch adds a static
# inline to include/linux/utsname.h and calls it in kernel/sys.c's
# newuname: ksplice-create preprocesses the other units that include
# utsname.h before and after the patch, finds that none can compile
# differently, and compiles only sys.c.  In the guest, uname -v ends in
# " +ksplice" once the update is applied, and no longer after undo.  Some
# 5 minutes on 2 cpus.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
. "$KSPLICE_TOP/tests/lib/header-filter.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

PATCH=$KSPLICE_TOP/tests/patches/utsname-mark.patch
HEADER=include/linux/utsname.h INCLUDERS_MIN=200 INCLUDERS_MAX=1000
UNIT=kernel/sys.c FUNC=__do_sys_newuname
SHOW='uname -v'
plan 15
header_filter_test
