// SPDX-License-Identifier: GPL-2.0
/*
 * Emitting an update module's sources: one new-code object per unit and
 * update.c, the tables of struct ksplice_update (include/ksplice-update.h)
 * that tell the core what to match, what to replace and what to resolve.
 */
#include <stdlib.h>
#include <string.h>

#include "ksplice-update.h"
#include "emit.h"
#include "newexports.h"
#include "newobj.h"
#include "special.h"
#include "util.h"

/* Symbols for ksplice-apply to set (load-symbols.c), and the core's table. */
static void emit_load_syms(FILE *out, const struct load_syms *ls)
{
	size_t i;

	if (!ls->nr)
		return;
	for (i = 0; i < ls->nr; i++)
		fprintf(out, "extern const char %s[] __weak;\n", ls->refs[i]);
	fprintf(out, "\nstatic const struct ksplice_load_sym load_syms[] = {\n");
	for (i = 0; i < ls->nr; i++)
		fprintf(out, "\t{ .name = \"%s\", .target = \"%s\", .addr = %s },\n",
			ls->names[i], ls->targets[i], ls->refs[i]);
	fprintf(out, "};\n\n");
}

/* A C identifier for the n-th function of unit u. */
#define FN "u%zu_f%zu"

static void print_bytes(FILE *out, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(out, "%s0x%02x,%s", i % 12 ? " " : "\t", p ? p[i] : 0,
			i % 12 == 11 || i + 1 == n ? "\n" : "");
}

struct site {
	unsigned long offset;
	const struct special *sp;
	const struct section *sec;	/* the table */
	unsigned long entry;
};

struct site_list {
	struct site *sites;
	size_t n;
};

static void collect_site(const struct special *sp, const struct section *sec,
			 unsigned long entry, unsigned long offset, void *arg)
{
	struct site_list *l = arg;

	l->sites = xrealloc(l->sites, (l->n + 1) * sizeof(*l->sites));
	l->sites[l->n++] = (struct site){ offset, sp, sec, entry };
}

static bool mcount_at(const struct site_list *l, unsigned long offset)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->sites[i].sp->site_kind == KSPLICE_SITE_MCOUNT &&
		    l->sites[i].offset == offset)
			return true;
	return false;
}

/*
 * objtool lists "call __fentry__" as a call site too where gcc records the
 * mcount sites; ftrace owns those bytes (call thunks skip __fentry__).
 */
static void drop_owned_calls(struct site_list *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->sites[i].sp->site_kind != KSPLICE_SITE_CALL ||
		    !mcount_at(l, l->sites[i].offset))
			l->sites[n++] = l->sites[i];
	l->n = n;
}

static void pre_sites(const struct object *pre, const struct symbol *f,
		      struct site_list *l)
{
	unsigned int s;

	l->n = 0;
	l->sites = NULL;
	for (s = 0; s < nr_special_sections; s++)
		if (special_sections[s].site_kind)
			special_for_each(pre, &special_sections[s], f,
					 collect_site, l);
	drop_owned_calls(l);
}

/* One reloc as a struct ksplice_reloc initializer, its bytes emitted first. */
static void print_reloc(FILE *out, const struct object *obj,
			const struct reloc *r, unsigned long base,
			const char *expect)
{
	struct target t;

	diff_target(obj, r, &t);
	if (t.name)
		fprintf(out, "\t{ .symbol = \"%s\", .addend = %ld,", t.name,
			t.addend);
	else
		fprintf(out, "\t{ .symbol = \"\", .addend = %ld, .expect = %s, .expect_len = %zu, .expect_off = %lu,",
			t.addend, expect, t.len, t.off);
	fprintf(out, " .offset = %#lx, .type = %u },\n", r->offset - base,
		r->type);
}

