// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer of preprocessed text (cpptok.h): tokens, interned names, and
 * the keyword tables that say which names the comparison treats apart.
 */
#include <stdlib.h>
#include <string.h>

#include "cpptok.h"
#include "util.h"

void *cpp_grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	if (*cap < need)
		*cap = need;
	return xrealloc(p, *cap * size);
}

static uint32_t hash32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void rehash(struct names *n)
{
	size_t i, j, mask;

	free(n->slots);
	n->nr_slots = n->nr_slots ? n->nr_slots * 2 : 1 << 14;
	n->slots = xcalloc(n->nr_slots, sizeof(uint32_t));
	mask = n->nr_slots - 1;
	for (i = 0; i < n->nr; i++) {
		for (j = n->v[i].hash & mask; n->slots[j]; j = (j + 1) & mask)
			;
		n->slots[j] = i + 1;
	}
}

uint32_t cpp_intern(struct names *n, const char *s, size_t len)
{
	uint32_t h = hash32(s, len);
	size_t j, mask;
	struct name *e;

	if (2 * (n->nr + 1) > n->nr_slots)
		rehash(n);
	mask = n->nr_slots - 1;
	for (j = h & mask; n->slots[j]; j = (j + 1) & mask) {
		e = &n->v[n->slots[j] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return n->slots[j] - 1;
	}
	n->v = cpp_grow(n->v, &n->cap, n->nr + 1, sizeof(*n->v));
	n->v[n->nr] = (struct name){ .s = s, .len = len, .hash = h,
		.flags = cpp_counter_shape(s, len) ? N_COUNTER : 0 };
	n->slots[j] = n->nr + 1;
	return n->nr++;
}

static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "static", "struct", "switch", "typedef", "union",
	"unsigned", "void", "volatile", "while", "_Bool", "_Complex",
	"_Noreturn", "_Thread_local", "_Atomic", "_Generic", "__inline",
	"__inline__", "__volatile__", "__volatile", "__const", "__restrict",
	"__restrict__", "__signed__", "__extension__", "__label__",
	"__builtin_va_list", "__int128", "__auto_type", "__thread",
};

/* What follows these in parentheses declares nothing. */
static const char *const not_declarators[] = {
	"__attribute__", "__attribute", "__asm__", "__asm", "asm",
	"__typeof__", "__typeof", "typeof", "_Alignas", "_Alignof",
	"__alignof__", "sizeof", "_Static_assert", "__builtin_offsetof",
};

static const char *const emitting_attrs[] = {
	"used", "__used__", "constructor", "__constructor__", "destructor",
	"__destructor__", "alias", "__alias__", "weakref", "__weakref__",
	"externally_visible", "__externally_visible__", "ifunc", "__ifunc__",
};

/* Called by gcc itself: for copies, checks, instrumentation. */
static const char *const implicit[] = {
	"memcpy", "memset", "memmove", "memcmp", "strlen", "strcpy",
	"strncpy", "strcat", "strcmp", "strncmp", "strchr", "strrchr",
	"strstr", "abort", "__stack_chk_fail", "__stack_chk_guard",
	"__fentry__", "__x86_return_thunk", "__x86_indirect_thunk_array",
	"__x86_indirect_call_thunk_array", "__x86_indirect_jump_thunk_array",
};

static void flag_all(struct names *n, const char *const *v, size_t nr,
		     uint8_t flag)
{
	size_t i;
	uint32_t id;

	for (i = 0; i < nr; i++) {
		id = cpp_intern(n, v[i], strlen(v[i]));
		n->v[id].flags |= flag;
	}
}

void cpp_names_init(struct names *n)
{
	/* A table used before keeps its memory: no fresh pages to fault in. */
	n->nr = 0;
	if (n->slots)
		memset(n->slots, 0, n->nr_slots * sizeof(*n->slots));
	flag_all(n, keywords, ARRAY_SIZE(keywords), N_KEYWORD);
	flag_all(n, not_declarators, ARRAY_SIZE(not_declarators),
		 N_KEYWORD | N_NOTDECL);
	flag_all(n, emitting_attrs, ARRAY_SIZE(emitting_attrs), N_EMITS);
	flag_all(n, implicit, ARRAY_SIZE(implicit), N_IMPLICIT);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void add_tok(struct side *sd, int kind, const char *s, size_t len,
		    uint32_t id)
{
	sd->toks = cpp_grow(sd->toks, &sd->cap_toks, sd->nr_toks + 1, sizeof(struct tok));
	sd->toks[sd->nr_toks++] = (struct tok){ .s = s, .len = len, .id = id,
						.kind = kind };
}

/* The longest punctuator at @p (maximal munch, as the compiler reads). */
static size_t punct_len(const char *p)
{
	static const char *const three[] = { "<<=", ">>=", "..." };
	static const char *const two[] = {
		"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
		"||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(three); i++)
		if (!strncmp(p, three[i], 3))
			return 3;
	for (i = 0; i < ARRAY_SIZE(two); i++)
		if (p[0] == two[i][0] && p[1] == two[i][1])
			return 2;
	return 1;
}

/* A line "#..." at @p: a line marker is dropped, others are one token. */
static const char *directive(struct side *sd, const char *p)
{
	const char *end = strchr(p, '\n'), *q = p + 1;

	if (!end)
		end = p + strlen(p);
	while (*q == ' ' || *q == '\t')
		q++;
	if (!is_digit(*q)) {
		const char *e = end;

		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		add_tok(sd, T_DIRECTIVE, p, e - p, 0);
	}
	return end;
}

static const char *literal_end(const char *p)
{
	char quote = *p++;

	while (*p && *p != quote && *p != '\n')
		p += *p == '\\' && p[1] ? 2 : 1;
	return *p == quote ? p + 1 : p;
}

static const char *number_end(const char *p)
{
	while (is_ident_char(*p) || *p == '.' ||
	       ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
		p++;
	return p;
}

void cpp_tokenize(struct names *n, struct side *sd, const char *p)
{
	bool bol = true;
	const char *e;
	uint32_t id;

	while (*p) {
		if (*p == '\n') {
			bol = true;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
			   *p == '\v') {
			p++;
		} else if (*p == '#' && bol) {
			p = directive(sd, p);
		} else if (is_ident_start(*p)) {
			for (e = p; is_ident_char(*e); e++)
				;
			id = cpp_intern(n, p, e - p);
			add_tok(sd, T_IDENT, p, e - p, id);
			sd->toks[sd->nr_toks - 1].counter = n->v[id].flags & N_COUNTER;
			p = e;
			bol = false;
		} else if (is_digit(*p) || (*p == '.' && is_digit(p[1]))) {
			e = number_end(p + 1);
			add_tok(sd, T_NUMBER, p, e - p, 0);
			p = e;
			bol = false;
		} else if (*p == '"' || *p == '\'') {
			e = literal_end(p);
			add_tok(sd, T_STRING, p, e - p, 0);
			p = e;
			bol = false;
		} else {
			e = p + punct_len(p);
			add_tok(sd, T_PUNCT, p, e - p, 0);
			p = e;
			bol = false;
		}
	}
}
