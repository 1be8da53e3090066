// SPDX-License-Identifier: GPL-2.0
/*
 * pipeload hold N FILE: create N pipes, write a byte into each and
 * print "PIPES-OPEN n=N"; when FILE exists, read each byte back, close
 * them all and print "PIPES-CLOSED n=N ok=K" (K: pipes that gave their
 * byte back).
 * pipeload churn FILE: create and close pipes 64 at a time until FILE
 * exists; print "PIPES-CHURNED n=N ok=K".
 * Exits 1 if a pipe cannot be made or loses its byte.  A guest-side
 * workload: every pipe is a struct pipe_inode_info made and freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int (*fds)[2];

/* Makes pipes [0, n) and writes each one's byte. */
static int make(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char c = 'a' + i % 26;

		if (pipe(fds[i]) || write(fds[i][1], &c, 1) != 1) {
			perror("pipe");
			return -1;
		}
	}
	return 0;
}

/* Reads back and closes pipes [0, n); how many gave their byte. */
static int drain(int n)
{
	int i, ok = 0;
	char c;

	for (i = 0; i < n; i++) {
		ok += read(fds[i][0], &c, 1) == 1 && c == 'a' + i % 26;
		close(fds[i][0]);
		close(fds[i][1]);
	}
	return ok;
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 65536, 65536 };
	long n = 64, total = 0, ok = 0;

	if (argc < 3 || (strcmp(argv[1], "churn") && argc < 4)) {
		fprintf(stderr, "usage: pipeload hold N FILE | churn FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "hold"))
		n = atol(argv[2]);
	setrlimit(RLIMIT_NOFILE, &rl);
	fds = calloc(n, sizeof(*fds));
	if (!fds || n <= 0)
		return 2;
	if (!strcmp(argv[1], "hold")) {
		if (make(n))
			return 1;
		printf("PIPES-OPEN n=%ld\n", n);
		fflush(stdout);
		while (access(argv[3], F_OK))
			usleep(20000);
		ok = drain(n);
		printf("PIPES-CLOSED n=%ld ok=%ld\n", n, ok);
		return ok != n;
	}
	while (access(argv[2], F_OK)) {
		if (make(n))
			return 1;
		ok += drain(n);
		total += n;
	}
	printf("PIPES-CHURNED n=%ld ok=%ld\n", total, ok);
	return ok != total;
}
