// SPDX-License-Identifier: GPL-2.0
/*
 * The patch author's hooks: entries of the section KSPLICE_HOOKS_SECTION
 * that include/ksplice/hooks.h's macros put in the post object, two
 * 8-byte words each (the kind, and a relocation naming the hook).  The
 * hook functions are new code (FUNC_NEW changes, carried like any helper
 * the patch adds); emit.c lists them in their object's hooks[] for the
 * core, which runs them.  The section itself is not carried: the core
 * gets a table it can check, not the compiler's.
 */
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "ksplice-update.h"
#include "ksplice/hooks.h"
#include "util.h"

#define ENTRY_SIZE	16

_Static_assert(KSPLICE_HOOK_KIND_PRE_APPLY == KSPLICE_HOOK_PRE_APPLY &&
	       KSPLICE_HOOK_KIND_STOP_APPLY == KSPLICE_HOOK_STOP_APPLY &&
	       KSPLICE_HOOK_KIND_POST_APPLY == KSPLICE_HOOK_POST_APPLY &&
	       KSPLICE_HOOK_KIND_PRE_UNDO == KSPLICE_HOOK_PRE_UNDO &&
	       KSPLICE_HOOK_KIND_STOP_UNDO == KSPLICE_HOOK_STOP_UNDO &&
	       KSPLICE_HOOK_KIND_POST_UNDO == KSPLICE_HOOK_POST_UNDO,
	       "the author's header and the core's agree on the kinds");

static const char *const kind_names[KSPLICE_HOOK_MAX] = {
	[KSPLICE_HOOK_PRE_APPLY] = "pre-apply",
	[KSPLICE_HOOK_STOP_APPLY] = "stop-apply",
	[KSPLICE_HOOK_POST_APPLY] = "post-apply",
	[KSPLICE_HOOK_PRE_UNDO] = "pre-undo",
	[KSPLICE_HOOK_STOP_UNDO] = "stop-undo",
	[KSPLICE_HOOK_POST_UNDO] = "post-undo",
};

const char *hook_kind_name(unsigned int kind)
{
	return kind && kind < KSPLICE_HOOK_MAX ? kind_names[kind] : "?";
}

/* The new function of @d that @s is (or is an alias of), or NULL. */
static const struct symbol *new_function(const struct object *post,
					 const struct diff *d,
					 const struct symbol *s)
{
	size_t i;

	if (!s || !elf_is_function(s))
		return NULL;
	s = elf_func_primary(post, s);
	for (i = 0; i < d->nr_changes; i++)
		if (d->changes[i].kind == FUNC_NEW && d->changes[i].post == s)
			return s;
	return NULL;
}

static int read_entry(const struct object *post, const struct diff *d,
		      const struct section *sec, unsigned long e,
		      const char *source, struct hook *h)
{
	const struct reloc *r = elf_reloc_at(sec, e + 8);
	const struct symbol *s;
	unsigned int kind = 0, line = 0;

	if (sec->data) {
		memcpy(&kind, sec->data + e, sizeof(kind));
		memcpy(&line, sec->data + e + 4, sizeof(line));
	}
	if (!kind || kind >= KSPLICE_HOOK_MAX)
		return error("%s: hook entry %lu: unknown kind %u",
			     source, e / ENTRY_SIZE, kind);
	if (!r || r->type != R_X86_64_64)
		return error("%s: %s hook entry %lu names no function",
			     source, hook_kind_name(kind), e / ENTRY_SIZE);
	s = r->sym;
	if (s->type == STT_SECTION && s->sec)
		s = elf_symbol_at(post, s->sec, r->addend);
	else if (r->addend)
		s = NULL;
	h->kind = kind;
	h->line = line;
	h->fn = new_function(post, d, s);
	if (!h->fn)
		return error("%s: %s hook %s is not a function the patch adds: a hook is new code, never the running kernel's",
			     source, hook_kind_name(kind),
			     s ? s->name : r->sym->name);
	return 0;
}

/* Registration order; the entries are in the order the compiler chose. */
static int cmp_line(const void *a, const void *b)
{
	const struct hook *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

int hooks_read(const struct object *post, const struct diff *d,
	       const char *source, struct hooks *h, FILE *log)
{
	const struct section *sec = elf_find_section(post, KSPLICE_HOOKS_SECTION);
	unsigned long e;

	memset(h, 0, sizeof(*h));
	if (!sec)
		return 0;
	if (sec->size % ENTRY_SIZE || sec->size / ENTRY_SIZE > KSPLICE_MAX_HOOKS)
		return error("%s: section %s: %zu bytes, not up to %d entries of %d",
			     source, sec->name, sec->size, KSPLICE_MAX_HOOKS,
			     ENTRY_SIZE);
	h->v = xcalloc(sec->size / ENTRY_SIZE + 1, sizeof(*h->v));
	for (e = 0; e < sec->size; e += ENTRY_SIZE) {
		if (read_entry(post, d, sec, e, source, &h->v[h->nr])) {
			hooks_free(h);
			return -1;
		}
		h->nr++;
	}
	qsort(h->v, h->nr, sizeof(*h->v), cmp_line);
	for (e = 0; log && e < h->nr; e++)
		fprintf(log, "  hook: %s %s (%s:%u)\n",
			hook_kind_name(h->v[e].kind), h->v[e].fn->name, source,
			h->v[e].line);
	return 0;
}

bool hooks_apply_any(const struct hooks *h)
{
	size_t i;

	for (i = 0; i < h->nr; i++)
		if (h->v[i].kind <= KSPLICE_HOOK_POST_APPLY)
			return true;
	return false;
}

void hooks_free(struct hooks *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}
