#!/bin/bash
# The preprocessing filter's comparison (src/create/cppdiff.c), through
# ksplice-create --diff-cpp PRE.i POST.i, on small preprocessed units:
# what a header's change can and cannot do to a unit's code.  Each "same"
# is paired with a "differs" that uses the same change.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PATH="$KSPLICE_TOP/bin:$PATH"

plan 71
n=0
# verdict PRE POST: "same" or "differs", then the reason
verdict() {
	n=$((n + 1))
	printf '%s\n' "$1" >"$tmp/$n.pre.i"
	printf '%s\n' "$2" >"$tmp/$n.post.i"
	ksplice-create --diff-cpp "$tmp/$n.pre.i" "$tmp/$n.post.i"
}
check() { # EXPECTED DESCRIPTION PRE POST
	local out
	out=$(verdict "$3" "$4")
	like "$out" "^$1" "$2 ($out)"
}

check same "only line markers and blank lines differ" \
'# 1 "a.h"
int f(void) { return 1; }' \
'# 1 "a.h"

# 7 "a.h"
int f(void)
{ return 1; }'
check differs "  a token differs in a function" \
'int f(void) { return 1; }' 'int f(void) { return 2; }'

enum_pre='enum { A, B, };
static inline __attribute__((__gnu_inline__)) int uses_b(void) { return B; }'
enum_post='enum { A, C, B, };
static inline __attribute__((__gnu_inline__)) int uses_b(void) { return B; }'
check same "an enum gains a constant (B moves) no code of the unit uses" \
"$enum_pre
int f(void) { return 0; }" "$enum_post
int f(void) { return 0; }"
check differs "  a function uses one of its constants" \
"$enum_pre
int f(void) { return A; }" "$enum_post
int f(void) { return A; }"
check differs "  through a static inline it calls" \
"$enum_pre
int f(void) { return uses_b(); }" "$enum_post
int f(void) { return uses_b(); }"
check same "  a static inline that uses it, not called, emits nothing" \
"$enum_pre
int g(int uses) { return uses; }" "$enum_post
int g(int uses) { return uses; }"
grown_pre='enum { A, B };
static inline int uses_b(void) { return B; }'
grown_post='enum { A, B, C };
static inline int uses_b(void) { return B; }'
check same "an enum gains a constant at its end: A and B keep their values" \
"$grown_pre
int f(void) { return A + uses_b(); }" "$grown_post
int f(void) { return A + uses_b(); }"
check differs "  a function changed to use the new one" \
"$grown_pre
int f(void) { return 0; }" "$grown_post
int f(void) { return C; }"
check differs "  with \"= value\"s it is a change like any other" \
'enum { A = 4, B };
int f(void) { return A; }' 'enum { A = 4, B, C };
int f(void) { return A; }'

