/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The #include lines of a tree's files as the last create read them, kept
 * beside the prepared tree: a later create reads again only the files
 * that changed since (another inode, size or modification time).  Not
 * seen: a file rewritten in place to the same size with its old time put
 * back (touch -r, cp -p onto it); the status change time cannot tell,
 * every create's hard-link copy of the tree changes it.  MAGIC in
 * includes-cache.c changes with the way lines are read.
 */
#ifndef KSPLICE_INCLUDES_CACHE_H
#define KSPLICE_INCLUDES_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* One file of the tree: where it is, what it was when read, its lines. */
struct inc_file {
	char *path;			/* "src/include/linux/fs.h" */
	char **incs;			/* '<' or '"', then the name */
	size_t nr_incs;
	unsigned long long ino, size;
	struct timespec mtime;
};

struct inc_cache;

/*
 * The cache at @path (NULL: none); one that is missing, of another
 * format or cut short is empty, never an error (it is only a cache).
 */
struct inc_cache *inc_cache_load(const char *path);
/*
 * If the cache holds @f->path as @st describes it, moves its lines into
 * @f (ino, size and mtime too) and returns true.
 */
bool inc_cache_take(struct inc_cache *c, struct inc_file *f,
		    const struct stat *st);
/*
 * Writes @files to the cache's path if they differ from what it held
 * (@nr_read of them read again, others added or gone), but not those
 * modified since @began - 2 s, when the walk began: a file changed
 * again within its timestamp's granularity would look unchanged.  Then
 * frees @c.  Returns -1 if the cache could not be written (the walk's
 * result stands).
 */
int inc_cache_save(struct inc_cache *c, struct inc_file *const *files,
		   size_t nr, size_t nr_read, struct timespec began);
/* Frees @c, writing nothing (the walk failed). */
void inc_cache_drop(struct inc_cache *c);

#endif
