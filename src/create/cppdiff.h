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
 * The memory of one comparison, kept for the next: a unit's text is
 * megabytes, and its tokens, chunks and names tens of them, which fresh
 * pages for every unit made the larger part of the comparison's time.
 */
struct cpp_scratch;

struct cpp_scratch *cpp_scratch_new(void);
void cpp_scratch_free(struct cpp_scratch *s);

/*
 * Compares two outputs of gcc -E (NUL-terminated), in @s.  False only
 * when the two can only compile to the same code; see cppdiff.c for the
 * rules.
 */
void cpp_compare(struct cpp_scratch *s, const char *pre, const char *post,
		 struct cpp_verdict *v);

#endif
