/* SPDX-License-Identifier: GPL-2.0 */
/* The patch author's hooks of a unit (include/ksplice/hooks.h): hooks.c. */
#ifndef KSPLICE_CREATE_HOOKS_H
#define KSPLICE_CREATE_HOOKS_H

#include <stdio.h>
#include "diff.h"

struct hook {
	unsigned int kind;		/* enum ksplice_hook_kind */
	unsigned int line;		/* of its registration */
	const struct symbol *fn;	/* a new function of the post object */
};

struct hooks {
	struct hook *v;
	size_t nr;
};

/*
 * Reads the hooks the post object registers, each of which must be a
 * function the patch adds (in @d); prints each to @log.  Returns 0, or
 * -1 after printing why.
 */
int hooks_read(const struct object *post, const struct diff *d,
	       const char *source, struct hooks *h, FILE *log);
/* Does @h change live state at apply (a pre-, stop- or post-apply hook)? */
bool hooks_apply_any(const struct hooks *h);
const char *hook_kind_name(unsigned int kind);
void hooks_free(struct hooks *h);

#endif
