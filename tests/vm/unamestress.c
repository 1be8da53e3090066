// SPDX-License-Identifier: GPL-2.0
/*
 * unamestress THREADS NEW_VERSION [PAUSE_US]: start THREADS threads that
 * call the uname syscall directly in a loop and classify every result's
 * version field as the old one (what uname said at start), NEW_VERSION,
 * or bad.  With PAUSE_US, each thread sleeps that long after each call.
 *
 * Without a pause, on a 2-vCPU guest, some of 256 spinning threads are
 * always preempted at a might_resched() point inside __do_sys_newuname
 * (down_read, copy_to_user), so the safety check never finds a moment
 * when the function is free and every apply is refused (code_busy): the
 * check is right, and apply cannot make progress.  With a pause, most
 * threads are asleep outside the function at any moment.
 * Prints "ready" once all run; on SIGTERM or SIGINT stops them and prints
 * "threads=T calls=N old=O new=W bad=B" (and up to 5 "BAD: ..." lines).
 * The threads run under SCHED_IDLE: they take every cycle the CPUs have
 * spare, yet leave ksplice-apply the CPU it needs (on a 2-vCPU TCG guest,
 * 256 threads at normal priority would starve it).
 * A guest-side tool for the stress test of the uname update.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static char old_v[sizeof(((struct utsname *)0)->version)];
static const char *new_v;
static long pause_us;
static volatile sig_atomic_t stop;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long t_calls, t_old, t_new, t_bad;
static int nr_bad_shown;
static pthread_barrier_t started;

static void *looper(void *arg)
{
	unsigned long long calls = 0, o = 0, n = 0, b = 0;
	struct utsname u;
	struct sched_param sp = { 0 };

	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	pthread_barrier_wait(&started);
	while (!stop) {
		memset(&u, 0x5a, sizeof(u));
		calls++;
		if (syscall(SYS_uname, &u)) {
			b++;
			continue;
		}
		if (!strcmp(u.version, old_v)) {
			o++;
		} else if (!strcmp(u.version, new_v)) {
			n++;
		} else {
			b++;
			pthread_mutex_lock(&lock);
			if (nr_bad_shown++ < 5)
				printf("BAD: '%.64s'\n", u.version);
			pthread_mutex_unlock(&lock);
		}
		if (pause_us)
			usleep(pause_us);
	}
	pthread_mutex_lock(&lock);
	t_calls += calls;
	t_old += o;
	t_new += n;
	t_bad += b;
	pthread_mutex_unlock(&lock);
	return arg;
}

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_attr_t attr;
	struct utsname u;
	sigset_t mask;
	pthread_t *t;
	long i, n;

	if (argc < 3 || argc > 4 || (n = strtol(argv[1], NULL, 0)) < 1) {
		fprintf(stderr, "usage: unamestress THREADS NEW_VERSION [PAUSE_US]\n");
		return 2;
	}
	new_v = argv[2];
	pause_us = argc > 3 ? strtol(argv[3], NULL, 0) : 0;
	if (syscall(SYS_uname, &u)) {
		perror("uname");
		return 1;
	}
	memcpy(old_v, u.version, sizeof(old_v));
	if (!strcmp(old_v, new_v)) {
		fprintf(stderr, "unamestress: the new version is already in\n");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Only the main thread takes the signals; its pause() returns. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	t = calloc(n, sizeof(*t));
	pthread_barrier_init(&started, NULL, n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, looper, NULL)) {
			fprintf(stderr, "unamestress: thread %ld: cannot create\n",
				i);
			return 1;
		}
	pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
	pthread_barrier_wait(&started);
	printf("ready %ld\n", n);
	while (!stop)
		usleep(100000);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads=%ld calls=%llu old=%llu new=%llu bad=%llu\n", n,
	       t_calls, t_old, t_new, t_bad);
	return t_bad ? 1 : 0;
}
