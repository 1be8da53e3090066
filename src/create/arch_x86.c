// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 decoding for ksplice-create, with Capstone: the PC-relative
 * operands of each instruction (rel8/rel32 branches and calls, RIP-relative
 * memory operands) and where their displacement is encoded.
 */
#include <capstone/capstone.h>

#include "arch.h"
#include "util.h"

static bool ref_of(csh cs, const cs_insn *in, unsigned long end,
		   struct arch_ref *r)
{
	const cs_x86 *x = &in->detail->x86;
	unsigned int i;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP) {
			r->field = in->address + x->encoding.disp_offset;
			r->size = x->encoding.disp_size;
			r->dest = end + op->mem.disp;
			return true;
		}
	}
	/* A relative branch's target is its immediate, already absolute. */
	if (!cs_insn_group(cs, in, CS_GRP_BRANCH_RELATIVE) ||
	    x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	r->field = in->address + x->encoding.imm_offset;
	r->size = x->encoding.imm_size;
	r->dest = x->operands[0].imm;
	return true;
}

int arch_for_each_ref(const struct section *sec, unsigned long start,
		      unsigned long end, arch_ref_fn fn, void *arg)
{
	const uint8_t *code = sec->data + start;
	size_t size = end - start;
	uint64_t addr = start;
	struct arch_ref r;
	csh cs;
	cs_insn *in;
	int ret = 0;

	if (!sec->data || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(cs);
	while (!ret && size && cs_disasm_iter(cs, &code, &size, &addr, in)) {
		r.end = addr;
		if (ref_of(cs, in, addr, &r))
			ret = fn(&r, arg);
	}
	if (!ret && size)
		ret = -1;
	cs_free(in, 1);
	cs_close(&cs);
	return ret;
}
