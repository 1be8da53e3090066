// SPDX-License-Identifier: GPL-2.0
/*
 * Pins: the modules an update module's loader linked it to by address.
 *
 * New code's jump labels name their static keys, and the loader registers
 * them with the keys as it loads the update module.  A key the target does
 * not export was resolved by ksplice-apply (see struct ksplice_load_sym).
 * The core checks each such address against kallsyms, and holds the
 * module the key lives in until the update module is gone: not when the
 * update unregisters, but after the jump label code has let go of the
 * keys as the update module goes (the module notifier runs after it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "ksplice.h"

struct ksplice_pin {
	struct list_head list;
	struct module *by;		/* the update module */
	struct module *mod;		/* the module it holds */
};

/* Under ksplice_mutex. */
static LIST_HEAD(ksplice_pins);

/* Holds the module @addr is in, if any (vmlinux needs no holding). */
static int ksplice_pin(struct module *by, const void *addr)
{
	struct ksplice_pin *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct ksplice_pin *old;
	struct module *mod;

	if (!p)
		return -ENOMEM;
	preempt_disable();
	mod = ksplice_k.module_address((unsigned long)addr);
	if (mod && !try_module_get(mod)) {
		preempt_enable();
		kfree(p);
		return -ENOENT;
	}
	preempt_enable();
	list_for_each_entry(old, &ksplice_pins, list) {
		if (old->by == by && old->mod == mod) {
			module_put(mod);
			mod = NULL;
		}
	}
	if (!mod) {
		kfree(p);
		return 0;
	}
	p->by = by;
	p->mod = mod;
	list_add(&p->list, &ksplice_pins);
	return 0;
}

/*
 * Checks every load symbol of @u and pins the modules they are in.  On
 * failure the pins taken stay until the update module goes, which it
 * does: its init fails.
 */
int ksplice_pins_take(const struct ksplice_update *u, char *why, size_t len)
{
	const struct ksplice_load_sym *s;
	unsigned int i;

	for (i = 0; i < u->nr_load_syms; i++) {
		s = &u->load_syms[i];
		if (!ksplice_sym_is(s->target, s->name, (unsigned long)s->addr)) {
			snprintf(why, len,
				 "load symbol %s of %s is not at %px: load the update with ksplice-apply",
				 s->name, s->target, s->addr);
			return -EINVAL;
		}
		if (ksplice_pin(u->mod, s->addr)) {
			snprintf(why, len, "cannot hold the module of %s (%s)",
				 s->name, s->target);
			return -ENOENT;
		}
	}
	return 0;
}

/* @update_mod is going, and the jump label code is done with it. */
void ksplice_pins_release(struct module *update_mod)
{
	struct ksplice_pin *p, *tmp;

	list_for_each_entry_safe(p, tmp, &ksplice_pins, list) {
		if (p->by != update_mod)
			continue;
		list_del(&p->list);
		module_put(p->mod);
		kfree(p);
	}
}
