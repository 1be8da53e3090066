// SPDX-License-Identifier: GPL-2.0
/*
 * Preprocessed text, compared for what code can see.
 *
 * Two outputs of gcc -E that are the same token for token (line markers
 * and whitespace aside) compile to the same code.  But a header's change
 * is in the text of every unit that includes it -- an enum gains a
 * member, a static inline changes -- while only the units that use it can
 * compile differently.  So the text is cut into its top-level
 * declarations ("chunks"), those of one side that the other lacks are
 * *changed*, and a unit can differ when:
 *   - a changed chunk emits code or data by itself: a function definition
 *     other than a static inline one, a variable, a top-level asm or
 *     #pragma, anything not known to emit nothing;
 *   - a changed chunk declares a name that a chunk reachable from those
 *     that emit refers to, names followed from chunk to chunk (a function
 *     calls a static inline, which tests an enum constant, ...);
 *   - the unchanged chunks come in another order;
 *   - a changed chunk declares a function gcc calls unasked (memcpy).
 * An enum without "= value"s that only gained constants at its end
 * declares only those as changed: the others keep their values.
 * A chunk "declares" every file-scope name it may introduce, rather more
 * than fewer: a name wrongly taken as declared makes more chunks
 * reachable, which can only make a unit differ, never hide a change.
 * Identifiers inside string literals count as references (asm).
 *
 * Names numbered by __COUNTER__ (__UNIQUE_ID_x42) are compared up to one
 * renaming of the whole unit (cppcounter.c).
 *
 * __LINE__ is a number in the text: a WARN_ON one line lower is a change
 * of the function that holds it.  Where the object diff reads it only as
 * a line (cpplines.c: a __bug_table entry's, a dynamic-debug descriptor's,
 * fortify's "<file>.h:<n>"), it is read as "a line"; anywhere else the
 * function is compiled, and the object diff decides.
 *
 * A structure whose only change is the type of pointer members changes
 * only the code that names those members (cppmembers.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cppdiff.h"
#include "cpplines.h"
#include "cppmembers.h"
#include "cpptok.h"
#include "util.h"

struct chunk {
	uint64_t h1, h2;
	uint32_t tok, nr_tok;		/* in side.toks */
	uint32_t refs, nr_refs;		/* in side.refs */
	uint32_t decls, nr_decls;	/* in side.decls */
	bool root, changed;
	bool grown;			/* an enum that only gained constants */
	bool counters;			/* names __COUNTER__ made are in it */
	bool members;			/* only pointer members changed */
	uint32_t ins, nr_ins;		/* post: the tokens it gained */
	uint32_t mems, nr_mems;		/* post: those members, in side.mems */
};

static void add_ref(struct side *sd, uint32_t id)
{
	sd->refs = cpp_grow(sd->refs, &sd->cap_refs, sd->nr_refs + 1, sizeof(uint32_t));
	sd->refs[sd->nr_refs++] = id;
}

static void add_decl(struct side *sd, uint32_t id)
{
	sd->decls = cpp_grow(sd->decls, &sd->cap_decls, sd->nr_decls + 1,
			 sizeof(uint32_t));
	sd->decls[sd->nr_decls++] = id;
}

/*
 * Identifiers in a string literal: asm may name symbols there.  True if
 * one of them is a counter name.
 */
static bool string_refs(struct names *n, struct side *sd, const struct tok *t)
{
	const char *p = t->s, *end = t->s + t->len, *w;
	bool counters = false;
	uint32_t id;
	size_t len;

	while ((len = next_word(&p, end, &w))) {
		id = cpp_intern(n, w, len);
		add_ref(sd, id);
		counters |= n->v[id].flags & N_COUNTER;
	}
	return counters;
}

/* Past a balanced group opening at @i. */
static size_t skip_group(const struct tok *t, size_t i, size_t end)
{
	int depth = 0;

	for (; i < end; i++) {
		if (is_punct(&t[i], '(') || is_punct(&t[i], '[') || is_punct(&t[i], '{'))
			depth++;
		else if (is_punct(&t[i], ')') || is_punct(&t[i], ']') ||
			 is_punct(&t[i], '}'))
			if (--depth <= 0)
				return i + 1;
	}
	return end;
}

