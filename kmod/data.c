// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only data patched in place (struct ksplice_data): a constant
 * table whose initial value the patch changes and that other data points
 * at (a netlink policy its family refers to, an ops table), so that new
 * code alone, with a copy of its own, would not bring the change.
 *
 * A read-only variable's running value is its initial value, so the
 * change is exact: in the stop that writes the jumps, the running bytes
 * must be the pre image and become the post image; undo checks for the
 * post image and writes the pre image back.  Either check failing stops
 * the whole operation before anything is written: an out-of-order undo
 * of two updates changing the same bytes is refused, never half done.
 *
 * The kernel maps its read-only data read-only (large pages for
 * vmlinux), and text_poke() only handles text: the bytes are written
 * through a writable alias of their pages, vmap()ed before the stop and
 * vunmap()ed after it.
 *
 * A writable variable (KSPLICE_DATA_FIELDS) is the kernel's to change
 * as it runs (a list head once registered), so only its callback fields
 * are checked and written, the same way, and the rest is left alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "ksplice.h"
#include "compat.h"

/* Pages under @size bytes at @addr. */
static unsigned int ksplice_data_pages(unsigned long addr, unsigned int size)
{
	return (offset_in_page(addr) + size + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/* [@start, @end) holds @size bytes at @addr. */
static bool ksplice_data_within(unsigned long addr, unsigned int size,
				unsigned long start, unsigned long end)
{
	return start && addr >= start && addr < end && size <= end - addr;
}

/*
 * Are @size bytes at @addr read-only data of @target?  vmlinux's lie
 * between __start_rodata and __end_rodata, which hold __ro_after_init
 * too (x86's RO_DATA): that is set at boot, its initial value is not its
 * running one.  A module's are its own part of its layout.
 */
static bool ksplice_data_rodata(const char *target, unsigned long addr,
				unsigned int size)
{
	unsigned long start, end;
	struct module *mod;
	bool ret;

	if (ksplice_is_vmlinux(target)) {
		start = ksplice_lookup_name("__start_ro_after_init");
		end = ksplice_lookup_name("__end_ro_after_init");
		if (!start || !end || (addr < end && start < addr + size))
			return false;
		return ksplice_data_within(addr, size,
					   ksplice_lookup_name("__start_rodata"),
					   ksplice_lookup_name("__end_rodata"));
	}
	mutex_lock(ksplice_k.module_mutex);
	mod = ksplice_k.find_module(target);
	ret = false;
	if (mod) {
		ksplice_mod_rodata(mod, &start, &end);
		ret = ksplice_data_within(addr, size, start, end);
	}
	mutex_unlock(ksplice_k.module_mutex);
	return ret;
}

/*
 * Are @size bytes at @addr writable data of @target: vmlinux's .data or
 * .bss, a module's own data?
 */
static bool ksplice_data_rw(const char *target, unsigned long addr,
			    unsigned int size)
{
	unsigned long start, end;
	struct module *mod;
	bool ret = false;

	if (ksplice_is_vmlinux(target))
		return ksplice_data_within(addr, size,
					   ksplice_lookup_name("_sdata"),
					   ksplice_lookup_name("_edata")) ||
		       ksplice_data_within(addr, size,
					   ksplice_lookup_name("__bss_start"),
					   ksplice_lookup_name("__bss_stop"));
	mutex_lock(ksplice_k.module_mutex);
	mod = ksplice_k.find_module(target);
	if (mod) {
		ksplice_mod_data(mod, &start, &end);
		ret = ksplice_data_within(addr, size, start, end);
	}
	mutex_unlock(ksplice_k.module_mutex);
	return ret;
}

static bool ksplice_data_fields(const struct ksplice_data *d)
{
	return d->flags & KSPLICE_DATA_FIELDS;
}

/* Where @d may lie in its target: read-only data, or writable data. */
static bool ksplice_data_place(const struct ksplice_data *d,
			       unsigned long addr)
{
	return ksplice_data_fields(d) ? ksplice_data_rw(d->target, addr, d->size) :
	       ksplice_data_rodata(d->target, addr, d->size);
}

/*
 * Is @addr in text, vmlinux's or a module's (a function an update adds
 * too)?  A callback field's symbol must be a function: ksplice-create
 * cannot tell one it does not define from data.
 */
static bool ksplice_data_is_text(unsigned long addr)
{
	unsigned long s = ksplice_lookup_name("_stext");
	unsigned long e = ksplice_lookup_name("_etext");
	struct module *mod;
	bool ret;

	if (s && e && addr >= s && addr < e)
		return true;
	preempt_disable();
	mod = ksplice_k.module_address(addr);
	ret = mod && ksplice_mod_in_text(mod, addr, 1);
	preempt_enable();
	return ret;
}

/*
 * Does a symbol start at @addr with room for @size bytes before the
 * next one?  Of a writable variable, whose other bytes are the kernel's,
 * this and its fields are all that can be checked; of a read-only one,
 * it keeps the whole image written from reaching the next variable.
 */
static bool ksplice_data_fits(unsigned long addr, unsigned int size)
{
	unsigned long sz, off;
	char *modname, *buf;
	bool ret;

	buf = kmalloc(KSYM_NAME_LEN, GFP_KERNEL);
	if (!buf)
		return false;
	ret = ksplice_k.kallsyms_lookup(addr, &sz, &off, &modname, buf) &&
	      !off && sz >= size;
	kfree(buf);
	return ret;
}

/* Do the bytes of @relocs' fields differ between @a and @b? */
static bool ksplice_fields_differ(const struct ksplice_reloc *relocs,
				  unsigned int nr, const u8 *a, const u8 *b)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (memcmp(a + relocs[i].offset, b + relocs[i].offset, 8))
			return true;
	return false;
}

/*
 * Does @running differ from @img in what @d changes: the whole variable,
 * or its callback fields?
 */
static bool ksplice_data_differs(const struct ksplice_data *d,
				 const void *running, const u8 *img)
{
	if (!ksplice_data_fields(d))
		return memcmp(running, img, d->size);
	return ksplice_fields_differ(d->pre_relocs, d->nr_pre_relocs,
				     running, img) ||
	       ksplice_fields_differ(d->post_relocs, d->nr_post_relocs,
				     running, img);
}

static void ksplice_fields_copy(const struct ksplice_reloc *relocs,
				unsigned int nr, u8 *to, const u8 *from)
{
	unsigned int i;

	/* One store each: an NMI may read a callback during the stop. */
	for (i = 0; i < nr; i++)
		WRITE_ONCE(*(u64 *)(to + relocs[i].offset),
			   get_unaligned((const u64 *)(from + relocs[i].offset)));
}

/* Writes what @d changes of @img to @to (in the stop: nothing reads). */
static void ksplice_data_copy(const struct ksplice_data *d, u8 *to,
			      const u8 *img)
{
	if (!ksplice_data_fields(d)) {
		memcpy(to, img, d->size);
		return;
	}
	ksplice_fields_copy(d->pre_relocs, d->nr_pre_relocs, to, img);
	ksplice_fields_copy(d->post_relocs, d->nr_post_relocs, to, img);
}

/*
 * The page under @p: a module's is vmalloc()ed; vmlinux's lies in the
 * kernel image mapping, which __pa() (so virt_to_page()) translates.
 */
static struct page *ksplice_data_page(unsigned long p)
{
	if (is_vmalloc_addr((void *)p) ||
	    (p >= MODULES_VADDR && p < MODULES_END))
		return vmalloc_to_page((void *)p);
	return virt_to_page((void *)p);
}

int ksplice_dstates_build(struct ksplice_core *core, char *why, size_t len)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_dstate *ds;
	unsigned int i, size;

	core->ds = kvcalloc(max(u->nr_data, 1U), sizeof(*core->ds),
			    GFP_KERNEL);
	for (i = 0; core->ds && i < u->nr_data; i++) {
		ds = &core->ds[i];
		size = u->data[i].size;
		ds->pre = kvmalloc(size, GFP_KERNEL);
		ds->post = kvmalloc(size, GFP_KERNEL);
		/* The variable may start anywhere in its first page. */
		ds->pages = kvcalloc(ksplice_data_pages(PAGE_SIZE - 1, size),
				     sizeof(*ds->pages), GFP_KERNEL);
		if (!ds->pre || !ds->post || !ds->pages)
			break;
	}
	if (core->ds && i == u->nr_data)
		return 0;
	snprintf(why, len, "out of memory");
	return -ENOMEM;
}

