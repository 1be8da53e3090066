/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between an update module and the ksplice core.
 *
 * ksplice-create generates, for each update, a module "ksplice_<id>" whose
 * init registers one struct ksplice_update with the core and whose exit
 * unregisters it.  Everything here is data the core validates before use:
 * an update module is built by a userspace tool and is not trusted.
 */
#ifndef _KSPLICE_UPDATE_H
#define _KSPLICE_UPDATE_H

#define KSPLICE_ABI_VERSION	12	/* 6: hooks; 7: new_vars, FUNC_GLOBAL;
					 * 8: data (read-only data patched in
					 * place); 9: ksplice_data.flags
					 * (callback fields of writable data);
					 * 10: ksplice_data.anchors;
					 * 11: ksplice_reloc.flags;
					 * 12: ksplice_object.exports */
#define KSPLICE_ID_MAX		32
#define KSPLICE_MAX_FUNCS	4096
#define KSPLICE_MAX_CODE	(1 << 20)
#define KSPLICE_MAX_RELOCS	65536

/*
 * Sites the running kernel rewrites after compilation, recorded by the
 * compiler or objtool in special sections of the pre object.  Matching
 * accepts at such a site exactly the forms the rewrite can produce.  The
 * relocation of the site's call or jump is listed in pre_relocs as well:
 * it names the function the site called (__fentry__, a thunk).
 */
enum ksplice_site_kind {
	KSPLICE_SITE_MCOUNT = 1,	/* __mcount_loc: call __fentry__ */
	KSPLICE_SITE_RETURN,		/* .return_sites: jmp __x86_return_thunk */
	KSPLICE_SITE_RETPOLINE,		/* .retpoline_sites: call/jmp thunk */
	KSPLICE_SITE_STATIC_CALL,	/* .static_call_sites: call/jmp __SCT__x */
	KSPLICE_SITE_ALT,		/* .altinstructions: original or @alt */
	KSPLICE_SITE_LOCK,		/* .smp_locks: lock prefix, ds on UP */
	KSPLICE_SITE_PARAVIRT,		/* .parainstructions: call *pv_ops+x */
	KSPLICE_SITE_JUMP_LABEL,	/* __jump_table: nop or jmp target */
	KSPLICE_SITE_CALL,		/* .call_sites: call func, or its thunk */
	KSPLICE_SITE_MAX,
};

/*
 * The kinds after KSPLICE_SITE_STATIC_CALL use the fields below:
 *  - ALT: @len bytes (the entry's instrlen) hold either the pre bytes or
 *    the @alt_len bytes of @alt, padded with nops; its relocations are
 *    @alt_relocs, offsets relative to @alt.  Several ALT sites at one
 *    offset are the alternatives of one ALTERNATIVE_2.
 *  - LOCK: one byte; no reloc.
 *  - PARAVIRT: @len bytes, starting with the indirect call whose pre reloc
 *    names pv_ops; @aux is the entry's type.
 *  - JUMP_LABEL: the jmp or nop of the site; @alt_relocs[0] is where it
 *    jumps (symbol + addend; its offset and type are unused).
 */
struct ksplice_site {
	unsigned int offset;		/* in the function */
	unsigned int kind;		/* enum ksplice_site_kind */
	unsigned int len;		/* ALT, PARAVIRT */
	unsigned int aux;		/* ALT: feature; PARAVIRT: type */
	const unsigned char *alt;	/* ALT: the replacement */
	unsigned int alt_len;
	unsigned int nr_alt_relocs;
	const struct ksplice_reloc *alt_relocs;
};

/*
 * A field of code that refers to a symbol.  The symbol's address S is the
 * address of the kallsyms symbol called @symbol, in @target.  A name means
 * one address in all code of one unit (C's scope: the unit's static, or
 * else the global); units may mean different ones.
 *
 * In pre code, matching reads S back from the running bytes
 * (PC-relative: S = field - addend + place; absolute: S = field - addend)
 * and checks it: a named symbol must be one kallsyms has under that name;
 * an anonymous one (a string literal, symbol == "") must hold @expect_len
 * bytes equal to @expect at S + @expect_off.
 *
 * In new code, the core writes S + addend (- place) into the field.
 */
struct ksplice_reloc {
	const char *symbol;
	const unsigned char *expect;
	unsigned int expect_len;
	unsigned int expect_off;
	unsigned int offset;		/* of the field, in the function */
	unsigned int type;		/* R_X86_64_* */
	long addend;
	unsigned int flags;		/* KSPLICE_RELOC_* */
};

/*
 * New code's reference to a symbol a module exports: resolved to the
 * global of the name in the target module or the modules it uses, as the
 * module loader would link it (not to a static of the name).
 */
#define KSPLICE_RELOC_EXPORT	0x1

/*
 * Other functions of the update have this one's name, target, pre code
 * and new code (a header's static emitted in several units): matching
 * cannot tell their copies apart, and need not, as any one-to-one pairing
 * replaces the same code with the same code.
 */
