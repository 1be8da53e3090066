// SPDX-License-Identifier: GPL-2.0
/*
 * New exports: EXPORT_SYMBOL of a name the unit did not export before the
 * patch, a new function or variable for the modules of a later release.
 * The running kernel lacks them, so a module built against the patched
 * source would not load.
 *
 * The update module does not export them itself: the module loader would
 * export them as it loads, before the core has relocated the code behind
 * them, and a replace update could not load beside the update it
 * replaces.  update.c holds them in tables of its own (struct
 * ksplice_object's exports, sorted by name, with the versions genksyms
 * gives them), and the core publishes them once the code is live
 * (kmod/exports.c).  Their names are the new code's: a new global
 * function under its own name, a new variable under the name newobj.c
 * gives it.  Not carried, with a note: an export of what the running
 * kernel has (an existing function exported anew: nothing of the
 * update's to export), and those of a second object (the core publishes
 * one object's, as its module comes and goes).  The update still brings
 * the rest of the patch.
 */
#include <stdlib.h>
#include <string.h>

#include "newexports.h"
#include "util.h"

#define KSYMTAB_SYM "__ksymtab_"

struct new_export {
	const char *name;
	const char *ns;
	const struct symbol *sym;	/* what is exported, in post */
	bool gpl;
	unsigned int crc;
	size_t unit;
};

static bool is_ksymtab_entry(const struct symbol *s)
{
	return s->sec && str_has_prefix(s->name, KSYMTAB_SYM) &&
	       str_has_prefix(s->sec->name, "___ksymtab");
}

static const struct symbol *find_symbol(const struct object *o,
					const char *name, bool defined)
{
	size_t k;

	for (k = 0; k < o->nr_syms; k++)
		if (!strcmp(o->syms[k].name, name) &&
		    (!defined || (o->syms[k].sec &&
				  o->syms[k].bind != STB_LOCAL)))
			return &o->syms[k];
	return NULL;
}

bool export_is_new(const struct object *pre, const struct symbol *s)
{
	return is_ksymtab_entry(s) && !find_symbol(pre, s->name, false);
}

const struct symbol *export_target(const struct object *post,
				   const struct symbol *s)
{
	return find_symbol(post, s->name + strlen(KSYMTAB_SYM), true);
}

/* Is what @s exports new code of the patch's (not the running kernel's)? */
static bool exports_new_code(const struct unit *u, const struct symbol *s)
{
	const struct symbol *t = export_target(&u->post, s);

	return t && !find_symbol(&u->pre, t->name, true);
}

bool export_carried(const struct unit *u, const struct symbol *s)
{
	return u->nr_new_exports && export_is_new(&u->pre, s) &&
	       exports_new_code(u, s);
}

size_t exports_new(const struct unit *u, const char *only, FILE *log)
{
	size_t k, n = 0;

	for (k = 0; k < u->post.nr_syms; k++) {
		const struct symbol *s = &u->post.syms[k];
		const char *name = s->name + strlen(KSYMTAB_SYM);

		if (!export_is_new(&u->pre, s))
			continue;
		fprintf(log, "  new export: %s (%s, %s)\n", name, u->source,
			u->target);
		if (only && strcmp(only, u->target))
			fprintf(log, "  note: new export %s is not carried: an update carries one object's exports, and %s has some\n",
				name, only);
		else if (!exports_new_code(u, s))
			fprintf(log, "  note: new export %s is not carried: it exports what the running kernel has, not new code\n",
				name);
		else
			n++;
	}
	return n;
}

bool exports_added(const char *pre_path, const char *post_path)
{
	struct object pre, post;
	bool added = false;
	size_t k;

	if (elf_object_read(pre_path, &pre))
		return false;
	if (!elf_object_read(post_path, &post)) {
		for (k = 0; !added && k < post.nr_syms; k++)
			added = export_is_new(&pre, &post.syms[k]);
		elf_object_free(&post);
	}
	elf_object_free(&pre);
	return added;
}

/* The namespace string of export entry @s ("" for none). */
static const char *export_ns(const struct object *post, const struct symbol *s)
{
	char *name = xasprintf("__kstrtabns_%s", s->name + strlen(KSYMTAB_SYM));
	const struct symbol *ns = find_symbol(post, name, false);

	free(name);
	if (!ns || !ns->sec || !ns->sec->data || ns->st.st_value >= ns->sec->size)
		return "";
	return (const char *)ns->sec->data + ns->st.st_value;
}

/* "#SYMVER name crc" of @name in @text (genksyms' output), or -1. */
static int find_crc(const char *text, const char *name, unsigned int *crc)
{
	char *line = xasprintf("#SYMVER %s 0x", name);
	const char *p = text ? strstr(text, line) : NULL;

	while (p && p != text && p[-1] != '\n')
		p = strstr(p + 1, line);
	if (p)
		*crc = strtoul(p + strlen(line), NULL, 16);
	free(line);
	return p ? 0 : -1;
}

static int collect(const struct update *u, const char *target,
		   struct new_export **out, size_t *nr)
{
	char *text, *path;
	size_t un, k, len;
	int ret = 0;