void ksplice_dstates_free(struct ksplice_core *core)
{
	unsigned int i;

	if (!core->ds)
		return;
	for (i = 0; i < core->update->nr_data; i++) {
		kvfree(core->ds[i].pre);
		kvfree(core->ds[i].post);
		kvfree(core->ds[i].pages);
	}
	kvfree(core->ds);
	core->ds = NULL;
}

/*
 * Marks the data an operation changes: for an apply, what is not in yet
 * of @target (NULL: of every loaded target); for an undo, what is in.
 * Returns how many.
 */
unsigned int ksplice_data_select(struct ksplice_core *core, const char *target,
				 bool undo)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_dstate *ds;
	unsigned int i, n = 0;

	for (i = 0; i < u->nr_data; i++) {
		ds = &core->ds[i];
		if (undo)
			ds->sel = ds->live;
		else if (ds->live)
			ds->sel = false;
		else
			ds->sel = target ? !strcmp(u->data[i].target, target) :
				  ksplice_target_present(u->data[i].target);
		n += ds->sel;
	}
	return n;
}

/* Bindings are per target and unit, which a function stands for. */
static struct ksplice_func ksplice_data_func(const struct ksplice_data *d)
{
	return (struct ksplice_func){ .name = d->name, .target = d->target,
				      .unit = d->unit };
}

