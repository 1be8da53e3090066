// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-apply: apply an update file to the running kernel.
 *
 * The update module registers the update with the core when loaded; the
 * work happens when we write "applied" to its stage attribute, and the
 * core either replaces every function or changes nothing.  If it changes
 * nothing we unload the update module again, so a failed apply leaves
 * only the (harmless, reusable) core module behind.
 *
 * --installed applies every update installed for the running kernel
 * (installed.h), as ksplice.service does at boot and the update packages'
 * postinst on install: one that is already applied is left as it is, one
 * that fails does not stop the others.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "installed.h"
#include "modsig.h"
#include "kernel.h"
#include "load-symbols.h"
#include "modinfo.h"
#include "state.h"
#include "tries.h"
#include "update-file.h"
#include "util.h"

struct options {
	struct tries tries;
	const char *file;
	bool installed;
};

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [--max-tries N] [--retry-interval MS] UPDATE_FILE\n"
		"       %s [--max-tries N] [--retry-interval MS] --installed\n"
		"Apply a ksplice update to the running kernel, without rebooting.\n"
		"\n"
		"  --installed           apply every update installed for the\n"
		"                        running kernel (in %s/RELEASE/),\n"
		"                        unless ksplice=off is on the kernel command\n"
		"                        line or %s exists\n"
		TRIES_USAGE
		"  -h, --help            show this help\n",
		progname, progname, KSPLICE_STORE_DEFAULT,
		KSPLICE_DISABLE_DEFAULT);
	exit(status);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		TRIES_LONGOPTS,
		{ "installed", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (tries_option(c, optarg, &o->tries)) {
		case 1:
			continue;
		case -1:
			exit(1);
		}
		switch (c) {
		case 'I':
			o->installed = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (argc - optind != !o->installed)
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

	if (ret == 0 || ret == -EEXIST) {
		if (log >= 0)
			close(log);
		free(path);
		return 0;	/* EEXIST: loaded, its sysfs checked later */
	}
	error("cannot load the ksplice core module %s from the update file: %s",
	      UPDATE_CORE_MODULE, strerror(-ret));
	if (explain_signature_refusal(path, -ret)) {
		if (log >= 0)
			close(log);
	} else if (!kmsg_show(log, "ksplice")) {
		note("%s.", module_load_hint(ret));
	}
	free(path);
	return -1;
}

static bool is_applied(const char *id)
{
	char *stage;
	bool applied;

	if (!sysfs_update_present(id) || sysfs_read(id, "stage", &stage))
		return false;
	applied = !strcmp(stage, "applied");
	free(stage);
	return applied;
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
		/* A missing signature, the core's reason, or the loader's, beats our guess. */
		if (explain_signature_refusal(path, -ret)) {
			if (log >= 0)
				close(log);
		} else if (!kmsg_show(log, "ksplice")) {
			note("%s.", module_load_hint(ret));
		}
		log = -1;	/* closed */
	}
	if (log >= 0)
		close(log);
out:
	free(path);
	free(file);
	return ret ? -1 : 0;
}

/* "TARGET NAME": published now, or once the module TARGET loads. */
static void print_export(const char *line)
{
	const char *sp = strchr(line, ' ');
	char *target = xstrndup(line, sp - line);

	if (!strcmp(target, "vmlinux") || module_present(target))
		printf("  exports %s\n", sp + 1);
	else
		printf("  exports %s once module %s loads\n", sp + 1, target);
	free(target);
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
	for (i = 0; i < m->nr_hooks; i++)
		printf("  hook %s\n", m->hooks[i]);
	for (i = 0; i < m->nr_data; i++)
		printf("  patched %s in place\n", m->data[i]);
	for (i = 0; i < m->nr_exports; i++)
		print_export(m->exports[i]);
	free_strv(names, -1);
}

/*
 * The stage change itself: 0 if the kernel now runs the new code; 1 if
 * another ksplice-apply of the same update applied it between our check
 * and our write (the core refused ours as already applied): the update
 * and its module are that one's, to be left alone.
 */
