// SPDX-License-Identifier: GPL-2.0
/*
 * Putting the prepared tree's files back as the source has them, after
 * patch(1) failed halfway: the tree's files are hard links to the
 * source's (patch replaces a file by rename, so the source never sees a
 * change), and the one the source has is the one the tree must have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "patchfile.h"
#include "util.h"

#define RESTORE_MAX	(64 << 20)

/* A name patch(1) would not follow out of the tree: we will not either. */
static bool path_inside(const char *rel)
{
	const char *p = rel;

	if (*rel == '/')
		return false;
	while (p) {
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return false;
		p = strchr(p, '/');
		p = p ? p + 1 : NULL;
	}
	return true;
}

/* Whether @file is as @orig: the same file or bytes, or both absent. */
static bool same_as_source(const char *file, const char *orig)
{
	char *a = NULL, *b = NULL;
	size_t alen, blen;
	struct stat st, ost;
	bool same;

	if (lstat(orig, &ost))
		return errno == ENOENT && lstat(file, &st) && errno == ENOENT;
	if (lstat(file, &st))
		return false;
	if (st.st_dev == ost.st_dev && st.st_ino == ost.st_ino)
		return true;
	if (!S_ISREG(st.st_mode) || !S_ISREG(ost.st_mode))
		return false;
	same = !read_file(file, RESTORE_MAX, &a, &alen) &&
	       !read_file(orig, RESTORE_MAX, &b, &blen) &&
	       alen == blen && !memcmp(a, b, alen);
	free(a);
	free(b);
	return same;
}

/* The directories patch made for a file the source lacks, while empty. */
static void remove_new_dirs(const struct tree *t, const char *rel)
{
	char *dir = xstrdup(rel), *slash, *in_src, *in_tree;
	struct stat st;

	while ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		in_src = path_join(t->source, dir);
		in_tree = path_join(t->src, dir);
		if (!stat(in_src, &st) || rmdir(in_tree)) {
			free(in_src);
			free(in_tree);
			break;
		}
		free(in_src);
		free(in_tree);
	}
	free(dir);
}

/*
 * The tree's @rel as the source's: a hard link, as the tree was made, or
 * a copy where linking fails; none where the source has none.
 */
static int restore_file(const struct tree *t, const char *rel)
{
	char *file = path_join(t->src, rel), *orig = path_join(t->source, rel);
	char *dir = xstrdup(file);
	struct stat st;
	int ret = -1;

	*strrchr(dir, '/') = '\0';
	if (unlink(file) && errno != ENOENT)
		goto out;
	if (lstat(orig, &st)) {
		if (errno == ENOENT) {
			remove_new_dirs(t, rel);
			ret = 0;
		}
		goto out;
	}
	if (mkdir_p(dir))
		goto out;
	if (!link(orig, file) ||
	    (!copy_file(orig, file, RESTORE_MAX) && !chmod(file, st.st_mode & 07777)))
		ret = 0;
out:
	free(dir);
	free(file);
	free(orig);
	return ret;
}

/* Puts @rel back unless it is already the source's, and checks it is. */
static int restore_checked(const struct tree *t, const char *rel)
{
	char *file = path_join(t->src, rel), *orig = path_join(t->source, rel);
	int ret = 0;

	if (!same_as_source(file, orig) && restore_file(t, rel))
		ret = error_errno("cannot restore %s from %s", file, orig);
	else if (!same_as_source(file, orig))
		ret = error("%s still differs from %s after restoring it", file, orig);
	free(file);
	free(orig);
	return ret;
}

/*
 * @rel and what patch(1) leaves beside it (rejected hunks, a backup):
 * those are not in the source, so restoring them removes them.
 */
static int restore_named(const struct tree *t, const char *patch, const char *rel)
{
	static const char *const leftovers[] = { ".rej", ".orig" };
	size_t i;
	int ret;

	if (!path_inside(rel))
		return error("%s names %s, outside the tree: not touched", patch, rel);
	ret = restore_checked(t, rel);
	for (i = 0; i < ARRAY_SIZE(leftovers); i++) {
		char *p = xasprintf("%s%s", rel, leftovers[i]);

		ret |= restore_checked(t, p);
		free(p);
	}
	return ret;
}

int tree_restore(const struct tree *t, const char *patch, const char *why)
{
	struct patch_files pf;
	size_t i;
	int ret = 0;

	if (patch_files_named(patch, &pf))
		return -1;
	for (i = 0; i < pf.nr; i++)
		ret |= restore_named(t, patch, pf.paths[i]);
	if (!ret)
		fprintf(stderr, "ksplice-create: %s; the %zu file%s it names in %s %s restored from the source\n",
			why, pf.nr, pf.nr == 1 ? "" : "s", t->src, pf.nr == 1 ? "is" : "are");
	patch_files_free(&pf);
	return ret;
}
