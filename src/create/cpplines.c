// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers in preprocessed text that are only a line, for cppdiff.c.
 *
 * A header's change moves every line below it, and __LINE__ is a number
 * in the text of each unit that expands a macro there.  Where it lands
 * in a place the object diff reads as a line, never as code, the texts
 * compile to objects the diff calls the same:
 *   - the line of a __bug_table entry, which x86's _BUG_FLAGS() hands to
 *     the asm ("i" after "# bug_entry::line"): the diff compares code;
 *   - .lineno of a dynamic-debug descriptor (pr_debug, dev_dbg: a static
 *     struct _ddebug in section __dyndbg): diff.c's same_descriptor()
 *     pairs descriptors alike but for it;
 *   - the digits of "<file>.h" ":" "<n>" passed to a function (fortify's
 *     field-spanning memcpy warning): diff.c's same_but_line().  Read as
 *     a line of so many digits: a number of another length moves what
 *     follows it.
 * Any other number is compared.
 */
#include "cpplines.h"

static bool string_has(const struct tok *t, const char *what)
{
	return t->kind == T_STRING && memmem(t->s, t->len, what, strlen(what));
}

static bool is_string(const struct tok *t, const char *s)
{
	return t->kind == T_STRING && t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

/* ... : : "i" (FILE), "i" (LINE) after "# bug_entry::line" */
static bool bug_line(const struct tok *t, size_t s, size_t i)
{
	size_t k;

	if (t[i].kind != T_NUMBER || i < s + 11 || !is_punct(&t[i - 1], '(') ||
	    !is_string(&t[i - 2], "\"i\"") || !is_punct(&t[i - 3], ',') ||
	    !is_punct(&t[i - 4], ')') || t[i - 5].kind != T_STRING ||
	    !is_punct(&t[i - 6], '(') || !is_string(&t[i - 7], "\"i\"") ||
	    !is_punct(&t[i - 8], ':') || !is_punct(&t[i - 9], ':'))
		return false;
	for (k = i - 10; k > s && t[k].kind == T_STRING; k--)
		if (string_has(&t[k], "# bug_entry::line"))
			return true;
	return false;
}

/*
 * __attribute__((__section__("__dyndbg"))) NAME = { ..., .lineno = LINE,
 * -- the first '{' before it opens the descriptor: its fields hold no
 * braces.
 */
static bool dyndbg_line(const struct tok *t, size_t s, size_t i)
{
	size_t k;

	if (t[i].kind != T_NUMBER || i < s + 4 || !is_punct(&t[i - 1], '=') ||
	    !is_word(&t[i - 2], "lineno") || !is_punct(&t[i - 3], '.'))
		return false;
	for (k = i - 3; k > s && !is_punct(&t[k], '{'); k--)
		if (is_punct(&t[k], '}') || is_punct(&t[k], ';'))
			return false;
	return k >= s + 8 && is_punct(&t[k - 1], '=') &&
	       t[k - 2].kind == T_IDENT && is_punct(&t[k - 3], ')') &&
	       is_punct(&t[k - 4], ')') && is_punct(&t[k - 5], ')') &&
	       is_string(&t[k - 6], "\"__dyndbg\"") && is_punct(&t[k - 7], '(') &&
	       is_word(&t[k - 8], "__section__");
}

static bool all_digits(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return len > 0;
}

/* The '(' of the call whose argument list holds @j, or @s. */
static size_t call_of(const struct names *n, const struct tok *t, size_t s,
		      size_t j)
{
	int depth = 0;
	size_t k;

	for (k = j; k > s; k--) {
		const struct tok *c = &t[k - 1];

		if (is_punct(c, ')') || is_punct(c, ']') || is_punct(c, '}'))
			depth++;
		else if ((is_punct(c, '(') || is_punct(c, '[') || is_punct(c, '{')) &&
			 depth-- == 0)
			break;
	}
	if (k <= s + 1 || !is_punct(&t[k - 1], '(') || !is_name(n, &t[k - 2]) ||
	    (t[k - 2].len > 10 && !memcmp(t[k - 2].s, "__builtin_", 10)))
		return s;
	return k - 1;
}

/*
 * "<file>.c" ":" "<digits>", the last of strings that are an argument of
 * a call (fortify's warning is one of __warn_printk()'s): a pointer into
 * merged strings, which same_but_line() reads.  An initialiser is data,
 * compared byte for byte, and an indexed string is code.  The number of
 * digits, or 0.
 */
static size_t string_line(const struct names *n, const struct tok *t,
			  size_t s, size_t e, size_t i)
{
	const struct tok *f = &t[i - 2];
	size_t j = i;

	if (t[i].kind != T_STRING || i < s + 2 || i + 2 >= e || t[i].len < 3 ||
	    !all_digits(t[i].s + 1, t[i].len - 2) || !is_string(&t[i - 1], "\":\"") ||
	    f->kind != T_STRING || f->len < 4 || f->s[f->len - 3] != '.' ||
	    (f->s[f->len - 2] != 'c' && f->s[f->len - 2] != 'h'))
		return 0;
	while (j > s && t[j - 1].kind == T_STRING)
		j--;
	if (j == s || !(is_punct(&t[j - 1], '(') || is_punct(&t[j - 1], ',')) ||
	    !(is_punct(&t[i + 1], ',') || is_punct(&t[i + 1], ')')) ||
	    (is_punct(&t[i + 1], ')') && is_punct(&t[i + 2], '[')) ||
	    call_of(n, t, s, j) == s)
		return 0;
	return t[i].len - 2;
}

uint64_t cpp_line(const struct names *n, const struct tok *t, size_t s,
		  size_t e, size_t i)
{
	size_t digits;

	if (bug_line(t, s, i) || dyndbg_line(t, s, i))
		return CPP_LINE;
	digits = string_line(n, t, s, e, i);
	return digits ? CPP_LINE + digits : 0;
}
