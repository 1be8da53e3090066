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
#include <time.h>
#include <unistd.h>

#include "create.h"
#include "includes.h"
#include "layout.h"
#include "newexports.h"
#include "shared.h"
#include "unsafe.h"

static char *source_of(const char *unit)
{
	char *c = xstrdup(unit);

	c[strlen(c) - 1] = 'c';
	return c;
}

static bool patch_changes(const struct strv *changed, const char *unit)
{
	char *c = source_of(unit);
	bool yes = strv_has(changed, c);

	free(c);
	return yes;
}

/* The units that make what Kbuild generates from C (asm-offsets.h, bounds.h). */
static const char *const generators[] = {
	"arch/x86/kernel/asm-offsets.s", "kernel/bounds.s",
};

/* Their gcc -E, from the .cmd file Kbuild left when preparing the tree. */
static char *generator_command(struct tree *t, const char *s_file)
{
	const char *base = strrchr(s_file, '/') + 1;
	char *cmd_file = xasprintf("%s/%.*s.%s.cmd", t->obj, (int)(base - s_file),
				   s_file, base);
	char *text, *p, *cmd = NULL;
	size_t len;

	if (!read_file(cmd_file, 1 << 20, &text, &len)) {
		p = strstr(text, " := ");
		if (p)
			cmd = build_cpp_command(p + 4, strcspn(p + 4, "\n"), s_file);
		free(text);
	}
	free(cmd_file);
	return cmd;
}

struct picked {
	struct strv all;		/* every unit of the configuration, */
	size_t nr_units;		/* then the generators */
	bool *hit;			/* reached by the patch */
	long *per_file;
	size_t reached;			/* units hit */
	size_t over_reach;		/* includers, when over --max-reach */
};

/*
 * What each changed file reaches: a unit's own source, and every unit
 * that includes it, directly or not (a header, or a .c such as
 * kernel/sched/rt.c, compiled inside build_policy.c).
 */
static int reach_units(struct work *w, const struct strv *changed,
		       struct picked *pk)
{
	struct includes_stats st;
	char *cache;
	size_t i;
	long n;

	if (tree_units(&w->tree, &pk->all)) {
		show_log_tail(w->log);
		return error("Kbuild could not list the units of this configuration");
	}
	pk->nr_units = pk->all.nr;
	for (i = 0; i < ARRAY_SIZE(generators); i++) {
		char *o = xstrdup(generators[i]);

		o[strlen(o) - 1] = 'o';
		strv_add(&pk->all, o);
	}
	pk->hit = xcalloc(pk->all.nr, sizeof(bool));
	pk->per_file = xcalloc(changed->nr + 1, sizeof(long));
	cache = path_join(w->tree.dir, "includes");
	n = includes_affected(w->tree.src, w->tree.obj, cache, changed->v,
			      changed->nr, pk->all.v, pk->all.nr, pk->hit,
			      pk->per_file, &st);
	free(cache);
	if (n < 0)
		return -1;
	fprintf(stderr, "  include graph: %zu files, %zu read (the others unchanged since the last create)\n",
		st.files, st.read);
	for (i = 0; i < changed->nr; i++) {
		if (pk->per_file[i])
			continue;
		if (str_has_suffix(changed->v[i], ".c"))
			fprintf(stderr, "  %s: not built by this configuration\n",
				changed->v[i]);
		else
			fprintf(stderr, "  %s: included by no unit of this configuration\n",
				changed->v[i]);
	}
	return 0;
}

/* No more includers than this compiled to look for a changed layout. */
#define MAX_PROBES 4

/*
 * An includer whose code changes through a name no includer before it
 * gave as the reason ("nft_expr uses nft_expr_ops, which changed"): its
 * code uses what the patch changed in its own way, and a structure it
 * uses may have changed its layout where the patch's own units do not
 * use that structure (probe_layouts).
 */
static void add_probe(struct work *w, const char *unit, const char *reason,
		      struct strv *named)
{
	const char *name = strstr(reason, " uses "), *end;
	char *y;

	if (!name || w->probes.nr >= MAX_PROBES)
		return;
	name += strlen(" uses ");
	end = strchr(name, ',');
	if (!end)
		return;
	y = xstrndup(name, end - name);
	if (strv_has(named, y)) {
		free(y);
		return;
	}
	strv_add(named, y);
	strv_add(&w->probes, xstrdup(unit));
}