static int print_expect(FILE *out, const struct object *obj,
			const struct reloc *r, const char *name)
{
	struct target t;

	diff_target(obj, r, &t);
	if (t.name)
		return 0;
	/* The core could prove nothing about it: refuse here, not at apply. */
	if (!t.len)
		return error("%s: %s: a reference to %s+%#lx, where there are no bytes to compare (uninitialized data, or past its section's end)",
			     obj->path, name, t.sec ? t.sec->name : r->sym->name,
			     t.off);
	fprintf(out, "static const unsigned char %s[] = {\n", name);
	print_bytes(out, t.bytes, t.len);
	fprintf(out, "};\n");
	return 0;
}

/* An alternative's replacement, as arrays alt_<id> and alt_relocs_<id>. */
static int emit_alt_data(FILE *out, const struct object *obj,
			 const struct special_entry *se, const char *id)
{
	const struct reloc *r = se->new;
	struct reloc *first;
	char name[192];
	size_t n, i;
	long start;

	if (!r || !r->sym->sec || !r->sym->sec->data)
		return error("%s: alternative without replacement", obj->path);
	start = (r->sym->type == STT_SECTION ? 0 :
		 (long)r->sym->st.st_value) + r->addend;
	fprintf(out, "static const unsigned char alt_%s[] = {\n", id);
	print_bytes(out, r->sym->sec->data + start, se->new_len);
	if (!se->new_len)
		fprintf(out, "\t0\n");
	fprintf(out, "};\n");
	n = elf_relocs_in(r->sym->sec, start, start + se->new_len, &first);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "alt_expect_%s_%zu", id, i);
		if (print_expect(out, obj, &first[i], name))
			return -1;
	}
	fprintf(out, "static const struct ksplice_reloc alt_relocs_%s[] = {\n",
		id);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "alt_expect_%s_%zu", id, i);
		print_reloc(out, obj, &first[i], start, name);
	}
	fprintf(out, "\t{}\n};\n");
	return 0;
}

/* A jump label's target, as array alt_relocs_<id>. */
static int emit_jump_label_data(FILE *out, const struct object *obj,
				const struct special_entry *se, const char *id)
{
	const struct reloc *r = se->new;
	const struct symbol *named;
	long at;

	if (!r || !r->sym->sec)
		return error("%s: jump label without target", obj->path);
	named = r->sym;
	at = r->addend;
	if (r->sym->type == STT_SECTION) {
		named = elf_symbol_at(obj, r->sym->sec, r->addend);
		if (!named)
			return error("%s: jump label target %s+%#lx is in no function",
				     obj->path, r->sym->sec->name, r->addend);
		at = r->addend - (long)named->st.st_value;
	}
	fprintf(out, "static const struct ksplice_reloc alt_relocs_%s[] = {\n"
		"\t{ .symbol = \"%s\", .addend = %ld, .type = %u },\n};\n",
		id, named->name, at, R_X86_64_64);
	return 0;
}

/* The extra data of a site: an alternative's replacement, a jump target. */
static int emit_site_data(FILE *out, const struct object *obj,
			  const struct site *s, const char *id)
{
	struct special_entry se;

	special_entry_read(s->sp, s->sec, s->entry, &se);
	switch (s->sp->site_kind) {
	case KSPLICE_SITE_ALT:
		return emit_alt_data(out, obj, &se, id);
	case KSPLICE_SITE_JUMP_LABEL:
		return emit_jump_label_data(out, obj, &se, id);
	}
	return 0;
}

static void emit_site(FILE *out, const struct site *s, const char *id)
{
	unsigned int kind = s->sp->site_kind;
	struct special_entry se;

	special_entry_read(s->sp, s->sec, s->entry, &se);
	fprintf(out, "\t{ .offset = %#lx, .kind = %u", s->offset, kind);
	if (kind == KSPLICE_SITE_ALT)
		fprintf(out, ", .len = %u, .aux = %#x, .alt = alt_%s, .alt_len = %u, .alt_relocs = alt_relocs_%s, .nr_alt_relocs = ARRAY_SIZE(alt_relocs_%s) - 1",
			se.len, se.aux, id, se.new_len, id, id);
	else if (kind == KSPLICE_SITE_PARAVIRT)
		fprintf(out, ", .len = %u, .aux = %u", se.len, se.aux);
	else if (kind == KSPLICE_SITE_JUMP_LABEL)
		fprintf(out, ", .alt_relocs = alt_relocs_%s, .nr_alt_relocs = 1",
			id);
	fprintf(out, " },\n");
}

