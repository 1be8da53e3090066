#!/bin/bash
# The preprocessing filter.  A patch adds a static inline to
# fs/proc/internal.h and calls it in fs/proc/loadavg.c: a few dozen units
# include internal.h, so the new function is in the preprocessed text of
# each; ksplice-create preprocesses them before and after the patch, finds
# that none of them but loadavg.c (compiled anyway: its source changed) can
# compile differently, and compiles only loadavg.c.  In the guest,
# /proc/loadavg ends in " +ksplice" once the update is applied, and no
# longer after undo.  The same at the scale of a few hundred includers
# (utsname.h): make check-slow (tests/slow/81-header-filter-utsname.t).
#
# Then the same with a static inline that takes a min_t, two __UNIQUE_IDs:
# every later __UNIQUE_ID_* and __compiletime_assert_* of each includer is
# renumbered (as ip6_route.h's fix in 6.1.190 did to its 550 includers),
# which is only renaming (src/create/cppcounter.c): none of them can
# compile differently (before cppcounter.c: 17 of the 23), and in loadavg.c
# the object diff finds loadavg_proc_show changed and nothing else.
# The new function returns the mark rather than printing it: it must
# compile in every includer, and some have no <linux/seq_file.h>.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
. "$KSPLICE_TOP/tests/lib/header-filter.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

PATCH=$KSPLICE_TOP/tests/patches/proc-internal-mark.patch
HEADER=fs/proc/internal.h INCLUDERS_MIN=10 INCLUDERS_MAX=100
UNIT=fs/proc/loadavg.c FUNC=loadavg_proc_show
SHOW='cat /proc/loadavg'
plan 30
header_filter_test
PATCH=$KSPLICE_TOP/tests/patches/proc-internal-min.patch
header_filter_test
