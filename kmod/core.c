// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice core: registration of updates, their stages, and the lifetime
 * rules.  An update module registers its struct ksplice_update from its
 * init; the core validates it and exposes /sys/kernel/ksplice/<id>/,
 * whose "stage" attribute applies and reverses it.  While an update is
 * applied the core holds a reference on its module (its code is live)
 * and on every target module (their code carries its jumps).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "ksplice.h"

DEFINE_MUTEX(ksplice_mutex);		/* stages, the list, all patching */
LIST_HEAD(ksplice_updates);

static const int ksplice_abort_errno[] = {
	[KSPLICE_ABORT_NONE] = 0,
	[KSPLICE_ABORT_NO_MATCH] = -ENOENT,
	[KSPLICE_ABORT_CODE_BUSY] = -EBUSY,
	[KSPLICE_ABORT_FAILED_TO_FIND] = -ENOENT,
	[KSPLICE_ABORT_BAD_UPDATE] = -EINVAL,
	[KSPLICE_ABORT_ALREADY_APPLIED] = -EBUSY,
	[KSPLICE_ABORT_NOT_APPLIED] = -EINVAL,
	[KSPLICE_ABORT_UNPATCHABLE] = -EOPNOTSUPP,
	[KSPLICE_ABORT_OUT_OF_MEMORY] = -ENOMEM,
	[KSPLICE_ABORT_UNEXPECTED] = -EIO,
	[KSPLICE_ABORT_REFUSED] = -EPERM,
	[KSPLICE_ABORT_PROBED] = -EBUSY,
	[KSPLICE_ABORT_EXPORTS] = -EBUSY,
};

/* Records why an operation failed; returns the errno for the caller. */
int ksplice_set_abort(struct ksplice_core *core, enum ksplice_abort cause,
		      const char *fmt, ...)
{
	va_list args;

	mutex_lock(&core->status_lock);
	core->cause = cause;
	va_start(args, fmt);
	vsnprintf(core->detail, sizeof(core->detail), fmt, args);
	va_end(args);
	mutex_unlock(&core->status_lock);
	pr_info("%s: %s: %s\n", core->update->id, ksplice_abort_name(cause),
		core->detail);
	return ksplice_abort_errno[cause];
}

static void ksplice_clear_abort(struct ksplice_core *core)
{
	mutex_lock(&core->status_lock);
	core->cause = KSPLICE_ABORT_NONE;
	core->detail[0] = '\0';
	core->conflicts.nr = 0;
	mutex_unlock(&core->status_lock);
}

void ksplice_set_stage(struct ksplice_core *core, enum ksplice_stage stage)
{
	mutex_lock(&core->status_lock);
	core->stage = stage;
	mutex_unlock(&core->status_lock);
}

void ksplice_put_ref(struct ksplice_core *core)
{
	if (!core->holds_ref)
		return;
	module_put(core->update->mod);
	core->holds_ref = false;
}

/* The update module's code is live while the update is applied. */
static int ksplice_get_ref(struct ksplice_core *core)
{
	if (!try_module_get(core->update->mod))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "update module is going away");
	core->holds_ref = true;
	return 0;
}

/*
 * Functions in loadable modules.  No reference is held on a target
 * module: the update applies whether or not it is loaded.  A function
 * of a loaded target is matched and patched with the rest; one of a
 * target loaded later is matched and patched by the module notifier
 * before the module's init runs (MODULE_STATE_COMING); when a target
 * goes away its jumps go with its text and the core forgets their
 * addresses (MODULE_STATE_GOING).  fs->live says which jumps are in the
 * running code; undo removes exactly those.
 *
 * The other parts of the core work on a whole update.  They are given a
 * view of it restricted to some functions: a copy of those functions
 * and of their states, copied back afterwards.  Bindings are keyed by
 * target and unit, so functions of other targets have nothing to tell
 * them.
 */
