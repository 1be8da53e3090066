// SPDX-License-Identifier: GPL-2.0
/*
 * Cumulative updates.  A replace update (KSPLICE_UPDATE_REPLACE) is built
 * from the stock source with every fix so far; its pre code is the stock
 * code, which it matches under whatever updates stand (match.c).  Applying
 * it takes the place of every applied update in one stop_machine: its own
 * jumps go over theirs, and every function they replaced that it does not
 * carry gets its stock bytes back.  The stack check covers all of that
 * code.  Afterwards the replaced updates are reversed; ksplice-apply
 * unloads their modules.  If anything fails, nothing changed.
 *
 * Runs under ksplice_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/slab.h>
#include "ksplice.h"

/* Does @core (a view of the replace update) carry the function at @addr? */
static bool ksplice_carries(const struct ksplice_core *core,
			    unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_funcs; i++)
		if (core->fs[i].old_addr == addr)
			return true;
	return false;
}

static unsigned int ksplice_live_funcs(void)
{
	struct ksplice_core *c;
	unsigned int i, n = 0;

	list_for_each_entry(c, &ksplice_updates, list)
		if (c->stage == KSPLICE_STAGE_APPLIED)
			for (i = 0; i < c->update->nr_funcs; i++)
				n += c->fs[i].live;
	return n;
}

/*
 * The write that takes out function @i of @c, which @core does not carry,
 * if @c is the newest update on it: its jump goes, the stock bytes (under
 * the oldest update's jump) come back, or the bottom update's ftrace
 * redirection is switched off.
 */
static int ksplice_replace_write(struct ksplice_core *core,
				 struct ksplice_core *c, unsigned int i,
				 struct ksplice_writes *ws)
{
	struct ksplice_stack_entry s[KSPLICE_MAX_STACK];
	const struct ksplice_fstate *top = &c->fs[i], *bottom;
	const char *name = c->update->funcs[i].name;
	struct ksplice_write *w;
	unsigned int n;

	n = ksplice_stack_get(top->old_addr, s, ARRAY_SIZE(s));
	if (!n || n > ARRAY_SIZE(s))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: %u updates on it", name, n);
	/* Once per function: by its newest update. */
	if (s[n - 1].core != c || s[n - 1].idx != i)
		return 0;
	bottom = &s[0].core->fs[s[0].idx];
	/* Its stock bytes are the key's state now: not known here. */
	if (bottom->nr_jump_pins)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: update %s pinned a jump label under its jump, which a replace update cannot take over yet",
					 name, s[0].core->update->id);
	/* The redirection is the bottom update's (redirect.c). */
	if (top->via_ftrace && !bottom->rd)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: update %s's redirection is gone",
					 name, s[0].core->update->id);
	w = &ws->w[ws->nr++];
	if (top->via_ftrace) {
		w->off = bottom->rd;
		return 0;
	}
	w->addr = top->patch_addr;
	memcpy(w->before, top->jmp, KSPLICE_JMP_LEN);
	memcpy(w->after, bottom->saved, KSPLICE_JMP_LEN);
	return 0;
}

/* The writes that take out what applied updates replaced, @core does not. */
struct ksplice_writes *ksplice_replace_writes(struct ksplice_core *core)
{
	struct ksplice_writes *ws;
	struct ksplice_core *c;
	unsigned int i;
	int ret;

	ws = kvzalloc(struct_size(ws, w, ksplice_live_funcs()), GFP_KERNEL);
	if (!ws)
		return ERR_PTR(ksplice_set_abort(core,
				KSPLICE_ABORT_OUT_OF_MEMORY, "replacing"));
	list_for_each_entry(c, &ksplice_updates, list) {
		if (c->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < c->update->nr_funcs; i++) {
			if (!c->fs[i].live ||
			    ksplice_carries(core, c->fs[i].old_addr))
				continue;
			ret = ksplice_replace_write(core, c, i, ws);
			if (ret) {
				kvfree(ws);
				return ERR_PTR(ret);
			}
		}
	}
	return ws;
}

/*
 * The code of every applied update, which must be out of use: their
 * replacements and the functions they added.  With @r NULL, a bound on
 * how many ranges that is.
 */
unsigned int ksplice_replaced_ranges(struct ksplice_range *r)
{
	const struct ksplice_update *u;
	struct ksplice_core *c;
	unsigned int i, n = 0;

	list_for_each_entry(c, &ksplice_updates, list) {
		if (c->stage != KSPLICE_STAGE_APPLIED)
			continue;
		u = c->update;
		if (!r) {
			n += u->nr_funcs + u->nr_new_funcs;
			continue;
		}
		for (i = 0; i < u->nr_funcs; i++) {
			if (!c->fs[i].live)
				continue;
			r[n].name = u->funcs[i].name;
			r[n].start = (unsigned long)u->funcs[i].new_code;
			r[n].end = r[n].start + u->funcs[i].new_size;
			n++;
		}
		n += ksplice_added_ranges(c, &r[n]);
	}
	return n;
}

/*
 * A redirection @core's stop_machine retargeted to its own code becomes
 * its own: the update that registered it is going.  True if it did.
 */
static bool ksplice_take_redirect(struct ksplice_core *core,
				  struct ksplice_fstate *from)
{
	unsigned int i;

	for (i = 0; from->rd && i < core->update->nr_funcs; i++) {
		if (core->fs[i].over != from->rd)
			continue;
		core->fs[i].rd = from->rd;
		core->fs[i].over = NULL;
		from->rd = NULL;
		return true;
	}
	return false;
}

/* After the stop_machine: the replaced updates are reversed. */
void ksplice_replace_done(struct ksplice_core *core)
{
	struct ksplice_fstate *fs;
	struct ksplice_core *c;
	bool taken = false;
	unsigned int i;

	list_for_each_entry(c, &ksplice_updates, list) {
		if (c == core || c->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < c->update->nr_funcs; i++) {
			fs = &c->fs[i];
			taken |= ksplice_take_redirect(core, fs);
			ksplice_redirect_disarm(fs);
			fs->over = NULL;
			fs->live = false;
			WRITE_ONCE(fs->old_addr, 0);
			fs->patch_addr = fs->run_addr = 0;
		}
		/* Its undo hooks never run: the replacement took over its state. */
		memset(c->hooks_ran, 0, sizeof(c->hooks_ran));
		ksplice_set_stage(c, KSPLICE_STAGE_REVERSED);
		ksplice_put_ref(c);
		pr_info("%s: replaced by update %s\n", c->update->id,
			core->update->id);
	}
	/*
	 * A task in ftrace's trampoline may have read the old target, in a
	 * module that goes now; unregistering would have waited for it.
	 */
	if (taken)
		ksplice_redirect_sync();
}