/*
 * Is @sym what @name means to @d's unit: a symbol of that name, or what
 * an applied update added under it (a callback an earlier update's field
 * points at: that update cannot be undone first, its field is this
 * one's pre value)?
 */
static bool ksplice_data_sym_is(const struct ksplice_data *d,
				const char *name, unsigned long sym)
{
	return ksplice_sym_is(d->target, name, sym) ||
	       ksplice_added_by(d->target, name, d->unit, sym);
}

/*
 * Does @val, read from the field of @r, hold what @r names to @d's unit
 * (the symbol bound in the unit, if any)?
 */
static bool ksplice_data_holds(struct ksplice_core *core,
			       const struct ksplice_data *d,
			       const struct ksplice_reloc *r, u64 val)
{
	struct ksplice_func f = ksplice_data_func(d);
	unsigned long sym = val - r->addend, bound;

	if (ksplice_binding_get(&core->bindings, &f, r->symbol, &bound))
		return bound == sym;
	return ksplice_data_sym_is(d, r->symbol, sym);
}

/* The first anchor of @d the running variable at @addr lacks, or NULL. */
static const struct ksplice_reloc *
ksplice_data_anchor_lost(struct ksplice_core *core,
			 const struct ksplice_data *d, unsigned long addr)
{
	const struct ksplice_reloc *r;
	unsigned int i;

	for (i = 0; i < d->nr_anchors; i++) {
		r = &d->anchors[i];
		if (!ksplice_data_holds(core, d, r,
					get_unaligned((u64 *)(addr + r->offset))))
			return r;
	}
	return NULL;
}

/*
 * Is each symbol the pre relocations of @d name, as read back from the
 * running bytes at @addr, that symbol, and so each anchor?  As for pre
 * code: a byte that cannot be proven is a mismatch.  Writes the pre
 * image for @addr to @img.
 */
