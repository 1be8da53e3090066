// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol bindings: the address each name of an update turned out to have
 * in the running code.  A static name can exist several times in the
 * kernel; matching learns which one the pre code meant, and everything
 * else of the same unit (the same target and source file) must agree
 * with it.  Other units may have a static of the same name.
 */
#include <linux/slab.h>
#include <linux/stringhash.h>
#include "ksplice.h"

struct ksplice_binding {
	struct hlist_node node;
	const char *target;		/* strings of the update module */
	const char *unit;
	const char *name;
	unsigned long addr;
};

static u32 ksplice_binding_hash(const char *unit, const char *name)
{
	return full_name_hash(NULL, name, strlen(name)) ^
	       full_name_hash(NULL, unit, strlen(unit));
}

static bool ksplice_binding_is(const struct ksplice_binding *e,
			       const struct ksplice_func *f, const char *name)
{
	return !strcmp(e->name, name) && !strcmp(e->unit, f->unit) &&
	       !strcmp(e->target, f->target);
}

void ksplice_bindings_init(struct ksplice_bindings *b)
{
	hash_init(b->tab);
}

void ksplice_bindings_clear(struct ksplice_bindings *b)
{
	struct ksplice_binding *e;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(b->tab, bkt, tmp, e, node) {
		hash_del(&e->node);
		kfree(e);
	}
}

bool ksplice_binding_get(struct ksplice_bindings *b,
			 const struct ksplice_func *f, const char *name,
			 unsigned long *addr)
{
	struct ksplice_binding *e;

	hash_for_each_possible(b->tab, e, node, ksplice_binding_hash(f->unit, name)) {
		if (ksplice_binding_is(e, f, name)) {
			*addr = e->addr;
			return true;
		}
	}
	return false;
}

/* The caller checked that the name is not bound yet. */
int ksplice_binding_add(struct ksplice_bindings *b,
			const struct ksplice_func *f, const char *name,
			unsigned long addr)
{
	struct ksplice_binding *e = kmalloc(sizeof(*e), GFP_KERNEL);

	if (!e)
		return -ENOMEM;
	e->target = f->target;
	e->unit = f->unit;
	e->name = name;
	e->addr = addr;
	hash_add(b->tab, &e->node, ksplice_binding_hash(f->unit, name));
	return 0;
}

/* Moves every binding of @from (names not in @to) into @to. */
void ksplice_bindings_move(struct ksplice_bindings *to,
			   struct ksplice_bindings *from)
{
	struct ksplice_binding *e;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(from->tab, bkt, tmp, e, node) {
		hash_del(&e->node);
		hash_add(to->tab, &e->node,
			 ksplice_binding_hash(e->unit, e->name));
	}
}

/* Calls @fn on every binding of @b until it returns non-zero. */
int ksplice_bindings_each(struct ksplice_bindings *b,
			  int (*fn)(void *data, const char *target,
				    const char *name, unsigned long addr),
			  void *data)
{
	struct ksplice_binding *e;
	int bkt, ret;

	hash_for_each(b->tab, bkt, e, node) {
		ret = fn(data, e->target, e->name, e->addr);
		if (ret)
			return ret;
	}
	return 0;
}
