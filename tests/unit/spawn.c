// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver of spawn() and run_command() (src/lib/util.c):
 *   spawn run DIR ARGV...   runs ARGV in DIR, its stdout to ours; prints
 *                           "status N", or "failed ERRNO-NAME"
 *   spawn faults MB         writes MB of memory, starts /bin/true, waits,
 *                           writes it again: prints the page faults of the
 *                           second writing ("faults N")
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "util.h"

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int faults(size_t mb)
{
	const char *argv[] = { "/bin/true", NULL };
	size_t n = mb << 20;
	char *buf = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long before;
	pid_t pid;

	if (buf == MAP_FAILED)
		return 1;
	memset(buf, 1, n);
	pid = spawn(argv, NULL);
	if (pid < 0 || wait_child(pid))
		return 1;
	before = minflt();
	memset(buf, 2, n);
	printf("faults %ld\n", minflt() - before);
	munmap(buf, n ? n : 1);
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pid;

	set_progname(argv[0]);
	if (argc == 3 && !strcmp(argv[1], "faults"))
		return faults(strtoul(argv[2], NULL, 10));
	if (argc < 4 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: see the source\n");
		return 2;
	}
	fflush(stdout);
	pid = spawn((const char *const *)argv + 3,
		    &(struct spawn_io){ .out = -1, .err = -1,
					.dir = strcmp(argv[2], "-") ? argv[2] : NULL });
	if (pid < 0)
		printf("failed %s\n", strerrorname_np(errno));
	else
		printf("status %d\n", wait_child(pid));
	return 0;
}
