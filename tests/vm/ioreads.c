// SPDX-License-Identifier: GPL-2.0
/*
 * ioreads N: read(2) one byte of /dev/zero N times, then print the
 * "syscr" of this process's /proc/self/io: how many read system calls
 * the kernel counted for it.  A guest-side tool, for the update that
 * changes how include/linux/sched/xacct.h counts them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1;
	int fd = open("/dev/zero", O_RDONLY);
	char c, line[128];
	FILE *io;

	if (fd < 0) {
		perror("ioreads: /dev/zero");
		return 1;
	}
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1) {
			perror("ioreads: read");
			return 1;
		}
	io = fopen("/proc/self/io", "r");
	if (!io) {
		perror("ioreads: /proc/self/io");
		return 1;
	}
	while (fgets(line, sizeof(line), io))
		if (!strncmp(line, "syscr:", 6))
			fputs(line, stdout);
	return 0;
}
