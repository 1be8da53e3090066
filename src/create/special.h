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

/* Where a field of an entry is: its offset and width in bytes (0: none). */
struct special_field {
	unsigned char offset, width;
};

struct special {
	const char *name;
	unsigned int entry_size;
	unsigned int key_offset;	/* of the reloc that points at the code */
	unsigned int site_kind;		/* enum ksplice_site_kind, 0: none */
	const char *parallel;		/* a section indexed like this one */
	unsigned int parallel_size;	/* its entry size */
	bool pre_only;			/* not carried with new code */
	/* An entry's other fields, read only by special_entry_read(). */
	struct special_field new;	/* reloc: replacement, jump target */
	struct special_field aux;	/* cpu feature, paravirt type */
	struct special_field len;	/* of the site */
	struct special_field new_len;	/* of the replacement */
};

/* One entry, decoded (objtool's struct special_alt). */
struct special_entry {
	const struct reloc *new;	/* NULL when it has none */
	unsigned int aux, len, new_len;
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
/* Field @f of the entry at @entry (a copy of a special section's data). */
unsigned int special_field(const unsigned char *entry, struct special_field f);
/* Decodes the entry at @entry of @sec, a section @sp describes. */
void special_entry_read(const struct special *sp, const struct section *sec,
			unsigned long entry, struct special_entry *e);

#endif
