/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSPLICE_LOAD_SYMBOLS_H
#define _KSPLICE_LOAD_SYMBOLS_H

#include "update-file.h"

/*
 * Writes into the update module @ko the addresses, from /proc/kallsyms,
 * of the load symbols @m lists.  Returns 0, or -1 after saying why (the
 * target module is not loaded, say); then @ko must not be loaded.
 */
int load_symbols_set(const char *ko, const struct manifest *m);

/* After the build: the module cannot load until they are set. */
int load_symbols_require(const char *ko, size_t nr);

#endif
