// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 special sites: the forms ftrace, apply_returns(),
 * apply_retpolines() (arch/x86/kernel/alternative.c) and static calls
 * (arch/x86/kernel/static_call.c) give them in the running kernel.  A
 * matcher per site kind, each accepting exactly what the rewrite can
 * produce from the pre instruction.
 */
#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/nops.h>
#include "ksplice.h"
#include "compat.h"
#include "arch_x86.h"

/* The order of __x86_indirect_thunk_array (arch/x86/lib/retpoline.S). */
static const char * const ksplice_regs[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* x86_nops[] of arch/x86/kernel/alternative.c (ASM_NOP_MAX is 8). */
static const u8 ksplice_x86_nops[9][8] = {
	[1] = { BYTES_NOP1 }, [2] = { BYTES_NOP2 }, [3] = { BYTES_NOP3 },
	[4] = { BYTES_NOP4 }, [5] = { BYTES_NOP5 }, [6] = { BYTES_NOP6 },
	[7] = { BYTES_NOP7 }, [8] = { BYTES_NOP8 },
};

/* add_nops() of alternative.c. */
static void ksplice_add_nops(u8 *p, unsigned int len)
{
	unsigned int n;

	while (len) {
		n = min(len, 8U);
		memcpy(p, ksplice_x86_nops[n], n);
		p += n;
		len -= n;
	}
}

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
	if (s->offset >= f->pre_size || room < 1)
		goto bad;
	switch (s->kind) {
	case KSPLICE_SITE_ALT:
		*rel_off = KSPLICE_NO_REL;
		len = s->len && s->alt_len <= s->len ? s->len : -EINVAL;
		break;
	case KSPLICE_SITE_LOCK:
		*rel_off = KSPLICE_NO_REL;
		len = p[0] == X86_LOCK ? 1 : -EINVAL;
		break;
	case KSPLICE_SITE_PARAVIRT:
		*rel_off = 2;
		len = room >= 6 && p[0] == 0xff && p[1] == 0x15 && s->len >= 6 ?
		      s->len : -EINVAL;
		break;
	case KSPLICE_SITE_JUMP_LABEL:
		*rel_off = KSPLICE_NO_REL;
		if (room >= 5 && (p[0] == X86_JMP32 ||
				  !memcmp(p, ksplice_x86_nops[5], 5))) {
			len = 5;
			if (p[0] == X86_JMP32)
				*rel_off = 1;	/* a jump to .text.unlikely */
		} else if (room >= 2 && (p[0] == X86_JMP8 ||
					 !memcmp(p, ksplice_x86_nops[2], 2))) {
			len = 2;
		}
		break;
	case KSPLICE_SITE_MCOUNT:
		len = p[0] == X86_CALL ? 5 : -EINVAL;
		break;
	case KSPLICE_SITE_RETURN:
		len = p[0] == X86_JMP32 ? 5 : -EINVAL;
		break;
	case KSPLICE_SITE_CALL:
		len = p[0] == X86_CALL ? 5 : -EINVAL;
		break;
	case KSPLICE_SITE_STATIC_CALL:
		if (p[0] == X86_CALL || p[0] == X86_JMP32) {
			len = 5;
		} else if (p[0] == 0x0f && (p[1] & 0xf0) == 0x80) {
			len = 6;
			*rel_off = 2;
		}
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
	if (len > 0 && len <= room &&
	    (len >= 2 || s->kind == KSPLICE_SITE_LOCK ||
	     s->kind == KSPLICE_SITE_ALT))
		return len;
bad:
	snprintf(why, why_len, "%s: site kind %u at +0x%x: unexpected pre code",
		 f->name, s->kind, s->offset);
	return -EINVAL;
}

bool ksplice_arch_site_reloc_ok(const struct ksplice_site *s,
				const struct ksplice_reloc *r)
{
	if (!ksplice_x86_reloc_pcrel(r->type))
		return false;
	if (s->kind == KSPLICE_SITE_PARAVIRT)
		return r->addend == (long)s->aux * 8 - 4 &&
		       !strcmp(r->symbol, "pv_ops");
	if (r->addend != -4)
		return false;
	switch (s->kind) {
	case KSPLICE_SITE_MCOUNT:
		return !strcmp(r->symbol, "__fentry__");
	case KSPLICE_SITE_RETURN:
		return !strcmp(r->symbol, "__x86_return_thunk");
	case KSPLICE_SITE_RETPOLINE:
		return ksplice_thunk_reg(r->symbol) >= 0;
	case KSPLICE_SITE_STATIC_CALL:
		return !strncmp(r->symbol, "__SCT__", strlen("__SCT__"));
	case KSPLICE_SITE_PARAVIRT:
		return !strcmp(r->symbol, "pv_ops");
	case KSPLICE_SITE_JUMP_LABEL:
		return true;	/* where it goes is checked against the entry's */
	case KSPLICE_SITE_CALL:
		return true;	/* the matcher checks it as any reloc */
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
	    (ksplice_sym_start_name(dest, name) &&
	     ksplice_ftrace_entry(name)))
		return true;
	return ksplice_site_fail(c, "mcount");
}

/* Is @dest a return thunk apply_returns() or static calls jump to? */
static bool ksplice_return_thunk(unsigned long dest)
{
	return dest == READ_ONCE(*ksplice_return_thunk_var) ||
	       ksplice_sym_is("vmlinux", "__x86_return_thunk", dest);
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

	if (!memcmp(c->run, ret, sizeof(ret)))
		return true;
	if (c->run[0] == X86_JMP32 && ksplice_return_thunk(ksplice_rel32_dest(c)))
		return true;
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

/*
 * With call depth tracking, emit_call_track_retpoline() aims a call at
 * __x86_indirect_call_thunk_<reg>, a jump at __x86_indirect_jump_thunk_<reg>.
 */
static bool ksplice_depth_thunk(unsigned long dest, int reg, bool call)
{
	char name[40];

	snprintf(name, sizeof(name), "__x86_indirect_%s_thunk_%s",
		 call ? "call" : "jump", ksplice_regs[reg]);
	return ksplice_sym_is("vmlinux", name, dest);
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
		    ksplice_its_thunk(dest, reg) ||
		    ksplice_depth_thunk(dest, reg, c->run[c->len - 5] == X86_CALL))
			return true;
	}
	for (lfence = 0; lfence < 2; lfence++)
		if (ksplice_retpoline_form(c, reg, lfence, form) &&
		    !memcmp(c->run, form, c->len))
			return true;
	return ksplice_site_fail(c, "retpoline");
}

