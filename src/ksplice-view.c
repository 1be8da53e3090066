// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-view: show the updates the ksplice core knows about.
 *
 * Reads only sysfs, the records of ksplice-apply in /run/ksplice and the
 * installed updates, so it needs no privilege beyond what the attribute
 * permissions ask for, and it changes nothing.
 *
 * --status sums up whether every update installed for the running kernel
 * is applied, in its exit code (status.h), like KernelCare's --status.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel.h"
#include "state.h"
#include "status.h"
#include "update-file.h"
#include "util.h"
#include "view-json.h"
#include "view-prom.h"

/* Shown first, in this order; any other attribute follows, sorted. */
static const char *const known_attrs[] = {
	"stage", "abort_cause", "abort_detail", "conflicts", "functions",
	"targets", "stacks",
};

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [ID]\n"
		"       %s --status | --json | --prometheus\n"
		"List the loaded ksplice updates, or show everything about update ID.\n"
		"\n"
		"  --status     whether every update installed for the running kernel\n"
		"               is applied; exit 0 if so, %d if one is not, %d if one\n"
		"               failed to apply\n"
		"  --json       the whole state (updates, functions, CVEs, installed\n"
		"               updates, effective version) as JSON\n"
		"  --prometheus the state as metrics for node-exporter's textfile\n"
		"               collector (applied updates, CVEs, status)\n"
		"  -h, --help   show this help\n",
		progname, progname, STATUS_EXIT_NOT_APPLIED, STATUS_EXIT_FAILED);
	exit(status);
}

enum mode { MODE_LIST, MODE_STATUS, MODE_JSON, MODE_PROMETHEUS };

