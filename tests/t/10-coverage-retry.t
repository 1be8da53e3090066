#!/bin/bash
# bench/coverage's creates: a .c patch that does not compile alone is
# created again with the changed headers it needs.  Here the header comes
# by way of an unchanged one, and gcc names no missing name: the callback
# a driver sets changed type (a new parameter on the line after the
# member's name), so the header whose change touches that member
# (gcc's "near initialization for 'ops.tdls_mgmt'") joins the patch; a
# changed header that does not touch it stays out.  A stand-in
# ksplice-create on PATH compiles drv/a.c only when the patch has
# include/net/cfg.h.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/coverage-fixture.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 5

coverage_fixture "$tmp" drv/a.c include/net/cfg.h include/net/other.h
mkdir -p "$tmp"/{old,new}/{drv,include/net}
printf '#include "x.h"\nstatic int m(int a, char b) { return a; }\n' >"$tmp/old/drv/a.c"
printf '#include "x.h"\nstatic int m(int a, int l, char b) { return a; }\n' >"$tmp/new/drv/a.c"
for t in old new; do
	printf '#include <net/cfg.h>\n' >"$tmp/$t/drv/x.h"
done
printf 'struct ops {\n\tint (*tdls_mgmt)(int a,\n\t\t\tchar b);\n};\n' >"$tmp/old/include/net/cfg.h"
printf 'struct ops {\n\tint (*tdls_mgmt)(int a,\n\t\t\tint l, char b);\n};\n' >"$tmp/new/include/net/cfg.h"
printf 'int other(char b);\n' >"$tmp/old/include/net/other.h"
printf 'int other(char b, int tdls);\n' >"$tmp/new/include/net/other.h"
mkdir -p "$tmp/work"
coverage_stand_in "$tmp" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do
	case \$1 in --patch) patch=\$2; shift ;; -o) o=\$2; shift ;; esac
	shift
done
echo "  compiling drv/a.o (pre)" >&2
if grep -q '^+++ b/include/net/cfg.h' "\$patch"; then
	echo update >"\$o/cv0001.ksplice"; echo "\$o/cv0001.ksplice"; exit 0
fi
mkdir -p "$tmp/work"
cat >"$tmp/work/build.log" <<'LOG'
drv/a.c:9:22: error: initialization of 'int (*)(int,  char)' from incompatible pointer type 'int (*)(int,  int,  char)' [-Werror=incompatible-pointer-types]
drv/a.c:9:22: note: (near initialization for 'a_ops.tdls_mgmt')
LOG
echo "ksplice-create: drv/a.o does not compile with the patch" >&2
echo "ksplice-create: work directory kept: $tmp/work" >&2
exit 1
EOF

coverage_create "$tmp"
ok $? "coverage-create exits 0"
ok $([ -e "$tmp/out/created/cv0001" ]; echo $?) "  the patch is created, on the second try"
is "$(cut -f4 "$tmp/out/created/cv0001" 2>/dev/null)" "include/net/cfg.h" \
	"  with the header whose change touches the member gcc names, not the other changed one"
like "$(cat "$tmp/out/patches/cv0001.patch")" '^\+\+\+ b/include/net/cfg.h' "  its patch holds the header's change"
unlike "$(cat "$tmp/out/patches/cv0001.patch")" 'other\.h' "  and not the other header's"
