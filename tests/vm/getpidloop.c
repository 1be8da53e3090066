/*
 * getpidloop N: N getpid system calls in a tight loop (each calls
 * __task_pid_nr_ns once, through task_tgid_vnr); prints the mean wall
 * time of one call in nanoseconds.  For bench/percall.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;
	pid_t want = getpid();
	long i, bad = 0;
	double ns;

	if (n <= 0) {
		fprintf(stderr, "usage: getpidloop N (N > 0)\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		bad += syscall(SYS_getpid) != want;
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%.1f\n", ns / n);
	if (bad) {
		fprintf(stderr, "getpidloop: %ld calls returned a wrong pid\n", bad);
		return 1;
	}
	return 0;
}
