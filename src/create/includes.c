// SPDX-License-Identifier: GPL-2.0
/*
 * The include graph.  Every .c and .h of the tree that can be part of an
 * x86-64 build, and every header Kbuild generated, is a node; an #include
 * line is an edge, placed the way gcc places it with the kernel's include
 * path.  The units a change reaches are then found by walking the edges
 * backwards from the changed files.  Reading the tree's ~45,000 files
 * takes seconds where compiling them would take hours.
 *
 * Over-approximating is safe (a unit compiled for nothing shows no
 * change), missing a unit is not: an #include that cannot be placed
 * (a -I of one Makefile, a macro) links to every file of that name.
 */
#include <errno.h>
#include <ftw.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "includes.h"
#include "includes-cache.h"
#include "util.h"

struct node {
	struct inc_file f;		/* its path and #include lines */
	bool reached;
};

/* An #include line: node @user's @inc-th. */
struct inc_ref {
	size_t user, inc;
};

/* The key of both trees comes first: compare_key() reads it. */
struct by_path {
	const char *path;
	size_t id;
};

/*
 * The files of one base name, and the #include lines naming a file of
 * that base name: only those can be a file's includers, so a walk
 * places just them, not the ~400,000 lines of the tree.
 */
struct same_name {
	const char *name;
	struct inc_ref *includers;
	size_t nr_includers;
};

struct graph {
	struct node *nodes;
	size_t nr;
	void *by_path;			/* tsearch() trees */
	void *by_name;			/* basename -> struct same_name */
	const char *prefix;		/* of the nodes the walk adds */
	size_t root_len;
	struct inc_cache *cache;
	size_t nr_read;			/* files read, not in the cache */
};

/* Kbuild's LINUXINCLUDE for x86, in order. */
static const char *const search_path[] = {
	"src/arch/x86/include",		"obj/arch/x86/include/generated",
	"src/include",			"obj/include",
	"src/arch/x86/include/uapi",	"obj/arch/x86/include/generated/uapi",
	"src/include/uapi",		"obj/include/generated/uapi",
};

/* Included in every unit by -include on the command line. */
static const char *const forced[] = {
	"src/include/linux/compiler-version.h",
	"src/include/linux/kconfig.h",
	"src/include/linux/compiler_types.h",
};

/* Not part of an x86-64 kernel build, or not C the kernel includes. */
static const char *const skipped_dirs[] = {
	".git", "Documentation", "LICENSES", "samples", "scripts", "tools",
	"usr",
};

static struct graph *walking;		/* nftw() passes no argument */

static bool skip_dir(const char *rel)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(skipped_dirs); i++)
		if (!strcmp(rel, skipped_dirs[i]))
			return true;
	return str_has_prefix(rel, "arch/") && strchr(rel + 5, '/') == NULL &&
	       strcmp(rel, "arch/x86");
}

static void add_include(struct inc_file *f, char open, const char *name,
			size_t len)
{
	char *inc = xmalloc(len + 2);

	inc[0] = open;
	memcpy(inc + 1, name, len);
	inc[len + 1] = '\0';
	f->incs = xrealloc(f->incs, (f->nr_incs + 1) * sizeof(char *));
	f->incs[f->nr_incs++] = inc;
}

/* "#  include <x>", "#include_next <x>", "#include "x"". */
static void scan_includes(struct inc_file *f, const char *text)
{
	const char *p = text, *end;
	char close;

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " \t");
		if (*p != '#')
			continue;
		p += 1 + strspn(p + 1, " \t");
		if (strncmp(p, "include", 7))
			continue;
		p += 7;
		if (!strncmp(p, "_next", 5))
			p += 5;
		p += strspn(p, " \t");
		if (*p != '<' && *p != '"')
			continue;
		close = *p == '<' ? '>' : '"';
		end = strchr(p + 1, close);
		if (end && !memchr(p + 1, '\n', end - p - 1))
			add_include(f, *p, p + 1, end - p - 1);
	}
}

/* Its #include lines, from the cache if it has not changed since. */
static int read_includes(struct graph *g, struct inc_file *f,
			 const char *fpath, const struct stat *sb)
{
	char *text;
	size_t len;

	if (inc_cache_take(g->cache, f, sb))
		return 0;
	if (read_file(fpath, 64 << 20, &text, &len))
		return -1;
	scan_includes(f, text);
	free(text);
	f->ino = sb->st_ino;
	f->size = sb->st_size;
	f->mtime = sb->st_mtim;
	g->nr_read++;
	return 0;
}

static int visit(const char *fpath, const struct stat *sb, int type,
		 struct FTW *ftw)
{
	struct graph *g = walking;
	const char *rel = fpath + g->root_len;
	struct node *n;

