// SPDX-License-Identifier: GPL-2.0
/*
 * Functions and variables applied updates added.  An update built from a
 * tree with an earlier update's patch in it may refer to a function or a
 * variable only that patch added (a new static helper, a new counter), or
 * replace such a function: in the running kernel it is the earlier
 * update's (struct ksplice_object's new_funcs and new_vars), in its
 * module, not in the target.  A name is resolved to one only if that
 * update carries it in the same target, for code of the same unit (or of
 * any unit, if it has external linkage), and matching proves it as any
 * other reference: the running value must be that very address.  A
 * function the later update replaces has its jump on the earlier
 * update's copy.
 *
 * The later update then uses the earlier one: the earlier one's module
 * must stay, so it cannot be reversed while the later one stands; the
 * refusal names the later update (ksplice_added_check_reverse()).  Uses
 * are recorded from what the update ended up bound to, never from a
 * candidate that did not match.
 *
 * Everything here runs under ksplice_mutex.
 */
#include "ksplice.h"

/* Is what @unit's code calls @name the one defined in @def_unit? */
static bool ksplice_added_visible(const char *unit, const char *def_unit,
				  bool global)
{
	return global || !unit || !strcmp(unit, def_unit);
}

static const struct ksplice_func *ksplice_added_func(
	const struct ksplice_core *core, const char *target, const char *name,
	const char *unit, unsigned long addr)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *g;
	unsigned int i;

	for (i = 0; i < u->nr_new_funcs; i++) {
		g = &u->new_funcs[i];
		if (!strcmp(g->name, name) && !strcmp(g->target, target) &&
		    ksplice_added_visible(unit, g->unit,
					  g->flags & KSPLICE_FUNC_GLOBAL) &&
		    (!addr || (unsigned long)g->new_code == addr))
			return g;
	}
	return NULL;
}

static const struct ksplice_var *ksplice_added_var(
	const struct ksplice_core *core, const char *target, const char *name,
	const char *unit, unsigned long addr)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_object *o;
	const struct ksplice_var *v;
	unsigned int i, j;

	for (i = 0; i < u->nr_objs; i++) {
		o = &u->objs[i];
		if (strcmp(o->name, target))
			continue;
		for (j = 0; j < o->nr_new_vars; j++) {
			v = &o->new_vars[j];
			if (!strcmp(v->name, name) &&
			    ksplice_added_visible(unit, v->unit,
						  v->flags & KSPLICE_VAR_GLOBAL) &&
			    (!addr || (unsigned long)v->addr == addr))
				return v;
		}
	}
	return NULL;
}

/* Where @core's function or variable @name is (see above); 0 if nowhere. */
static unsigned long ksplice_added_in(const struct ksplice_core *core,
				      const char *target, const char *name,
				      const char *unit, unsigned long addr)
{
	const struct ksplice_func *g;
	const struct ksplice_var *v;

	g = ksplice_added_func(core, target, name, unit, addr);
	if (g)
		return (unsigned long)g->new_code;
	v = ksplice_added_var(core, target, name, unit, addr);
	return v ? (unsigned long)v->addr : 0;
}

/*
 * The applied update that added the function or variable @name of
 * @target that code of @unit (NULL: any) means, at @addr; with @addr 0,
 * the newest one that added one of that name.
 */
struct ksplice_core *ksplice_added_by(const char *target, const char *name,
				      const char *unit, unsigned long addr)
{
	struct ksplice_core *core, *best = NULL;

	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED ||
		    !ksplice_added_in(core, target, name, unit, addr))
			continue;
		if (addr)
			return core;
		if (!best || core->seq > best->seq)
			best = core;
	}
	return best;
}

/*
 * Where the newest applied update's function or variable @name of
 * @target for code of @unit is; 0 if none.
 */
unsigned long ksplice_added_addr(const char *target, const char *name,
				 const char *unit)
{
	struct ksplice_core *core = ksplice_added_by(target, name, unit, 0);

	return core ? ksplice_added_in(core, target, name, unit, 0) : 0;
}

/*
 * Appends the addresses of the applied updates' functions @name of
 * @target defined in @unit (or global) to @addrs (of @max); returns how
 * many there are.
 */
int ksplice_added_addrs(const char *target, const char *name,
			const char *unit, unsigned long *addrs, int max)
{
	const struct ksplice_func *g;
	struct ksplice_core *core;
	int nr = 0;

	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED)
			continue;
		g = ksplice_added_func(core, target, name, unit, 0);
		if (g && nr++ < max)
			addrs[nr - 1] = (unsigned long)g->new_code;
	}
	return nr;
}

/* Records that @core uses @used's function or variable @name (@core's string). */
int ksplice_added_use(struct ksplice_core *core, struct ksplice_core *used,
		      const char *name)
{
	unsigned int i;

	if (used->update->mod == core->update->mod)
		return 0;
	for (i = 0; i < core->nr_uses; i++)
		if (core->uses[i].core == used)
			return 0;
	if (core->nr_uses == ARRAY_SIZE(core->uses))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: uses what more than %zu applied updates added",
					 name, ARRAY_SIZE(core->uses));
	core->uses[core->nr_uses++] = (struct ksplice_use){ used, name };
	return 0;
}

static int ksplice_added_binding(void *data, const char *target,
				 const char *name, unsigned long addr)
{
	struct ksplice_core *core = data;
	struct ksplice_core *used = ksplice_added_by(target, name, NULL, addr);

	return used ? ksplice_added_use(core, used, name) : 0;
}

/* The uses of what matching bound @core's names to. */
int ksplice_added_uses_bound(struct ksplice_core *core)
{
	return ksplice_bindings_each(&core->bindings, ksplice_added_binding,
				     core);
}

/* @core goes away: no applied update may refer to it any more. */
void ksplice_added_forget(const struct ksplice_core *core)
{
	struct ksplice_core *other;
	unsigned int i;

	list_for_each_entry(other, &ksplice_updates, list)
		for (i = other->nr_uses; i-- > 0; )
			if (other->uses[i].core == core)
				other->uses[i] = other->uses[--other->nr_uses];
}

/* An applied update that uses @core's functions refuses its reversal. */
int ksplice_added_check_reverse(struct ksplice_core *core)
{
	struct ksplice_core *other;
	unsigned int i;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other == core || other->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < other->nr_uses; i++)
			if (other->uses[i].core == core)
				return ksplice_set_abort(core,
					KSPLICE_ABORT_ALREADY_APPLIED,
					"update %s uses %s, which this one added; reverse it first",
					other->update->id, other->uses[i].name);
	}
	return 0;
}