/* Past __attribute__((...)) and the like at @i. */
static size_t skip_attrs(const struct names *n, const struct tok *t, size_t i,
			 size_t end)
{
	while (i + 1 < end && (flags_of(n, &t[i]) & N_NOTDECL) &&
	       is_punct(&t[i + 1], '('))
		i = skip_group(t, i + 1, end);
	return i;
}

/*
 * Tags defined anywhere in [s, e) (struct foo { in a struct is file
 * scope in C), and enum constants.
 */
static void declare_tags(struct names *n, struct side *sd, size_t s, size_t e)
{
	const struct tok *t = sd->toks;
	long enum_open = -1;
	int brace = 0, enum_level = -1;
	size_t i, k;

	for (i = s; i < e; i++) {
		if (is_word(&t[i], "struct") || is_word(&t[i], "union") ||
		    is_word(&t[i], "enum")) {
			long tag = -1;

			k = skip_attrs(n, t, i + 1, e);
			if (k < e && is_name(n, &t[k]))
				tag = k++;
			k = skip_attrs(n, t, k, e);
			if (k < e && is_punct(&t[k], '{')) {
				if (tag >= 0)
					add_decl(sd, t[tag].id);
				if (is_word(&t[i], "enum"))
					enum_open = k;
			}
		} else if (is_punct(&t[i], '{')) {
			brace++;
			if ((long)i == enum_open)
				enum_level = brace;
		} else if (is_punct(&t[i], '}')) {
			if (brace == enum_level)
				enum_level = -1;
			brace--;
		} else if (brace == enum_level && is_name(n, &t[i]) &&
			   (is_punct(&t[i - 1], '{') || is_punct(&t[i - 1], ','))) {
			add_decl(sd, t[i].id);
		}
	}
}

/* Is @t[i] the tag right after struct, union or enum? */
static bool after_tag_word(const struct tok *t, size_t s, size_t i)
{
	return i > s && (is_word(&t[i - 1], "struct") || is_word(&t[i - 1], "union") ||
			 is_word(&t[i - 1], "enum"));
}

/*
 * The names of [s, e) outside braces, brackets and parameter lists: a
 * declaration's declarators, and what their types name -- but not a tag
 * after struct, union or enum: only its definition, with braces
 * (declare_tags), says what it is, and the prototype struct mm_struct
 * *proc_mem_open(...) does not change every user of mm_struct.
 */
static void declare_outer(struct names *n, struct side *sd, size_t s, size_t e)
{
	const struct tok *t = sd->toks;
	int brace = 0, paren = 0, skip = -1;
	size_t i;

	for (i = s; i < e; i++) {
		if (is_punct(&t[i], '{'))
			brace++;
		else if (is_punct(&t[i], '}'))
			brace--;
		if (brace || is_punct(&t[i], '}'))
			continue;
		if (is_punct(&t[i], '(') || is_punct(&t[i], '[')) {
			paren++;
			if (skip >= 0)
				continue;
			if (is_punct(&t[i], '[') || (i > s && (flags_of(n, &t[i - 1]) & N_NOTDECL)))
				skip = paren;
			else if (i + 1 < e && (is_punct(&t[i + 1], '*') ||
					       is_punct(&t[i + 1], '(')))
				;	/* a declarator: (*fp)(...) */
			else if (i > s && (is_name(n, &t[i - 1]) || is_punct(&t[i - 1], ')')))
				skip = paren;	/* parameters */
		} else if (is_punct(&t[i], ')') || is_punct(&t[i], ']')) {
			if (paren == skip)
				skip = -1;
			paren--;
		} else if (skip < 0 && is_name(n, &t[i]) && !after_tag_word(t, s, i)) {
			add_decl(sd, t[i].id);
		}
	}
}

static bool has_word_flag(const struct names *n, const struct tok *t, size_t s,
			  size_t e, uint8_t flag)
{
	size_t i;

	for (i = s; i < e; i++)
		if (flags_of(n, &t[i]) & flag)
			return true;
	return false;
}

static bool has_word(const struct tok *t, size_t s, size_t e, const char *w)
{
	size_t i;

	for (i = s; i < e; i++)
		if (is_word(&t[i], w))
			return true;
	return false;
}

