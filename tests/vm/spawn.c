// SPDX-License-Identifier: GPL-2.0
/*
 * spawn N: start N threads that sleep in the kernel until killed, print
 * "ready N", then wait.  A guest-side tool: it gives the safety check N
 * stacks to walk.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? strtol(argv[1], NULL, 0) : 0;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, &attr, sleeper, NULL)) {
			fprintf(stderr, "spawn: thread %ld: cannot create\n", i);
			return 1;
		}
	printf("ready %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
