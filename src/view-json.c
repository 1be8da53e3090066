// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-view --json: the running kernel's updates as JSON, written with
 * json-c (strings escaped by the library, not by us):
 *
 *   { "kernel_release", "kernel_version", "effective_version",
 *     "status": "up-to-date" | "not-applied" | "failed",
 *     "disabled": null or why,
 *     "updates": [ { "id", "stage", "abort_cause", "abort_detail",
 *                    "conflicts": [...], "functions": [ { "name",
 *                    "old_address", "new_address" } ], "targets": [...],
 *                    "debian", "cves": [...] } ],
 *     "installed": [ { "file", "id", "applied", "failure" } ] }
 *
 * targets, debian and cves come from the manifest ksplice-apply recorded
 * (null when it did not: an update applied by an older ksplice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kernel.h"
#include "state.h"
#include "update-file.h"
#include "util.h"
#include "view-json.h"

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *attr(const char *id, const char *name)
{
	char *v;
	json_object *o;

	if (sysfs_read(id, name, &v))
		return NULL;
	o = json_object_new_string(v);
	free(v);
	return o;
}

/* An attribute of one item a line, as an array of lines. */
static json_object *attr_lines(const char *id, const char *name)
{
	json_object *a = json_object_new_array();
	char *v, *line, *save = NULL;

	if (sysfs_read(id, name, &v))
		return a;
	for (line = strtok_r(v, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		json_object_array_add(a, json_object_new_string(line));
	free(v);
	return a;
}

/* "name old new" lines of the functions attribute. */
static json_object *functions(const char *id)
{
	json_object *a = json_object_new_array();
	char *v, *line, *save = NULL;

	if (sysfs_read(id, "functions", &v))
		return a;
	for (line = strtok_r(v, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_object *f = json_object_new_object();
		char name[UPDATE_VALUE_MAX], old[32], new[32];

		if (sscanf(line, "%511s %31s %31s", name, old, new) != 3)
			continue;
		json_object_object_add(f, "name", json_object_new_string(name));
		json_object_object_add(f, "old_address", json_object_new_string(old));
		json_object_object_add(f, "new_address", json_object_new_string(new));
		json_object_array_add(a, f);
	}
	free(v);
	return a;
}

static void add_manifest(json_object *u, const char *id)
{
	json_object *targets = NULL, *cves = NULL;
	struct manifest m;
	char *t, *save = NULL, *tok;
	size_t i;

	if (state_manifest(id, &m)) {
		json_object_object_add(u, "targets", NULL);
		json_object_object_add(u, "debian", NULL);
		json_object_object_add(u, "cves", NULL);
		return;
	}
	targets = json_object_new_array();
	t = xstrdup(m.target);
	for (tok = strtok_r(t, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		json_object_array_add(targets, json_object_new_string(tok));
	free(t);
	cves = json_object_new_array();
	for (i = 0; i < m.nr_cves; i++)
		json_object_array_add(cves, json_object_new_string(m.cves[i]));
	json_object_object_add(u, "targets", targets);
	json_object_object_add(u, "debian", str_or_null(m.in.debian));
	json_object_object_add(u, "cves", cves);
	manifest_free(&m);
}

static json_object *update(const char *id)
{
	json_object *u = json_object_new_object();

	json_object_object_add(u, "id", json_object_new_string(id));
	json_object_object_add(u, "stage", attr(id, "stage"));
	json_object_object_add(u, "abort_cause", attr(id, "abort_cause"));
	json_object_object_add(u, "abort_detail", attr(id, "abort_detail"));
	json_object_object_add(u, "conflicts", attr_lines(id, "conflicts"));
	json_object_object_add(u, "functions", functions(id));
	add_manifest(u, id);
	return u;
}

static json_object *installed(const struct status *s)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < s->nr_installed; i++) {
		const struct installed_update *iu = &s->installed[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(iu->file));
		json_object_object_add(o, "id", str_or_null(iu->id));
		json_object_object_add(o, "applied",
				       json_object_new_boolean(iu->applied));
		json_object_object_add(o, "failure", str_or_null(iu->failure));
		json_object_array_add(a, o);
	}
	return a;
}

int view_json(const struct status *s)
{
	json_object *top = json_object_new_object(), *ups;
	char **ids;
	size_t nr, i;
	int ret;

	ret = sysfs_list_updates(&ids, &nr);
	if (ret) {
		json_object_put(top);
		return error("cannot list %s: %s", ksplice_sysfs_root(),
			     strerror(-ret));
	}
	json_object_object_add(top, "kernel_release",
			       json_object_new_string(s->release));
	json_object_object_add(top, "kernel_version",
			       json_object_new_string(s->version));
	json_object_object_add(top, "effective_version",
			       str_or_null(s->effective));
	json_object_object_add(top, "status",
			       json_object_new_string(status_name(s->status)));
	json_object_object_add(top, "disabled", str_or_null(s->disabled));
	ups = json_object_new_array();
	for (i = 0; i < nr; i++)
		json_object_array_add(ups, update(ids[i]));
	free_strv(ids, nr);
	json_object_object_add(top, "updates", ups);
	json_object_object_add(top, "installed", installed(s));
	printf("%s\n", json_object_to_json_string_ext(top,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	return fflush(stdout) ? error_errno("cannot write the JSON") : 0;
}
