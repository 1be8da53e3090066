/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frame of the self-test update modules written by gen-update.py: the
 * replacement code as raw bytes in the module's text, the update
 * structure, and bad=N, which breaks the update in a known way before
 * registering it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <generated/utsrelease.h>
#include "ksplice-update.h"

/* @code: assembler lines; @returns: its .return_sites entries. */
#define KSPLICE_NEW_CODE(sym, code, returns)				\
	extern unsigned char sym[], sym##_end[];			\
	asm(".pushsection .text.ksplice_" #sym ",\"ax\",@progbits\n"	\
	    ".balign 16\n" #sym ":\n" code "\n"				\
	    #sym "_end:\n.popsection\n"					\
	    ".pushsection .return_sites,\"a\"\n" returns ".popsection\n")

#define KSPLICE_FUNC(fname, ftarget, i) {				\
	.name = fname, .unit = "target.c",				\
	.pre = pre##i, .pre_size = sizeof(pre##i),			\
	.pre_relocs = pre_relocs##i,					\
	.nr_pre_relocs = ARRAY_SIZE(pre_relocs##i) - 1,			\
	.pre_sites = pre_sites##i,					\
	.nr_pre_sites = ARRAY_SIZE(pre_sites##i) - 1,			\
	.new_code = new##i,						\
	.new_relocs = new_relocs##i,					\
	.nr_new_relocs = ARRAY_SIZE(new_relocs##i) - 1,			\
	}

/* A function only the new code has (a NEW of gen-update.py). */
#define KSPLICE_ADDED(fname, i) {					\
	.name = fname, .unit = "target.c",				\
	.new_code = add##i,						\
	.new_relocs = add_relocs##i,					\
	.nr_new_relocs = ARRAY_SIZE(add_relocs##i) - 1,			\
	}

/* Sizes of the raw new code, known only at link time. */
#define KSPLICE_SIZES(i)						\
	funcs[i].new_size = new##i##_end - new##i
#define KSPLICE_ADDED_SIZE(i)						\
	new_funcs[i].new_size = add##i##_end - add##i

void ksplice_test_break(struct ksplice_update *u, int bad);
void ksplice_test_cb(struct ksplice_update *u, int cb, unsigned int nr_new);

#define KSPLICE_UPDATE(uid, target)					\
	static int bad, cb;						\
	module_param(bad, int, 0);					\
	module_param(cb, int, 0);					\
	static struct ksplice_object objs[] = {				\
		{ .name = target, .funcs = funcs,			\
		  .nr_funcs = ARRAY_SIZE(funcs) - KSPLICE_SPARE,	\
		  .new_funcs = new_funcs },				\
		{ .name = "no_such_module" },	/* spare: bad=105 */	\
	};								\
	static struct ksplice_update update = {				\
		.abi = KSPLICE_ABI_VERSION,				\
		.id = uid,						\
		.kernel_release = UTS_RELEASE,				\
		.mod = THIS_MODULE,					\
		.objs = objs,						\
		.nr_objs = 1,						\
	};								\
	static int __init ksplice_update_init(void)			\
	{								\
		ksplice_test_sizes();					\
		ksplice_test_break(&update, bad);			\
		ksplice_test_cb(&update, cb, ARRAY_SIZE(new_funcs) - 1);	\
		return ksplice_register_update(&update);		\
	}								\
	static void __exit ksplice_update_exit(void)			\
	{								\
		ksplice_unregister_update(&update);			\
	}								\
	module_init(ksplice_update_init);				\
	module_exit(ksplice_update_exit);				\
	MODULE_LICENSE("GPL")