static int emit_pre(FILE *out, const struct unit *u, size_t un, size_t fn,
		    const struct symbol *f)
{
	unsigned long start = f->st.st_value;
	struct site_list sites;
	struct reloc *r;
	char id[128];
	size_t n, i;
	int ret = 0;

	pre_sites(&u->pre, f, &sites);
	fprintf(out, "static const unsigned char pre_" FN "[] = {\n", un, fn);
	print_bytes(out, f->sec->data ? f->sec->data + start : NULL,
		    f->st.st_size);
	fprintf(out, "};\n");
	n = elf_relocs_in(f->sec, start, start + f->st.st_size, &r);
	for (i = 0; i < n && !ret; i++) {
		snprintf(id, sizeof(id), "expect_" FN "_%zu", un, fn, i);
		ret = print_expect(out, &u->pre, &r[i], id);
	}
	fprintf(out, "static const struct ksplice_reloc pre_relocs_" FN "[] = {\n",
		un, fn);
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "expect_" FN "_%zu", un, fn, i);
		print_reloc(out, &u->pre, &r[i], start, id);
	}
	fprintf(out, "};\n");
	for (i = 0; i < sites.n && !ret; i++) {
		snprintf(id, sizeof(id), FN "_%zu", un, fn, i);
		ret = emit_site_data(out, &u->pre, &sites.sites[i], id);
	}
	fprintf(out, "static const struct ksplice_site pre_sites_" FN "[] = {\n",
		un, fn);
	for (i = 0; i < sites.n; i++) {
		snprintf(id, sizeof(id), FN "_%zu", un, fn, i);
		emit_site(out, &sites.sites[i], id);
	}
	fprintf(out, "};\n");
	free(sites.sites);
	return ret;
}

/* The new code's symbol and its ksplice relocs; a replacement's pre first. */
static int emit_func(FILE *out, const struct unit *u, size_t un, size_t fn,
		     const struct change *c, const struct newobj *no)
{
	const char *sym = newobj_func_symbol(no, c->post);

	if (c->kind == FUNC_CHANGED && emit_pre(out, u, un, fn, c->pre))
		return -1;
	fprintf(out, "extern char %s[];\n", sym);
	fprintf(out, "static const struct ksplice_reloc new_relocs_" FN "[] = {\n",
		un, fn);
	newobj_print_ksplice_relocs(no, c->post, out, "\t");
	fprintf(out, "};\n\n");
	return 0;
}

/*
 * A replacement is named by the old function and carries its pre code; a
 * function the update adds (new_funcs) has only its new code, named by
 * its new name.
 */
static void emit_func_entry(FILE *out, const struct unit *u, size_t un,
			    size_t fn, const struct change *c,
			    const struct newobj *no)
{
	bool changed = c->kind == FUNC_CHANGED;

	fprintf(out, "\t{\n\t\t.name = \"%s\",\n\t\t.unit = \"%s\",\n",
		changed ? c->pre->name : c->post->name, u->source);
	if (changed && c->twin)
		fprintf(out, "\t\t.flags = KSPLICE_FUNC_TWIN,\n");
	if (!changed && c->post->bind == STB_GLOBAL)
		fprintf(out, "\t\t.flags = KSPLICE_FUNC_GLOBAL,\n");
	if (changed) {
		fprintf(out, "\t\t.pre = pre_" FN ", .pre_size = sizeof(pre_" FN "),\n",
			un, fn, un, fn);
		fprintf(out, "\t\t.pre_relocs = pre_relocs_" FN ", .nr_pre_relocs = ARRAY_SIZE(pre_relocs_" FN "),\n",
			un, fn, un, fn);
		fprintf(out, "\t\t.pre_sites = pre_sites_" FN ", .nr_pre_sites = ARRAY_SIZE(pre_sites_" FN "),\n",
			un, fn, un, fn);
	}
	fprintf(out, "\t\t.new_code = %s, .new_size = %lu,\n",
		newobj_func_symbol(no, c->post),
		(unsigned long)c->post->st.st_size);
	fprintf(out, "\t\t.new_relocs = new_relocs_" FN ", .nr_new_relocs = ARRAY_SIZE(new_relocs_" FN "),\n\t},\n",
		un, fn, un, fn);
}

