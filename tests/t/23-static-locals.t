#!/bin/bash
# Static locals of new code (ksplice-create --diff-objects --refs), on small
# objects compiled with the flags ksplice-create gives kernel units.  gcc
# numbers them (a.0, a.1) per unit, so a static added to one function
# renumbers the others': a post static pairs with a pre one through the
# function referencing it, never by its number; one no pre function had is
# new and carried.  WARN_ONCE's once flags follow the same rule.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KSPLICE_TOP/tests/lib/objects.sh"

plan 49

# The static local function FUNC of object NAME refers to.
local_of() { # NAME FUNC
	objdump -dr "$tmp/$1.o" | awk -v f="<$2>:" '
		/^[0-9a-f]+ </ { in_f = ($2 == f) }
		in_f && /R_X86_64_PC32/ && $3 ~ /^\.bss\./ { sub(/^\.bss\./, "", $3); sub(/-0x4$/, "", $3); print $3; exit }'
}

# Two counters of one base name; the post adds a third in f0 between them.
compile cnt-pre <<'C'
int f1(int x) { static int a; a += x; return a; }
int f2(int x) { static int a; a -= x; return a; }
C
compile cnt-post <<'C'
int f1(int x) { static int a; a += x * 2; return a; }
int f0(int x) { static int a; a ^= x; return a; }
int f2(int x) { static int a; a -= x; return a; }
C
pre_f1=$(local_of cnt-pre f1) pre_f2=$(local_of cnt-pre f2)
post_f1=$(local_of cnt-post f1) post_f0=$(local_of cnt-post f0)
diag "pre: f1 $pre_f1 f2 $pre_f2; post: f1 $post_f1 f0 $post_f0"
[ -n "$pre_f1" ] && [ -n "$pre_f2" ] && [ -n "$post_f1" ] && [ -n "$post_f0" ] ||
	bail "cannot find the static locals of the test objects"
is "$post_f0" "$pre_f1" "the setup: post's new static has the number of pre's f1 counter"
out=$("$create" --diff-objects "$tmp/cnt-pre.o" "$tmp/cnt-post.o" --refs 2>&1)
ok $? "diff runs on renumbered static locals"
is "$(grep -E '^(changed|new) ' <<<"$out" | sort)" "changed f1
new f0" "f1 changed, f0 new; f2 renumbered but the same"
like "$out" "^static local $post_f1 of f1: bound to the running $pre_f1\$" \
	"f1's counter is bound to pre's f1 counter, by function, not number"
like "$out" "^  f1\\+0x[0-9a-f]+ -> kernel $pre_f1-4\$" "  new f1 refers to the running counter by its pre name"
unlike "$out" "kernel $pre_f2" "  and not to f2's"
like "$out" "^static local $post_f0 of f0: new, carried \\(zero\\)\$" \
	"f0's static is new, though pre has a static of its name and number"
like "$out" "^  f0\\+0x[0-9a-f]+ -> carried \\.bss\\.$post_f0-4\$" "  new f0 refers to the carried copy"
unlike "$out" "^  f0\\+0x[0-9a-f]+ -> kernel" "  not to a running variable"
same=$("$create" --diff-objects "$tmp/cnt-pre.o" "$tmp/cnt-pre.o" 2>&1)
is "$same" "" "an unchanged object is no change"

# WARN_ONCE's shape: one-byte flags side by side in .data.once.
once() {
	cat <<'C'
extern int printk(const char *, ...);
#define WARN_ONCE(c, m) ({ static _Bool __already_done __attribute__((section(".data.once"))); \
	int __r = !!(c); if (__r && !__already_done) { __already_done = 1; printk(m); } __r; })
