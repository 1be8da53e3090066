/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Can a unit's code differ?  Decided from its preprocessed text before and
 * after a patch, far cheaper than compiling it twice.
 */
#ifndef KSPLICE_CPPDIFF_H
#define KSPLICE_CPPDIFF_H

#include <stdbool.h>
#include <stddef.h>

struct cpp_verdict {
	bool differs;
	char why[160];		/* what differs, for the log */
};

/*
 * Compares two outputs of gcc -E (NUL-terminated).  False only when the
 * two can only compile to the same code; see cppdiff.c for the rules.
 */
void cpp_compare(const char *pre, size_t pre_len, const char *post,
		 size_t post_len, struct cpp_verdict *v);

#endif