/* A C identifier for the n-th data change of unit u. */
#define DN "u%zu_d%zu"

/* One relocation of a variable at @start as a struct ksplice_reloc. */
static void emit_data_reloc(FILE *out, const struct object *obj,
			    const struct reloc *r, unsigned long start)
{
	struct target t;

	diff_target(obj, r, &t);
	fprintf(out, "\t{ .symbol = \"%s\", .addend = %ld, .offset = %#lx, .type = %u },\n",
		t.name, t.addend, r->offset - start, r->type);
}

/* The anchors of writable @c (datafields.c), as anchors_DN[]. */
static void emit_data_anchors(FILE *out, const struct unit *u,
			      const struct data_change *c, size_t un,
			      size_t dn)
{
	unsigned long start = c->pre->st.st_value;
	struct reloc *r;
	size_t n, i;

	n = elf_relocs_in(c->pre->sec, start, start + c->pre->st.st_size, &r);
	fprintf(out, "static const struct ksplice_reloc anchors_" DN "[] = {\n",
		un, dn);
	for (i = 0; i < n; i++)
		if (diff_is_anchor(&u->pre, c->pre, &u->post, c->post, &r[i]))
			emit_data_reloc(out, &u->pre, &r[i], start);
	fprintf(out, "};\n");
}

/*
 * The relocations of one image (@s, of @obj) of variable @c patched in
 * place: named, absolute (data.c checked), offsets from the variable's
 * start; of a writable one, only those of its callback fields.
 */
static void emit_data_relocs(FILE *out, const struct unit *u,
			     const struct data_change *c,
			     const struct object *obj,
			     const struct symbol *s, const char *name)
{
	unsigned long start = s->st.st_value;
	struct reloc *r;
	size_t n, i;

	n = elf_relocs_in(s->sec, start, start + s->st.st_size, &r);
	fprintf(out, "static const struct ksplice_reloc %s[] = {\n", name);
	for (i = 0; i < n; i++) {
		if (c->nr_fields && !diff_is_field(&u->pre, c->pre, &u->post,
						   c->post, r[i].offset - start))
			continue;
		emit_data_reloc(out, obj, &r[i], start);
	}
	fprintf(out, "};\n");
}

static void emit_data_image(FILE *out, const struct unit *u,
			    const struct data_change *c, bool post,
			    const char *what, size_t un, size_t dn)
{
	const struct object *obj = post ? &u->post : &u->pre;
	const struct symbol *s = post ? c->post : c->pre;
	char name[96];

	fprintf(out, "static const unsigned char %s_" DN "[] = {\n", what,
		un, dn);
	print_bytes(out, s->sec->data ? s->sec->data + s->st.st_value : NULL,
		    s->st.st_size);
	/* A table that shrinks: the running one's tail is zeroed (data.c). */
	if (c->pre->st.st_size > s->st.st_size)
		print_bytes(out, NULL, c->pre->st.st_size - s->st.st_size);
	fprintf(out, "};\n");
	snprintf(name, sizeof(name), "%s_relocs_" DN, what, un, dn);
	emit_data_relocs(out, u, c, obj, s, name);
}

/* The images of every variable of unit @un patched in place. */
static void emit_data_images(FILE *out, const struct unit *u, size_t un)
{
	const struct data_change *c;
	size_t dn;

	for (dn = 0; dn < u->diff.nr_data; dn++) {
		c = &u->diff.data[dn];
		if (!c->in_place)
			continue;
		emit_data_image(out, u, c, false, "dpre", un, dn);
		emit_data_image(out, u, c, true, "dpost", un, dn);
		if (c->nr_fields)
			emit_data_anchors(out, u, c, un, dn);
		fprintf(out, "\n");
	}
}

