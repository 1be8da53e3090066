// SPDX-License-Identifier: GPL-2.0
/*
 * Exports a patch adds (EXPORT_SYMBOL of a new function or variable): a
 * module built from the patched source needs them.  The update module
 * carries them in tables of its own, which the module loader does not
 * see: exported as the module loads, they would be callable before the
 * core relocated the code behind them, and a replace update could not
 * load beside the update it replaces, which exports the same names.
 *
 * So the core makes them the update module's exports (its struct module's
 * syms and gpl_syms, which find_symbol() reads) once the object's new code
 * is relocated and live, and takes them back before that code goes:
 *  - a module using one holds the update module (the loader's usage
 *    link), and the update is not undone under it;
 *  - the exports of a module target's code hold that module, which does
 *    not go under their users;
 *  - a replace update takes the exports of the updates it replaces over,
 *    in the step that applies it; their users keep what they bound, and
 *    their modules stay while used.
 *
 * find_symbol() reads a module's tables under module_mutex or with
 * preemption off.  They are written under module_mutex, the count last
 * when published and first when taken back, and the tables stay in the
 * update module's memory: a reader sees all of them or none.  The loader
 * binds a module's symbols under module_mutex, so "no module uses them"
 * and taking them back are one step.
 *
 * Runs under ksplice_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "ksplice.h"

static int ksplice_exports_obj(const struct ksplice_update *u)
{
	unsigned int i;

	for (i = 0; i < u->nr_objs; i++)
		if (u->objs[i].nr_exports || u->objs[i].nr_gpl_exports)
			return i;
	return -1;
}

/* The bit of the object with exports, if @target (NULL: any) is it. */
u64 ksplice_exports_objs(const struct ksplice_update *u, const char *target)
{
	int i = ksplice_exports_obj(u);

	if (i < 0 || (target && strcmp(u->objs[i].name, target)))
		return 0;
	if (!target && !ksplice_target_present(u->objs[i].name))
		return 0;
	return BIT_ULL(i);
}

static const char *ksplice_export_name(const struct ksplice_export *e)
{
	return offset_to_ptr(&e->name_offset);
}

static bool ksplice_exports_has(const struct ksplice_object *o,
				const char *name)
{
	unsigned int i;

	for (i = 0; i < o->nr_exports; i++)
		if (!strcmp(ksplice_export_name(&o->exports[i]), name))
			return true;
	for (i = 0; i < o->nr_gpl_exports; i++)
		if (!strcmp(ksplice_export_name(&o->gpl_exports[i]), name))
			return true;
	return false;
}

/*
 * Before anything changes: a name @core would publish (its object is in
 * @objs) that another applied update publishes, one @core does not replace.
 */
const char *ksplice_exports_clash(const struct ksplice_core *core, u64 objs)
{
	const struct ksplice_object *o, *p;
	struct ksplice_core *c;
	unsigned int i;
	int k = ksplice_exports_obj(core->update);

	if (k < 0 || !(objs & BIT_ULL(k)) || core->exports_live ||
	    (core->update->flags & KSPLICE_UPDATE_REPLACE))
		return NULL;
	o = &core->update->objs[k];
	list_for_each_entry(c, &ksplice_updates, list) {
		k = ksplice_exports_obj(c->update);
		if (c == core || !c->exports_live || k < 0)
			continue;
		p = &c->update->objs[k];
		for (i = 0; i < o->nr_exports; i++)
			if (ksplice_exports_has(p, ksplice_export_name(&o->exports[i])))
				return ksplice_export_name(&o->exports[i]);
		for (i = 0; i < o->nr_gpl_exports; i++)
			if (ksplice_exports_has(p, ksplice_export_name(&o->gpl_exports[i])))
				return ksplice_export_name(&o->gpl_exports[i]);
	}
	return NULL;
}

