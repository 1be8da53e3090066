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

	if (!fs->live || !fs->old_addr)
		return NULL;
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