	(void)ftw;
	if (*rel == '/')
		rel++;
	if (type == FTW_D)
		return skip_dir(rel) ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (type != FTW_F || (!str_has_suffix(rel, ".c") &&
			      !str_has_suffix(rel, ".h")))
		return FTW_CONTINUE;
	if (!(g->nr & (g->nr - 1)))
		g->nodes = xrealloc(g->nodes, (g->nr ? 2 * g->nr : 1) *
				    sizeof(*g->nodes));
	n = &g->nodes[g->nr];
	memset(n, 0, sizeof(*n));
	n->f.path = xasprintf("%s/%s", g->prefix, rel);
	if (read_includes(g, &n->f, fpath, sb)) {
		free(n->f.path);
		return FTW_CONTINUE;
	}
	g->nr++;
	return FTW_CONTINUE;
}

static int walk(struct graph *g, const char *root, const char *rel,
		const char *prefix)
{
	char *dir = rel ? path_join(root, rel) : xstrdup(root);
	int ret;

	walking = g;
	g->prefix = prefix;
	g->root_len = strlen(root);
	/* A tree may lack generated headers of some kind. */
	ret = access(dir, F_OK) && errno == ENOENT ? 0 :
	      nftw(dir, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	free(dir);
	return ret;
}

/* "a/./b/../c.h" -> "a/c.h", in place. */
static char *normalize(char *path)
{
	char *out = path, *p = path;
	size_t len;
	bool more = true;

	while (more) {
		len = strcspn(p, "/");
		more = p[len] == '/';
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (out > path)
				out--;
			while (out > path && out[-1] != '/')
				out--;
		} else if (len && !(len == 1 && p[0] == '.')) {
			memmove(out, p, len);
			out += len;
			*out++ = '/';
		}
		p += len + 1;
	}
	if (out > path)
		out--;
	*out = '\0';
	return path;
}

static int compare_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long lookup(struct graph *g, char *path)
{
	const char *key = normalize(path);
	struct by_path **found = tfind(&key, &g->by_path, compare_key);

	return found ? (long)(*found)->id : -1;
}

/* The base name #include @name places: what follows its last '/'. */
static const char *inc_base(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

static struct same_name *find_name(struct graph *g, const char *name)
{
	struct same_name **found = tfind(&name, &g->by_name, compare_key);

	return found ? *found : NULL;
}

/*
 * Whether node @user's @inc includes node @target: placed as gcc places
 * it (its own directory for "", then the include path), or, when it
 * cannot be placed there, linked to every file whose path ends in its
 * name (leading ../ dropped).
 */
static bool includes(struct graph *g, size_t user, const char *inc,
		     size_t target)
{
	const char *from = g->nodes[user].f.path, *slash = strrchr(from, '/');
	const char *tail = inc + 1, *p = g->nodes[target].f.path;
	size_t i, len, plen;
	char *path;
	long id = -1;

	if (inc[0] == '"') {
		path = xasprintf("%.*s/%s", (int)(slash - from), from, inc + 1);
		id = lookup(g, path);
		free(path);
	}
	for (i = 0; id < 0 && i < ARRAY_SIZE(search_path); i++) {
		path = xasprintf("%s/%s", search_path[i], inc + 1);
		id = lookup(g, path);
		free(path);
	}
	if (id >= 0)
		return (size_t)id == target;
	while (str_has_prefix(tail, "../") || str_has_prefix(tail, "./"))
		tail += tail[1] == '/' ? 2 : 3;
	len = strlen(tail);
	plen = strlen(p);
	return plen > len && p[plen - len - 1] == '/' &&
	       !strcmp(p + plen - len, tail);
}

static void index_nodes(struct graph *g)
{
	struct same_name *same, **found;
	struct inc_ref *ref;
	struct by_path *bp;
	size_t i, j;

	for (i = 0; i < g->nr; i++) {
		bp = xmalloc(sizeof(*bp));
		bp->path = g->nodes[i].f.path;
		bp->id = i;
		if (*(struct by_path **)tsearch(bp, &g->by_path, compare_key) != bp)
			free(bp);
		same = xcalloc(1, sizeof(*same));
		same->name = strrchr(g->nodes[i].f.path, '/') + 1;
		found = tsearch(same, &g->by_name, compare_key);
		if (*found != same)
			free(same);
	}
	for (i = 0; i < g->nr; i++) {
		for (j = 0; j < g->nodes[i].f.nr_incs; j++) {
			same = find_name(g, inc_base(g->nodes[i].f.incs[j] + 1));
			if (!same)
				continue;
			if (!(same->nr_includers & (same->nr_includers - 1)))
				same->includers = xrealloc(same->includers,
					(same->nr_includers ? 2 * same->nr_includers : 1) *
					sizeof(*same->includers));
			ref = &same->includers[same->nr_includers++];
			ref->user = i;
			ref->inc = j;
		}
	}
}

static void reach(struct graph *g, size_t start)
{
	size_t *queue = xmalloc(g->nr * sizeof(size_t)), head = 0, tail = 0;
	struct same_name *same;
	struct inc_ref *ref;
	size_t i, at;

	if (g->nodes[start].reached) {
		free(queue);
		return;
	}
	g->nodes[start].reached = true;
	queue[tail++] = start;
	while (head < tail) {
		at = queue[head++];
		same = find_name(g, inc_base(g->nodes[at].f.path));
		for (i = 0; same && i < same->nr_includers; i++) {
			ref = &same->includers[i];
			if (g->nodes[ref->user].reached ||
			    !includes(g, ref->user,
				      g->nodes[ref->user].f.incs[ref->inc], at))
				continue;
			g->nodes[ref->user].reached = true;
			queue[tail++] = ref->user;
		}
	}
	free(queue);
}

static bool reached(struct graph *g, const char *prefix, const char *rel)
{
	char *path = xasprintf("%s/%s", prefix, rel);
	long id = lookup(g, path);

	free(path);
	return id >= 0 && g->nodes[id].reached;
}

static void free_same_name(void *p)
{
	struct same_name *same = p;

	free(same->includers);
	free(same);
}

static void graph_free(struct graph *g)
{
	size_t i;

	tdestroy(g->by_path, free);
	tdestroy(g->by_name, free_same_name);
	for (i = 0; i < g->nr; i++) {
		free_strv(g->nodes[i].f.incs, g->nodes[i].f.nr_incs);
		free(g->nodes[i].f.path);
	}
	free(g->nodes);
}

static bool all_units(struct graph *g)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(forced); i++)
		if (reached(g, "src", forced[i] + 4))
			return true;
	return false;
}