#define KSPLICE_FUNC_TWIN	0x1
/*
 * A new function with external linkage: code of any unit may call it by
 * its name; a new static one only code of its own @unit.
 */
#define KSPLICE_FUNC_GLOBAL	0x2
#define KSPLICE_FUNC_FLAGS	(KSPLICE_FUNC_TWIN | KSPLICE_FUNC_GLOBAL)

struct ksplice_func {
	const char *name;		/* kallsyms name of the old function */
	const char *target;		/* set by the core: its object's name */
	const char *unit;		/* its source file: where its static
					 * names mean something */
	unsigned int flags;		/* KSPLICE_FUNC_* */

	const unsigned char *pre;	/* its code as compiled (pre) */
	unsigned int pre_size;
	const struct ksplice_reloc *pre_relocs;
	unsigned int nr_pre_relocs;
	const struct ksplice_site *pre_sites;
	unsigned int nr_pre_sites;

	void *new_code;			/* the replacement, in the update module */
	unsigned int new_size;
	const struct ksplice_reloc *new_relocs;
	unsigned int nr_new_relocs;
};

/*
 * A symbol the module loader itself needs before the core can do anything:
 * the static key of a jump label in new code, or one referred to by other
 * data the loader reads, that the target does not export.  ksplice-apply
 * finds @name of @target in /proc/kallsyms and writes its address into the
 * update module's absolute symbol __ksplice_load_<index> before loading
 * it; the core checks @addr and keeps the module holding it loaded for as
 * long as the update is.
 */
struct ksplice_load_sym {
	const char *name;
	const char *target;
	const void *addr;
};

#define KSPLICE_MAX_LOAD_SYMS	1024

struct module;

/*
 * A cumulative update: built from the stock source with every fix so far,
 * it takes the place of every applied update in one step (its pre code is
 * the stock code, whatever ran before).
 */
#define KSPLICE_UPDATE_REPLACE	0x1
#define KSPLICE_UPDATE_FLAGS	KSPLICE_UPDATE_REPLACE

/*
 * The functions of an update in one target, vmlinux or a module (as
 * livepatch's klp_object): the functions leave @target unset, the core
 * sets it from @name.
 */
#define KSPLICE_MAX_OBJS	64

/*
 * A hook of the patch author's (include/ksplice/hooks.h, where the kinds
 * are defined with the same numbers and the contract is written): one of
 * the object's new functions, run by the core when the object is patched
 * or unpatched.  PRE_APPLY and PRE_UNDO are int (*)(char *why, size_t
 * len), the others void (*)(void).
 */
enum ksplice_hook_kind {
	KSPLICE_HOOK_PRE_APPLY = 1,
	KSPLICE_HOOK_STOP_APPLY,
	KSPLICE_HOOK_POST_APPLY,
	KSPLICE_HOOK_PRE_UNDO,
	KSPLICE_HOOK_STOP_UNDO,
	KSPLICE_HOOK_POST_UNDO,
	KSPLICE_HOOK_MAX,
};

#define KSPLICE_MAX_HOOKS	256	/* of one object */

struct ksplice_hook {
	unsigned int kind;		/* enum ksplice_hook_kind */
	void *fn;			/* the new_code of one of new_funcs */
};

/*
 * A variable the update adds (one the patch defines), in the update
 * module at @addr.  An update built later from a tree with this patch
 * refers to it by @name from code of @unit (of any unit if it is
 * KSPLICE_VAR_GLOBAL): the core proves such a reference against @addr,
 * and keeps this update while the later one uses it.
 */
#define KSPLICE_VAR_GLOBAL	0x1
#define KSPLICE_VAR_FLAGS	KSPLICE_VAR_GLOBAL
#define KSPLICE_MAX_VARS	4096

struct ksplice_var {
	const char *name;
	const char *unit;
	unsigned int flags;		/* KSPLICE_VAR_* */
	const void *addr;
	unsigned long size;
};

/*
 * A read-only variable of the running kernel whose initial value the
 * patch changes (a netlink policy, an ops table).  Its running value is
 * its initial value, so the change is exact: the core finds @name in
 * the target (the bindings of @unit first; among several of that name,
 * the one whose bytes are the pre image), and, in the stop that writes
 * the jumps, checks that the running bytes are the pre image and writes
 * the post image; undo checks for the post image and writes the pre one
 * back.  An image is @pre (or @post) with each relocation's field
 * holding S + addend, S the address of its symbol: in the pre image, S
 * is read back from the running bytes and proven to be an address of
 * that name, as in pre code; in the post image, it is resolved as for
 * new code.  Relocations are R_X86_64_64 only, named, inside the
 * variable and not overlapping.  The variable must lie in the target's
 * read-only data (not __ro_after_init), unless KSPLICE_DATA_FIELDS.
 */