/* A function definition: [s, body) its head, @params its parameter list. */
static void function_chunk(struct names *n, struct side *sd, struct chunk *c,
			   size_t s, size_t body, size_t params)
{
	const struct tok *t = sd->toks;
	bool is_static = has_word(t, s, body, "static");
	bool is_inline = has_word(t, s, body, "inline") ||
			 has_word(t, s, body, "__inline") ||
			 has_word(t, s, body, "__inline__");

	if (params > s && is_name(n, &t[params - 1]))
		add_decl(sd, t[params - 1].id);
	else
		declare_outer(n, sd, s, body);
	declare_tags(n, sd, s, body);
	c->root = !(is_static && is_inline) ||
		  has_word_flag(n, t, s, body, N_EMITS);
}

/* struct foo;  struct foo { ... } __attribute__((...));  enum { ... }; */
static bool only_a_type(const struct names *n, const struct tok *t, size_t i,
			size_t e)
{
	if (!is_word(&t[i], "struct") && !is_word(&t[i], "union") &&
	    !is_word(&t[i], "enum"))
		return false;
	i = skip_attrs(n, t, i + 1, e);
	if (i < e && is_name(n, &t[i]))
		i++;
	i = skip_attrs(n, t, i, e);
	if (i < e && is_punct(&t[i], '{'))
		i = skip_attrs(n, t, skip_group(t, i, e), e);
	return i + 1 == e && is_punct(&t[i], ';');
}

/* A declaration [s, e), ending in ';'. */
static void declaration_chunk(struct names *n, struct side *sd, struct chunk *c,
			      size_t s, size_t e)
{
	const struct tok *t = sd->toks;
	bool has_extern = false, has_init = false, prototype = false;
	int depth = 0;
	size_t i, first = s;

	while (first < e && is_word(&t[first], "__extension__"))
		first++;
	for (i = first; i < e; i++) {
		if (is_punct(&t[i], '(') || is_punct(&t[i], '[') || is_punct(&t[i], '{'))
			depth++;
		else if (is_punct(&t[i], ')') || is_punct(&t[i], ']') ||
			 is_punct(&t[i], '}'))
			depth--;
		else if (!depth && is_word(&t[i], "extern"))
			has_extern = true;
		else if (!depth && is_punct(&t[i], '='))
			has_init = true;
		if (!depth && is_name(n, &t[i]) && i + 1 < e && is_punct(&t[i + 1], '('))
			prototype = true;
	}
	declare_outer(n, sd, s, e);
	declare_tags(n, sd, s, e);
	c->root = has_word_flag(n, t, s, e, N_EMITS) ||
		  !(is_word(&t[first], "typedef") || (has_extern && !has_init) ||
		    (prototype && !has_init) || only_a_type(n, t, first, e));
}

static void hash_step(uint64_t *h1, uint64_t *h2, uint64_t x)
{
	*h1 = (*h1 ^ x) * 0x100000001b3ULL;
	*h2 = (*h2 + x) * 0x9e3779b97f4a7c15ULL;
	*h2 ^= *h2 >> 29;
}

static void hash_bytes(uint64_t *h1, uint64_t *h2, const char *s,
		       const char *end)
{
	for (; s < end; s++)
		hash_step(h1, h2, (unsigned char)*s);
}

/*
 * A counter name: its stem, and its rank in the chunk (1 << 33 and up: no
 * byte, no name id).
 */
static void hash_counter(struct names *n, uint64_t *h1, uint64_t *h2,
			 const char *s, size_t len, uint32_t id)
{
	hash_bytes(h1, h2, s, s + cpp_counter_stem(s, len));
	hash_step(h1, h2, (1ULL << 33) + cpp_counter_rank(n, id));
}

/* A string that is no data: its counter names read as names. */
static void hash_code_string(struct names *n, uint64_t *h1, uint64_t *h2,
			     const struct tok *t)
{
	const char *p = t->s, *q = t->s, *end = t->s + t->len, *w;
	size_t len;

	while ((len = next_word(&q, end, &w))) {
		if (!cpp_counter_shape(w, len))
			continue;
		hash_bytes(h1, h2, p, w);
		hash_counter(n, h1, h2, w, len, cpp_intern(n, w, len));
		p = q;
	}
	hash_bytes(h1, h2, p, end);
}

/*
 * A name by its id: both sides intern into one table, so one name has one
 * id, and 256 + id is no byte.
 */
