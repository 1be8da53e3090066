/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options ksplice-apply and ksplice-undo share: how often and how far
 * apart the core tries to find a moment when no task runs the code it
 * switches.
 */
#ifndef KSPLICE_TRIES_H
#define KSPLICE_TRIES_H

#include <getopt.h>

struct tries {
	const char *max_tries;		/* NULL: as the core has it */
	const char *retry_interval;	/* in ms */
};

#define TRIES_LONGOPTS							\
	{ "max-tries", required_argument, NULL, 't' },			\
	{ "retry-interval", required_argument, NULL, 'i' }

#define TRIES_USAGE							\
	"  --max-tries N         try N times to find a moment when no task\n" \
	"                        is running the code being switched\n"	\
	"  --retry-interval MS   wait MS milliseconds between tries\n"

/*
 * Takes getopt_long's @c if it is one of TRIES_LONGOPTS: 1 if it was, 0 if
 * not, -1 (after a message) if its number is not one.
 */
int tries_option(int c, const char *arg, struct tries *t);
/* Writes the tunables that were given into update @id's sysfs directory. */
int tries_set(const char *id, const struct tries *t);

#endif
