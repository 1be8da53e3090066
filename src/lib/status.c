// SPDX-License-Identifier: GPL-2.0
/*
 * The installed updates against the applied ones (status.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "installed.h"
#include "kernel.h"
#include "state.h"
#include "status.h"
#include "update-file.h"
#include "util.h"

const char *status_name(enum ksplice_status st)
{
	switch (st) {
	case STATUS_UP_TO_DATE:
		return "up-to-date";
	case STATUS_NOT_APPLIED:
		return "not-applied";
	default:
		return "failed";
	}
}

/* The id in @file's manifest, or NULL (the reader says why). */
static char *file_id(const char *file)
{
	struct manifest m;
	char *dir = make_temp_dir("ksplice-view"), *id = NULL;

	if (!dir)
		return NULL;
	if (!update_file_extract(file, dir, &m)) {
		id = xstrdup(m.id);
		manifest_free(&m);
	}
	remove_tree(dir);
	free(dir);
	return id;
}

static bool applied(const char *id)
{
	char *stage;
	bool yes;

	if (sysfs_read(id, "stage", &stage))
		return false;
	yes = !strcmp(stage, "applied");
	free(stage);
	return yes;
}

static void read_installed(struct status *s, char **files, size_t nr)
{
	size_t i;

	s->installed = xcalloc(nr + 1, sizeof(*s->installed));
	s->nr_installed = nr;
	for (i = 0; i < nr; i++) {
		struct installed_update *u = &s->installed[i];

		u->file = xstrdup(files[i]);
		u->id = file_id(files[i]);
		u->applied = u->id && applied(u->id);
		if (u->applied)
			continue;
		u->failure = u->id ? state_failure(u->id) :
			     xstrdup("the update file cannot be read");
		if (u->failure)
			s->status = STATUS_FAILED;
		else if (s->status == STATUS_UP_TO_DATE)
			s->status = STATUS_NOT_APPLIED;
	}
}

int status_read(struct status *s)
{
	struct utsname u;
	char **files;
	size_t nr;
	int ret;

	memset(s, 0, sizeof(*s));
	if (uname(&u) < 0)
		return error_errno("cannot find the running kernel's release");
	s->release = xstrdup(u.release);
	s->version = xstrdup(u.version);
	s->effective = state_effective_version(u.version);
	s->disabled = installed_disabled();
	ret = installed_updates(u.release, &files, &nr);
	if (ret)
		return error("cannot list the installed updates: %s",
			     strerror(-ret));
	read_installed(s, files, nr);
	free_strv(files, nr);
	return 0;
}

void status_free(struct status *s)
{
	size_t i;

	for (i = 0; i < s->nr_installed; i++) {
		free(s->installed[i].file);
		free(s->installed[i].id);
		free(s->installed[i].failure);
	}
	free(s->installed);
	free(s->release);
	free(s->version);
	free(s->effective);
	memset(s, 0, sizeof(*s));
}
