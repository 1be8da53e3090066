// SPDX-License-Identifier: GPL-2.0
/*
 * The update model's names (update.h): the target's exports, read from its
 * Module.symvers, and the load symbols new code refers to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "update.h"
#include "util.h"

static int cmp_export(const void *a, const void *b)
{
	return strcmp(((const struct export *)a)->name,
		      ((const struct export *)b)->name);
}

/* Module.symvers: CRC, name, module, export type, namespace; tab-separated. */
int exports_read(const char *symvers, struct exports *ex)
{
	FILE *f = fopen(symvers, "r");
	char line[1024];

	memset(ex, 0, sizeof(*ex));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *field[5] = { 0 }, *p = line;
		int n;

		line[strcspn(line, "\n")] = '\0';
		for (n = 0; n < 5 && p; n++) {
			field[n] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		if (n < 2)
			continue;
		if (!(ex->nr & (ex->nr - 1)) || !ex->nr)
			ex->v = xrealloc(ex->v, (ex->nr ? 2 * ex->nr : 1) *
					 sizeof(*ex->v));
		ex->v[ex->nr].name = xstrdup(field[1]);
		ex->v[ex->nr].in_module = field[2] && strcmp(field[2], "vmlinux");
		ex->v[ex->nr++].ns = field[4] && *field[4] ?
				     xstrdup(field[4]) : NULL;
	}
	fclose(f);
	qsort(ex->v, ex->nr, sizeof(*ex->v), cmp_export);
	return 0;
}

const struct export *exports_find(const struct exports *ex, const char *name)
{
	struct export key = { .name = (char *)name };

	return ex ? bsearch(&key, ex->v, ex->nr, sizeof(*ex->v), cmp_export) :
		    NULL;
}

const char *load_sym_ref(struct load_syms *ls, const char *target,
			 const char *name)
{
	size_t i;

	for (i = 0; i < ls->nr; i++)
		if (!strcmp(ls->names[i], name) && !strcmp(ls->targets[i], target))
			return ls->refs[i];
	ls->names = xrealloc(ls->names, (ls->nr + 1) * sizeof(char *));
	ls->targets = xrealloc(ls->targets, (ls->nr + 1) * sizeof(char *));
	ls->refs = xrealloc(ls->refs, (ls->nr + 1) * sizeof(char *));
	ls->names[ls->nr] = xstrdup(name);
	ls->targets[ls->nr] = xstrdup(target);
	ls->refs[ls->nr] = xasprintf("__ksplice_load_%zu", ls->nr);
	return ls->refs[ls->nr++];
}

/* The name a __ksplice_load_<k> stands for. */
const char *load_sym_name(const struct load_syms *ls, const char *ref)
{
	size_t i;

	for (i = 0; i < ls->nr; i++)
		if (!strcmp(ls->refs[i], ref))
			return ls->names[i];
	return NULL;
}