static int change_stage(const struct manifest *m)
{
	char *stage = NULL;
	int wret, ret = -1;

	wret = sysfs_write(m->id, "stage", "applied");
	/* The stage, not the write, says what happened. */
	if (sysfs_read(m->id, "stage", &stage))
		stage = NULL;
	if (!wret && stage && !strcmp(stage, "applied")) {
		ret = 0;
	} else if (wret && stage && !strcmp(stage, "applied")) {
		error("update %s is already applied: another ksplice-apply applied it meanwhile (see ksplice-view %s)",
		      m->id, m->id);
		ret = 1;
	} else {
		explain_abort(KSPLICE_OP_APPLY, m->id, wret, stage);
	}
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
			state_forget(before[i]);
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

/*
 * Remembered for ksplice-view --status and --json until the next success:
 * the core's abort cause, or that the update did not get that far.
 */
static void record_failure(const char *id)
{
	char *cause = NULL, *why;

	if (sysfs_update_present(id) && !sysfs_read(id, "abort_cause", &cause) &&
	    strcmp(cause, "none"))
		why = xasprintf("abort_cause %s", cause);
	else
		why = xstrdup("the core or update module did not load, or the update did not register");
	if (state_failed(id, why))
		warn("cannot record the failure in %s: %s", KSPLICE_RUN_DEFAULT,
		     strerror(errno));
	free(why);
	free(cause);
}

static int apply(const struct manifest *m, const char *dir,
		 const struct options *o)
{
	char **before = NULL;
	int ret;

	if (!sysfs_core_present() && load_core(dir))
		goto failed;
	if (check_not_applied(m->id))
		return -1;
	if (load_update(m, dir))
		goto failed;
	if (!sysfs_update_present(m->id)) {
		char *path = sysfs_path(m->id, NULL);

		error("module ksplice_%s is loaded but %s did not appear: it did not register with the ksplice core (see the kernel log)",
		      m->id, path);
		free(path);
		goto fail;
	}
	if (m->replaces)
		before = applied_ids();
	if (tries_set(m->id, &o->tries))
		goto fail;
	ret = change_stage(m);
	if (ret > 0) {
		free_strv(before, -1);
		return -1;	/* not ours to record or unload */
	}
	if (ret)
		goto fail;
	/* The manifest, for ksplice-view and ksplice-uname. */
	if (state_applied(m))
		warn("cannot record update %s in %s: %s", m->id,
		     KSPLICE_RUN_DEFAULT, strerror(errno));
	print_done(m);
	unload_replaced(before, m->id);
	free_strv(before, -1);
	return 0;
fail:
	free_strv(before, -1);
	record_failure(m->id);
	unload_update(m->id);
	return -1;
failed:
	record_failure(m->id);
	return -1;
}

/*
 * One update file: 0 if applied now, 1 if it was already (only when
 * @skip_applied), -1 after a message if it is not applied.
 */
static int apply_file(const char *file, const struct options *o,
		      bool skip_applied)
{
	struct manifest m;
	char *dir;
	int ret;

	dir = make_temp_dir("ksplice-apply");
	if (!dir)
		return error_errno("cannot make a temporary directory (is TMPDIR writable?)");
	ret = update_file_extract(file, dir, &m);
	if (!ret) {
		if (check_release(&m))
			ret = -1;
		else if (skip_applied && is_applied(m.id))
			ret = 1;
		else
			ret = apply(&m, dir, o);
		if (ret == 1)
			printf("Update %s is already applied.\n", m.id);
		manifest_free(&m);
	}
	if (remove_tree(dir) < 0)
		warn("cannot remove the temporary directory %s: %s", dir,
		     strerror(errno));
	free(dir);
	return ret;
}

/* --installed: 0 if every installed update is applied now, else 1. */
static int apply_installed(const struct options *o)
{
	const char *off = installed_disabled();
	struct utsname u;
	char **files;
	size_t nr, i, failed = 0;
	int ret;

	if (off) {
		printf("ksplice is disabled (%s): not applying the installed updates.\n",
		       off);
		return 0;
	}
	if (uname(&u) < 0)
		return error_errno("cannot find the running kernel's release"), 1;
	ret = installed_updates(u.release, &files, &nr);
	if (ret) {
		char *dir = installed_dir(u.release);

		error("cannot list the installed updates in %s: %s", dir,
		      strerror(-ret));
		free(dir);
		return 1;
	}
	if (!nr)
		printf("No ksplice updates are installed for kernel %s.\n",
		       u.release);
	if (nr && check_module_privilege()) {
		free_strv(files, nr);
		return 1;
	}
	/* Each on its own: one that cannot apply now stops no other. */
	for (i = 0; i < nr; i++) {
		if (apply_file(files[i], o, true) < 0) {
			error("%s is installed but not applied; it is tried again at the next boot or ksplice-apply --installed",
			      files[i]);
			failed++;
		}
	}
	free_strv(files, nr);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o = { };

	set_progname(argv[0]);
	parse_args(argc, argv, &o);
	if (o.installed)
		return apply_installed(&o);
	if (check_module_privilege())
		return 1;
	return apply_file(o.file, &o, false) ? 1 : 0;
}
