/* SPDX-License-Identifier: GPL-2.0 */
/* The exports a patch adds: see newexports.c. */
#ifndef KSPLICE_NEWEXPORTS_H
#define KSPLICE_NEWEXPORTS_H

#include <stdio.h>
#include "manifest.h"
#include "newobj.h"
#include "update.h"

/* Is @s (of the post object) the ksymtab entry of an export pre lacks? */
bool export_is_new(const struct object *pre, const struct symbol *s);
/* What ksymtab entry @s exports: the global symbol of @post, or NULL. */
const struct symbol *export_target(const struct object *post,
				   const struct symbol *s);
/*
 * How many exports unit @u adds that the update carries (all new code,
 * and of object @only if it is set); each one named to @log, and why one
 * is not carried.
 */
size_t exports_new(const struct unit *u, const char *only, FILE *log);
/* Does the update carry export entry @s of @u? */
bool export_carried(const struct unit *u, const struct symbol *s);
/* Does the object at @post_path export a name the one at @pre_path does not? */
bool exports_added(const char *pre_path, const char *post_path);
/*
 * update.c's tables of the exports of @target's units (object @k), and
 * how many of each kind; then the fields of its struct ksplice_object.
 */
int exports_emit(FILE *out, const struct update *u, struct newobj **nos,
		 const char *target, size_t k, unsigned int *nr_plain,
		 unsigned int *nr_gpl);
void exports_emit_fields(FILE *out, size_t k, unsigned int nr_plain,
			 unsigned int nr_gpl);
/* Adds the exports unit @u adds to @m. */
void exports_to_manifest(const struct unit *u, struct manifest *m);

#endif
