// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "ksplice-update.h"
#include "special.h"

const struct special special_sections[] = {
	/* the compiler's -mrecord-mcount: ftrace nops these calls at boot */
	{ .name = "__mcount_loc", .entry_size = 8, .site_kind = KSPLICE_SITE_MCOUNT },
	/* objtool: alternative.c's apply_returns() rewrites these */
	{ .name = ".return_sites", .entry_size = 4, .site_kind = KSPLICE_SITE_RETURN },
	/* objtool: alternative.c's apply_retpolines() rewrites these */
	{ .name = ".retpoline_sites", .entry_size = 4, .site_kind = KSPLICE_SITE_RETPOLINE },
	/*
	 * objtool: static_call_init() points these at the key's function.
	 * Their keys are not exported, so new code keeps calling through the
	 * (exported) trampoline, which always jumps to the current function.
	 */
	{ .name = ".static_call_sites", .entry_size = 8,
	  .site_kind = KSPLICE_SITE_STATIC_CALL, .pre_only = true },
	/*
	 * objtool (--hacks=skylake): callthunks.c aims these direct calls at
	 * the callee's call depth accounting thunk when that mitigation is on.
	 * New code's calls go straight to the function: it only loses the
	 * accounting, as calls from code the thunks do not know do.
	 */
	{ .name = ".call_sites", .entry_size = 4, .site_kind = KSPLICE_SITE_CALL,
	  .pre_only = true },
	/*
	 * alternative.c's apply_alternatives(): the original bytes or the
	 * replacement in .altinstr_replacement, padded with nops.
	 */
	{ .name = ".altinstructions", .entry_size = 12, .site_kind = KSPLICE_SITE_ALT,
	  .new = { 4, 4 }, .aux = { 8, 2 }, .len = { 10, 1 }, .new_len = { 11, 1 } },
	/* lock prefixes: alternatives_smp_unlock() makes them ds on UP */
	{ .name = ".smp_locks", .entry_size = 4, .site_kind = KSPLICE_SITE_LOCK },
	/* apply_paravirt(): paravirt_patch() of the pv_ops call */
	{ .name = ".parainstructions", .entry_size = 16, .site_kind = KSPLICE_SITE_PARAVIRT,
	  .aux = { 8, 1 }, .len = { 9, 1 } },
	/*
	 * jump_label.c: nop or jmp at the site.  A key of new code must be
	 * exported (the loader resolves it) or its reference is refused.
	 */
	{ .name = "__jump_table", .entry_size = 16, .site_kind = KSPLICE_SITE_JUMP_LABEL,
	  .new = { 4, 4 } },
	/* objtool's ORC data: the unwinder needs it to walk new code */
	{ .name = ".orc_unwind_ip", .entry_size = 4, .parallel = ".orc_unwind", .parallel_size = 6 },
	/* exception fixups: a faulting user access in new code recovers */
	{ .name = "__ex_table", .entry_size = 12 },
	/* WARN and BUG sites */
	{ .name = "__bug_table", .entry_size = 12 },
};

const unsigned int nr_special_sections =
	sizeof(special_sections) / sizeof(special_sections[0]);

void special_for_each(const struct object *obj, const struct special *sp,
		      const struct symbol *func, special_fn fn, void *arg)
{
	const struct section *sec = elf_find_section(obj, sp->name);
	unsigned long start = func->st.st_value;
	unsigned long end = start + func->st.st_size;
	unsigned long e;

	if (!sec)
		return;
	for (e = 0; e + sp->entry_size <= sec->size; e += sp->entry_size) {
		const struct reloc *r = elf_reloc_at(sec, e + sp->key_offset);
		long at;

		if (!r || r->sym->sec != func->sec)
			continue;
		/* PC-relative entries point at S + A; absolute ones too. */
		at = (long)r->sym->st.st_value + r->addend;
		if (r->sym->type == STT_SECTION)
			at = r->addend;
		if (at >= (long)start && at < (long)end)
			fn(sp, sec, e, at - start, arg);
	}
}

/* Little-endian, as every field of x86's tables. */
unsigned int special_field(const unsigned char *entry, struct special_field f)
{
	unsigned int v = 0, i;

	for (i = f.width; i-- > 0;)
		v = v << 8 | entry[f.offset + i];
	return v;
}

void special_entry_read(const struct special *sp, const struct section *sec,
			unsigned long entry, struct special_entry *e)
{
	e->new = sp->new.width ? elf_reloc_at(sec, entry + sp->new.offset) :
				 NULL;
	e->aux = special_field(sec->data + entry, sp->aux);
	e->len = special_field(sec->data + entry, sp->len);
	e->new_len = special_field(sec->data + entry, sp->new_len);
}
