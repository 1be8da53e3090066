/* SPDX-License-Identifier: GPL-2.0 */
/* The new-code object of one compilation unit: see newobj.c. */
#ifndef KSPLICE_NEWOBJ_H
#define KSPLICE_NEWOBJ_H

#include <stdio.h>
#include "update.h"

struct orel {
	unsigned long offset;
	unsigned int type;
	long addend;
	int osec;			/* target: a section of ours, or -1 */
	int undef;			/* target: an undefined name, or -1 */
};

struct osec {
	char *name;
	const struct section *from;
	unsigned long start;		/* copied range of @from */
	GElf_Shdr sh;
	unsigned char *data;
	size_t size;
	struct orel *relocs;
	size_t nr_relocs;
	const struct symbol *func;	/* when it is a copied function */
	bool global;			/* a new global: other units call it */
	const struct special *special;	/* when it is a special table */
	bool scanned;
};

/* A variable the patch adds, carried in section @osec at @off. */
struct ovar {
	const struct symbol *sym;
	size_t osec;
	unsigned long off;
};

struct kreloc {
	const struct symbol *func;
	unsigned long offset;
	unsigned int type;
	long addend;
	const char *name;
	bool export;		/* another module's export (KSPLICE_RELOC_EXPORT) */
};

struct newobj {
	const struct update *update;
	const struct unit *unit;
	const struct exports *exports;
	struct load_syms *load_syms;
	unsigned int nr;
	struct osec *secs;
	size_t nr_secs;
	const char **undefs;
	size_t nr_undefs;
	struct kreloc *krelocs;
	size_t nr_krelocs;
	const struct symbol **statics;	/* static locals new code refers to */
	const struct symbol **static_users;	/* a new-code function using each */
	size_t nr_statics;
	struct ovar *vars;		/* new variables, named for later updates */
	size_t nr_vars;
	int errors;
};

struct newobj *newobj_build(const struct update *u, unsigned int unit_nr);
int newobj_write(const struct newobj *no, const char *path);
const char *newobj_func_symbol(const struct newobj *no, const struct symbol *post);
/* The global name of new variable @k (no->vars[k]) in the object. */
const char *newobj_var_symbol(const struct newobj *no, size_t k);
void newobj_print_ksplice_relocs(const struct newobj *no,
				 const struct symbol *post, FILE *out,
				 const char *prefix);
size_t newobj_count_ksplice_relocs(const struct newobj *no,
				   const struct symbol *post);
void newobj_print_statics(const struct newobj *no, FILE *out,
			  const char *prefix);
void newobj_print_refs(const struct newobj *no, FILE *out);
void newobj_free(struct newobj *no);

#endif
