// SPDX-License-Identifier: GPL-2.0
/*
 * Jump label sites under a jump.  A function with no ftrace site
 * (notrace, noinstr, or in a file built without -pg) that starts with a
 * jump label has nowhere else to take the jump: the jump goes over the
 * site, and ftrace cannot redirect the function instead.  jump_label.c
 * rewrites the site whenever its key changes, and BUG()s when the bytes
 * there are not the form it expects; so while the jump is in, the site is
 * pinned: its jump_entry carries the init bit (jump_entry_set_init()),
 * with which __jump_label_update() skips it once the system runs
 * (jump_label_can_update()), as it skips freed __init code.  The key
 * itself keeps working everywhere else.  Undo writes back the site's form
 * for the key's state at that moment, which may not be the state it was
 * pinned in, and unpins it.
 *
 * Pinning, unpinning and the bytes the site gets are decided under
 * jump_label_mutex, taken in the kernel's order (cpus_read_lock ->
 * jump_label_mutex -> text_mutex, as static_key_enable() does) and held
 * across the stop_machine that writes the jumps, so that no key changes
 * state in between.  Nothing takes it inside stop_machine or in the
 * stack check.
 *
 * Only vmlinux: while a module is coming, the kernel rewrites its sites
 * whatever the bit says (__jump_label_mod_update() and jump_label_update()
 * pass init for a COMING module), and ksplice patches a module's code as
 * the module comes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include "ksplice.h"

#define KSPLICE_JUMP_ENTRY_INIT	2UL	/* jump_entry_set_init()'s bit */

/* What the kernel writes at @p's site for its key's state now. */
static int ksplice_jump_pin_code(const struct ksplice_jump_pin *p, u8 *out)
{
	struct jump_entry *e = p->entry;
	bool jump = static_key_enabled(jump_entry_key(e)) ^
		    jump_entry_is_branch(e);

	return ksplice_arch_jump_label_code(jump_entry_code(e),
					    jump_entry_target(e), p->len, jump,
					    out);
}

/*
 * The jump table is read-only after init: the bit is written through a
 * writable alias of the entry's page.  vmlinux only (see above).
 */
static int ksplice_jump_entry_set_init(struct jump_entry *e, bool set)
{
	unsigned long addr = (unsigned long)&e->key;
	struct page *page = pfn_to_page(__pa_symbol(addr) >> PAGE_SHIFT);
	long *alias;
	void *map;

	map = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (!map)
		return -ENOMEM;
	alias = map + offset_in_page(addr);
	WRITE_ONCE(*alias, set ? e->key | KSPLICE_JUMP_ENTRY_INIT :
				 e->key & ~KSPLICE_JUMP_ENTRY_INIT);
	vunmap(map);
	return jump_entry_is_init(e) == set ? 0 : -EIO;
}

/* The site of @e, @len bytes (0: not a jump label's form), meets the jump. */
static int ksplice_jump_pin_add(struct ksplice_core *core,
				const struct ksplice_func *f,
				struct ksplice_fstate *fs, struct jump_entry *e,
				unsigned int len)
{
	unsigned long code = jump_entry_code(e);
	struct ksplice_jump_pin *p;

	if (!len)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: the jump label at %pS is in no form the kernel writes",
					 f->name, (void *)code);
	if (code < fs->patch_addr ||
	    code + len > fs->patch_addr + KSPLICE_JMP_LEN)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: the jump label at %pS runs past the jump's %d bytes, and no ftrace site",
					 f->name, (void *)code,
					 KSPLICE_JMP_LEN);
	if (jump_entry_is_init(e) || fs->nr_jump_pins == KSPLICE_MAX_JUMP_PINS)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: the jump label at %pS is already pinned",
					 f->name, (void *)code);
	p = &fs->jump_pins[fs->nr_jump_pins++];
	p->entry = e;
	p->off = code - fs->patch_addr;
	p->len = len;
	p->held = false;
	return 0;
}

/*
 * Matching: the jump label sites where @fs's jump goes, each to be pinned
 * while the jump is in.  0, or the abort cause set.
 */
int ksplice_jump_pin_find(struct ksplice_core *core,
			  const struct ksplice_func *f,
			  struct ksplice_fstate *fs)
{
	unsigned long end = fs->patch_addr + KSPLICE_JMP_LEN, code;
	struct jump_entry *e;
	unsigned int len;
	int ret;

	fs->nr_jump_pins = 0;
	if (!ksplice_is_vmlinux(f->target))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: jump label where the jump goes, and no ftrace site: the kernel rewrites a loading module's jump labels even when pinned, so module %s's cannot be",
					 f->name, f->target);
	/* Sorted by key, not address: every entry is looked at. */
	for (e = ksplice_k.start_jump_table; e < ksplice_k.stop_jump_table;
	     e++) {
		code = jump_entry_code(e);
		/* A site is at most as long as the jump. */
		if (code + KSPLICE_JMP_LEN <= fs->patch_addr || code >= end)
			continue;
		len = ksplice_arch_jump_label_len((u8 *)code);
		if (len && code + len <= fs->patch_addr)
			continue;
		ret = ksplice_jump_pin_add(core, f, fs, e, len);
		if (ret)
			return ret;
	}
	if (!fs->nr_jump_pins)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: the kernel reserves the jump's bytes for a jump label, but none is there",
					 f->name);
	return 0;
}