inl_pre='static inline int twice(int x) { return 2 * x; }'
inl_post='static inline int twice(int x) { return 3 * x; }'
check same "a static inline changes; nothing calls it" \
"$inl_pre
long h(long twice_) { return twice_; }" "$inl_post
long h(long twice_) { return twice_; }"
check differs "  a function calls it" \
"$inl_pre
int h(int v) { return twice(v); }" "$inl_post
int h(int v) { return twice(v); }"
check differs "  a variable points at it" \
"$inl_pre
int (*hp)(int) = twice;" "$inl_post
int (*hp)(int) = twice;"
check differs "  asm names it in a string" \
"$inl_pre
void k(void) { asm volatile(\"call twice\"); }" "$inl_post
void k(void) { asm volatile(\"call twice\"); }"
check differs "  it is __attribute__((used))" \
'static inline __attribute__((used)) int u(void) { return 1; }' \
'static inline __attribute__((used)) int u(void) { return 2; }'
check differs "  its definition goes, its prototype stays, a function calls it" \
"int twice(int x);
$inl_pre
int h(int v) { return twice(v); }" "int twice(int x);
int h(int v) { return twice(v); }"

st_pre='struct s { int a; };
typedef struct s s_t;'
st_post='struct s { int a; int b; };
typedef struct s s_t;'
check same "a struct changes; the unit only declares a function taking it" \
"$st_pre
int size(void *p);
int z(void) { return 0; }" "$st_post
int size(void *p);
int z(void) { return 0; }"
check differs "  a function takes its size through the typedef" \
"$st_pre
int size(void) { return sizeof(s_t); }" "$st_post
int size(void) { return sizeof(s_t); }"
check differs "  a variable of it" \
"$st_pre
struct s v;" "$st_post
struct s v;"
check differs "a struct in a struct: the inner tag is file scope" \
'struct o { struct in { int x; } i; };
int f(struct in *p) { return p->x; }' \
'struct o { struct in { long x; } i; };
int f(struct in *p) { return p->x; }'

check differs "__LINE__ (a number) moves in a function: compiled, the object diff decides" \
'void w(void) { warn(12); }' 'void w(void) { warn(13); }'
check same "  but in a static inline nothing calls" \
'static inline void w(void) { warn(12); }
int x(void) { return 0; }' 'static inline void w(void) { warn(13); }
int x(void) { return 0; }'

check differs "the same declarations in another order" \
'int a(void) { return 1; }
int b(void) { return 2; }' 'int b(void) { return 2; }
int a(void) { return 1; }'
check differs "a changed declaration of memcpy (gcc calls it for copies)" \
'extern void *memcpy(void *, const void *, unsigned long);
struct big { char b[100]; }; void cp(struct big *a, struct big *b) { *a = *b; }' \
'extern void *memcpy(void *, const void *, unsigned long) __attribute__((__section__(".x")));
struct big { char b[100]; }; void cp(struct big *a, struct big *b) { *a = *b; }'
check differs "a #pragma changes" \
'#pragma GCC optimize("O2")
int f(void) { return 1; }' '#pragma GCC optimize("O3")
int f(void) { return 1; }'
check differs "a typedef used by a prototype a function calls" \
'typedef int t_t;
t_t ext(void);
int f(void) { return ext(); }' 'typedef long t_t;
t_t ext(void);
int f(void) { return ext(); }'
check same "  and not called" \
'typedef int t_t;
t_t ext(void);
int f(void) { return 1; }' 'typedef long t_t;
t_t ext(void);
int f(void) { return 1; }'
check differs "a function pointer declarator (*fp) is a variable" \
'static inline int one(void) { return 1; }
int (*fp)(void) = one;' 'static inline int one(void) { return 2; }
int (*fp)(void) = one;'

# A typedef is another name for its type (cppalias.c): tty_driver.h's
# write() took "const unsigned char *" and takes "const u8 *" (6.1.190).
types='typedef unsigned char __u8;
__extension__ typedef __u8 u8;
typedef char *str_t;
struct tty; int drv_write(struct tty *, const unsigned char *, int);'
ops() { printf '%s\nstruct ops { int (*write)(struct tty *, %s, int); };\n%s\n' "$types" "$1" \
	'int go(struct ops *o, struct tty *t, const u8 *b) { return o->write(t, b, 1); }
struct ops drv_ops = { .write = drv_write };'; }
check "same: the same text but for type names" "a member's type written with a typedef of it, in a struct that code uses" \
	"$(ops 'const unsigned char *buf')" "$(ops 'const u8 *buf')"
check differs "  but another type is another type" \
	"$(ops 'const unsigned char *buf')" "$(ops 'const signed char *buf')"
check differs "  and so is a typedef that changed (each side reads its own)" \
	"$(ops 'const u8 *buf')" "$(ops 'const u8 *buf' | sed 's/typedef unsigned char __u8/typedef unsigned short __u8/')"
check differs "  and a pointer typedef is no plain alias (const str_t is char *const)" \
	"$(ops 'const char *buf')" "$(ops 'const str_t buf')"
check differs "  and a typedef in a block may hide the file's: that chunk is read as written" \
	"$(ops 'const u8 *buf'; echo 'int loc(void) { typedef int u8; u8 x = 300; return x; }')" \
	"$(ops 'const u8 *buf'; echo 'int loc(void) { typedef int u8; unsigned char x = 300; return x; }')"

# A prototype that names a struct (its return type, a parameter's) declares
# the function, not the struct: only the struct's definition says what it is.
mem() { printf '%s\n' 'struct mm { int users; };' \
	"struct mm *mem_open(struct inode *inode, unsigned int $1);" \
	'typedef struct mm mm_t;' "$2"; }
check same "a prototype returning struct mm * changes (a parameter renamed): a unit that only uses struct mm" \
	"$(mem mode 'int f(struct mm *m) { return m->users; }')" \
	"$(mem flags 'int f(struct mm *m) { return m->users; }')"
check differs "  one that calls the prototype" \
	"$(mem mode 'int f(void) { return mem_open(0, 1)->users; }')" \
	"$(mem flags 'int f(void) { return mem_open(0, 1)->users; }')"
check differs "  one that uses struct mm, whose definition changed" \
	"$(mem mode 'int f(struct mm *m) { return m->users; }')" \
	"$(mem mode 'int f(struct mm *m) { return m->users; }' | sed 's/int users;/long users;/')"
check differs "  one that uses a typedef of it, which changed" \
	"$(mem mode 'int f(mm_t *m) { return m->users; }')" \
	"$(mem mode 'int f(mm_t *m) { return m->users; }' | sed 's/typedef struct mm mm_t/typedef struct mm2 mm_t/')"

# Names numbered by __COUNTER__ (cppcounter.c): ip6_route.h's static inline
# gained a min_t (6.1.190), two __UNIQUE_IDs, and every later __UNIQUE_ID_*
# and __compiletime_assert_* of every unit that includes it moved by two.
ctr() { # FIRST-COUNTER-AFTER-THE-INLINE INLINE-BODY [MORE]
	local c=$1 a=$(($1 + 1)) m=$(($1 + 2))
	printf '%s\n' "static inline __attribute__((__gnu_inline__)) unsigned int mtu(unsigned int m) { $2 }" \
		"int f(int v) { int __UNIQUE_ID_x_$c = v; do { extern void __compiletime_assert_$a(void) __attribute__((__error__(\"bad\"))); if (!(sizeof(int) == 4)) __compiletime_assert_$a(); } while (0); return __UNIQUE_ID_x_$c; }" \
		"static const char __UNIQUE_ID_author$m[] __attribute__((__used__)) __attribute__((__section__(\".modinfo\"))) = \"author=me\";" \
		"${3:-}"
}
min_t='m = ({ unsigned int __UNIQUE_ID_x_5 = (m); unsigned int __UNIQUE_ID_y_6 = (1500); __UNIQUE_ID_x_5 < __UNIQUE_ID_y_6 ? __UNIQUE_ID_x_5 : __UNIQUE_ID_y_6; }); return m;'
check same "a static inline gains a min_t: later __COUNTER__ names renumbered, code that does not use it" \
	"$(ctr 5 'return m;')" "$(ctr 7 "$min_t")"
check differs "  code that calls it" \
	"$(ctr 5 'return m;' 'unsigned int g(void) { return mtu(9000); }')" \
	"$(ctr 7 "$min_t" 'unsigned int g(void) { return mtu(9000); }')"
check same "renumbered names that rename one to one (a5 is a7, a6 is a8)" \
	'static int __UNIQUE_ID_a5; static int __UNIQUE_ID_a6; int f(void) { return __UNIQUE_ID_a5; }' \
	'static int __UNIQUE_ID_a7; static int __UNIQUE_ID_a8; int f(void) { return __UNIQUE_ID_a7; }'
check differs "  a function that now reads the other variable" \
	'static int __UNIQUE_ID_a5; static int __UNIQUE_ID_a6; int f(void) { return __UNIQUE_ID_a5; }' \
	'static int __UNIQUE_ID_a7; static int __UNIQUE_ID_a8; int f(void) { return __UNIQUE_ID_a8; }'
check same "asm that names a counter name as the code does, others renumbered" \
	'static int __UNIQUE_ID_v5 __attribute__((__used__)); asm(".long __UNIQUE_ID_v5"); int g(void) { int __UNIQUE_ID_x_6 = 1; return __UNIQUE_ID_x_6; }' \
	'static int __UNIQUE_ID_v5 __attribute__((__used__)); asm(".long __UNIQUE_ID_v5"); int g(void) { int __UNIQUE_ID_x_9 = 1; return __UNIQUE_ID_x_9; }'
check differs "  asm that still names the old number of one the code renumbered" \
	'static int __UNIQUE_ID_v5 __attribute__((__used__)); asm(".long __UNIQUE_ID_v5");' \
	'static int __UNIQUE_ID_v7 __attribute__((__used__)); asm(".long __UNIQUE_ID_v5");'
check differs "  a name with a number __COUNTER__ did not make" \
	'static int a5; static int a6; int f(void) { return a5; }' \
	'static int a7; static int a8; int f(void) { return a7; }'
# A top-level asm is assembler: initcall and BTF_ID labels hold a counter.
initcall() { printf '%s\n' 'static int inet_init(void) { return 0; }' \
	"asm(\".section \\\".initcall6.init\\\", \\\"a\\\"\\n\" \"__initcall__kmod_af_inet__$1_2030_inet_init6\" \":\\n\" \".long inet_init - .\\n\" \".previous\\n\");" \
	"asm(\".pushsection .BTF_ids,\\\"a\\\"; .local __BTF_ID__func__inet_init__${2}2031; __BTF_ID__func__inet_init__${2}2031: .zero 4; .popsection;\");"; }
check same "a top-level asm's initcall and BTF_ID labels renumbered" "$(initcall 842 843)" "$(initcall 844 845)"
check differs "  a string that is data, renumbered (it is read as spelled)" \
	"$(initcall 842 843; echo 'const char *lab = "__initcall__kmod_af_inet__842_2030_inet_init6";')" \
	"$(initcall 844 845; echo 'const char *lab = "__initcall__kmod_af_inet__844_2030_inet_init6";')"
# compiletime_assert()'s message spells its argument: a nested min() names
# the inner one's __UNIQUE_IDs in a string that is no data.
nested() { printf 'int f(unsigned long r) { return ({ __auto_type __UNIQUE_ID_x_%s = (r); do { extern void __compiletime_assert_%s(void) __attribute__((__error__("max(" "({ __auto_type __UNIQUE_ID_x_%s = (r); })" ", 3) signedness error"))); if (!(sizeof(r) == 8)) __compiletime_assert_%s(); } while (0); __UNIQUE_ID_x_%s; }); }\n' "$1" "$2" "$3" "$2" "$1"; }
check same "a nested min(): its __error__ message names the inner __UNIQUE_ID, all renumbered" \
	"$(nested 870 871 870)" "$(nested 872 873 872)"
check differs "  the message naming another number than the code" \
	"$(nested 870 871 870)" "$(nested 872 873 870)"

# A WARN_ON moved by a line: x86's _BUG_FLAGS() hands __LINE__ to the asm
# as its __bug_table entry's line, which code never reads.
warn() { # LINE FLAGS
	printf '%s\n' "static inline __attribute__((__gnu_inline__)) int chk(int x) { if (x) do { asm __inline volatile(\"1:\\t\" \".byte 0x0f, 0x0b\" \"\\n\" \".pushsection __bug_table,\\\"aw\\\"\\n\" \"2:\\t\" \".long \" \"1b\" \" - .\" \"\\t# bug_entry::bug_addr\\n\" \"\\t\" \".long \" \"%c0\" \" - .\" \"\\t# bug_entry::file\\n\" \"\\t.word %c1\" \"\\t# bug_entry::line\\n\" \"\\t.word %c2\" \"\\t# bug_entry::flags\\n\" \"\\t.org 2b+%c3\\n\" \".popsection\\n\" : : \"i\" (\"include/linux/chk.h\"), \"i\" ($1), \"i\" ($2), \"i\" (sizeof(struct bug_entry))); } while (0); return x; }" \
		'int f(int x) { return chk(x) + 1; }'
}
check same "a WARN_ON in a static inline moved by a line, code that calls it" "$(warn 100 2305)" "$(warn 101 2305)"
check differs "  its flags changed (another operand)" "$(warn 100 2305)" "$(warn 100 2304)"
check differs "  a number that is no __bug_table line" \
	"$(warn 100 2305 | sed 's/return x; }/return 100; }/')" "$(warn 101 2305 | sed 's/return x; }/return 101; }/')"
check differs "  a BTF_ID of another kind and type (resolve_btfids reads them from the name)" \
	'asm(".pushsection .BTF_ids,\"a\"; .local __BTF_ID__struct__sk_buff__1002031; __BTF_ID__struct__sk_buff__1002031: .zero 4; .popsection;");' \
	'asm(".pushsection .BTF_ids,\"a\"; .local __BTF_ID__func__sk_free__1022031; __BTF_ID__func__sk_free__1022031: .zero 4; .popsection;");'

# pr_debug moved by a line: its descriptor's .lineno, which the object
# diff's same_descriptor() reads as a line.
dbg() { # LINE SECTION FIELD
	printf '%s\n' "static inline __attribute__((__gnu_inline__)) void note(int x) { static struct _ddebug __attribute__((__aligned__(8))) __attribute__((__section__(\"$2\"))) __UNIQUE_ID_ddebug602 = { .modname = \"tcp\", .function = __func__, .filename = \"include/net/x.h\", .format = (\"x=%d\\n\"), .$3 = $1, .flags = 0, }; __dynamic_pr_debug(&__UNIQUE_ID_ddebug602, \"x=%d\\n\", x); }" \
		'void f(int x) { note(x); }'
}
check same "a pr_debug in a static inline moved by a line, code that calls it" \
	"$(dbg 211 __dyndbg lineno)" "$(dbg 213 __dyndbg lineno)"
check differs "  the same field in another section" \
	"$(dbg 211 __dyndbg_x lineno)" "$(dbg 213 __dyndbg_x lineno)"
check differs "  another field of the descriptor" \
	"$(dbg 211 __dyndbg class_id)" "$(dbg 213 __dyndbg class_id)"

# fortify's memcpy warning: "<file>.h" ":" __stringify(__LINE__), an
# argument of __warn_printk(), in merged strings (diff.c same_but_line()).
fort() { # BEFORE-THE-STRING LINE AFTER
	printf '%s\n' "void f(int x) { $1\"field \\\"\" \"dst\" \"\\\" at \" \"include/net/tcp.h\" \":\" \"$2\"$3; }"; }
check same "fortify's warning in a function moved by a line" \
	"$(fort '__warn_printk("%s", ' 2418 ', x)')" "$(fort '__warn_printk("%s", ' 2420 ', x)')"
check differs "  by a line of another length" \
	"$(fort '__warn_printk("%s", ' 999 ', x)')" "$(fort '__warn_printk("%s", ' 1000 ', x)')"
check differs "  the same string initialising an array (data)" \
	"$(fort 'static const char w[] = ' 2418 '')" "$(fort 'static const char w[] = ' 2420 '')"
check differs "  the same string indexed" \
	"$(fort 'g((' 2418 ')[30])')" "$(fort 'g((' 2420 ')[30])')"
check differs "  digits after a string that is no file name" \
	"$(fort '__warn_printk("%s", ' 2418 ', x)' | sed 's/tcp\.h/tcp/')" \
	"$(fort '__warn_printk("%s", ' 2420 ', x)' | sed 's/tcp\.h/tcp/')"

# A structure of which only pointer members changed type (cppmembers.c):
# only code that names them can differ.
ops() { # MEMBERS
	printf '%s\n' 'struct sock;' "struct ops { $1 int len; };" \
		'struct holder { const struct ops *ops; int v; };'; }
cb_pre='int (*a)(struct sock *sk); struct sock *(*cb)(const struct sock *sk, int x);'
cb_post='int (*a)(struct sock *sk); struct sock *(*cb)(const struct sock *sk, int x, void (*init)(struct sock *nsk));'
use_a='int f(struct holder *h, struct sock *s) { const struct ops *o = h->ops; return o->a(s) + h->ops->len; }'
check same "a function pointer member gains a parameter; code uses the others" \
	"$(ops "$cb_pre"; echo "$use_a")" "$(ops "$cb_post"; echo "$use_a")"
check differs "  code calls through it" \
	"$(ops "$cb_pre"; echo 'void f(struct holder *h) { h->ops->cb(0, 1); }')" \
	"$(ops "$cb_post"; echo 'void f(struct holder *h) { h->ops->cb(0, 1, 0); }')"
check differs "  a designated initialiser names it" \
	"$(ops "$cb_pre"; echo 'struct sock *g(const struct sock *, int); const struct ops o = { .cb = g };')" \
	"$(ops "$cb_post"; echo 'struct sock *g(const struct sock *, int); const struct ops o = { .cb = g };')"
check same "  a designated initialiser of another member" \
	"$(ops "$cb_pre"; echo 'int g(struct sock *); const struct ops o = { .a = g };')" \
	"$(ops "$cb_post"; echo 'int g(struct sock *); const struct ops o = { .a = g };')"
check differs "  a member that is no longer a pointer" \
	"$(ops 'void *p;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'long p;'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  an array of pointers that grows" \
	"$(ops 'void *p[2];'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'void *p[3];'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  a pointer member renamed" \
	"$(ops 'void *p;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'char *q;'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  a pointer member added" \
	"$(ops 'void *p;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'void *p; void *q;'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  a pointer member with an alignment" \
	"$(ops 'void *p;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'char *p __attribute__((__aligned__(16)));'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  two declarators in one member" \
	"$(ops 'void *p, *q;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(ops 'char *p, *q;'; echo "$use_a" | sed 's/o->a(s) + //')"
check differs "  a type the structure names changed too (followed through it)" \
	"$(echo 'typedef int len_t;'; ops 'void *p; len_t l;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(echo 'typedef long len_t;'; ops 'char *p; len_t l;'; echo "$use_a" | sed 's/o->a(s) + //')"
check same "  the same with the type unchanged" \
	"$(echo 'typedef int len_t;'; ops 'void *p; len_t l;'; echo "$use_a" | sed 's/o->a(s) + //')" \
	"$(echo 'typedef int len_t;'; ops 'char *p; len_t l;'; echo "$use_a" | sed 's/o->a(s) + //')"
