// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-view --prometheus: the running kernel's ksplice state in the
 * Prometheus text format, for node-exporter's textfile collector (written
 * to a *.prom file of its --collector.textfile.directory):
 *
 *   ksplice_status{status="up-to-date"|"not-applied"|"failed"}  1 for
 *	the current one, 0 for the others (ksplice-view --status)
 *   ksplice_disabled                     1 if a kill switch is on
 *   ksplice_effective_version_info{release,version,effective}  1
 *   ksplice_updates_installed, ksplice_updates_installed_applied
 *   ksplice_update_applied{id,stage}     1 if applied, 0 if not, for each
 *	update the core knows
 *   ksplice_update_cve_info{id,cve}      1 for each CVE an applied update
 *	fixes (from the manifest ksplice-apply recorded)
 *
 * Label values are escaped as the format asks (backslash, quote,
 * newline): they come from sysfs and manifests, which we do not trust
 * to be tame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "state.h"
#include "update-file.h"
#include "util.h"
#include "view-prom.h"

/* A label value, escaped and quoted. */
static void label(const char *name, const char *value, bool last)
{
	const char *p;

	printf("%s=\"", name);
	for (p = value ? value : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			printf("\\%c", *p);
		else if (*p == '\n')
			printf("\\n");
		else
			putchar(*p);
	}
	printf("\"%s", last ? "" : ",");
}

static void header(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void status_metrics(const struct status *s)
{
	static const enum ksplice_status all[] = {
		STATUS_UP_TO_DATE, STATUS_NOT_APPLIED, STATUS_FAILED,
	};
	size_t i, applied = 0;

	header("ksplice_status",
	       "1 for the state of the updates installed for the running kernel (as ksplice-view --status)");
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		printf("ksplice_status{");
		label("status", status_name(all[i]), true);
		printf("} %d\n", s->status == all[i]);
	}
	header("ksplice_disabled",
	       "1 if ksplice=off or /etc/ksplice/disable keeps updates from being applied");
	printf("ksplice_disabled %d\n", !!s->disabled);
	header("ksplice_effective_version_info",
	       "the running kernel and the Debian version its applied updates bring it to");
	printf("ksplice_effective_version_info{");
	label("release", s->release, false);
	label("version", s->version, false);
	label("effective", s->effective, true);
	printf("} 1\n");
	for (i = 0; i < s->nr_installed; i++)
		applied += s->installed[i].applied;
	header("ksplice_updates_installed",
	       "updates installed for the running kernel");
	printf("ksplice_updates_installed %zu\n", s->nr_installed);
	header("ksplice_updates_installed_applied",
	       "updates installed for the running kernel that are applied");
	printf("ksplice_updates_installed_applied %zu\n", applied);
}

/* The stage of each update; @stages gets them, in @ids' order. */
static void update_metrics(char **ids, size_t nr, char **stages)
{
	size_t i;

	header("ksplice_update_applied",
	       "1 if the update is applied, 0 if the core holds it in another stage");
	for (i = 0; i < nr; i++) {
		if (sysfs_read(ids[i], "stage", &stages[i]))
			stages[i] = xstrdup("unknown");
		printf("ksplice_update_applied{");
		label("id", ids[i], false);
		label("stage", stages[i], true);
		printf("} %d\n", !strcmp(stages[i], "applied"));
	}
}

static void cve_metrics(char **ids, size_t nr, char **stages)
{
	struct manifest m;
	size_t i, j;

	header("ksplice_update_cve_info",
	       "1 for each CVE an applied update fixes");
	for (i = 0; i < nr; i++) {
		if (strcmp(stages[i], "applied") || state_manifest(ids[i], &m))
			continue;
		for (j = 0; j < m.nr_cves; j++) {
			printf("ksplice_update_cve_info{");
			label("id", ids[i], false);
			label("cve", m.cves[j], true);
			printf("} 1\n");
		}
		manifest_free(&m);
	}
}

int view_prometheus(const struct status *s)
{
	char **ids, **stages;
	size_t nr;
	int ret;

	ret = sysfs_list_updates(&ids, &nr);
	if (ret)
		return error("cannot list %s: %s", ksplice_sysfs_root(),
			     strerror(-ret));
	stages = xcalloc(nr + 1, sizeof(char *));
	status_metrics(s);
	update_metrics(ids, nr, stages);
	cve_metrics(ids, nr, stages);
	free_strv(stages, nr);
	free_strv(ids, nr);
	return fflush(stdout) ? error_errno("cannot write the metrics") : 0;
}