static void hash_tok(struct names *n, uint64_t *h1, uint64_t *h2,
		     const struct tok *t, bool code, uint64_t line)
{
	if (line)
		hash_step(h1, h2, line);
	else if (t->counter)
		hash_counter(n, h1, h2, t->s, t->len, t->id);
	else if (t->kind == T_IDENT)
		hash_step(h1, h2, 256 + (uint64_t)t->id);
	else if (t->kind == T_STRING && code)
		hash_code_string(n, h1, h2, t);
	else
		hash_bytes(h1, h2, t->s, t->s + t->len);
	*h1 = (*h1 ^ 0xff) * 0x100000001b3ULL;	/* between tokens */
	*h2 = (*h2 + 0x1ff) * 0x9e3779b97f4a7c15ULL;
}

/*
 * Strings at @i that are no data: a top-level asm's (its chunk starts at
 * @s), and the message of __attribute__((__error__(...))), which
 * compiletime_assert() spells with its argument: a nested min() names the
 * inner one's __UNIQUE_IDs there.
 */
static bool code_string(const struct tok *t, size_t s, size_t i)
{
	if (is_word(&t[s], "asm") || is_word(&t[s], "__asm__") || is_word(&t[s], "__asm"))
		return true;
	while (i > s && t[i - 1].kind == T_STRING)
		i--;
	return i >= s + 2 && is_punct(&t[i - 1], '(') &&
	       (is_word(&t[i - 2], "__error__") || is_word(&t[i - 2], "__warning__"));
}

/* A chunk's hashes read a plain type alias as what it stands for (cppalias.c). */
static void add_chunk(struct names *n, struct side *sd, size_t s, size_t e,
		      long body, long params)
{
	struct chunk *c;
	uint64_t h1 = FNV1A_INIT, h2 = 0x6a09e667f3bcc909ULL;
	size_t i, j;
	bool raw;

	sd->chunks = cpp_grow(sd->chunks, &sd->cap_chunks, sd->nr_chunks + 1,
			  sizeof(struct chunk));
	c = &sd->chunks[sd->nr_chunks++];
	memset(c, 0, sizeof(*c));
	c->tok = s;
	c->nr_tok = e - s;
	c->refs = sd->nr_refs;
	c->decls = sd->nr_decls;
	/* A typedef in a block may hide one of the file's: read as written. */
	for (i = s + 1; i < e && !is_word(&sd->toks[i], "typedef"); i++)
		;
	raw = i < e;
	cpp_counter_chunk(n);
	for (i = s; i < e; i++) {
		const struct tok *t = &sd->toks[i];
		const struct cpp_alias *a = raw ? NULL : cpp_alias_of(sd, t);

		if (!a)
			hash_tok(n, &h1, &h2, t, t->kind == T_STRING &&
				 code_string(sd->toks, s, i), cpp_line(n, sd->toks, s, e, i));
		for (j = 0; a && j < a->len; j++)
			hash_tok(n, &h1, &h2, &sd->xtoks[a->start + j], false, 0);
		if (is_name(n, t))
			add_ref(sd, t->id);
		else if (t->kind == T_STRING && string_refs(n, sd, t))
			c->counters = true;
		c->counters |= t->counter;
	}
	c->h1 = h1;
	c->h2 = h2;
	if (sd->toks[s].kind == T_DIRECTIVE)
		c->root = true;		/* #pragma: may change what follows */
	else if (body >= 0)
		function_chunk(n, sd, c, s, body, params);
	else
		declaration_chunk(n, sd, c, s, e);
	if (sd->toks[s].kind != T_DIRECTIVE && body < 0)
		cpp_alias_add(n, sd, s, e);
	c->nr_refs = sd->nr_refs - c->refs;
	c->nr_decls = sd->nr_decls - c->decls;
}

