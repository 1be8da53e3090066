// SPDX-License-Identifier: GPL-2.0
/*
 * The update file: the update module and the core built with Kbuild
 * against the target's build dir, stripped, and packed with a manifest.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "create.h"
#include "load-symbols.h"
#include "newexports.h"
#include "update-file.h"

static bool is_source(const char *name)
{
	return str_has_suffix(name, ".c") || str_has_suffix(name, ".h") ||
	       !strcmp(name, "Kbuild");
}

/* Sources only: a developer's build products must not leak into the update. */
static int copy_sources(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int ret = 0;

	if (!d || (mkdir(to, 0755) && errno != EEXIST))
		return error_errno("cannot copy %s", from);
	while (!ret && (e = readdir(d))) {
		char *src, *dst;

		if (!is_source(e->d_name))
			continue;
		src = path_join(from, e->d_name);
		dst = path_join(to, e->d_name);
		if (copy_file(src, dst, 1 << 24))
			ret = error_errno("cannot copy %s", src);
		free(src);
		free(dst);
	}
	closedir(d);
	return ret;
}

static char *ko_path(struct work *w)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/update/ksplice_%s.ko", w->dir,
		 w->update.id);
	return path;
}

/* Names and contents of the sources of @dir, in name order. */
static uint64_t hash_sources(uint64_t h, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;

	for (i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]->d_name), *data;
		size_t len;

		if (is_source(names[i]->d_name) &&
		    !read_file(path, 1 << 24, &data, &len)) {
			h = fnv1a(h, names[i]->d_name, strlen(names[i]->d_name) + 1);
			h = fnv1a(h, data, len);
			free(data);
		}
		free(path);
		free(names[i]);
	}
	free(n >= 0 ? names : NULL);
	return h;
}

/*
 * How kbuild_module() builds (the reproducible-builds environment, the
 * file prefix map): a core cached by another recipe has other bytes, and
 * an update file holding it would not verify.  Change it with the recipe.
 */
#define CORE_RECIPE	"kbuild_module 2: SOURCE_DATE_EPOCH=0, -ffile-prefix-map"

/* The core is a function of its sources, the target's build dir and the recipe. */
static char *core_cache(struct work *w, const char *core)
{
	char real[PATH_MAX], *symvers = path_join(w->o->build, "Module.symvers");
	char *sub, *data = NULL, *dir;
	uint64_t h = fnv1a(FNV1A_INIT, CORE_RECIPE, sizeof(CORE_RECIPE));
	size_t len = 0;

	if (realpath(w->o->build, real))
		h = fnv1a(h, real, strlen(real) + 1);
	if (!read_file(symvers, 64 << 20, &data, &len))
		h = fnv1a(h, data, len);
	sub = path_join(core, "kmod");
	h = hash_sources(h, sub);
	free(sub);
	sub = path_join(core, "include");
	h = hash_sources(h, sub);
	dir = xasprintf("%s/core/%016llx", w->cache, (unsigned long long)h);
	free(sub);
	free(data);
	free(symvers);
	return dir;
}

/* ksplice.ko and Module.symvers between the core's build dir and @to. */
static int copy_core(const char *from, const char *to)
{
	static const char *const files[] = { "ksplice.ko", "Module.symvers" };
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(files); i++) {
		char *a = path_join(from, files[i]), *b = path_join(to, files[i]);

		ret = copy_file(a, b, UPDATE_MEMBER_MAX);
		free(a);
		free(b);
	}
	return ret;
}

/* Built once per core source and build dir, then taken from the cache. */
static int build_core(struct work *w, const char *core, const char *core_kmod)
{
	char *cached = core_cache(w, core), *tmp;

	if (!copy_core(cached, core_kmod)) {
		fprintf(stderr, "  the core module: built before (%s)\n", cached);
		free(cached);
		return 0;
	}
	fprintf(stderr, "  building the core module (for %s)\n", cached);
	if (kbuild_module(w->o->build, core_kmod, NULL, w->log)) {
		show_log_tail(w->log);
		free(cached);
		return error("building the ksplice core module failed");
	}
	/* Into the cache whole or not at all: a directory renamed in. */
	tmp = xasprintf("%s.%d", cached, (int)getpid());
	if (!mkdir_p(tmp) && !copy_core(core_kmod, tmp))
		rename(tmp, cached);	/* or another run's is there */
	remove_tree(tmp);
	free(tmp);
	free(cached);
	return 0;
}

