/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tokens of preprocessed text, and the names in it, for cppdiff.c:
 * one lexer for both sides, so that one name has one id on both.
 */
#ifndef KSPLICE_CPPTOK_H
#define KSPLICE_CPPTOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { T_IDENT, T_NUMBER, T_STRING, T_PUNCT, T_DIRECTIVE };

/* Name flags. */
#define N_KEYWORD	1	/* neither declared nor referred to */
#define N_NOTDECL	2	/* the group after it is no declarator */
#define N_EMITS		4	/* an attribute that makes a chunk emit */
#define N_IMPLICIT	8	/* gcc may call it without being asked */
#define N_COUNTER	16	/* numbered by __COUNTER__ (cppcounter.c) */

#define CPP_NO_NAME	UINT32_MAX

struct tok {
	const char *s;
	uint32_t len;
	uint32_t id;		/* T_IDENT: the interned name */
	uint8_t kind;
	bool counter;		/* T_IDENT: its name has N_COUNTER */
};

struct name {
	const char *s;
	uint32_t len;
	uint32_t hash;
	uint8_t flags;
};

struct names {
	struct name *v;
	size_t nr, cap;
	uint32_t *slots;	/* index + 1, open addressing */
	size_t nr_slots;
	/* cppcounter.c, by name id: */
	uint32_t *ctr_seen, *ctr_rank;	/* the chunk that ranked it, its rank */
	uint32_t *ctr_post, *ctr_pre;	/* its counterpart + 1, or 0 */
	size_t cap_ctr;
	uint32_t ctr_chunk, ctr_next;
	uint32_t *ctr_va, *ctr_vb;	/* a chunk pair's counter names */
	size_t cap_va, cap_vb;
};

struct chunk;				/* cppdiff.c: a top-level declaration */

/* A plain type alias: what it stands for, in side.xtoks. */
struct cpp_alias {
	uint32_t start, len;		/* len 0: none */
};

struct side {
	struct tok *toks;
	size_t nr_toks, cap_toks;
	struct chunk *chunks;
	size_t nr_chunks, cap_chunks;
	uint32_t *refs, *decls;
	size_t nr_refs, cap_refs, nr_decls, cap_decls;
	struct cpp_alias *aliases;	/* by name id (cppalias.c) */
	size_t nr_aliases;
	struct tok *xtoks;
	size_t nr_xtoks, cap_xtoks;
	uint32_t *mems;			/* changed pointer members (cppmembers.c) */
	size_t nr_mems, cap_mems;
};

uint32_t cpp_intern(struct names *n, const char *s, size_t len);
void *cpp_grow(void *p, size_t *cap, size_t need, size_t size);
/*
 * The keywords and the names the comparison treats apart (N_*), in @n
 * zeroed or used before (its names are forgotten).
 */
void cpp_names_init(struct names *n);
/* Appends @p's tokens to @sd (line markers dropped). */
void cpp_tokenize(struct names *n, struct side *sd, const char *p);

/* Names numbered by __COUNTER__ (cppcounter.c). */
bool cpp_counter_shape(const char *s, size_t len);
size_t cpp_counter_stem(const char *s, size_t len);
void cpp_counters_reset(struct names *n);
/* Starts a chunk: its counter names are ranked from 0. */
void cpp_counter_chunk(struct names *n);
uint32_t cpp_counter_rank(struct names *n, uint32_t id);
bool cpp_counter_pair(struct names *n, const struct side *a, size_t as,
		      size_t ae, const struct side *b, size_t bs, size_t be);
/* The name the text after calls @id of the text before; CPP_NO_NAME if none. */
uint32_t cpp_counter_post(const struct names *n, uint32_t id);

/* Notes [s, e), a top-level declaration, if it is a plain type alias. */
void cpp_alias_add(const struct names *n, struct side *sd, size_t s, size_t e);

static inline const struct cpp_alias *cpp_alias_of(const struct side *sd,
						   const struct tok *t)
{
	if (t->kind != T_IDENT || t->id >= sd->nr_aliases ||
	    !sd->aliases[t->id].len)
		return NULL;
	return &sd->aliases[t->id];
}

static inline bool is_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->len == 1 && t->s[0] == c;
}

static inline bool is_word(const struct tok *t, const char *w)
{
	return t->kind == T_IDENT && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

static inline bool same_tok(const struct tok *a, const struct tok *b)
{
	return a->kind == b->kind && a->len == b->len && !memcmp(a->s, b->s, a->len);
}

static inline uint8_t flags_of(const struct names *n, const struct tok *t)
{
	return t->kind == T_IDENT ? n->v[t->id].flags : 0;
}

static inline bool is_name(const struct names *n, const struct tok *t)
{
	return t->kind == T_IDENT && !(n->v[t->id].flags & N_KEYWORD);
}

static inline bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '$';
}

static inline bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * The next name a string spells at or after *@p: a maximal run of
 * identifier characters that starts as an identifier does ("1st" names
 * nothing).  Returns its length (0: none left), its start in *@w, and moves
 * *@p past it.
 */
static inline size_t next_word(const char **p, const char *end,
			       const char **w)
{
	const char *s = *p, *e;

	for (; s < end; s = e > s ? e : s + 1) {
		for (e = s; e < end && is_ident_char(*e); e++)
			;
		if (e > s && is_ident_start(*s)) {
			*w = s;
			*p = e;
			return e - s;
		}
	}
	*p = end;
	return 0;
}

#endif
