// SPDX-License-Identifier: GPL-2.0
/*
 * Debian version order (debversion.h), as dpkg's lib/dpkg/version.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "debversion.h"
#include "util.h"

/* '~' sorts before everything, even the end; letters before non-letters. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

static int verrevcmp(const char *a, const char *b)
{
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit((unsigned char)*a)) ||
		       (*b && !isdigit((unsigned char)*b))) {
			int ac = order((unsigned char)*a);
			int bc = order((unsigned char)*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit((unsigned char)*a))
			return 1;
		if (isdigit((unsigned char)*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

struct parsed {
	long epoch;
	char *upstream;
	const char *revision;
};

static void parse(const char *v, struct parsed *p)
{
	const char *colon = strchr(v, ':');
	char *dash;

	p->epoch = colon ? strtol(v, NULL, 10) : 0;
	p->upstream = xstrdup(colon ? colon + 1 : v);
	dash = strrchr(p->upstream, '-');
	p->revision = "";
	if (dash) {
		*dash = '\0';
		p->revision = dash + 1;
	}
}

int debversion_cmp(const char *a, const char *b)
{
	struct parsed pa, pb;
	int r;

	parse(a, &pa);
	parse(b, &pb);
	if (pa.epoch != pb.epoch)
		r = pa.epoch > pb.epoch ? 1 : -1;
	else if (!(r = verrevcmp(pa.upstream, pb.upstream)))
		r = verrevcmp(pa.revision, pb.revision);
	free(pa.upstream);
	free(pb.upstream);
	return r;
}