/*
 * Units of @idx that do not preprocess in the prepared tree, most often
 * because Kbuild generates a header they include only on the way to their
 * objects (selinux's flask.h, ksmbd's .asn1.h): making their objects once
 * there makes those headers, and they are compared again.  Otherwise
 * whether they are compiled would depend on what earlier creates in the
 * tree happened to compile.
 */
static int retry_unprepared(struct work *w, struct picked *pk, size_t *idx,
			    char **cmds, size_t nr, const char *post,
			    const char *cache, bool *differs, char **why)
{
	size_t *at = xcalloc(nr + 1, sizeof(size_t)), i, n = 0;
	char **units, **dests, **sub_cmds, **sub_why;
	bool *failed, *sub_differs;
	int ret = 0;

	for (i = 0; i < nr; i++)
		if (idx[i] < pk->nr_units && why[i] && !strcmp(why[i], CPP_FAILED_PRE))
			at[n++] = i;
	if (!n) {
		free(at);
		return 0;
	}
	fprintf(stderr, "  %zu units do not preprocess in the prepared tree: making their objects there once (Kbuild generates some headers only for them)\n",
		n);
	units = xcalloc(n + 1, sizeof(char *));
	dests = xcalloc(n + 1, sizeof(char *));
	sub_cmds = xcalloc(n + 1, sizeof(char *));
	sub_why = xcalloc(n + 1, sizeof(char *));
	failed = xcalloc(n + 1, sizeof(bool));
	sub_differs = xcalloc(n + 1, sizeof(bool));
	for (i = 0; i < n; i++) {
		units[i] = pk->all.v[idx[at[i]]];
		dests[i] = xasprintf("%s/made-%zu.o", w->dir, i);
		sub_cmds[i] = cmds[at[i]];
	}
	/* A unit that does not compile either stays kept: compiling says why. */
	tree_compile(&w->tree, units, n, dests, failed, true);
	ret = preprocess_compare(sub_cmds, n, w->tree.src, post, w->tree.obj,
				 cache, sub_differs, sub_why, NULL);
	for (i = 0; i < n; i++) {
		unlink(dests[i]);
		if (ret) {
			free(sub_why[i]);
			continue;
		}
		free(why[at[i]]);
		why[at[i]] = sub_why[i];
		differs[at[i]] = sub_differs[i];
	}
	free_strv(dests, n);
	free(units);
	free(sub_cmds);
	free(sub_why);
	free(failed);
	free(sub_differs);
	free(at);
	return ret;
}

/*
 * The preprocessing filter on the units that only include what changed:
 * @keep[i] if unit @idx[i] can compile differently.  Off (all kept) when
 * the patch may change what Kbuild generates from C for every unit.
 */
static int filter_includers(struct work *w, struct picked *pk, size_t *idx,
			    size_t nr, size_t nr_gen, bool *keep)
{
	char **cmds = xcalloc(nr + 1, sizeof(char *)), **why;
	char *cache = path_join(w->tree.home, "cpp");
	struct strv named = { 0 };	/* the reasons of the probes */
	bool *differs = xcalloc(nr + 1, sizeof(bool));
	struct timespec t0, t1;
	size_t i, kept = 0, shown = 0, cached = 0;
	bool all = false;
	char *post;
	int ret;

	why = xcalloc(nr + 1, sizeof(char *));
	for (i = 0; i < nr; i++) {
		const char *cmd = tree_unit_command(&w->tree, idx[i]);

		cmds[i] = idx[i] >= pk->nr_units ?
			  generator_command(&w->tree, generators[idx[i] - pk->nr_units]) :
			  cmd ? xstrdup(cmd) : NULL;
		if (!cmds[i] || !*cmds[i]) {
			free(cmds[i]);
			cmds[i] = xstrdup("exit 1");	/* kept: compiled */
		}
	}
	if (mkdir_p(cache)) {
		warn("cannot keep preprocessed text in %s", cache);
		free(cache);
		cache = NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	post = tree_post_copy(&w->tree, w->o->patch);
	ret = post ? preprocess_compare(cmds, nr, w->tree.src, post, w->tree.obj,
					cache, differs, why, &cached) :
		     error("the patch %s does not apply to %s", w->o->patch, w->o->source);
	if (!ret)
		ret = retry_unprepared(w, pk, idx, cmds, nr, post, cache, differs, why);
	tree_post_remove(&w->tree, post);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = nr - nr_gen; !ret && i < nr; i++) {
		if (differs[i])
			fprintf(stderr, "  %s: %s; what Kbuild generates from it may change: every including unit is compiled\n",
				generators[idx[i] - pk->nr_units], why[i]);
		all |= differs[i];
	}
	w->regenerates = all;
	for (i = 0; !ret && i < nr - nr_gen; i++) {
		keep[i] = differs[i] || all;
		kept += keep[i];
		if (keep[i] && shown++ < 20)
			fprintf(stderr, "  %s: %s\n", pk->all.v[idx[i]], why[i]);
		if (differs[i])
			add_probe(w, pk->all.v[idx[i]], why[i], &named);
	}
	if (!ret && cached)
		fprintf(stderr, "  %zu of them as they were before the patch: kept from an earlier create\n",
			cached);
	if (!ret)
		fprintf(stderr, "  preprocessed %zu units before and after the patch in %.1f s: %zu can compile differently\n",
			nr, (double)(t1.tv_sec - t0.tv_sec) +
			    (t1.tv_nsec - t0.tv_nsec) / 1e9, kept);
	free(cache);
	strv_free(&named);
	free_strv(cmds, nr);
	free_strv(why, nr);
	free(differs);
	return ret;
}

