/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure layouts before and after the patch (layout.c).
 */
#ifndef KSPLICE_LAYOUT_H
#define KSPLICE_LAYOUT_H

#include <stdio.h>
#include "util.h"

/*
 * Adds to @changed ("struct NAME") every struct or union whose layout
 * differs between objects @pre and @post of @unit, and says so on @log.
 */
int layout_diff(const char *pre, const char *post, const char *unit,
		struct strv *changed, FILE *log);

#endif
