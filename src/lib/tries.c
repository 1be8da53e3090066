// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "kernel.h"
#include "tries.h"
#include "util.h"

/* A decimal number in [min, INT_MAX], checked here for a clear message. */
static const char *number(const char *opt, const char *arg, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > INT_MAX) {
		error("%s needs a whole number of at least %ld, not '%s'",
		      opt, min, arg);
		return NULL;
	}
	return arg;
}

int tries_option(int c, const char *arg, struct tries *t)
{
	switch (c) {
	case 't':
		t->max_tries = number("--max-tries", arg, 1);
		return t->max_tries ? 1 : -1;
	case 'i':
		t->retry_interval = number("--retry-interval", arg, 0);
		return t->retry_interval ? 1 : -1;
	}
	return 0;
}

int tries_set(const char *id, const struct tries *t)
{
	if (sysfs_set_tunable(id, "max_tries", t->max_tries) ||
	    sysfs_set_tunable(id, "retry_interval_ms", t->retry_interval))
		return -1;
	return 0;
}
