/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the kernels ksplice targets (Debian's 6.1 and 6.12 lines) differ in
 * an interface the core uses: one named helper per difference, each saying
 * which kernel changed what.  The rest of the core uses only these names,
 * so a new kernel line adds or changes entries here, not copies of files.
 */
#ifndef KSPLICE_COMPAT_H
#define KSPLICE_COMPAT_H

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/version.h>

/*
 * 6.4 (commit ac3b43283923, "module: replace module_layout with
 * module_memory") split a module's single core_layout into mem[MOD_TEXT],
 * mem[MOD_DATA], mem[MOD_RODATA] and mem[MOD_RO_AFTER_INIT], each its own
 * allocation: an address is in the core if it lies in one of them.
 */
#define KSPLICE_HAVE_MODULE_MEMORY (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0))

/*
 * Bytes from @addr to the end of the part of @mod's core (init sections
 * excluded: they are freed after the module's init) that holds it, or 0
 * if no part does.
 */
static inline unsigned long ksplice_mod_core_room(const struct module *mod,
						  unsigned long addr)
{
#if KSPLICE_HAVE_MODULE_MEMORY
	/* (the macro declares t) */
	for_class_mod_mem_type(t, core) {
		unsigned long base = (unsigned long)mod->mem[t].base;

		if (addr >= base && addr - base < mod->mem[t].size)
			return base + mod->mem[t].size - addr;
	}
	return 0;
#else
	unsigned long base = (unsigned long)mod->core_layout.base;

	if (addr < base || addr - base >= mod->core_layout.size)
		return 0;
	return base + mod->core_layout.size - addr;
#endif
}

/* Whether @size bytes at @addr lie in @mod's core text. */
static inline bool ksplice_mod_in_text(const struct module *mod,
				       unsigned long addr, unsigned long size)
{
#if KSPLICE_HAVE_MODULE_MEMORY
	unsigned long base = (unsigned long)mod->mem[MOD_TEXT].base;
	unsigned long text = mod->mem[MOD_TEXT].size;
#else
	unsigned long base = (unsigned long)mod->core_layout.base;
	unsigned long text = mod->core_layout.text_size;
#endif

	return addr >= base && size <= text && addr - base <= text - size;
}

/*
 * The part of @mod holding its read-only data (__ro_after_init excluded):
 * after the text of its core layout up to ro_size in 6.1, its own
 * mem[MOD_RODATA] from 6.4.
 */
static inline void ksplice_mod_rodata(const struct module *mod,
				      unsigned long *start, unsigned long *end)
{
#if KSPLICE_HAVE_MODULE_MEMORY
	*start = (unsigned long)mod->mem[MOD_RODATA].base;
	*end = *start + mod->mem[MOD_RODATA].size;
#else
	*start = (unsigned long)mod->core_layout.base +
		 mod->core_layout.text_size;
	*end = (unsigned long)mod->core_layout.base + mod->core_layout.ro_size;
#endif
}

/*
 * Where @mod's writable data (its .data and .bss) lies: after its
 * __ro_after_init part in 6.1's core layout, its own mem[MOD_DATA] from
 * 6.4.
 */
static inline void ksplice_mod_data(const struct module *mod,
				    unsigned long *start, unsigned long *end)
{
#if KSPLICE_HAVE_MODULE_MEMORY
	*start = (unsigned long)mod->mem[MOD_DATA].base;
	*end = *start + mod->mem[MOD_DATA].size;
#else
	*start = (unsigned long)mod->core_layout.base +
		 mod->core_layout.ro_after_init_size;
	*end = (unsigned long)mod->core_layout.base + mod->core_layout.size;
#endif
}

/*
 * The ftrace handler's way to send the traced call elsewhere: 6.1's
 * ftrace_instruction_pointer_set() became ftrace_regs_set_instruction_pointer()
 * (renamed with the other ftrace_regs accessors before 6.12; a macro on x86
 * in both).
 */
#ifdef ftrace_regs_set_instruction_pointer
#define ksplice_ftrace_set_ip(fregs, ip) \
	ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define ksplice_ftrace_set_ip(fregs, ip) ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * get/put_unaligned_le32() and friends: 6.12 (commit 5f60d5f6bbc1) moved
 * asm/unaligned.h to linux/unaligned.h.
 */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* KSPLICE_COMPAT_H */
