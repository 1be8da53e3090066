// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-view: show the updates the ksplice core knows about.
 *
 * Reads only sysfs, so it needs no privilege beyond what the attribute
 * permissions ask for, and it changes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel.h"
#include "update-file.h"
#include "util.h"

/* Shown first, in this order; any other attribute follows, sorted. */
static const char *const known_attrs[] = {
	"stage", "abort_cause", "abort_detail", "conflicts", "functions",
	"targets", "stacks",
};

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [ID]\n"
		"List the loaded ksplice updates, or show everything about update ID.\n"
		"\n"
		"  -h, --help   show this help\n",
		progname);
	exit(status);
}

static const char *parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			usage(0);
		usage(2);
	}
	if (argc - optind > 1)
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
	show_others(id);
	return 0;
}

int main(int argc, char **argv)
{
	const char *id;

	set_progname(argv[0]);
	id = parse_args(argc, argv);
	return id ? show_one(id) : list_all();
}
