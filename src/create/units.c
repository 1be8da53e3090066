// SPDX-License-Identifier: GPL-2.0
/*
 * The units of an update: which compilation units a patch reaches (the
 * .c files it changes, and every unit including a header it changes),
 * compiled before and after it, and diffed; the units whose code changed
 * make the update.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "includes.h"

static char *unit_of(const char *c_file)
{
	char *o = xstrdup(c_file);

	o[strlen(o) - 1] = 'o';
	return o;
}

/* The units that include a changed header: the include graph says. */
static int add_includers(struct work *w, const struct strv *changed)
{
	struct strv all;
	bool *hit;
	long nr;
	size_t i;

	if (tree_units(&w->tree, &all)) {
		show_log_tail(w->log);
		return error("Kbuild could not list the units of this configuration");
	}
	hit = xcalloc(all.nr, sizeof(bool));
	nr = includes_affected(w->tree.src, w->tree.obj, changed->v, changed->nr,
			       all.v, all.nr, hit);
	for (i = 0; nr > 0 && i < all.nr; i++)
		if (hit[i] && !strv_has(&w->units, all.v[i]))
			strv_add(&w->units, xstrdup(all.v[i]));
	free(hit);
	strv_free(&all);
	if (nr < 0)
		return -1;
	fprintf(stderr, "  %ld of the configuration's units include what the patch changes\n",
		nr);
	return 0;
}

/*
 * C source makes code, and so do headers, through every unit including
 * them (a .c can be included too).  Other files change nothing running.
 */
int units_pick(struct work *w)
{
	struct strv changed = { 0 };
	bool headers = false;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->files.nr; i++) {
		const char *p = w->files.paths[i];

		if (str_has_prefix(p, "Documentation/"))
			continue;
		if (!str_has_suffix(p, ".c") && !str_has_suffix(p, ".h")) {
			strv_free(&changed);
			return error("the patch changes %s; only C sources and headers can be turned into an update",
				     p);
		}
		headers |= str_has_suffix(p, ".h");
		strv_add(&changed, xstrdup(p));
		if (str_has_suffix(p, ".c"))
			strv_add(&w->units, unit_of(p));
	}
	if (headers)
		ret = add_includers(w, &changed);
	strv_free(&changed);
	if (!ret && !w->units.nr)
		return error("the patch changes no C source that this configuration builds");
	if (!ret && w->units.nr > w->o->max_units)
		return error("the patch reaches %zu units, more than --max-units %zu: compiling them would take long; raise the limit to go on",
			     w->units.nr, w->o->max_units);
	return ret;
}

static char *obj_path(struct work *w, const char *stage, size_t i)
{
	return xasprintf("%s/%s-%zu.o", w->dir, stage, i);
}

static int compile_all(struct work *w, const char *stage)
{
	char **dests = xcalloc(w->units.nr, sizeof(char *));
	bool *failed = xcalloc(w->units.nr, sizeof(bool));
	size_t i;
	int ret;

	if (w->units.nr == 1)
		fprintf(stderr, "  compiling %s (%s)\n", w->units.v[0], stage);
	else
		fprintf(stderr, "  compiling %zu units (%s)\n", w->units.nr, stage);
	for (i = 0; i < w->units.nr; i++)
		dests[i] = obj_path(w, stage, i);
	ret = tree_compile(&w->tree, w->units.v, w->units.nr, dests, failed);
	if (ret)
		show_log_tail(w->log);
	for (i = 0; ret && i < w->units.nr; i++)
		if (failed[i])
			error("%s does not compile %s the patch", w->units.v[i],
			      strcmp(stage, "pre") ? "with" : "without");
	free_strv(dests, w->units.nr);
	free(failed);
	return ret;
}

int units_compile(struct work *w)
{
	int ret;

	if (tree_patch(&w->tree, w->o->patch, false, true)) {
		show_log_tail(w->log);
		return error("the patch %s does not apply to %s", w->o->patch,
			     w->o->source);
	}
	if (compile_all(w, "pre"))
		return -1;
	if (tree_patch(&w->tree, w->o->patch, false, false))
		return error("applying %s failed", w->o->patch);
	ret = compile_all(w, "post");
	if (tree_patch(&w->tree, w->o->patch, true, false))
		return error("could not take the patch back out of %s; it is removed on the next run",
			     w->tree.src);
	return ret;
}

