/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A structure whose only change is the type of some pointer members
 * (cppmembers.c).
 */
#ifndef KSPLICE_CPPMEMBERS_H
#define KSPLICE_CPPMEMBERS_H

#include "cpptok.h"

/*
 * @a and @b (@na and @nb tokens, the ';' included) define one structure
 * or union alike but for members that are one plain pointer on both
 * sides, of the same name: true, with those names in @ids (at most @max,
 * their number in *@nr).  Code that does not name them compiles the same.
 */
bool cpp_pointer_members(const struct names *n, const struct tok *a,
			 size_t na, const struct tok *b, size_t nb,
			 uint32_t *ids, size_t max, size_t *nr);

#endif
