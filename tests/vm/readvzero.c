// SPDX-License-Identifier: GPL-2.0
/*
 * readvzero [MB]: read /dev/zero with readv(2) into an MB (default 16)
 * MiB buffer, forever.  readv goes through the file's read_iter,
 * read_iter_zero, where the task then spends nearly all its time (read(2)
 * would take read_zero instead).  A guest-side tool: a task that is busy
 * running a kernel function on its CPU.  Prints "reading" once the
 * buffer is faulted in and the first readv is done.
 * readvzero -n BYTES: one readv of BYTES (read_iter_zero hands
 * iov_iter_zero them, a page at most); prints what it returned.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static int once(int fd, size_t len)
{
	struct iovec iov = { .iov_base = malloc(len), .iov_len = len };
	ssize_t got = iov.iov_base ? readv(fd, &iov, 1) : -1;

	if (got < 0) {
		perror("readvzero: readv");
		return 1;
	}
	printf("%zd\n", got);
	return 0;
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);
	struct iovec iov;
	size_t len;

	if (fd < 0) {
		perror("readvzero");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[1], "-n"))
		return once(fd, strtoul(argv[2], NULL, 0));
	len = (argc > 1 ? strtoul(argv[1], NULL, 0) : 16) << 20;
	iov = (struct iovec){ .iov_base = malloc(len), .iov_len = len };
	if (!iov.iov_base) {
		perror("readvzero");
		return 1;
	}
	/* Fault the buffer in: from now on the time goes to readv. */
	memset(iov.iov_base, 1, len);
	for (int i = 0;; i++) {
		if (readv(fd, &iov, 1) < 0) {
			perror("readvzero: readv");
			return 1;
		}
		if (!i) {
			printf("reading\n");
			fflush(stdout);
		}
	}
}
