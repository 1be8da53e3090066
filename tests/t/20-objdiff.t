#!/bin/bash
# Object diff on small objects compiled here, the way ksplice-create
# compiles kernel units (-ffunction-sections -fdata-sections, kernel code model).
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KSPLICE_TOP/tests/lib/objects.sh"

plan 17

# The pre object.
compile pre <<'C'
extern int h1(int), h2(int);
extern void log_msg(const char *);
static int counter;
int body(int a) { return a * 3 + 1; }
int callee(int a) { return h1(a) + 7; }
int layout(int a) { log_msg("layout"); counter += a; return counter; }
int untouched(int a) { return a ^ 0x55; }
#define SHARED __attribute__((section(".text.shared"), noinline))
SHARED int grows(int a) { return h1(a); }
SHARED int shifted(int a) { log_msg("shifted"); return h2(a) + counter; }
extern void cold_path(int) __attribute__((cold));
int split(int a) { if (__builtin_expect(a > 1000, 0)) { cold_path(a); log_msg("split: cold"); return -1; } return a * 5 + 1; }
C

# The post object: body's code differs, callee calls another function,
# layout's string and variable moved (other string and variable added
# before them), untouched is untouched, and fresh is new.
compile post <<'C'
extern int h1(int), h2(int);
extern void log_msg(const char *);
static int other_var[64];
int fresh(int a) { log_msg("a string placed first"); other_var[a] = a; return other_var[0]; }
static int counter;
int body(int a) { return a * 3 + 2; }
int callee(int a) { return h2(a) + 7; }
int layout(int a) { log_msg("layout"); counter += a; return counter; }
int untouched(int a) { return a ^ 0x55; }
#define SHARED __attribute__((section(".text.shared"), noinline))
SHARED int grows(int a) { return h1(a) * h2(a) + h1(a + 1); }
SHARED int shifted(int a) { log_msg("shifted"); return h2(a) + counter; }
extern void cold_path(int) __attribute__((cold));
int split(int a) { if (__builtin_expect(a > 1000, 0)) { cold_path(a); log_msg("split: cold"); return -1; } return a * 5 + 2; }
C

out=$("$create" --diff-objects "$tmp/pre.o" "$tmp/post.o" 2>&1)
ok $? "diff runs"
like "$out" '^changed body$' "a changed body is found"
like "$out" '^changed callee$' "a changed callee (same bytes, other relocation target) is found"
unlike "$out" 'layout' "same code whose string and variable moved is unchanged"
unlike "$out" 'untouched' "an unchanged function is not reported"
unlike "$out" 'shifted' "same code at another offset of a shared section (all relocation offsets moved) is unchanged"
like "$out" '^new fresh$' "a new function is reported as new"
like "$out" '^changed split$' "a function gcc split into hot and cold parts is changed..."
like "$out" '^changed split.cold$' "  ... with its cold part, though only the hot part's code differs"

same=$("$create" --diff-objects "$tmp/pre.o" "$tmp/pre.o" 2>&1)
is "$same" "" "an object compared with itself has no changes"

# gcc numbers clones and static locals per unit, in the order it makes
# them: a patch elsewhere in the unit renumbers them.  Named here with asm
# labels as gcc names them: pre has pick.constprop.0 = A, .1 = B and a
# static local tbl.3; post has the numbers swapped and tbl.4.
compile clones-pre <<'C'
extern int h1(int), h2(int);
static const int tbl[4] __asm__("tbl.3") = { 3, 1, 4, 1 };
__attribute__((noinline)) static int pa(int a) __asm__("pick.constprop.0");
__attribute__((noinline)) static int pb(int a) __asm__("pick.constprop.1");
static int pa(int a) { return h1(a) + tbl[a & 3]; }
static int pb(int a) { return h2(a) * 3; }
int user(int a) { return pa(a) + pb(a); }
C
compile clones-post <<'C'
extern int h1(int), h2(int);
static const int tbl[4] __asm__("tbl.4") = { 3, 1, 4, 1 };
__attribute__((noinline)) static int pb(int a) __asm__("pick.constprop.0");
__attribute__((noinline)) static int pa(int a) __asm__("pick.constprop.1");
static int pb(int a) { return h2(a) * 3; }
static int pa(int a) { return h1(a) + tbl[a & 3]; }
int user(int a) { return pa(a) + pb(a); }
C
compile clones-changed <<'C'
extern int h1(int), h2(int);
static const int tbl[4] __asm__("tbl.4") = { 3, 1, 4, 1 };
__attribute__((noinline)) static int pb(int a) __asm__("pick.constprop.0");
__attribute__((noinline)) static int pa(int a) __asm__("pick.constprop.1");
static int pb(int a) { return h2(a) * 5; }
static int pa(int a) { return h1(a) + tbl[a & 3]; }
int user(int a) { return pa(a) + pb(a); }
C
out=$("$create" --diff-objects "$tmp/clones-pre.o" "$tmp/clones-post.o" 2>&1)
ok $? "diff runs on renumbered clones"
is "$out" "" "clones and a static local that only changed numbers are unchanged"
out=$("$create" --diff-objects "$tmp/clones-pre.o" "$tmp/clones-changed.o" 2>&1)
is "$out" "changed pick.constprop.0" "a renumbered clone that changed is found under its new name"
unlike "$out" 'user|constprop.1' "  and only it: its renumbered twin and their caller are unchanged"

# static_cpu_has(): a jump out of line to a test of the boot CPU's bit,
# one block per site in .altinstr_aux, in the order of the sites.  A site
# added before moves the block, not what it is (cv0682, pkeys.h: p4d_offset
# was "changed" and its several copies in vmlinux made the match
# ambiguous); a block that tests another bit or another byte is a change.
added='int added(int a) { if (has(16, 9)) return h1(a + 2); return a; }'
cpu_has aux-pre 1 7 '' 8
cpu_has aux-post 1 7 "$added" 4
cpu_has aux-bit 2 7 "" 8
cpu_has aux-byte 1 8 "" 8
out=$("$create" --diff-objects "$tmp/aux-pre.o" "$tmp/aux-post.o" 2>&1)
is "$out" "$(printf 'new added\nchanged tail')" \
	"a static_cpu_has() site added before another, one after it changed: only those two"
out=$("$create" --diff-objects "$tmp/aux-pre.o" "$tmp/aux-bit.o" 2>&1)
like "$out" '^changed uses_cpu$' "  its block testing another bit is a change"
out=$("$create" --diff-objects "$tmp/aux-pre.o" "$tmp/aux-byte.o" 2>&1)
like "$out" '^changed uses_cpu$' "  its block testing another byte (a relocation's addend) is a change"