struct ksplice_view {
	struct ksplice_core core;
	struct ksplice_update update;
	struct ksplice_func *funcs;
	unsigned int *idx;		/* into the whole update */
};

static struct ksplice_view *ksplice_view_alloc(struct ksplice_core *core)
{
	unsigned int n = core->update->nr_funcs;
	struct ksplice_view *v = kzalloc(sizeof(*v), GFP_KERNEL);

	if (!v)
		return NULL;
	v->funcs = kvmalloc_array(n, sizeof(*v->funcs), GFP_KERNEL);
	v->idx = kvmalloc_array(n, sizeof(*v->idx), GFP_KERNEL);
	v->core.fs = kvmalloc_array(n, sizeof(*v->core.fs), GFP_KERNEL);
	if (!v->funcs || !v->idx || !v->core.fs) {
		kvfree(v->funcs);
		kvfree(v->idx);
		kvfree(v->core.fs);
		kfree(v);
		return NULL;
	}
	v->update = *core->update;
	v->update.funcs = v->funcs;
	v->update.nr_funcs = 0;
	v->core.update = &v->update;
	/* data.c: the data selected for the operation is the view's. */
	v->core.ds = core->ds;
	mutex_init(&v->core.status_lock);
	ksplice_bindings_init(&v->core.bindings);
	v->core.stage = core->stage;
	v->core.max_tries = READ_ONCE(core->max_tries);
	v->core.retry_interval_ms = READ_ONCE(core->retry_interval_ms);
	/* added.c: the view adds to the update's uses, kept if it applies. */
	memcpy(v->core.uses, core->uses, sizeof(core->uses));
	v->core.nr_uses = core->nr_uses;
	return v;
}

static void ksplice_view_add(struct ksplice_view *v, struct ksplice_core *core,
			     unsigned int i)
{
	unsigned int k = v->update.nr_funcs++;

	v->funcs[k] = core->update->funcs[i];
	v->core.fs[k] = core->fs[i];
	v->idx[k] = i;
}

/* The states back into the whole update, and what went wrong if it did. */
static void ksplice_view_done(struct ksplice_view *v, struct ksplice_core *core,
			      int ret)
{
	unsigned int k;

	for (k = 0; k < v->update.nr_funcs; k++)
		core->fs[v->idx[k]] = v->core.fs[k];
	mutex_lock(&core->status_lock);
	if (ret) {
		core->cause = v->core.cause;
		memcpy(core->detail, v->core.detail, sizeof(core->detail));
	} else {
		memcpy(core->uses, v->core.uses, sizeof(core->uses));
		core->nr_uses = v->core.nr_uses;
	}
	core->conflicts = v->core.conflicts;
	core->pause_ns = v->core.pause_ns;
	mutex_unlock(&core->status_lock);
	ksplice_bindings_clear(&v->core.bindings);
	kvfree(v->funcs);
	kvfree(v->idx);
	kvfree(v->core.fs);
	kfree(v);
}

/*
 * A jump of another applied update must not overlap one of ours, unless
 * both are at one function, where ours takes the other's place.
 */
static int ksplice_check_overlap(struct ksplice_core *core,
				 struct ksplice_core *view)
{
	const struct ksplice_update *u = view->update;
	struct ksplice_core *other;
	unsigned int i, j;
	long d;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other == core || other->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < u->nr_funcs; i++) {
			for (j = 0; j < other->update->nr_funcs; j++) {
				/* One function: matching stacked it (stack.c). */
				if (!other->fs[j].live ||
				    other->fs[j].old_addr == view->fs[i].old_addr)
					continue;
				d = view->fs[i].patch_addr -
				    other->fs[j].patch_addr;
				if (d > -KSPLICE_JMP_LEN && d < KSPLICE_JMP_LEN)
					return ksplice_set_abort(view,
						KSPLICE_ABORT_ALREADY_APPLIED,
						"%s: replaced by update %s",
						u->funcs[i].name,
						other->update->id);
			}
			cond_resched();
		}
	}
	return 0;
}