static bool ksplice_data_pre_image(struct ksplice_core *core,
				   const struct ksplice_data *d,
				   unsigned long addr, u8 *img)
{
	const struct ksplice_reloc *r;
	unsigned int i;
	u64 val;

	memcpy(img, d->pre, d->size);
	for (i = 0; i < d->nr_pre_relocs; i++) {
		r = &d->pre_relocs[i];
		val = get_unaligned((u64 *)(addr + r->offset));
		if (!ksplice_data_holds(core, d, r, val))
			return false;
		if (ksplice_data_fields(d) &&
		    !ksplice_data_is_text(val - r->addend))
			return false;
		put_unaligned(val, (u64 *)(img + r->offset));
	}
	/* The image is written whole (read-only) or as 8-byte stores. */
	if (!ksplice_data_fits(addr, d->size) ||
	    (ksplice_data_fields(d) && addr % 8) ||
	    ksplice_data_anchor_lost(core, d, addr))
		return false;
	return !ksplice_data_differs(d, (void *)addr, img);
}

/* Binds what the running fields of @relocs at @addr hold, if unbound. */
static int ksplice_data_bind(struct ksplice_core *core,
			     const struct ksplice_data *d, unsigned long addr,
			     const struct ksplice_reloc *relocs,
			     unsigned int nr)
{
	struct ksplice_func f = ksplice_data_func(d);
	unsigned long sym;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		if (ksplice_binding_get(&core->bindings, &f, relocs[i].symbol,
					&sym))
			continue;
		sym = get_unaligned((u64 *)(addr + relocs[i].offset)) -
		      relocs[i].addend;
		ret = ksplice_binding_add(&core->bindings, &f, relocs[i].symbol,
					  sym);
	}
	return ret;
}

/* What the pre relocations and the variable itself turned out to be. */
static int ksplice_data_learn(struct ksplice_core *core,
			      const struct ksplice_data *d, unsigned long addr)
{
	struct ksplice_func f = ksplice_data_func(d);
	unsigned long sym;
	int ret = 0;

	if (!ksplice_binding_get(&core->bindings, &f, d->name, &sym))
		ret = ksplice_binding_add(&core->bindings, &f, d->name, addr);
	ret = ret ?: ksplice_data_bind(core, d, addr, d->pre_relocs,
				       d->nr_pre_relocs);
	ret = ret ?: ksplice_data_bind(core, d, addr, d->anchors,
				       d->nr_anchors);
	return ret ? ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
				       "binding %s", d->name) : 0;
}

/* The applied update, other than @core, whose data covers @addr. */
static struct ksplice_core *ksplice_data_owner(const struct ksplice_core *core,
					       unsigned long addr,
					       unsigned int size)
{
	struct ksplice_core *other, *last = NULL;
	unsigned int i;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other->ds == core->ds)
			continue;
		for (i = 0; i < other->update->nr_data; i++) {
			const struct ksplice_dstate *ds = &other->ds[i];

			if (ds->live && ds->addr < addr + size &&
			    addr < ds->addr + other->update->data[i].size &&
			    (!last || other->seq > last->seq))
				last = other;
		}
	}
	return last;
}

/* Why none of the @n variables called d->name at @addrs is the one. */
static int ksplice_data_no_match(struct ksplice_core *core,
				 const struct ksplice_data *d,
				 const unsigned long *addrs, int n)
{
	const struct ksplice_reloc *lost;
	struct ksplice_core *owner;

	if (n == 1 && !ksplice_data_place(d, addrs[0]))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s (%s): not in %s data: it cannot be patched in place",
					 d->name, d->target,
					 ksplice_data_fields(d) ? "writable" : "read-only");
	owner = n == 1 ? ksplice_data_owner(core, addrs[0], d->size) : NULL;
	if (owner)
		return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
					 "%s: update %s changed it: its running bytes are not this update's pre image",
					 d->name, owner->update->id);
	lost = n == 1 ? ksplice_data_anchor_lost(core, d, addrs[0]) : NULL;
	if (lost)
		return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
					 "%s (%s): its field at +0x%x does not hold %s: not the variable the update was built for, or the kernel changed it",
					 d->name, d->target, lost->offset,
					 lost->symbol);
	return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
				 "%s (%s): no variable of that name holds the pre image (%d of that name)",
				 d->name, d->target, n);
}

