// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "util.h"

/* Whatever a build prints goes to the log; on failure its tail is shown. */
int run_logged(char *const argv[], const char *log)
{
	pid_t pid;
	int status, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(log ? log : "/dev/null",
			  O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static char *slurp(const char *path, size_t *len)
{
	char *data;
	size_t n;

	if (read_file(path, 64 << 20, &data, &n))
		return NULL;
	if (len)
		*len = n;
	return data;
}

char *build_config_cc(const char *config)
{
	char *text = slurp(config, NULL), *p, *end;
	char *cc = NULL;

	p = text ? strstr(text, "CONFIG_CC_VERSION_TEXT=\"") : NULL;
	if (p) {
		p += strlen("CONFIG_CC_VERSION_TEXT=\"");
		end = p + strcspn(p, " \"");
		cc = xstrndup(p, end - p);
	}
	free(text);
	return cc;
}

/* Keyed by what decides the objects: which source, which config, which cc. */
static char *tree_key(const struct tree *t)
{
	char real[PATH_MAX];
	uint64_t h = FNV1A_INIT;
	size_t n;
	char *cfg;

	if (!realpath(t->source, real))
		return NULL;
	cfg = slurp(t->config, &n);
	if (!cfg)
		return NULL;
	h = fnv1a(h, real, strlen(real) + 1);
	h = fnv1a(h, cfg, n);
	h = fnv1a(h, t->cc, strlen(t->cc));
	free(cfg);
	return xasprintf("%016llx", (unsigned long long)h);
}

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ok = !access(p, F_OK);

	free(p);
	return ok;
}

/* make in the tree; @targets is NULL-terminated; output to @out. */
static int make_in_tree(struct tree *t, char *const *targets, const char *flags,
			const char *out)
{
	char *o = xasprintf("O=%s", t->obj), *cc = xasprintf("CC=%s", t->cc);
	char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	char *fixed[] = { "make", "-C", t->src, o, cc, jobs };
	size_t n = 0, i, nr = 0;
	char **argv;
	int ret;

	while (targets[nr])
		nr++;
	argv = xcalloc(ARRAY_SIZE(fixed) + 2 + nr + 1, sizeof(char *));
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		argv[n++] = fixed[i];
	if (flags)
		argv[n++] = (char *)flags;
	for (i = 0; i < nr; i++)
		argv[n++] = targets[i];
	ret = run_logged(argv, out ? out : t->log);
	free(argv);
	free(o);
	free(cc);
	free(jobs);
	return ret;
}

#define KCFLAGS_LIVEPATCH "KCFLAGS=-ffunction-sections -fdata-sections"

/*
 * A crashed run may have left a patch applied in the copy; the copy of
 * that patch next to the tree says which, so it can be taken out.
 */
static int recover_patched(struct tree *t)
{
	char *saved = xasprintf("%s/applied.patch", t->dir);
	int ret = 0;

	if (!access(saved, F_OK)) {
		fprintf(stderr, "ksplice-create: removing a patch an interrupted run left in %s\n",
			t->src);
		ret = tree_patch(t, saved, true, false);
	}
	free(saved);
	return ret;
}

static int prepare_fresh(struct tree *t)
{
	char *cp[] = { "cp", "-al", (char *)t->source, NULL, NULL };
	char *cfg = xasprintf("%s/.config", t->obj);
	char *cpcfg[] = { "cp", (char *)t->config, cfg, NULL };
	char *targets[] = { "olddefconfig", "prepare", NULL };
	char *rm[] = { "rm", "-rf", t->src, t->obj, NULL };

	run_logged(rm, t->log);
	cp[3] = t->src;
	fprintf(stderr, "  preparing the kernel tree in %s (once per source and config)\n",
		t->dir);
	if (run_logged(cp, t->log) || mkdir_p(t->obj) || run_logged(cpcfg, t->log) ||
	    make_in_tree(t, targets, NULL, NULL)) {
		free(cfg);
		return -1;
	}
	free(cfg);
	return 0;
}

int tree_prepare(struct tree *t, const char *cache, const char *log)
{
	char *key = tree_key(t), *lock, *stamp;
	int ret = 0;

	if (!key) {
		return error("cannot read %s or %s", t->source, t->config);
	}
	t->log = xstrdup(log);
	t->dir = xasprintf("%s/trees/%s", cache, key);
	t->src = xasprintf("%s/src", t->dir);
	t->obj = xasprintf("%s/obj", t->dir);
	free(key);
	if (mkdir_p(t->dir))
		return -1;
	lock = xasprintf("%s/lock", t->dir);
	t->lock_fd = open(lock, O_RDWR | O_CREAT, 0644);
	free(lock);
	if (t->lock_fd < 0 || flock(t->lock_fd, LOCK_EX))
		return -1;
	stamp = xasprintf("%s/prepared", t->dir);
	if (!exists(t->dir, "prepared")) {
		ret = prepare_fresh(t);
		if (!ret)
			ret = close(open(stamp, O_WRONLY | O_CREAT, 0644));
	} else {
		ret = recover_patched(t);
	}
	free(stamp);
	return ret;
}

void tree_release(struct tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
}

int tree_patch(struct tree *t, const char *patch, bool reverse, bool dry_run)
{
	char *saved = xasprintf("%s/applied.patch", t->dir);
	char *argv[] = { "patch", "-p1", "--batch", "--silent", "-d", t->src,
			 "-i", (char *)patch, reverse ? "-R" : "--forward",
			 dry_run ? "--dry-run" : NULL, NULL };
	char *cp[] = { "cp", (char *)patch, saved, NULL };
	int ret;

	if (!reverse && !dry_run && run_logged(cp, t->log)) {
		free(saved);
		return -1;
	}
	ret = run_logged(argv, t->log);
	if (!ret && reverse)
		unlink(saved);
	if (ret && !reverse && !dry_run)
		unlink(saved);
	free(saved);
	return ret;
}

int tree_compile(struct tree *t, char *const *units, size_t nr,
		 char *const *dests, bool *failed)
{
	char **targets = xcalloc(nr + 2, sizeof(char *));
	size_t i, bad = 0;
	int ret;

	targets[0] = "-k";	/* say which units fail, not just the first */
	for (i = 0; i < nr; i++) {
		targets[i + 1] = path_join(t->obj, units[i]);
		unlink(targets[i + 1]);
		free(targets[i + 1]);
		targets[i + 1] = units[i];
	}
	ret = make_in_tree(t, targets, KCFLAGS_LIVEPATCH, NULL);
	for (i = 0; i < nr; i++) {
		char *built = path_join(t->obj, units[i]);
		char *cp[] = { "cp", built, dests[i], NULL };

		failed[i] = access(built, F_OK) || run_logged(cp, t->log);
		bad += failed[i];
		free(built);
	}
	free(targets);
	return ret || bad ? -1 : 0;
}

/*
 * Kbuild's command for @unit (from "gcc" to the source file, "-c -o
 * @unit" or "-S -o @unit" in it) as a gcc -E of the same source with the
 * same flags: what `make foo.i` would run.  NULL if it is not there.
 */
char *build_cpp_command(const char *cmd, size_t len, const char *unit)
{
	static const char *const outs[] = { " -c -o ", " -S -o " };
	char *line = xstrndup(cmd, len), *p, *src, *end, *dep, *out = NULL;
	size_t i;

	for (i = 0; !out && i < ARRAY_SIZE(outs); i++) {
		char *o = xasprintf("%s%s ", outs[i], unit);

		p = strstr(line, o);
		if (p) {
			src = p + strlen(o);
			end = src + strcspn(src, " ;\n");
			out = xasprintf("%.*s -E %.*s", (int)(p - line), line,
					(int)(end - src), src);
		}
		free(o);
	}
	free(line);
	/* the dependency file is Kbuild's business */
	dep = out ? strstr(out, " -Wp,-MMD,") : NULL;
	if (dep) {
		end = dep + 1 + strcspn(dep + 1, " ");
		memmove(dep, end, strlen(end) + 1);
	}
	return out;
}

/*
 * "  CC [M]  fs/ext4/inode.o" lines of a dry run: the C units, and the
 * gcc command of each, which follows the shell's traps on the same line.
 */
static void parse_units(char *text, struct strv *units, struct strv *cmds)
{
	static const char trap_end[] = "kill -s PIPE $$' PIPE; ";
	static const char echo[] = "echo '  CC ";
	char *p = text, *end, *eol, *next, *cmd, *unit;

	while ((p = strstr(p, echo))) {
		p += strlen(echo);
		if (!strncmp(p, "[M]", 3))
			p += 3;
		p += strspn(p, " ");
		end = p + strcspn(p, "'\n");
		if (end - p <= 2 || strncmp(end - 2, ".o", 2) ||
		    (end - p >= 6 && !strncmp(end - 6, ".mod.o", 6))) {
			p = end;
			continue;
		}
		eol = end + strcspn(end, "\n");
		next = strstr(end, echo);
		if (next && next < eol)
			eol = next;
		unit = xstrndup(p, end - p);
		cmd = strstr(end, trap_end);
		cmd = cmd && cmd < eol ? cmd + strlen(trap_end) : NULL;
		cmd = cmd ? build_cpp_command(cmd, eol - cmd, unit) : NULL;
		strv_add(cmds, cmd ? cmd : xstrdup(""));
		strv_add(units, unit);
		p = end;
	}
}

static int write_commands(const struct strv *units, const struct strv *cmds,
			  const char *path)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	size_t i;
	int ret;

	if (!f) {
		free(tmp);
		return -1;
	}
	for (i = 0; i < units->nr; i++)
		fprintf(f, "%s\t%s\n", units->v[i], cmds->v[i]);
	ret = fclose(f) || rename(tmp, path) ? -1 : 0;
	free(tmp);
	return ret;
}