/* ftrace's redirections, registered switched off (redirect.c). */
static int ksplice_arm_all(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	unsigned int i;
	int ret;

	for (i = 0; i < u->nr_funcs; i++) {
		if (!core->fs[i].via_ftrace || core->fs[i].over)
			continue;
		ret = ksplice_redirect_arm(&core->fs[i], &u->funcs[i]);
		if (ret)
			return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
						 "%s: ftrace cannot redirect it (%d)",
						 u->funcs[i].name, ret);
	}
	return 0;
}

static void ksplice_disarm_all(struct ksplice_core *core)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_funcs; i++)
		ksplice_redirect_disarm(&core->fs[i]);
}

/* Patching, retried while tasks are in the way. */
static int ksplice_patch_retry(struct ksplice_core *core, bool undo)
{
	unsigned int tries = max(READ_ONCE(core->max_tries), 1U);
	unsigned int try;
	int ret;

	for (try = 1; ; try++) {
		ret = ksplice_patch(core, undo);
		if (ret != -EBUSY || try >= tries)
			return ret;
		if (msleep_interruptible(READ_ONCE(core->retry_interval_ms)))
			return ret;
	}
}

/*
 * The apply hooks around one apply of @objs (hooks.c): pre-apply before
 * anything; then, if the patching failed, the post-undo hooks of the
 * objects whose pre-apply hooks ran, or else stop-apply (which ran in the
 * stop) and post-apply recorded and run.
 */
/*
 * The pre-apply hooks of @objs, checked in the view @v (whose abort cause
 * is the one reported) and recorded in the whole update @core.
 */
static int ksplice_apply_hooks_pre(struct ksplice_core *core,
				   struct ksplice_core *v, u64 objs)
{
	u64 passed;
	int ret;

	ret = ksplice_hooks_check(v, KSPLICE_HOOK_PRE_APPLY, objs, &passed);
	if (ret)
		ksplice_hooks_run(core->update, KSPLICE_HOOK_POST_UNDO, passed);
	else
		core->hooks_ran[KSPLICE_HOOK_PRE_APPLY] |= passed;
	return ret;
}

static void ksplice_apply_hooks_post(struct ksplice_core *core, u64 objs,
				     int ret)
{
	if (ret) {
		ksplice_hooks_run(core->update, KSPLICE_HOOK_POST_UNDO,
				  core->hooks_ran[KSPLICE_HOOK_PRE_APPLY] & objs);
		core->hooks_ran[KSPLICE_HOOK_PRE_APPLY] &= ~objs;
		return;
	}
	core->hooks_ran[KSPLICE_HOOK_STOP_APPLY] |= objs;
	ksplice_hooks_run(core->update, KSPLICE_HOOK_POST_APPLY, objs);
	core->hooks_ran[KSPLICE_HOOK_POST_APPLY] |= objs;
}

/*
 * Matches, relocates and patches in (one stop_machine) the functions of
 * @core that are not live and whose target is @target, or loaded if
 * @target is NULL.  Nothing changes unless all of them do.  The hooks of
 * those objects run around it: pre-apply once the new code (hooks
 * included) is relocated, since a hook may use the unit's statics and
 * other symbols the kernel does not export.
 */