/*
 * Is @dest a call depth accounting thunk?  patch_dest() of callthunks.c
 * copies skl_call_thunk_template into the padding right before a function
 * and has text_poke_apply_relocation() shift its RIP-relative operand
 * (6.12: sarq $5, %gs:__x86_call_depth(%rip)): the copy is the template
 * but for one 32-bit field that differs by exactly the distance between
 * them.  @size: the template's.
 */
static bool ksplice_call_thunk(unsigned long dest, unsigned int *size)
{
	unsigned long tmpl, tail;
	u8 want[16], got[16];
	unsigned int i;
	u32 shift;

	if (ksplice_sym_unique("vmlinux", "skl_call_thunk_template", &tmpl) ||
	    ksplice_sym_unique("vmlinux", "skl_call_thunk_tail", &tail) ||
	    tail <= tmpl || tail - tmpl > sizeof(want))
		return false;
	*size = tail - tmpl;
	if (copy_from_kernel_nofault(want, (void *)tmpl, *size) ||
	    copy_from_kernel_nofault(got, (void *)dest, *size))
		return false;
	if (!memcmp(want, got, *size))
		return true;
	shift = (u32)(tmpl - dest);
	for (i = 0; i + 4 <= *size; i++)
		if (!memcmp(want, got, i) &&
		    !memcmp(want + i + 4, got + i + 4, *size - i - 4) &&
		    get_unaligned_le32(got + i) == get_unaligned_le32(want + i) + shift)
			return true;
	return false;
}

/*
 * The function a static call trampoline currently jumps to, 0 for a NULL
 * call (the trampoline returns).  arch_static_call_transform() keeps the
 * trampoline and the inline sites of a key in step, so the trampoline
 * says which forms the sites may have.
 */