	for (un = 0; un < u->nr_units; un++) {
		const struct unit *unit = &u->units[un];

		if (strcmp(unit->target, target) || !unit->nr_new_exports)
			continue;
		path = xasprintf("%s.symvers", unit->post.path);
		if (read_file(path, 1 << 24, &text, &len))
			text = NULL;
		for (k = 0; k < unit->post.nr_syms; k++) {
			const struct symbol *s = &unit->post.syms[k];
			struct new_export *e;

			if (!export_carried(unit, s))
				continue;
			*out = xrealloc(*out, (*nr + 1) * sizeof(**out));
			e = &(*out)[(*nr)++];
			e->name = s->name + strlen(KSYMTAB_SYM);
			e->ns = export_ns(&unit->post, s);
			e->sym = export_target(&unit->post, s);
			e->gpl = str_has_prefix(s->sec->name, "___ksymtab_gpl+");
			e->unit = un;
			if (find_crc(text, e->name, &e->crc))
				ret = error("%s: genksyms gave no version of new export %s (see %s)",
					    unit->source, e->name, path);
		}
		free(text);
		free(path);
	}
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct new_export *)a)->name,
		      ((const struct new_export *)b)->name);
}

/* What update.c calls the exported function or variable of @e. */
static const char *value_symbol(const struct new_export *e,
				struct newobj **nos)
{
	const struct newobj *no = nos[e->unit];
	size_t k;

	if (e->sym->type == STT_FUNC)
		return e->sym->name;	/* a new global: its own name */
	for (k = 0; k < no->nr_vars; k++)
		if (no->vars[k].sym == e->sym)
			return newobj_var_symbol(no, k);
	return NULL;
}

static int emit_table(FILE *out, const struct new_export *v, size_t nr,
		      struct newobj **nos, size_t k, bool gpl)
{
	const char *tab = gpl ? "gpl_exports" : "exports";
	const char *sym;
	size_t i, n = 0;

	for (i = 0; i < nr; i++)
		n += v[i].gpl == gpl;
	if (!n)
		return 0;
	fprintf(out, "asm(\"\t.section .rodata.ksplice_%s_%zu, \\\"a\\\"\\n\"\n\t\"\t.balign 4\\n\"\n\t\"ksplice_%s_%zu:\\n\"\n",
		tab, k, tab, k);
	for (i = 0; i < nr; i++) {
		if (v[i].gpl != gpl)
			continue;
		sym = value_symbol(&v[i], nos);
		if (!sym)
			return error("new export %s: its variable is not carried",
				     v[i].name);
		fprintf(out, "\t\"\t.long\t%s - .\\n\\t.long\tksplice_kstr_%zu_%zu - .\\n\\t.long\tksplice_kstrns_%zu_%zu - .\\n\"\n",
			sym, k, i, k, i);
	}
	fprintf(out, "\t\"\t.previous\\n\");\n");
	fprintf(out, "extern const struct ksplice_export ksplice_%s_%zu[%zu];\n",
		tab, k, n);
	fprintf(out, "static const int ksplice_%s_crcs_%zu[] = {", tab, k);
	for (i = 0; i < nr; i++)
		if (v[i].gpl == gpl)
			fprintf(out, " 0x%08x,", v[i].crc);
	fprintf(out, " };\n\n");
	return 0;
}

int exports_emit(FILE *out, const struct update *u, struct newobj **nos,
		 const char *target, size_t k, unsigned int *nr_plain,
		 unsigned int *nr_gpl)
{
	struct new_export *v = NULL;
	size_t nr = 0, i;
	int ret;

	*nr_plain = *nr_gpl = 0;
	ret = collect(u, target, &v, &nr);
	if (ret || !nr)
		goto out;
	qsort(v, nr, sizeof(*v), by_name);
	fprintf(out, "/* The exports the patch adds, published by the core (exports.c). */\n");
	fprintf(out, "asm(\"\t.section .rodata.ksplice_export_names_%zu, \\\"a\\\"\\n\"\n", k);
	for (i = 0; i < nr; i++)
		fprintf(out, "\t\"ksplice_kstr_%zu_%zu:\t.asciz \\\"%s\\\"\\n\"\n\t\"ksplice_kstrns_%zu_%zu:\t.asciz \\\"%s\\\"\\n\"\n",
			k, i, v[i].name, k, i, v[i].ns);
	fprintf(out, "\t\"\t.previous\\n\");\n");
	ret = emit_table(out, v, nr, nos, k, false) ?:
	      emit_table(out, v, nr, nos, k, true);
	for (i = 0; i < nr; i++) {
		*nr_gpl += v[i].gpl;
		*nr_plain += !v[i].gpl;
	}
out:
	free(v);
	return ret;
}

void exports_emit_fields(FILE *out, size_t k, unsigned int nr_plain,
			 unsigned int nr_gpl)
{
	if (nr_plain)
		fprintf(out, "\t\t.exports = ksplice_exports_%zu,\n\t\t.export_crcs = ksplice_exports_crcs_%zu,\n\t\t.nr_exports = %u,\n",
			k, k, nr_plain);
	if (nr_gpl)
		fprintf(out, "\t\t.gpl_exports = ksplice_gpl_exports_%zu,\n\t\t.gpl_export_crcs = ksplice_gpl_exports_crcs_%zu,\n\t\t.nr_gpl_exports = %u,\n",
			k, k, nr_gpl);
}

void exports_to_manifest(const struct unit *u, struct manifest *m)
{
	size_t k;

	for (k = 0; k < u->post.nr_syms; k++)
		if (export_carried(u, &u->post.syms[k]))
			manifest_add_export(m, u->target, u->post.syms[k].name +
					    strlen(KSYMTAB_SYM));
}