static int ksplice_apply_some(struct ksplice_core *core, const char *target)
{
	const struct ksplice_update *u = core->update;
	/* Its exports too are published once its new code is live. */
	u64 objs = ksplice_hooks_objs(u, target);
	struct ksplice_view *v;
	unsigned int i, k, nd;
	int ret;

	v = ksplice_view_alloc(core);
	if (!v)
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "applying");
	v->core.hook_objs = objs;
	/* Only its first apply replaces: later ones patch a module. */
	v->core.replacing = !target && (u->flags & KSPLICE_UPDATE_REPLACE);
	for (i = 0; i < u->nr_funcs; i++) {
		if (core->fs[i].live)
			continue;
		if (target ? !strcmp(u->funcs[i].target, target) :
			     ksplice_target_present(u->funcs[i].target))
			ksplice_view_add(v, core, i);
	}
	nd = ksplice_data_select(core, target, false);
	if (!v->update.nr_funcs && !v->core.replacing && !objs && !nd) {
		ksplice_view_done(v, core, 0);
		return 0;
	}
	ret = v->core.replacing ? ksplice_data_check_replace(&v->core) : 0;
	if (!ret && ksplice_exports_clash(core, objs))
		ret = ksplice_set_abort(&v->core, KSPLICE_ABORT_EXPORTS,
					"another applied update exports %s",
					ksplice_exports_clash(core, objs));
	if (!ret)
		ret = ksplice_match_all(&v->core);
	if (!ret)
		ret = ksplice_added_uses_bound(&v->core);
	if (!ret)
		ret = ksplice_check_overlap(core, &v->core);
	if (!ret)
		ret = ksplice_relocate_all(&v->core);
	if (!ret)
		ret = ksplice_data_prepare(&v->core, false);
	/* What the data's fields and anchors hold may be another update's. */
	if (!ret)
		ret = ksplice_added_uses_bound(&v->core);
	/*
	 * The first attempt's stacks are walked before the pre-apply hooks
	 * (prewalk.c): a task a hook sets moving is walked again in the stop.
	 */
	if (!ret)
		v->core.prewalk = ksplice_prewalk(&v->core, false);
	if (!ret)
		ret = ksplice_apply_hooks_pre(core, &v->core, objs);
	if (!ret)
		ret = ksplice_arm_all(&v->core);
	if (!ret)
		ret = ksplice_patch_retry(&v->core, false);
	ksplice_prewalk_free(v->core.prewalk);
	v->core.prewalk = NULL;
	ksplice_data_finish(&v->core, false, ret);
	if (ret)
		ksplice_disarm_all(&v->core);
	for (k = 0; k < v->update.nr_funcs; k++) {
		v->core.fs[k].live = !ret;
		v->core.fs[k].seq = ret ? 0 : ksplice_stack_next_seq();
		if (ret)
			v->core.fs[k].old_addr = v->core.fs[k].patch_addr =
				v->core.fs[k].run_addr = 0;
	}
	ksplice_view_done(v, core, ret);
	if (!ret)
		ksplice_exports_publish(core, objs);
	ksplice_apply_hooks_post(core, objs, ret);
	return ret;
}

/*
 * Takes out the jumps of the live functions, in one stop_machine, with
 * the stop-undo hooks of the objects whose stop-apply hooks ran.
 */
static int ksplice_reverse_live(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_view *v = ksplice_view_alloc(core);
	bool retargeted = false;
	unsigned int i, k, nd;
	int ret = 0;

	if (!v)
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "reversing");
	for (i = 0; i < u->nr_funcs; i++)
		if (core->fs[i].live)
			ksplice_view_add(v, core, i);
	v->core.hook_objs = core->hooks_ran[KSPLICE_HOOK_STOP_APPLY];
	nd = ksplice_data_select(core, NULL, true);
	if (nd)
		ret = ksplice_data_prepare(&v->core, true);
	if (!ret && (v->update.nr_funcs || v->core.hook_objs || nd))
		ret = ksplice_patch_retry(&v->core, true);
	ksplice_data_finish(&v->core, true, ret);
	if (!ret)
		ksplice_disarm_all(&v->core);
	for (k = 0; !ret && k < v->update.nr_funcs; k++) {
		retargeted |= !!v->core.fs[k].over;
		v->core.fs[k].over = NULL;
		v->core.fs[k].live = false;
	}
	if (retargeted)
		ksplice_redirect_sync();
	ksplice_view_done(v, core, ret);
	return ret;
}

