/*
 * getpidloop N [CHUNKS [ppid]]: N getpid system calls in a tight loop (each
 * calls __task_pid_nr_ns once, through task_tgid_vnr), or getppid ones
 * with "ppid", timed in CHUNKS (10) equal chunks; prints the ns of one
 * call in the fastest chunk.  For
 * bench/per-call: a TCG guest on a shared host is preempted at random,
 * which only ever adds time, so the fastest chunk is the cost itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long chunks = argc > 2 ? atol(argv[2]) : 10;
	int ppid = argc > 3 && !strcmp(argv[3], "ppid");
	long nr = ppid ? SYS_getppid : SYS_getpid;
	pid_t want = ppid ? getppid() : getpid();
	long i, c, per, bad = 0;
	double t0, best = 0;

	if (n <= 0 || chunks <= 0 || n < chunks) {
		fprintf(stderr, "usage: getpidloop N [CHUNKS [ppid]] (N >= CHUNKS > 0)\n");
		return 2;
	}
	per = n / chunks;
	for (c = 0; c < chunks; c++) {
		t0 = now_ns();
		for (i = 0; i < per; i++)
			bad += syscall(nr) != want;
		t0 = (now_ns() - t0) / per;
		if (c == 0 || t0 < best)
			best = t0;
	}
	printf("%.1f\n", best);
	if (bad) {
		fprintf(stderr, "getpidloop: %ld calls returned a wrong pid\n", bad);
		return 1;
	}
	return 0;
}
