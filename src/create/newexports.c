// SPDX-License-Identifier: GPL-2.0
/*
 * New exports: EXPORT_SYMBOL of a name the unit did not export before the
 * patch (a new exported function or variable, for the modules of a later
 * release; or an existing function exported anew).  The running kernel
 * lacks them, and an update does not carry them yet: the module loader
 * would export them from the update module as it loads, before the core
 * has relocated (or, for a module target not loaded, could relocate) the
 * code behind them, and a cumulative update carrying the same export
 * could not load beside the one it replaces.  Exporting them needs the
 * core to publish them once the code is live.  Until then a patch of
 * exports alone is refused for that reason, and one that also changes
 * code is applied without them, with a note: a module that needs one will
 * not load.
 */
#include <string.h>

#include "newexports.h"
#include "util.h"

#define KSYMTAB_SYM "__ksymtab_"

static bool is_ksymtab_entry(const struct symbol *s)
{
	return s->sec && str_has_prefix(s->name, KSYMTAB_SYM) &&
	       str_has_prefix(s->sec->name, "___ksymtab");
}

static bool has_symbol(const struct object *o, const char *name)
{
	size_t k;

	for (k = 0; k < o->nr_syms; k++)
		if (!strcmp(o->syms[k].name, name))
			return true;
	return false;
}

/* Is @s (of the post object) the ksymtab entry of an export pre lacks? */
static bool export_is_new(const struct object *pre, const struct symbol *s)
{
	return is_ksymtab_entry(s) && !has_symbol(pre, s->name);
}

size_t exports_new(const struct unit *u, FILE *log)
{
	size_t k, n = 0;

	for (k = 0; k < u->post.nr_syms; k++) {
		const struct symbol *s = &u->post.syms[k];

		if (!export_is_new(&u->pre, s))
			continue;
		fprintf(log, "  new export: %s (%s, %s)\n",
			s->name + strlen(KSYMTAB_SYM), u->source, u->target);
		n++;
	}
	return n;
}
