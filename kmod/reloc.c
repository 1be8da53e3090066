// SPDX-License-Identifier: GPL-2.0
/*
 * Relocation of new code: the fields of the replacement that refer to
 * symbols of the running kernel get those symbols' addresses.  The
 * bindings matching learned come first (they say which of several
 * static symbols of a name the code means); other names must be unique.
 * The replacement is in the update module's read-only text, so the
 * fields are written with text_poke().  Every field of a relocation the
 * core owns is zero until then: a call through one would call the next
 * instruction, so no function of the update, replacement or added, may
 * run before this.
 */
#include <linux/slab.h>
#include "ksplice.h"

/*
 * @r's symbol is not the one of its name in the target (@ret of
 * ksplice_sym_unique()): what an applied update added (added.c), else
 * the reason for the abort.
 */
int ksplice_reloc_unresolved(struct ksplice_core *core,
			     const struct ksplice_func *f,
			     const struct ksplice_reloc *r, int ret,
			     unsigned long *sym)
{
	if (ret == -ENOENT) {
		*sym = ksplice_added_addr(f->target, r->symbol, f->unit);
		if (*sym)
			return ksplice_added_use(core,
				ksplice_added_by(f->target, r->symbol, f->unit,
						 *sym),
				r->symbol);
	}
	return ksplice_set_abort(core, KSPLICE_ABORT_FAILED_TO_FIND,
				 "%s+0x%x: symbol %s is %s", f->name,
				 r->offset, r->symbol,
				 ret == -E2BIG ? "ambiguous" : "not found");
}

int ksplice_reloc_sym(struct ksplice_core *core, const struct ksplice_func *f,
		      const struct ksplice_reloc *r, unsigned long *sym)
{
	int ret;

	if (r->flags & KSPLICE_RELOC_EXPORT) {
		ret = ksplice_sym_export(f->target, r->symbol, sym);
		return ret ? ksplice_set_abort(core, KSPLICE_ABORT_FAILED_TO_FIND,
					       "%s+0x%x: %s is %s in %s and the modules it uses",
					       f->name, r->offset, r->symbol,
					       ret == -E2BIG ? "ambiguous" : "not found",
					       f->target) : 0;
	}
	if (ksplice_binding_get(&core->bindings, f, r->symbol, sym))
		return 0;
	ret = ksplice_sym_unique(f->target, r->symbol, sym);
	return ret ? ksplice_reloc_unresolved(core, f, r, ret, sym) : 0;
}

/*
 * Writes one field, unless it already holds the value, or it refers to a
 * symbol whose sites the kernel rewrote already (ftrace nops, inlined
 * returns): a non-zero field there is the kernel's, not a relocation.
 */
static void ksplice_reloc_write(const struct ksplice_func *f,
				const struct ksplice_reloc *r, const u8 *want)
{
	unsigned int w = ksplice_arch_reloc_width(r->type);
	u8 *field = (u8 *)f->new_code + r->offset;
	static const u8 zero[8];

	if (!memcmp(field, want, w))
		return;
	if (ksplice_arch_runtime_symbol(r->symbol) && memcmp(field, zero, w))
		return;
	ksplice_k.text_poke(field, want, w);
}

static int ksplice_relocate_func(struct ksplice_core *core,
				 const struct ksplice_func *f, u8 (*vals)[8])
{
	const struct ksplice_reloc *r;
	unsigned long sym;
	unsigned int i;
	int ret;

	for (i = 0; i < f->nr_new_relocs; i++) {
		r = &f->new_relocs[i];
		ret = ksplice_reloc_sym(core, f, r, &sym);
		if (ret)
			return ret;
		if (ksplice_arch_reloc_encode(r, sym, (unsigned long)f->new_code
					      + r->offset, vals[i]))
			return ksplice_set_abort(core, KSPLICE_ABORT_BAD_UPDATE,
						 "%s+0x%x: %s out of reach",
						 f->name, r->offset, r->symbol);
		cond_resched();
	}
	/* Lookups take module_mutex, which nests outside text_mutex. */
	mutex_lock(ksplice_k.text_mutex);
	for (i = 0; i < f->nr_new_relocs; i++)
		ksplice_reloc_write(f, &f->new_relocs[i], vals[i]);
	mutex_unlock(ksplice_k.text_mutex);
	return 0;
}

/*
 * Functions the update adds are relocated with the functions of their
 * target: @core may be a view of the update restricted to some targets
 * (a module coming), and only then are the target's symbols known.  A
 * target whose object only has hooks is in the view when its hooks run
 * in it (hook_objs of a view; for a whole update, pre-apply marks every
 * object it passed), one with only data when that data is selected (the
 * operation patches it, data.c).
 */
bool ksplice_view_has_target(const struct ksplice_core *core,
			     const char *target)
{
	const struct ksplice_update *u = core->update;
	u64 objs = core->hook_objs | core->hooks_ran[KSPLICE_HOOK_PRE_APPLY];
	unsigned int i;

	for (i = 0; i < u->nr_funcs; i++)
		if (!strcmp(u->funcs[i].target, target))
			return true;
	for (i = 0; i < u->nr_objs; i++)
		if ((objs & BIT_ULL(i)) && !strcmp(u->objs[i].name, target))
			return true;
	/* Data patched in place may point at the target's new functions. */
	for (i = 0; core->ds && i < u->nr_data; i++)
		if (core->ds[i].sel && !strcmp(u->data[i].target, target))
			return true;
	return false;
}

int ksplice_relocate_all(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *f;
	unsigned int i, max = 0;
	u8 (*vals)[8];
	int ret = 0;

	for (i = 0; i < u->nr_funcs; i++)
		max = max(max, u->funcs[i].nr_new_relocs);
	for (i = 0; i < u->nr_new_funcs; i++)
		max = max(max, u->new_funcs[i].nr_new_relocs);
	vals = kvmalloc_array(max + 1, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "relocating");
	for (i = 0; i < u->nr_funcs && !ret; i++)
		ret = ksplice_relocate_func(core, &u->funcs[i], vals);
	for (i = 0; i < u->nr_new_funcs && !ret; i++) {
		f = &u->new_funcs[i];
		if (ksplice_view_has_target(core, f->target))
			ret = ksplice_relocate_func(core, f, vals);
	}
	kvfree(vals);
	return ret;
}
