#!/bin/bash
# The preprocessing filter's comparison (src/create/cppdiff.c), through
# ksplice-create --diff-cpp PRE.i POST.i, on small preprocessed units:
# what a header's change can and cannot do to a unit's code.  Each "same"
# is paired with a "differs" that uses the same change.
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PATH="$KSPLICE_TOP/bin:$PATH"

plan 36
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
