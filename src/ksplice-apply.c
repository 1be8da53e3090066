// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-apply: apply an update file to the running kernel.
 *
 * The update module registers the update with the core when loaded; the
 * work happens when we write "applied" to its stage attribute, and the
 * core either replaces every function or changes nothing.  If it changes
 * nothing we unload the update module again, so a failed apply leaves
 * only the (harmless, reusable) core module behind.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel.h"
#include "load-symbols.h"
#include "modinfo.h"
#include "update-file.h"
#include "util.h"

struct options {
	const char *max_tries;		/* NULL: the core's default */
	const char *retry_interval;
	const char *file;
};

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [--max-tries N] [--retry-interval MS] UPDATE_FILE\n"
		"Apply a ksplice update to the running kernel, without rebooting.\n"
		"\n"
		"  --max-tries N         try N times to find a moment when no task\n"
		"                        is running the code being replaced\n"
		"  --retry-interval MS   wait MS milliseconds between tries\n"
		"  -h, --help            show this help\n",
		progname);
	exit(status);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "max-tries", required_argument, NULL, 't' },
		{ "retry-interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->max_tries = number_arg("--max-tries", optarg, 1);
			break;
		case 'i':
			o->retry_interval =
				number_arg("--retry-interval", optarg, 0);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (argc - optind != 1)
		usage(2);
	o->file = argv[optind];
}

static int check_release(const struct manifest *m)
{
	struct utsname u;

	if (uname(&u) < 0)
		return error_errno("cannot find the running kernel's release");
	if (strcmp(m->kernel_release, u.release))
		return error("update %s was built for kernel %s, but the running kernel is %s; build the update against the running kernel's source",
			     m->id, m->kernel_release, u.release);
	return 0;
}

static int load_core(const char *dir)
{
	char *path = path_join(dir, UPDATE_CORE_MODULE);
	int log = kmsg_mark(), ret = module_load(path);

	free(path);
	if (ret == 0 || ret == -EEXIST) {
		if (log >= 0)
			close(log);
		return 0;	/* EEXIST: loaded, its sysfs checked later */
	}
	error("cannot load the ksplice core module %s from the update file: %s",
	      UPDATE_CORE_MODULE, strerror(-ret));
	if (!kmsg_show(log, "ksplice"))
		note("%s.", module_load_hint(ret));
	return -1;
}

/* Refuses an update that is already in; an old "loaded" one is reused. */
static int check_not_applied(const char *id)
{
	char *stage;

	if (!sysfs_update_present(id) || sysfs_read(id, "stage", &stage))
		return 0;
	if (!strcmp(stage, "applied")) {
		free(stage);
		return error("update %s is already applied (see ksplice-view %s; ksplice-undo %s reverses it)",
			     id, id, id);
	}
	free(stage);
	return 0;
}

/*
 * The modules whose exports the update module uses (sunrpc for an update
 * of nfsd), loaded first as modprobe would: the target itself need not be
 * loaded, but these must be for the update module to link.
 */
static int load_depends(const char *path)
{
	char **deps = modinfo_depends(path);
	size_t i;
	int ret = 0;

	/* Not a module: the kernel's loader says so, in its words. */
	if (!deps)
		return 0;
	for (i = 0; deps[i] && !ret; i++) {
		if (!strcmp(deps[i], "ksplice") || module_present(deps[i]))
			continue;
		note("loading module %s, which the update's new code uses", deps[i]);
		if (module_probe(deps[i]))
			ret = error("the update uses module %s, which could not be loaded (modprobe %s failed)",
				    deps[i], deps[i]);
	}
	free_strv(deps, -1);
	return ret;
}

/* Loads ksplice_<id>.ko; -1 after a message if it is not loaded now. */
static int load_update(const struct manifest *m, const char *dir)
{
	char *file = update_module_file(m->id);
	char *path = path_join(dir, file);
	int ret = -1, log;

	if (load_depends(path) || load_symbols_set(path, m))
		goto out;
	log = kmsg_mark();
	ret = module_load(path);
	if (ret == -EEXIST) {
		warn("module ksplice_%s is already loaded; using it", m->id);
		ret = 0;
	} else if (ret) {
		error("cannot load the update module %s: %s", file,
		      strerror(-ret));
		/* The core's reason, or the loader's, beats our guess. */
		if (!kmsg_show(log, "ksplice"))
			note("%s.", module_load_hint(ret));
		log = -1;
	}
	if (log >= 0)
		close(log);
out:
	free(path);
	free(file);
	return ret ? -1 : 0;
}