/* The read-only data of @target patched in place: data_N[]; how many. */
static size_t emit_data(FILE *out, const struct update *u, const char *target,
			size_t k)
{
	const struct data_change *c;
	size_t un, dn, n = 0;

	for (un = 0; un < u->nr_units; un++) {
		if (strcmp(u->units[un].target, target))
			continue;
		for (dn = 0; dn < u->units[un].diff.nr_data; dn++) {
			c = &u->units[un].diff.data[dn];
			if (!c->in_place)
				continue;
			if (!n++)
				fprintf(out, "static const struct ksplice_data data_%zu[] = {\n",
					k);
			fprintf(out, "\t{\n\t\t.name = \"%s\",\n\t\t.unit = \"%s\",\n\t\t.size = %lu,\n",
				c->pre->name, u->units[un].source,
				(unsigned long)c->pre->st.st_size);
			fprintf(out, "\t\t.pre = dpre_" DN ", .pre_relocs = dpre_relocs_" DN ", .nr_pre_relocs = ARRAY_SIZE(dpre_relocs_" DN "),\n",
				un, dn, un, dn, un, dn);
			fprintf(out, "\t\t.post = dpost_" DN ", .post_relocs = dpost_relocs_" DN ", .nr_post_relocs = ARRAY_SIZE(dpost_relocs_" DN "),\n",
				un, dn, un, dn, un, dn);
			if (c->nr_fields)
				fprintf(out, "\t\t.flags = KSPLICE_DATA_FIELDS,\n\t\t.anchors = anchors_" DN ", .nr_anchors = ARRAY_SIZE(anchors_" DN "),\n",
					un, dn, un, dn);
			fprintf(out, "\t},\n");
		}
	}
	if (n)
		fprintf(out, "};\n\n");
	return n;
}

/* modpost refuses a module using a namespace's exports without importing it. */
static void emit_import_ns(FILE *out, const struct update *u,
			   struct newobj **nos)
{
	struct strv seen = { 0 };
	size_t un, i;

	for (un = 0; un < u->nr_units; un++)
		for (i = 0; i < nos[un]->nr_undefs; i++) {
			const struct export *e = exports_find(u->exports,
							      nos[un]->undefs[i]);

			if (!e || !e->ns || strv_has(&seen, e->ns))
				continue;
			strv_add(&seen, xstrdup(e->ns));
			fprintf(out, "MODULE_IMPORT_NS(%s);\n", e->ns);
		}
	strv_free(&seen);
}

/* How many functions of @target are of @kind (changed or new). */
static size_t count_entries(const struct update *u, const char *target,
			    enum change_kind kind)
{
	size_t un, fn, n = 0;

	for (un = 0; un < u->nr_units; un++)
		for (fn = 0; fn < u->units[un].diff.nr_changes; fn++)
			n += !strcmp(u->units[un].target, target) &&
			     u->units[un].diff.changes[fn].kind == kind;
	return n;
}

/*
 * The array @name of the functions of @target of @kind: funcs_N[]
 * (FUNC_CHANGED) or new_funcs_N[] (FUNC_NEW) of object N.
 */
static void emit_entries(FILE *out, const struct update *u,
			 struct newobj **nos, const char *target,
			 enum change_kind kind, const char *name)
{
	size_t un, fn;

	fprintf(out, "static const struct ksplice_func %s[] = {\n", name);
	for (un = 0; un < u->nr_units; un++)
		for (fn = 0; fn < u->units[un].diff.nr_changes; fn++)
			if (!strcmp(u->units[un].target, target) &&
			    u->units[un].diff.changes[fn].kind == kind)
				emit_func_entry(out, &u->units[un], un, fn,
						&u->units[un].diff.changes[fn],
						nos[un]);
	fprintf(out, "};\n\n");
}

