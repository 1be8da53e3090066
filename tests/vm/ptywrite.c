// SPDX-License-Identifier: GPL-2.0
/*
 * ptywrite: tty writes through a pseudo-terminal pair (the slave's writes
 * go through n_tty_write).  A guest-side test tool.
 *
 *   ptywrite check SECONDS   writers push numbered lines into the slave
 *                            for SECONDS while this reads the master and
 *                            checks every line arrives whole and in order;
 *                            prints "PTY-OK lines=N bytes=M" or why not
 *   ptywrite block           a writer fills the slave with nobody reading
 *                            the master, so it sleeps inside the write;
 *                            prints "PTY-BLOCKED pid=PID" and waits for a
 *                            signal (then reads the master dry and exits)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static int open_pair(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	struct termios t;

	if (m < 0 || grantpt(m) || unlockpt(m)) {
		perror("ptywrite: /dev/ptmx");
		exit(2);
	}
	*slave = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (*slave < 0) {
		perror("ptywrite: slave");
		exit(2);
	}
	/*
	 * No echo, no line editing; output processing on (the path through
	 * do_output_char) but without \n -> \r\n, so bytes arrive as written.
	 */
	tcgetattr(*slave, &t);
	cfmakeraw(&t);
	t.c_oflag = OPOST;
	tcsetattr(*slave, TCSANOW, &t);
	return m;
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			perror("ptywrite: write");
			exit(3);
		}
		p += w;
		n -= w;
	}
}

/* Lines "L<n> <payload>\n" of varying lengths, written in varying chunks. */
static void writer(int fd, int seconds)
{
	time_t end = time(NULL) + seconds;
	char buf[8192];
	unsigned long n = 0;
	size_t len = 0;

	while (time(NULL) < end) {
		len += snprintf(buf + len, sizeof(buf) - len, "L%lu %.*s\n", n,
				(int)(n % 97), "abcdefghijklmnopqrstuvwxyz0123456789"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN");
		n++;
		if (len > sizeof(buf) - 256 || n % 7 == 0) {
			write_all(fd, buf, len);
			len = 0;
		}
	}
	write_all(fd, buf, len);
	write_all(fd, "END\n", 4);
	exit(0);
}

static int check_line(const char *line, unsigned long want)
{
	char expect[256];

	snprintf(expect, sizeof(expect), "L%lu %.*s", want, (int)(want % 97),
		 "abcdefghijklmnopqrstuvwxyz0123456789"
		 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN");
	return strcmp(line, expect) == 0;
}

static int check(int seconds)
{
	int s, m = open_pair(&s), status;
	unsigned long lines = 0, bytes = 0;
	char buf[4096], line[512];
	size_t ll = 0;
	pid_t pid;
	ssize_t r, i;

	pid = fork();
	if (!pid) {
		close(m);
		writer(s, seconds);
	}
	close(s);
	for (;;) {
		r = read(m, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;		/* EIO: the writer closed the slave */
		bytes += r;
		for (i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (ll + 1 >= sizeof(line)) {
					printf("PTY-BAD line %lu too long\n", lines);
					return 1;
				}
				line[ll++] = buf[i];
				continue;
			}
			line[ll] = '\0';
			ll = 0;
			if (!strcmp(line, "END"))
				goto done;
			if (!check_line(line, lines)) {
				printf("PTY-BAD line %lu: '%.80s'\n", lines, line);
				return 1;
			}
			lines++;
		}
	}
	printf("PTY-BAD no END after %lu lines\n", lines);
	return 1;
done:
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("PTY-BAD writer status %#x\n", status);
		return 1;
	}
	printf("PTY-OK lines=%lu bytes=%lu\n", lines, bytes);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int block(void)
{
	int s, m = open_pair(&s);
	char buf[65536];
	pid_t pid;

	memset(buf, 'x', sizeof(buf));
	pid = fork();
	if (!pid) {
		close(m);
		for (;;)
			write_all(s, buf, sizeof(buf));
	}
	close(s);
	signal(SIGTERM, on_signal);
	printf("PTY-BLOCKED pid=%d\n", pid);
	fflush(stdout);
	while (!stop)
		pause();
	kill(pid, SIGKILL);
	fcntl(m, F_SETFL, O_NONBLOCK);
	while (read(m, buf, sizeof(buf)) > 0)
		;
	waitpid(pid, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "check"))
		return check(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "block"))
		return block();
	fprintf(stderr, "usage: ptywrite check SECONDS | ptywrite block\n");
	return 2;
}