static int probe_layouts(struct work *w);

/*
 * More includers than --max-units to preprocess: a structure that changed
 * is the likelier reason, and then the units whose source the patch
 * changes often show it.  Compiling them first saves preprocessing them
 * all (an hour for 4,600 includers of netdevice.h and sock.h) only to be
 * refused for it.  The same refusal follows the filter: it keeps these
 * units, and the layouts of all it keeps are compared.
 */
static int probe_first(struct work *w, size_t includers)
{
	if (!w->units.nr || includers <= w->o->max_units)
		return 0;
	fprintf(stderr, "  %zu includers to preprocess (over --max-units %zu): first the layouts the patch's own units show\n",
		includers, w->o->max_units);
	return probe_layouts(w);
}

/* The units to compile: those whose source changed, and the includers kept. */
static int pick_from(struct work *w, const struct strv *changed, struct picked *pk)
{
	size_t nr_units = pk->all.nr - ARRAY_SIZE(generators);
	size_t *idx = xcalloc(pk->all.nr + 1, sizeof(size_t));
	size_t i, nr = 0, nr_gen = 0;
	bool *keep;
	int ret = 0;

	for (i = 0; i < nr_units; i++) {
		if (!pk->hit[i])
			continue;
		pk->reached++;
		if (patch_changes(changed, pk->all.v[i]))
			strv_add(&w->units, xstrdup(pk->all.v[i]));
		else
			idx[nr++] = i;
	}
	if (nr)
		fprintf(stderr, "  %zu of the configuration's units include what the patch changes\n",
			pk->reached);
	if (w->o->max_reach && nr > w->o->max_reach) {
		free(idx);
		pk->over_reach = nr;
		return 0;
	}
	for (i = nr_units; nr && i < pk->all.nr; i++)
		if (pk->hit[i])
			idx[nr + nr_gen++] = i;
	keep = xcalloc(nr + 1, sizeof(bool));
	if (nr)
		ret = probe_first(w, nr) ?:
		      filter_includers(w, pk, idx, nr + nr_gen, nr_gen, keep);
	for (i = 0; !ret && i < nr; i++)
		if (keep[i])
			strv_add(&w->units, xstrdup(pk->all.v[idx[i]]));
	free(keep);
	free(idx);
	return ret;
}

static char *obj_path(struct work *w, const char *stage, size_t i);

/* Structures whose layout the patch changes, in the units compiled. */
static int check_layouts(struct work *w, bool built_only)
{
	struct strv changed = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < w->units.nr; i++) {
		char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);

		if (!built_only || (!access(pre, F_OK) && !access(post, F_OK)))
			ret = layout_diff(pre, post, w->units.v[i], &changed,
					  stderr);
		free(pre);
		free(post);
	}
	if (!ret && changed.nr)
		ret = error("the patch changes the layout of %s%s: running code and the objects it made use the old layout, and new code would read and write the wrong bytes; changing a structure needs the patch author's code (shadow data)",
			    changed.v[0], changed.nr > 1 ? " and more (\"changed layout\" above)" : "");
	strv_free(&changed);
	return ret;
}

