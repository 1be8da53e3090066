// SPDX-License-Identifier: GPL-2.0
/*
 * Generic helpers for the ksplice tools; see util.h for the conventions.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

const char *progname = "ksplice";

void set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	progname = slash ? slash + 1 : argv0;
}

static void vreport(const char *fmt, va_list ap, int errnum)
{
	/* One buffer and one write, so concurrent tools don't interleave. */
	char buf[4096];
	int n;

	n = snprintf(buf, sizeof(buf), "%s: ", progname);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (errnum && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n, ": %s",
			      strerror(errnum));
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	fflush(stdout);
	write_all(STDERR_FILENO, buf, n);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void die_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, errnum);
	va_end(ap);
	exit(1);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, errnum);
	va_end(ap);
	return -1;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *check_alloc(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t nmemb, size_t size)
{
	return check_alloc(calloc(nmemb ? nmemb : 1, size ? size : 1));
}

void *xrealloc(void *ptr, size_t size)
{
	return check_alloc(realloc(ptr, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

char *path_join(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

void free_strv(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; n == (size_t)-1 ? v[i] != NULL : i < n; i++)
		free(v[i]);
	free(v);
}

uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

void strv_add(struct strv *sv, char *s)
{
	/* Doubling: Kbuild's list of ~6,000 units grows one at a time. */
	if (!sv->v || sv->nr + 2 > sv->cap) {
		sv->cap = sv->nr + 2 < 8 ? 8 : 2 * (sv->nr + 2);
		sv->v = xrealloc(sv->v, sv->cap * sizeof(char *));
	}
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

bool strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void strv_split_lines(struct strv *sv, char *text)
{
	char *line, *save;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		strv_add(sv, xstrdup(line));
}

int strv_write_lines(const struct strv *sv, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < sv->nr; i++)
		fprintf(f, "%s\n", sv->v[i]);
	return fclose(f) ? -1 : 0;
}

void strv_free(struct strv *sv)
{
	free_strv(sv->v, sv->nr);
	sv->v = NULL;
	sv->nr = 0;
	sv->cap = 0;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

char *str_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Reads @fd to EOF; fails with EFBIG past @max bytes. */
static int read_fd(int fd, size_t max, char **data, size_t *len)
{
	size_t size = 4096, n = 0;
	struct stat st;
	ssize_t r;
	char *buf;

	/* A hint only: a regular file's size, to read it without copying. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size <= max)
		size = st.st_size + 1;
	buf = xmalloc(size + 1);

	for (;;) {
		if (n == size) {
			if (size > max) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			size *= 2;
			buf = xrealloc(buf, size + 1);
		}
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += r;
	}
	if (n > max) {
		free(buf);
		errno = EFBIG;
		return -1;
	}
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;
}

int read_file(const char *path, size_t max, char **data, size_t *len)
{
	int fd, ret, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = read_fd(fd, max, data, len);
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t r;

	while (len) {
		r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		p += r;
		len -= r;
	}
	return 0;
}

int copy_file(const char *from, const char *to, size_t max)
{
	char *data;
	size_t len;
	int ret;

	if (read_file(from, max, &data, &len))
		return -1;
	ret = write_file(to, data, len);
	free(data);
	return ret;
}

int write_file(const char *path, const void *data, size_t len)
{
	int fd, e;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* close() is where NFS and full disks report lost writes. */
	return close(fd);
}

int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/*
 * posix_spawn, not fork: ksplice-create starts thousands of gcc -E while it
 * holds hundreds of megabytes of text, and a fork made each of its pages
 * copy-on-write, to be faulted in again at its next write.
 */
pid_t spawn(const char *const argv[], const struct spawn_io *io)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int e;

	fflush(NULL);
	e = posix_spawn_file_actions_init(&fa);
	if (!e && io && io->out >= 0)
		e = posix_spawn_file_actions_adddup2(&fa, io->out, STDOUT_FILENO);
	if (!e && io && io->err >= 0)
		e = posix_spawn_file_actions_adddup2(&fa, io->err, STDERR_FILENO);
	if (!e && io && io->dir)
		e = posix_spawn_file_actions_addchdir_np(&fa, io->dir);
	if (!e)
		e = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
				 environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		fprintf(stderr, "%s: cannot run %s%s%s: %s\n", progname, argv[0],
			io && io->dir ? " in " : "", io && io->dir ? io->dir : "",
			strerror(e));
		errno = e;
		return -1;
	}
	return pid;
}

int run_command(const char *const argv[])
{
	pid_t pid = spawn(argv, NULL);

	return pid < 0 ? -1 : wait_child(pid);
}

void show_log_tail(const char *log)
{
	const char *argv[] = { "tail", "-n", "25", log, NULL };

	fprintf(stderr, "---- last lines of %s ----\n", log);
	run_command(argv);
}

int run_command_capture(const char *const argv[], size_t max,
			char **out, size_t *len)
{
	int pipefd[2], ret, status, e;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	pid = spawn(argv, &(struct spawn_io){ .out = pipefd[1], .err = -1 });
	if (pid < 0) {
		e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		errno = e;
		return -1;
	}
	close(pipefd[1]);
	ret = read_fd(pipefd[0], max, out, len);
	e = errno;
	/* Closing first lets a child still writing past @max die of EPIPE. */
	close(pipefd[0]);
	status = wait_child(pid);
	if (ret < 0) {
		errno = e;
		return -1;
	}
	return status;
}

char *make_temp_dir(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	path = xasprintf("%s/%s.XXXXXX", tmp, prefix);
	if (!mkdtemp(path)) {
		int e = errno;

		free(path);
		errno = e;
		return NULL;
	}
	return path;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

int remove_tree(const char *path)
{
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

