// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-create: a kernel source tree and a patch in, one update file out.
 *
 *   1. prepare a copy of the tree configured like the target (cached);
 *   2. compile the units the patch touches, before and after the patch;
 *   3. diff the objects: the functions whose code differs are the update;
 *   4. emit the update module and build it, and the core, with Kbuild;
 *   5. pack both with a manifest into ksplice-<id>.tar.gz.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "emit.h"
#include "includes.h"
#include "load-symbols.h"
#include "patchfile.h"
#include "update-file.h"
#include "util.h"

/* A header in many units: each takes seconds to compile, twice. */
#define DEFAULT_MAX_UNITS	400

struct options {
	const char *build;
	const char *config;
	const char *id;
	const char *outdir;
	const char *patch;
	const char *source;
	const char *debian;		/* --debian A..B */
	bool keep;
	const char *diff_pre;		/* --diff-objects PRE POST */
	size_t max_units;
};

static __noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: ksplice-create [--build DIR] [--config FILE] [--id ID] [-o DIR] [--keep] [--max-units N]\n"
		"                      --patch FILE SOURCE_DIR | --debian A..B\n"
		"\n"
		"Builds a live update of the running kernel from SOURCE_DIR (the source it was\n"
		"built from, left unmodified) and the patch FILE (unified diff, -p1).\n"
		"  --debian A..B  instead: the change between two Debian versions of\n"
		"                 linux-source-6.1 (e.g. 6.1.192-2..6.1.192-3), both fetched\n"
		"                 and cached; the running kernel is built from A\n"
		"  --build DIR    the target kernel's build dir (default /lib/modules/$(uname -r)/build)\n"
		"  --config FILE  its configuration (default DIR/.config)\n"
		"  --id ID        the update's id, [0-9a-z_] (default: random)\n"
		"  -o DIR         where to write ksplice-ID.tar.gz (default: .)\n"
		"  --keep         keep the work directory (printed) for inspection\n"
		"  --max-units N  refuse a patch whose headers reach more than N units\n"
		"                 (default %d): each is compiled twice\n"
		"or:    ksplice-create --diff-objects PRE.o POST.o\n"
		"  prints the functions that differ between two objects, as an update would see them\n"
		"The last line of output is the update file's path.\n",
		DEFAULT_MAX_UNITS);
	exit(status);
}

static size_t max_units_arg(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || !n)
		die("--max-units %s: want a positive number", s);
	return n;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "build", required_argument, NULL, 'b' },
		{ "config", required_argument, NULL, 'c' },
		{ "id", required_argument, NULL, 'i' },
		{ "patch", required_argument, NULL, 'p' },
		{ "keep", no_argument, NULL, 'k' },
		{ "debian", required_argument, NULL, 'D' },
		{ "max-units", required_argument, NULL, 'm' },
		{ "diff-objects", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char defbuild[512];
	struct utsname u;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->build = optarg; break;
		case 'c': o->config = optarg; break;
		case 'i': o->id = optarg; break;
		case 'o': o->outdir = optarg; break;
		case 'p': o->patch = optarg; break;
		case 'k': o->keep = true; break;
		case 'd': o->diff_pre = optarg; break;
		case 'D': o->debian = optarg; break;
		case 'm': o->max_units = max_units_arg(optarg); break;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (o->debian) {
		if (o->patch || o->diff_pre || optind != argc)
			usage(2);
	} else if (optind + 1 != argc || (!o->patch && !o->diff_pre)) {
		usage(2);
	}
	if (o->diff_pre)
		return;
	if (!o->max_units)
		o->max_units = DEFAULT_MAX_UNITS;
	if (!o->debian) {
		o->source = argv[optind];
		o->patch = realpath(o->patch, NULL);
		if (!o->patch)
			die_errno("cannot read the patch");
	}
	if (!o->build) {
		uname(&u);
		snprintf(defbuild, sizeof(defbuild), "/lib/modules/%s/build",
			 u.release);
		o->build = defbuild;
	}
	if (!o->config)
		o->config = path_join(o->build, ".config");
	if (!o->outdir)
		o->outdir = ".";
}

static char *random_id(void)
{
	unsigned char b[3];

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		die_errno("getrandom");
	return xasprintf("%02x%02x%02x", b[0], b[1], b[2]);
}

