// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: jump encoding and relocation fields.  The special sites are in
 * arch_x86_sites.c.
 */
#include <linux/elf.h>
#include <linux/string.h>
#include <asm/nops.h>
#include <asm/text-patching.h>
#include "ksplice.h"
#include "compat.h"
#include "arch_x86.h"

unsigned long *ksplice_return_thunk_var;

int ksplice_arch_init(void)
{
	ksplice_return_thunk_var =
		(unsigned long *)ksplice_lookup_name("x86_return_thunk");
	return ksplice_return_thunk_var ? 0 : -ENOENT;
}

unsigned int ksplice_arch_reloc_width(unsigned int type)
{
	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_32:
	case R_X86_64_32S:
		return 4;
	case R_X86_64_64:
		return 8;
	}
	return 0;
}

bool ksplice_x86_reloc_pcrel(unsigned int type)
{
	return type == R_X86_64_PC32 || type == R_X86_64_PLT32;
}

unsigned long ksplice_arch_reloc_read(const struct ksplice_reloc *r,
				      const u8 *field, unsigned long place)
{
	switch (r->type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		return (long)(s32)get_unaligned_le32(field) - r->addend + place;
	case R_X86_64_32S:
		return (long)(s32)get_unaligned_le32(field) - r->addend;
	case R_X86_64_32:
		return (unsigned long)get_unaligned_le32(field) - r->addend;
	default:
		return get_unaligned_le64(field) - r->addend;
	}
}

int ksplice_arch_reloc_encode(const struct ksplice_reloc *r, unsigned long sym,
			      unsigned long place, u8 *field)
{
	long val = sym + r->addend;

	if (ksplice_x86_reloc_pcrel(r->type))
		val -= place;
	switch (r->type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_32S:
		if (val != (s32)val)
			return -ERANGE;
		put_unaligned_le32(val, field);
		return 0;
	case R_X86_64_32:
		if ((unsigned long)val != (u32)val)
			return -ERANGE;
		put_unaligned_le32(val, field);
		return 0;
	default:
		put_unaligned_le64(val, field);
		return 0;
	}
}

bool ksplice_arch_runtime_symbol(const char *name)
{
	return !strcmp(name, "__fentry__") ||
	       !strcmp(name, "__x86_return_thunk") ||
	       !strncmp(name, THUNK_PREFIX, strlen(THUNK_PREFIX));
}

/* An IBT kernel (CONFIG_X86_KERNEL_IBT) starts each function with endbr64. */
static const u8 ksplice_endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
/* What apply_seal_endbr() writes over it: gen_endbr_poison(), osp nopl (%rax). */
static const u8 ksplice_endbr_poison[] = { 0x66, 0x0f, 0x1f, 0x00 };

/* Length of the endbr64 that starts @f's pre code, 0 if none does. */
static unsigned int ksplice_endbr_len(const struct ksplice_func *f)
{
	if (f->pre_size >= sizeof(ksplice_endbr64) &&
	    !memcmp(f->pre, ksplice_endbr64, sizeof(ksplice_endbr64)))
		return sizeof(ksplice_endbr64);
	return 0;
}

/*
 * Only the pre code's own endbr64 at the entry, only the kernel's exact
 * poison: a sealed function is the same code, with no landing pad for
 * indirect calls (nothing takes its address).
 */
void ksplice_arch_match_entry(const struct ksplice_func *f, const u8 *run,
			      u8 *skip)
{
	unsigned int n = ksplice_endbr_len(f);

	if (n && !memcmp(run, ksplice_endbr_poison, n))
		memset(skip, 1, n);
}

bool ksplice_arch_ftrace_site(const struct ksplice_func *f)
{
	unsigned int off = ksplice_endbr_len(f), i;

	for (i = 0; i < f->nr_pre_sites; i++)
		if (f->pre_sites[i].kind == KSPLICE_SITE_MCOUNT &&
		    f->pre_sites[i].offset == off)
			return true;
	return false;
}

/*
 * The jump goes after the function's endbr64 (as ftrace's own call does on
 * IBT kernels), so that an indirect call still lands on it, and after its
 * ftrace site: ftrace owns those 5 bytes and would refuse to (and warn when
 * it tries to) trace a function whose nop it no longer finds.  Tracing the
 * old function keeps working; the tracer returns into the jump.
 */
unsigned int ksplice_arch_patch_offset(const struct ksplice_func *f)
{
	return ksplice_endbr_len(f) + (ksplice_arch_ftrace_site(f) ? 5 : 0);
}

/* The kernel's own encoder, as static calls and text_poke_bp use it. */
int ksplice_arch_jmp(unsigned long from, unsigned long to, u8 *insn)
{
	long rel = to - (from + JMP32_INSN_SIZE);

	BUILD_BUG_ON(JMP32_INSN_SIZE != KSPLICE_JMP_LEN);
	if (rel != (s32)rel)
		return -ERANGE;
	__text_gen_insn(insn, JMP32_INSN_OPCODE, (void *)from, (void *)to,
			JMP32_INSN_SIZE);
	return 0;
}

/* Where a jump ksplice_arch_jmp() encoded at @from goes. */
unsigned long ksplice_arch_jmp_dest(unsigned long from, const u8 *insn)
{
	return from + JMP32_INSN_SIZE + *(const s32 *)(insn + 1);
}

/* The nops jump_label.c writes (x86_nops[], the ideal ones since 5.13). */
static const u8 ksplice_jl_nop2[] = { BYTES_NOP2 };
static const u8 ksplice_jl_nop5[] = { BYTES_NOP5 };

/*
 * arch_jump_entry_size() decodes the site: a jmp or the nop of 2 or 5
 * bytes.  Only those four forms are a jump label's; 0 for anything else.
 */
unsigned int ksplice_arch_jump_label_len(const u8 *code)
{
	if (code[0] == JMP8_INSN_OPCODE ||
	    !memcmp(code, ksplice_jl_nop2, sizeof(ksplice_jl_nop2)))
		return JMP8_INSN_SIZE;
	if (code[0] == JMP32_INSN_OPCODE ||
	    !memcmp(code, ksplice_jl_nop5, sizeof(ksplice_jl_nop5)))
		return JMP32_INSN_SIZE;
	return 0;
}

/*
 * What __jump_label_patch() writes at a site of @len bytes at @addr: a
 * jmp of that size to @target if @jump, else the nop of that size.
 */
int ksplice_arch_jump_label_code(unsigned long addr, unsigned long target,
				 unsigned int len, bool jump, u8 *out)
{
	long rel = target - (addr + len);
	u8 insn[JMP32_INSN_SIZE];	/* __text_gen_insn() writes all 5 */

	if (len != JMP8_INSN_SIZE && len != JMP32_INSN_SIZE)
		return -EINVAL;
	if (!jump) {
		memcpy(out, len == JMP8_INSN_SIZE ? ksplice_jl_nop2 :
						    ksplice_jl_nop5, len);
		return 0;
	}
	if (len == JMP8_INSN_SIZE ? rel != (s8)rel : rel != (s32)rel)
		return -ERANGE;
	__text_gen_insn(insn, len == JMP8_INSN_SIZE ? JMP8_INSN_OPCODE :
						      JMP32_INSN_OPCODE,
			(void *)addr, (void *)target, len);
	memcpy(out, insn, len);
	return 0;
}
