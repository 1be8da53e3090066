#!/bin/bash
# bench/coverage's creates: a .c patch that does not compile without a
# changed header it includes is put off (DIR/deferred/ID, no row) while
# the ordinary patches are created (KSPLICE_COVERAGE_DEFER), and made
# with the header when created again without it.  A stand-in
# ksplice-create on PATH compiles a.c only when the patch has b.h.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/coverage-fixture.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 9

coverage_fixture "$tmp" drv/a.c drv/b.h
mkdir -p "$tmp"/{old,new}/drv
printf '#include "b.h"\nint f(void) { return 1; }\n' >"$tmp/old/drv/a.c"
printf '#include "b.h"\nint f(void) { return g(); }\n' >"$tmp/new/drv/a.c"
printf 'int h(void);\n' >"$tmp/old/drv/b.h"
printf 'int h(void);\nint g(void);\n' >"$tmp/new/drv/b.h"
coverage_stand_in "$tmp" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in --patch) patch=$2; shift ;; -o) o=$2; shift ;; esac
	shift
done
echo "  compiling drv/a.o (pre)" >&2
if grep -q '^+++ b/drv/b.h' "$patch"; then
	echo update >"$o/cv0001.ksplice"; echo "$o/cv0001.ksplice"; exit 0
fi
echo "ksplice-create: drv/a.o does not compile with the patch" >&2
exit 1
EOF

KSPLICE_COVERAGE_DEFER=1 coverage_create "$tmp"
ok $? "deferring: coverage-create exits 0"
ok $([ -e "$tmp/out/deferred/cv0001" ]; echo $?) "  the patch is put off (deferred/cv0001)"
ok $([ ! -e "$tmp/out/created/cv0001" ] && [ ! -e "$tmp/out/done/cv0001" ]; echo $?) \
	"  neither created nor done"
is "$(grep -c cv0001 "$tmp/out/results.tsv")" 0 "  no row"
ok $([ -s "$tmp/out/logs/cv0001.create.log.deferred" ]; echo $?) "  its first create's log is kept"

coverage_create "$tmp"
ok $? "again, not deferring: coverage-create exits 0"
ok $([ -e "$tmp/out/created/cv0001" ]; echo $?) "  the patch is created (created/cv0001)"
is "$(cut -f4 "$tmp/out/created/cv0001" 2>/dev/null)" "drv/b.h" "  with the header it needs"
like "$(cat "$tmp/out/patches/cv0001.patch")" '^\+\+\+ b/drv/b.h' "  its patch holds the header's change"