static char *cache_dir(void)
{
	const char *env = getenv("KSPLICE_CACHE");

	if (env && *env)
		return xstrdup(env);
	env = getenv("XDG_CACHE_HOME");
	if (env && *env)
		return xasprintf("%s/ksplice", env);
	return xasprintf("%s/.cache/ksplice", getenv("HOME") ? getenv("HOME") : "/root");
}

/* kmod/ and include/ of this installation: next to bin/, or installed. */
static char *data_dir(void)
{
	const char *env = getenv("KSPLICE_DATADIR");
	char exe[PATH_MAX], *p, *d;
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		p = strrchr(exe, '/');
		if (p)
			*p = '\0';
		d = xasprintf("%s/..", exe);
		p = path_join(d, "kmod/Kbuild");
		if (!access(p, R_OK)) {
			free(p);
			return d;
		}
		free(p);
		free(d);
	}
	return xstrdup("/usr/share/ksplice");
}

/* A Debian package version: what apt accepts, nothing a shell or path minds. */
static bool debian_version_ok(const char *v)
{
	if (!*v || !isdigit((unsigned char)*v) || strlen(v) > 64)
		return false;
	return strspn(v, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-") ==
	       strlen(v);
}

/* scripts/fetch-source VERSION: the unpacked tree, from the cache. */
static char *fetch_source(const char *version)
{
	char *script = path_join(data_dir(), "scripts/fetch-source");
	const char *argv[] = { script, version, NULL };
	char *out = NULL, *last;
	size_t len;
	int ret;

	fprintf(stderr, "  fetching linux-source-6.1 %s (cached)\n", version);
	ret = run_command_capture(argv, 1 << 16, &out, &len);
	free(script);
	if (ret) {
		free(out);
		error("fetching the source of %s failed", version);
		return NULL;
	}
	str_rstrip(out);
	last = strrchr(out, '\n');
	last = xstrdup(last ? last + 1 : out);
	free(out);
	return last;
}

/*
 * --debian A..B: the patch is diff -urN of the two source trees, labelled
 * a/ and b/ (links in the work directory) so that it applies with -p1;
 * the source is tree A.
 */
static int debian_patch(struct options *o, const char *workdir)
{
	const char *sep = strstr(o->debian, "..");
	char *a, *b, *ta = NULL, *tb = NULL, *la, *lb, *patch;
	const char *argv[] = { "diff", "-urN", "a", "b", NULL };
	int fd, status = -1;
	pid_t pid;

	if (!sep)
		return error("--debian %s: want OLD..NEW, e.g. 6.1.192-2..6.1.192-3",
			     o->debian);
	a = xstrndup(o->debian, sep - o->debian);
	b = xstrdup(sep + 2);
	if (!debian_version_ok(a) || !debian_version_ok(b) || !strcmp(a, b))
		return error("--debian %s: want two different Debian versions OLD..NEW",
			     o->debian);
	ta = fetch_source(a);
	tb = ta ? fetch_source(b) : NULL;
	if (!tb)
		return -1;
	la = path_join(workdir, "a");
	lb = path_join(workdir, "b");
	patch = xasprintf("%s/linux-source-6.1_%s..%s.patch", workdir, a, b);
	if (symlink(ta, la) || symlink(tb, lb))
		return error_errno("cannot link the trees into %s", workdir);
	fd = open(patch, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return error_errno("cannot write %s", patch);
	fprintf(stderr, "  diff -urN %s %s\n", ta, tb);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (dup2(fd, 1) < 0 || chdir(workdir))
			_exit(2);
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return error_errno("cannot run diff");
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return error("diff -urN of the trees of %s and %s failed", a, b);
	if (WEXITSTATUS(status) == 0)
		return error("linux-source-6.1 %s and %s are the same source", a, b);
	o->patch = patch;
	o->source = ta;
	free(a);
	free(b);
	free(la);
	free(lb);
	return 0;
}

static void show_log_tail(const char *log)
{
	const char *argv[] = { "tail", "-n", "25", log, NULL };

	fprintf(stderr, "---- last lines of %s ----\n", log);
	run_command(argv);
}

struct work {
	struct options *o;
	char *dir;			/* temporary */
	char *log;
	char *release;
	struct tree tree;
	struct patch_files files;
	struct strv units;		/* fs/proc/cmdline.o */
	struct update update;
	struct exports exports;
	struct load_syms load_syms;
};

static char *unit_of(const char *c_file)
{
	char *o = xstrdup(c_file);

	o[strlen(o) - 1] = 'o';
	return o;
}

/* The units that include a changed header: the include graph says. */
static int add_includers(struct work *w, const struct strv *changed)
{
	struct strv all;
	bool *hit;
	long nr;
	size_t i;

	if (tree_units(&w->tree, &all)) {
		show_log_tail(w->log);
		return error("Kbuild could not list the units of this configuration");
	}
	hit = xcalloc(all.nr, sizeof(bool));
	nr = includes_affected(w->tree.src, w->tree.obj, changed->v, changed->nr,
			       all.v, all.nr, hit);
	for (i = 0; nr > 0 && i < all.nr; i++)
		if (hit[i] && !strv_has(&w->units, all.v[i]))
			strv_add(&w->units, xstrdup(all.v[i]));
	free(hit);
	strv_free(&all);
	if (nr < 0)
		return -1;
	fprintf(stderr, "  %ld of the configuration's units include what the patch changes\n",
		nr);
	return 0;
}

/*
 * C source makes code, and so do headers, through every unit including
 * them (a .c can be included too).  Other files change nothing running.
 */
static int pick_units(struct work *w)
{
	struct strv changed = { 0 };
	bool headers = false;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->files.nr; i++) {
		const char *p = w->files.paths[i];

		if (str_has_prefix(p, "Documentation/"))
			continue;
		if (!str_has_suffix(p, ".c") && !str_has_suffix(p, ".h")) {
			strv_free(&changed);
			return error("the patch changes %s; only C sources and headers can be turned into an update",
				     p);
		}
		headers |= str_has_suffix(p, ".h");
		strv_add(&changed, xstrdup(p));
		if (str_has_suffix(p, ".c"))
			strv_add(&w->units, unit_of(p));
	}
	if (headers)
		ret = add_includers(w, &changed);
	strv_free(&changed);
	if (!ret && !w->units.nr)
		return error("the patch changes no C source that this configuration builds");
	if (!ret && w->units.nr > w->o->max_units)
		return error("the patch reaches %zu units, more than --max-units %zu: compiling them would take long; raise the limit to go on",
			     w->units.nr, w->o->max_units);
	return ret;
}

static char *obj_path(struct work *w, const char *stage, size_t i)
{
	return xasprintf("%s/%s-%zu.o", w->dir, stage, i);
}

static int compile_all(struct work *w, const char *stage)
{
	char **dests = xcalloc(w->units.nr, sizeof(char *));
	bool *failed = xcalloc(w->units.nr, sizeof(bool));
	size_t i;
	int ret;

	if (w->units.nr == 1)
		fprintf(stderr, "  compiling %s (%s)\n", w->units.v[0], stage);
	else
		fprintf(stderr, "  compiling %zu units (%s)\n", w->units.nr, stage);
	for (i = 0; i < w->units.nr; i++)
		dests[i] = obj_path(w, stage, i);
	ret = tree_compile(&w->tree, w->units.v, w->units.nr, dests, failed);
	if (ret)
		show_log_tail(w->log);
	for (i = 0; ret && i < w->units.nr; i++)
		if (failed[i])
			error("%s does not compile %s the patch", w->units.v[i],
			      strcmp(stage, "pre") ? "with" : "without");
	free_strv(dests, w->units.nr);
	free(failed);
	return ret;
}

static int compile_pre_post(struct work *w)
{
	int ret;

	if (tree_patch(&w->tree, w->o->patch, false, true)) {
		show_log_tail(w->log);
		return error("the patch %s does not apply to %s", w->o->patch,
			     w->o->source);
	}
	if (compile_all(w, "pre"))
		return -1;
	if (tree_patch(&w->tree, w->o->patch, false, false))
		return error("applying %s failed", w->o->patch);
	ret = compile_all(w, "post");
	if (tree_patch(&w->tree, w->o->patch, true, false))
		return error("could not take the patch back out of %s; it is removed on the next run",
			     w->tree.src);
	return ret;
}

/* Diffs unit @i into *@u; false if nothing in it changed. */
static bool diff_unit(struct work *w, size_t i, struct unit *u)
{
	char *pre = obj_path(w, "pre", i), *post = obj_path(w, "post", i);
	size_t j, changed = 0;

	memset(u, 0, sizeof(*u));
	u->source = xstrdup(w->units.v[i]);
	((char *)u->source)[strlen(u->source) - 1] = 'c';
	u->target = tree_unit_target(&w->tree, w->units.v[i]);
	if (elf_object_read(pre, &u->pre) || elf_object_read(post, &u->post))
		die("cannot read the objects of %s", w->units.v[i]);
	free(pre);
	free(post);
	diff_objects(&u->pre, &u->post, &u->diff, stderr);
	for (j = 0; j < u->diff.nr_changes; j++) {
		const struct change *c = &u->diff.changes[j];

		fprintf(stderr, "  %s function: %s (%s, %s)\n",
			c->kind == FUNC_NEW ? "new" : "changed",
			c->post->name, u->source, u->target);
		changed += c->kind == FUNC_CHANGED;
	}
	if (changed)
		return true;
	diff_free(&u->diff);
	elf_object_free(&u->pre);
	elf_object_free(&u->post);
	free((char *)u->target);
	free((char *)u->source);
	return false;
}

static bool same_change(const struct unit *ua, const struct change *a,
			const struct unit *ub, const struct change *b)
{
	return a->kind == FUNC_CHANGED && b->kind == FUNC_CHANGED &&
	       !strcmp(ua->target, ub->target) &&
	       !strcmp(a->pre->name, b->pre->name) &&
	       diff_same_function(&ua->pre, a->pre, &ub->pre, b->pre) &&
	       diff_same_function(&ua->post, a->post, &ub->post, b->post);
}

static void mark_twins_between(struct unit *ua, struct unit *ub)
{
	size_t k, l;

	for (k = 0; k < ua->diff.nr_changes; k++) {
		for (l = 0; l < ub->diff.nr_changes; l++) {
			struct change *a = &ua->diff.changes[k];
			struct change *b = &ub->diff.changes[l];

			if (!same_change(ua, a, ub, b))
				continue;
			a->twin = b->twin = true;
			fprintf(stderr, "  %s: the same in %s and %s\n",
				a->pre->name, ua->source, ub->source);
		}
	}
}

/*
 * A header's static function emitted in several units of one target is
 * one name at several addresses with the same code: the core may pair
 * them either way (KSPLICE_FUNC_TWIN).
 */
static void mark_twins(struct update *u)
{
	size_t i, j;

	for (i = 0; i < u->nr_units; i++)
		for (j = i + 1; j < u->nr_units; j++)
			mark_twins_between(&u->units[i], &u->units[j]);
}

/* The units whose code changed make the update; the others are dropped. */
static int diff_all(struct work *w)
{
	size_t i;

	w->update.units = xcalloc(w->units.nr, sizeof(struct unit));
	for (i = 0; i < w->units.nr; i++)
		if (diff_unit(w, i, &w->update.units[w->update.nr_units]))
			w->update.nr_units++;
	if (!w->update.nr_units)
		return error("the patch changes no code in a function: nothing to update");
	if (w->units.nr > 1)
		fprintf(stderr, "  %zu of %zu units changed\n", w->update.nr_units,
			w->units.nr);
	mark_twins(&w->update);
	return 0;
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
		char *src, *dst, *data;
		size_t len;

		if (!str_has_suffix(e->d_name, ".c") &&
		    !str_has_suffix(e->d_name, ".h") && strcmp(e->d_name, "Kbuild"))
			continue;
		src = path_join(from, e->d_name);
		dst = path_join(to, e->d_name);
		ret = read_file(src, 1 << 24, &data, &len) ||
		      write_file(dst, data, len) ? error_errno("cannot copy %s", src) : 0;
		if (!ret)
			free(data);
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

static int build_modules(struct work *w, const char *data)
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
	fprintf(stderr, "  building the core module\n");
	if (kbuild_module(w->o->build, core_kmod, NULL, w->log)) {
		show_log_tail(w->log);
		error("building the ksplice core module failed");
		goto out;
	}
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

static int pack(struct work *w)
{
	struct manifest m;
	char *ko = xstrdup(ko_path(w));
	char *core = xasprintf("%s/core/kmod/ksplice.ko", w->dir);
	const char *files[] = { ko, core, NULL };
	char *out = xasprintf("%s/ksplice-%s.tar.gz", w->o->outdir, w->update.id);
	char real[PATH_MAX];
	size_t i, j;

	/* What INSTALL_MOD_STRIP=1 does: the target has no use for DWARF. */
	for (i = 0; files[i]; i++) {
		const char *strip[] = { "strip", "--strip-debug", files[i], NULL };

		if (run_command(strip))
			return error("strip --strip-debug %s failed", files[i]);
	}
	manifest_init(&m);
	m.format = UPDATE_FORMAT;
	m.id = xstrdup(w->update.id);
	m.kernel_release = xstrdup(w->release);
	m.target = targets_list(&w->update);
	m.created_by = xstrdup("ksplice-create");
	for (i = 0; i < w->update.nr_units; i++)
		for (j = 0; j < w->update.units[i].diff.nr_changes; j++)
			if (w->update.units[i].diff.changes[j].kind == FUNC_CHANGED)
				manifest_add_function(&m,
					w->update.units[i].diff.changes[j].pre->name);
	for (i = 0; i < w->load_syms.nr; i++)
		manifest_add_load_sym(&m, w->load_syms.targets[i],
				      w->load_syms.names[i]);
	if (update_file_write(out, &m, files))
		return -1;
	manifest_free(&m);
	printf("%s\n", realpath(out, real) ? real : out);
	return 0;
}

/* What vermagic and uname -r say: UTS_RELEASE, not kernel.release. */
static int read_release(struct work *w)
{
	char *path = path_join(w->o->build, "include/generated/utsrelease.h");
	char *text, *p;
	size_t len;

	if (read_file(path, 4096, &text, &len))
		return error_errno("%s is not a kernel build dir (no %s)",
				   w->o->build, path);
	p = strstr(text, "UTS_RELEASE \"");
	if (!p)
		return error("%s has no UTS_RELEASE", path);
	p += strlen("UTS_RELEASE \"");
	w->release = xstrndup(p, strcspn(p, "\""));
	w->update.kernel_release = w->release;
	free(text);
	free(path);
	path = path_join(w->o->build, "Module.symvers");
	if (exports_read(path, &w->exports))
		return error_errno("cannot read %s", path);
	free(path);
	return 0;
}

static int create(struct work *w)
{
	char *cache = cache_dir();

	w->log = path_join(w->dir, "build.log");
	if (read_release(w) || patch_files_read(w->o->patch, &w->files))
		return -1;
	w->tree.source = w->o->source;
	w->tree.config = w->o->config;
	w->tree.cc = build_config_cc(w->o->config);
	if (!w->tree.cc)
		return error("%s has no CONFIG_CC_VERSION_TEXT", w->o->config);
	fprintf(stderr, "ksplice-create: update %s for %s\n", w->update.id, w->release);
	if (tree_prepare(&w->tree, cache, w->log)) {
		show_log_tail(w->log);
		return error("preparing the kernel tree from %s failed", w->o->source);
	}
	if (pick_units(w) || compile_pre_post(w))
		return -1;
	tree_release(&w->tree);
	return diff_all(w) || build_modules(w, data_dir()) || pack(w) ? -1 : 0;
}

static int diff_only(const char *pre_path, const char *post_path)
{
	struct object pre, post;
	struct diff d;
	size_t i;

	if (elf_object_read(pre_path, &pre))
		return error("%s is not an x86-64 relocatable object", pre_path);
	if (elf_object_read(post_path, &post))
		return error("%s is not an x86-64 relocatable object", post_path);
	diff_objects(&pre, &post, &d, stdout);
	for (i = 0; i < d.nr_changes; i++)
		printf("%s %s\n", d.changes[i].kind == FUNC_NEW ? "new" : "changed",
		       d.changes[i].post->name);
	diff_free(&d);
	elf_object_free(&pre);
	elf_object_free(&post);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct work w = { .o = &o, .tree.lock_fd = -1 };
	int ret;

	set_progname(argv[0]);
	parse_args(argc, argv, &o);
	if (o.diff_pre)
		return diff_only(o.diff_pre, argv[optind]) ? 1 : 0;
	w.update.id = o.id ? o.id : random_id();
	if (!update_id_valid(w.update.id))
		die("bad id '%s': use 1 to %d characters of [0-9a-z_]", w.update.id,
		    KSPLICE_ID_MAX);
	w.dir = make_temp_dir("ksplice-create");
	if (!w.dir)
		die_errno("cannot make a work directory");
	ret = o.debian ? debian_patch(&o, w.dir) : 0;
	if (!ret)
		ret = create(&w);
	if (o.keep || ret)
		fprintf(stderr, "ksplice-create: work directory kept: %s\n", w.dir);
	else
		remove_tree(w.dir);
	return ret ? 1 : 0;
}
