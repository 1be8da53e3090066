#!/bin/bash
# The include graph (src/create/includes.c) on a small tree laid out like
# the kernel's: which units a changed header reaches, directly, through
# other headers, through Kbuild's generated asm wrappers, by a quoted path
# with ../, through an -I only a Makefile knows, through -include, and a
# .c included by another.  A unit that does not include it is not marked.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$KSPLICE_TOP
gcc -O2 -D_GNU_SOURCE -I"$top/include" -I"$top/src/lib" -I"$top/src/create" \
	-o "$tmp/affected" "$top/tests/unit/includes-affected.c" \
	"$top/src/create/includes.o" "$top/src/lib/libksplice.a" ||
	bail "cannot build the test driver"

plan 11
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
	"$tmp/affected" "$s" "$o" "$tmp/units" "$@" | tr '\n' ' ' | sed 's/ $//') ||
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
