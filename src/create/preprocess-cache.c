// SPDX-License-Identifier: GPL-2.0
/*
 * Preprocessed text kept beside the prepared tree (see the header).  One
 * gzip file per command, named by its hash:
 *
 *   ksplice-cpp 3
 *   <the command>
 *   <SHA-256 of its contents> <path>      (each file the text names)
 *
 * The tree's source and object directories are written @SRC and @OBJ in
 * the command and the paths: the copies of a tree (KSPLICE_TREE_COPIES)
 * share the cache of the first, each checking the files in its own.
 *   <empty line>
 *   <the text>
 *
 * Contents, not modification times: every create patches the prepared
 * tree's files in place and takes the patch out again, so the files a
 * patch changes, which the includers to compare all read, have a new
 * time after each create.  A file's digest is computed once per create.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "preprocess-cache.h"
#include "sha256.h"
#include "util.h"

#define MAGIC "ksplice-cpp 3\n"
#define MAX_CACHED (512UL << 20)

struct file_sum {
	char *path;			/* as the line markers name it */
	char hex[SHA256_HEX_LEN + 1];
	bool bad;			/* unreadable */
	bool recent;			/* modified at c->since or later */
};

struct cpp_cache {
	char *dir;
	char *src, *obj;		/* kept as @SRC and @OBJ */
	struct timespec since;		/* zero: every file is trusted */
	struct file_sum *v;		/* open addressing, by path */
	size_t nr, size;
};

static unsigned long long fnv(const char *s, size_t n)
{
	unsigned long long h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

struct cpp_cache *cpp_cache_open(const char *dir, const char *src,
				 const char *obj, const struct timespec *since)
{
	struct cpp_cache *c = xcalloc(1, sizeof(*c));

	c->dir = xstrdup(dir);
	c->src = xstrdup(src);
	c->obj = xstrdup(obj);
	if (since)
		c->since = *since;
	c->size = 1024;
	c->v = xcalloc(c->size, sizeof(*c->v));
	return c;
}

void cpp_cache_close(struct cpp_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->size; i++)
		free(c->v[i].path);
	free(c->v);
	free(c->dir);
	free(c->src);
	free(c->obj);
	free(c);
}

/* @s with every "@from/" made "@to/" (malloc'ed). */
static char *replace_dir(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	const char *p, *q;
	char *out;

	for (p = s; (q = strstr(p, from)); p = q + fl)
		n += q[fl] == '/';
	out = xmalloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1);
	for (n = 0, p = s; (q = strstr(p, from)); p = q + fl) {
		memcpy(out + n, p, q - p);
		n += q - p;
		if (q[fl] == '/') {
			memcpy(out + n, to, tl);
			n += tl;
		} else {
			memcpy(out + n, q, fl);
			n += fl;
		}
	}
	strcpy(out + n, p);
	return out;
}

/*
 * A command or path as kept: the tree's directories by name, so that
 * copies of the tree (KSPLICE_TREE_COPIES) share one cache.
 */
static char *kept_form(const struct cpp_cache *c, const char *s)
{
	char *a = replace_dir(s, c->src, "@SRC"), *b;

	b = replace_dir(a, c->obj, "@OBJ");
	free(a);
	return b;
}

/* A path as kept, in this tree. */
static char *this_tree(const struct cpp_cache *c, const char *s)
{
	char *a = replace_dir(s, "@SRC", c->src), *b;

	b = replace_dir(a, "@OBJ", c->obj);
	free(a);
	return b;
}

static struct file_sum *slot(struct file_sum *v, size_t size, const char *path)
{
	size_t i = fnv(path, strlen(path)) & (size - 1);

	while (v[i].path && strcmp(v[i].path, path))
		i = (i + 1) & (size - 1);
	return &v[i];
}

static void grow(struct cpp_cache *c)
{
	struct file_sum *old = c->v;
	size_t i, n = c->size;

	c->size *= 2;
	c->v = xcalloc(c->size, sizeof(*c->v));
	for (i = 0; i < n; i++)
		if (old[i].path)
			*slot(c->v, c->size, old[i].path) = old[i];
	free(old);
}

/*
 * Modified at @since or later?  A time of whole seconds may be a file
 * system's rounding down of a later one.
 */
static bool modified_since(const struct timespec *mt,
			   const struct timespec *since)
{
	if (!since->tv_sec)
		return false;
	if (mt->tv_sec != since->tv_sec)
		return mt->tv_sec > since->tv_sec;
	return !mt->tv_nsec || mt->tv_nsec >= since->tv_nsec;
}

