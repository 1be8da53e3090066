#!/bin/bash
# Creates of one prepared tree take turns (each patches it); with
# KSPLICE_TREE_COPIES=N up to N run side by side, each in a copy of its
# own (bench/coverage's full runs).  The test's tree is held here as a
# create holds it: a create without copies waits, one with copies works
# in the copy and builds the same update.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 11

src=$(ksplice_source)
patch=$KSPLICE_TOP/tests/patches/getppid.patch
upd=$(make_update "$patch" first "$src")
ok $? "an update builds (the tree is prepared)"
# The tree is waited for: another create (a leftover of an interrupted
# run, say) may hold it.
tree=$(prepared_tree "$src") || bail "no prepared tree of $src"
# A header's includers preprocessed in the tree, before it is held.
hdr() {	# ID [COPIES]: the messages of a create of a header patch
	KSPLICE_TREE_COPIES=${2:-1} ksplice-create --build "$KSPLICE_BUILD" --id "$1" --max-units 2 \
		--patch "$KSPLICE_TOP/tests/patches/proc-opener-same-layout.patch" -o "$tmp" "$src" 2>&1
}
first=$(hdr hdr_first)
like "$first" 'preprocessed 23 units before and after the patch' \
	"a header patch preprocesses its includers in the tree"
exec {fd}>"$tree/lock"
flock -x -w 1200 "$fd"
ok $? "the prepared tree is held ($(basename "$tree"))"

timeout 15 ksplice-create --build "$KSPLICE_BUILD" --patch "$patch" --id waits \
	-o "$tmp" "$src" >/dev/null 2>"$tmp/waits.log"
is $? 124 "without copies, a create waits for the tree"
like "$(cat "$tmp/waits.log")" 'waiting for the prepared tree .*/trees/[0-9a-f]+ \(another create is using it\)$' \
	"  saying so"
unlike "$(cat "$tmp/waits.log")" 'compiling' "  and compiling nothing meanwhile"
out=$(KSPLICE_TREE_COPIES=2 ksplice-create --build "$KSPLICE_BUILD" --patch "$patch" \
	--id copy -o "$tmp" "$src" 2>"$tmp/copy.log")
ok $? "with KSPLICE_TREE_COPIES=2 a create runs meanwhile"
like "$(cat "$tmp/copy.log")" 'the prepared tree is busy: working in its copy .*/trees/[0-9a-f]+\.1$' \
	"  in the tree's copy"
like "$(cat "$tmp/copy.log")" 'changed function: __ia32_sys_getppid' \
	"  and builds the same update"
copy=$(hdr hdr_copy 2)
like "$copy" 'working in its copy .*/trees/[0-9a-f]+\.1' "the header patch again, in the tree's copy"
like "$copy" '  23 of them as they were before the patch: kept from an earlier create' \
	"  the includers' text before the patch comes from the tree's cache, shared by its copies"
