// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-undo: reverse an applied update and unload its module.
 *
 * Writing "reversed" to the update's stage puts the old code back, all
 * or nothing, like applying.  Only once the kernel no longer runs the
 * new code may the module holding it go.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "state.h"
#include "tries.h"
#include "update-file.h"
#include "util.h"

static struct tries tries;

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [--max-tries N] [--retry-interval MS] ID\n"
		"Reverse the applied ksplice update ID (see ksplice-view) and\n"
		"unload its module.\n"
		"\n"
		TRIES_USAGE
		"  -h, --help            show this help\n",
		progname);
	exit(status);
}

static const char *parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		TRIES_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (tries_option(c, optarg, &tries)) {
		case 1:
			continue;
		case -1:
			exit(1);
		}
		switch (c) {
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (argc - optind != 1)
		usage(2);
	return argv[optind];
}

/* For a mistyped id, the ids that would have worked. */
static int unknown_update(const char *id)
{
	char **ids;
	size_t nr, i;
	int ret;

	ret = sysfs_list_updates(&ids, &nr);
	if (ret)
		return error("no update %s is loaded (and %s cannot be listed: %s)",
			     id, ksplice_sysfs_root(), strerror(-ret));
	if (!nr)
		return error("no update %s is loaded: no ksplice updates are loaded",
			     id);
	error("no update %s is loaded; loaded updates are:", id);
	for (i = 0; i < nr; i++) {
		char *stage;

		if (sysfs_read(ids[i], "stage", &stage))
			stage = xstrdup("unknown");
		note("%s (%s)", ids[i], stage);
		free(stage);
	}
	free_strv(ids, nr);
	return -1;
}

static int unload(const char *id)
{
	char *name = update_module_name(id);
	int ret = module_unload(name);

	if (ret && ret != -ENOENT)
		warn("could not unload module %s (%s); remove it later with: rmmod %s",
		     name, strerror(-ret), name);
	free(name);
	return ret == -ENOENT ? 0 : ret;
}

static int reverse(const char *id)
{
	char *stage = NULL;
	int wret, ret = 0;

	if (tries_set(id, &tries))
		return -1;
	wret = sysfs_write(id, "stage", "reversed");
	if (sysfs_read(id, "stage", &stage))
		stage = NULL;
	if (wret || !stage || strcmp(stage, "reversed")) {
		explain_abort(KSPLICE_OP_REVERSE, id, wret, stage);
		note("The update stays applied.");
		ret = -1;
	}
	free(stage);
	return ret;
}

/*
 * An update that adds exports (manifest "export" lines) is held by the
 * modules using them: its module could not go, and the old code would run
 * under modules built for the new.  Nothing is reversed then.
 */
static int check_holders(const char *id)
{
	char *name = update_module_name(id);
	char *holders = module_holders(name);
	int ret = 0;

	if (holders) {
		ret = error("update %s cannot be undone: modules use what it exports: %s; unload them first (rmmod %s)",
			    id, holders, holders);
		note("The update stays applied.");
	}
	free(holders);
	free(name);
	return ret;
}

int main(int argc, char **argv)
{
	const char *id;
	char *stage;
	int ret;

	set_progname(argv[0]);
	id = parse_args(argc, argv);
	if (!update_id_valid(id))
		die("'%s' is not an update id (ids are 1 to %d characters from [0-9a-z_]; see ksplice-view)",
		    id, KSPLICE_ID_MAX);
	if (check_module_privilege())
		return 1;
	if (!sysfs_update_present(id))
		return unknown_update(id) ? 1 : 0;
	ret = sysfs_read(id, "stage", &stage);
	if (ret)
		die("cannot read the stage of update %s: %s", id,
		    strerror(-ret));
	if (strcmp(stage, "applied")) {
		/* Nothing to reverse; clean up a module left behind. */
		printf("Update %s is not applied (stage: %s); unloading its module.\n",
		       id, stage);
		free(stage);
		state_forget(id);
		return unload(id) ? 1 : 0;
	}
	free(stage);
	if (check_holders(id) || reverse(id))
		return 1;
	state_forget(id);
	unload(id);
	printf("Done! Reversed update %s\n", id);
	return 0;
}