static void unreach_all(struct graph *g)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		g->nodes[i].reached = false;
}

/* Marks the units file @i reaches; returns how many. */
static long mark_units(struct graph *g, char *const *units, size_t nr_units,
		       bool *affected)
{
	bool all = all_units(g);
	long count = 0;
	size_t i;

	for (i = 0; i < nr_units; i++) {
		char *c = xstrdup(units[i]);
		bool hit;

		c[strlen(c) - 1] = 'c';
		hit = all || reached(g, "src", c) || reached(g, "obj", c);
		affected[i] |= hit;
		count += hit;
		free(c);
	}
	return count;
}

/* Every node, its include lines from @cache where the file is unchanged. */
static int read_tree(struct graph *g, const char *src, const char *obj,
		     const char *cache, struct includes_stats *stats)
{
	struct inc_file **files;
	struct timespec began;
	size_t i;
	int ret;

	clock_gettime(CLOCK_REALTIME, &began);
	g->cache = inc_cache_load(cache);
	ret = walk(g, src, NULL, "src") ||
	      walk(g, obj, "include", "obj") ||
	      walk(g, obj, "arch/x86/include", "obj");
	if (ret) {
		ret = errno;
		inc_cache_drop(g->cache);
		errno = ret;
		return error_errno("cannot read the tree %s", src);
	}
	files = xcalloc(g->nr + 1, sizeof(*files));
	for (i = 0; i < g->nr; i++)
		files[i] = &g->nodes[i].f;
	if (inc_cache_save(g->cache, files, g->nr, g->nr_read, began))
		warn("cannot write %s: %s", cache, strerror(errno));
	free(files);
	if (stats) {
		stats->files = g->nr;
		stats->read = g->nr_read;
	}
	return 0;
}

long includes_affected(const char *src, const char *obj, const char *cache,
		       char *const *files, size_t nr_files, char *const *units,
		       size_t nr_units, bool *affected, long *per_file,
		       struct includes_stats *stats)
{
	struct graph g = { 0 };
	long count = 0;
	size_t i;

	if (read_tree(&g, src, obj, cache, stats)) {
		graph_free(&g);
		return -1;
	}
	index_nodes(&g);
	memset(affected, 0, nr_units * sizeof(bool));
	for (i = 0; i < nr_files; i++) {
		char *path = xasprintf("src/%s", files[i]);
		long id = lookup(&g, path);
		long n = 0;

		unreach_all(&g);
		if (id >= 0) {
			reach(&g, id);
			n = mark_units(&g, units, nr_units, affected);
		}
		if (per_file)
			per_file[i] = n;
		free(path);
	}
	for (i = 0; i < nr_units; i++)
		count += affected[i];
	graph_free(&g);
	return count;
}