static bool ksplice_static_call_func(unsigned long tramp, unsigned long *func)
{
	u8 insn[5];

	if (copy_from_kernel_nofault(insn, (void *)tramp, sizeof(insn)))
		return false;
	*func = 0;
	if (insn[0] == X86_RET)
		return true;
	if (insn[0] != X86_JMP32)
		return false;
	*func = tramp + 5 + (s32)get_unaligned_le32(insn + 1);
	if (ksplice_return_thunk(*func))
		*func = 0;
	return true;
}

/*
 * __static_call_transform() makes of an inline site: the pre instruction
 * aimed at the trampoline or at the function; for a NULL function a 5-byte
 * nop (call) or a return (tail call; Jcc to __static_call_return or the
 * return thunk); for __static_call_return0 a 5-byte xor of %eax (three CS
 * prefixes).
 */
static bool ksplice_match_static_call(const struct ksplice_site_ctx *c)
{
	static const u8 nop5[] = { BYTES_NOP5 };
	static const u8 xor5rax[] = { 0x2e, 0x2e, 0x2e, 0x31, 0xc0 };
	static const u8 ret[] = { X86_RET, X86_INT3, X86_INT3, X86_INT3,
				  X86_INT3 };
	unsigned long tramp, func, dest = ksplice_rel32_dest(c);
	bool same_op = !memcmp(c->run, c->pre, c->len - 4);
	unsigned int size;
	bool jcc = c->pre[0] == 0x0f;

	if (ksplice_sym_unique(c->target, c->rel->symbol, &tramp) ||
	    !ksplice_static_call_func(tramp, &func))
		return ksplice_site_fail(c, "static call (no trampoline)");
	if (same_op && (dest == tramp || (func && dest == func)))
		return true;
	/* call depth tracking: callthunks_translate_call_dest() */
	if (same_op && func && c->pre[0] == X86_CALL &&
	    ksplice_call_thunk(dest, &size) && dest + size == func)
		return true;
	if (func && c->pre[0] == X86_CALL && !memcmp(c->run, xor5rax, 5) &&
	    ksplice_sym_is("vmlinux", "__static_call_return0", func))
		return true;
	if (func)
		return ksplice_site_fail(c, "static call");
	if (c->pre[0] == X86_CALL && !memcmp(c->run, nop5, 5))
		return true;
	if (c->pre[0] == X86_JMP32 && (!memcmp(c->run, ret, 5) ||
	    (c->run[0] == X86_JMP32 && ksplice_return_thunk(dest))))
		return true;
	if (jcc && same_op && (ksplice_return_thunk(dest) ||
	    ksplice_sym_is("vmlinux", "__static_call_return", dest)))
		return true;
	return ksplice_site_fail(c, "static call");
}

/* alternatives_smp_unlock() turns the lock prefix into ds on UP. */
static bool ksplice_match_lock(const struct ksplice_site_ctx *c)
{
	if (c->run[0] == X86_LOCK || c->run[0] == X86_DS)
		return true;
	return ksplice_site_fail(c, "lock prefix");
}

/*
 * apply_paravirt(): paravirt_patch() makes the indirect call through
 * pv_ops a direct call to the op (paravirt_BUG for none), padded with
 * nops, or all nops for _paravirt_nop.  pv_ops is read-only after init.
 */
static bool ksplice_match_paravirt(const struct ksplice_site_ctx *c)
{
	unsigned long pv, op, nop;
	u8 want[256];

	if (ksplice_sym_unique("vmlinux", "pv_ops", &pv) ||
	    copy_from_kernel_nofault(&op, (void *)(pv + 8 * c->site->aux),
				     sizeof(op)))
		return ksplice_site_fail(c, "paravirt (no pv_ops)");
	if (!op && ksplice_sym_unique("vmlinux", "paravirt_BUG", &op))
		return ksplice_site_fail(c, "paravirt (no paravirt_BUG)");
	if (!ksplice_sym_unique("vmlinux", "_paravirt_nop", &nop) && op == nop) {
		ksplice_add_nops(want, c->len);
	} else {
		want[0] = X86_CALL;
		put_unaligned_le32(op - (c->addr + 5), want + 1);
		ksplice_add_nops(want + 5, c->len - 5);
	}
	if (!memcmp(c->run, want, c->len))
		return true;
	return ksplice_site_fail(c, "paravirt");
}

