/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSPLICE_MODINFO_H
#define _KSPLICE_MODINFO_H

/*
 * The modules @ko links against (its .modinfo "depends="), as a
 * NULL-terminated array for free_strv(v, -1); NULL if @ko cannot be read.
 */
char **modinfo_depends(const char *ko);

#endif
