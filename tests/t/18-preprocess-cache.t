#!/bin/bash
# The preprocessed text kept between creates (src/create/preprocess-cache.c):
# a text is used again for the same command while every file its line
# markers name has the same contents -- also when a file was written again
# with them (each create patches the prepared tree and takes the patch out)
# and not when one changed with its size and time kept.  Files modified
# after the time the run that would keep a text began keep it from being
# kept (a second's margin where a file's time is whole seconds), those
# modified before do not; a damaged entry is no entry.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/driver.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build_driver preprocess-cache src/create/preprocess-cache.o -lz -lcrypto

plan 19
d=$tmp/cache o=$tmp/obj
mkdir -p "$d" "$o/include" "$tmp/src"
echo 'int a;' >"$o/include/a.h"
echo 'int b;' >"$tmp/src/b.h"
echo 'int f(void) { return 0; }' >"$tmp/src/u.c"
old=$(($(date +%s) - 100))
touch -d "@$old" "$o/include/a.h" "$tmp/src/b.h" "$tmp/src/u.c"
cat >"$tmp/text" <<TEXT
# 0 "$tmp/src/u.c"
# 0 "$o//"
# 0 "<built-in>"
# 1 "./include/a.h" 1
int a;
# 1 "$tmp/src/b.h" 1
int b;
# 2 "$tmp/src/u.c" 2
int f(void) { return 0; }
TEXT
store() { "$tmp/preprocess-cache" store "$d" "$tmp/src" "$o" "${1:-gcc -E u.c}" "$tmp/text" "$(($(date +%s) - 2))"; }
load() { "$tmp/preprocess-cache" load "$d" "$tmp/src" "$o" "${1:-gcc -E u.c}"; }

store
is "$(load)" "$(cat "$tmp/text")" "a text kept is the same text"
is "$(load 'gcc -E -DX u.c')" miss "  not for another command"
is "$(ls "$d" | wc -l)" 1 "  one entry (the working directory and <built-in> are no files)"

echo 'int a;' >"$o/include/a.h.new" && mv "$o/include/a.h.new" "$o/include/a.h"
is "$(load)" "$(cat "$tmp/text")" "a file written again with the same contents (new inode and time): used"
echo 'int A;' >"$o/include/a.h"
touch -d "@$old" "$o/include/a.h"
is "$(load)" miss "a file changed with its size and time kept: not used"
echo 'int a;' >"$o/include/a.h"
is "$(load)" "$(cat "$tmp/text")" "  (positive) and used again with the contents back"
echo 'int b; /* more */' >"$tmp/src/b.h"
is "$(load)" miss "an absolute path's file changed: not used"
echo 'int b;' >"$tmp/src/b.h"
touch -d "@$old" "$tmp/src/b.h"
is "$(load)" "$(cat "$tmp/text")" "  (positive) and used with it back"
mv "$tmp/src/b.h" "$tmp/src/b.h.gone"
is "$(load)" miss "a file gone: not used"
mv "$tmp/src/b.h.gone" "$tmp/src/b.h"

rm -f "$d"/*
touch -d "@$old" "$o/include/a.h"
touch "$tmp/src/b.h"
store
is "$(ls "$d" | wc -l)" 0 "a file modified just before: the text is not kept"
touch -d "@$old" "$tmp/src/b.h"
store
is "$(ls "$d" | wc -l)" 1 "  (positive) and kept once it is older"

rm -f "$d"/*
touch "$tmp/src/b.h"
sleep 0.1
"$tmp/preprocess-cache" store "$d" "$tmp/src" "$o" "gcc -E u.c" "$tmp/text" now
is "$(ls "$d" | wc -l)" 1 "a file written a tenth of a second before the run began (a create's own restore): kept"
touch -d "@$old" "$tmp/src/b.h"

f=$(ls "$d"/*.gz) || bail "no entry kept"
head -c 100 "$f" >"$f.cut" && mv "$f.cut" "$f"
is "$(load)" miss "an entry cut short: not used"
store
is "$(load)" "$(cat "$tmp/text")" "  (positive) kept again"
printf 'not gzip' >"$f"
is "$(load)" miss "an entry that is not gzip: not used"

# Copies of a tree (KSPLICE_TREE_COPIES) share one cache: the command and
# paths are kept with the tree's directories by name, and a copy checks
# the files in its own directories.
rm -f "$d"/*
mkdir -p "$tmp/c2"
cp -a "$tmp/src" "$tmp/c2/src" && cp -a "$o" "$tmp/c2/obj" || bail "cannot copy the tree"
cmd() { echo "gcc -I$1/src/include -E $1/src/u.c"; }
"$tmp/preprocess-cache" store "$d" "$tmp/src" "$o" "gcc -I$tmp/src/include -E $tmp/src/u.c" "$tmp/text" "$(($(date +%s) - 2))"
is "$("$tmp/preprocess-cache" load "$d" "$tmp/c2/src" "$tmp/c2/obj" "$(cmd "$tmp/c2")")" "$(cat "$tmp/text")" \
	"a text kept in one copy of the tree is used in another, for the same command there"
is "$("$tmp/preprocess-cache" load "$d" "$tmp/c2/src" "$tmp/c2/obj" "gcc -I$tmp/src/include -E $tmp/src/u.c")" miss \
	"  (positive) not for a command naming the first copy's files"
echo 'int b; /* more */' >"$tmp/c2/src/b.h"
is "$("$tmp/preprocess-cache" load "$d" "$tmp/c2/src" "$tmp/c2/obj" "$(cmd "$tmp/c2")")" miss \
	"  not in the copy once a file it names differs there"
is "$("$tmp/preprocess-cache" load "$d" "$tmp/src" "$o" "gcc -I$tmp/src/include -E $tmp/src/u.c")" "$(cat "$tmp/text")" \
	"  (positive) still in the first, where it does not"
