#!/bin/bash
# The preprocessing filter and __COUNTER__ (src/create/cppcounter.c): as
# 78-header-filter.t, but the new static inline in fs/proc/internal.h
# takes a min_t, two __UNIQUE_IDs, so every later __UNIQUE_ID_* and
# __compiletime_assert_* of each unit including it is renumbered (as
# ip6_route.h's fix in 6.1.190 did to its 550 includers).  That is only
# renaming: none of the includers can compile differently, and in
# loadavg.c, compiled, the object diff finds loadavg_proc_show changed and
# nothing else.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
. "$KSPLICE_TOP/tests/lib/header-filter.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

PATCH=$KSPLICE_TOP/tests/patches/proc-internal-min.patch
HEADER=fs/proc/internal.h INCLUDERS_MIN=10 INCLUDERS_MAX=100
UNIT=fs/proc/loadavg.c FUNC=loadavg_proc_show
SHOW='cat /proc/loadavg'
header_filter_test