static int read_commands(const char *path, struct strv *units, struct strv *cmds)
{
	char *text, *p, *tab, *eol;
	size_t len;

	if (read_file(path, 1 << 30, &text, &len))
		return -1;
	for (p = text; *p; p = *eol ? eol + 1 : eol) {
		eol = p + strcspn(p, "\n");
		tab = memchr(p, '\t', eol - p);
		if (!tab)
			continue;
		strv_add(units, xstrndup(p, tab - p));
		strv_add(cmds, xstrndup(tab + 1, eol - tab - 1));
	}
	free(text);
	return units->nr ? 0 : -1;
}

/* The dry run, once per tree: the units and their commands, cached. */
static int dry_run(struct tree *t, const char *list)
{
	char *dry = path_join(t->dir, "units.dry-run"), *text;
	/* -j1: parallel makes would interleave their lines in the file */
	char *targets[] = { "-j1", "-k", "vmlinux", "modules", NULL };
	struct strv units = { 0 }, cmds = { 0 };
	size_t len;
	int ret = -1;

	unlink(dry);
	fprintf(stderr, "  listing the units this configuration builds (Kbuild dry run, once per tree)\n");
	make_in_tree(t, targets, "-n", dry);
	if (!read_file(dry, 1 << 30, &text, &len)) {
		parse_units(text, &units, &cmds);
		free(text);
		ret = units.nr ? write_commands(&units, &cmds, list) : -1;
	}
	strv_free(&units);
	strv_free(&cmds);
	unlink(dry);
	free(dry);
	return ret;
}

