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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccache.h"
#include "cppdiff.h"
#include "create.h"
#include "layout.h"
#include "newobj.h"
#include "shared.h"
#include "update-file.h"
#include "util.h"

static __noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: ksplice-create [--build DIR] [--config FILE] [--id ID] [-o DIR] [--keep] [--max-units N]\n"
		"                      [--replace] [--sign-key KEY --sign-cert CERT] [--no-ccache]\n"
		"                      --patch FILE SOURCE_DIR | --debian A..B\n"
		"\n"
		"Builds a live update of the running kernel from SOURCE_DIR (the source it was\n"
		"built from, left unmodified) and the patch FILE (unified diff, -p1).\n"
		"  --debian A..B  instead: the change between two Debian versions of\n"
		"                 linux-source-X.Y (e.g. 6.1.192-2..6.1.192-3), both fetched\n"
		"                 and cached; the running kernel is built from A\n"
		"  --debian A..B:PATH[,PATH...]\n"
		"                 that change to those files only (one fix of a stable update);\n"
		"                 no CVE ids are recorded\n"
		"  --build DIR    the target kernel's build dir (default /lib/modules/$(uname -r)/build)\n"
		"  --config FILE  its configuration (default DIR/.config)\n"
		"  --id ID        the update's id, [0-9a-z_] (default: a hash of the inputs)\n"
		"  -o DIR         where to write ksplice-ID.tar.gz (default: .)\n"
		"  --keep         keep the work directory (printed) for inspection\n"
		"  --max-units N  refuse a patch whose headers reach more than N units\n"
		"                 (default %d): each is compiled twice\n"
		"  --max-reach N  refuse a patch whose headers more than N units include\n"
		"                 (default: none): each is preprocessed twice\n"
		"  --replace      a cumulative update: FILE holds every fix so far, against\n"
		"                 the stock source; applying it replaces every applied update\n"
		"  --sign-key KEY --sign-cert CERT\n"
		"                 sign the update and core modules (the build dir's\n"
		"                 scripts/sign-file) for a kernel that enforces signatures\n"
		"  --no-ccache    compile without ccache (used, when installed, for the\n"
		"                 kernel's units: the same object, byte for byte, sooner)\n"
		"or:    ksplice-create [--build DIR] [--config FILE] --list-units SOURCE_DIR\n"
		"  prints the C units (fs/proc/cmdline.o) the configuration builds\n"
		"or:    ksplice-create --diff-objects PRE.o POST.o [--refs [--build DIR]]\n"
		"  prints the functions that differ between two objects, as an update would see them\n"
		"  --refs         and where each reference of their new code goes (exports\n"
		"                 from DIR/Module.symvers when --build is given)\n"
		"or:    ksplice-create --list-cves A..B\n"
		"  prints the CVE ids of Debian's changelog entries after A up to B, which\n"
		"  an update made with --debian A..B records\n"
		"or:    ksplice-create --diff-cpp PRE.i POST.i\n"
		"  says whether two preprocessed units can compile to different code, and why\n"
		"or:    ksplice-create --verify UPDATE [--build DIR] [--config FILE] [--patch FILE SOURCE_DIR]\n"
		"  builds UPDATE again from the inputs its manifest records (fetching the\n"
		"  Debian sources of an update made with --debian; an update made with\n"
		"  --patch needs that patch and source) and says 'identical' or what differs\n"
		"The last line of output is the update file's path.\n",
		DEFAULT_MAX_UNITS);
	exit(status);
}

static size_t max_units_arg(const char *opt, const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || !n)
		die("--%s %s: want a positive number", opt, s);
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
		{ "max-reach", required_argument, NULL, 'x' },
		{ "diff-objects", required_argument, NULL, 'd' },
		{ "refs", no_argument, NULL, 'r' },
		{ "diff-cpp", required_argument, NULL, 'P' },
		{ "list-units", no_argument, NULL, 'l' },
		{ "verify", required_argument, NULL, 'V' },
		{ "replace", no_argument, NULL, 'R' },
		{ "list-cves", required_argument, NULL, 'C' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "sign-cert", required_argument, NULL, 'X' },
		{ "no-ccache", no_argument, NULL, 'N' },
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
		case 'r': o->refs = true; break;
		case 'P': o->diff_pre = optarg; o->diff_cpp = true; break;
		case 'V': o->verify = optarg; break;
		case 'D': o->debian = optarg; break;
		case 'm': o->max_units = max_units_arg("max-units", optarg); break;
		case 'x': o->max_reach = max_units_arg("max-reach", optarg); break;
		case 'l': o->list_units = true; break;
		case 'R': o->replace = true; break;
		case 'C': o->list_cves = optarg; break;
		case 'K': o->sign_key = optarg; break;
		case 'X': o->sign_cert = optarg; break;
		case 'N': o->no_ccache = true; break;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (o->list_cves) {
		if (optind != argc)
			usage(2);
		return;
	}
	if (o->verify) {
		/* --patch FILE SOURCE for an update made with --patch */
		if (o->debian || o->diff_pre || o->id ||
		    optind + !!o->patch != argc)
			usage(2);
	} else if (o->debian) {
		if (o->patch || o->diff_pre || optind != argc)
			usage(2);
	} else if (optind + 1 != argc ||
		   (!o->patch && !o->diff_pre && !o->list_units)) {
		usage(2);
	}
	if (o->diff_pre)
		return;
	if (!o->max_units)
		o->max_units = DEFAULT_MAX_UNITS;
	if (o->list_units) {
		o->source = argv[optind];
	} else if (o->patch) {
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
	/* Before minutes of building: a bad key is said at once. */
	if (sign_check_args(o))
		exit(1);
	if (o->sign_key) {
		o->sign_key = realpath(o->sign_key, NULL);
		o->sign_cert = realpath(o->sign_cert, NULL);
	}
}