/* Top level: declarations end in ';', function definitions in '}'. */
static void cut_chunks(struct names *n, struct side *sd)
{
	const struct tok *t = sd->toks;
	long group = -1, last_group = -1, body = -1;
	int brace = 0, paren = 0;
	size_t i, start = 0;

	for (i = 0; i < sd->nr_toks; i++) {
		if (t[i].kind == T_DIRECTIVE && i == start) {
			add_chunk(n, sd, i, i + 1, -1, -1);
			start = i + 1;
			continue;
		}
		if (t[i].kind != T_PUNCT || t[i].len != 1)
			continue;
		switch (t[i].s[0]) {
		case '(':
			if (!paren && !brace)
				group = i;
			paren++;
			break;
		case '[':
			paren++;
			break;
		case ')':
		case ']':
			if (paren && !--paren && !brace && t[i].s[0] == ')')
				last_group = group;
			break;
		case '{':
			if (!brace && !paren && i > start && is_punct(&t[i - 1], ')') &&
			    last_group > (long)start &&
			    !(flags_of(n, &t[last_group - 1]) & N_NOTDECL))
				body = i;
			brace++;
			break;
		case '}':
			if (brace && !--brace && !paren && body >= 0) {
				add_chunk(n, sd, start, i + 1, body, last_group);
				start = i + 1;
				body = last_group = -1;
			}
			break;
		case ';':
			if (!brace && !paren) {
				if (i > start)
					add_chunk(n, sd, start, i + 1, -1, -1);
				start = i + 1;
				last_group = -1;
			}
			break;
		}
	}
	if (start < sd->nr_toks)
		add_chunk(n, sd, start, sd->nr_toks, -1, -1);
}

struct count {
	uint64_t h1, h2;
	uint32_t pre, post;
};

struct counts {
	struct count *v;
	size_t mask;
};

static struct count *count_of(struct counts *cs, const struct chunk *c)
{
	size_t j;

	for (j = c->h1 & cs->mask; cs->v[j].pre || cs->v[j].post; j = (j + 1) & cs->mask)
		if (cs->v[j].h1 == c->h1 && cs->v[j].h2 == c->h2)
			return &cs->v[j];
	cs->v[j].h1 = c->h1;
	cs->v[j].h2 = c->h2;
	return &cs->v[j];
}

/* A chunk is changed when the two sides hold it a different number of times. */
static void mark_changed(struct side *a, struct side *b)
{
	struct counts cs;
	size_t i, n = 1024;

	while (n < 2 * (a->nr_chunks + b->nr_chunks))
		n *= 2;
	cs.v = xcalloc(n, sizeof(struct count));
	cs.mask = n - 1;
	for (i = 0; i < a->nr_chunks; i++)
		count_of(&cs, &a->chunks[i])->pre++;
	for (i = 0; i < b->nr_chunks; i++)
		count_of(&cs, &b->chunks[i])->post++;
	for (i = 0; i < a->nr_chunks; i++) {
		struct count *c = count_of(&cs, &a->chunks[i]);

		a->chunks[i].changed = c->pre != c->post;
	}
	for (i = 0; i < b->nr_chunks; i++) {
		struct count *c = count_of(&cs, &b->chunks[i]);

		b->chunks[i].changed = c->pre != c->post;
	}
	free(cs.v);
}

static bool same_order(const struct side *a, const struct side *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->nr_chunks && a->chunks[i].changed)
			i++;
		while (j < b->nr_chunks && b->chunks[j].changed)
			j++;
		if (i == a->nr_chunks || j == b->nr_chunks)
			return i == a->nr_chunks && j == b->nr_chunks;
		if (a->chunks[i].h1 != b->chunks[j].h1 ||
		    a->chunks[i].h2 != b->chunks[j].h2)
			return false;
		i++;
		j++;
	}
}

/*
 * The unchanged chunks, paired in order, agree on one renaming of counter
 * names (cppcounter.c)?
 */
static bool same_renaming(struct names *n, const struct side *a,
			  const struct side *b)
{
	size_t i = 0, j = 0;
	const struct chunk *ca, *cb;

	for (;; i++, j++) {
		while (i < a->nr_chunks && a->chunks[i].changed)
			i++;
		while (j < b->nr_chunks && b->chunks[j].changed)
			j++;
		if (i == a->nr_chunks || j == b->nr_chunks)
			return true;
		ca = &a->chunks[i];
		cb = &b->chunks[j];
		if ((ca->counters || cb->counters) &&
		    !cpp_counter_pair(n, a, ca->tok, ca->tok + ca->nr_tok,
				      b, cb->tok, cb->tok + cb->nr_tok))
			return false;
	}
}

static void say(struct cpp_verdict *v, const struct names *n, const char *what,
		uint32_t id)
{
	v->differs = true;
	snprintf(v->why, sizeof(v->why), "%s %.*s", what, (int)n->v[id].len,
		 n->v[id].s);
}

