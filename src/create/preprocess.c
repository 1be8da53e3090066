// SPDX-License-Identifier: GPL-2.0
/*
 * The preprocessing filter: of the units that include what a patch
 * changes, only those whose preprocessed text can compile differently
 * (cppdiff.c) are compiled.  gcc -E of a kernel unit takes a tenth of its
 * compile, and a header included by 5,000 units is used by a few.
 *
 * Each unit is preprocessed with Kbuild's own command for it (from the
 * dry run that lists the units: its real flags, what `make foo.i` runs),
 * once in the prepared tree and once in a copy of it with the patch
 * applied (hard links, <tree>/post), so that both texts of a unit are in
 * memory together and nothing is written: nproc jobs, their output read
 * through pipes.  A unit that does not preprocess is kept: compiling it
 * says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cppdiff.h"
#include "create.h"
#include "preprocess-cache.h"

struct text {
	char *buf;
	size_t len, cap;
	bool done, failed;
};

struct job {
	pid_t pid;
	int fd;
	size_t unit;
	int side;		/* 0 pre, 1 post */
};

struct run {
	char *const *cmds;	/* pre commands; post ones are rewritten */
	const char *src, *post, *obj;
	size_t nr;
	struct text (*texts)[2];
	struct job *jobs;
	size_t nr_jobs, max_jobs;
	size_t next;		/* next unit * 2 + side to start */
	bool *differs;
	char **why;
	size_t compared;
	struct cpp_cache *cache;	/* of the pre side's texts, or NULL */
	size_t cached;			/* texts taken from it */
	struct cpp_scratch *scratch;
	struct text spare[8];	/* buffers of texts compared, for the next */
	size_t nr_spare;
};

/* @cmd with every "<src>/" made "<post>/". */
static char *rewrite(const char *cmd, const char *src, const char *post)
{
	char *from = xasprintf("%s/", src), *to = xasprintf("%s/", post);
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *p = cmd, *q;
	char *out;

	for (q = cmd; (q = strstr(q, from)); q += nf)
		n++;
	out = xmalloc(strlen(cmd) + n * (nt > nf ? nt - nf : 0) + 1);
	out[0] = '\0';
	while ((q = strstr(p, from))) {
		strncat(out, p, q - p);
		strcat(out, to);
		p = q + nf;
	}
	strcat(out, p);
	free(from);
	free(to);
	return out;
}

static int start(struct run *r, size_t unit, int side)
{
	const char *cmd = r->cmds[unit];
	char *post_cmd = side ? rewrite(cmd, r->src, r->post) : NULL;
	const char *argv[] = { "/bin/sh", "-c", side ? post_cmd : cmd, NULL };
	int fds[2], null;
	pid_t pid;

	/* Close-on-exec: no other job inherits this one's pipe. */
	if (pipe2(fds, O_CLOEXEC))
		return error_errno("pipe");
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = spawn(argv, &(struct spawn_io){ .out = fds[1], .err = null,
					       .dir = r->obj });
	close(fds[1]);
	if (null >= 0)
		close(null);
	free(post_cmd);
	if (pid < 0) {
		close(fds[0]);
		return error_errno("fork");
	}
	r->jobs[r->nr_jobs++] = (struct job){ .pid = pid, .fd = fds[0],
					      .unit = unit, .side = side };
	return 0;
}

