#!/bin/bash
# bench/coverage's rows of a create with nothing to update: objects the
# same but for what a running kernel would not notice -- here a dynamic
# debug descriptor's line number, which a line added above a pr_debug
# moves -- are a noop (same-object-code); objects that differ in what the
# descriptor prints are not.  A stand-in ksplice-create on PATH says
# "nothing to update" and keeps a work directory with the two objects.
# The mask holds only where the tree's struct _ddebug has 6.1's layout.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/coverage-fixture.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KSPLICE_TOP/tests/lib/objects.sh"
plan 10

descriptor() { # LINE FORMAT [ORDER]: a unit with one descriptor of 6.1's struct _ddebug shape
	local g='int g(int x) { return x * 7; }'
	[ "${3:-}" != swapped ] || echo "$g"
	cat <<C
struct _ddebug { const char *modname, *function, *filename, *format;
	unsigned int lineno:18, class_id:6, flags:8; long key[2]; };
static struct _ddebug __attribute__((used, section("__dyndbg"), aligned(8)))
	__UNIQUE_ID_ddebug1 = { "m", "f", "a.c", "$2", $1, 0, 0 };
int f(int x) { return x + 1; }
__asm__(".section .initcall3.init, \\"a\\"\\n__initcall__kmod_m__343_${INIT_LINE:-1710}_f3: .long 0\\n.previous");
C
	[ "${3:-}" = swapped ] || echo "$g"
}
ddebug_h() { # LINENO_BITS: the start of the tree's dynamic_debug.h
	printf 'struct _ddebug {\n\tconst char *modname;\n\tconst char *function;\n'
	printf '\tconst char *filename;\n\tconst char *format;\n\tunsigned int lineno:%s;\n' "$1"
	printf '#define CLS_BITS 6\n\tunsigned int class_id:CLS_BITS;\n};\n'
}
coverage_fixture "$tmp" a.c
echo 'int f(int x);' >"$tmp/old/a.c"
printf '\nint f(int x);\n' >"$tmp/new/a.c"
mkdir -p "$tmp/old/include/linux"
ddebug_h 18 >"$tmp/old/include/linux/dynamic_debug.h"
coverage_stand_in "$tmp" <<EOF
#!/bin/bash
echo "  compiling a.o (pre)" >&2
echo "ksplice-create: the patch changes no code in a function: nothing to update (no function replaced, no hook registered, no export added)" >&2
echo "ksplice-create: work directory kept: $tmp/work" >&2
exit 1
EOF

row() { # PRE_LINE POST_LINE POST_FORMAT [POST_ORDER]: the row of the create
	rm -f "$tmp/out/done/cv0001"
	coverage_results_header "$tmp"
	mkdir -p "$tmp/work"
	descriptor "$1" "${FMT_PRE:-x %d\n}" | gcc $CFLAGS -c -x c -o "$tmp/work/pre-0.o" - || bail "cannot compile"
	INIT_LINE=${POST_INIT_LINE:-} descriptor "$2" "$3" "${4:-}" | gcc $CFLAGS -c -x c -o "$tmp/work/post-0.o" - || bail "cannot compile"
	coverage_create "$tmp"
	tail -n +2 "$tmp/out/results.tsv" | cut -f3,4
}

is "$(row 1229 1230 'x %d\n')" "$(printf 'noop\tsame-object-code')" \
	"a descriptor's line number alone: noop, same object code"
ok $([ ! -e "$tmp/work" ]; echo $?) "  the work directory is removed"
is "$(row 1229 1229 'y %d\n')" "$(printf 'create\tdata-only')" \
	"(positive) another format: not the same objects"
is "$(row 1229 1229 'x %d\n')" "$(printf 'noop\tsame-object-code')" \
	"(positive) the same descriptor: noop"
is "$(row 1229 1229 'x %d\n' swapped)" "$(printf 'noop\tsame-object-code')" \
	"the same functions emitted in another order: noop"
descriptor 1229 'x %d\n' | gcc $CFLAGS -c -x c -o "$tmp/a.o" - &&
	descriptor 1229 'x %d\n' swapped | gcc $CFLAGS -c -x c -o "$tmp/b.o" - || bail "cannot compile"
is "$(POST_INIT_LINE=1713 row 1229 1229 'x %d\n')" "$(printf 'noop\tsame-object-code')" \
	"an initcall's name with another line number (__initcall__kmod_m__343_1713_f3): noop"
order() { readelf -SW "$1" | grep -o '\.text\.[fg] ' | tr -d '\n'; }
ok $([ "$(order "$tmp/a.o")" = ".text.f .text.g " ] && [ "$(order "$tmp/b.o")" = ".text.g .text.f " ]; echo $?) \
	"  (the setup: their sections are in another order)"
# (fortify's warning spells __FILE__ ":" __stringify(__LINE__): a line
# above it moves only its number)
is "$(FMT_PRE='at a.c:1483\n' row 1229 1229 'at a.c:1465\n')" "$(printf 'noop\tsame-object-code')" \
	"a string's line after \"<file>.c:\" alone (1483 -> 1465): noop"
is "$(FMT_PRE='at line 1483\n' row 1229 1229 'at line 1465\n')" "$(printf 'create\tdata-only')" \
	"(positive) the same number in another string (at line 1483 -> 1465): not the same objects"
ddebug_h 20 >"$tmp/old/include/linux/dynamic_debug.h"
is "$(row 1229 1230 'x %d\n')" "$(printf 'create\tdata-only')" \
	"a tree whose struct _ddebug has another layout: the line number is not masked"
