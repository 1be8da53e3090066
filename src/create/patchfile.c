// SPDX-License-Identifier: GPL-2.0
/*
 * Which files a unified diff touches, hence which compilation units to
 * build.  The diff itself is applied by patch(1); this only reads headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchfile.h"
#include "util.h"

/* "b/fs/proc/cmdline.c\t2026-..." -> "fs/proc/cmdline.c" */
static char *header_path(const char *line)
{
	const char *p = line + 4, *slash;
	size_t n = strcspn(p, "\t\n");

	if (!strncmp(p, "/dev/null", 9))
		return NULL;
	slash = memchr(p, '/', n);
	if (!slash)
		return NULL;
	n -= slash + 1 - p;
	return xstrndup(slash + 1, n);
}

static void add_file(struct patch_files *pf, char *path)
{
	size_t i;

	for (i = 0; i < pf->nr; i++)
		if (!strcmp(pf->paths[i], path)) {
			free(path);
			return;
		}
	pf->paths = xrealloc(pf->paths, (pf->nr + 1) * sizeof(char *));
	pf->paths[pf->nr++] = path;
}

/*
 * Two diffs of one file pass patch(1)'s dry run (each is checked against
 * the file as it is) and then fail half-applied: the prepared tree would
 * keep the first.  Refused before anything is applied.
 */
static int check_twice(const struct patch_files *plus, const char *patch)
{
	size_t i, j;

	for (i = 0; i < plus->nr; i++)
		for (j = i + 1; j < plus->nr; j++)
			if (!strcmp(plus->paths[i], plus->paths[j]))
				return error("%s changes %s in two diffs: give one diff per file",
					     patch, plus->paths[i]);
	return 0;
}

/* Every file @patch names (both headers, once each); @plus: its +++ files. */
static int read_headers(const char *patch, struct patch_files *pf,
			struct patch_files *plus)
{
	char *text, *line, *save;
	size_t len;

	memset(pf, 0, sizeof(*pf));
	if (read_file(patch, 64 << 20, &text, &len))
		return error_errno("cannot read patch %s", patch);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *path;

		if (strncmp(line, "+++ ", 4) && strncmp(line, "--- ", 4))
			continue;
		path = header_path(line);
		if (!path)
			continue;
		if (line[0] == '+') {
			plus->paths = xrealloc(plus->paths, (plus->nr + 1) * sizeof(char *));
			plus->paths[plus->nr++] = xstrdup(path);
		}
		add_file(pf, path);
	}
	free(text);
	if (!pf->nr)
		return error("%s is not a unified diff (no '+++ b/<file>' lines)",
			     patch);
	return 0;
}

int patch_files_read(const char *patch, struct patch_files *pf)
{
	struct patch_files plus = { 0 };
	int ret = read_headers(patch, pf, &plus);

	if (!ret)
		ret = check_twice(&plus, patch);
	patch_files_free(&plus);
	return ret;
}

/*
 * Without the check of two diffs of one file: a patch left applied by
 * an older ksplice-create, which did not refuse those, is still undone.
 */
int patch_files_named(const char *patch, struct patch_files *pf)
{
	struct patch_files plus = { 0 };
	int ret = read_headers(patch, pf, &plus);

	patch_files_free(&plus);
	return ret;
}

void patch_files_free(struct patch_files *pf)
{
	free_strv(pf->paths, pf->nr);
	memset(pf, 0, sizeof(*pf));
}
