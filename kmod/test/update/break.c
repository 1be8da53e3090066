// SPDX-License-Identifier: GPL-2.0
/*
 * bad=N for the self-test update: break the update in a known way.
 * 1..49 must make registration fail; 100.. must register and make the
 * apply fail with the abort cause named in the table of selftest.sh.
 */
#include <linux/elf.h>
#include <linux/jiffies.h>
#include <linux/string.h>
#include "ksplice-update.h"

/*
 * Read-only data patched in place (ABI 8): the target's proc_ops table,
 * with images that are not its bytes.  bad=18..24 break it so that
 * registration fails; bad=113..117 register it and the apply fails.
 */
static const unsigned char ksplice_test_img[16];
static struct ksplice_reloc ksplice_test_drel[2] = {
	{ .symbol = "ksplice_test_counter", .offset = 0, .type = R_X86_64_64 },
	{ .symbol = "ksplice_test_counter", .offset = 8, .type = R_X86_64_64 },
};
static struct ksplice_data ksplice_test_data = {
	.name = "ksplice_test_ops", .unit = "target.c", .size = 16,
	.pre = ksplice_test_img, .pre_relocs = ksplice_test_drel,
	.nr_pre_relocs = 2,
	.post = ksplice_test_img, .post_relocs = ksplice_test_drel,
	.nr_post_relocs = 2,
};

static void ksplice_test_break_data(struct ksplice_update *u, int bad)
{
	struct ksplice_object *o = (struct ksplice_object *)u->objs;

	if ((bad < 18 || bad > 28) && (bad < 113 || bad > 117))
		return;
	o->data = &ksplice_test_data;
	o->nr_data = 1;
	switch (bad) {
	case 18:
		ksplice_test_drel[1].offset = 9;
		break;
	case 19:
		ksplice_test_drel[0].type = R_X86_64_PC32;
		break;
	case 20:
		ksplice_test_drel[1].offset = 4;
		break;
	case 21:
		ksplice_test_data.pre = (void *)&jiffies;
		break;
	case 22:
		u->flags |= KSPLICE_UPDATE_REPLACE;
		break;
	case 23:
		ksplice_test_data.flags = 0x80;
		break;
	/* Callback fields (ABI 9): at least one. */
	case 24:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		ksplice_test_data.nr_pre_relocs = 0;
		ksplice_test_data.nr_post_relocs = 0;
		break;
	/* A callback is a function's start: no addend. */
	case 25:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		ksplice_test_drel[1].addend = 16;
		break;
	/* Anchors (ABI 10): of callback fields only, on none of them. */
	case 26:
		ksplice_test_data.anchors = ksplice_test_drel;
		ksplice_test_data.nr_anchors = 1;
		break;
	case 27:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		ksplice_test_data.anchors = &ksplice_test_drel[1];
		ksplice_test_data.nr_anchors = 1;
		break;
	case 28:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		ksplice_test_data.nr_pre_relocs = 1;
		ksplice_test_data.nr_post_relocs = 1;
		ksplice_test_drel[1].addend = 8;
		ksplice_test_data.anchors = &ksplice_test_drel[1];
		ksplice_test_data.nr_anchors = 1;
		break;
	case 113:
		ksplice_test_data.name = "ksplice_no_such_table";
		break;
	case 114:
		ksplice_test_data.nr_pre_relocs = 0;
		break;
	/* Writable: its running value is not its initial value. */
	case 115:
		ksplice_test_data.name = "ksplice_test_counter";
		ksplice_test_data.size = sizeof(int);
		ksplice_test_data.nr_pre_relocs = 0;
		ksplice_test_data.nr_post_relocs = 0;
		break;
	/* Callback fields of a read-only table: they are for writable data. */
	case 116:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		break;
	/*
	 * Callback fields of writable data (zero until the NMI test) whose
	 * post values name a variable: not a function.
	 */
	case 117:
		ksplice_test_data.flags = KSPLICE_DATA_FIELDS;
		ksplice_test_data.name = "ksplice_test_nmi_res";
		ksplice_test_data.nr_pre_relocs = 0;
		break;
	}
}

static struct ksplice_reloc *ksplice_test_reloc(struct ksplice_func *f,
						const char *sym)
{
	struct ksplice_reloc *r = (struct ksplice_reloc *)f->pre_relocs;
	unsigned int i;

	for (i = 0; i < f->nr_pre_relocs; i++)
		if (*sym ? !strncmp(r[i].symbol, sym, strlen(sym)) :
			   !*r[i].symbol)
			return &r[i];
	return NULL;
}

static void ksplice_test_break_reg(struct ksplice_update *u,
				   struct ksplice_func *f, int bad)
{
	struct ksplice_reloc *r = (struct ksplice_reloc *)f->pre_relocs;
	struct ksplice_site *s = (struct ksplice_site *)f->pre_sites;