static int __ksplice_apply(struct ksplice_core *core)
{
	int ret;

	if (core->stage == KSPLICE_STAGE_APPLIED)
		return ksplice_set_abort(core, KSPLICE_ABORT_ALREADY_APPLIED,
					 "already applied");
	if (core->draining)
		return ksplice_set_abort(core, KSPLICE_ABORT_CODE_BUSY,
					 "a task is still in its code since its undo");
	ksplice_clear_abort(core);
	ret = ksplice_get_ref(core);
	if (ret)
		return ret;
	ret = ksplice_apply_some(core, NULL);
	if (ret) {
		ksplice_put_ref(core);
		return ret;
	}
	core->seq = ksplice_stack_next_seq();
	if (core->update->flags & KSPLICE_UPDATE_REPLACE)
		ksplice_replace_done(core);
	ksplice_set_stage(core, KSPLICE_STAGE_APPLIED);
	return 0;
}

int ksplice_apply(struct ksplice_core *core)
{
	int ret;

	mutex_lock(&ksplice_mutex);
	ret = __ksplice_apply(core);
	mutex_unlock(&ksplice_mutex);
	return ret;
}

/*
 * @force: the update module is being unloaded by force (rmmod -f), and
 * its code goes whatever its pre-undo hooks say: a refusal is logged,
 * not obeyed.
 */
static int __ksplice_reverse(struct ksplice_core *core, bool force)
{
	u64 passed;
	int ret;

	if (core->stage != KSPLICE_STAGE_APPLIED)
		return ksplice_set_abort(core, KSPLICE_ABORT_NOT_APPLIED,
					 "not applied");
	ksplice_clear_abort(core);
	/* Last in, first out: nothing changes while a later one stands. */
	ret = ksplice_stack_check_reverse(core);
	if (!ret)
		ret = ksplice_added_check_reverse(core);
	/* No module may bind to its exports while its code goes. */
	if (!ret)
		ret = ksplice_exports_withdraw(core, force);
	if (ret)
		return ret;
	ret = ksplice_hooks_check(core, KSPLICE_HOOK_PRE_UNDO,
				  core->hooks_ran[KSPLICE_HOOK_POST_APPLY], &passed);
	if (ret && force) {
		pr_warn("%s: unloaded by force: undone although a hook refused\n",
			core->update->id);
		ret = 0;
	}
	if (!ret)
		ret = ksplice_reverse_live(core);
	if (ret) {
		/* Still applied: the state the pre-undo hooks took down is back. */
		ksplice_hooks_run(core->update, KSPLICE_HOOK_POST_APPLY, passed);
		ksplice_exports_restore(core);
		return ret;
	}
	ksplice_hooks_run(core->update, KSPLICE_HOOK_POST_UNDO,
			  core->hooks_ran[KSPLICE_HOOK_PRE_APPLY]);
	memset(core->hooks_ran, 0, sizeof(core->hooks_ran));
	ksplice_set_stage(core, KSPLICE_STAGE_REVERSED);
	core->nr_uses = 0;
	if (force)
		ksplice_put_ref(core);
	else
		ksplice_drain(core);
	return 0;
}

int ksplice_reverse(struct ksplice_core *core)
{
	int ret;

	mutex_lock(&ksplice_mutex);
	ret = __ksplice_reverse(core, false);
	mutex_unlock(&ksplice_mutex);
	return ret;
}

static void ksplice_module_going(struct module *mod);

static bool ksplice_targets(const struct ksplice_core *core, const char *name)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_funcs; i++)
		if (!strcmp(core->update->funcs[i].target, name))
			return true;
	return ksplice_hooks_in(core->update, name) ||
	       ksplice_data_in(core, name) ||
	       ksplice_exports_objs(core->update, name);
}

/* The applied update targeting @name applied first after @after. */
static struct ksplice_core *ksplice_next_applied(const char *name, u64 after)
{
	struct ksplice_core *core, *next = NULL;

