// SPDX-License-Identifier: GPL-2.0
/*
 * Type names that are only other names for a type, for cppdiff.c.
 *
 * A header that writes "const u8 *buf" where it wrote "const unsigned
 * char *buf" (a member of struct tty_operations, 6.1.190) changes the
 * text of every unit using the struct, yet a typedef is only another name
 * for its type: no unit can compile differently.  So chunks are compared
 * with such names read as what they stand for, on each side by that
 * side's own typedef: a typedef that changed still changes every chunk
 * using it.
 *
 * Only plain aliases are read so: "typedef <specifiers> NAME;" where the
 * specifiers are type keywords and qualifiers, a struct, union or enum
 * tag, or names read so themselves.  A pointer, array or function type,
 * or an attribute, is no plain alias: "const T" means another type when T
 * is a pointer, and an attribute's meaning depends on where it stands.
 */
#include "cpptok.h"

static const char *const specifiers[] = {
	"void", "char", "short", "int", "long", "float", "double", "signed",
	"unsigned", "_Bool", "__int128", "__signed__", "const", "volatile",
	"__const", "__volatile", "__volatile__",
};

static bool is_specifier(const struct tok *t)
{
	size_t i;

	for (i = 0; i < sizeof(specifiers) / sizeof(*specifiers); i++)
		if (is_word(t, specifiers[i]))
			return true;
	return false;
}

static bool is_tag_word(const struct tok *t)
{
	return is_word(t, "struct") || is_word(t, "union") || is_word(t, "enum");
}

static void push(struct side *sd, const struct tok *t)
{
	sd->xtoks = cpp_grow(sd->xtoks, &sd->cap_xtoks, sd->nr_xtoks + 1,
			     sizeof(*sd->xtoks));
	sd->xtoks[sd->nr_xtoks++] = *t;
}

/* Appends what [s, e) stands for to sd->xtoks; false if not plain. */
static bool expand_specifiers(const struct names *n, struct side *sd,
			      size_t s, size_t e)
{
	const struct tok *t = sd->toks;
	size_t i, k;

	for (i = s; i < e; i++) {
		const struct cpp_alias *a = cpp_alias_of(sd, &t[i]);

		if (is_specifier(&t[i])) {
			push(sd, &t[i]);
		} else if (is_tag_word(&t[i]) && i + 1 < e && is_name(n, &t[i + 1])) {
			push(sd, &t[i]);
			push(sd, &t[++i]);
		} else if (a) {
			/* pushing may move xtoks: index it afresh */
			for (k = 0; k < a->len; k++)
				push(sd, &sd->xtoks[a->start + k]);
		} else {
			return false;
		}
	}
	return true;
}

void cpp_alias_add(const struct names *n, struct side *sd, size_t s, size_t e)
{
	const struct tok *t = sd->toks;
	size_t start = sd->nr_xtoks;
	uint32_t id;

	while (s < e && is_word(&t[s], "__extension__"))
		s++;
	if (e - s < 4 || !is_word(&t[s], "typedef") || !is_punct(&t[e - 1], ';') ||
	    !is_name(n, &t[e - 2]))
		return;
	id = t[e - 2].id;
	if (cpp_alias_of(sd, &t[e - 2]))
		return;		/* the first definition stands */
	if (!expand_specifiers(n, sd, s + 1, e - 2) || sd->nr_xtoks == start) {
		sd->nr_xtoks = start;
		return;
	}
	if (id >= sd->nr_aliases) {
		size_t old = sd->nr_aliases;

		sd->aliases = cpp_grow(sd->aliases, &sd->nr_aliases, id + 1,
				       sizeof(*sd->aliases));
		memset(sd->aliases + old, 0,
		       (sd->nr_aliases - old) * sizeof(*sd->aliases));
	}
	sd->aliases[id] = (struct cpp_alias){ start, sd->nr_xtoks - start };
}
