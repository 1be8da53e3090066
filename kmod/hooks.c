// SPDX-License-Identifier: GPL-2.0
/*
 * The patch author's hooks (include/ksplice/hooks.h has the contract):
 * new functions of an update that the core runs when one of its objects
 * is patched or unpatched.  Which objects' hooks of each apply kind ran
 * is a bit mask per kind in the core (bit i: u->objs[i]); an undo hook
 * runs only for objects whose mirror apply hook ran, and clears its bit:
 *
 *	pre-apply <-> post-undo, stop-apply <-> stop-undo,
 *	post-apply <-> pre-undo.
 *
 * All of it under ksplice_mutex; the stop kinds inside stop_machine().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/stop_machine.h>
#include "ksplice.h"

typedef int (*ksplice_check_fn)(char *why, size_t len);
typedef void (*ksplice_action_fn)(void);

static const char *const ksplice_hook_names[KSPLICE_HOOK_MAX] = {
	[KSPLICE_HOOK_PRE_APPLY] = "pre-apply",
	[KSPLICE_HOOK_STOP_APPLY] = "stop-apply",
	[KSPLICE_HOOK_POST_APPLY] = "post-apply",
	[KSPLICE_HOOK_PRE_UNDO] = "pre-undo",
	[KSPLICE_HOOK_STOP_UNDO] = "stop-undo",
	[KSPLICE_HOOK_POST_UNDO] = "post-undo",
};

/* Each hook is a known kind and one of its object's new functions. */
int ksplice_hooks_validate(const struct ksplice_object *o, char *why,
			   size_t len)
{
	unsigned int i, k;

	for (i = 0; i < o->nr_hooks; i++) {
		const struct ksplice_hook *h = &o->hooks[i];

		if (!h->kind || h->kind >= KSPLICE_HOOK_MAX) {
			snprintf(why, len, "%s: hook %u: unknown kind %u",
				 o->name, i, h->kind);
			return -EINVAL;
		}
		for (k = 0; k < o->nr_new_funcs; k++)
			if (h->fn && h->fn == o->new_funcs[k].new_code)
				break;
		if (k == o->nr_new_funcs) {
			snprintf(why, len, "%s: %s hook %u is none of its new functions",
				 o->name, ksplice_hook_names[h->kind], i);
			return -EINVAL;
		}
	}
	return 0;
}

static int ksplice_obj_index(const struct ksplice_update *u, const char *name)
{
	unsigned int i;

	for (i = 0; i < u->nr_objs; i++)
		if (!strcmp(u->objs[i].name, name))
			return i;
	return -1;
}

/* Does @name's object of @u have hooks? */
bool ksplice_hooks_in(const struct ksplice_update *u, const char *name)
{
	int i = ksplice_obj_index(u, name);

	return i >= 0 && u->objs[i].nr_hooks;
}

bool ksplice_update_has_hooks(const struct ksplice_update *u)
{
	unsigned int i;

	for (i = 0; i < u->nr_objs; i++)
		if (u->objs[i].nr_hooks)
			return true;
	return false;
}

/* Can @name's new functions run: does its object replace or hook? */
bool ksplice_object_runs(const struct ksplice_update *u, const char *name)
{
	int i = ksplice_obj_index(u, name);

	/*
	 * Data patched in place may point at its added functions, and its
	 * exports may name them.
	 */
	return i >= 0 && (u->objs[i].nr_funcs || u->objs[i].nr_hooks ||
			  u->objs[i].nr_data || u->objs[i].nr_exports ||
			  u->objs[i].nr_gpl_exports);
}

/*
 * The objects whose hooks an apply runs: @target's, or (NULL) those
 * present now: vmlinux and the loaded modules.
 */
u64 ksplice_hooks_objs(const struct ksplice_update *u, const char *target)
{
	unsigned int i;
	u64 objs = 0;
	int k;

	if (target) {
		k = ksplice_obj_index(u, target);
		return k < 0 ? 0 : BIT_ULL(k);
	}
	for (i = 0; i < u->nr_objs; i++)
		if (ksplice_target_present(u->objs[i].name))
			objs |= BIT_ULL(i);
	return objs;
}