/*
 * Finds the running variable of @d: the one bound in its unit, or else
 * the only one of its name in read-only data of its target whose bytes
 * are the pre image (a static name may be several variables).  Writes
 * its address and pre image to @ds.
 */
static int ksplice_data_locate(struct ksplice_core *core,
			       const struct ksplice_data *d,
			       struct ksplice_dstate *ds)
{
	struct ksplice_func f = ksplice_data_func(d);
	unsigned long addrs[KSPLICE_MAX_CANDIDATES], found = 0;
	int n, k, hits = 0;

	if (ksplice_binding_get(&core->bindings, &f, d->name, &addrs[0]))
		n = 1;
	else
		n = ksplice_sym_addrs(d->target, d->name, addrs,
				      ARRAY_SIZE(addrs));
	if (n <= 0 || n > ARRAY_SIZE(addrs))
		return ksplice_set_abort(core, KSPLICE_ABORT_FAILED_TO_FIND,
					 "%s (%s): %s", d->name, d->target,
					 n > 0 ? "too many variables of that name" :
					 "not found");
	/*
	 * Only some fields of a writable variable are compared: too little
	 * to tell several of one name apart.
	 */
	if (n > 1 && ksplice_data_fields(d))
		return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
					 "%s (%s): ambiguous: %d writable variables of that name, none bound by matching",
					 d->name, d->target, n);
	for (k = 0; k < n; k++) {
		if (ksplice_data_place(d, addrs[k]) &&
		    ksplice_data_pre_image(core, d, addrs[k], ds->pre)) {
			hits++;
			found = addrs[k];
		}
	}
	if (!hits)
		return ksplice_data_no_match(core, d, addrs, n);
	if (hits > 1)
		return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
					 "%s (%s): ambiguous: %d variables of that name hold the pre image",
					 d->name, d->target, hits);
	ksplice_data_pre_image(core, d, found, ds->pre);
	ds->addr = found;
	return ksplice_data_learn(core, d, found);
}

/*
 * A function this update adds, of @d's target, named @name: of @d's
 * unit (its static or its global) if @own, else a global of another
 * unit.  Its code in the update module, or 0.
 */
static unsigned long ksplice_data_new_func(const struct ksplice_core *core,
					   const struct ksplice_data *d,
					   const char *name, bool own)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *f;
	unsigned int i;

	for (i = 0; i < u->nr_new_funcs; i++) {
		f = &u->new_funcs[i];
		if (strcmp(f->name, name) || strcmp(f->target, d->target))
			continue;
		if (own ? !strcmp(f->unit, d->unit) :
			  (f->flags & KSPLICE_FUNC_GLOBAL) &&
			  strcmp(f->unit, d->unit))
			return (unsigned long)f->new_code;
	}
	return 0;
}

/*
 * What post relocation @r of @d names, as C would: a function @d's unit
 * adds; else what the running kernel has (the unit's binding, or the one
 * symbol of the name); else a global another unit adds.  Only a name the
 * kernel lacks goes to another unit: an existing static of @d's unit
 * must not become another unit's new global of the same name.  @ds
 * records a function of the update: its module stays while a task may
 * have called it through the variable (drain.c).
 */
static int ksplice_data_post_sym(struct ksplice_core *core,
				 const struct ksplice_data *d,
				 struct ksplice_dstate *ds,
				 const struct ksplice_reloc *r,
				 unsigned long *sym)
{
	struct ksplice_func f = ksplice_data_func(d);
	int ret;

	*sym = ksplice_data_new_func(core, d, r->symbol, true);
	if (!*sym) {
		if (ksplice_binding_get(&core->bindings, &f, r->symbol, sym))
			return 0;
		ret = ksplice_sym_unique(d->target, r->symbol, sym);
		if (ret != -ENOENT)
			return ret ? ksplice_reloc_unresolved(core, &f, r, ret,
							      sym) : 0;
		*sym = ksplice_data_new_func(core, d, r->symbol, false);
		if (!*sym)
			return ksplice_reloc_unresolved(core, &f, r, ret, sym);
	}
	ds->into_update = true;
	return 0;
}