/*
 * jump_label.c: the ideal nop of the site's size, or a jmp of that size
 * to the entry's target.  A 5-byte jmp may also run as the 2-byte jmp to
 * the same place followed by a 3-byte nop: the same jump.  (6.1.0-56's
 * vmlinux has no such site, but a build whose code sits closer may.)
 * Nothing else is equal: not another target, not a 2-byte nop there.
 */
static bool ksplice_match_jump_label(const struct ksplice_site_ctx *c)
{
	const struct ksplice_reloc *t = &c->site->alt_relocs[0];
	bool short5 = c->len == 5 && c->pre[0] == X86_JMP32 &&
		      !memcmp(c->run + 2, ksplice_x86_nops[3], 3);
	unsigned long dest;

	if (!memcmp(c->run, ksplice_x86_nops[c->len], c->len))
		return true;
	if (c->len == 5 && c->run[0] == X86_JMP32)
		dest = ksplice_rel32_dest(c);
	else if ((c->len == 2 || short5) && c->run[0] == X86_JMP8)
		dest = c->addr + 2 + (s8)c->run[1];
	else
		return ksplice_site_fail(c, "jump label");
	if (c->check(c->m, t, dest - t->addend, true))
		return true;
	return ksplice_site_fail(c, "jump label target");
}

/*
 * Bytes [from, len) hold a run of one-byte nops in @want: optimize_nops()
 * leaves them, or (2 or more) makes them add_nops().
 */
static bool ksplice_pad_ok(const u8 *run, unsigned int from, unsigned int len)
{
	u8 nops[256];

	if (from >= len)
		return true;
	if (!memchr_inv(run + from, X86_NOP1, len - from))
		return true;
	ksplice_add_nops(nops, len - from);
	return !memcmp(run + from, nops, len - from);
}

/* Start of the trailing run of one-byte nops of @p, outside reloc fields. */
static unsigned int ksplice_pad_start(const u8 *p, const u8 *mask,
				      unsigned int len)
{
	while (len && p[len - 1] == X86_NOP1 &&
	       (!mask || mask[len - 1] == KSPLICE_MASK_CODE))
		len--;
	return len;
}

static bool ksplice_alt_orig(const struct ksplice_site_ctx *c)
{
	unsigned int pad = ksplice_pad_start(c->pre, c->mask, c->len), i;

	const struct ksplice_reloc *r;
	unsigned int at;

	for (i = 0; i < pad; i++)
		if (c->mask[i] == KSPLICE_MASK_CODE && c->run[i] != c->pre[i])
			return false;
	if (!ksplice_pad_ok(c->run, pad, c->len))
		return false;
	/* A call of the pre code is one only to its own target. */
	for (i = 0; i < c->nr_relocs; i++) {
		r = &c->relocs[i];
		at = r->offset - c->offset;
		if (r->offset < c->offset || at >= c->len ||
		    c->mask[at] != KSPLICE_MASK_RELOC)
			continue;
		if (!c->check(c->m, r, ksplice_arch_reloc_read(r, c->run + at,
							       c->addr + at),
			      false))
			return false;
	}
	memset(c->skip + pad, 1, c->len - pad);
	return true;
}

/*
 * One replacement as apply_alternatives() writes it: its bytes, a first
 * 5-byte call re-aimed at the same target, a first 5-byte jmp re-aimed by
 * recompute_jump() (perhaps as a 2-byte jmp and a 3-byte nop), nops to
 * the site's length.  Absolute fields are copied; other PC-relative ones
 * would be wrong in the running kernel, and are refused.
 */
