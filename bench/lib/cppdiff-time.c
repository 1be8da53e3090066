// SPDX-License-Identifier: GPL-2.0
/*
 * cppdiff-time PRE POST N: N comparisons of two preprocessed texts, as
 * the filter makes them, once with one scratch kept from each to the
 * next (what ksplice-create does) and once with a fresh one each time;
 * prints the verdict and the milliseconds per comparison of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cppdiff.h"
#include "util.h"

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static double run(const char *pre, const char *post, int n, bool keep,
		  struct cpp_verdict *v)
{
	struct cpp_scratch *s = cpp_scratch_new();
	struct timespec t0;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (!keep && i) {
			cpp_scratch_free(s);
			s = cpp_scratch_new();
		}
		cpp_compare(s, pre, post, v);
	}
	cpp_scratch_free(s);
	return ms_since(&t0) / n;
}

int main(int argc, char **argv)
{
	char *pre, *post;
	size_t pre_len, post_len;
	struct cpp_verdict v;
	int n;

	if (argc != 4 || (n = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: cppdiff-time PRE POST N\n");
		return 2;
	}
	if (read_file(argv[1], 1 << 30, &pre, &pre_len) ||
	    read_file(argv[2], 1 << 30, &post, &post_len)) {
		perror("cppdiff-time");
		return 1;
	}
	run(pre, post, 1, true, &v);
	printf("  %zu and %zu bytes: %s: %s\n", pre_len, post_len,
	       v.differs ? "differs" : "same", v.why);
	printf("  scratch kept:   %.1f ms a comparison\n", run(pre, post, n, true, &v));
	printf("  fresh scratch:  %.1f ms a comparison\n", run(pre, post, n, false, &v));
	free(pre);
	free(post);
	return 0;
}