int tree_units(struct tree *t, struct strv *units, struct strv *cmds)
{
	char *list = path_join(t->dir, "unit-commands");
	struct strv c = { 0 };
	int ret = 0;

	memset(units, 0, sizeof(*units));
	if (read_commands(list, units, cmds ? cmds : &c)) {
		strv_free(units);
		strv_free(cmds ? cmds : &c);
		ret = dry_run(t, list) || read_commands(list, units, cmds ? cmds : &c);
	}
	strv_free(&c);
	free(list);
	return ret ? -1 : 0;
}

/* A copy of the tree with the patch applied, next to it: hard links. */
char *tree_post_copy(struct tree *t, const char *patch)
{
	char *post = path_join(t->dir, "post");
	char *rm[] = { "rm", "-rf", post, NULL };
	char *cp[] = { "cp", "-al", t->src, post, NULL };
	char *pa[] = { "patch", "-p1", "--batch", "--silent", "--forward", "-d",
		       post, "-i", (char *)patch, NULL };

	if (run_logged(rm, t->log) || run_logged(cp, t->log) ||
	    run_logged(pa, t->log)) {
		run_logged(rm, t->log);
		free(post);
		return NULL;
	}
	return post;
}

void tree_post_remove(struct tree *t, char *post)
{
	char *rm[] = { "rm", "-rf", post, NULL };

	if (post)
		run_logged(rm, t->log);
	free(post);
}

char *tree_unit_target(const struct tree *t, const char *unit_o)
{
	const char *base = strrchr(unit_o, '/');
	char *dir = xstrndup(unit_o, base ? base - unit_o : 0);
	char *cmd = xasprintf("%s/%s/.%s.cmd", t->obj, dir, base ? base + 1 : unit_o);
	char *text = slurp(cmd, NULL), *p, *name = NULL;

	if (text && strstr(text, " -DMODULE ")) {
		p = strstr(text, "-DKBUILD_MODNAME='\"");
		if (p) {
			p += strlen("-DKBUILD_MODNAME='\"");
			name = xstrndup(p, strcspn(p, "\"'"));
		}
	}
	free(text);
	free(cmd);
	free(dir);
	return name ? name : xstrdup("vmlinux");
}

int kbuild_module(const char *build, const char *dir, const char *extra_symvers,
		  const char *log)
{
	char *m = xasprintf("M=%s", dir);
	char *extra = xasprintf("KBUILD_EXTRA_SYMBOLS=%s",
				extra_symvers ? extra_symvers : "");
	/* The temporary work dir must not show in __FILE__ of the module. */
	char *map = xasprintf("KCFLAGS=-ffile-prefix-map=%s=/ksplice/%s", dir,
			      strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
	char *argv[] = { "make", "-C", (char *)build, m, extra, map, "modules",
			 NULL };
	int ret = run_logged(argv, log);

	free(map);
	free(m);
	free(extra);
	return ret;
}
