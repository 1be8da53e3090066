/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture interface of the core: how a jump is encoded, how
 * relocation fields are read and written, and which forms the running
 * kernel may have given to the special sites of the pre code.
 */
#ifndef _KSPLICE_ARCH_H
#define _KSPLICE_ARCH_H

#include <linux/types.h>
#include "ksplice-update.h"

/* Size of the jump written over old code. */
#define KSPLICE_JMP_LEN	5
/* Longest special site (a CS-prefixed or conditional rel32 branch). */
#define KSPLICE_SITE_MAX_LEN	6

/* A site's reloc offset when it has none. */
#define KSPLICE_NO_REL	(~0U)

/*
 * Checks that @sym is what @r names (the bytes of an anonymous symbol,
 * the kallsyms name of a named one); binds the name if @bind.
 */
typedef bool (*ksplice_sym_check_t)(void *m, const struct ksplice_reloc *r,
				    unsigned long sym, bool bind);

/* What a site matcher sees: one site of one candidate. */
struct ksplice_site_ctx {
	const char *target;			/* of the function */
	const struct ksplice_site *site;
	const struct ksplice_reloc *rel;	/* the pre reloc, or NULL */
	const u8 *mask;				/* enum ksplice_mask, per pre byte */
	u8 *skip;				/* set: verified by the site */
	ksplice_sym_check_t check;
	void *m;
	const struct ksplice_reloc *relocs;	/* all the function's pre relocs */
	unsigned int nr_relocs;
	unsigned int offset;			/* of the site in the function */
	const u8 *pre;				/* pre bytes at the site */
	const u8 *run;				/* running bytes at the site */
	unsigned long addr;			/* running address of the site */
	unsigned int len;
	char *why;				/* reason, on mismatch */
	size_t why_len;
};

int ksplice_arch_init(void);

/* Width in bytes of a relocation field, 0 if the type is unsupported. */
unsigned int ksplice_arch_reloc_width(unsigned int type);
/* The symbol address S a field refers to, read back from its bytes. */
unsigned long ksplice_arch_reloc_read(const struct ksplice_reloc *r,
				      const u8 *field, unsigned long place);
/* Encode S into a field at @place; -ERANGE if it does not fit. */
int ksplice_arch_reloc_encode(const struct ksplice_reloc *r, unsigned long sym,
			      unsigned long place, u8 *field);
/*
 * True if the kernel rewrites the fields referring to this symbol itself
 * (ftrace, return and retpoline thunks): new code leaves those alone.
 */
bool ksplice_arch_runtime_symbol(const char *name);

/*
 * Check a site of pre code and return its length, or a negative error
 * with a reason in @why.  @rel_off is the offset, relative to the site,
 * of the field its reloc must be at.
 */
int ksplice_arch_site_len(const struct ksplice_func *f,
			  const struct ksplice_site *s, unsigned int *rel_off,
			  char *why, size_t why_len);
/* Is the reloc of a site the one the site kind needs? */
bool ksplice_arch_site_reloc_ok(const struct ksplice_site *s,
				const struct ksplice_reloc *r);
/* Does a site's running form match its pre form? */
bool ksplice_arch_site_match(unsigned int kind,
			     const struct ksplice_site_ctx *c);

/*
 * Do the running bytes of a group of alternative sites (@nr sites at one
 * offset, c->len bytes) hold the pre code, or one of the replacements as
 * apply_alternatives() writes it?  For the pre code, bytes not marked
 * KSPLICE_MASK_CODE are left to the checks of their relocs and sites.
 */
bool ksplice_arch_alt_match(const struct ksplice_site_ctx *c,
			    const struct ksplice_site *group, unsigned int nr);

/*
 * Entry bytes the kernel rewrites as it loads code, outside any site the
 * update lists: marks in @skip those of @f's pre code whose running bytes
 * (@run) hold the rewritten form.  x86: an endbr64 that apply_seal_endbr()
 * turned into its poison nop (6.2+ with CONFIG_X86_KERNEL_IBT, for each
 * function whose address is never taken).
 */
void ksplice_arch_match_entry(const struct ksplice_func *f, const u8 *run,
			      u8 *skip);
/* Does @f start (after any endbr64) with an ftrace site? */
bool ksplice_arch_ftrace_site(const struct ksplice_func *f);
/*
 * Offset in a function at which its jump is written: after its endbr64
 * (indirect calls must still land on one) and its ftrace site.
 */
unsigned int ksplice_arch_patch_offset(const struct ksplice_func *f);
/* Encode a jump from @from to @to; -ERANGE if out of reach. */
int ksplice_arch_jmp(unsigned long from, unsigned long to, u8 *insn);
/* Where a jump that ksplice_arch_jmp() encoded at @from goes. */
unsigned long ksplice_arch_jmp_dest(unsigned long from, const u8 *insn);
/*
 * Jump label sites as the kernel rewrites them: the length it gives the
 * site whose running bytes are @code (0: not a jump label's form), and
 * the bytes it writes there for each state of the key.
 */
unsigned int ksplice_arch_jump_label_len(const u8 *code);
int ksplice_arch_jump_label_code(unsigned long addr, unsigned long target,
				 unsigned int len, bool jump, u8 *out);

/*
 * Jumps written inside stop_machine() so that a CPU running one of them
 * meanwhile (an NMI handler) sees the old or the new instruction, never a
 * mix: x86 writes an int3 first, as text_poke_bp() does.  @sync makes a
 * phase of the writes visible to every CPU before the next one starts.
 */
struct ksplice_poke {
	unsigned long addr;
	const u8 *bytes;		/* KSPLICE_JMP_LEN bytes to write */
	unsigned long detour;		/* where a CPU meeting the write goes */
};

struct ksplice_pokes {
	void (*sync)(void *arg);
	void *arg;
	atomic_t detours;		/* CPUs that met a write */
	unsigned int nr;
	struct ksplice_poke p[];
};

int ksplice_arch_poke_init(void);
void ksplice_arch_poke_exit(void);
void ksplice_arch_poke(struct ksplice_pokes *b);
/* After the stop_machine() that called ksplice_arch_poke() returned. */
void ksplice_arch_poke_end(void);

#endif /* _KSPLICE_ARCH_H */
