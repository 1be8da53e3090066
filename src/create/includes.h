/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The include graph of a kernel tree, read from its #include lines: which
 * compilation units a changed header (or an #included .c) reaches.
 */
#ifndef KSPLICE_INCLUDES_H
#define KSPLICE_INCLUDES_H

#include <stdbool.h>
#include <stddef.h>

/* What reading the tree took: its files, and those not in the cache. */
struct includes_stats {
	size_t files, read;
};

/*
 * Marks in @affected each of @units ("fs/ext4/inode.o", built from
 * <src>/fs/ext4/inode.c) whose source includes one of @files (paths in
 * the source tree), directly or through other files; @obj holds the
 * generated headers.  Conservative: an #include it cannot place links to
 * every file of that name.  Returns the number marked, or -1; @per_file
 * (NULL or one per file) says how many of @units each file reaches (a
 * unit's own .c reaches it).  @cache (NULL: none) is where the tree's
 * include lines are kept between calls; @stats (or NULL) is filled in.
 */
long includes_affected(const char *src, const char *obj, const char *cache,
		       char *const *files, size_t nr_files, char *const *units,
		       size_t nr_units, bool *affected, long *per_file,
		       struct includes_stats *stats);

#endif
