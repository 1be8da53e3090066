#!/bin/bash
# bench/coverage's rows of a create with nothing to update: objects the
# same but for what a running kernel would not notice -- here a dynamic
# debug descriptor's line number, which a line added above a pr_debug
# moves -- are a noop (same-object-code); objects that differ in what the
# descriptor prints are not.  A stand-in ksplice-create on PATH says
# "nothing to update" and keeps a work directory with the two objects.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CFLAGS="-O2 -fno-pic -mcmodel=kernel -mno-red-zone -ffunction-sections -fdata-sections"
plan 4

descriptor() { # LINE FORMAT: a unit with one descriptor of 6.1's struct _ddebug shape
	cat <<C
struct _ddebug { const char *modname, *function, *filename, *format;
	unsigned int lineno:18, class_id:6, flags:8; long key[2]; };
static struct _ddebug __attribute__((used, section("__dyndbg"), aligned(8)))
	__UNIQUE_ID_ddebug1 = { "m", "f", "a.c", "$2", $1, 0, 0 };
int f(int x) { return x + 1; }
C
}
mkdir -p "$tmp"/{old,new,bin,work} "$tmp/out"/{patches,logs,updates,created,done,deferred}
echo 'int f(int x);' >"$tmp/old/a.c"
printf '\nint f(int x);\n' >"$tmp/new/a.c"
printf 'cv0001\ta.c\tc\n' >"$tmp/out/plan.tsv"
printf 'M\ta.c\n' >"$tmp/out/changed"
printf 'a.o\n' >"$tmp/out/units"
cat >"$tmp/bin/ksplice-create" <<EOF
#!/bin/bash
echo "  compiling a.o (pre)" >&2
echo "ksplice-create: the patch changes no code in a function: nothing to update (no function replaced, no hook registered, no export added)" >&2
echo "ksplice-create: work directory kept: $tmp/work" >&2
exit 1
EOF
chmod +x "$tmp/bin/ksplice-create"

row() { # PRE_LINE POST_LINE POST_FORMAT: the row of the create
	rm -f "$tmp/out/done/cv0001"
	printf 'file\tunits\tstage\tcause\tdetail\tseconds\tid\tundo\trev\n' >"$tmp/out/results.tsv"
	mkdir -p "$tmp/work"
	descriptor "$1" 'x %d\n' | gcc $CFLAGS -c -x c -o "$tmp/work/pre-0.o" - || bail "cannot compile"
	descriptor "$2" "$3" | gcc $CFLAGS -c -x c -o "$tmp/work/post-0.o" - || bail "cannot compile"
	PATH=$tmp/bin:$PATH "$KSPLICE_TOP/bench/lib/coverage-create" "$tmp/out" /nonexistent \
		"$tmp/old" "$tmp/new" 40 6000 cv0001
	tail -n +2 "$tmp/out/results.tsv" | cut -f3,4
}

is "$(row 1229 1230 'x %d\n')" "$(printf 'noop\tsame-object-code')" \
	"a descriptor's line number alone: noop, same object code"
ok $([ ! -e "$tmp/work" ]; echo $?) "  the work directory is removed"
is "$(row 1229 1229 'y %d\n')" "$(printf 'create\tdata-only')" \
	"(positive) another format: not the same objects"
is "$(row 1229 1229 'x %d\n')" "$(printf 'noop\tsame-object-code')" \
	"(positive) the same descriptor: noop"
