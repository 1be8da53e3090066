// SPDX-License-Identifier: GPL-2.0
/*
 * Names numbered by __COUNTER__, for cppdiff.c.
 *
 * __UNIQUE_ID(x) is __UNIQUE_ID_x<counter>, and compiletime_assert()
 * declares __compiletime_assert_<counter>: min_t, READ_ONCE, BUILD_BUG_ON,
 * pr_debug and MODULE_AUTHOR all take one.  A header whose static inline
 * gains a min_t renumbers every such name after it in every unit that
 * includes it, though none of those units' code changes: each name stands
 * for one thing made by one macro expansion, and renaming it everywhere
 * it occurs is only renaming.
 *
 * So a chunk's hash reads such a name as its stem and its rank among the
 * chunk's own such names, and the chunks paired as unchanged must agree on one
 * renaming for the whole unit: each name of one side stands for one name
 * of the other, both ways.  Where they do not, the unit is taken to
 * differ.  Strings that are no data -- a top-level asm's (BTF_ID and
 * initcall labels), an __error__ attribute's message -- have their names
 * read so too.  Any other string is compared as spelled, but the names in
 * it still have to agree with the renaming, or asm would name what the
 * code no longer calls so.
 */
#include <string.h>

#include "cpptok.h"
#include "util.h"

/*
 * The names __COUNTER__ is pasted into, by prefix: the number ends the
 * name, or (initcalls) is inside it.  The same in 6.1 and 6.12.
 */
static const struct {
	const char *prefix;
	bool number_last;
} counter_shapes[] = {
	{ "__UNIQUE_ID_", true },		/* compiler-gcc.h: __UNIQUE_ID() */
	{ "__compiletime_assert_", true },	/* compiler_types.h */
	{ "__BTF_ID__", true },			/* btf_ids.h: __ID(), then __LINE__ */
	{ "__initcall__", false },		/* init.h: __initcall_id() */
};

static bool has_digit(const char *s, size_t len)
{
	while (len--)
		if (s[len] >= '0' && s[len] <= '9')
			return true;
	return false;
}

/*
 * The length of what is left of the name when the number is taken out
 * (all of its digits, when it ends the name: a __UNIQUE_ID prefix that
 * ends in one loses it on both sides alike), or 0 if it has no such shape.
 * What is left can mean something: BTF_ID's kind and type, which
 * resolve_btfids reads from the name.
 */
size_t cpp_counter_stem(const char *s, size_t len)
{
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(counter_shapes); i++) {
		k = strlen(counter_shapes[i].prefix);
		if (len <= k || memcmp(s, counter_shapes[i].prefix, k))
			continue;
		if (!counter_shapes[i].number_last)	/* a label's: the prefix */
			return has_digit(s + k, len - k) ? k : 0;
		if (s[len - 1] < '0' || s[len - 1] > '9')
			return 0;
		while (s[len - 1] >= '0' && s[len - 1] <= '9')
			len--;
		return len;
	}
	return 0;
}

bool cpp_counter_shape(const char *s, size_t len)
{
	return cpp_counter_stem(s, len) > 0;
}

static uint32_t *grow_zeroed(uint32_t *v, size_t old, size_t cap)
{
	v = xrealloc(v, cap * sizeof(uint32_t));
	memset(v + old, 0, (cap - old) * sizeof(uint32_t));
	return v;
}

/* The per-name arrays cover @id; grown ones start empty. */
static void cover(struct names *n, uint32_t id)
{
	size_t old = n->cap_ctr, cap = old ? old : 1024;

	if (id < old)
		return;
	while (cap <= id)
		cap *= 2;
	n->ctr_seen = grow_zeroed(n->ctr_seen, old, cap);
	n->ctr_rank = grow_zeroed(n->ctr_rank, old, cap);
	n->ctr_post = grow_zeroed(n->ctr_post, old, cap);
	n->ctr_pre = grow_zeroed(n->ctr_pre, old, cap);
	n->cap_ctr = cap;
}

void cpp_counters_reset(struct names *n)
{
	size_t sz = n->cap_ctr * sizeof(uint32_t);

	if (n->cap_ctr) {
		memset(n->ctr_seen, 0, sz);
		memset(n->ctr_post, 0, sz);
		memset(n->ctr_pre, 0, sz);
	}
	n->ctr_chunk = 0;
}

void cpp_counter_chunk(struct names *n)
{
	n->ctr_chunk++;
	n->ctr_next = 0;
}

uint32_t cpp_counter_rank(struct names *n, uint32_t id)
{
	cover(n, id);
	if (n->ctr_seen[id] != n->ctr_chunk) {
		n->ctr_seen[id] = n->ctr_chunk;
		n->ctr_rank[id] = n->ctr_next++;
	}
	return n->ctr_rank[id];
}

/* The counter names of [s, e) in order, identifiers and words of strings. */
static size_t collect(struct names *n, const struct side *sd, size_t s,
		      size_t e, uint32_t **v, size_t *cap)
{
	size_t nr = 0, len;
	const char *p, *end, *w;

	for (; s < e; s++) {
		const struct tok *t = &sd->toks[s];

		if (t->counter) {
			*v = cpp_grow(*v, cap, nr + 1, sizeof(uint32_t));
			(*v)[nr++] = t->id;
			continue;
		}
		if (t->kind != T_STRING)
			continue;
		p = t->s;
		end = t->s + t->len;
		while ((len = next_word(&p, end, &w))) {
			if (!cpp_counter_shape(w, len))
				continue;
			*v = cpp_grow(*v, cap, nr + 1, sizeof(uint32_t));
			(*v)[nr++] = cpp_intern(n, w, len);
		}
	}
	return nr;
}

/*
 * [as, ae) of the text before and [bs, be) of the text after were found
 * the same but for counter names: adds their pairs to the renaming, false
 * if one contradicts it.
 */
bool cpp_counter_pair(struct names *n, const struct side *a, size_t as,
		      size_t ae, const struct side *b, size_t bs, size_t be)
{
	size_t nr_a, nr_b, i;
	uint32_t x, y;

	nr_a = collect(n, a, as, ae, &n->ctr_va, &n->cap_va);
	nr_b = collect(n, b, bs, be, &n->ctr_vb, &n->cap_vb);
	if (nr_a != nr_b)
		return false;
	for (i = 0; i < nr_a; i++) {
		x = n->ctr_va[i];
		y = n->ctr_vb[i];
		cover(n, x > y ? x : y);
		if ((n->ctr_post[x] && n->ctr_post[x] != y + 1) ||
		    (n->ctr_pre[y] && n->ctr_pre[y] != x + 1))
			return false;
		n->ctr_post[x] = y + 1;
		n->ctr_pre[y] = x + 1;
	}
	return true;
}

uint32_t cpp_counter_post(const struct names *n, uint32_t id)
{
	if (id >= n->cap_ctr || !(n->v[id].flags & N_COUNTER))
		return id;
	return n->ctr_post[id] ? n->ctr_post[id] - 1 : CPP_NO_NAME;
}