/*
 * KSPLICE_DATA_FIELDS: the variable is writable (the kernel changes some
 * of it as it runs: a list head, a counter), and only some 8-byte fields
 * of it change, each a callback: NULL, or a function's address.  The
 * fields are the offsets of @pre_relocs and @post_relocs (a field NULL on
 * one side has a relocation on the other only); nothing else of the
 * variable is compared or written.  At apply each field's running value
 * must be the pre image's (NULL, or the address its pre relocation is
 * proven to name) and becomes the post image's; undo the reverse.  A post
 * relocation may name a function the update adds (one of new_funcs of the
 * same target, of @unit or global): the field then points into the update
 * module, which stays while the update is applied.  The variable must lie
 * in the target's writable data; found by the unit's bindings, or else by
 * a name unique in the target.
 *
 * A field at the right offset holding NULL says little about whether the
 * running variable is laid out as the pre object's: @anchors are the
 * variable's other references that the kernel does not change as it runs
 * and the patch leaves as they are (a function's address, an extern's
 * such as THIS_MODULE), each proven at apply as a pre relocation is:
 * the running field must hold what the name means to the unit.  They
 * are never written.  Only with KSPLICE_DATA_FIELDS; 8-aligned, without
 * addend, sorted, and at no offset of a callback field.
 */
#define KSPLICE_DATA_FIELDS	0x1
#define KSPLICE_DATA_FLAGS	KSPLICE_DATA_FIELDS

#define KSPLICE_MAX_DATA	1024	/* of one object */
#define KSPLICE_MAX_DATA_SIZE	(1 << 16)

struct ksplice_data {
	const char *name;		/* kallsyms name of the variable */
	const char *target;		/* set by the core: its object's name */
	const char *unit;		/* its source file */
	unsigned int size;
	const unsigned char *pre;	/* @size bytes each */
	const struct ksplice_reloc *pre_relocs;
	unsigned int nr_pre_relocs;
	const unsigned char *post;
	const struct ksplice_reloc *post_relocs;
	unsigned int nr_post_relocs;
	unsigned int flags;		/* KSPLICE_DATA_*, ABI 9 */
	const struct ksplice_reloc *anchors;	/* ABI 10 */
	unsigned int nr_anchors;
};

/*
 * An export the patch adds: the kernel's struct kernel_symbol with
 * position-relative fields (x86-64), as the module loader would read it.
 */
struct ksplice_export {
	int value_offset;
	int name_offset;
	int namespace_offset;
};

#define KSPLICE_MAX_EXPORTS	1024

struct ksplice_object {
	const char *name;		/* "vmlinux" or a module name */
	const struct ksplice_func *funcs;
	unsigned int nr_funcs;
	/*
	 * Functions only the new code has (a helper the patch adds): they
	 * replace nothing, so only @name (the new name), @unit and the
	 * new_* fields are set.  The core relocates them with the
	 * functions of their target, and undo refuses while a task is inside
	 * one, as inside a replacement: a helper that a replacement
	 * tail-calls runs with no replacement on the stack.
	 */
	const struct ksplice_func *new_funcs;
	unsigned int nr_new_funcs;
	/* In the order they run, for each kind. */
	const struct ksplice_hook *hooks;
	unsigned int nr_hooks;
	const struct ksplice_var *new_vars;
	unsigned int nr_new_vars;
	const struct ksplice_data *data;	/* ABI 8 */
	unsigned int nr_data;
	/*
	 * The exports the patch adds to this object (ABI 12), each table
	 * sorted by name, with its symbol versions (NULL if the kernel has
	 * none): the core makes them the update module's own while the
	 * object's new code is live (exports.c).  One object at most.
	 */
	const struct ksplice_export *exports;
	const int *export_crcs;
	unsigned int nr_exports;
	const struct ksplice_export *gpl_exports;
	const int *gpl_export_crcs;
	unsigned int nr_gpl_exports;
};

struct ksplice_update {
	unsigned int abi;		/* KSPLICE_ABI_VERSION */
	const char *id;			/* [0-9a-z_], at most KSPLICE_ID_MAX */
	const char *kernel_release;	/* must equal the running uname -r */
	unsigned int flags;		/* KSPLICE_UPDATE_* */
	struct module *mod;
	const struct ksplice_object *objs;
	unsigned int nr_objs;
	const struct ksplice_load_sym *load_syms;
	unsigned int nr_load_syms;

	/*
	 * Set by the core when it registers the update: every object's
	 * functions (and data) in one array, each with its target.
	 */
	const struct ksplice_func *funcs;
	unsigned int nr_funcs;
	const struct ksplice_func *new_funcs;
	unsigned int nr_new_funcs;
	const struct ksplice_data *data;
	unsigned int nr_data;
	void *core;			/* the core's, never the update's */
};

int ksplice_register_update(struct ksplice_update *update);
void ksplice_unregister_update(struct ksplice_update *update);

#endif /* _KSPLICE_UPDATE_H */