/* The @kind hooks of the objects in @objs, object by object. */
void ksplice_hooks_run(const struct ksplice_update *u, unsigned int kind,
		       u64 objs)
{
	const struct ksplice_object *o;
	unsigned int i, j;

	for (i = 0; i < u->nr_objs; i++) {
		if (!(objs & BIT_ULL(i)))
			continue;
		o = &u->objs[i];
		for (j = 0; j < o->nr_hooks; j++)
			if (o->hooks[j].kind == kind)
				((ksplice_action_fn)o->hooks[j].fn)();
	}
}

/*
 * The pre-@kind hooks of @objs until one refuses.  *@passed: the objects
 * all of whose hooks of @kind passed.  The refusal is the abort cause,
 * with the hook's message.
 */
int ksplice_hooks_check(struct ksplice_core *core, unsigned int kind,
			u64 objs, u64 *passed)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_object *o;
	unsigned int i, j;
	char msg[KSPLICE_DETAIL_LEN];
	int ret;

	*passed = 0;
	for (i = 0; i < u->nr_objs; i++) {
		if (!(objs & BIT_ULL(i)))
			continue;
		o = &u->objs[i];
		for (j = 0; j < o->nr_hooks; j++) {
			if (o->hooks[j].kind != kind)
				continue;
			msg[0] = '\0';
			ret = ((ksplice_check_fn)o->hooks[j].fn)(msg, sizeof(msg));
			if (!ret)
				continue;
			msg[sizeof(msg) - 1] = '\0';
			return ksplice_set_abort(core, KSPLICE_ABORT_REFUSED,
						 "%s: %s hook refused (%d): %s",
						 o->name,
						 ksplice_hook_names[kind], ret,
						 msg[0] ? msg : "no reason given");
		}
		*passed |= BIT_ULL(i);
	}
	return 0;
}

/* In the stop of ksplice_patch(): the view's objects' stop hooks. */
void ksplice_hooks_stop(struct ksplice_core *core, bool undo)
{
	ksplice_hooks_run(core->update, undo ? KSPLICE_HOOK_STOP_UNDO :
			  KSPLICE_HOOK_STOP_APPLY, core->hook_objs);
}

struct ksplice_hooks_alone {
	const struct ksplice_update *u;
	u64 objs;
};

static int ksplice_hooks_stop_fn(void *data)
{
	struct ksplice_hooks_alone *a = data;

	ksplice_hooks_run(a->u, KSPLICE_HOOK_STOP_UNDO, a->objs);
	return 0;
}

/*
 * A module of @core's is going while the update is applied: its undo
 * hooks, mirroring the apply hooks that ran for it.  Its jumps go with
 * its text; stop-undo still runs with the machine stopped, as promised.
 */
void ksplice_hooks_going(struct ksplice_core *core, const char *name)
{
	const struct ksplice_update *u = core->update;
	int i = ksplice_obj_index(u, name);
	struct ksplice_hooks_alone a = { u, 0 };
	char msg[KSPLICE_DETAIL_LEN];
	u64 bit;

	if (i < 0)
		return;
	bit = BIT_ULL(i);
	a.objs = core->hooks_ran[KSPLICE_HOOK_STOP_APPLY] & bit;
	if (core->hooks_ran[KSPLICE_HOOK_POST_APPLY] & bit) {
		const struct ksplice_object *o = &u->objs[i];
		unsigned int j;

		for (j = 0; j < o->nr_hooks; j++) {
			if (o->hooks[j].kind != KSPLICE_HOOK_PRE_UNDO)
				continue;
			msg[0] = '\0';
			if (((ksplice_check_fn)o->hooks[j].fn)(msg, sizeof(msg)))
				pr_warn("%s: module %s unloads although a pre-undo hook refused: %.*s\n",
					u->id, name, (int)sizeof(msg), msg);
		}
	}
	if (a.objs) {
		cpus_read_lock();
		ksplice_k.stop_machine_cpuslocked(ksplice_hooks_stop_fn, &a,
						  NULL);
		cpus_read_unlock();
	}
	ksplice_hooks_run(u, KSPLICE_HOOK_POST_UNDO,
			  core->hooks_ran[KSPLICE_HOOK_PRE_APPLY] & bit);
	core->hooks_ran[KSPLICE_HOOK_PRE_APPLY] &= ~bit;
	core->hooks_ran[KSPLICE_HOOK_STOP_APPLY] &= ~bit;
	core->hooks_ran[KSPLICE_HOOK_POST_APPLY] &= ~bit;
}
