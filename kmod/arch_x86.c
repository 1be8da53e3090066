// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64: jump encoding, relocation fields, and the special sites that
 * ftrace and arch/x86/kernel/alternative.c (apply_returns(),
 * apply_retpolines()) rewrite after compilation.
 */
#include <linux/elf.h>
#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/nops.h>
#include <asm/unaligned.h>
#include "ksplice.h"

#define X86_CALL	0xe8
#define X86_JMP32	0xe9
#define X86_RET		0xc3
#define X86_INT3	0xcc
#define X86_NOP1	0x90
#define X86_CS		0x2e

/* The value of x86_return_thunk, what apply_returns() jumps to. */
static unsigned long *ksplice_return_thunk_var;

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

static bool ksplice_reloc_pcrel(unsigned int type)
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

	if (ksplice_reloc_pcrel(r->type))
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

#define THUNK_PREFIX	"__x86_indirect_thunk_"
#define ITS_PREFIX	"__x86_indirect_its_thunk_"

bool ksplice_arch_runtime_symbol(const char *name)
{
	return !strcmp(name, "__fentry__") ||
	       !strcmp(name, "__x86_return_thunk") ||
	       !strncmp(name, THUNK_PREFIX, strlen(THUNK_PREFIX));
}

/* The order of __x86_indirect_thunk_array (arch/x86/lib/retpoline.S). */
static const char * const ksplice_regs[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* Register of a retpoline thunk name, -1 if it is none (or %rsp). */
static int ksplice_thunk_reg(const char *name)
{
	int i;

	if (strncmp(name, THUNK_PREFIX, strlen(THUNK_PREFIX)))
		return -1;
	name += strlen(THUNK_PREFIX);
	for (i = 0; i < ARRAY_SIZE(ksplice_regs); i++)
		if (!strcmp(name, ksplice_regs[i]))
			return i == 4 ? -1 : i;
	return -1;
}

int ksplice_arch_site_len(const struct ksplice_func *f,
			  const struct ksplice_site *s, unsigned int *rel_off,
			  char *why, size_t why_len)
{
	const u8 *p = f->pre + s->offset;
	unsigned int room = f->pre_size - s->offset;
	int len = -EINVAL;

	*rel_off = 1;
	if (s->offset >= f->pre_size || room < 2)
		goto bad;
	switch (s->kind) {
	case KSPLICE_SITE_MCOUNT:
		len = p[0] == X86_CALL ? 5 : -EINVAL;
		break;
	case KSPLICE_SITE_RETURN:
		len = p[0] == X86_JMP32 ? 5 : -EINVAL;
		break;
	case KSPLICE_SITE_RETPOLINE:
		if (p[0] == X86_CALL || p[0] == X86_JMP32) {
			len = 5;
		} else if ((p[0] == X86_CS &&
			    (p[1] == X86_CALL || p[1] == X86_JMP32)) ||
			   (p[0] == 0x0f && (p[1] & 0xf0) == 0x80)) {
			len = 6;
			*rel_off = 2;
		}
		break;
	}
	if (len > 0 && len <= room)
		return len;
bad:
	snprintf(why, why_len, "%s: site kind %u at +0x%x: unexpected pre code",
		 f->name, s->kind, s->offset);
	return -EINVAL;
}

bool ksplice_arch_site_reloc_ok(const struct ksplice_site *s,
				const struct ksplice_reloc *r)
{
	if (!ksplice_reloc_pcrel(r->type) || r->addend != -4)
		return false;
	switch (s->kind) {
	case KSPLICE_SITE_MCOUNT:
		return !strcmp(r->symbol, "__fentry__");
	case KSPLICE_SITE_RETURN:
		return !strcmp(r->symbol, "__x86_return_thunk");
	case KSPLICE_SITE_RETPOLINE:
		return ksplice_thunk_reg(r->symbol) >= 0;
	}
	return false;
}

/* Target of the rel32 branch that ends a running site. */
static unsigned long ksplice_rel32_dest(const struct ksplice_site_ctx *c)
{
	return c->addr + c->len + (s32)get_unaligned_le32(c->run + c->len - 4);
}

static bool ksplice_site_fail(const struct ksplice_site_ctx *c,
			      const char *what)
{
	snprintf(c->why, c->why_len, "%s site at %pS: running %*ph, pre %*ph",
		 what, (void *)c->addr, c->len, c->run, c->len, c->pre);
	return false;
}

/*
 * ftrace leaves an mcount site as the 5-byte nop, or makes it call one of
 * its entry points: ftrace_caller, ftrace_regs_caller, a per-ops
 * trampoline (which kallsyms_lookup() does not name, so it is recognized
 * by is_ftrace_trampoline()), or a BPF trampoline (direct call).  Any
 * other call target is a mismatch.
 */
static bool ksplice_ftrace_entry(const char *name)
{
	static const char * const names[] = {
		"__fentry__", "ftrace_caller", "ftrace_regs_caller",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return !strncmp(name, "bpf_trampoline_", strlen("bpf_trampoline_"));
}

static bool ksplice_match_mcount(const struct ksplice_site_ctx *c)
{
	static const u8 nop5[] = { BYTES_NOP5 };
	char name[KSYM_NAME_LEN];
	unsigned long dest;

	if (!memcmp(c->run, nop5, sizeof(nop5)))
		return true;
	if (c->run[0] != X86_CALL)
		return ksplice_site_fail(c, "mcount");
	dest = ksplice_rel32_dest(c);
	if (ksplice_k.is_ftrace_trampoline(dest) ||
	    (ksplice_sym_start_name(dest, name, sizeof(name)) &&
	     ksplice_ftrace_entry(name)))
		return true;
	return ksplice_site_fail(c, "mcount");
}

/*
 * patch_return() leaves "ret; int3 * 4" or a jump to x86_return_thunk
 * (whichever thunk the mitigations selected at boot).  A jump to
 * __x86_return_thunk itself is the unpatched form.
 */
static bool ksplice_match_return(const struct ksplice_site_ctx *c)
{
	static const u8 ret[] = { X86_RET, X86_INT3, X86_INT3, X86_INT3,
				  X86_INT3 };
	unsigned long dest;

	if (!memcmp(c->run, ret, sizeof(ret)))
		return true;
	if (c->run[0] == X86_JMP32) {
		dest = ksplice_rel32_dest(c);
		if (dest == READ_ONCE(*ksplice_return_thunk_var) ||
		    ksplice_sym_is("vmlinux", "__x86_return_thunk", dest))
			return true;
	}
	return ksplice_site_fail(c, "return");
}

/*
 * An ITS thunk for @reg: the static __x86_indirect_its_thunk_<reg>, or a
 * copy its_allocate_thunk() made: "jmp *%reg; int3".
 */
static bool ksplice_its_thunk(unsigned long dest, int reg)
{
	char name[sizeof(ITS_PREFIX) + 4];
	u8 want[4], got[4];
	int n = 0;

	snprintf(name, sizeof(name), ITS_PREFIX "%s", ksplice_regs[reg]);
	if (ksplice_sym_is("vmlinux", name, dest))
		return true;
	if (reg >= 8)
		want[n++] = 0x41;
	want[n++] = 0xff;
	want[n++] = 0xe0 + (reg & 7);
	want[n++] = X86_INT3;
	return !copy_from_kernel_nofault(got, (void *)dest, n) &&
	       !memcmp(got, want, n);
}

/* The nops add_nops() writes, as optimize_nops() uses them. */
static const u8 ksplice_nops[][KSPLICE_SITE_MAX_LEN] = {
	[2] = { BYTES_NOP2 }, [3] = { BYTES_NOP3 }, [4] = { BYTES_NOP4 },
	[5] = { BYTES_NOP5 }, [6] = { BYTES_NOP6 },
};

/*
 * What patch_retpoline() followed by optimize_nops() makes of a pre site
 * when it inlines the indirect branch, with or without LFENCE.  Returns
 * false if that form does not fit in the site (the site is then left
 * alone).
 */
static bool ksplice_retpoline_form(const struct ksplice_site_ctx *c, int reg,
				   bool lfence, u8 *out)
{
	u8 op = c->pre[c->len - 5];
	int i = 0, pad;

	if (c->pre[0] == 0x0f) {
		out[i++] = 0x70 + ((c->pre[1] & 0xf) ^ 1);
		out[i++] = c->len - 2;
		op = X86_JMP32;
	}
	if (lfence) {
		out[i++] = 0x0f;
		out[i++] = 0xae;
		out[i++] = 0xe8;
	}
	if (reg >= 8)
		out[i++] = 0x41;
	out[i++] = 0xff;
	out[i++] = 0xc0 | (op == X86_CALL ? 0x10 : 0x20) | (reg & 7);
	if (op == X86_JMP32 && i < c->len)
		out[i++] = X86_INT3;
	if (i > c->len)
		return false;
	pad = c->len - i;
	if (pad == 1)
		out[i] = X86_NOP1;
	else if (pad > 1)
		memcpy(out + i, ksplice_nops[pad], pad);
	return true;
}

static bool ksplice_match_retpoline(const struct ksplice_site_ctx *c)
{
	int reg = ksplice_thunk_reg(c->rel->symbol);
	unsigned int n = c->len - 4;
	u8 form[16];
	int lfence;

	if (!memcmp(c->run, c->pre, n)) {
		unsigned long dest = ksplice_rel32_dest(c);

		if (ksplice_sym_is("vmlinux", c->rel->symbol, dest) ||
		    ksplice_its_thunk(dest, reg))
			return true;
	}
	for (lfence = 0; lfence < 2; lfence++)
		if (ksplice_retpoline_form(c, reg, lfence, form) &&
		    !memcmp(c->run, form, c->len))
			return true;
	return ksplice_site_fail(c, "retpoline");
}

typedef bool (*ksplice_site_matcher_t)(const struct ksplice_site_ctx *c);

static const ksplice_site_matcher_t ksplice_site_matchers[KSPLICE_SITE_MAX] = {
	[KSPLICE_SITE_MCOUNT] = ksplice_match_mcount,
	[KSPLICE_SITE_RETURN] = ksplice_match_return,
	[KSPLICE_SITE_RETPOLINE] = ksplice_match_retpoline,
};

bool ksplice_arch_site_match(unsigned int kind,
			     const struct ksplice_site_ctx *c)
{
	if (kind >= KSPLICE_SITE_MAX || !ksplice_site_matchers[kind])
		return ksplice_site_fail(c, "unknown");
	return ksplice_site_matchers[kind](c);
}

/*
 * The jump goes after the function's ftrace site, if it starts with one:
 * ftrace owns those 5 bytes and would refuse to (and warn when it tries
 * to) trace a function whose nop it no longer finds.  Tracing the old
 * function keeps working; the tracer returns into the jump.
 */
unsigned int ksplice_arch_patch_offset(const struct ksplice_func *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_pre_sites; i++)
		if (f->pre_sites[i].kind == KSPLICE_SITE_MCOUNT &&
		    f->pre_sites[i].offset == 0)
			return 5;
	return 0;
}

int ksplice_arch_jmp(unsigned long from, unsigned long to, u8 *insn)
{
	long rel = to - (from + KSPLICE_JMP_LEN);

	if (rel != (s32)rel)
		return -ERANGE;
	insn[0] = X86_JMP32;
	put_unaligned_le32(rel, insn + 1);
	return 0;
}