static void print_done(const struct manifest *m)
{
	char **names = sysfs_function_names(m->id);
	size_t i;

	printf("Done! Applied update %s\n", m->id);
	if (names) {
		for (i = 0; names[i]; i++)
			printf("  replaced %s\n", names[i]);
	} else {
		for (i = 0; i < m->nr_functions; i++)
			printf("  replaced %s\n", m->functions[i]);
	}
	free_strv(names, -1);
}

/* The stage change itself: 0 if the kernel now runs the new code. */
static int change_stage(const struct manifest *m)
{
	char *stage = NULL;
	int wret, ret = -1;

	wret = sysfs_write(m->id, "stage", "applied");
	/* The stage, not the write, says what happened. */
	if (sysfs_read(m->id, "stage", &stage))
		stage = NULL;
	if (!wret && stage && !strcmp(stage, "applied"))
		ret = 0;
	else
		explain_abort(KSPLICE_OP_APPLY, m->id, wret, stage);
	free(stage);
	return ret;
}

static void unload_update(const char *id)
{
	char *name = update_module_name(id);
	int ret = module_unload(name);

	if (ret && ret != -ENOENT)
		warn("could not unload module %s (%s); remove it with: rmmod %s",
		     name, strerror(-ret), name);
	else
		note("Nothing was changed; module %s is not left loaded.",
		     name);
	free(name);
}

/* The ids of the updates applied now (for a replace update), or NULL. */
static char **applied_ids(void)
{
	char **ids, *stage, **out;
	size_t nr, i, n = 0;

	if (sysfs_list_updates(&ids, &nr))
		return NULL;
	out = xcalloc(nr + 1, sizeof(char *));
	for (i = 0; i < nr; i++) {
		if (sysfs_read(ids[i], "stage", &stage))
			continue;
		if (!strcmp(stage, "applied"))
			out[n++] = xstrdup(ids[i]);
		free(stage);
	}
	free_strv(ids, nr);
	return out;
}

/*
 * A replace update took the place of the updates applied before it: the
 * core reversed them; their modules go, as ksplice-undo's would.
 */
static void unload_replaced(char **before, const char *id)
{
	char *stage, *name;
	size_t i;
	int ret;

	for (i = 0; before && before[i]; i++) {
		if (!strcmp(before[i], id) || sysfs_read(before[i], "stage", &stage))
			continue;
		if (!strcmp(stage, "reversed")) {
			name = update_module_name(before[i]);
			ret = module_unload(name);
			if (ret && ret != -ENOENT)
				warn("could not unload module %s of replaced update %s (%s); remove it with: rmmod %s",
				     name, before[i], strerror(-ret), name);
			else
				printf("  replaced update %s (its module is unloaded)\n",
				       before[i]);
			free(name);
		}
		free(stage);
	}
}

static int apply(const struct manifest *m, const char *dir,
		 const struct options *o)
{
	char **before = NULL;

	if (!sysfs_core_present() && load_core(dir))
		return -1;
	if (check_not_applied(m->id) || load_update(m, dir))
		return -1;
	if (!sysfs_update_present(m->id)) {
		char *path = sysfs_path(m->id, NULL);

		error("module ksplice_%s is loaded but %s did not appear: it did not register with the ksplice core (see the kernel log)",
		      m->id, path);
		free(path);
		goto fail;
	}
	if (m->replaces)
		before = applied_ids();
	if (sysfs_set_tunable(m->id, "max_tries", o->max_tries) ||
	    sysfs_set_tunable(m->id, "retry_interval_ms", o->retry_interval) ||
	    change_stage(m))
		goto fail;
	print_done(m);
	unload_replaced(before, m->id);
	free_strv(before, -1);
	return 0;
fail:
	free_strv(before, -1);
	unload_update(m->id);
	return -1;
}

int main(int argc, char **argv)
{
	struct options o = { };
	struct manifest m;
	char *dir;
	int ret;

	set_progname(argv[0]);
	parse_args(argc, argv, &o);
	if (check_module_privilege())
		return 1;
	dir = make_temp_dir("ksplice-apply");
	if (!dir)
		die_errno("cannot make a temporary directory (is TMPDIR writable?)");
	ret = update_file_extract(o.file, dir, &m);
	if (!ret) {
		ret = check_release(&m) || apply(&m, dir, &o);
		manifest_free(&m);
	}
	if (remove_tree(dir) < 0)
		warn("cannot remove the temporary directory %s: %s", dir,
		     strerror(errno));
	free(dir);
	return ret ? 1 : 0;
}