/*
 * Too many units to compile, most often because a structure in a header
 * changed: compiling the first two (those whose source the patch changes
 * come first) and the includers kept for distinct reasons, no more than
 * --max-units, tells, and then that is the reason to give.  So it is when
 * some of them do not compile with the patch (a change of the range that
 * needs more of it): a layout that changed in those that do stays
 * changed whatever else the patch comes to need.
 */
static int probe_layouts(struct work *w)
{
	struct strv all = w->units, some = { 0 };
	size_t i, nr = all.nr < 2 ? all.nr : 2;
	int ret;

	for (i = 0; i < nr + w->probes.nr; i++) {
		const char *u = i < nr ? all.v[i] : w->probes.v[i - nr];

		if (some.nr < w->o->max_units && !strv_has(&some, u))
			strv_add(&some, xstrdup(u));
	}
	fprintf(stderr, "  %zu units: compiling %zu of them to compare structure layouts first\n",
		all.nr, some.nr);
	w->units = some;
	ret = units_compile(w) ? check_layouts(w, true) : check_layouts(w, false);
	/* A compile after this one must not find these objects as its own. */
	for (i = 0; i < some.nr; i++) {
		char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);

		unlink(pre);
		unlink(post);
		free(pre);
		free(post);
	}
	w->units = all;
	strv_free(&some);
	return ret;
}

/*
 * Headers too widely included to preprocess every includer: a structure
 * that changed is the likelier reason (netdevice.h's, with list.h), and
 * the units whose source the patch changes, compiled, tell.
 */
static int too_wide(struct work *w, size_t includers)
{
	if (w->units.nr && probe_layouts(w))
		return -1;
	return error("the patch's headers reach %zu units, more than --max-reach %zu: preprocessing them would take long; raise the limit to go on",
		     includers, w->o->max_reach);
}

/*
 * C source makes code, and so do headers, through every unit including
 * them (a .c can be included too).  Other files change nothing running.
 */
int units_pick(struct work *w)
{
	struct strv changed = { 0 };
	struct picked pk = { 0 };
	size_t i;
	int ret;

	for (i = 0; i < w->files.nr; i++) {
		const char *p = w->files.paths[i];

		if (str_has_prefix(p, "Documentation/"))
			continue;
		if (!str_has_suffix(p, ".c") && !str_has_suffix(p, ".h")) {
			strv_free(&changed);
			return error("the patch changes %s; only C sources and headers can be turned into an update",
				     p);
		}
		strv_add(&changed, xstrdup(p));
	}
	ret = changed.nr ? reach_units(w, &changed, &pk) : 0;
	if (!ret && changed.nr)
		ret = pick_from(w, &changed, &pk);
	strv_free(&changed);
	strv_free(&pk.all);
	free(pk.hit);
	free(pk.per_file);
	if (!ret && pk.over_reach)
		return too_wide(w, pk.over_reach);
	if (!ret && !pk.reached)
		return error("the patch changes no C source that this configuration builds");
	if (!ret && !w->units.nr)
		return error("the patch changes nothing the code of the %zu units including it can see: nothing to update",
			     pk.reached);
	if (!ret && w->units.nr > w->o->max_units && probe_layouts(w))
		return -1;
	if (!ret && w->units.nr > w->o->max_units)
		return error("the patch reaches %zu units whose code can change, more than --max-units %zu: compiling them would take long; raise the limit to go on",
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
	ret = tree_compile(&w->tree, w->units.v, w->units.nr, dests, failed,
			   !w->regenerates);
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

/*
 * The versions of the exports the patch adds, while the post source is
 * there: post-N.o.symvers (newexports.c).
 */
static int version_new_exports(struct work *w)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < w->units.nr; i++) {
		char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);
		char *out = xasprintf("%s.symvers", post);

		if (exports_added(pre, post))
			ret = tree_symvers(&w->tree, w->units.v[i], out);
		free(out);
		free(pre);
		free(post);
	}
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
	if (tree_patch(&w->tree, w->o->patch, false, false)) {
		show_log_tail(w->log);
		return error("the patch %s does not apply to %s, though its dry run passed",
			     w->o->patch, w->o->source);
	}
	ret = compile_all(w, "post");
	if (!ret)
		ret = version_new_exports(w);
	if (tree_patch(&w->tree, w->o->patch, true, false))
		return error("could not take the patch back out of %s; it is removed on the next run",
			     w->tree.src);
	return ret;
}