static const char *chunk_name(const struct names *n, const struct side *sd,
			      const struct chunk *c, int *len)
{
	uint32_t id = c->nr_decls ? sd->decls[c->decls] :
		      c->nr_refs ? sd->refs[c->refs] : 0;

	if (!c->nr_decls && !c->nr_refs) {
		*len = 3;
		return "(?)";
	}
	*len = n->v[id].len;
	return n->v[id].s;
}

/* enum [tag] { A, B, }; with no "= value": its constants are 0, 1, ... */
static bool plain_enum(const struct side *sd, const struct chunk *c)
{
	const struct tok *t = sd->toks + c->tok;
	size_t i;

	if (c->nr_tok < 4 || !is_word(&t[0], "enum") ||
	    !is_punct(&t[c->nr_tok - 2], '}') || !is_punct(&t[c->nr_tok - 1], ';'))
		return false;
	for (i = 1; i < c->nr_tok - 2; i++)
		if (is_punct(&t[i], '=') || is_punct(&t[i], '}') ||
		    (is_punct(&t[i], '{') && i > 2))
			return false;
	return true;
}

/*
 * @b is @a with constants added before its '}': "A, B," + "C," (or
 * "A, B" + ", C").  A and B keep their values, and so does the enum's
 * type (small values are ints): only C is a changed name.
 */
static bool grown_enum(const struct names *n, const struct side *sa,
		       const struct chunk *a, const struct side *sb,
		       const struct chunk *b)
{
	const struct tok *ta = sa->toks + a->tok, *tb = sb->toks + b->tok;
	size_t k = a->nr_tok - 2, i;
	bool want_name;

	if (b->nr_tok <= a->nr_tok || !plain_enum(sa, a) || !plain_enum(sb, b))
		return false;
	for (i = 0; i < k; i++)
		if (!same_tok(&ta[i], &tb[i]))
			return false;
	/* after "{" or ",": a name; after a name: "," */
	want_name = is_punct(&ta[k - 1], '{') || is_punct(&ta[k - 1], ',');
	for (i = k; i < b->nr_tok - 2; i++) {
		if (want_name ? !is_name(n, &tb[i]) : !is_punct(&tb[i], ','))
			return false;
		want_name = !want_name;
	}
	return true;
}

/* Pairs each changed plain enum of @a with the one of @b it grew into. */
static void match_grown_enums(const struct names *n, struct side *a,
			      struct side *b)
{
	size_t i, j;

	for (i = 0; i < a->nr_chunks; i++) {
		struct chunk *ca = &a->chunks[i];

		for (j = 0; ca->changed && !ca->grown && j < b->nr_chunks; j++) {
			struct chunk *cb = &b->chunks[j];

			if (!cb->changed || cb->grown || !grown_enum(n, a, ca, b, cb))
				continue;
			ca->grown = cb->grown = true;
			cb->ins = cb->tok + ca->nr_tok - 2;
			cb->nr_ins = cb->nr_tok - ca->nr_tok;
		}
	}
}

static bool same_decls(const struct side *a, const struct chunk *ca,
		       const struct side *b, const struct chunk *cb)
{
	return ca->nr_decls && ca->nr_decls == cb->nr_decls &&
	       !memcmp(a->decls + ca->decls, b->decls + cb->decls,
		       ca->nr_decls * sizeof(uint32_t));
}

/*
 * Pairs each changed structure of @b with the one of @a it was, when
 * only pointer members changed (cppmembers.c): their names, not the
 * structure's, are what changed.
 */
static void match_pointer_structs(const struct names *n, struct side *a,
				  struct side *b)
{
	uint32_t ids[16];
	size_t i, j, nr;

	for (j = 0; j < b->nr_chunks; j++) {
		struct chunk *cb = &b->chunks[j];

		if (!cb->changed || cb->root || cb->grown || cb->counters)
			continue;
		for (i = 0; i < a->nr_chunks; i++) {
			struct chunk *ca = &a->chunks[i];

			if (!ca->changed || ca->root || ca->grown || ca->counters ||
			    ca->members || !same_decls(a, ca, b, cb) ||
			    !cpp_pointer_members(n, a->toks + ca->tok, ca->nr_tok,
						 b->toks + cb->tok, cb->nr_tok, ids,
						 ARRAY_SIZE(ids), &nr))
				continue;
			ca->members = cb->members = true;
			b->mems = cpp_grow(b->mems, &b->cap_mems, b->nr_mems + nr,
					   sizeof(uint32_t));
			cb->mems = b->nr_mems;
			cb->nr_mems = nr;
			memcpy(b->mems + b->nr_mems, ids, nr * sizeof(uint32_t));
			b->nr_mems += nr;
			break;
		}
	}
}

