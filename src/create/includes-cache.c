// SPDX-License-Identifier: GPL-2.0
/*
 * The include lines of a tree's ~55,000 files, kept between creates.
 * Reading them all is most of what a one-file create costs (seconds of
 * a create that compiles one unit); an unchanged file is known by its
 * inode, size and modification time, as git's index knows it.  A file
 * modified within two seconds of a walk is not kept: edited again in
 * the same timestamp tick, it would look unchanged.
 *
 * The file: a line MAGIC, then per tree file a line
 * "INO SIZE SEC NSEC NR PATH" followed by its NR include lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "includes-cache.h"
#include "util.h"

/* The format, and how includes.c's scan_includes() reads a line. */
#define MAGIC "ksplice-includes 1 scan 1\n"

struct inc_cache {
	char *path;
	struct inc_file *files;		/* sorted by path */
	bool *taken;
	size_t nr, nr_taken;
};

static int compare_path(const void *a, const void *b)
{
	return strcmp(((const struct inc_file *)a)->path,
		      ((const struct inc_file *)b)->path);
}

static void free_files(struct inc_file *files, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(files[i].path);
		free_strv(files[i].incs, files[i].nr_incs);
	}
	free(files);
}

/* The next line of @*p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (!nl)
		return NULL;		/* cut short */
	*nl = '\0';
	*p = nl + 1;
	return line;
}

static int parse_entry(char *line, char **p, struct inc_file *f)
{
	unsigned long long sec, nsec, nr, i;
	int used = 0;
	char *inc;

	if (sscanf(line, "%llu %llu %llu %llu %llu %n", &f->ino, &f->size,
		   &sec, &nsec, &nr, &used) != 5 || !used || !line[used] ||
	    nsec >= 1000000000 || nr > 1 << 20)
		return -1;
	f->mtime.tv_sec = sec;
	f->mtime.tv_nsec = nsec;
	f->path = xstrdup(line + used);
	f->incs = nr ? xcalloc(nr, sizeof(char *)) : NULL;
	for (i = 0; i < nr; i++) {
		inc = next_line(p);
		if (!inc || (*inc != '<' && *inc != '"'))
			return -1;
		f->incs[f->nr_incs++] = xstrdup(inc);
	}
	return 0;
}

static int parse(struct inc_cache *c, char *text)
{
	char *p, *line;
	size_t cap = 0;

	if (strncmp(text, MAGIC, strlen(MAGIC)))
		return -1;
	p = text + strlen(MAGIC);
	while ((line = next_line(&p))) {
		if (c->nr == cap) {
			cap = cap ? 2 * cap : 1024;
			c->files = xrealloc(c->files, cap * sizeof(*c->files));
		}
		memset(&c->files[c->nr], 0, sizeof(*c->files));
		if (parse_entry(line, &p, &c->files[c->nr++]))
			return -1;
	}
	if (*p)
		return -1;
	if (c->nr)
		qsort(c->files, c->nr, sizeof(*c->files), compare_path);
	c->taken = xcalloc(c->nr + 1, sizeof(bool));
	return 0;
}

struct inc_cache *inc_cache_load(const char *path)
{
	struct inc_cache *c = xcalloc(1, sizeof(*c));
	char *text;
	size_t len;

	if (!path)
		return c;
	c->path = xstrdup(path);
	if (read_file(path, 1 << 30, &text, &len))
		return c;
	if (strlen(text) != len || parse(c, text)) {
		free_files(c->files, c->nr);
		free(c->taken);
		c->files = NULL;
		c->taken = NULL;
		c->nr = 0;
	}
	free(text);
	return c;
}

bool inc_cache_take(struct inc_cache *c, struct inc_file *f,
		    const struct stat *st)
{
	struct inc_file *e = c->nr ? bsearch(f, c->files, c->nr,
					     sizeof(*c->files), compare_path) :
				     NULL;

	if (!e || c->taken[e - c->files] || e->ino != st->st_ino ||
	    e->size != (unsigned long long)st->st_size ||
	    e->mtime.tv_sec != st->st_mtim.tv_sec ||
	    e->mtime.tv_nsec != st->st_mtim.tv_nsec)
		return false;
	f->incs = e->incs;
	f->nr_incs = e->nr_incs;
	f->ino = e->ino;
	f->size = e->size;
	f->mtime = e->mtime;
	e->incs = NULL;
	e->nr_incs = 0;
	c->taken[e - c->files] = true;
	c->nr_taken++;
	return true;
}

static bool settled(const struct inc_file *f, struct timespec began)
{
	return f->mtime.tv_sec < began.tv_sec - 2 && !strchr(f->path, '\n');
}

static int write_cache(const char *path, struct inc_file *const *files,
		       size_t nr, struct timespec began)
{
	char *tmp = xasprintf("%s.%ld", path, (long)getpid());
	FILE *out = fopen(tmp, "we");
	size_t i, j;
	int ret, e;

	if (!out) {
		free(tmp);
		return -1;
	}
	fputs(MAGIC, out);
	for (i = 0; i < nr; i++) {
		const struct inc_file *f = files[i];

		if (!settled(f, began))
			continue;
		fprintf(out, "%llu %llu %lld %ld %zu %s\n", f->ino, f->size,
			(long long)f->mtime.tv_sec, (long)f->mtime.tv_nsec,
			f->nr_incs, f->path);
		for (j = 0; j < f->nr_incs; j++)
			fprintf(out, "%s\n", f->incs[j]);
	}
	ret = ferror(out) | fclose(out);
	if (!ret)
		ret = rename(tmp, path);
	e = errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	errno = e;
	return ret ? -1 : 0;
}

void inc_cache_drop(struct inc_cache *c)
{
	free_files(c->files, c->nr);
	free(c->taken);
	free(c->path);
	free(c);
}

int inc_cache_save(struct inc_cache *c, struct inc_file *const *files,
		   size_t nr, size_t nr_read, struct timespec began)
{
	int ret = 0, e;

	if (c->path && (nr_read || c->nr_taken != c->nr))
		ret = write_cache(c->path, files, nr, began);
	e = errno;
	inc_cache_drop(c);
	errno = e;
	return ret;
}
