#!/bin/bash
# Where references of new code go (ksplice-create --diff-objects --refs), on
# small objects compiled here with the flags ksplice-create gives kernel
# units: aliases are one function; a dynamic-debug descriptor is carried,
# only the one used; a split function's cold part is carried with it; an
# export of a symbol namespace is named with its namespace.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KSPLICE_TOP/tests/lib/objects.sh"
. "$KSPLICE_TOP/versions"
build=/usr/src/linux-headers-$KSPLICE_KERNEL_ABI

plan 27

# SYSCALL_DEFINE0's shape: a static function and two global aliases.
syscall() { # DELTA
	cat <<C
extern int task_value(void);
static long __do_sys_probe(void) { return task_value() + $1; }
long __x64_sys_probe(void) __attribute__((alias("__do_sys_probe")));
long __ia32_sys_probe(void) __attribute__((alias("__do_sys_probe")));
long other(void) { return task_value(); }
C
}
syscall 0 | compile alias-pre
syscall 4000000 | compile alias-post
out=$("$create" --diff-objects "$tmp/alias-pre.o" "$tmp/alias-post.o" --refs 2>&1)
ok $? "diff runs on aliases"
is "$(grep -E '^(changed|new) ' <<<"$out")" "changed __ia32_sys_probe" \
	"three names at one address are one changed function, under its first global name"
like "$out" 'note: __do_sys_probe is an alias of __ia32_sys_probe' "  the other names are said to be aliases"
like "$out" '^carry __ia32_sys_probe ' "  its code is carried once"
same=$("$create" --diff-objects "$tmp/alias-pre.o" "$tmp/alias-pre.o" 2>&1)
is "$same" "" "unchanged aliases are no change"