/*
 * Marks in @changed the names changed chunks declare; false if none
 * matters.  Names of the text before (@pre) are marked as the text after
 * calls them; one that only changed chunks hold names nothing after.
 */
static bool changed_names(const struct names *n, const struct side *sd,
			  bool pre, bool *changed, struct cpp_verdict *v)
{
	size_t i, j;
	int len;

	for (i = 0; i < sd->nr_chunks; i++) {
		const struct chunk *c = &sd->chunks[i];
		const char *nm;

		if (!c->changed)
			continue;
		if (c->root) {
			nm = chunk_name(n, sd, c, &len);
			v->differs = true;
			snprintf(v->why, sizeof(v->why), "%.*s emits code or data and changed",
				 len, nm);
			return true;
		}
		for (j = 0; c->grown && j < c->nr_ins; j++)
			if (is_name(n, &sd->toks[c->ins + j]))
				changed[sd->toks[c->ins + j].id] = true;
		for (j = 0; c->members && j < c->nr_mems; j++)
			changed[sd->mems[c->mems + j]] = true;
		for (j = 0; !c->grown && !c->members && j < c->nr_decls; j++) {
			uint32_t id = sd->decls[c->decls + j];

			if (pre)
				id = cpp_counter_post(n, id);
			if (id == CPP_NO_NAME)
				continue;
			changed[id] = true;
			if (n->v[id].flags & N_IMPLICIT) {
				say(v, n, "gcc calls it unasked and it changed:", id);
				return true;
			}
		}
	}
	return false;
}

/*
 * A structure whose pointer members changed declares its tag as before:
 * what it refers to is followed, but not the members it declares.
 */
static bool followed(const struct chunk *c)
{
	return !c->changed || c->members;
}

static bool own_member(const struct side *sd, const struct chunk *c,
		       uint32_t id)
{
	size_t j;

	for (j = 0; c->members && j < c->nr_mems; j++)
		if (sd->mems[c->mems + j] == id)
			return true;
	return false;
}

/*
 * From the chunks that emit, follow names to the chunks declaring them;
 * the unit differs as soon as one of them names a changed declaration.
 */
static void reach(const struct names *n, const struct side *sd,
		  const bool *changed, struct cpp_verdict *v)
{
	uint32_t *first = xcalloc(n->nr + 1, sizeof(uint32_t)), *by;
	uint32_t *queue = xmalloc((sd->nr_chunks + 1) * sizeof(uint32_t));
	bool *seen = xcalloc(sd->nr_chunks, sizeof(bool));
	size_t i, j, k, head = 0, tail = 0;

	/* CSR: the chunks declaring each name whose declarations hold */
	for (i = 0; i < sd->nr_chunks; i++)
		for (j = 0; followed(&sd->chunks[i]) && j < sd->chunks[i].nr_decls; j++)
			first[sd->decls[sd->chunks[i].decls + j] + 1]++;
	for (i = 0; i < n->nr; i++)
		first[i + 1] += first[i];
	by = xmalloc((first[n->nr] + 1) * sizeof(uint32_t));
	for (i = 0; i < sd->nr_chunks; i++) {
		const struct chunk *c = &sd->chunks[i];

		for (j = 0; followed(c) && j < c->nr_decls; j++) {
			uint32_t id = sd->decls[c->decls + j];

			by[first[id]++] = i;
		}
	}
	for (i = n->nr; i > 0; i--)	/* first[] was advanced: shift back */
		first[i] = first[i - 1];
	first[0] = 0;
	for (i = 0; i < sd->nr_chunks; i++)
		if (sd->chunks[i].root && !sd->chunks[i].changed) {
			seen[i] = true;
			queue[tail++] = i;
		}
	while (head < tail && !v->differs) {
		const struct chunk *c = &sd->chunks[queue[head++]];

		for (j = 0; j < c->nr_refs && !v->differs; j++) {
			uint32_t id = sd->refs[c->refs + j];
			int len;
			const char *nm;

			if (changed[id] && !own_member(sd, c, id)) {
				nm = chunk_name(n, sd, c, &len);
				v->differs = true;
				snprintf(v->why, sizeof(v->why), "%.*s uses %.*s, which changed",
					 len, nm, (int)n->v[id].len, n->v[id].s);
				break;
			}
			for (k = first[id]; k < first[id + 1]; k++)
				if (!seen[by[k]]) {
					seen[by[k]] = true;
					queue[tail++] = by[k];
				}
		}
	}
	free(first);
	free(by);
	free(queue);
	free(seen);
}

