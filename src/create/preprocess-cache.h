/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The preprocessed text of units in the prepared tree, kept beside it
 * (<tree>/cpp/): the side before the patch is the same for every patch of
 * a tree, and a header with thousands of includers takes an hour to
 * preprocess twice.  A text is kept with Kbuild's command that made it and
 * the digest of every file its line markers name; it is used only for the
 * same command while each of those files has the same contents.  Not
 * seen: a file the command did not find then but would find now ahead of
 * the one it used (a header made later in an earlier directory of the
 * search path; Kbuild makes its generated headers before any unit).
 */
#ifndef KSPLICE_PREPROCESS_CACHE_H
#define KSPLICE_PREPROCESS_CACHE_H

#include <stddef.h>
#include <time.h>

struct cpp_cache;

/*
 * The cache in directory @dir of commands run in @obj, of the tree whose
 * source is @src (a copy's texts serve the others); a text that names
 * a file modified at @since or later (unless NULL) is not kept: the file
 * may have changed after the text was made.  File times are the kernel's
 * coarse clock (CLOCK_REALTIME_COARSE).
 */
struct cpp_cache *cpp_cache_open(const char *dir, const char *src,
				 const char *obj, const struct timespec *since);
void cpp_cache_close(struct cpp_cache *c);
/*
 * @cmd's text, NUL terminated, at the start of *@buf (*@cap bytes,
 * malloc'ed; grown, or allocated if NULL: it stays the caller's either
 * way), *@len bytes, and 0; -1 if there is none to use (never an error:
 * it is only a cache).
 */
int cpp_cache_load(struct cpp_cache *c, const char *cmd, char **buf,
		   size_t *cap, size_t *len);
/* Keeps @buf, @cmd's text, if every file it names can be trusted. */
void cpp_cache_store(struct cpp_cache *c, const char *cmd, const char *buf,
		     size_t len);

#endif
