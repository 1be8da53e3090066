/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The update model: what ksplice-create has found once the units are
 * diffed -- each changed unit with its objects, its diff and its hooks --
 * and the names the new code may resolve (the target's exports, and the
 * load symbols ksplice-apply sets).  newobj.c builds new code from it and
 * emit.c writes the module's sources from it.
 */
#ifndef KSPLICE_UPDATE_H
#define KSPLICE_UPDATE_H

#include <stdbool.h>
#include "diff.h"
#include "hooks.h"

/* Names the target kernel's module loader resolves (Module.symvers). */
struct export {
	char *name;
	char *ns;			/* EXPORT_SYMBOL_NS's namespace, or NULL */
	bool in_module;			/* a module's, not vmlinux's */
};

struct exports {
	struct export *v;		/* sorted by name */
	size_t nr;
};

int exports_read(const char *symvers, struct exports *ex);
const struct export *exports_find(const struct exports *ex, const char *name);

/*
 * Symbols the module loader needs that the target does not export (see
 * struct ksplice_load_sym): the k-th is the absolute __ksplice_load_<k>,
 * which ksplice-apply sets.
 */
struct load_syms {
	char **names;
	char **targets;
	char **refs;			/* "__ksplice_load_<k>" */
	size_t nr;
};

/* The symbol new code refers to for @name of @target; added if new. */
const char *load_sym_ref(struct load_syms *ls, const char *target,
			 const char *name);
const char *load_sym_name(const struct load_syms *ls, const char *ref);

struct unit {
	const char *source;		/* e.g. fs/proc/cmdline.c */
	const char *target;		/* "vmlinux" or a module name */
	struct object pre, post;
	struct diff diff;
	struct hooks hooks;		/* the patch author's (hooks.c) */
	size_t nr_new_exports;		/* exports it adds (newexports.c) */
};

struct update {
	const char *id;
	const char *kernel_release;
	bool replace;			/* --replace: KSPLICE_UPDATE_REPLACE */
	struct unit *units;
	size_t nr_units;
	const struct exports *exports;
	struct load_syms *load_syms;
};

#endif