static bool ksplice_alt_repl(const struct ksplice_site_ctx *c,
			     const struct ksplice_site *s, bool bind)
{
	u8 want[256], ign[256] = { 0 };
	unsigned int i, w, pad, from;
	const struct ksplice_reloc *r;
	unsigned long sym;

	memset(want, X86_NOP1, c->len);
	memcpy(want, s->alt, s->alt_len);
	for (i = 0; i < s->nr_alt_relocs; i++) {
		r = &s->alt_relocs[i];
		w = ksplice_arch_reloc_width(r->type);
		memset(ign + r->offset, 1, w);
		if (!ksplice_x86_reloc_pcrel(r->type))
			continue;
		if (s->alt_len != 5 || r->offset != 1 ||
		    (want[0] != X86_CALL && want[0] != X86_JMP32))
			return false;
		if (want[0] == X86_JMP32 && c->run[0] == X86_JMP8) {
			want[0] = X86_JMP8;
			memcpy(want + 2, ksplice_x86_nops[3], 3);
			memset(ign + 1, 0, 4);
			ign[1] = 1;
		}
	}
	pad = ksplice_pad_start(want, NULL, c->len);
	for (from = 0; from < pad; from++)
		if (ign[from] == 0 && c->run[from] != want[from])
			return false;
	for (i = pad; i < c->len; i++)
		if (ign[i])
			pad = i + 1;
	if (!ksplice_pad_ok(c->run, pad, c->len))
		return false;
	for (i = 0; i < s->nr_alt_relocs; i++) {
		r = &s->alt_relocs[i];
		if (!ksplice_x86_reloc_pcrel(r->type))
			sym = ksplice_arch_reloc_read(r, c->run + r->offset, 0);
		else if (c->run[0] == X86_JMP8)
			sym = c->addr + 2 + (s8)c->run[1] - r->addend - 4;
		else
			sym = ksplice_arch_reloc_read(r, c->run + 1, c->addr + 1);
		if (!c->check(c->m, r, sym, bind))
			return false;
	}
	return true;
}

bool ksplice_arch_alt_match(const struct ksplice_site_ctx *c,
			    const struct ksplice_site *group, unsigned int nr)
{
	unsigned int i;

	/*
	 * Replacements first: the original may hold a site whose own check
	 * comes later (a pv_ops call the alternative replaced with
	 * "pushf; pop %rax"), so ksplice_alt_orig() accepting it proves
	 * nothing about those bytes yet.  A replacement is checked whole.
	 */
	for (i = 0; i < nr; i++) {
		if (ksplice_alt_repl(c, &group[i], false)) {
			ksplice_alt_repl(c, &group[i], true);
			memset(c->skip, 1, c->len);
			return true;
		}
	}
	if (ksplice_alt_orig(c))
		return true;
	snprintf(c->why, c->why_len, "alternative site at %pS: running %*ph, pre %*ph, nor any of %u replacements",
		 (void *)c->addr, min(c->len, 16U), c->run, min(c->len, 16U),
		 c->pre, nr);
	return false;
}

/*
 * callthunks.c's patch_call(): with call depth tracking on, a direct call
 * goes to the accounting thunk in front of its function, else to the
 * function itself, which is checked as any reloc's symbol.
 */
static bool ksplice_match_call(const struct ksplice_site_ctx *c)
{
	unsigned long dest;
	unsigned int size;

	if (c->run[0] != X86_CALL || !c->rel)
		return ksplice_site_fail(c, "call");
	dest = ksplice_arch_reloc_read(c->rel, c->run + 1, c->addr + 1);
	if (ksplice_call_thunk(dest, &size) &&
	    c->check(c->m, c->rel, dest + size, false))
		dest += size;
	return c->check(c->m, c->rel, dest, true);
}

typedef bool (*ksplice_site_matcher_t)(const struct ksplice_site_ctx *c);

static const ksplice_site_matcher_t ksplice_site_matchers[KSPLICE_SITE_MAX] = {
	[KSPLICE_SITE_MCOUNT] = ksplice_match_mcount,
	[KSPLICE_SITE_RETURN] = ksplice_match_return,
	[KSPLICE_SITE_RETPOLINE] = ksplice_match_retpoline,
	[KSPLICE_SITE_STATIC_CALL] = ksplice_match_static_call,
	[KSPLICE_SITE_LOCK] = ksplice_match_lock,
	[KSPLICE_SITE_PARAVIRT] = ksplice_match_paravirt,
	[KSPLICE_SITE_JUMP_LABEL] = ksplice_match_jump_label,
	[KSPLICE_SITE_CALL] = ksplice_match_call,
};

bool ksplice_arch_site_match(unsigned int kind,
			     const struct ksplice_site_ctx *c)
{
	if (kind >= KSPLICE_SITE_MAX || !ksplice_site_matchers[kind])
		return ksplice_site_fail(c, "unknown");
	return ksplice_site_matchers[kind](c);
}