/* Checked first: a build takes minutes, and its result must land. */
static void check_outdir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		die_errno("-o %s", dir);
	if (!S_ISDIR(st.st_mode))
		die("-o %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		die_errno("-o %s: cannot write there", dir);
}

/*
 * The reproducible-builds conventions for everything we build: no time,
 * user, host or locale of this machine ends up in the modules (the work
 * directory is mapped away by kbuild_module()).
 */
static void reproducible_env(void)
{
	setenv("SOURCE_DATE_EPOCH", "0", 1);
	setenv("KBUILD_BUILD_TIMESTAMP", "Thu Jan  1 00:00:00 UTC 1970", 1);
	setenv("KBUILD_BUILD_USER", "ksplice", 1);
	setenv("KBUILD_BUILD_HOST", "ksplice", 1);
	setenv("LC_ALL", "C", 1);
	/* Below LC_ALL they change nothing, but ccache hashes them. */
	setenv("LANG", "C", 1);
	unsetenv("LC_CTYPE");
	unsetenv("LC_MESSAGES");
	setenv("TZ", "UTC", 1);
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
char *data_dir(void)
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
	w->update.replace = w->o->replace;
	free(text);
	free(path);
	path = path_join(w->o->build, "Module.symvers");
	if (exports_read(path, &w->exports))
		return error_errno("cannot read %s", path);
	free(path);
	return 0;
}

int create(struct work *w)
{
	char *hooks;
	int ret;

	w->cache = cache_dir();
	w->log = path_join(w->dir, "build.log");
	if (read_release(w) || patch_files_read(w->o->patch, &w->files))
		return -1;
	w->tree.source = w->o->source;
	w->tree.config = w->o->config;
	w->tree.cc = build_config_cc(w->o->config);
	if (!w->tree.cc)
		return error("%s has no CONFIG_CC_VERSION_TEXT", w->o->config);
	if (!w->o->no_ccache)
		w->tree.env = ccache_env(w->tree.cc, w->cache);
	if (inputs_record(w))
		return -1;
	if (!w->update.id)
		w->update.id = inputs_id(w);
	fprintf(stderr, "ksplice-create: update %s for %s\n", w->update.id, w->release);
	ret = tree_prepare(&w->tree, w->cache, w->log);
	if (ret == TREE_BAD_CONFIG)
		return -1;
	if (ret) {
		show_log_tail(w->log);
		return error("preparing the kernel tree from %s failed", w->o->source);
	}
	hooks = path_join(data_dir(), "include/ksplice/hooks.h");
	ret = tree_add_header(&w->tree, hooks, "ksplice/hooks.h");
	free(hooks);
	if (ret || units_pick(w) || units_compile(w))
		return -1;
	tree_release(&w->tree);
	return units_diff(w) || package_build(w, data_dir()) ||
	       package_write(w) ? -1 : 0;
}

/* New code of the post object, as emit_update() would make it. */
static int print_refs(const struct options *o, struct object *pre,
		      struct object *post, struct diff *d)
{
	struct exports ex = { 0 };
	struct load_syms ls = { 0 };
	struct unit unit = { .source = post->path, .target = "vmlinux",
			     .pre = *pre, .post = *post, .diff = *d };
	struct update u = { .units = &unit, .nr_units = 1, .exports = &ex,
			    .load_syms = &ls };
	struct newobj *no;
	char *symvers;

	if (o->build) {
		symvers = xasprintf("%s/Module.symvers", o->build);
		if (exports_read(symvers, &ex))
			return error_errno("cannot read %s", symvers);
		free(symvers);
	}
	no = newobj_build(&u, 0);
	if (!no)
		return -1;
	newobj_print_refs(no, stdout);
	newobj_free(no);
	return 0;
}