/* Diffs unit @i into *@u; false if nothing in it changed. */
static bool diff_unit(struct work *w, size_t i, struct unit *u)
{
	char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);
	size_t j, changed = 0;

	memset(u, 0, sizeof(*u));
	u->source = xstrdup(w->units.v[i]);
	((char *)u->source)[strlen(u->source) - 1] = 'c';
	u->target = tree_unit_target(&w->tree, w->units.v[i]);
	if (elf_object_read(pre, &u->pre) || elf_object_read(post, &u->post))
		die("cannot read the objects of %s", w->units.v[i]);
	free(pre);
	free(post);
	diff_objects(&u->pre, &u->post, &u->diff, stderr);
	for (j = 0; j < u->diff.nr_changes; j++) {
		const struct change *c = &u->diff.changes[j];

		fprintf(stderr, "  %s function: %s (%s, %s)\n",
			c->kind == FUNC_NEW ? "new" : "changed",
			c->post->name, u->source, u->target);
		/* A new global may be called from another unit. */
		changed += c->kind == FUNC_CHANGED || c->post->bind == STB_GLOBAL;
	}
	if (changed)
		return true;
	diff_free(&u->diff);
	elf_object_free(&u->pre);
	elf_object_free(&u->post);
	free((char *)u->target);
	free((char *)u->source);
	return false;
}

static bool same_change(const struct unit *ua, const struct change *a,
			const struct unit *ub, const struct change *b)
{
	return a->kind == FUNC_CHANGED && b->kind == FUNC_CHANGED &&
	       !strcmp(ua->target, ub->target) &&
	       !strcmp(a->pre->name, b->pre->name) &&
	       diff_same_function(&ua->pre, a->pre, &ub->pre, b->pre) &&
	       diff_same_function(&ua->post, a->post, &ub->post, b->post);
}

static void mark_twins_between(struct unit *ua, struct unit *ub)
{
	size_t k, l;

	for (k = 0; k < ua->diff.nr_changes; k++) {
		for (l = 0; l < ub->diff.nr_changes; l++) {
			struct change *a = &ua->diff.changes[k];
			struct change *b = &ub->diff.changes[l];

			if (!same_change(ua, a, ub, b))
				continue;
			a->twin = b->twin = true;
			fprintf(stderr, "  %s: the same in %s and %s\n",
				a->pre->name, ua->source, ub->source);
		}
	}
}

/*
 * A header's static function emitted in several units of one target is
 * one name at several addresses with the same code: the core may pair
 * them either way (KSPLICE_FUNC_TWIN).
 */
static void mark_twins(struct update *u)
{
	size_t i, j;

	for (i = 0; i < u->nr_units; i++)
		for (j = i + 1; j < u->nr_units; j++)
			mark_twins_between(&u->units[i], &u->units[j]);
}

/* New functions alone (no caller changed) would never run. */
static bool replaces_any(const struct update *u)
{
	size_t i, k;

	for (i = 0; i < u->nr_units; i++)
		for (k = 0; k < u->units[i].diff.nr_changes; k++)
			if (u->units[i].diff.changes[k].kind == FUNC_CHANGED)
				return true;
	return false;
}

/* The units whose code changed make the update; the others are dropped. */
int units_diff(struct work *w)
{
	size_t i;

	w->update.units = xcalloc(w->units.nr, sizeof(struct unit));
	for (i = 0; i < w->units.nr; i++)
		if (diff_unit(w, i, &w->update.units[w->update.nr_units]))
			w->update.nr_units++;
	if (!replaces_any(&w->update))
		return error("the patch changes no code in a function: nothing to update");
	if (w->units.nr > 1)
		fprintf(stderr, "  %zu of %zu units changed\n", w->update.nr_units,
			w->units.nr);
	mark_twins(&w->update);
	return 0;
}

