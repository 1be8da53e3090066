/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object diff: which functions of a compilation unit differ between the
 * object compiled before the patch and the one compiled after it.
 */
#ifndef KSPLICE_DIFF_H
#define KSPLICE_DIFF_H

#include <stdio.h>
#include "elf.h"

/*
 * What a relocation points at, independent of where the compiler put
 * things: a named symbol plus an offset from its start, or anonymous data
 * (a string literal, a merged constant) identified by its bytes.
 */
struct target {
	const char *name;		/* NULL: anonymous */
	const struct symbol *sym;	/* the named symbol, if defined here */
	long addend;			/* from the named symbol's start */
	const struct section *sec;	/* anonymous: the section it is in */
	unsigned long off;		/* anonymous: where its bytes start */
	const unsigned char *bytes;	/* anonymous: its bytes */
	size_t len;
};

void diff_target(const struct object *obj, const struct reloc *r,
		 struct target *t);

/* static_cpu_has()'s test of a feature bit, out of line (diff.c). */
#define AUX_BLOCK	18
bool diff_aux_block(const struct section *sec, unsigned long off);
bool diff_same_target(const struct target *a, const struct target *b);

/*
 * The pre symbol a post symbol stands for (names of static locals move);
 * none for a table of label addresses, which new code carries.
 */
const struct symbol *diff_counterpart(const struct object *pre,
				      const struct symbol *post);

/* What statics.c found for a post static local (symbol->local). */
enum diff_local {
	LOCAL_UNSEEN,		/* not a static local, or not paired yet */
	LOCAL_NEW,		/* no counterpart: the update carries its own */
	LOCAL_BOUND,		/* ->twin is its pre counterpart */
	LOCAL_AMBIGUOUS,	/* the pre function has several it may be */
	LOCAL_RESIZED,		/* its counterpart has another size */
	LOCAL_FRESH,		/* a rate limit's state of those: carried anew */
	LOCAL_CARRIED,		/* a constant no replaced code proves: carried */
	LOCAL_CONST_COPY,	/* not a static local: a changed constant (data.c) */
};

/* x.N: a static local gcc numbered per unit.  Returns the length of x, or 0. */
size_t diff_numbered_base(const char *name);
bool diff_is_static_local(const struct symbol *s);
/* Same size and initial bytes (.bss holds zeros)? */
bool diff_same_contents(const struct symbol *a, const struct symbol *b);
/* Pairs post static locals with pre ones through the paired functions. */
void diff_pair_statics(const struct object *pre, struct object *post);
struct diff;
/* Carries the bound constants that no function @d replaces refers to. */
void diff_carry_unproven_constants(const struct object *pre,
				   struct object *post, const struct diff *d);
/* Why @s (LOCAL_AMBIGUOUS or LOCAL_RESIZED) cannot be bound, for an error. */
const char *diff_local_problem(const struct symbol *s);

enum change_kind { FUNC_CHANGED, FUNC_NEW };

struct change {
	enum change_kind kind;
	struct symbol *pre;		/* NULL for FUNC_NEW */
	struct symbol *post;
	bool twin;			/* the same change is in another unit */
};

/* An existing variable whose size or initial contents changed (data.c). */
struct data_change {
	const struct symbol *pre, *post;
	const char *what;		/* "size", "initial value", ... */
	bool in_place;			/* the core patches it */
	unsigned int nr_fields;		/* in place, writable: its callback
					 * fields (datafields.c), else 0 */
};

struct diff {
	struct change *changes;
	size_t nr_changes;
	struct data_change *data;
	size_t nr_data;
	size_t nr_table_changes;	/* boot tables' entries (boottables.c) */
};

/*
 * The entries of tables the kernel built at boot (PCI quirks) that @post
 * adds, drops or changes, reported to @log; how many (boottables.c).
 */
size_t diff_boot_tables(const struct object *pre, const struct object *post,
			FILE *log);

/* Compare every function of @pre and @post; report notes to @log. */
int diff_objects(const struct object *pre, struct object *post,
		 struct diff *d, FILE *log);
void diff_free(struct diff *d);

/* Their relocations, at the same offsets, point at the same things? */
bool diff_same_relocs(const struct object *oa, const struct symbol *a,
		      const struct object *ob, const struct symbol *b,
		      bool lines);
bool diff_same_function(const struct object *oa, const struct symbol *a,
			const struct object *ob, const struct symbol *b);

/* Functions run only at boot or module load; a change there cannot apply. */
bool diff_is_init_section(const struct section *sec);
/* Data used only at boot or module load (__initdata). */
bool diff_is_init_data(const struct section *sec);

/*
 * Marks the changed constants that only code refers to LOCAL_CONST_COPY:
 * carried anew, and the functions using them replaced (data.c).
 */
void diff_const_copies(const struct object *pre, struct object *post, FILE *log);
/*
 * Why the change of writable @a to @b is more than callback fields, or
 * NULL with their number in *@nr (datafields.c).
 */
const char *diff_fields_problem(const struct object *pre,
				const struct symbol *a,
				const struct object *post,
				const struct symbol *b, unsigned int *nr);
/* Is the 8 bytes at @off of @a/@b one of those fields? */
bool diff_is_field(const struct object *pre, const struct symbol *a,
		   const struct object *post, const struct symbol *b,
		   unsigned long off);

/*
 * Is @r, a reference of the pre image @a, one the core proves but does
 * not write (an anchor); how many @a has.
 */
bool diff_is_anchor(const struct object *pre, const struct symbol *a,
		    const struct object *post, const struct symbol *b,
		    const struct reloc *r);
unsigned int diff_anchors(const struct object *pre, const struct symbol *a,
			  const struct object *post, const struct symbol *b);

/* Finds the existing variables whose contents the patch changes; notes to @log. */
void diff_data(const struct object *pre, const struct object *post,
	       struct diff *d, FILE *log);

#endif