# pr_debug's shape: per-call-site descriptors in __dyndbg, of a name
# (descriptor.N) the running module may have several times.
dyndbg() { # MESSAGE
	cat <<C
struct dd { const char *fmt; unsigned long key[2]; } __attribute__((aligned(8)));
extern void __dynamic_pr_debug(struct dd *, const char *, ...);
static struct dd d1 __asm__("descriptor.1") __attribute__((section("__dyndbg"), used)) = { "one" };
static struct dd d2 __asm__("descriptor.2") __attribute__((section("__dyndbg"), used)) = { "$1" };
static struct dd d3 __asm__("descriptor.3") __attribute__((section("__dyndbg"), used)) = { "three" };
int one(int a) { __dynamic_pr_debug(&d1, "one"); return a; }
int two(int a) { __dynamic_pr_debug(&d2, "$1"); return a + 1; }
int three(int a) { __dynamic_pr_debug(&d3, "three"); return a + 2; }
C
}
dyndbg "two %d" | compile dd-pre
dyndbg "two changed %d" | compile dd-post
out=$("$create" --diff-objects "$tmp/dd-pre.o" "$tmp/dd-post.o" --refs 2>&1)
ok $? "diff runs on dynamic-debug descriptors"
is "$(grep -E '^(changed|new) ' <<<"$out")" "changed two" "only the function whose message changed"
at=$(readelf -sW "$tmp/dd-post.o" | awk '$8 == "descriptor.2" { print $2 }')
at=$((16#${at:-x}))
like "$out" "^carry data __dyndbg\\+$(printf '%#x' $at) 24\$" "  its descriptor (and only it) is carried"
is "$(grep -c '^carry data __dyndbg' <<<"$out")" 1 "  one descriptor, not the unit's whole __dyndbg"
like "$out" "^  two\\+0x[0-9a-f]+ -> carried __dyndbg\\+$at\$" "  the new code refers to the copy"
unlike "$out" 'kernel descriptor|load descriptor' "  not to the running descriptor (by a name kallsyms may have several times)"

# pr_debug names its descriptor __UNIQUE_ID_ddebug<__COUNTER__>: one added
# above renames those below, and lines added above move their lineno.
ddebug() { # C on stdin, after struct _ddebug and DESC()
	cat <<C
struct _ddebug { const char *modname, *function, *filename, *format;
	unsigned int lineno:18, class_id:6, flags:8; unsigned long key[2]; } __attribute__((aligned(8)));
extern void __dynamic_pr_debug(struct _ddebug *, const char *, ...);
#define DESC(id, sym, fn, fmt, line) static struct _ddebug id __asm__(sym) \\
	__attribute__((section("__dyndbg"), used)) = { "mod", fn, "file.c", fmt, line, 63, 0 }
C
	cat
}
ddebug <<'C' | compile ctr-pre
DESC(d5, "__UNIQUE_ID_ddebug5.1", "f", "f says %d", 40);
int f(int a) { __dynamic_pr_debug(&d5, "f says %d", a); return a; }
int g(int a) { return a + 1; }
C
ddebug <<'C' | compile ctr-post
DESC(d5, "__UNIQUE_ID_ddebug5.1", "g", "g says %d", 20);
DESC(d6, "__UNIQUE_ID_ddebug6.2", "f", "f says %d", 42);
int f(int a) { __dynamic_pr_debug(&d6, "f says %d", a); return a; }
int g(int a) { __dynamic_pr_debug(&d5, "g says %d", a); return a + 1; }
C
out=$("$create" --diff-objects "$tmp/ctr-pre.o" "$tmp/ctr-post.o" 2>&1)
is "$out" "changed g" "a pr_debug added above another: the other's descriptor, renamed and moved, is the same call site"
ddebug <<'C' | compile ctr-other
DESC(d5, "__UNIQUE_ID_ddebug5.1", "g", "g says %d", 20);
DESC(d6, "__UNIQUE_ID_ddebug6.2", "f", "f now says %d", 42);
int f(int a) { __dynamic_pr_debug(&d6, "f says %d", a); return a; }
int g(int a) { __dynamic_pr_debug(&d5, "g says %d", a); return a + 1; }
C
out=$("$create" --diff-objects "$tmp/ctr-pre.o" "$tmp/ctr-other.o" 2>&1)
like "$out" '^changed f$' "  but one whose format changed is another call site"

# A hot part and the cold part gcc split off it.
split() { # RESULT
	cat <<C
extern void cold_path(int) __attribute__((cold));
int split(int a) { if (__builtin_expect(a > 1000, 0)) { cold_path(a); return -1; } return a * 5 + $1; }
C
}
split 1 | compile split-pre
split 2 | compile split-post
out=$("$create" --diff-objects "$tmp/split-pre.o" "$tmp/split-post.o" --refs 2>&1)
like "$out" '^carry split.cold ' "an unchanged cold part of a changed function is carried (and replaced)"
like "$out" '^  split\+0x[0-9a-f]+ -> carried split.cold' "  the hot part jumps to the carried cold part"
printf 'int split(int a) { return a * 5 + 1; }\n' | compile nosplit-pre
out=$("$create" --diff-objects "$tmp/nosplit-pre.o" "$tmp/split-post.o" --refs 2>&1)
like "$out" '^new split.cold$' "a cold part that is new is a new function"
like "$out" '^  split\+0x[0-9a-f]+ -> carried split.cold' "  carried, and the hot part jumps to it"

# An export of the namespace DMA_BUF, from the target's Module.symvers.
printf 'extern void *dma_buf_get(int);\nvoid *g(int fd) { return dma_buf_get(fd); }\n' | compile ns-pre
printf 'extern void *dma_buf_get(int);\nvoid *g(int fd) { return dma_buf_get(fd + 1); }\n' | compile ns-post
out=$("$create" --diff-objects "$tmp/ns-pre.o" "$tmp/ns-post.o" --refs --build "$build" 2>&1)
like "$out" '^  g\+0x[0-9a-f]+ -> export dma_buf_get namespace DMA_BUF$' "an export of a namespace is named with it"

# An alternative (as ALTERNATIVE() lays it out: struct alt_instr) whose
# original instruction calls a function the kernel does not export
# (this_cpu_cmpxchg16b_emu) and whose replacement calls another: the
# loader applies alternatives before the core could write a field, so
# both are load symbols, resolved before the module loads.
alt() { # DELTA
	cat <<C
int alt(int a)
{
	asm volatile("661: call this_cpu_cmpxchg16b_emu\n662:\n"
		     ".pushsection .altinstructions,\"a\"\n"
		     " .long 661b - .\n .long 6631f - .\n .word 3*32+0\n"
		     " .byte 662b-661b\n .byte 6641f-6631f\n"
		     ".popsection\n"
		     ".pushsection .altinstr_replacement,\"ax\"\n"
		     "6631: call ksplice_test_other\n6641:\n"
		     ".popsection\n" ::: "memory");
	return a + $1;
}
C
}
alt 1 | compile alt-pre
alt 2 | compile alt-post
out=$("$create" --diff-objects "$tmp/alt-pre.o" "$tmp/alt-post.o" --refs --build "$build" 2>&1)
ok $? "diff runs on a function with an alternative"
like "$out" '^  alt\+0x[0-9a-f]+ -> load this_cpu_cmpxchg16b_emu$' \
	"a non-exported call in an alternative's original instruction is a load symbol"
like "$out" '^  \.altinstr_replacement\+0x[0-9a-f]+ -> load ksplice_test_other$' \
	"  and one in its replacement"
unlike "$out" 'kernel this_cpu_cmpxchg16b_emu|not supported' "  not a ksplice reloc (the core's write would land on the replacement)"

# A changed function's static_cpu_has() block is carried alone: the
# section's other blocks name functions the update does not carry
# (cv0682: p4d_offset's block made the update need p4d_offset, of which
# vmlinux has several, and ksplice-apply refused it as ambiguous).
cpu_has aux-pre 1 7 '' 8
cpu_has aux-post 1 7 'int added(int a) { if (has(16, 9)) return h1(a + 2); return a; }' 4
out=$("$create" --diff-objects "$tmp/aux-pre.o" "$tmp/aux-post.o" --refs 2>&1)
ok $? "diff runs on static_cpu_has() sites"
like "$out" 'carry data \.altinstr_aux\+0x24 18' "  the changed function's block is carried, 18 bytes"
like "$out" '\.altinstr_aux\+0xe -> carried tail\+12' "  its targets are the carried code"
like "$out" 'tail\+0x3 -> carried \.altinstr_aux\+32' "  and the function's jump goes to it"
unlike "$out" 'uses_cpu' "  the unchanged function's block is not carried, nor its function needed"