static void ksplice_exports_set(struct module *mod,
				const struct ksplice_object *o)
{
	mod->syms = (const struct kernel_symbol *)o->exports;
	mod->gpl_syms = (const struct kernel_symbol *)o->gpl_exports;
#ifdef CONFIG_MODVERSIONS
	mod->crcs = o->export_crcs;
	mod->gpl_crcs = o->gpl_export_crcs;
#endif
	/* the counts last: a reader that sees one sees its table */
	smp_wmb();
	WRITE_ONCE(mod->num_syms, o->nr_exports);
	WRITE_ONCE(mod->num_gpl_syms, o->nr_gpl_exports);
}

static void ksplice_exports_clear(struct module *mod)
{
	WRITE_ONCE(mod->num_syms, 0);
	WRITE_ONCE(mod->num_gpl_syms, 0);
}

/* The exports of the updates @core replaces go; their modules stay. */
static void ksplice_exports_take_over(struct ksplice_core *core)
{
	struct ksplice_core *c;

	list_for_each_entry(c, &ksplice_updates, list) {
		if (c == core || !c->exports_live)
			continue;
		ksplice_exports_clear(c->update->mod);
		c->exports_live = false;
		if (c->exports_pin)
			module_put(c->exports_pin);
		c->exports_pin = NULL;
	}
}

/*
 * The object's new code is live (applied now, in @objs): its exports
 * become the update module's.  A module target's is pinned first.
 */
void ksplice_exports_publish(struct ksplice_core *core, u64 objs)
{
	const struct ksplice_update *u = core->update;
	int i = ksplice_exports_obj(u);
	struct module *pin = NULL;

	if (i < 0 || !(objs & BIT_ULL(i)) || core->exports_live)
		return;
	mutex_lock(ksplice_k.module_mutex);
	if (!ksplice_is_vmlinux(u->objs[i].name)) {
		pin = ksplice_k.find_module(u->objs[i].name);
		if (!pin || !try_module_get(pin)) {
			mutex_unlock(ksplice_k.module_mutex);
			pr_warn("%s: module %s is going: its exports stay unpublished\n",
				u->id, u->objs[i].name);
			return;
		}
	}
	if (u->flags & KSPLICE_UPDATE_REPLACE)
		ksplice_exports_take_over(core);
	ksplice_exports_set(u->mod, &u->objs[i]);
	core->exports_live = true;
	core->exports_pin = pin;
	mutex_unlock(ksplice_k.module_mutex);
	pr_info("%s: exports %u names of %s\n", u->id,
		u->objs[i].nr_exports + u->objs[i].nr_gpl_exports,
		u->objs[i].name);
}

/*
 * Before the code goes: its exports are taken back, unless a module uses
 * them (then the update stays, and the user is named).  @force (rmmod -f
 * of the update module) takes them back all the same.
 */
int ksplice_exports_withdraw(struct ksplice_core *core, bool force)
{
	struct module *mod = core->update->mod;
	struct module_use *use;
	char users[128] = "";

	if (!core->exports_live)
		return 0;
	mutex_lock(ksplice_k.module_mutex);
	list_for_each_entry(use, &mod->source_list, source_list) {
		if (strlen(users) + strlen(use->source->name) + 2 >= sizeof(users))
			break;
		if (*users)
			strcat(users, " ");
		strcat(users, use->source->name);
	}
	if (*users && !force) {
		mutex_unlock(ksplice_k.module_mutex);
		return ksplice_set_abort(core, KSPLICE_ABORT_EXPORTS,
					 "modules use its exports: %s", users);
	}
	ksplice_exports_clear(mod);
	core->exports_live = false;
	mutex_unlock(ksplice_k.module_mutex);
	if (core->exports_pin)
		module_put(core->exports_pin);
	core->exports_pin = NULL;
	return 0;
}

/* Undo failed after the exports were taken back: they come back. */
void ksplice_exports_restore(struct ksplice_core *core)
{
	ksplice_exports_publish(core, ksplice_exports_objs(core->update, NULL));
}
