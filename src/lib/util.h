/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every ksplice tool: messages, allocation that
 * cannot fail, whole-file I/O, running commands and temporary directories.
 *
 * Conventions: die*() print "<progname>: <message>" and exit(1); error*()
 * print the same and return -1, so "return error(...)" reads naturally.
 * The file and command helpers never print: they return -1 with errno set
 * and leave the wording to the caller, who knows what the file is for.
 */
#ifndef _KSPLICE_UTIL_H
#define _KSPLICE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))

/* The name messages start with; set_progname(argv[0]) in main(). */
extern const char *progname;
void set_progname(const char *argv0);

void die(const char *fmt, ...) __printf(1, 2) __noreturn;
void die_errno(const char *fmt, ...) __printf(1, 2) __noreturn;
int error(const char *fmt, ...) __printf(1, 2);
int error_errno(const char *fmt, ...) __printf(1, 2);
void warn(const char *fmt, ...) __printf(1, 2);
/* Continuation line of a message: indented, no program name. */
void note(const char *fmt, ...) __printf(1, 2);

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __printf(1, 2);
/* "dir/name", freshly allocated. */
char *path_join(const char *dir, const char *name);

/* Frees a NULL-terminated or counted (n != (size_t)-1) array of strings. */
void free_strv(char **v, size_t n);

/* FNV-1a, 64 bits: cache keys (start with 14695981039346656037). */
uint64_t fnv1a(uint64_t h, const void *p, size_t n);
#define FNV1A_INIT	14695981039346656037ULL
/* mkdir -p: 0, or -1 with errno set. */
int mkdir_p(const char *path);

/* A growable list of malloc'ed strings, NULL-terminated. */
struct strv {
	char **v;
	size_t nr;
	size_t cap;			/* slots of @v; 0: unknown */
};

void strv_add(struct strv *sv, char *s);	/* takes @s */
bool strv_has(const struct strv *sv, const char *s);
/* Adds each non-empty line of @text (modified in place). */
void strv_split_lines(struct strv *sv, char *text);
int strv_write_lines(const struct strv *sv, const char *path);
void strv_free(struct strv *sv);

bool str_has_prefix(const char *s, const char *prefix);
bool str_has_suffix(const char *s, const char *suffix);
/* Removes trailing whitespace (sysfs values end in '\n') in place. */
char *str_rstrip(char *s);

/*
 * Reads a whole file into a NUL-terminated buffer.  Reads to EOF rather
 * than trusting st_size, which is wrong for sysfs, procfs and pipes.
 * Fails with EFBIG if the file holds more than @max bytes.
 */
int read_file(const char *path, size_t max, char **data, size_t *len);
/* Creates or truncates @path (mode 0644 before umask) and writes @data. */
int write_file(const char *path, const void *data, size_t len);
/* Copies @from (at most @max bytes) to @to. */
int copy_file(const char *from, const char *to, size_t max);
/* write(2) until done, retrying on EINTR and short writes. */
int write_all(int fd, const void *data, size_t len);

/*
 * Where a child's stdout and stderr go (a descriptor, or -1: ours) and the
 * directory it starts in (NULL: ours).
 */
struct spawn_io {
	int out, err;
	const char *dir;
};
/*
 * The one way the tools start a program: argv[0] (searched in PATH), not
 * waited for.  Returns its pid, or -1 (errno set, and said on stderr) if
 * argv[0] cannot run or @io cannot be set up.
 */
pid_t spawn(const char *const argv[], const struct spawn_io *io);
/* Its exit status, or 128 + signal, or -1 if waitpid fails. */
int wait_child(pid_t pid);
/*
 * Runs argv[0] (searched in PATH) and waits for it.  Returns its exit
 * status, 128 + signal number if a signal killed it, or -1 if it could
 * not be started (said on stderr).
 */
int run_command(const char *const argv[]);
/* The last lines of a build's log, after a failure, on stderr. */
void show_log_tail(const char *log);
/* The same as run_command, collecting at most @max bytes of stdout (NUL-terminated). */
int run_command_capture(const char *const argv[], size_t max,
			char **out, size_t *len);

/*
 * Makes a private (0700) directory "$TMPDIR/<prefix>.XXXXXX" (or under
 * /tmp) and returns its malloc'ed path, or NULL with errno set.
 */
char *make_temp_dir(const char *prefix);
/* rm -rf without following symlinks; ENOENT is not an error. */
int remove_tree(const char *path);


#endif /* _KSPLICE_UTIL_H */