static void side_free(struct side *sd)
{
	free(sd->toks);
	free(sd->chunks);
	free(sd->refs);
	free(sd->decls);
	free(sd->aliases);
	free(sd->xtoks);
	free(sd->mems);
}

/* Empties @sd for the next text; its arrays stay allocated. */
static void side_reset(struct side *sd)
{
	sd->nr_toks = sd->nr_chunks = sd->nr_refs = sd->nr_decls = 0;
	sd->nr_xtoks = sd->nr_mems = 0;
	if (sd->aliases)	/* by name id, its size is its capacity */
		memset(sd->aliases, 0, sd->nr_aliases * sizeof(*sd->aliases));
}

struct cpp_scratch {
	struct names n;
	struct side a, b;
};

struct cpp_scratch *cpp_scratch_new(void)
{
	return xcalloc(1, sizeof(struct cpp_scratch));
}

void cpp_scratch_free(struct cpp_scratch *s)
{
	if (!s)
		return;
	side_free(&s->a);
	side_free(&s->b);
	free(s->n.v);
	free(s->n.slots);
	free(s->n.ctr_seen);
	free(s->n.ctr_rank);
	free(s->n.ctr_post);
	free(s->n.ctr_pre);
	free(s->n.ctr_va);
	free(s->n.ctr_vb);
	free(s);
}

static bool same_text(const struct side *a, const struct side *b)
{
	size_t i;

	if (a->nr_chunks != b->nr_chunks)
		return false;
	for (i = 0; i < a->nr_chunks; i++)
		if (a->chunks[i].h1 != b->chunks[i].h1 ||
		    a->chunks[i].h2 != b->chunks[i].h2)
			return false;
	return true;
}

static bool same_tokens(const struct side *a, const struct side *b)
{
	size_t i;

	if (a->nr_toks != b->nr_toks)
		return false;
	for (i = 0; i < a->nr_toks; i++)
		if (a->toks[i].len != b->toks[i].len ||
		    memcmp(a->toks[i].s, b->toks[i].s, a->toks[i].len))
			return false;
	return true;
}

void cpp_compare(struct cpp_scratch *s, const char *pre, const char *post,
		 struct cpp_verdict *v)
{
	struct names *n = &s->n;
	struct side *a = &s->a, *b = &s->b;
	size_t i, nr = 0;
	bool *changed;

	memset(v, 0, sizeof(*v));
	cpp_names_init(n);
	cpp_counters_reset(n);
	side_reset(a);
	side_reset(b);
	cpp_tokenize(n, a, pre);
	cpp_tokenize(n, b, post);
	cut_chunks(n, a);
	cut_chunks(n, b);
	if (same_text(a, b) && same_renaming(n, a, b)) {
		snprintf(v->why, sizeof(v->why), same_tokens(a, b) ? "the same text" :
			 "the same text but for type names that stand for the same types, names __COUNTER__ numbered or lines");
		return;
	}
	mark_changed(a, b);
	if (!same_order(a, b)) {
		v->differs = true;
		snprintf(v->why, sizeof(v->why), "declarations in another order");
		return;
	}
	if (!same_renaming(n, a, b)) {
		v->differs = true;
		snprintf(v->why, sizeof(v->why),
			 "names __COUNTER__ numbered do not rename one to one");
		return;
	}
	match_grown_enums(n, a, b);
	match_pointer_structs(n, a, b);
	changed = xcalloc(n->nr, sizeof(bool));
	if (!changed_names(n, a, true, changed, v) &&
	    !changed_names(n, b, false, changed, v))
		reach(n, b, changed, v);
	free(changed);
	for (i = 0; i < b->nr_chunks; i++)
		nr += b->chunks[i].changed;
	if (!v->differs)
		snprintf(v->why, sizeof(v->why),
			 "%zu changed declarations, none used by its code", nr);
}
