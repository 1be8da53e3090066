/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ksplice-create needs to know of the instruction set: the references
 * from code to code that the assembler resolved itself (no relocation),
 * as objtool's arch interface keeps decoding behind arch_decode_instruction().
 */
#ifndef KSPLICE_ARCH_H
#define KSPLICE_ARCH_H

#include "elf.h"

/* A PC-relative reference of an instruction: a branch, a call, a lea. */
struct arch_ref {
	unsigned long field;		/* offset of its displacement field */
	unsigned int size;		/* of the field: 1 or 4 bytes */
	unsigned long end;		/* offset of the next instruction */
	unsigned long dest;		/* where it points (section offset) */
};

typedef int (*arch_ref_fn)(const struct arch_ref *ref, void *arg);

/*
 * Decodes [start, end) of @sec and calls @fn for each PC-relative
 * reference; stops at @fn's first non-zero return, which it returns.
 * -1 if an instruction cannot be decoded.
 */
int arch_for_each_ref(const struct section *sec, unsigned long start,
		      unsigned long end, arch_ref_fn fn, void *arg);

#endif
