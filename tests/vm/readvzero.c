// SPDX-License-Identifier: GPL-2.0
/*
 * readvzero [MB]: read /dev/zero with readv(2) into an MB (default 16)
 * MiB buffer, forever.  readv goes through the file's read_iter,
 * read_iter_zero, where the task then spends nearly all its time (read(2)
 * would take read_zero instead).  A guest-side tool: a task that is busy
 * running a kernel function on its CPU.  Prints "reading" once the
 * buffer is faulted in and the first readv is done.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

int main(int argc, char **argv)
{
	size_t len = (argc > 1 ? strtoul(argv[1], NULL, 0) : 16) << 20;
	struct iovec iov = { .iov_base = malloc(len), .iov_len = len };
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || !iov.iov_base) {
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
