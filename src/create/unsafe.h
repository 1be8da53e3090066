/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSPLICE_UNSAFE_H
#define KSPLICE_UNSAFE_H

#include "update.h"

/* Refuses (an error each, their count) changes to code that patching runs. */
int unsafe_check(const struct update *u);

#endif
