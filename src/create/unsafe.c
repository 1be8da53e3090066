// SPDX-License-Identifier: GPL-2.0
/*
 * Changed functions that must never be patched live: those in
 * include/ksplice-unpatchable.h's table (what runs while ksplice patches),
 * and those the kernel marks NOKPROBE_SYMBOL(): the kernel's own list of
 * code on the int3, debug and NMI paths.  NMIs are not stopped by
 * stop_machine(), so a jump written into such code may be fetched half
 * written on another CPU.
 */
#include <string.h>

#include "ksplice-unpatchable.h"
#include "unsafe.h"
#include "util.h"

static const struct ksplice_unpatchable table[] = KSPLICE_UNPATCHABLE_TABLE;

/*
 * Sections whose code a copy elsewhere cannot stand in for.  (Other shared
 * sections -- .sched.text, .noinstr.text, .spinlock.text, ... -- are fine:
 * new code keeps its section's name in the update module; shared.c.)
 */
static const struct {
	const char *name, *why;
} sections[] = {
	{ ".entry.text", "it is entry code, which page-table isolation maps into user space: a copy in a module is not mapped there" },
	{ ".kprobes.text", "it runs on the kprobe (int3) path, which stop_machine() does not stop" },
};

/* Whether a pointer in _kprobe_blacklist (one per NOKPROBE_SYMBOL) is @f. */
static bool reloc_is(const struct reloc *r, const struct symbol *f)
{
	unsigned long at = r->addend;

	if (!r->sym || r->sym->sec != f->sec)
		return false;
	if (r->sym->type != STT_SECTION)
		at += r->sym->st.st_value;
	return at == f->st.st_value;
}

static bool nokprobe(const struct object *obj, const struct symbol *f)
{
	const struct section *bl = elf_find_section(obj, "_kprobe_blacklist");
	size_t i;

	if (!bl || !f->sec)
		return false;
	for (i = 0; i < bl->nr_relocs; i++)
		if (reloc_is(&bl->relocs[i], f))
			return true;
	return false;
}

static const char *why_unsafe(const struct unit *u, const struct symbol *f)
{
	const char *why = NULL;
	size_t i;

	if (!strcmp(u->target, "vmlinux"))
		why = ksplice_unpatchable(table, ARRAY_SIZE(table), u->source,
					  f->name);
	for (i = 0; !why && f->sec && i < ARRAY_SIZE(sections); i++)
		if (!strcmp(f->sec->name, sections[i].name))
			why = sections[i].why;
	if (!why && nokprobe(&u->pre, f))
		why = "the kernel marks it NOKPROBE_SYMBOL: it runs on the int3 or NMI path, which stop_machine() does not stop";
	return why;
}

int unsafe_check(const struct update *u)
{
	size_t i, k;
	int n = 0;

	for (i = 0; i < u->nr_units; i++) {
		const struct unit *unit = &u->units[i];

		for (k = 0; k < unit->diff.nr_changes; k++) {
			const struct change *c = &unit->diff.changes[k];
			const char *why;

			if (c->kind != FUNC_CHANGED)
				continue;
			why = why_unsafe(unit, c->pre);
			if (!why)
				continue;
			error("%s (%s) cannot be patched live: %s",
			      c->pre->name, unit->source, why);
			n++;
		}
	}
	return n;
}
