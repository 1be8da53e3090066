// SPDX-License-Identifier: GPL-2.0
/*
 * A structure whose only change is the type of some pointer members, for
 * cppdiff.c.
 *
 * struct inet_connection_sock_af_ops gains a parameter in the function
 * pointer syn_recv_sock, and every unit that touches a socket's
 * icsk_af_ops -- hundreds -- reaches a changed declaration.  But every
 * member keeps its place: a pointer is 8 bytes whatever it points to, the
 * other members are the same tokens, and randstruct (off in Debian's
 * configurations) would shuffle by the tag's name, not by member types.
 * A pointer converts to another pointer type with no instruction, so an
 * initialiser that does not name the member, a copy, a sizeof, a
 * pointer to the structure passed around, all compile as before.  Only
 * code that names such a member -- a call through it, a read, a
 * designated initialiser -- can differ: those names are what changed.
 *
 * Strict where unsure: a member with an attribute, a bit-field, an array,
 * typeof, more than one declarator, a nested definition, or a name of
 * another spelling is not "a pointer member", and the structure changed
 * as a whole.
 */
#include "cppmembers.h"
#include "util.h"

static const char *const qualifiers[] = {
	"const", "__const", "__const__", "volatile", "__volatile",
	"__volatile__", "restrict", "__restrict", "__restrict__",
};

static bool is_qualifier(const struct tok *t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qualifiers); i++)
		if (is_word(t, qualifiers[i]))
			return true;
	return false;
}

static bool opens(const struct tok *t)
{
	return is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{');
}

static bool closes(const struct tok *t)
{
	return is_punct(t, ')') || is_punct(t, ']') || is_punct(t, '}');
}

/* The '(' that the ')' at @i closes, or @s if there is none. */
static size_t opening(const struct tok *t, size_t s, size_t i)
{
	int depth = 0;

	for (;; i--) {
		if (closes(&t[i]))
			depth++;
		else if (opens(&t[i]) && !--depth)
			return i;
		if (i == s)
			return s;
	}
}

/* Only "* qualifiers... name" in [s, e): the pointer declarator's name. */
static uint32_t pointer_name(const struct names *n, const struct tok *t,
			     size_t s, size_t e)
{
	size_t k = e - 1;

	if (e - s < 2 || !is_name(n, &t[k]))
		return CPP_NO_NAME;
	while (k > s && is_qualifier(&t[k - 1]))
		k--;
	if (k == s || !is_punct(&t[k - 1], '*'))
		return CPP_NO_NAME;
	return t[e - 1].id;
}

/*
 * The name a member declaration [s, e) (its ';' excluded) declares, if it
 * declares one plain pointer: "T *name" or "T (*name)(params)".
 */
static uint32_t pointer_member(const struct names *n, const struct tok *t,
			       size_t s, size_t e)
{
	size_t i, p, q;
	int depth = 0;

	for (i = s; i < e; i++) {
		if (flags_of(n, &t[i]) & N_NOTDECL || is_punct(&t[i], '{') ||
		    is_punct(&t[i], '[') || is_punct(&t[i], '='))
			return CPP_NO_NAME;
		if (opens(&t[i]))
			depth++;
		else if (closes(&t[i]))
			depth--;
		else if (!depth && (is_punct(&t[i], ',') || is_punct(&t[i], ':')))
			return CPP_NO_NAME;
	}
	if (e - s < 3)
		return CPP_NO_NAME;
	if (!is_punct(&t[e - 1], ')'))
		return pointer_name(n, t, s, e);
	/* T (*name)(params): the group before the parameters */
	p = opening(t, s, e - 1);
	if (p <= s + 1 || !is_punct(&t[p], '(') || !is_punct(&t[p - 1], ')'))
		return CPP_NO_NAME;
	q = opening(t, s, p - 1);
	if (q <= s || !is_punct(&t[q], '('))
		return CPP_NO_NAME;
	return pointer_name(n, t, q + 1, p - 1);
}

/* Past the member declaration starting at @i, its ';' excluded. */
static size_t member_end(const struct tok *t, size_t i, size_t e)
{
	int depth = 0;

	for (; i < e; i++) {
		if (opens(&t[i]))
			depth++;
		else if (closes(&t[i]))
			depth--;
		else if (!depth && is_punct(&t[i], ';'))
			return i;
	}
	return e;
}

static bool same_toks(const struct tok *a, size_t as, size_t ae,
		      const struct tok *b, size_t bs, size_t be)
{
	size_t i;

	if (ae - as != be - bs)
		return false;
	for (i = 0; i < ae - as; i++)
		if (!same_tok(&a[as + i], &b[bs + i]))
			return false;
	return true;
}

/* The closer of the group opening at @i, or @e. */
static size_t closing(const struct tok *t, size_t i, size_t e)
{
	int depth = 0;

	for (; i < e; i++) {
		if (opens(&t[i]))
			depth++;
		else if (closes(&t[i]) && !--depth)
			return i;
	}
	return e;
}

/* The '{' of "struct tag {" or "union tag {", or 0. */
static size_t body_of(const struct names *n, const struct tok *t, size_t nr)
{
	if (nr < 5 || (!is_word(&t[0], "struct") && !is_word(&t[0], "union")) ||
	    !is_name(n, &t[1]) || !is_punct(&t[2], '{'))
		return 0;
	return 2;
}

bool cpp_pointer_members(const struct names *n, const struct tok *a,
			 size_t na, const struct tok *b, size_t nb,
			 uint32_t *ids, size_t max, size_t *nr)
{
	size_t ka = body_of(n, a, na), kb = body_of(n, b, nb);
	size_t ca, cb, ia, ib, ma, mb;
	uint32_t pa;

	*nr = 0;
	if (!ka || !kb || !same_toks(a, 0, ka + 1, b, 0, kb + 1))
		return false;
	ca = closing(a, ka, na);
	cb = closing(b, kb, nb);
	/* the same tag, the same attributes after the body */
	if (ca == na || cb == nb || !same_toks(a, ca, na, b, cb, nb))
		return false;
	for (ia = ka + 1, ib = kb + 1; ia < ca && ib < cb; ia = ma + 1, ib = mb + 1) {
		ma = member_end(a, ia, ca);
		mb = member_end(b, ib, cb);
		if (ma == ca || mb == cb)
			return false;
		if (same_toks(a, ia, ma, b, ib, mb))
			continue;
		pa = pointer_member(n, a, ia, ma);
		if (pa == CPP_NO_NAME || pa != pointer_member(n, b, ib, mb) ||
		    *nr == max)
			return false;
		ids[(*nr)++] = pa;
	}
	return ia == ca && ib == cb && *nr;
}
