/* SPDX-License-Identifier: GPL-2.0 */
/* The exports a patch adds: see newexports.c. */
#ifndef KSPLICE_NEWEXPORTS_H
#define KSPLICE_NEWEXPORTS_H

#include <stdio.h>
#include "update.h"

/* How many exports unit @u adds; each one named to @log. */
size_t exports_new(const struct unit *u, FILE *log);

#endif