/*
 * Changed initial values of a unit whose patch brings apply hooks: the
 * hooks are how a patch changes the running variable (data.c refuses
 * them otherwise).  A changed size is refused all the same: the running
 * variable has the old one.  Returns how many are left refused.
 */
static size_t unhandled_data(const struct unit *u)
{
	size_t i, n = 0;

	for (i = 0; i < u->diff.nr_data; i++) {
		const struct data_change *c = &u->diff.data[i];

		if (c->in_place)
			continue;
		if (hooks_apply_any(&u->hooks) &&
		    str_has_prefix(c->what, "initial value")) {
			fprintf(stderr, "  changed data: %s: its %s is left to the patch's hooks: the running variable keeps its value unless a hook sets it\n",
				c->post->name, c->what);
			continue;
		}
		n++;
	}
	return n;
}

/*
 * Entries of tables the kernel built at boot that the patch changes
 * (boottables.c): left to the patch's hooks if it has any.
 */
static size_t unhandled_tables(const struct unit *u)
{
	size_t n = u->diff.nr_table_changes;

	if (n && hooks_apply_any(&u->hooks)) {
		fprintf(stderr, "  changed table: left to the patch's hooks\n");
		return 0;
	}
	return n;
}

/* Diffs unit @i into *@u: 1 if code in it changed, 0 if not, -1 if bad. */
static int diff_unit(struct work *w, size_t i, struct unit *u)
{
	char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);
	size_t j, changed = 0;
	int bad;

	memset(u, 0, sizeof(*u));
	bad = elf_object_read(pre, &u->pre) || elf_object_read(post, &u->post);
	free(pre);
	free(post);
	if (bad) {
		elf_object_free(&u->pre);
		elf_object_free(&u->post);
		return error("cannot read the objects of %s", w->units.v[i]);
	}
	shared_add_relocs(&u->pre);
	shared_add_relocs(&u->post);
	u->source = xstrdup(w->units.v[i]);
	((char *)u->source)[strlen(u->source) - 1] = 'c';
	u->target = tree_unit_target(&w->tree, w->units.v[i]);
	diff_objects(&u->pre, &u->post, &u->diff, stderr);
	for (j = 0; j < u->diff.nr_changes; j++) {
		const struct change *c = &u->diff.changes[j];

		fprintf(stderr, "  %s function: %s (%s, %s)\n",
			c->kind == FUNC_NEW ? "new" : "changed",
			c->post->name, u->source, u->target);
		/* A new global may be called from another unit. */
		changed += c->kind == FUNC_CHANGED || c->post->bind == STB_GLOBAL;
	}
	/* Read-only data patched in place is a change of its own. */
	for (j = 0; j < u->diff.nr_data; j++)
		changed += u->diff.data[j].in_place;
	u->nr_new_exports = exports_new(u, w->exports_target, stderr);
	changed += u->nr_new_exports;
	if (u->nr_new_exports && !w->exports_target)
		w->exports_target = u->target;
	w->new_exports += u->nr_new_exports;
	if (hooks_read(&u->post, &u->diff, u->source, &u->hooks, stderr))
		w->hook_errors++;
	w->data_changes += unhandled_data(u);
	w->table_changes += unhandled_tables(u);
	/* A unit with hooks has new code to run even if nothing calls it. */
	if (changed || u->hooks.nr)
		return 1;
	hooks_free(&u->hooks);
	diff_free(&u->diff);
	elf_object_free(&u->pre);
	elf_object_free(&u->post);
	free((char *)u->target);
	free((char *)u->source);
	return 0;
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

/*
 * New functions alone (no caller changed) would never run; read-only
 * data patched in place changes what runs.
 */
static bool replaces_any(const struct update *u)
{
	size_t i, k;

	for (i = 0; i < u->nr_units; i++) {
		for (k = 0; k < u->units[i].diff.nr_changes; k++)
			if (u->units[i].diff.changes[k].kind == FUNC_CHANGED)
				return true;
		for (k = 0; k < u->units[i].diff.nr_data; k++)
			if (u->units[i].diff.data[k].in_place)
				return true;
	}
	return false;
}

