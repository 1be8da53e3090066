// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's source packages as an update's input: --debian A..B is the
 * change between two versions of a linux-source-X.Y package (fetched and
 * cached by scripts/fetch-source, whose table says which package), and
 * A..B:PATH,... that change to those files only -- one fix out of a
 * stable update, which as a whole changes hundreds of files and data
 * structures no live update can.  And the CVE ids an update fixes: those
 * the changelog names in the entries after A.  dpkg-parsechangelog reads
 * the changelog (not a parser of ours); we only pick the ids out of the
 * entries' text, in order of first mention.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "create.h"
#include "update-file.h"
#include "util.h"

#define CHANGES_MAX	(64 << 20)

/* Adds every CVE-YYYY-NNNN... of @text to @m. */
static void scan_cves(struct manifest *m, const char *text)
{
	const char *p = text;

	while ((p = strstr(p, "CVE-"))) {
		size_t n = 4 + strspn(p + 4, "0123456789-");
		char *id = xstrndup(p, n);

		/* "CVE-2026-99362," or "...)": the id is the digits. */
		while (n > 4 && id[n - 1] == '-')
			id[--n] = '\0';
		if ((p == text || !isalnum((unsigned char)p[-1])) &&
		    cve_id_valid(id))
			manifest_add_cve(m, id);
		free(id);
		p += n;
	}
}

int debian_cves(const char *changelog, const char *since, struct manifest *m)
{
	const char *argv[] = { "dpkg-parsechangelog", "-l", changelog,
			       "--since", since, "-S", "Changes", NULL };
	char *out = NULL;
	size_t len;
	int ret;

	ret = run_command_capture(argv, CHANGES_MAX, &out, &len);
	if (ret) {
		free(out);
		return error("dpkg-parsechangelog -l %s --since %s failed (exit %d)",
			     changelog, since, ret);
	}
	scan_cves(m, out);
	free(out);
	return 0;
}

/* The last line @argv prints (fetch-source's path), NULL if it fails. */
static char *last_line_of(const char *const argv[])
{
	char *out = NULL, *last;
	size_t len;

	if (run_command_capture(argv, 1 << 16, &out, &len)) {
		free(out);
		return NULL;
	}
	str_rstrip(out);
	last = strrchr(out, '\n');
	last = xstrdup(last ? last + 1 : out);
	free(out);
	return last;
}

/* "fetch-source --changelog VERSION": the changelog's path. */
char *debian_changelog(const char *script, const char *version)
{
	const char *argv[] = { script, "--changelog", version, NULL };
	char *path = last_line_of(argv);

	if (!path)
		error("cannot fetch the Debian changelog of linux-source %s",
		      version);
	return path;
}