/*
 * The new variables of @target's units: new_vars_N[]; how many.  Each is
 * said in the create output as well: nothing the patch adds goes
 * unmentioned.
 */
static size_t emit_vars(FILE *out, const struct update *u,
			struct newobj **nos, const char *target, size_t k)
{
	const struct ovar *v;
	size_t un, i, n = 0;

	for (un = 0; un < u->nr_units; un++) {
		if (strcmp(u->units[un].target, target))
			continue;
		for (i = 0; i < nos[un]->nr_vars; i++)
			fprintf(out, "extern char %s[];\n",
				newobj_var_symbol(nos[un], i));
	}
	for (un = 0; un < u->nr_units; un++) {
		if (strcmp(u->units[un].target, target))
			continue;
		for (i = 0; i < nos[un]->nr_vars; i++) {
			v = &nos[un]->vars[i];
			if (!n++)
				fprintf(out, "static const struct ksplice_var new_vars_%zu[] = {\n",
					k);
			fprintf(out, "\t{ .name = \"%s\", .unit = \"%s\", .flags = %s, .addr = %s, .size = %lu },\n",
				v->sym->name, u->units[un].source,
				v->sym->bind == STB_GLOBAL ?
				"KSPLICE_VAR_GLOBAL" : "0",
				newobj_var_symbol(nos[un], i),
				(unsigned long)v->sym->st.st_size);
			fprintf(stderr, "  new variable: %s (%s, %s, %lu bytes): carried, %s\n",
				v->sym->name, u->units[un].source,
				v->sym->bind == STB_GLOBAL ? "global" : "static",
				(unsigned long)v->sym->st.st_size,
				v->sym->sec->data ? "initialised as the patch says" :
				"zero");
		}
	}
	if (n)
		fprintf(out, "};\n\n");
	return n;
}

/* The hooks of @target's units, in the order of the units: hooks_N[]. */
static size_t emit_hooks(FILE *out, const struct update *u,
			 struct newobj **nos, const char *target, size_t k)
{
	size_t un, i, n = 0;

	for (un = 0; un < u->nr_units; un++) {
		const struct hooks *h = &u->units[un].hooks;

		if (strcmp(u->units[un].target, target))
			continue;
		for (i = 0; i < h->nr; i++) {
			if (!n++)
				fprintf(out, "static const struct ksplice_hook hooks_%zu[] = {\n",
					k);
			fprintf(out, "\t{ .kind = %u, .fn = %s },\t/* %s %s */\n",
				h->v[i].kind,
				newobj_func_symbol(nos[un], h->v[i].fn),
				hook_kind_name(h->v[i].kind), h->v[i].fn->name);
		}
	}
	if (n)
		fprintf(out, "};\n\n");
	return n;
}

/*
 * The update's objects: its functions grouped by target, in the order
 * the units name the targets.
 */
static int emit_objects(FILE *out, const struct update *u,
			struct newobj **nos)
{
	struct strv targets = { 0 };
	size_t un, k, nc, nn, *nh, *nv, *nd;
	unsigned int *ne, *ng;
	char name[64];
	int ret = 0;

