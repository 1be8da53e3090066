/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers in preprocessed text that are only a line (cpplines.c). */
#ifndef KSPLICE_CPPLINES_H
#define KSPLICE_CPPLINES_H

#include "cpptok.h"

/* No token hashes to it: names are 256 + id, counters 1 << 33 + rank. */
#define CPP_LINE	(1ULL << 34)

/*
 * What to hash for @t[i] (its chunk is [@s, @e)) if it is only a line,
 * or 0: it is compared.
 */
uint64_t cpp_line(const struct names *n, const struct tok *t, size_t s,
		  size_t e, size_t i);

#endif
