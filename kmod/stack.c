// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks of updates on one function.  An update built from a tree that
 * holds an earlier update's patch has that update's new code as its pre
 * code: it matches the code running now, and its jump takes the place of
 * the earlier one's at the same spot of the stock function (the bytes it
 * saves are the earlier jump, which undo puts back).  The functions of
 * applied updates at one old address, ordered by when their jump was
 * written (fs->seq), form the stack; the last one's code is the one
 * running.  Undo is last-in-first-out per function.
 *
 * Everything here runs under ksplice_mutex.
 */
#include "ksplice.h"

static u64 ksplice_seq;

u64 ksplice_stack_next_seq(void)
{
	return ++ksplice_seq;
}

static u64 ksplice_entry_seq(const struct ksplice_stack_entry *e)
{
	return e->core->fs[e->idx].seq;
}

/*
 * The live functions of applied updates at @old_addr, oldest first, into
 * @out (at most @max); returns how many there are, which may exceed @max.
 */
unsigned int ksplice_stack_get(unsigned long old_addr,
			       struct ksplice_stack_entry *out,
			       unsigned int max)
{
	struct ksplice_core *core;
	struct ksplice_stack_entry e;
	unsigned int i, n = 0, k;

	if (!old_addr)
		return 0;
	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < core->update->nr_funcs; i++) {
			if (!core->fs[i].live || core->fs[i].old_addr != old_addr)
				continue;
			if (n++ < max)
				out[n - 1] = (struct ksplice_stack_entry){ core, i };
		}
	}
	/* Insertion sort by seq: stacks are a few deep. */
	for (i = 1; i < min(n, max); i++) {
		e = out[i];
		for (k = i; k > 0 && ksplice_entry_seq(&out[k - 1]) >
				     ksplice_entry_seq(&e); k--)
			out[k] = out[k - 1];
		out[k] = e;
	}
	return n;
}

/*
 * How many updates replaced the function at @old_addr; when that is at
 * least one and at most KSPLICE_MAX_STACK, *@top is the one whose code
 * runs (the last applied).
 */
unsigned int ksplice_stack_top(unsigned long old_addr,
			       struct ksplice_stack_entry *top)
{
	struct ksplice_stack_entry s[KSPLICE_MAX_STACK];
	unsigned int n = ksplice_stack_get(old_addr, s, ARRAY_SIZE(s));

	if (n && n <= ARRAY_SIZE(s))
		*top = s[n - 1];
	return n;
}

static bool ksplice_same_func(const struct ksplice_func *f,
			      const struct ksplice_func *g)
{
	return !strcmp(f->name, g->name) && !strcmp(f->target, g->target) &&
	       !strcmp(f->unit, g->unit);
}

/*
 * A function of a module that is not loaded has no address: an update
 * applied later with the same function stands on it (it is matched after
 * it when the module comes), or the module could not load at all.
 */
static struct ksplice_core *ksplice_stack_above_absent(
	const struct ksplice_core *core, unsigned int i)
{
	const struct ksplice_func *f = &core->update->funcs[i];
	struct ksplice_core *other;
	unsigned int j;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other == core || other->stage != KSPLICE_STAGE_APPLIED ||
		    other->seq < core->seq)
			continue;
		for (j = 0; j < other->update->nr_funcs; j++)
			if (ksplice_same_func(f, &other->update->funcs[j]))
				return other;
	}
	return NULL;
}

/*
 * An update applied on top of @core's function @i, if any: @core cannot
 * be reversed before it.
 */
struct ksplice_core *ksplice_stack_above(const struct ksplice_core *core,
					 unsigned int i)
{
	const struct ksplice_fstate *fs = &core->fs[i];
	struct ksplice_core *other;
	unsigned int j;

	if (!fs->live)
		return ksplice_stack_above_absent(core, i);
	list_for_each_entry(other, &ksplice_updates, list) {
		if (other == core || other->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (j = 0; j < other->update->nr_funcs; j++)
			if (other->fs[j].live &&
			    other->fs[j].old_addr == fs->old_addr &&
			    other->fs[j].seq > fs->seq)
				return other;
	}
	return NULL;
}

/* ksplice_stack_above() for every live function of @core. */
int ksplice_stack_check_reverse(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_core *above;
	unsigned int i;

	for (i = 0; i < u->nr_funcs; i++) {
		above = ksplice_stack_above(core, i);
		if (above)
			return ksplice_set_abort(core,
				KSPLICE_ABORT_ALREADY_APPLIED,
				"%s: update %s is applied on top of this one; reverse it first",
				u->funcs[i].name, above->update->id);
	}
	return 0;
}

/*
 * Running code of an update refers to the update's own copies of the
 * functions it replaced (a function's .cold part): for matching, the copy
 * at @addr of the function @name of @target stands for that function,
 * whose old address is returned; 0 if no applied update has such a copy.
 */
unsigned long ksplice_stack_copy_of(const char *target, const char *name,
				    unsigned long addr)
{
	const struct ksplice_func *f;
	struct ksplice_core *core;
	unsigned int i;

	list_for_each_entry(core, &ksplice_updates, list) {
		if (core->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < core->update->nr_funcs; i++) {
			f = &core->update->funcs[i];
			if (core->fs[i].live &&
			    (unsigned long)f->new_code == addr &&
			    !strcmp(f->name, name) && !strcmp(f->target, target))
				return core->fs[i].old_addr;
		}
	}
	return 0;
}
