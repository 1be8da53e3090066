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

static void ksplice_set_stage(struct ksplice_core *core,
			      enum ksplice_stage stage)
{
	mutex_lock(&core->status_lock);
	core->stage = stage;
	mutex_unlock(&core->status_lock);
}

static void ksplice_put_refs(struct ksplice_core *core)
{
	unsigned int i;

	if (!core->holds_refs)
		return;
	for (i = 0; i < core->update->nr_funcs; i++) {
		module_put(core->fs[i].target_mod);
		core->fs[i].target_mod = NULL;
	}
	module_put(core->update->mod);
	core->holds_refs = false;
}

static int ksplice_get_target(struct ksplice_core *core, unsigned int i)
{
	const char *target = core->update->funcs[i].target;
	struct module *mod;
	bool ok;

	if (ksplice_is_vmlinux(target))
		return 0;
	mutex_lock(ksplice_k.module_mutex);
	mod = ksplice_k.find_module(target);
	ok = mod && try_module_get(mod);
	mutex_unlock(ksplice_k.module_mutex);
	if (!ok)
		return ksplice_set_abort(core, KSPLICE_ABORT_FAILED_TO_FIND,
					 "%s: module %s is not loaded",
					 core->update->funcs[i].name, target);
	core->fs[i].target_mod = mod;
	return 0;
}

/* Pins the update module and every target module for the operation. */
static int ksplice_get_refs(struct ksplice_core *core)
{
	unsigned int i;
	int ret;

	if (!try_module_get(core->update->mod))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "update module is going away");
	core->holds_refs = true;
	for (i = 0; i < core->update->nr_funcs; i++) {
		ret = ksplice_get_target(core, i);
		if (ret) {
			ksplice_put_refs(core);
			return ret;
		}
	}
	return 0;
}

/* A function another applied update has replaced cannot be replaced. */
static int ksplice_check_overlap(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_core *other;
	unsigned int i, j;
	long d;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other == core || other->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < u->nr_funcs; i++) {
			for (j = 0; j < other->update->nr_funcs; j++) {
				d = core->fs[i].patch_addr -
				    other->fs[j].patch_addr;
				if (d > -KSPLICE_JMP_LEN && d < KSPLICE_JMP_LEN)
					return ksplice_set_abort(core,
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

static int __ksplice_apply(struct ksplice_core *core)
{
	int ret;

	if (core->stage == KSPLICE_STAGE_APPLIED)
		return ksplice_set_abort(core, KSPLICE_ABORT_ALREADY_APPLIED,
					 "already applied");
	ksplice_clear_abort(core);
	ret = ksplice_get_refs(core);
	if (ret)
		return ret;
	ret = ksplice_match_all(core);
	if (!ret)
		ret = ksplice_check_overlap(core);
	if (!ret)
		ret = ksplice_relocate_all(core);
	if (!ret)
		ret = ksplice_patch_retry(core, false);
	if (ret) {
		ksplice_put_refs(core);
		return ret;
	}
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

static int __ksplice_reverse(struct ksplice_core *core)
{
	int ret;

	if (core->stage != KSPLICE_STAGE_APPLIED)
		return ksplice_set_abort(core, KSPLICE_ABORT_NOT_APPLIED,
					 "not applied");
	ksplice_clear_abort(core);
	ret = ksplice_patch_retry(core, true);
	if (ret)
		return ret;
	ksplice_set_stage(core, KSPLICE_STAGE_REVERSED);
	ksplice_put_refs(core);
	return 0;
}

int ksplice_reverse(struct ksplice_core *core)
{
	int ret;

	mutex_lock(&ksplice_mutex);
	ret = __ksplice_reverse(core);
	mutex_unlock(&ksplice_mutex);
	return ret;
}

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
	return core;
}

static int __ksplice_register(struct ksplice_update *u, char *why, size_t len)
{
	struct ksplice_core *core;
	int ret;

	ret = ksplice_validate(u, why, len);
	if (ret)
		return ret;
	if (ksplice_id_taken(u->id)) {
		snprintf(why, len, "update %s is already loaded", u->id);
		return -EEXIST;
	}
	core = ksplice_core_alloc(u);
	if (!core)
		return -ENOMEM;
	ret = ksplice_fstates_build(core, why, len);
	if (ret) {
		ksplice_fstates_free(core);
		kfree(core);
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
		pr_info("%s: loaded, %u functions\n", update->id,
			update->nr_funcs);
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
	mutex_lock(&ksplice_mutex);
	/* Only a forced module unload gets here with the update applied. */
	if (core->stage == KSPLICE_STAGE_APPLIED && __ksplice_reverse(core))
		pr_crit("%s: unloaded while applied and cannot be reversed\n",
			update->id);
	list_del(&core->list);
	update->core = NULL;
	mutex_unlock(&ksplice_mutex);
	ksplice_sysfs_put(core);
}
EXPORT_SYMBOL_GPL(ksplice_unregister_update);

static int __init ksplice_init(void)
{
	int ret;

	ret = ksplice_symbols_init();
	if (!ret)
		ret = ksplice_arch_init();
	if (!ret)
		ret = ksplice_sysfs_init();
	return ret;
}

static void __exit ksplice_exit(void)
{
	ksplice_sysfs_exit();
}

module_init(ksplice_init);
module_exit(ksplice_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksplice: rebootless kernel updates");
