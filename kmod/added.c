// SPDX-License-Identifier: GPL-2.0
/*
 * Functions applied updates added.  An update built from a tree with an
 * earlier update's patch in it may refer to a function only that patch
 * added (a new static helper), or replace it: in the running kernel that
 * function is the earlier update's new function (struct ksplice_object's
 * new_funcs), in its module, not in the target.  A name is resolved to
 * such a function only if the update carries it in the same target, and
 * matching proves it as any other reference: the running value must be
 * that very address.  A function the later update replaces has its jump
 * on the earlier update's copy.
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

static const struct ksplice_func *ksplice_added_func(
	const struct ksplice_core *core, const char *target, const char *name,
	unsigned long addr)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *g;
	unsigned int i;

	for (i = 0; i < u->nr_new_funcs; i++) {
		g = &u->new_funcs[i];
		if (!strcmp(g->name, name) && !strcmp(g->target, target) &&
		    (!addr || (unsigned long)g->new_code == addr))
			return g;
	}
	return NULL;
}

/*
 * The applied update that added the function @name of @target at @addr;
 * with @addr 0, the newest one that added a function of that name.
 */
struct ksplice_core *ksplice_added_by(const char *target, const char *name,
				      unsigned long addr)
{
	struct ksplice_core *core, *best = NULL;

	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED ||
		    !ksplice_added_func(core, target, name, addr))
			continue;
		if (addr)
			return core;
		if (!best || core->seq > best->seq)
			best = core;
	}
	return best;
}

/* Where the newest applied update's function @name of @target is; 0 if none. */
unsigned long ksplice_added_addr(const char *target, const char *name)
{
	struct ksplice_core *core = ksplice_added_by(target, name, 0);

	return core ? (unsigned long)ksplice_added_func(core, target, name,
							0)->new_code : 0;
}

/*
 * Appends the addresses of the applied updates' functions @name of
 * @target to @addrs (of @max); returns how many there are.
 */
int ksplice_added_addrs(const char *target, const char *name,
			unsigned long *addrs, int max)
{
	const struct ksplice_func *g;
	struct ksplice_core *core;
	int nr = 0;

	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED)
			continue;
		g = ksplice_added_func(core, target, name, 0);
		if (g && nr++ < max)
			addrs[nr - 1] = (unsigned long)g->new_code;
	}
	return nr;
}

/* Records that @core uses @used's function @name (strings of @core's). */
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
					 "%s: uses functions of more than %zu applied updates",
					 name, ARRAY_SIZE(core->uses));
	core->uses[core->nr_uses++] = (struct ksplice_use){ used, name };
	return 0;
}

static int ksplice_added_binding(void *data, const char *target,
				 const char *name, unsigned long addr)
{
	struct ksplice_core *core = data;
	struct ksplice_core *used = ksplice_added_by(target, name, addr);

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