/* @path's digest (relative to the tree's objects), once per create. */
static const struct file_sum *sum_of(struct cpp_cache *c, const char *path)
{
	struct file_sum *f = slot(c->v, c->size, path);
	char *full;
	struct stat st;

	if (f->path)
		return f;
	if (2 * (c->nr + 1) > c->size) {
		grow(c);
		f = slot(c->v, c->size, path);
	}
	c->nr++;
	f->path = xstrdup(path);
	full = path[0] == '/' ? xstrdup(path) : path_join(c->obj, path);
	f->bad = stat(full, &st) || sha256_file(full, f->hex);
	f->recent = !f->bad && modified_since(&st.st_mtim, &c->since);
	free(full);
	return f;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files @buf's line markers name (# 12 "path" flags), each once, in
 * @files; -1 if one is written with an escape (not worth reading right).
 */
static int marked_files(const char *buf, size_t len, struct strv *files)
{
	const char *p, *q, *e, *end = buf + len;
	size_t i, n = 0;

	for (p = buf; p < end; p = q ? q + 1 : end) {
		q = memchr(p, '\n', end - p);
		e = q ? q : end;
		if (e - p < 4 || p[0] != '#' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
			continue;
		p = memchr(p, '"', e - p);
		if (!p || p + 1 >= e || p[1] == '<')	/* <built-in> */
			continue;
		for (q = ++p; q < e && *q != '"'; q++)
			if (*q == '\\')
				return -1;
		/* (-fworking-directory's "/dir//" is no file) */
		if (q > p && q[-1] != '/' &&
		    (!files->nr || strncmp(files->v[files->nr - 1], p, q - p) ||
		     files->v[files->nr - 1][q - p]))
			strv_add(files, xstrndup(p, q - p));
		q = e < end ? e : NULL;
	}
	if (!files->nr)
		return 0;
	qsort(files->v, files->nr, sizeof(char *), by_string);
	for (i = 1; i < files->nr; i++) {
		if (!strcmp(files->v[i], files->v[n]))
			free(files->v[i]);
		else
			files->v[++n] = files->v[i];
	}
	files->nr = n + 1;
	return 0;
}

void cpp_cache_store(struct cpp_cache *c, const char *cmd, const char *buf,
		     size_t len)
{
	char *key = kept_form(c, cmd), *path, *tmp, *name;
	unsigned long long h = fnv(key, strlen(key));
	struct strv files = { 0 };
	const struct file_sum *f;
	size_t i;
	gzFile gz;
	int ok;

	if (strchr(cmd, '\n') || len > MAX_CACHED ||
	    marked_files(buf, len, &files) || !files.nr) {
		strv_free(&files);
		free(key);
		return;
	}
	/* A file changed while the text was made may not be what it shows. */
	for (i = 0, ok = 1; ok && i < files.nr; i++) {
		f = sum_of(c, files.v[i]);
		ok = !f->bad && !f->recent;
	}
	path = xasprintf("%s/%016llx.gz", c->dir, h);
	tmp = xasprintf("%s.%d", path, (int)getpid());
	gz = ok ? gzopen(tmp, "wb1") : NULL;
	ok = gz && gzputs(gz, MAGIC) > 0 && gzputs(gz, key) > 0 && gzputc(gz, '\n') >= 0;
	for (i = 0; ok && i < files.nr; i++) {
		f = sum_of(c, files.v[i]);
		name = kept_form(c, f->path);
		ok = gzprintf(gz, "%s %s\n", f->hex, name) > 0;
		free(name);
	}
	ok = ok && gzputc(gz, '\n') >= 0 && gzwrite(gz, buf, len) == (int)len;
	if (gz)
		ok = gzclose(gz) == Z_OK && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
	free(tmp);
	free(path);
	free(key);
	strv_free(&files);
}

/*
 * The whole of gzip file @path, NUL terminated, into *@buf (*@cap bytes,
 * grown as needed); -1 if it cannot be read.
 */
static int read_gz(const char *path, char **buf, size_t *cap, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t n = 0;
	int got;

	if (!gz)
		return -1;
	do {
		if (*cap - n < (1 << 20) + 1) {
			*cap = *cap ? 2 * *cap : 4 << 20;
			*buf = xrealloc(*buf, *cap);
		}
		got = gzread(gz, *buf + n, 1 << 20);
		n += got > 0 ? got : 0;
	} while (got > 0 && n <= MAX_CACHED);
	if (gzclose(gz) != Z_OK || got < 0 || n > MAX_CACHED)
		return -1;
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}

/*
 * Past the list of files from @p on and its empty line, if each has the
 * contents it had; else NULL.
 */
static const char *files_unchanged(struct cpp_cache *c, const char *p)
{
	const struct file_sum *f;
	const char *nl;
	char *kept, *name;

	while (p && *p != '\n') {
		nl = strchr(p, '\n');
		if (!nl || nl - p < SHA256_HEX_LEN + 2 || p[SHA256_HEX_LEN] != ' ')
			return NULL;
		kept = xstrndup(p + SHA256_HEX_LEN + 1, nl - p - SHA256_HEX_LEN - 1);
		name = this_tree(c, kept);
		f = sum_of(c, name);
		free(kept);
		free(name);
		if (f->bad || memcmp(f->hex, p, SHA256_HEX_LEN))
			return NULL;
		p = nl + 1;
	}
	return p ? p + 1 : NULL;
}

int cpp_cache_load(struct cpp_cache *c, const char *cmd, char **buf,
		   size_t *cap, size_t *len)
{
	char *key = kept_form(c, cmd), *path;
	size_t n, cl = strlen(key), ml = strlen(MAGIC);
	const char *text;
	int ret;

	path = xasprintf("%s/%016llx.gz", c->dir, fnv(key, cl));
	ret = read_gz(path, buf, cap, &n);
	free(path);
	if (ret) {
		free(key);
		return -1;
	}
	text = *buf + ml + cl + 1;
	if (n >= ml + cl + 2 && !memcmp(*buf, MAGIC, ml) &&
	    !memcmp(*buf + ml, key, cl) && text[-1] == '\n')
		text = files_unchanged(c, text);
	else
		text = NULL;
	free(key);
	if (!text)
		return -1;
	*len = n - (text - *buf);
	memmove(*buf, text, *len + 1);
	return 0;
}
