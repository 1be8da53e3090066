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
#include "config.h"
#include "util.h"

/*
 * Whatever a build prints goes to the log; on failure its tail is shown.
 * @dir, when set, is the working directory of the command.
 */
int run_logged_in(char *const argv[], const char *log, const char *dir)
{
	int fd = open(log ? log : "/dev/null",
		      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	pid_t pid;

	if (fd < 0)
		return -1;
	pid = spawn((const char *const *)argv,
		    &(struct spawn_io){ .out = fd, .err = fd, .dir = dir });
	close(fd);
	return pid < 0 ? -1 : wait_child(pid);
}

int run_logged(char *const argv[], const char *log)
{
	return run_logged_in(argv, log, NULL);
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

/* Whether the target's configuration sets @opt=y (CONFIG_RUST, ...). */
static bool config_enabled(const struct tree *t, const char *opt)
{
	char *text = slurp(t->config, NULL), *want = xasprintf("\n%s=y\n", opt);
	bool on = text && strstr(text, want);

	free(text);
	free(want);
	return on;
}

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ok = !access(p, F_OK);

	free(p);
	return ok;
}

/*
 * On IBT kernels Kbuild runs objtool only on what it links (vmlinux.o,
 * modules), so a unit's object would lack the sites the kernel rewrites
 * at run time (.return_sites, .call_sites, ...) and its ORC data, which
 * matching and the new code need.  There objtool runs on each standard
 * object instead, with the arguments Kbuild gives it on those kernels
 * (--link; --module in a module).
 */
#define KBUILD_OBJTOOL_PER_OBJECT "objtool-enabled=$(is-standard-object)"

/* @argv run under @t->env (by env(1)) when there is one; free() the array. */
static char **tree_argv(const struct tree *t, char *const *argv)
{
	size_t ne = 0, na = 0, n = 0;
	char **out;

	while (t->env && t->env[ne])
		ne++;
	while (argv[na])
		na++;
	out = xcalloc(1 + ne + na + 1, sizeof(char *));
	if (ne)
		out[n++] = "env";
	memcpy(out + n, t->env, ne * sizeof(char *));
	memcpy(out + n + ne, argv, na * sizeof(char *));
	return out;
}

/* make in the tree; @targets is NULL-terminated; output to @out. */
static int make_in_tree(struct tree *t, char *const *targets, const char *flags,
			const char *out)
{
	char *o = xasprintf("O=%s", t->obj), *cc = xasprintf("CC=%s", t->cc);
	char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	/*
	 * Kconfig asks the host's rustc for its version: a kernel built
	 * without Rust must not see one, or olddefconfig adds its options.
	 */
	char *rustc = config_enabled(t, "CONFIG_RUST") ? "" : "RUSTC=ksplice-no-rustc";
	char *objtool = config_enabled(t, "CONFIG_X86_KERNEL_IBT") ?
			KBUILD_OBJTOOL_PER_OBJECT : "";
	char *fixed[] = { "make", "-C", t->src, o, cc, jobs, rustc, objtool };
	size_t n = 0, i, nr = 0;
	char **argv, **run;
	int ret;

	while (targets[nr])
		nr++;
	argv = xcalloc(ARRAY_SIZE(fixed) + 2 + nr + 1, sizeof(char *));
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		if (*fixed[i])
			argv[n++] = fixed[i];
	if (flags)
		argv[n++] = (char *)flags;
	for (i = 0; i < nr; i++)
		argv[n++] = targets[i];
	run = tree_argv(t, argv);
	ret = run_logged(run, out ? out : t->log);
	free(run);
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

/* 0 if the prepared tree's .config is t->config (see config.h). */
static int tree_check_config(const struct tree *t)
{
	char *got = xasprintf("%s/.config", t->obj);
	int ret = config_check_kept(t->config, got, t->source);

	free(got);
	return ret;
}

static int prepare_fresh(struct tree *t)
{
	char *cp[] = { "cp", "-al", (char *)t->source, NULL, NULL };
	char *cfg = xasprintf("%s/.config", t->obj);
	char *cpcfg[] = { "cp", (char *)t->config, cfg, NULL };
	char *olddefconfig[] = { "olddefconfig", NULL };
	char *prepare[] = { "prepare", NULL };
	char *rm[] = { "rm", "-rf", t->src, t->obj, NULL };

	run_logged(rm, t->log);
	cp[3] = t->src;
	fprintf(stderr, "  preparing the kernel tree in %s (once per source and config)\n",
		t->dir);
	if (run_logged(cp, t->log) || mkdir_p(t->obj) || run_logged(cpcfg, t->log) ||
	    make_in_tree(t, olddefconfig, NULL, NULL)) {
		free(cfg);
		return -1;
	}
	free(cfg);
	/* Before the long make prepare: a tree that cannot be used is not kept. */
	if (tree_check_config(t)) {
		run_logged(rm, t->log);
		return TREE_BAD_CONFIG;
	}
	return make_in_tree(t, prepare, NULL, NULL);
}

/* Opens @dir's lock and takes it, waiting if @wait; 0 if taken. */
static int lock_dir(struct tree *t, const char *dir, bool wait)
{
	char *lock = xasprintf("%s/lock", dir);
	int fd = mkdir_p(dir) ? -1 : open(lock, O_RDWR | O_CREAT, 0644);

	free(lock);
	if (fd < 0 || flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	t->lock_fd = fd;
	return 0;
}

/*
 * A create has its tree to itself (it patches it).  With
 * KSPLICE_TREE_COPIES=N, up to N creates of one tree run side by side
 * (bench/coverage's --jobs), each in the first copy free (<key>.1, ...,
 * each prepared once); when all are busy, the first is waited for.
 */
static int tree_lock(struct tree *t, const char *cache, const char *key)
{
	const char *env = getenv("KSPLICE_TREE_COPIES");
	long copies = env ? strtol(env, NULL, 10) : 1, i;

	if (copies < 1 || copies > 16)
		copies = 1;
	t->home = xasprintf("%s/trees/%s", cache, key);
	for (i = 0; i < copies; i++) {
		t->dir = i ? xasprintf("%s/trees/%s.%ld", cache, key, i) :
			     xasprintf("%s/trees/%s", cache, key);
		if (!lock_dir(t, t->dir, false)) {
			if (i)
				fprintf(stderr, "  the prepared tree is busy: working in its copy %s\n",
					t->dir);
			return 0;
		}
		free(t->dir);
	}
	t->dir = xasprintf("%s/trees/%s", cache, key);
	if (!lock_dir(t, t->dir, false))
		return 0;
	fprintf(stderr, "  waiting for the prepared tree %s (another create is using it)\n",
		t->dir);
	return lock_dir(t, t->dir, true);
}

int tree_prepare(struct tree *t, const char *cache, const char *log)
{
	char *key = tree_key(t), *stamp;
	int ret = 0;

	if (!key) {
		return error("cannot read %s or %s", t->source, t->config);
	}
	t->log = xstrdup(log);
	ret = tree_lock(t, cache, key);
	free(key);
	if (ret)
		return -1;
	t->src = xasprintf("%s/src", t->dir);
	t->obj = xasprintf("%s/obj", t->dir);
	stamp = xasprintf("%s/prepared", t->dir);
	if (!exists(t->dir, "prepared")) {
		ret = prepare_fresh(t);
		if (!ret)
			ret = close(open(stamp, O_WRONLY | O_CREAT, 0644));
	} else {
		ret = recover_patched(t);
		/* Trees prepared before the check existed count too. */
		if (!ret && tree_check_config(t))
			ret = TREE_BAD_CONFIG;
	}
	free(stamp);
	return ret;
}


/* The file "unit-recipes": a line per unit, "UNIT\tCOMMAND\tRECIPE". */
struct unit_list {
	char *text;			/* the file, cut into strings in place */
	char **unit, **cmd, **recipe;
	size_t nr;
};

static void free_unit_list(struct unit_list *l)
{
	if (!l)
		return;
	free(l->text);
	free(l->unit);
	free(l->cmd);
	free(l->recipe);
	free(l);
}

void tree_release(struct tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
	free_unit_list(t->units);
	t->units = NULL;
}

/*
 * After patch(1) failed partway the tree is neither before nor after the
 * patch; every file it names is put back as the source has it.  Only
 * when that is done is the saved copy dropped: otherwise the next run
 * takes it as a patch left applied and tries again.
 */
static int tree_unpatch_failed(struct tree *t, const char *patch,
			       const char *saved, bool reverse)
{
	const char *why = reverse ? "the patch did not come back out of the tree" :
			  "the patch did not apply";

	if (tree_restore(t, patch, why))
		return error("%s is left in %s, to be undone on the next run",
			     saved, t->dir);
	unlink(saved);
	return 0;
}

/*
 * --forward in both directions: reversing a patch whose file is not
 * patched would otherwise apply that file's diff ("Unreversed patch
 * detected!  Ignoring -R.") and succeed.  A failed reverse leaves the
 * tree as the source is; a failed forward does too, and still fails.
 */
int tree_patch(struct tree *t, const char *patch, bool reverse, bool dry_run)
{
	char *saved = xasprintf("%s/applied.patch", t->dir);
	char *argv[] = { "patch", "-p1", "--batch", "--silent", "--forward",
			 "-d", t->src, "-i", (char *)patch, NULL, NULL, NULL };
	char *cp[] = { "cp", (char *)patch, saved, NULL };
	size_t n = 9;
	int ret;

	if (reverse)
		argv[n++] = "-R";
	if (dry_run)
		argv[n++] = "--dry-run";
	if (!reverse && !dry_run && run_logged(cp, t->log)) {
		free(saved);
		return -1;
	}
	ret = run_logged(argv, t->log);
	if (!ret && reverse && !dry_run)
		unlink(saved);
	/* restored, the tree is as before the patch: what a reverse is for */
	if (ret && !dry_run && !tree_unpatch_failed(t, patch, saved, reverse) &&
	    reverse)
		ret = 0;
	free(saved);
	return ret;
}

/* Runs recipes[i] in t->obj, nproc at a time; @failed[i] if it fails. */
static void run_recipes(struct tree *t, char *const *recipes, size_t nr,
			bool *failed)
{
	long max = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t *pids = xcalloc(nr + 1, sizeof(pid_t));
	size_t next = 0, running = 0, i;
	char *sh[] = { "/bin/sh", "-c", NULL, NULL }, **argv;
	int status, fd;
	pid_t pid;

	fd = open(t->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	for (i = 0; fd < 0 && i < nr; i++)
		failed[i] = true;
	while (fd >= 0 && (next < nr || running)) {
		while (next < nr && running < (size_t)(max > 0 ? max : 1)) {
			failed[next] = true;
			if (!*recipes[next]) {
				next++;
				continue;
			}
			sh[2] = recipes[next];
			argv = tree_argv(t, sh);
			pid = spawn((const char *const *)argv,
				    &(struct spawn_io){ .out = fd, .err = fd,
							.dir = t->obj });
			free(argv);
			if (pid > 0) {
				pids[next] = pid;
				running++;
			}
			next++;
		}
		if (!running)
			break;
		pid = wait(&status);
		if (pid < 0)
			break;
		for (i = 0; i < next; i++) {
			if (pids[i] != pid)
				continue;
			failed[i] = !WIFEXITED(status) || WEXITSTATUS(status);
			pids[i] = 0;
			running--;
		}
	}
	free(pids);
	if (fd >= 0)
		close(fd);
}

static int load_units(struct tree *t);

/* Kbuild's recipe for each of @units, "" where the dry run has none. */
static char **unit_recipes(struct tree *t, char *const *units, size_t nr)
{
	char **out = xcalloc(nr + 1, sizeof(char *));
	size_t i;

	load_units(t);
	for (i = 0; i < nr; i++)
		out[i] = xstrdup(tree_unit_recipe(t, units[i]));
	return out;
}

/*
 * With @direct, units are compiled by Kbuild's own recipe for them, the
 * line the dry run of the full build printed (gcc with the unit's flags,
 * objtool, the .cmd file), run as make would run it: a single-target make
 * spends some 15 s on Kbuild's own work for one unit, and in a directory
 * that an ancestor's Makefile lists too (drivers/Makefile: char/ipmi/)
 * it builds the unit twice, once outside its module.  A unit whose
 * recipe fails, or that has none, is made by make, which also makes what
 * it needs generated first.  Without @direct (the patch may change what
 * `prepare` generates), everything is made by make.
 */
int tree_compile(struct tree *t, char *const *units, size_t nr,
		 char *const *dests, bool *failed, bool direct)
{
	char **targets = xcalloc(nr + 2, sizeof(char *));
	char **recipes = direct ? unit_recipes(t, units, nr) : NULL;
	size_t i, bad = 0, n = 0;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		char *built = path_join(t->obj, units[i]);

		unlink(built);
		/* Kbuild makes an object's directory as it descends */
		*strrchr(built, '/') = '\0';
		if (recipes && mkdir_p(built))
			*recipes[i] = '\0';
		free(built);
		failed[i] = true;
	}
	if (recipes)
		run_recipes(t, recipes, nr, failed);
	targets[n++] = "-k";	/* say which units fail, not just the first */
	for (i = 0; i < nr; i++)
		if (failed[i])
			targets[n++] = units[i];
	if (n > 1)
		ret = make_in_tree(t, targets, KCFLAGS_LIVEPATCH, NULL);
	for (i = 0; i < nr; i++) {
		char *built = path_join(t->obj, units[i]);
		char *cp[] = { "cp", built, dests[i], NULL };

		failed[i] = access(built, F_OK) || run_logged(cp, t->log);
		bad += failed[i];
		free(built);
	}
	if (recipes)
		free_strv(recipes, nr);
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
 * "  CC [M]  fs/ext4/inode.o" lines of a dry run: the C units, the gcc
 * command of each, which follows the shell's traps on the same line, and
 * that whole line: Kbuild's recipe for the unit (gcc, objtool, the .cmd
 * file), as the full build runs it.
 */
static void parse_units(char *text, struct strv *units, struct strv *cmds,
			struct strv *recipes)
{
	static const char trap_end[] = "kill -s PIPE $$' PIPE; ";
	static const char echo[] = "echo '  CC ";
	char *p = text, *end, *eol, *next, *cmd, *unit, *bol;
	bool shared;

	while ((p = strstr(p, echo))) {
		for (bol = p; bol > text && bol[-1] != '\n'; bol--)
			;
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
		shared = next && next < eol;
		if (shared)
			eol = next;
		unit = xstrndup(p, end - p);
		cmd = strstr(end, trap_end);
		cmd = cmd && cmd < eol ? cmd + strlen(trap_end) : NULL;
		cmd = cmd ? build_cpp_command(cmd, eol - cmd, unit) : NULL;
		strv_add(cmds, cmd ? cmd : xstrdup(""));
		/* one recipe a line, and a tab separates the cache's fields */
		if (shared || memchr(bol, '\t', eol - bol))
			strv_add(recipes, xstrdup(""));
		else
			strv_add(recipes, xstrndup(bol, eol - bol));
		strv_add(units, unit);
		p = end;
	}
}

/* The cache of a dry run: "unit \t gcc -E \t recipe" a line. */
static int write_commands(const struct strv *units, const struct strv *cmds,
			  const struct strv *recipes, const char *path)
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
		fprintf(f, "%s\t%s\t%s\n", units->v[i], cmds->v[i], recipes->v[i]);
	ret = fclose(f) || rename(tmp, path) ? -1 : 0;
	free(tmp);
	return ret;
}

static struct unit_list *read_commands(const char *path)
{
	struct unit_list *l = xcalloc(1, sizeof(*l));
	char *p, *end, *tab, *tab2, *eol;
	size_t len, lines = 0;

	if (read_file(path, 1 << 30, &l->text, &len)) {
		free(l);
		return NULL;
	}
	end = l->text + len;
	for (p = l->text; p < end; p++)
		lines += *p == '\n';
	l->unit = xcalloc(lines + 1, sizeof(char *));
	l->cmd = xcalloc(lines + 1, sizeof(char *));
	l->recipe = xcalloc(lines + 1, sizeof(char *));
	for (p = l->text; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;	/* its NUL */
		tab = memchr(p, '\t', eol - p);
		tab2 = tab ? memchr(tab + 1, '\t', eol - tab - 1) : NULL;
		if (!tab2)
			continue;
		*tab = *tab2 = *eol = '\0';
		l->unit[l->nr] = p;
		l->cmd[l->nr] = tab + 1;
		l->recipe[l->nr++] = tab2 + 1;
	}
	if (!l->nr) {
		free_unit_list(l);
		return NULL;
	}
	return l;
}

/*
 * The dry run, once per tree, with the flags units are compiled with for
 * live patching: the units, their commands and recipes, cached.
 */
static int dry_run(struct tree *t, const char *list)
{
	char *dry = path_join(t->dir, "units.dry-run"), *text;
	/* -j1: parallel makes would interleave their lines in the file */
	char *targets[] = { "-n", "-j1", "-k", "vmlinux", "modules", NULL };
	struct strv units = { 0 }, cmds = { 0 }, recipes = { 0 };
	size_t len;
	int ret = -1;

	unlink(dry);
	fprintf(stderr, "  listing the units this configuration builds (Kbuild dry run, once per tree)\n");
	make_in_tree(t, targets, KCFLAGS_LIVEPATCH, dry);
	if (!read_file(dry, 1 << 30, &text, &len)) {
		parse_units(text, &units, &cmds, &recipes);
		free(text);
		ret = units.nr ? write_commands(&units, &cmds, &recipes, list) : -1;
	}
	strv_free(&units);
	strv_free(&cmds);
	strv_free(&recipes);
	unlink(dry);
	free(dry);
	return ret;
}

static int load_units(struct tree *t)
{
	char *list;

	if (t->units)
		return 0;
	list = path_join(t->dir, "unit-recipes");
	t->units = read_commands(list);
	if (!t->units && !dry_run(t, list))
		t->units = read_commands(list);
	free(list);
	return t->units ? 0 : -1;
}

int tree_units(struct tree *t, struct strv *units)
{
	size_t i;

	memset(units, 0, sizeof(*units));
	if (load_units(t))
		return -1;
	for (i = 0; i < t->units->nr; i++)
		strv_add(units, xstrdup(t->units->unit[i]));
	return 0;
}

const char *tree_unit_command(const struct tree *t, size_t i)
{
	return t->units && i < t->units->nr ? t->units->cmd[i] : NULL;
}

const char *tree_unit_recipe(const struct tree *t, const char *unit)
{
	size_t i;

	for (i = 0; t->units && i < t->units->nr; i++)
		if (!strcmp(t->units->unit[i], unit))
			return t->units->recipe[i];
	return "";
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

/*
 * The patch author's header (include/ksplice/hooks.h of this
 * installation) where every unit's #include <ksplice/...> finds it: in
 * the tree's include/, which Kbuild puts on every unit's path.  The
 * tree's files are hard links to the user's: a new file, never written
 * through one.
 */
int tree_add_header(struct tree *t, const char *from, const char *rel)
{
	char *to = xasprintf("%s/include/%s", t->src, rel), *dir, *data, *old;
	size_t len, old_len;
	int ret = 0;

	if (read_file(from, 1 << 20, &data, &len))
		return error_errno("cannot read %s", from);
	if (!read_file(to, 1 << 20, &old, &old_len)) {
		ret = old_len == len && !memcmp(old, data, len) ? 1 : 0;
		free(old);
	}
	if (!ret) {
		dir = xstrdup(to);
		*strrchr(dir, '/') = '\0';
		unlink(to);
		ret = mkdir_p(dir) || write_file(to, data, len) ?
		      error_errno("cannot write %s", to) : 0;
		free(dir);
	} else {
		ret = 0;
	}
	free(data);
	free(to);
	return ret;
}

/*
 * The versions (modversions CRCs) of @unit's exports, "#SYMVER name crc"
 * lines into @out: genksyms on its source preprocessed with the flags of
 * its last compile (its .cmd file), as Kbuild's gen_symversions does; the
 * dry run's recipes do not hold that step.
 */
int tree_symvers(const struct tree *t, const char *unit, const char *out)
{
	const char *slash = strrchr(unit, '/');
	char *cmdf = xasprintf("%s/%.*s.%s.cmd", t->obj,
			       (int)(slash ? slash + 1 - unit : 0), unit,
			       slash ? slash + 1 : unit);
	char *text = slurp(cmdf, NULL), *cpp = NULL, *sh = NULL, *p;
	int ret = -1;

	p = text ? strstr(text, " := ") : NULL;
	if (p)
		cpp = build_cpp_command(p + 4, strcspn(p + 4, "\n"), unit);
	if (cpp) {
		sh = xasprintf("%s -D__GENKSYMS__ | scripts/genksyms/genksyms -r /dev/null >%s",
			       cpp, out);
		ret = run_logged_in((char *[]){ "/bin/sh", "-c", sh, NULL },
				    t->log, t->obj);
	}
	if (ret)
		error("cannot version the exports of %s (genksyms; see %s)",
		      unit, t->log);
	free(sh);
	free(cpp);
	free(text);
	free(cmdf);
	return ret ? -1 : 0;
}