static bool ksplice_has_jump_pins(const struct ksplice_core *core)
{
	unsigned int i;

	for (i = 0; i < core->update->nr_funcs; i++)
		if (core->fs[i].nr_jump_pins)
			return true;
	return false;
}

/*
 * Apply: the site must hold the form of its key's state (or the key
 * changed since matching and nothing else did), and that form is what
 * the jump's place holds before and what undo would put back.
 */
static int ksplice_jump_pin_hold(struct ksplice_core *core,
				 const struct ksplice_func *f,
				 struct ksplice_fstate *fs,
				 struct ksplice_jump_pin *p)
{
	unsigned long code = jump_entry_code(p->entry);
	u8 want[KSPLICE_JMP_LEN];

	if (jump_entry_is_init(p->entry) ||
	    ksplice_arch_jump_label_len((u8 *)code) != p->len ||
	    ksplice_jump_pin_code(p, want) || memcmp((u8 *)code, want, p->len))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: the jump label at %pS changed since matching",
					 f->name, (void *)code);
	if (ksplice_jump_entry_set_init(p->entry, true))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: cannot pin the jump label at %pS",
					 f->name, (void *)code);
	p->held = true;
	memcpy(fs->before + p->off, want, p->len);
	memcpy(fs->saved + p->off, want, p->len);
	return 0;
}

/* Undo: the site gets the form of its key's state now. */
static int ksplice_jump_pin_restore(struct ksplice_core *core,
				    const struct ksplice_func *f,
				    struct ksplice_fstate *fs,
				    struct ksplice_jump_pin *p)
{
	if (ksplice_jump_pin_code(p, fs->saved + p->off))
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: the jump label at %pS is out of reach of its target",
					 f->name, (void *)jump_entry_code(p->entry));
	return 0;
}

static void ksplice_jump_pins_drop(struct ksplice_core *core)
{
	struct ksplice_jump_pin *p;
	unsigned int i, k;

	for (i = 0; i < core->update->nr_funcs; i++) {
		for (k = 0; k < core->fs[i].nr_jump_pins; k++) {
			p = &core->fs[i].jump_pins[k];
			if (p->held && ksplice_jump_entry_set_init(p->entry,
								   false))
				pr_err("%s: cannot unpin the jump label at %pS\n",
				       core->update->id,
				       (void *)jump_entry_code(p->entry));
			p->held = false;
		}
	}
}

/*
 * Before the stop_machine, under cpus_read_lock: takes jump_label_mutex
 * if a jump of @core goes over a jump label, and pins (apply) or readies
 * the bytes of (undo) every such site.  0 with the mutex held, or the
 * abort cause set, nothing pinned and the mutex released.
 */
int ksplice_jump_pins_take(struct ksplice_core *core, bool undo)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_fstate *fs;
	unsigned int i, k;
	int ret = 0;

	if (!ksplice_has_jump_pins(core))
		return 0;
	ksplice_k.jump_label_lock();
	for (i = 0; !ret && i < u->nr_funcs; i++) {
		fs = &core->fs[i];
		for (k = 0; !ret && k < fs->nr_jump_pins; k++)
			ret = undo ? ksplice_jump_pin_restore(core, &u->funcs[i],
						fs, &fs->jump_pins[k]) :
				     ksplice_jump_pin_hold(core, &u->funcs[i],
						fs, &fs->jump_pins[k]);
	}
	if (ret) {
		if (!undo)
			ksplice_jump_pins_drop(core);
		ksplice_k.jump_label_unlock();
	}
	return ret;
}

static void ksplice_jump_pins_log(const struct ksplice_core *core, bool undo)
{
	const struct ksplice_fstate *fs;
	unsigned int i, k;

	for (i = 0; i < core->update->nr_funcs; i++) {
		fs = &core->fs[i];
		for (k = 0; k < fs->nr_jump_pins; k++)
			pr_info("%s: jump label at %pS %s\n",
				core->update->funcs[i].name,
				(void *)jump_entry_code(fs->jump_pins[k].entry),
				undo ? "unpinned, in its key's state" :
				       "pinned under the jump");
	}
}

/*
 * After the stop_machine: the pins go when the jumps did not come in
 * (apply failed) or went out (undo done); then jump_label_mutex goes.
 */
void ksplice_jump_pins_put(struct ksplice_core *core, bool undo, bool done)
{
	if (!ksplice_has_jump_pins(core))
		return;
	if (undo == done)
		ksplice_jump_pins_drop(core);
	ksplice_k.jump_label_unlock();
	if (done)
		ksplice_jump_pins_log(core, undo);
}