C
	cat
}
once <<'C' | compile once-pre
int f1(int x) { return x + 1; }
int f2(int x) { WARN_ONCE(x > 3, "f2\n"); return x; }
C
once <<'C' | compile once-post
int f1(int x) { WARN_ONCE(x > 5, "f1\n"); return x + 1; }
int f2(int x) { WARN_ONCE(x > 4, "f2\n"); return x; }
C
flag() { readelf -sW "$tmp/$1.o" | awk -v v="$2" '$8 ~ /^__already_done\./ && $2 ~ v { print $8 }'; }
pre_flag=$(flag once-pre 0000000000000000)
f1_flag=$(flag once-post 0000000000000001) f2_flag=$(flag once-post 0000000000000000)
diag "pre: f2 $pre_flag; post: f1 $f1_flag f2 $f2_flag"
out=$("$create" --diff-objects "$tmp/once-pre.o" "$tmp/once-post.o" --refs 2>&1)
ok $? "diff runs on once flags"
# gcc put f1's flag at .data.once+1: `cmpb $0,x(%rip)` says .data.once-4
like "$(objdump -dr "$tmp/once-post.o" | grep -A30 '<f1>:')" 'R_X86_64_PC32	\.data\.once-0x4' \
	"the setup: f1's flag is the second byte of .data.once"
like "$out" "^static local $f1_flag of f1: new, carried" "a new WARN_ONCE's flag is new"
like "$out" "^  f1\\+0x[0-9a-f]+ -> carried \\.data\\.once-4\$" "  new f1 tests and sets the carried flag"
like "$out" "^static local $f2_flag of f2: bound to the running $pre_flag\$" \
	"the flag of a WARN_ONCE f2 had is bound (one that fired stays quiet)"
like "$out" "^  f2\\+0x[0-9a-f]+ -> kernel $pre_flag-5\$" "  new f2 tests the running flag"
unlike "$out" "^  f1\\+0x[0-9a-f]+ -> kernel __already_done" "  new f1 does not touch a running flag"

# Two flags where pre's f2 had one, all zero: which is the old one?
once <<'C' | compile two-post
int f1(int x) { return x + 1; }
int f2(int x) { WARN_ONCE(x > 1, "f2 new\n"); WARN_ONCE(x > 4, "f2\n"); return x; }
C
out=$("$create" --diff-objects "$tmp/once-pre.o" "$tmp/two-post.o" --refs 2>&1)
is $? 1 "a flag that cannot be told from another is refused"
like "$out" "new code of f2 refers to __already_done\\.[0-9]+: f2 has static locals __already_done before and after the patch" \
	"  naming the variable and the function"
unlike "$out" "kernel __already_done" "  nothing bound"

# Two counters of one base name in one function: paired in order of first
# reference, whatever their numbers.
compile pair-pre <<'C'
int f(int x) { static int a; a += x; { static int a; a -= 2 * x; return a; } }
C
compile pair-post <<'C'
int g(int x) { static int a; a ^= x; return a; }
int f(int x) { static int a; a += x + 1; { static int a; a -= 2 * x; return a; } }
C
pre_first=$(local_of pair-pre f) post_first=$(local_of pair-post f)
out=$("$create" --diff-objects "$tmp/pair-pre.o" "$tmp/pair-post.o" --refs 2>&1)
ok $? "diff runs on a function with two statics of one name"
like "$out" "^static local $post_first of f: bound to the running $pre_first\$" \
	"  the first referenced pairs with the first referenced"
is "$(grep -c '^static local a\.[0-9]* of f: bound' <<<"$out")" 2 "  both are bound"

# A counter whose type grew: the running variable is too small for new code.
compile wide-post <<'C'
int f1(int x) { static long a; a += x; return a; }
int f2(int x) { static int a; a -= x; return a; }
C
out=$("$create" --diff-objects "$tmp/cnt-pre.o" "$tmp/wide-post.o" --refs 2>&1)
is $? 1 "a static local that changed size is refused"
like "$out" "refers to a\.[0-9]+: static local a\.[0-9]+ of f1 has another size than the running one" \
	"  naming the variable and the function"

# `addl $1000,c(%rip)` says c-8: the field's four immediate bytes count
# too, so `c-4` is a reference to the second of two counters side by side.
ctr() { # STEP
	cat <<C
#define CTR static int c __attribute__((section(".data.ctr")))
void f1(void) { CTR; c += $1; }
void f2(void) { CTR; c += 1000; }
C
}
ctr 1000 | compile imm-pre
ctr 2000 | compile imm-post
second=$(readelf -sW "$tmp/imm-pre.o" | awk '$8 ~ /^c\./ && $2 ~ /4$/ { print $8 }')
like "$(objdump -dr "$tmp/imm-pre.o" | grep -A3 '<f1>:')" 'R_X86_64_PC32	\.data\.ctr-0x4' \
	"the setup: f1's counter is the second of .data.ctr ($second), reached with an imm32"