/* A text's buffer is kept for the next: fresh pages cost more than gcc -E. */
static void drop(struct run *r, struct text *t)
{
	if (t->buf && r->nr_spare < ARRAY_SIZE(r->spare))
		r->spare[r->nr_spare++] = (struct text){ .buf = t->buf,
							 .cap = t->cap };
	else
		free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* Room in @t for a read. */
static void make_room(struct run *r, struct text *t)
{
	if (t->cap - t->len >= (1 << 16) + 1)
		return;
	if (!t->buf && r->nr_spare) {
		*t = r->spare[--r->nr_spare];
		if (t->cap - t->len >= (1 << 16) + 1)
			return;
	}
	t->cap = t->cap ? 2 * t->cap : 4 << 20;
	t->buf = xrealloc(t->buf, t->cap);
}

/* Compares the texts of @unit once both are in. */
static void compare(struct run *r, size_t unit)
{
	struct text *t = r->texts[unit];
	struct cpp_verdict v;

	if (!t[0].done || !t[1].done)
		return;
	r->compared++;
	if (t[0].failed || t[1].failed) {
		r->differs[unit] = true;
		r->why[unit] = xstrdup(t[0].failed ? CPP_FAILED_PRE :
				       "does not preprocess with the patch");
	} else {
		cpp_compare(r->scratch, t[0].buf, t[1].buf, &v);
		r->differs[unit] = v.differs;
		r->why[unit] = xstrdup(v.why);
	}
	drop(r, &t[0]);
	drop(r, &t[1]);
	if (r->nr >= 2000 && !(r->compared % 1000))
		fprintf(stderr, "  preprocessed %zu of %zu units\n", r->compared, r->nr);
}

static void finish(struct run *r, size_t j)
{
	struct job *job = &r->jobs[j];
	struct text *t = &r->texts[job->unit][job->side];
	size_t unit;
	int status;

	close(job->fd);
	if (waitpid(job->pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		t->failed = true;
	t->done = true;
	if (!job->side && !t->failed && r->cache)
		cpp_cache_store(r->cache, r->cmds[job->unit], t->buf, t->len);
	unit = job->unit;
	*job = r->jobs[--r->nr_jobs];
	compare(r, unit);
}

/* The pre side of @unit from the cache, if it holds it. */
static bool from_cache(struct run *r, size_t unit)
{
	struct text *t = &r->texts[unit][0];

	if (!r->cache)
		return false;
	if (r->nr_spare)
		*t = r->spare[--r->nr_spare];
	if (cpp_cache_load(r->cache, r->cmds[unit], &t->buf, &t->cap, &t->len)) {
		drop(r, t);
		return false;
	}
	t->done = true;
	r->cached++;
	compare(r, unit);
	return true;
}

/* Reads what the running jobs wrote; finishes those at EOF. */
static int pump(struct run *r)
{
	struct pollfd pfd[64];
	size_t i;
	ssize_t n;

	for (i = 0; i < r->nr_jobs; i++)
		pfd[i] = (struct pollfd){ .fd = r->jobs[i].fd, .events = POLLIN };
	if (poll(pfd, r->nr_jobs, -1) < 0 && errno != EINTR)
		return error_errno("poll");
	for (i = r->nr_jobs; i-- > 0;) {
		struct job *job = &r->jobs[i];
		struct text *t = &r->texts[job->unit][job->side];

		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		make_room(r, t);
		n = read(job->fd, t->buf + t->len, t->cap - t->len - 1);
		if (n > 0) {
			t->len += n;
		} else if (n == 0 || errno != EINTR) {
			t->failed |= n < 0;	/* a text cut short */
			t->buf[t->len] = '\0';
			finish(r, i);
		}
	}
	return 0;
}

/*
 * Preprocesses each of @nr commands (run in @obj) in @src and in @post;
 * @differs[i] and @why[i] (malloc'ed) say what cppdiff.c found.  The
 * texts in @src are taken from and kept in the directory @cache, if set
 * (*@cached: how many were taken).
 */
int preprocess_compare(char *const *cmds, size_t nr, const char *src,
		       const char *post, const char *obj, const char *cache,
		       bool *differs, char **why, size_t *cached)
{
	struct run r = { .cmds = cmds, .src = src, .post = post, .obj = obj,
			 .nr = nr, .differs = differs, .why = why,
			 .scratch = cpp_scratch_new() };
	struct timespec now;
	size_t i;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = 0;

	/*
	 * The clock of file times: a file the create itself restored just
	 * before (the layout probe's compile takes its patch out) is older.
	 */
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	r.cache = cache ? cpp_cache_open(cache, src, obj, &now) : NULL;
	r.max_jobs = cpus < 1 ? 1 : cpus > 32 ? 32 : cpus;
	r.texts = xcalloc(nr + 1, sizeof(*r.texts));
	r.jobs = xcalloc(r.max_jobs, sizeof(*r.jobs));
	while (!ret && r.compared < nr) {
		while (!ret && r.nr_jobs < r.max_jobs && r.next < 2 * nr) {
			if (r.next % 2 || !from_cache(&r, r.next / 2))
				ret = start(&r, r.next / 2, r.next % 2);
			r.next++;
		}
		if (!ret && r.nr_jobs)
			ret = pump(&r);
	}
	if (cached)
		*cached = r.cached;
	/* Texts cut short (an error) are not kept. */
	cpp_cache_close(r.cache);
	r.cache = NULL;
	while (r.nr_jobs) {
		kill(r.jobs[0].pid, SIGTERM);
		finish(&r, 0);
	}
	for (i = 0; i < nr; i++) {
		drop(&r, &r.texts[i][0]);
		drop(&r, &r.texts[i][1]);
	}
	while (r.nr_spare)
		free(r.spare[--r.nr_spare].buf);
	free(r.texts);
	free(r.jobs);
	cpp_scratch_free(r.scratch);
	return ret;
}