/* --diff-cpp: what the preprocessing filter decides for one unit. */
static int diff_cpp_only(const char *pre_path, const char *post_path)
{
	char *pre, *post;
	size_t pre_len, post_len;
	struct cpp_scratch *s;
	struct cpp_verdict v;

	if (read_file(pre_path, 1 << 30, &pre, &pre_len))
		return error_errno("cannot read %s", pre_path);
	if (read_file(post_path, 1 << 30, &post, &post_len))
		return error_errno("cannot read %s", post_path);
	s = cpp_scratch_new();
	cpp_compare(s, pre, post, &v);
	cpp_scratch_free(s);
	printf("%s: %s\n", v.differs ? "differs" : "same", v.why);
	free(pre);
	free(post);
	return 0;
}

/* --list-units: what the Kbuild dry run of the prepared tree lists. */
static int list_units(struct work *w)
{
	struct strv units;
	size_t i;
	int ret;

	w->cache = cache_dir();
	w->log = path_join(w->dir, "build.log");
	w->tree.source = w->o->source;
	w->tree.config = w->o->config;
	w->tree.cc = build_config_cc(w->o->config);
	if (!w->tree.cc)
		return error("%s has no CONFIG_CC_VERSION_TEXT", w->o->config);
	if (!w->o->no_ccache)
		w->tree.env = ccache_env(w->tree.cc, w->cache);
	ret = tree_prepare(&w->tree, w->cache, w->log);
	if (ret == TREE_BAD_CONFIG)
		return -1;
	if (ret) {
		show_log_tail(w->log);
		return error("preparing the kernel tree from %s failed", w->o->source);
	}
	if (tree_units(&w->tree, &units)) {
		show_log_tail(w->log);
		return error("Kbuild could not list the units of this configuration");
	}
	tree_release(&w->tree);
	for (i = 0; i < units.nr; i++)
		printf("%s\n", units.v[i]);
	strv_free(&units);
	return fflush(stdout) ? error_errno("cannot write the list") : 0;
}

static int diff_only(const struct options *o, const char *post_path)
{
	struct object pre, post;
	struct diff d;
	size_t i;
	int ret = 0;

	if (elf_object_read(o->diff_pre, &pre))
		return error("%s is not an x86-64 relocatable object", o->diff_pre);
	if (elf_object_read(post_path, &post))
		return error("%s is not an x86-64 relocatable object", post_path);
	shared_add_relocs(&pre);
	shared_add_relocs(&post);
	diff_objects(&pre, &post, &d, stdout);
	if (elf_find_section(&pre, ".debug_info") &&
	    elf_find_section(&post, ".debug_info")) {
		struct strv layouts = { 0 };

		ret = layout_diff(o->diff_pre, post_path, "the objects", &layouts, stdout);
		strv_free(&layouts);
	}
	for (i = 0; i < d.nr_changes; i++)
		printf("%s %s\n", d.changes[i].kind == FUNC_NEW ? "new" : "changed",
		       d.changes[i].post->name);
	if (o->refs && d.nr_changes)
		ret = print_refs(o, &pre, &post, &d);
	diff_free(&d);
	elf_object_free(&pre);
	elf_object_free(&post);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct work w = { .o = &o, .tree.lock_fd = -1 };
	int ret;

	set_progname(argv[0]);
	parse_args(argc, argv, &o);
	if (o.diff_cpp)
		return diff_cpp_only(o.diff_pre, argv[optind]) ? 1 : 0;
	if (o.diff_pre)
		return diff_only(&o, argv[optind]) ? 1 : 0;
	if (o.list_cves)
		return list_cves(o.list_cves) ? 1 : 0;
	check_outdir(o.outdir);
	/* Without --id, the id is a hash of the inputs (create()). */
	w.update.id = o.id;
	if (o.id && !update_id_valid(o.id))
		die("bad id '%s': use 1 to %d characters of [0-9a-z_]", o.id,
		    KSPLICE_ID_MAX);
	reproducible_env();
	w.dir = make_temp_dir("ksplice-create");
	if (!w.dir)
		die_errno("cannot make a work directory");
	if (o.list_units) {
		ret = list_units(&w);
		remove_tree(w.dir);
		return ret ? 1 : 0;
	}
	if (o.verify)
		ret = verify_update(&w, o.verify);
	else
		ret = (o.debian ? debian_patch(&o, w.dir) : 0) || create(&w);
	if (o.keep || ret)
		fprintf(stderr, "ksplice-create: work directory kept: %s\n", w.dir);
	else
		remove_tree(w.dir);
	return ret ? 1 : 0;
}