/*
 * The post image: relocations to a function the update adds point at
 * it (relocated with its target before this), the others are resolved
 * as for new code (reloc.c).
 */
static int ksplice_data_post_image(struct ksplice_core *core,
				   const struct ksplice_data *d,
				   struct ksplice_dstate *ds)
{
	const struct ksplice_reloc *r;
	unsigned long sym;
	unsigned int i;
	int ret;

	memcpy(ds->post, d->post, d->size);
	for (i = 0; i < d->nr_post_relocs; i++) {
		r = &d->post_relocs[i];
		ret = ksplice_data_post_sym(core, d, ds, r, &sym);
		if (ret)
			return ret;
		if (ksplice_data_fields(d) && !ksplice_data_is_text(sym))
			return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
						 "%s+0x%x: %s is not a function: not a callback",
						 d->name, r->offset, r->symbol);
		put_unaligned((u64)(sym + r->addend), (u64 *)(ds->post + r->offset));
	}
	return 0;
}

/* A writable alias of the pages under the variable, for the stop. */
static int ksplice_data_map(struct ksplice_core *core,
			    const struct ksplice_data *d,
			    struct ksplice_dstate *ds)
{
	unsigned int i, n = ksplice_data_pages(ds->addr, d->size);
	unsigned long p = ds->addr & PAGE_MASK;

	for (i = 0; i < n; i++, p += PAGE_SIZE) {
		ds->pages[i] = ksplice_data_page(p);
		if (!ds->pages[i])
			return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
						 "%s: no page under it", d->name);
	}
	ds->alias = vmap(ds->pages, n, VM_MAP, PAGE_KERNEL);
	if (!ds->alias)
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "%s: mapping", d->name);
	return 0;
}

/* Two variables of one update must not overlap: each is written whole. */
static int ksplice_data_overlap(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_dstate *a, *b;
	unsigned int i, j;

	for (i = 0; i < u->nr_data; i++) {
		a = &core->ds[i];
		for (j = 0; j < i; j++) {
			b = &core->ds[j];
			if (!a->addr || !b->addr ||
			    a->addr >= b->addr + u->data[j].size ||
			    b->addr >= a->addr + u->data[i].size)
				continue;
			return ksplice_set_abort(core, KSPLICE_ABORT_BAD_UPDATE,
						 "%s and %s overlap",
						 u->data[i].name, u->data[j].name);
		}
	}
	return 0;
}

/*
 * Before the stop: finds the selected variables and their images for an
 * apply; checks that the running bytes are what the operation expects
 * (the stop checks again); maps them writable.
 */
int ksplice_data_prepare(struct ksplice_core *core, bool undo)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_dstate *ds;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < u->nr_data && !ret; i++) {
		ds = &core->ds[i];
		if (!ds->sel)
			continue;
		if (!undo)
			ret = ksplice_data_locate(core, &u->data[i], ds) ?:
			      ksplice_data_post_image(core, &u->data[i], ds);
		if (!ret && ksplice_data_differs(&u->data[i], (void *)ds->addr,
						 undo ? ds->post : ds->pre))
			ret = ksplice_data_stale(core, i, undo);
		if (!ret)
			ret = ksplice_data_map(core, &u->data[i], ds);
		cond_resched();
	}
	return ret ?: ksplice_data_overlap(core);
}

/*
 * After the operation, whether or not it went through (@ret): unmaps,
 * and records what is in.  A failed apply forgets the addresses, as
 * matching's.
 */
void ksplice_data_finish(struct ksplice_core *core, bool undo, int ret)
{
	struct ksplice_dstate *ds;
	unsigned int i;

	for (i = 0; i < core->update->nr_data; i++) {
		ds = &core->ds[i];
		if (!ds->sel)
			continue;
		if (ds->alias)
			vunmap(ds->alias);
		ds->alias = NULL;
		if (!ret) {
			ds->live = !undo;
			ds->seq = undo ? 0 : ksplice_stack_next_seq();
		}
		if (ret && !undo)
			ds->addr = 0;
		ds->sel = false;
	}
}

