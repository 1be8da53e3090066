/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emitting an update: the new code as a relocatable object (new.o) and the
 * tables the core reads (update.c), for Kbuild to link into one module.
 */
#ifndef KSPLICE_EMIT_H
#define KSPLICE_EMIT_H

#include "update.h"

/*
 * Writes <dir>/new.o_shipped, <dir>/update.c and <dir>/Kbuild for the
 * module ksplice_<id>.  Returns 0, or -1 after printing why to stderr.
 */
int emit_update(const struct update *u, const char *dir);

#endif
