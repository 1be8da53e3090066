// SPDX-License-Identifier: GPL-2.0
/*
 * abssleep NS: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until NS
 * nanoseconds after boot (long past: it returns at once) and print what
 * it returned (0, or the error number).  A guest-side tool: the way in to
 * do_nanosleep, a __sched function of .sched.text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ns = argc > 1 ? strtol(argv[1], NULL, 0) : 42;
	struct timespec t = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	printf("%d\n", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL));
	return 0;
}