/*
 * In the stop: the index of the first selected variable whose running
 * bytes are not what the operation expects, or -1.
 */
int ksplice_data_check(const struct ksplice_core *core, bool undo)
{
	const struct ksplice_dstate *ds;
	unsigned int i;

	for (i = 0; i < core->update->nr_data; i++) {
		ds = &core->ds[i];
		if (ds->sel && ksplice_data_differs(&core->update->data[i],
						    (void *)ds->addr,
						    undo ? ds->post : ds->pre))
			return i;
	}
	return -1;
}

/* In the stop, every check passed: the other CPUs spin, with no reader. */
void ksplice_data_write(const struct ksplice_core *core, bool undo)
{
	const struct ksplice_dstate *ds;
	unsigned int i;

	for (i = 0; i < core->update->nr_data; i++) {
		ds = &core->ds[i];
		if (ds->sel)
			ksplice_data_copy(&core->update->data[i],
					  ds->alias + offset_in_page(ds->addr),
					  undo ? ds->pre : ds->post);
	}
}

/* Variable @i's running bytes are not what the operation expects. */
int ksplice_data_stale(struct ksplice_core *core, int i, bool undo)
{
	const struct ksplice_data *d = &core->update->data[i];
	struct ksplice_core *owner;

	owner = ksplice_data_owner(core, core->ds[i].addr, d->size);
	if (owner && undo)
		return ksplice_set_abort(core, KSPLICE_ABORT_ALREADY_APPLIED,
					 "%s: update %s changed it on top of this one; reverse it first",
					 d->name, owner->update->id);
	if (owner)
		return ksplice_set_abort(core, KSPLICE_ABORT_NO_MATCH,
					 "%s: update %s changed it: its running bytes are not this update's pre image",
					 d->name, owner->update->id);
	return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
				 "%s: its running bytes are not this update's %s image",
				 d->name, undo ? "post" : "pre");
}

/*
 * A cumulative update takes the place of every applied one, and has no
 * data of its own (validate.c): data another one patched would stay
 * patched under an update marked reversed.  Refused until it can take
 * that data over.
 */
int ksplice_data_check_replace(struct ksplice_core *core)
{
	struct ksplice_core *other;
	unsigned int i;

	list_for_each_entry(other, &ksplice_updates, list) {
		if (other->ds == core->ds ||
		    other->stage != KSPLICE_STAGE_APPLIED)
			continue;
		for (i = 0; i < other->update->nr_data; i++)
			if (other->ds[i].live)
				return ksplice_set_abort(core,
					KSPLICE_ABORT_UNPATCHABLE,
					"update %s patched %s in place, which a cumulative update cannot take over yet; reverse it first",
					other->update->id,
					other->update->data[i].name);
	}
	return 0;
}

/* Has @core data in @target? */
bool ksplice_data_in(const struct ksplice_core *core, const char *target)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_data; i++)
		if (!strcmp(core->update->data[i].target, target))
			return true;
	return false;
}

/* Module @target is going: its data goes with it, and a reload is new. */
void ksplice_data_going(struct ksplice_core *core, const char *target)
{
	const struct ksplice_update *u = core->update;
	unsigned int i;

	for (i = 0; i < u->nr_data; i++) {
		if (strcmp(u->data[i].target, target))
			continue;
		if (core->ds[i].live)
			pr_info("%s: module %s unloaded, %s with it\n", u->id,
				target, u->data[i].name);
		core->ds[i].live = false;
		core->ds[i].addr = 0;
	}
}

/*
 * Did a post image of @core point at a function the update adds?  Once
 * one did, a task may have called it through the variable, until the
 * drain finds none in the update's code.
 */
bool ksplice_data_into_update(const struct ksplice_core *core)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_data; i++)
		if (core->ds[i].into_update)
			return true;
	return false;
}