out=$("$create" --diff-objects "$tmp/imm-pre.o" "$tmp/imm-post.o" --refs 2>&1)
like "$out" "^  f1\\+0x[0-9a-f]+ -> kernel $second-8\$" "  new f1 refers to its running counter"
like "$out" "^static local c\\.[0-9]+ of f1: bound to the running $second\$" "  which it is bound to"

# printk_ratelimited's shape: a state _rs.N per message, all alike.  A fix
# adding a message next to one the function had cannot say which is the
# old one; a rate limit that starts over only lets a burst through, so
# both are carried anew.  The same shape of another name is refused.
rl() { # NAME
	cat <<C
struct rl { int lock, interval, burst, printed, missed; unsigned long begin, flags; };
extern int ___ratelimit(struct rl *, const char *);
extern int printk(const char *, ...);
#define RL(m) ({ static struct rl $1 = { 0, 1250, 10 }; if (___ratelimit(&$1, __func__)) printk(m); })
C
	cat
}
for n in _rs _st; do
	rl $n <<'C' | compile rl-pre-$n
void f(int x) { if (x > 2) RL("big\n"); }
void g(int x) { if (x) RL("g\n"); }
C
	rl $n <<'C' | compile rl-post-$n
void f(int x) { if (x < 0) RL("negative\n"); if (x > 2) RL("big\n"); }
void g(int x) { if (x > 1) RL("g\n"); }
C
done
out=$("$create" --diff-objects "$tmp/rl-pre-_rs.o" "$tmp/rl-post-_rs.o" --refs 2>&1)
ok $? "a rate limit's state added next to one is no refusal"
is "$(grep -c "^static local _rs\\.[0-9]* of f: new, carried (a rate limit's state; which running one it is cannot be told, or its limits changed: it starts over)\$" <<<"$out")" 2 \
	"  both of f's states are carried anew, saying why"
unlike "$out" "^  f\\+0x[0-9a-f]+ -> kernel _rs" "  new f touches no running state"
like "$out" "^static local _rs\\.[0-9]+ of g: bound to the running _rs\\.[0-9]+\$" \
	"  g's one state is still bound: pairing that can be told is not given up"
like "$out" "^  g\\+0x[0-9a-f]+ -> kernel _rs\\.[0-9]+[-+][0-9]+\$" "  new g refers to the running state"
# efivarfs's fix: a rate limit of other limits in place of the old one
# (DEFINE_RATELIMIT_STATE(_rs, 2 * HZ, 5) for pr_warn_ratelimited's): the
# running state has the old limits, so it is carried anew, not changed
# data; the same change of another variable is changed data.
for n in _rs _st; do
	rl $n <<'C' | sed 's/1250, 10/500, 5/' | compile rl-limits-$n
void f(int x) { if (x > 2) RL("big\n"); }
void g(int x) { if (x) RL("g\n"); }
C
done
out=$("$create" --diff-objects "$tmp/rl-pre-_rs.o" "$tmp/rl-limits-_rs.o" --refs 2>&1)
like "$out" "^static local _rs\\.[0-9]+ of f: new, carried \\(a rate limit's state; .*its limits changed: it starts over\\)\$" \
	"a rate limit whose limits change is carried anew"
unlike "$out" "changed data" "  not changed data"
out=$("$create" --diff-objects "$tmp/rl-pre-_st.o" "$tmp/rl-limits-_st.o" --refs 2>&1)
like "$out" "changed data: _st\\.[0-9]+: its initial value" "(positive) another variable's new limits are changed data"

out=$("$create" --diff-objects "$tmp/rl-pre-_st.o" "$tmp/rl-post-_st.o" --refs 2>&1)
is $? 1 "the same shape with a static of another name is refused"
like "$out" "new code of f refers to _st\\.[0-9]+: f has static locals _st before and after the patch" \
	"  naming the variable and the function"

# A compound literal a table points at (.default_domain_ops = &(const
# struct ...){ ... }, intel-iommu's ops): only data references it, so it
# pairs with what the pre table points at in the same place, whatever its
# number -- a new table before it renumbers it.  Read-only or writable.
cl() { # NAME, then the body
	{ cat <<'C'
struct dops { int (*a)(int); int k; };
struct ops { const char *name; const struct dops *d; };
struct wops { const char *name; struct dops *d; };
extern int h1(int), h2(int);
C
	cat; } | compile "$1"
}
cl cl-pre <<'C'
int use(int x) { return h1(x) + 1; }
const struct ops ops = { "ops", &(const struct dops){ h1, 3 } };
struct wops wops = { "wops", &(struct dops){ h2, 7 } };
C
cl cl-post <<'C'
const struct ops other = { "other", &(const struct dops){ h2, 4 } };
struct wops wother = { "wother", &(struct dops){ h1, 8 } };
int use(int x) { return h1(x) + 2; }
const struct ops ops = { "ops", &(const struct dops){ h1, 3 } };
struct wops wops = { "wops", &(struct dops){ h2, 7 } };
C
cl cl-changed <<'C'
int use(int x) { return h1(x) + 2; }
const struct ops ops = { "ops", &(const struct dops){ h1, 5 } };
struct wops wops = { "wops", &(struct dops){ h2, 9 } };
C
out=$("$create" --diff-objects "$tmp/cl-pre.o" "$tmp/cl-post.o" 2>&1)
like "$out" '^changed use$' "compound literals renumbered by a new table: the changed function is found"
unlike "$out" 'changed data' "  and the tables pointing at them are unchanged"
out=$("$create" --diff-objects "$tmp/cl-pre.o" "$tmp/cl-changed.o" 2>&1)
like "$out" 'changed data: ops: its initial value \(what it points at\)' \
	"(positive) a read-only literal whose contents change changes its table"
like "$out" 'changed data: __compound_literal\.[0-9]+: its initial value .*used by data wops' \
	"  a writable one is itself changed data"

# Fortify's shape: an inline function's __func__.N, which every function
# inlining it in the unit shares (and every unit has its own).  New code
# referring to one that only unchanged code refers to cannot be bound by
# matching, and looking the name up is ambiguous in a module of several
# units: the constant is carried.  One the replaced function's pre code
# refers to stays bound (the core proves it while matching).
fz() { # F's body
	cat <<C
extern void fpanic(const char *);
static inline __attribute__((always_inline)) int chk(int x) { if (x > 100) fpanic(__func__); return x; }
int u1(int x) { return chk(x) + 1; }
int f(int x) { return $1; }
C
}
fz 'x * 3' | compile fz-pre
fz 'chk(x) * 3' | compile fz-post
fz 'chk(x) * 2' | compile fz-pre2
out=$("$create" --diff-objects "$tmp/fz-pre.o" "$tmp/fz-post.o" --refs 2>&1)
ok $? "a new use of a shared __func__ is no refusal"
like "$out" '^static local __func__\.[0-9]+ of f: a constant, carried \(only code the update does not replace refers to the running one' \
	"  only unchanged code had it: a constant, carried"
like "$out" '^  f\+0x[0-9a-f]+ -> carried \.rodata\.__func__\.[0-9]+\+0$' "  new f refers to the carried copy"
out=$("$create" --diff-objects "$tmp/fz-pre2.o" "$tmp/fz-post.o" --refs 2>&1)
like "$out" '^static local __func__\.[0-9]+ of f: bound to the running __func__\.[0-9]+$' \
	"(positive) f's pre code had it: bound"
like "$out" '^  f\+0x[0-9a-f]+ -> kernel __func__\.[0-9]+\+0$' "  new f refers to the running one"

# One function with two constants alike (NL_SET_ERR_MSG twice with one
# message, as __tcf_qdisc_find has): each pairs with the one in its place,
# so the function is the same as itself.
msgs() { # THE SECOND MESSAGE
	cat <<C
extern void report(const char *);
int f(int x) { if (x) { static const char __msg[] = "Parent doesn't exist"; report(__msg); }
	if (x > 2) { static const char __msg[] = "$1"; report(__msg); } return 0; }
C
}
msgs "Parent doesn't exist" | compile msgs-pre
msgs "Parent is gone" | compile msgs-post
is "$("$create" --diff-objects "$tmp/msgs-pre.o" "$tmp/msgs-pre.o" 2>&1)" "" \
	"a function naming two constants alike is no change from itself"
is "$("$create" --diff-objects "$tmp/msgs-pre.o" "$tmp/msgs-post.o" 2>&1)" "changed f" \
	"  (positive) one of them changed: f changed"
