/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Special sections: tables the compiler and objtool emit beside the code,
 * each entry pointing into a function.  One table below describes them all;
 * it drives both the sites matching must understand in pre code and the
 * entries copied along with new code so the kernel treats it like its own.
 */
#ifndef KSPLICE_SPECIAL_H
#define KSPLICE_SPECIAL_H

#include "elf.h"

struct special {
	const char *name;
	unsigned int entry_size;
	unsigned int key_offset;	/* of the reloc that points at the code */
	unsigned int site_kind;		/* enum ksplice_site_kind, 0: none */
	const char *parallel;		/* a section indexed like this one */
	unsigned int parallel_size;	/* its entry size */
	bool pre_only;			/* not carried with new code */
};

extern const struct special special_sections[];
extern const unsigned int nr_special_sections;

/*
 * Calls fn for each entry of @sp in @obj whose key points into
 * [func start, func end); @offset is the site's offset in the function.
 */
typedef void (*special_fn)(const struct special *sp, const struct section *sec,
			   unsigned long entry, unsigned long offset, void *arg);
void special_for_each(const struct object *obj, const struct special *sp,
		      const struct symbol *func, special_fn fn, void *arg);

#endif