	for (un = 0; un < u->nr_units; un++)
		if (!strv_has(&targets, u->units[un].target))
			strv_add(&targets, xstrdup(u->units[un].target));
	nh = xcalloc(targets.nr + 1, sizeof(*nh));
	nv = xcalloc(targets.nr + 1, sizeof(*nv));
	nd = xcalloc(targets.nr + 1, sizeof(*nd));
	ne = xcalloc(targets.nr + 1, sizeof(*ne));
	ng = xcalloc(targets.nr + 1, sizeof(*ng));
	for (k = 0; k < targets.nr; k++) {
		if (exports_emit(out, u, nos, targets.v[k], k, &ne[k], &ng[k]))
			ret = -1;
		nh[k] = emit_hooks(out, u, nos, targets.v[k], k);
		nd[k] = emit_data(out, u, targets.v[k], k);
		nv[k] = emit_vars(out, u, nos, targets.v[k], k);
		if (count_entries(u, targets.v[k], FUNC_CHANGED)) {
			snprintf(name, sizeof(name), "funcs_%zu", k);
			emit_entries(out, u, nos, targets.v[k], FUNC_CHANGED, name);
		}
		if (count_entries(u, targets.v[k], FUNC_NEW)) {
			snprintf(name, sizeof(name), "new_funcs_%zu", k);
			emit_entries(out, u, nos, targets.v[k], FUNC_NEW, name);
		}
	}
	fprintf(out, "static const struct ksplice_object objs[] = {\n");
	for (k = 0; k < targets.nr; k++) {
		nc = count_entries(u, targets.v[k], FUNC_CHANGED);
		nn = count_entries(u, targets.v[k], FUNC_NEW);
		fprintf(out, "\t{\n\t\t.name = \"%s\",\n", targets.v[k]);
		if (nc)
			fprintf(out, "\t\t.funcs = funcs_%zu,\n\t\t.nr_funcs = ARRAY_SIZE(funcs_%zu),\n",
				k, k);
		if (nn)
			fprintf(out, "\t\t.new_funcs = new_funcs_%zu,\n\t\t.nr_new_funcs = ARRAY_SIZE(new_funcs_%zu),\n",
				k, k);
		if (nh[k])
			fprintf(out, "\t\t.hooks = hooks_%zu,\n\t\t.nr_hooks = ARRAY_SIZE(hooks_%zu),\n",
				k, k);
		if (nv[k])
			fprintf(out, "\t\t.new_vars = new_vars_%zu,\n\t\t.nr_new_vars = ARRAY_SIZE(new_vars_%zu),\n",
				k, k);
		if (nd[k])
			fprintf(out, "\t\t.data = data_%zu,\n\t\t.nr_data = ARRAY_SIZE(data_%zu),\n",
				k, k);
		exports_emit_fields(out, k, ne[k], ng[k]);
		fprintf(out, "\t},\n");
	}
	fprintf(out, "};\n\n");
	free(nh);
	free(nv);
	free(nd);
	free(ne);
	free(ng);
	strv_free(&targets);
	return ret;
}

/*
 * Every ksplice reloc of a unit's new code belongs to a function of the
 * tables: one left out would leave its field zero, and a call through a
 * zero rel32 calls the next instruction (found with a helper the patch
 * added, whose calls to the unit's statics were dropped).
 */
static int check_krelocs_emitted(const struct update *u, struct newobj **nos)
{
	size_t un, fn, n;

	for (un = 0; un < u->nr_units; un++) {
		n = 0;
		for (fn = 0; fn < u->units[un].diff.nr_changes; fn++)
			n += newobj_count_ksplice_relocs(nos[un],
					u->units[un].diff.changes[fn].post);
		if (n != nos[un]->nr_krelocs)
			return error("%s: %zu of %zu references of new code to the running kernel belong to no function of the update",
				     u->units[un].source, nos[un]->nr_krelocs - n,
				     nos[un]->nr_krelocs);
	}
	return 0;
}

