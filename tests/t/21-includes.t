#!/bin/bash
# The include graph (src/create/includes.c) on a small tree laid out like
# the kernel's: which units a changed header reaches, directly, through
# other headers, through Kbuild's generated asm wrappers, by a quoted path
# with ../, through an -I only a Makefile knows, through -include, and a
# .c included by another.  A unit that does not include it is not marked.
# Then the include lines kept between runs (src/create/includes-cache.c):
# a file is read again only when its inode, size or time changed, or when
# it was modified just before the run that read it; a damaged cache is
# read as none.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/driver.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build_driver includes-affected src/create/includes.o src/create/includes-cache.o

plan 24
s=$tmp/src o=$tmp/obj
put() { mkdir -p "$(dirname "$1")"; cat >"$1"; }
put $s/include/linux/a.h <<<'static inline int a(void) { return 1; }'
put $s/include/linux/b.h <<<'#  include <linux/a.h>'
put $s/include/linux/c.h <<<'static inline int c(void) { return 3; }'
put $s/include/linux/kconfig.h <<<'#define IS_ENABLED(x) 0'
put $s/include/asm-generic/gen.h <<<'#define GEN 1'
put $o/arch/x86/include/generated/asm/gen.h <<<'#include <asm-generic/gen.h>'
put $s/arch/arm/include/asm/armonly.h <<<'#include <linux/c.h>'
put $s/drivers/w/w.c <<<'#include "armonly.h"'
put $s/drivers/x/x.c <<<'#include <linux/b.h>'
put $s/drivers/y/y.c <<<'#include <linux/c.h>'
put $s/fs/q/local.h <<<'#define LOCAL 1'
put $s/fs/q/b.h <<<'#define NOT_LINUX_B 1'
put $s/fs/q/q.c <<<'#include "local.h"
#include "b.h"'
put $s/fs/r/r.c <<<'#include "../q/local.h"'
put $s/drivers/z/include/zdefs.h <<<'#define Z 1'
put $s/drivers/z/z.c <<<'#include "zdefs.h"'
put $s/kernel/k.c <<<'#include <asm/gen.h>'
put $s/lib/m/tab.c <<<'static const int tab[] = { 1 };'
put $s/lib/m/m.c <<<'#include "tab.c"'
printf '%s\n' drivers/w/w.o drivers/x/x.o drivers/y/y.o fs/q/q.o fs/r/r.o drivers/z/z.o \
	kernel/k.o lib/m/m.o >"$tmp/units"

# pipefail: a driver that fails (even with no output, which the last check
# expects) must show in the result, not vanish in the pipeline.
aff() {
	(set -o pipefail
	"$tmp/includes-affected" "$s" "$o" "$tmp/units" "$@" | tr '\n' ' ' | sed 's/ $//') ||
		echo "(the driver failed: status $?)"
}
is "$(aff include/linux/a.h)" "drivers/x/x.o" "a header reaches the unit that includes it through another header"
is "$(aff include/linux/c.h)" "drivers/y/y.o" "  and only that unit (arch/arm is not part of an x86 build)"
is "$(aff include/linux/b.h include/linux/c.h)" "drivers/x/x.o drivers/y/y.o" "several changed headers: the union"
is "$(aff fs/q/local.h)" "fs/q/q.o fs/r/r.o" "a quoted include, from the including file's directory and by ../"
is "$(aff fs/q/b.h)" "fs/q/q.o" "a quoted include finds the file beside it before include/linux/b.h"
is "$(aff include/linux/b.h)" "drivers/x/x.o" "  and include/linux/b.h is not reached through fs/q/q.c"
is "$(aff drivers/z/include/zdefs.h)" "drivers/z/z.o" "an include only a Makefile's -I resolves links by name"
is "$(aff include/asm-generic/gen.h)" "kernel/k.o" "through a wrapper Kbuild generated in the object tree"
is "$(aff lib/m/tab.c)" "lib/m/m.o" "a .c included by another unit reaches that unit"
is "$(aff include/linux/kconfig.h)" "drivers/w/w.o drivers/x/x.o drivers/y/y.o fs/q/q.o fs/r/r.o drivers/z/z.o kernel/k.o lib/m/m.o" \
	"a header every unit gets by -include reaches all of them"
is "$(aff Documentation/none.h)" "" "a file nothing includes reaches nothing"

# The cache.  The files are an hour old: none was modified in the seconds
# before a walk (those are read again each time, see below).
C=$tmp/includes.cache
cached() {
	(set -o pipefail
	INCLUDES_CACHE=$C "$tmp/includes-affected" "$s" "$o" "$tmp/units" "$@" 2>"$tmp/stats" |
		tr '\n' ' ' | sed 's/ $//') || echo "(the driver failed: status $?)"
}
find "$s" "$o" -type f -exec touch -d '1 hour ago' {} +
n=$(find "$s" "$o" -name '*.[ch]' ! -path '*/arch/arm/*' | wc -l)
is "$(cached include/linux/a.h)" "drivers/x/x.o" "with a cache: the same units"
is "$(cat "$tmp/stats")" "read $n of $n" "  every file read the first time"
is "$(cached include/linux/a.h)" "drivers/x/x.o" "  and the second time"
is "$(cat "$tmp/stats")" "read 0 of $n" "  none read: the cache holds them all"

# Edited in place (same inode, same size), its time half an hour ago.
printf '#  include <linux/c.h>\n' >"$s/include/linux/b.h"
touch -d '30 minutes ago' "$s/include/linux/b.h"
is "$(cached include/linux/c.h)" "drivers/x/x.o drivers/y/y.o" "a file edited in place is read again: its new include counts"
is "$(cat "$tmp/stats")" "read 1 of $n" "  that file alone"

# Modified just now: not kept, so an edit within its timestamp's tick
# (same inode, size and time) is still seen.
printf '#include <linux/a.h>\n' >"$s/drivers/x/x.c"
touch -r "$s/drivers/x/x.c" "$tmp/ref"
is "$(cached include/linux/a.h)" "drivers/x/x.o" "a file modified a moment ago: read"
printf '#include <linux/c.h>\n' >"$s/drivers/x/x.c"
touch -r "$tmp/ref" "$s/drivers/x/x.c"
is "$(cached include/linux/c.h)" "drivers/x/x.o drivers/y/y.o" "  edited again with the same time: read again, its new include counts"
is "$(cat "$tmp/stats")" "read 1 of $n" "  that file alone"
touch -d '20 minutes ago' "$s/drivers/x/x.c"

# A new file, a file gone.
printf '#define E 1\n' >"$s/include/linux/e.h"
touch -d '10 minutes ago' "$s/include/linux/e.h"
rm "$s/fs/r/r.c"
is "$(cached fs/q/local.h)" "fs/q/q.o" "a file gone no longer counts"
is "$(cat "$tmp/stats")" "read 2 of $n" "  the new file and x.c (no longer recent) read, the others not"

# Damaged: cut short, or not a cache.
head -c 300 "$C" >"$C.cut" && mv "$C.cut" "$C"
is "$(cached include/linux/c.h)" "drivers/x/x.o drivers/y/y.o" "a cache cut short: the same units"
is "$(cat "$tmp/stats")" "read $n of $n" "  every file read, as with none"
