// SPDX-License-Identifier: GPL-2.0
/*
 * Tables of functions that the kernel walks at set moments, laid out by
 * the linker when the image or module was built: PCI quirks
 * (.pci_fixup_final and its kin), which run when a device is found,
 * enabled, suspended or resumed.  The running kernel's tables cannot grow
 * or change, so a patch that adds, drops or changes an entry would bring
 * code that nothing runs (a new quirk only its new entry calls): the
 * update would not bring the fix.  Running a new quirk on the devices
 * present is the patch author's code, a hook.
 *
 * Entries are compared as a multiset: each one's bytes, its relocation
 * fields zeroed, and what each field refers to -- a function by its pre
 * name, so that an entry of a function the patch renumbered or changed
 * is the same entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util.h"

static const struct boot_table {
	const char *prefix;
	size_t entry_size;
	const char *what;
} boot_tables[] = {
	{ ".pci_fixup_", 16, "PCI quirks, run when a device is found, enabled, suspended or resumed" },
};

struct entries {
	char **v;
	size_t n;
};

/* What @r refers to, named as in the pre object. */
static char *referent(const struct object *pre, const struct object *obj,
		      const struct reloc *r)
{
	const struct symbol *c;
	struct target t;

	diff_target(obj, r, &t);
	if (!t.name)
		return xasprintf("?%s+%ld", t.sec ? t.sec->name : "", t.addend);
	c = obj == pre || !t.sym ? t.sym : diff_counterpart(pre, t.sym);
	if (obj != pre && t.sym && !c)
		return xasprintf("new function %s%+ld", t.name, t.addend);
	return xasprintf("%s%+ld", c ? c->name : t.name, t.addend);
}

/* Entry @i of @sec as text: its bytes, then what its fields refer to. */
static char *entry(const struct object *pre, const struct object *obj,
		   const struct section *sec, size_t size, size_t i)
{
	unsigned char bytes[64];
	struct reloc *r;
	size_t n, k, len = 0;
	char *s = xcalloc(1, 1), *ref, *old;

	memcpy(bytes, sec->data + i * size, size);
	n = elf_relocs_in(sec, i * size, (i + 1) * size, &r);
	for (k = 0; k < n; k++) {
		memset(bytes + r[k].offset - i * size, 0,
		       elf_reloc_size(r[k].type));
		ref = referent(pre, obj, &r[k]);
		old = s;
		s = xasprintf("%s%s%s", s, *s ? ", " : "", ref);
		free(old);
		free(ref);
	}
	old = s;
	s = xcalloc(1, strlen(old) + 2 * size + 4);
	for (k = 0; k < size; k++)
		len += sprintf(s + len, "%02x", bytes[k]);
	sprintf(s + len, " %s", old);
	free(old);
	return s;
}

static void read_entries(const struct object *pre, const struct object *obj,
			 const struct section *sec, size_t size,
			 struct entries *e)
{
	size_t i, nr = sec && sec->data ? sec->size / size : 0;

	e->v = xcalloc(nr + 1, sizeof(*e->v));
	e->n = nr;
	for (i = 0; i < nr; i++)
		e->v[i] = entry(pre, obj, sec, size, i);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reports what is in @a and not in @b (both sorted); returns how many. */
static size_t report_missing(const struct entries *a, const struct entries *b,
			     const char *sec, const char *how, const char *what,
			     FILE *log)
{
	size_t i = 0, j = 0, n = 0;
	int c;

	while (i < a->n) {
		c = j < b->n ? strcmp(a->v[i], b->v[j]) : -1;
		if (c > 0) {
			j++;
			continue;
		}
		if (c < 0) {
			fprintf(log, "  changed table: %s: %s entry calling %s (%s; the running kernel's table cannot change)\n",
				sec, how, strchr(a->v[i], ' ') + 1, what);
			n++;
		} else {
			j++;
		}
		i++;
	}
	return n;
}

static void free_entries(struct entries *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
}

static size_t compare_table(const struct object *pre, const struct object *post,
			    const char *name, const struct boot_table *t,
			    FILE *log)
{
	struct entries a, b;
	size_t n;

	read_entries(pre, pre, elf_find_section(pre, name), t->entry_size, &a);
	read_entries(pre, post, elf_find_section(post, name), t->entry_size, &b);
	qsort(a.v, a.n, sizeof(*a.v), by_text);
	qsort(b.v, b.n, sizeof(*b.v), by_text);
	n = report_missing(&b, &a, name, "a new", t->what, log) +
	    report_missing(&a, &b, name, "no more the", t->what, log);
	free_entries(&a);
	free_entries(&b);
	return n;
}

static bool is_table(const struct section *sec, const struct boot_table *t)
{
	return str_has_prefix(sec->name, t->prefix) && sec->sh.sh_type != SHT_RELA;
}

size_t diff_boot_tables(const struct object *pre, const struct object *post,
			FILE *log)
{
	const struct boot_table *t;
	size_t i, n = 0;

	for (t = boot_tables; t < boot_tables + ARRAY_SIZE(boot_tables); t++) {
		for (i = 0; i < post->nr_secs; i++)
			if (is_table(&post->secs[i], t))
				n += compare_table(pre, post, post->secs[i].name, t, log);
		/* (a table the patch empties is gone from post) */
		for (i = 0; i < pre->nr_secs; i++)
			if (is_table(&pre->secs[i], t) &&
			    !elf_find_section(post, pre->secs[i].name))
				n += compare_table(pre, post, pre->secs[i].name, t, log);
	}
	return n;
}
