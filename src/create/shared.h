/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSPLICE_SHARED_H
#define KSPLICE_SHARED_H

#include "elf.h"

/* Adds the relocations the assembler left out between functions. */
int shared_add_relocs(struct object *obj);
/* 0 if every reference of @f out of itself has a relocation; else why. */
int shared_check(const struct object *obj, const struct symbol *f);

#endif