	list_for_each_entry(core, &ksplice_updates, list)
		if (core->stage == KSPLICE_STAGE_APPLIED &&
		    core->seq > after && ksplice_targets(core, name) &&
		    (!next || core->seq < next->seq))
			next = core;
	return next;
}

/*
 * A target module is coming: its code has not run yet.  Every applied
 * update with functions in it patches them now, in the order they were
 * applied: one stacked on another matches the other's code (stack.c),
 * and the newest one's jump is what is left.  One that cannot (the
 * module is not the one the update was built for, say) refuses the load,
 * as livepatch does: the module would run code the update replaces.
 */
static int ksplice_module_coming(struct module *mod)
{
	struct ksplice_core *core;
	u64 seq = 0;
	int ret = 0;

	while ((core = ksplice_next_applied(mod->name, seq))) {
		seq = core->seq;
		ret = ksplice_apply_some(core, mod->name);
		if (ret) {
			pr_warn("%s: cannot patch module %s (%s: %s); refusing to load it\n",
				core->update->id, mod->name,
				ksplice_abort_name(core->cause), core->detail);
			break;
		}
		pr_info("%s: patched module %s as it loads\n",
			core->update->id, mod->name);
	}
	/* The kernel tells no GOING to a notifier whose COMING failed. */
	if (ret)
		ksplice_module_going(mod);
	return ret;
}

/*
 * A target module is going (its exit ran, or its init failed): its text,
 * jumps included, is about to be freed.  Forget the addresses; a reload
 * is patched again as it comes.
 */
static void ksplice_module_going(struct module *mod)
{
	const struct ksplice_update *u;
	struct ksplice_core *core;
	struct ksplice_fstate *fs;
	unsigned int i;

	list_for_each_entry(core, &ksplice_updates, list) {
		u = core->update;
		/* A pinned module goes only if its init failed. */
		if (core->exports_pin == mod)
			ksplice_exports_withdraw(core, true);
		ksplice_hooks_going(core, mod->name);
		ksplice_data_going(core, mod->name);
		for (i = 0; i < u->nr_funcs; i++) {
			fs = &core->fs[i];
			if (strcmp(u->funcs[i].target, mod->name))
				continue;
			if (fs->live)
				pr_info("%s: module %s unloaded, %s with it\n",
					u->id, mod->name, u->funcs[i].name);
			ksplice_redirect_disarm(fs);
			fs->over = NULL;
			fs->live = false;
			WRITE_ONCE(fs->old_addr, 0);
			fs->patch_addr = 0;
		}
	}
}

static int ksplice_module_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct module *mod = data;
	int ret = 0;

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&ksplice_mutex);
	if (action == MODULE_STATE_COMING) {
		ret = ksplice_module_coming(mod);
	} else {
		ksplice_module_going(mod);
		ksplice_pins_release(mod);
	}
	mutex_unlock(&ksplice_mutex);
	return notifier_from_errno(ret);
}

/* After the kernel's own (ftrace, jump labels) have seen the module. */
static struct notifier_block ksplice_module_nb = {
	.notifier_call = ksplice_module_notify,
	.priority = -1,
};

static bool ksplice_id_taken(const char *id)
{
	struct ksplice_core *core;

	list_for_each_entry(core, &ksplice_updates, list)
		if (!strcmp(core->update->id, id))
			return true;
	return false;
}

static struct ksplice_core *ksplice_core_alloc(struct ksplice_update *u)
{
	struct ksplice_core *core = kzalloc(sizeof(*core), GFP_KERNEL);

	if (!core)
		return NULL;
	core->update = u;
	mutex_init(&core->status_lock);
	ksplice_bindings_init(&core->bindings);
	core->stage = KSPLICE_STAGE_LOADED;
	core->max_tries = KSPLICE_DEFAULT_TRIES;
	core->retry_interval_ms = KSPLICE_DEFAULT_INTERVAL_MS;
	ksplice_drain_init(core);
	return core;
}

