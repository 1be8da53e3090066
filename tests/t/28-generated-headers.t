#!/bin/bash
# Headers Kbuild generates only on the way to some objects (selinux's
# flask.h and av_permissions.h) are not in a prepared tree until a unit
# needing them is compiled there.  An includer that does not preprocess
# for want of one would be kept and compiled, and whether it is would
# depend on what earlier creates compiled.  ksplice-create makes such
# units' objects once in the prepared tree and compares them again.  Here
# the patch adds a macro that no code uses to selinux's avc.h, after
# the generated headers were removed from the prepared tree: every
# includer preprocesses the same, so there is nothing to update.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 9

src=$(ksplice_source) || bail "no source"
create() {	# the create's messages; sets rc
	msg=$(ksplice-create --build "$KSPLICE_BUILD" --id gh \
		--patch "$KSPLICE_TOP/tests/patches/selinux-avc-unused.patch" -o "$tmp" "$src" 2>&1)
	rc=$?
	rm -rf "$(sed -n 's/^ksplice-create: work directory kept: //p' <<<"$msg")"
}

# A create prepares the tree if no test did before.
create
tree=$(prepared_tree "$src") || bail "no prepared tree of $src"
gen=$tree/obj/security/selinux
rm -f "$gen/flask.h" "$gen/av_permissions.h"

create
is "$rc" 1 "without the generated headers in the tree: refused"
like "$msg" '[0-9]+ units do not preprocess in the prepared tree: making their objects there once' \
	"  after making the objects of the includers that do not preprocess"
like "$msg" 'preprocessed [0-9]+ units before and after the patch in [0-9.]+ s: 0 can compile differently' \
	"  none of them can compile differently"
like "$msg" 'the patch changes nothing the code of the [0-9]+ units including it can see: nothing to update' \
	"  nothing to update"
ok "$([ -s "$gen/flask.h" ] && [ -s "$gen/av_permissions.h" ]; echo $?)" \
	"  flask.h and av_permissions.h are in the prepared tree again"
unlike "$msg" 'compiling' "  no unit compiled for the update"
[ "$rc" = 1 ] || diag "$msg"

create
is "$rc" 1 "(positive) once more: refused the same way"
unlike "$msg" 'do not preprocess' "  every includer preprocesses now"
like "$msg" 'the patch changes nothing the code of the [0-9]+ units including it can see: nothing to update' \
	"  nothing to update"