/* A Debian package version: what apt accepts, nothing a shell or path minds. */
static bool debian_version_ok(const char *v)
{
	if (!*v || !isdigit((unsigned char)*v) || strlen(v) > 64)
		return false;
	return strspn(v, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-") ==
	       strlen(v);
}

/* scripts/fetch-source VERSION: the unpacked tree, from the cache. */
static char *fetch_source(const char *version)
{
	char *script = path_join(data_dir(), "scripts/fetch-source");
	const char *argv[] = { script, version, NULL };
	char *tree;

	fprintf(stderr, "  fetching linux-source %s (cached)\n", version);
	tree = last_line_of(argv);
	free(script);
	if (!tree)
		error("fetching the source of %s failed", version);
	return tree;
}

/* A path in the tree: relative, no "..", nothing a shell minds. */
static bool tree_path_ok(const char *p, size_t n)
{
	const char *dots;

	if (!n || *p == '/' || n > 255)
		return false;
	if (strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-") < n)
		return false;
	for (dots = p; (dots = strstr(dots, "..")) && dots < p + n; dots++)
		if ((dots == p || dots[-1] == '/') && (dots + 2 == p + n || dots[2] == '/'))
			return false;
	return true;
}

int debian_range(const char *range, char **a, char **b)
{
	const char *sep = strstr(range, ".."), *colon;

	if (!sep)
		return error("--debian %s: want OLD..NEW, e.g. 6.1.192-2..6.1.192-3",
			     range);
	colon = strchr(sep, ':');
	*a = xstrndup(range, sep - range);
	*b = colon ? xstrndup(sep + 2, colon - sep - 2) : xstrdup(sep + 2);
	if (!debian_version_ok(*a) || !debian_version_ok(*b) || !strcmp(*a, *b))
		return error("--debian %s: want two different Debian versions OLD..NEW",
			     range);
	return 0;
}

/* The PATH,... of A..B:PATH,... (NULL for the whole change); -1 if bad. */
static int debian_paths(const char *range, struct strv *paths)
{
	const char *p = strchr(strstr(range, ".."), ':');
	size_t n;

	memset(paths, 0, sizeof(*paths));
	if (!p)
		return 0;
	for (p++;; p += n + 1) {
		n = strcspn(p, ",");
		if (!tree_path_ok(p, n))
			return error("--debian %s: '%.*s' is not a file of the source tree",
				     range, (int)n, p);
		strv_add(paths, xstrndup(p, n));
		if (!p[n])
			return 0;
	}
}

static char *changelog_of(const char *version)
{
	char *script = path_join(data_dir(), "scripts/fetch-source");
	char *path = debian_changelog(script, version);

	free(script);
	return path;
}

/* --list-cves A..B */
int list_cves(const char *range)
{
	struct manifest m;
	char *a, *b, *changelog;
	size_t i;
	int ret;

	if (debian_range(range, &a, &b))
		return -1;
	changelog = changelog_of(b);
	manifest_init(&m);
	ret = changelog ? debian_cves(changelog, a, &m) : -1;
	for (i = 0; !ret && i < m.nr_cves; i++)
		printf("%s\n", m.cves[i]);
	manifest_free(&m);
	free(changelog);
	free(a);
	free(b);
	return ret;
}

/* diff -uN (-r without @path) of a/@path and b/@path in @workdir, to @fd. */
static int diff_into(const char *workdir, const char *path, int fd)
{
	char *la = path ? path_join("a", path) : xstrdup("a");
	char *lb = path ? path_join("b", path) : xstrdup("b");
	const char *argv[] = { "diff", path ? "-uN" : "-urN", la, lb, NULL };
	pid_t pid = spawn(argv, &(struct spawn_io){ .out = fd, .err = -1,
						    .dir = workdir });
	int status = pid < 0 ? -1 : wait_child(pid);

	free(la);
	free(lb);
	if (pid < 0)
		return -1;	/* spawn() said why */
	if (status < 0)
		return error_errno("cannot wait for diff");
	if (status > 1)
		return error("diff -uN of %s in the two trees failed", path ? path : "everything");
	return status;
}

/*
 * --debian A..B[:PATH,...]: the patch is diff -urN of the two source
 * trees (or diff -uN of each PATH), labelled a/ and b/ (links in the work
 * directory) so that it applies with -p1; the source is tree A.
 */
int debian_patch(struct options *o, const char *workdir)
{
	char *a, *b, *ta = NULL, *tb = NULL, *la, *lb, *patch;
	struct strv paths;
	int fd, status;
	size_t i;

	if (debian_range(o->debian, &a, &b) || debian_paths(o->debian, &paths))
		return -1;
	ta = fetch_source(a);
	tb = ta ? fetch_source(b) : NULL;
	if (!tb)
		return -1;
	o->debian_since = xstrdup(a);
	/* Which of the changelog's CVEs one file's change fixes, it does not say. */
	o->debian_changelog = paths.nr ? NULL : changelog_of(b);
	if (!paths.nr && !o->debian_changelog)
		return -1;
	if (paths.nr)
		fprintf(stderr, "  the change to %zu file%s only: no CVE ids recorded (the changelog does not say which are fixed there)\n",
			paths.nr, paths.nr == 1 ? "" : "s");
	la = path_join(workdir, "a");
	lb = path_join(workdir, "b");
	patch = xasprintf("%s/linux-source_%s..%s.patch", workdir, a, b);
	if (symlink(ta, la) || symlink(tb, lb))
		return error_errno("cannot link the trees into %s", workdir);
	fd = open(patch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno("cannot write %s", patch);
	fprintf(stderr, "  diff -urN %s %s%s\n", ta, tb, paths.nr ? " (the files named)" : "");
	status = paths.nr ? 1 : diff_into(workdir, NULL, fd);
	for (i = 0; i < paths.nr; i++) {
		int one = diff_into(workdir, paths.v[i], fd);

		if (one == 0)
			error("--debian %s: %s is the same in both versions", o->debian,
			      paths.v[i]);
		if (one <= 0)
			status = -1;
	}
	close(fd);
	if (status < 0)
		return -1;
	if (status == 0)
		return error("linux-source %s and %s are the same source", a, b);
	o->patch = patch;
	o->source = ta;
	strv_free(&paths);
	free(a);
	free(b);
	free(la);
	free(lb);
	return 0;
}