int package_build(struct work *w, const char *data)
{
	char *core = path_join(w->dir, "core");
	char *kmod = path_join(data, "kmod"), *inc = path_join(data, "include");
	char *upd = path_join(w->dir, "update");
	char *symvers = path_join(core, "kmod/Module.symvers");
	char *core_kmod = path_join(core, "kmod");
	char *core_inc = path_join(core, "include");
	int ret = -1;

	if (mkdir(core, 0755) || copy_sources(kmod, core_kmod) ||
	    copy_sources(inc, core_inc) || copy_sources(inc, upd))
		goto out;
	if (build_core(w, core, core_kmod))
		goto out;
	w->update.exports = &w->exports;
	w->update.load_syms = &w->load_syms;
	if (emit_update(&w->update, upd))
		goto out;
	fprintf(stderr, "  building the update module ksplice_%s\n", w->update.id);
	if (kbuild_module(w->o->build, upd, symvers, w->log)) {
		show_log_tail(w->log);
		error("building the update module failed");
		goto out;
	}
	if (load_symbols_require(ko_path(w), w->load_syms.nr))
		goto out;
	ret = 0;
out:
	free(core_kmod);
	free(core_inc);
	free(core);
	free(kmod);
	free(inc);
	free(upd);
	free(symvers);
	return ret;
}

/* "vmlinux nfsd": each target once, in the order of the units. */
static char *targets_list(const struct update *u)
{
	struct strv seen = { 0 };
	char *list = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < u->nr_units; i++) {
		if (strv_has(&seen, u->units[i].target))
			continue;
		strv_add(&seen, xstrdup(u->units[i].target));
		more = xasprintf("%s%s%s", list, *list ? " " : "",
				 u->units[i].target);
		free(list);
		list = more;
	}
	strv_free(&seen);
	return list;
}

char *update_file_path(const struct work *w)
{
	return xasprintf("%s/ksplice-%s.tar.gz", w->o->outdir, w->update.id);
}

int package_write(struct work *w)
{
	struct manifest m;
	char *ko = xstrdup(ko_path(w));
	char *core = xasprintf("%s/core/kmod/ksplice.ko", w->dir);
	const char *files[] = { ko, core, NULL };
	char *out = update_file_path(w);
	char real[PATH_MAX];
	size_t i, j;
	int ret;

	/* What INSTALL_MOD_STRIP=1 does: the target has no use for DWARF. */
	for (i = 0; files[i]; i++) {
		const char *strip[] = { "strip", "--strip-debug", files[i], NULL };

		if (run_command(strip))
			return error("strip --strip-debug %s failed", files[i]);
	}
	if (sign_modules(w->o, files))
		return -1;
	manifest_init(&m);
	m.format = UPDATE_FORMAT;
	m.id = xstrdup(w->update.id);
	m.kernel_release = xstrdup(w->release);
	m.target = targets_list(&w->update);
	m.created_by = xstrdup("ksplice-create");
	if (w->update.replace)
		m.replaces = xstrdup("all");
	m.in = w->in;		/* shared, not freed by manifest_free() */
	for (i = 0; i < w->update.nr_units; i++)
		for (j = 0; j < w->update.units[i].diff.nr_changes; j++)
			if (w->update.units[i].diff.changes[j].kind == FUNC_CHANGED)
				manifest_add_function(&m,
					w->update.units[i].diff.changes[j].pre->name);
	for (i = 0; i < w->update.nr_units; i++)
		for (j = 0; j < w->update.units[i].hooks.nr; j++)
			manifest_add_hook(&m,
				hook_kind_name(w->update.units[i].hooks.v[j].kind),
				w->update.units[i].hooks.v[j].fn->name);
	for (i = 0; i < w->update.nr_units; i++)
		for (j = 0; j < w->update.units[i].diff.nr_data; j++)
			if (w->update.units[i].diff.data[j].in_place)
				manifest_add_data(&m,
					w->update.units[i].diff.data[j].pre->name);
	for (i = 0; i < w->update.nr_units; i++)
		exports_to_manifest(&w->update.units[i], &m);
	for (i = 0; i < w->load_syms.nr; i++)
		manifest_add_load_sym(&m, w->load_syms.targets[i],
				      w->load_syms.names[i]);
	/* --debian A..B: what B's changelog says it fixes since A. */
	ret = w->o->debian_changelog ?
	      debian_cves(w->o->debian_changelog, w->o->debian_since, &m) : 0;
	if (!ret)
		ret = update_file_write(out, &m, files);
	memset(&m.in, 0, sizeof(m.in));
	manifest_free(&m);
	if (ret)
		return -1;
	if (!w->o->verify)
		printf("%s\n", realpath(out, real) ? real : out);
	return 0;
}