static int emit_update_c(const struct update *u, struct newobj **nos,
			 const char *path)
{
	FILE *out;
	size_t un, fn;
	int ret = 0;

	if (check_krelocs_emitted(u, nos))
		return -1;
	out = fopen(path, "w");
	if (!out)
		return error_errno("cannot write %s", path);
	fprintf(out, "// SPDX-License-Identifier: GPL-2.0\n/* Generated by ksplice-create: update %s. */\n",
		u->id);
	fprintf(out, "#include <linux/module.h>\n#include \"ksplice-update.h\"\n\n");
	for (un = 0; un < u->nr_units && !ret; un++)
		for (fn = 0; fn < u->units[un].diff.nr_changes && !ret; fn++)
			ret = emit_func(out, &u->units[un], un, fn,
					&u->units[un].diff.changes[fn], nos[un]);
	for (un = 0; un < u->nr_units && !ret; un++)
		emit_data_images(out, &u->units[un], un);
	if (ret) {
		fclose(out);
		return -1;
	}
	if (emit_objects(out, u, nos)) {
		fclose(out);
		return -1;
	}
	emit_load_syms(out, u->load_syms);
	fprintf(out, "static struct ksplice_update update = {\n");
	fprintf(out, "\t.abi = KSPLICE_ABI_VERSION,\n\t.id = \"%s\",\n\t.kernel_release = \"%s\",\n",
		u->id, u->kernel_release);
	if (u->replace)
		fprintf(out, "\t.flags = KSPLICE_UPDATE_REPLACE,\n");
	fprintf(out, "\t.mod = THIS_MODULE,\n\t.objs = objs,\n\t.nr_objs = ARRAY_SIZE(objs),\n");
	if (u->load_syms->nr)
		fprintf(out, "\t.load_syms = load_syms,\n\t.nr_load_syms = ARRAY_SIZE(load_syms),\n");
	fprintf(out, "};\n\n");
	fprintf(out, "static int __init ksplice_update_init(void)\n{\n\treturn ksplice_register_update(&update);\n}\n\n");
	fprintf(out, "static void __exit ksplice_update_exit(void)\n{\n\tksplice_unregister_update(&update);\n}\n\n");
	fprintf(out, "module_init(ksplice_update_init);\nmodule_exit(ksplice_update_exit);\n");
	fprintf(out, "MODULE_LICENSE(\"GPL\");\nMODULE_DESCRIPTION(\"ksplice update %s\");\n",
		u->id);
	emit_import_ns(out, u, nos);
	return fclose(out) ? -1 : 0;
}

static int emit_kbuild(const struct update *u, const char *dir)
{
	char path[4096];
	FILE *out;
	size_t un;

	snprintf(path, sizeof(path), "%s/Kbuild", dir);
	out = fopen(path, "w");
	if (!out)
		return -1;
	fprintf(out, "obj-m := ksplice_%s.o\nksplice_%s-y := update.o", u->id,
		u->id);
	for (un = 0; un < u->nr_units; un++)
		fprintf(out, " new%zu.o", un);
	fprintf(out, "\nccflags-y := -I$(src)\n");
	/*
	 * New code was checked by objtool when the post object was built and
	 * carries its sections; on IBT kernels Kbuild would run objtool on
	 * the linked module too, and fail on the ORC data already there: it
	 * runs on update.o alone, as elsewhere.
	 */
	for (un = 0; un < u->nr_units; un++)
		fprintf(out, "OBJECT_FILES_NON_STANDARD_new%zu.o := y\n", un);
	fprintf(out, "$(obj)/ksplice_%s.o: private override objtool-enabled :=\n"
		"$(obj)/update.o: private override objtool-enabled := y\n", u->id);
	if (fclose(out))
		return -1;
	/* modpost reads symbol versions from every object's .cmd file */
	for (un = 0; un < u->nr_units; un++) {
		snprintf(path, sizeof(path), "%s/.new%zu.o.cmd", dir, un);
		if (write_file(path, "# shipped by ksplice-create\n", 28))
			return -1;
	}
	return 0;
}

int emit_update(const struct update *u, const char *dir)
{
	struct newobj **nos = xcalloc(u->nr_units, sizeof(*nos));
	char path[4096];
	size_t un;
	int ret = -1;

	for (un = 0; un < u->nr_units; un++) {
		nos[un] = newobj_build(u, un);
		if (!nos[un])
			goto out;
		newobj_print_statics(nos[un], stderr, "  ");
		snprintf(path, sizeof(path), "%s/new%zu.o_shipped", dir, un);
		if (newobj_write(nos[un], path))
			goto out;
	}
	snprintf(path, sizeof(path), "%s/update.c", dir);
	if (!emit_update_c(u, nos, path) && !emit_kbuild(u, dir))
		ret = 0;
out:
	for (un = 0; un < u->nr_units; un++)
		newobj_free(nos[un]);
	free(nos);
	return ret;
}
