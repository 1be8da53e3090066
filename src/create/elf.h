/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One in-memory model of a relocatable x86-64 object, read with libelf.
 * Everything else in ksplice-create works on this model, never on raw ELF.
 */
#ifndef KSPLICE_ELF_H
#define KSPLICE_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <gelf.h>

struct symbol;

struct reloc {
	unsigned long offset;		/* in the section it applies to */
	unsigned int type;		/* R_X86_64_* */
	long addend;
	struct symbol *sym;
};

struct section {
	unsigned int index;
	char *name;
	GElf_Shdr sh;
	unsigned char *data;		/* NULL for SHT_NOBITS */
	size_t size;
	struct reloc *relocs;		/* sorted by offset */
	size_t nr_relocs;
	struct symbol *sym;		/* its STT_SECTION symbol, if any */
};

struct symbol {
	unsigned int index;
	char *name;
	GElf_Sym st;
	struct section *sec;		/* NULL when undefined or absolute */
	unsigned char bind, type;
	struct symbol *twin;		/* diff: its counterpart in the other object */
	unsigned char local;		/* diff: a static local's pairing (diff.h) */
	const struct symbol *user;	/* diff: a function referencing that local */
};

struct object {
	char *path;
	struct section *secs;
	size_t nr_secs;
	struct symbol *syms;
	size_t nr_syms;
};

int elf_object_read(const char *path, struct object *obj);
void elf_object_free(struct object *obj);

struct section *elf_find_section(const struct object *obj, const char *name);
struct symbol *elf_find_function(const struct object *obj, const char *name);

/* The named symbol a section-relative reference really means, if any. */
struct symbol *elf_symbol_at(const struct object *obj,
			     const struct section *sec, unsigned long offset);

/* Relocations of @sec whose offset lies in [start, end). */
size_t elf_relocs_in(const struct section *sec, unsigned long start,
		     unsigned long end, struct reloc **first);

/* The relocation of the field at @offset, or NULL. */
const struct reloc *elf_reloc_at(const struct section *sec,
				 unsigned long offset);

/* Bytes a relocation field of this type occupies (0: unsupported). */
unsigned int elf_reloc_size(unsigned int type);
bool elf_reloc_pc_relative(unsigned int type);

bool elf_is_function(const struct symbol *sym);

/* Function symbols at one address with one size are one function. */
bool elf_func_aliases(const struct symbol *a, const struct symbol *b);
/* The name that stands for @f and its aliases (@f itself if it has none). */
struct symbol *elf_func_primary(const struct object *obj,
				const struct symbol *f);

#endif