/*
 * Does a unit of @u define @name anew (a function or variable it adds)?
 * Not if it is a function of @target: the update carries it, global, and
 * the core points data at its copy (kmod/data.c).
 */
static bool defined_anew(const struct update *u, const char *name,
			 const char *target)
{
	const struct symbol *s;
	size_t i, k;

	for (i = 0; i < u->nr_units; i++) {
		for (k = 0; k < u->units[i].post.nr_syms; k++) {
			s = &u->units[i].post.syms[k];
			if (s->sec && s->bind == STB_GLOBAL &&
			    !strcmp(s->name, name) &&
			    !diff_counterpart(&u->units[i].pre, s))
				return !elf_is_function(s) ||
				       strcmp(u->units[i].target, target);
		}
	}
	return false;
}

/*
 * The post image of data patched in place refers to what another unit
 * may add (data.c saw only its own): the core could not resolve it,
 * unless it is a function of the same target (carried global).  A
 * cumulative update has no data patched in place yet: the running bytes
 * are no longer the stock ones once an update it replaces changed them.
 */
static int check_in_place(const struct update *u)
{
	const struct data_change *c;
	struct target t;
	struct reloc *r;
	size_t i, k, n, j;

	for (i = 0; i < u->nr_units; i++) {
		for (k = 0; k < u->units[i].diff.nr_data; k++) {
			c = &u->units[i].diff.data[k];
			if (!c->in_place)
				continue;
			if (u->replace)
				return error("changed data: %s: patching read-only data in place is not supported in a cumulative update (--replace)",
					     c->post->name);
			n = elf_relocs_in(c->post->sec, c->post->st.st_value,
					  c->post->st.st_value + c->post->st.st_size, &r);
			for (j = 0; j < n; j++) {
				diff_target(&u->units[i].post, &r[j], &t);
				/* a writable one's other fields may hold string literals */
				if (!t.sym && t.name &&
				    defined_anew(u, t.name, u->units[i].target))
					return error("changed data: %s: its new value refers to %s, new in this update: it cannot be patched in place",
						     c->post->name, t.name);
			}
		}
	}
	return 0;
}

/* An update of hooks alone (and the data they set) replaces nothing. */
static bool has_hooks(const struct update *u)
{
	size_t i;

	for (i = 0; i < u->nr_units; i++)
		if (u->units[i].hooks.nr)
			return true;
	return false;
}

/* The units whose code changed make the update; the others are dropped. */
int units_diff(struct work *w)
{
	size_t i;
	int ret;

	if (check_layouts(w, false))
		return -1;
	w->update.units = xcalloc(w->units.nr, sizeof(struct unit));
	for (i = 0; i < w->units.nr; i++) {
		ret = diff_unit(w, i, &w->update.units[w->update.nr_units]);
		if (ret < 0)
			return -1;
		w->update.nr_units += ret;
	}
	if (w->hook_errors)
		return error("the patch's hooks cannot be used (above)");
	if (w->data_changes)
		return error("the patch changes %zu existing variable%s (\"changed data\" above): the running kernel keeps their contents, so the update would not bring the change; changing live data needs code of the patch author's",
			     w->data_changes, w->data_changes == 1 ? "" : "s");
	if (w->table_changes)
		return error("the patch changes %zu entr%s of tables the kernel built at boot (\"changed table\" above): the running kernel never runs a new entry, so the update would not bring the change; running it on the devices present needs code of the patch author's (a hook)",
			     w->table_changes, w->table_changes == 1 ? "y" : "ies");
	if (check_in_place(&w->update))
		return -1;
	if (unsafe_check(&w->update))
		return error("the patch changes code that runs while ksplice patches (above): it cannot be applied live; a reboot is needed");
	if (!replaces_any(&w->update) && !has_hooks(&w->update) &&
	    !w->new_exports)
		return error("the patch changes no code in a function: nothing to update (no function replaced, no hook registered, no export added)");
	if (!replaces_any(&w->update))
		fprintf(stderr, "  no function replaced: the update %s\n",
			has_hooks(&w->update) ? "runs its hooks" : "adds exports");
	if (w->units.nr > 1)
		fprintf(stderr, "  %zu of %zu units changed\n", w->update.nr_units,
			w->units.nr);
	mark_twins(&w->update);
	return 0;
}