static const char *parse_args(int argc, char **argv, enum mode *mode)
{
	static const struct option longopts[] = {
		{ "status", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			usage(0);
		if ((c != 's' && c != 'j' && c != 'p') || *mode != MODE_LIST)
			usage(2);
		*mode = c == 's' ? MODE_STATUS :
			c == 'j' ? MODE_JSON : MODE_PROMETHEUS;
	}
	if (argc - optind > 1 || (*mode != MODE_LIST && argc > optind))
		usage(2);
	return argc > optind ? argv[optind] : NULL;
}

static char *read_or(const char *id, const char *attr, const char *dflt)
{
	char *value;

	if (sysfs_read(id, attr, &value))
		return xstrdup(dflt);
	return value;
}

static size_t id_width(char **ids, size_t nr)
{
	size_t i, w = 2;

	for (i = 0; i < nr; i++) {
		if (strlen(ids[i]) > w)
			w = strlen(ids[i]);
	}
	return w;
}

static void list_one(const char *id, int width)
{
	char *stage = read_or(id, "stage", "?");
	char **names = sysfs_function_names(id);
	size_t i;

	printf("%-*s  %-8s ", width, id, stage);
	for (i = 0; names && names[i]; i++)
		printf(" %s", names[i]);
	if (!names)
		printf(" (functions unreadable)");
	printf("\n");
	free_strv(names, -1);
	free(stage);
}

static int list_all(void)
{
	char **ids;
	size_t nr, i;
	int ret;

	ret = sysfs_list_updates(&ids, &nr);
	if (ret)
		die("cannot list %s: %s", ksplice_sysfs_root(), strerror(-ret));
	if (!nr) {
		printf("No ksplice updates are loaded.\n");
		return 0;
	}
	for (i = 0; i < nr; i++)
		list_one(ids[i], id_width(ids, nr));
	free_strv(ids, nr);
	return 0;
}

/* Lists, one item a line: shown as a block even with one item. */
static bool is_list(const char *attr)
{
	return !strcmp(attr, "conflicts") || !strcmp(attr, "functions") ||
	       !strcmp(attr, "targets") || !strcmp(attr, "stacks");
}

/* One attribute: on its line if short, else as an indented block. */
static void show_attr(const char *id, const char *attr)
{
	char *value, *line, *save = NULL;
	int ret = sysfs_read(id, attr, &value);

	if (ret == -ENOENT)
		return;
	if (ret) {
		printf("%-18s (unreadable: %s)\n", attr, strerror(-ret));
		return;
	}
	if (!*value || (!strchr(value, '\n') && !is_list(attr))) {
		printf("%-18s %s\n", attr, *value ? value : "(none)");
	} else {
		printf("%s:\n", attr);
		for (line = strtok_r(value, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			printf("  %s\n", line);
	}
	free(value);
}

static bool is_known(const char *attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_attrs); i++) {
		if (!strcmp(attr, known_attrs[i]))
			return true;
	}
	return false;
}

static int other_attr(const struct dirent *de)
{
	return de->d_name[0] != '.' && !is_known(de->d_name);
}

static void show_others(const char *id)
{
	char *dir = sysfs_path(id, NULL);
	struct dirent **des;
	struct stat st;
	int n, i;

	n = scandir(dir, &des, other_attr, alphasort);
	for (i = 0; i < n; i++) {
		char *path = path_join(dir, des[i]->d_name);

		/* Files only: subdirectories are not attributes. */
		if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			show_attr(id, des[i]->d_name);
		free(path);
		free(des[i]);
	}
	if (n >= 0)
		free(des);
	free(dir);
}

/*
 * The last pause (the stop_machine callback) in microseconds, split into
 * the stack walk and the rest (patching); nothing before the first one.
 */
static void show_pause(const char *id)
{
	char *pause, *check;
	unsigned long long p, c;

	if (sysfs_read(id, "pause_ns", &pause))
		return;
	if (sysfs_read(id, "check_ns", &check))
		check = xstrdup("0");
	p = strtoull(pause, NULL, 10);
	c = strtoull(check, NULL, 10);
	if (p) {
		if (c > p)
			c = p;
		printf("%-18s %.1f us (stack walk %.1f us, patching %.1f us)\n",
		       "last pause", p / 1000.0, c / 1000.0, (p - c) / 1000.0);
	}
	free(pause);
	free(check);
}

/* What ksplice-apply recorded from the update's manifest. */
static void show_recorded(const char *id)
{
	struct manifest m;
	size_t i;

	if (state_manifest(id, &m))
		return;
	if (m.in.debian)
		printf("%-18s %s\n", "debian", m.in.debian);
	printf("%-18s", "cves");
	for (i = 0; i < m.nr_cves; i++)
		printf(" %s", m.cves[i]);
	printf("%s\n", m.nr_cves ? "" : " (none recorded)");
	manifest_free(&m);
}

static int show_status(const struct status *s)
{
	size_t i, applied = 0;

	for (i = 0; i < s->nr_installed; i++)
		applied += s->installed[i].applied;
	printf("%s: %zu of %zu updates installed for %s applied",
	       status_name(s->status), applied, s->nr_installed, s->release);
	if (s->effective)
		printf("; effective version %s", s->effective);
	printf("\n");
	if (s->disabled)
		printf("ksplice is disabled: %s\n", s->disabled);
	for (i = 0; i < s->nr_installed; i++) {
		const struct installed_update *u = &s->installed[i];

		if (!u->applied)
			printf("not applied: %s%s%s\n", u->file,
			       u->failure ? ": " : "",
			       u->failure ? u->failure : "");
	}
	switch (s->status) {
	case STATUS_UP_TO_DATE:
		return 0;
	case STATUS_NOT_APPLIED:
		return STATUS_EXIT_NOT_APPLIED;
	default:
		return STATUS_EXIT_FAILED;
	}
}

static int show_state(enum mode mode)
{
	struct status s;
	int ret;

	if (status_read(&s)) {
		status_free(&s);
		return 1;
	}
	if (mode == MODE_JSON)
		ret = view_json(&s) ? 1 : 0;
	else if (mode == MODE_PROMETHEUS)
		ret = view_prometheus(&s) ? 1 : 0;
	else
		ret = show_status(&s);
	status_free(&s);
	return ret;
}

static int show_one(const char *id)
{
	size_t i;

	if (!update_id_valid(id))
		die("'%s' is not an update id (ids are 1 to %d characters from [0-9a-z_])",
		    id, KSPLICE_ID_MAX);
	if (!sysfs_update_present(id)) {
		error("no update %s is loaded; the loaded updates are:", id);
		list_all();
		return 1;
	}
	printf("%-18s %s\n", "id", id);
	for (i = 0; i < ARRAY_SIZE(known_attrs); i++)
		show_attr(id, known_attrs[i]);
	show_pause(id);
	show_recorded(id);
	show_others(id);
	return 0;
}

int main(int argc, char **argv)
{
	enum mode mode = MODE_LIST;
	const char *id;

	set_progname(argv[0]);
	id = parse_args(argc, argv, &mode);
	if (mode != MODE_LIST)
		return show_state(mode);
	return id ? show_one(id) : list_all();
}