static int __ksplice_register(struct ksplice_update *u, char *why, size_t len)
{
	struct ksplice_core *core;
	int ret;

	ret = ksplice_validate(u, why, len);
	if (ret)
		return ret;
	ret = ksplice_pins_take(u, why, len);
	if (!ret && ksplice_id_taken(u->id)) {
		snprintf(why, len, "update %s is already loaded", u->id);
		ret = -EEXIST;
	}
	core = ret ? NULL : ksplice_core_alloc(u);
	if (!ret && !core)
		ret = -ENOMEM;
	if (!ret) {
		ret = ksplice_fstates_build(core, why, len) ?:
		      ksplice_dstates_build(core, why, len);
		if (ret) {
			ksplice_fstates_free(core);
			ksplice_dstates_free(core);
			kfree(core);
		}
	}
	if (ret) {
		ksplice_objects_free(u);
		return ret;
	}
	/* From here on the kobject owns the core. */
	ret = ksplice_sysfs_add(core);
	if (ret) {
		snprintf(why, len, "sysfs: %d", ret);
		return ret;
	}
	list_add_tail(&core->list, &ksplice_updates);
	u->core = core;
	return 0;
}

int ksplice_register_update(struct ksplice_update *update)
{
	char *why;
	int ret;

	if (!update)
		return -EINVAL;
	why = kzalloc(KSPLICE_DETAIL_LEN, GFP_KERNEL);
	if (!why)
		return -ENOMEM;
	mutex_lock(&ksplice_mutex);
	ret = __ksplice_register(update, why, KSPLICE_DETAIL_LEN);
	mutex_unlock(&ksplice_mutex);
	if (ret)
		pr_warn("rejected update: %s\n", why[0] ? why : "error");
	else
		pr_info("%s: loaded, %u functions, %u variables patched in place\n",
			update->id, update->nr_funcs, update->nr_data);
	kfree(why);
	return ret;
}
EXPORT_SYMBOL_GPL(ksplice_register_update);

void ksplice_unregister_update(struct ksplice_update *update)
{
	struct ksplice_core *core = update ? update->core : NULL;

	if (!core)
		return;
	/* Waits for any stage write in progress to finish. */
	ksplice_sysfs_del(core);
	ksplice_drain_cancel(core);
	mutex_lock(&ksplice_mutex);
	/* Only a forced module unload gets here with the update applied. */
	if (core->stage == KSPLICE_STAGE_APPLIED &&
	    __ksplice_reverse(core, true))
		pr_crit("%s: unloaded while applied and cannot be reversed\n",
			update->id);
	ksplice_exports_withdraw(core, true);
	list_del(&core->list);
	ksplice_added_forget(core);
	update->core = NULL;
	mutex_unlock(&ksplice_mutex);
	ksplice_sysfs_put(core);
	/* RCU callbacks the update's code queued run before its text goes. */
	rcu_barrier();
}
EXPORT_SYMBOL_GPL(ksplice_unregister_update);

static int __init ksplice_init(void)
{
	int ret;

	ret = ksplice_symbols_init();
	if (!ret)
		ret = ksplice_arch_init();
	if (ret)
		return ret;
	ret = ksplice_arch_poke_init();
	if (ret)
		return ret;
	ret = ksplice_sysfs_init();
	if (ret)
		goto out_poke;
	ret = register_module_notifier(&ksplice_module_nb);
	if (ret)
		goto out_sysfs;
	ksplice_prewalk_init();
	return 0;
out_sysfs:
	ksplice_sysfs_exit();
out_poke:
	ksplice_arch_poke_exit();
	return ret;
}

static void __exit ksplice_exit(void)
{
	unregister_module_notifier(&ksplice_module_nb);
	ksplice_sysfs_exit();
	ksplice_prewalk_exit();
	ksplice_arch_poke_exit();
}

module_init(ksplice_init);
module_exit(ksplice_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksplice: rebootless kernel updates");
