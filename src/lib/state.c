// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' records of the running kernel's updates (state.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debversion.h"
#include "kernel.h"
#include "state.h"
#include "util.h"

static char *state_path(const char *kind, const char *id)
{
	const char *root = getenv("KSPLICE_RUN");

	if (!root || !*root)
		root = KSPLICE_RUN_DEFAULT;
	return id ? xasprintf("%s/%s/%s", root, kind, id) :
		    xasprintf("%s/%s", root, kind);
}

static int write_record(const char *kind, const char *id, const char *text)
{
	char *dir = state_path(kind, NULL), *path = state_path(kind, id);
	int ret = mkdir_p(dir);

	if (!ret)
		ret = write_file(path, text, strlen(text));
	free(dir);
	free(path);
	return ret;
}

static void remove_record(const char *kind, const char *id)
{
	char *path = state_path(kind, id);

	unlink(path);
	free(path);
}

int state_applied(const struct manifest *m)
{
	char *text = manifest_format(m);
	int ret = write_record("applied", m->id, text);

	free(text);
	remove_record("failed", m->id);
	return ret;
}

int state_failed(const char *id, const char *why)
{
	char *line = xasprintf("%s\n", why);
	int ret = write_record("failed", id, line);

	free(line);
	return ret;
}

void state_forget(const char *id)
{
	remove_record("applied", id);
	remove_record("failed", id);
}

int state_manifest(const char *id, struct manifest *m)
{
	char *path = state_path("applied", id), *text;
	size_t len;
	int ret = -1;

	manifest_init(m);
	if (!read_file(path, UPDATE_MANIFEST_MAX, &text, &len)) {
		ret = manifest_parse(m, text, len, path);
		free(text);
	}
	free(path);
	return ret;
}

char *state_failure(const char *id)
{
	char *path = state_path("failed", id), *text;
	size_t len;

	if (read_file(path, 4096, &text, &len))
		text = NULL;
	else
		str_rstrip(text);
	free(path);
	return text;
}

char *debian_version_of(const char *uname_version)
{
	const char *p = strstr(uname_version, "Debian ");

	if (!p)
		return NULL;
	p += 7;
	return xstrndup(p, strcspn(p, " \t\n()"));
}

/* dpkg's order of versions: is @a later than @b? */
static bool version_gt(const char *a, const char *b)
{
	return debversion_cmp(a, b) > 0;
}

static char *update_new_version(const char *id)
{
	struct manifest m;
	char *stage, *v = NULL;
	const char *sep;

	if (sysfs_read(id, "stage", &stage))
		return NULL;
	if (!strcmp(stage, "applied") && !state_manifest(id, &m)) {
		sep = m.in.debian ? strstr(m.in.debian, "..") : NULL;
		if (sep)
			v = xstrdup(sep + 2);
		manifest_free(&m);
	}
	free(stage);
	return v;
}

char *state_effective_version(const char *uname_version)
{
	char *best = debian_version_of(uname_version), **ids, *v;
	size_t nr, i;

	if (sysfs_list_updates(&ids, &nr))
		return best;
	for (i = 0; i < nr; i++) {
		v = update_new_version(ids[i]);
		if (v && (!best || version_gt(v, best))) {
			free(best);
			best = v;
		} else {
			free(v);
		}
	}
	free_strv(ids, nr);
	return best;
}