	switch (bad) {
	case 1:
		u->abi = 99;
		break;
	case 2:
		u->id = "Bad-Id";
		break;
	case 3:
		u->kernel_release = "0.0.0";
		break;
	case 4:
		((struct ksplice_object *)u->objs)->nr_funcs = 0;
		break;
	case 5:
		r[0].offset = f->pre_size;
		break;
	case 6:
		r[0].type = 999;
		break;
	case 7:
		f->name = NULL;
		break;
	case 8:
		f->new_code = (void *)ksplice_register_update;
		break;
	case 9:
		s[0].kind = 99;
		break;
	case 10:
		f->pre_size = 0;
		break;
	case 11:
		r[0].symbol = (const char *)&jiffies;
		break;
	case 12:
		u->id = "a_very_long_update_id_of_more_than_32";
		break;
	case 13:
		f->nr_pre_relocs = 70000;
		break;
	case 14:
		s[0].offset += 1;
		break;
	case 15:
		ksplice_test_reloc(f, "")->expect_len = 0;
		break;
	case 16:
		u->mod = NULL;
		break;
	case 17:
		f->pre = (void *)&jiffies;
		break;
	case 29:	/* a pre reloc is no call of an export */
		r[0].flags = KSPLICE_RELOC_EXPORT;
		break;
	}
}

/* Moves where ksplice_test_jl's jump label jumps in the pre object. */
static void ksplice_test_break_jl(struct ksplice_update *u,
				  struct ksplice_func *f)
{
	const struct ksplice_site *s;
	struct ksplice_func *g;

	for (g = f; g < f + u->objs->nr_funcs; g++) {
		if (strcmp(g->name, "ksplice_test_jl"))
			continue;
		for (s = g->pre_sites; s < g->pre_sites + g->nr_pre_sites; s++)
			if (s->kind == KSPLICE_SITE_JUMP_LABEL)
				((struct ksplice_reloc *)s->alt_relocs)->addend += 1;
	}
}

/*
 * The first byte of @f's body: after the endbr64 an IBT kernel (6.12)
 * starts it with and its ftrace call, both sites the core matches by form.
 */
static unsigned int ksplice_test_body(const struct ksplice_func *f)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return (memcmp(f->pre, endbr64, sizeof(endbr64)) ? 0 : 4) + 5;
}

static void ksplice_test_break_apply(struct ksplice_update *u,
				     struct ksplice_func *f, int bad)
{
	struct ksplice_object *o = (struct ksplice_object *)u->objs;
	struct ksplice_func *g = f + 1;

	switch (bad) {
	case 100:
		((unsigned char *)f->pre)[ksplice_test_body(f)] ^= 0xff;
		break;
	case 101:
		ksplice_test_reloc(f, "ksplice_test_counter")->symbol = "ksplice_test_op";
		break;
	case 102:
		((unsigned char *)ksplice_test_reloc(f, "")->expect)[0] ^= 1;
		break;
	case 103:
		f->name = "ksplice_no_such_function";
		break;
	case 104:
		((struct ksplice_reloc *)f->new_relocs)[1].symbol = "ksplice_no_such_symbol";
		break;
	/* The first function moves to the spare object, of no module. */
	case 105:
		o[1].funcs = f;
		o[1].nr_funcs = 1;
		o[0].funcs = f + 1;
		o[0].nr_funcs--;
		u->nr_objs = 2;
		break;
	case 106:
		ksplice_test_reloc(f, "__x86_indirect_thunk_")->symbol = "__x86_indirect_thunk_rbx";
		break;
	case 107:
		*g = *f;
		break;
	/* The jump label's jmp goes one byte further in the pre object. */
	case 109:
		ksplice_test_break_jl(u, f);
		break;
	/* What the core must never patch: itself, and stop_machine's code. */
	case 110:
		o[0].name = "ksplice";
		break;
	case 111:
		o[0].name = "vmlinux";
		f->unit = "kernel/stop_machine.c";
		break;
	/* The spare function, ksplice_test_wrapper, replaces the last. */
	case 108:
		f[u->objs->nr_funcs - 1] = f[u->objs->nr_funcs];
		break;
	/* The second spare, ksplice_test_jl_nt, replaces the last. */
	case 112:
		f[u->objs->nr_funcs - 1] = f[u->objs->nr_funcs + 1];
		break;
	}
}

void ksplice_test_break(struct ksplice_update *u, int bad)
{
	struct ksplice_func *f = (struct ksplice_func *)u->objs->funcs;

	ksplice_test_break_reg(u, f, bad);
	ksplice_test_break_apply(u, f, bad);
	ksplice_test_break_data(u, bad);
}
