// SPDX-License-Identifier: GPL-2.0
/*
 * ioctlerr FILE CMD: open FILE read-only, call ioctl(fd, CMD, 0) and print
 * what it returned: "ok N", or "errno N" for a failure.  A guest-side tool
 * to see what a patched ioctl handler now answers (e.g. -EINVAL against
 * -ENOIOCTLCMD, which the VFS turns into ENOTTY).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

int main(int argc, char **argv)
{
	unsigned long cmd;
	int fd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: ioctlerr FILE CMD\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	cmd = strtoul(argv[2], NULL, 0);
	ret = ioctl(fd, cmd, 0);
	if (ret < 0)
		printf("errno %d\n", errno);
	else
		printf("ok %d\n", ret);
	return 0;
}
