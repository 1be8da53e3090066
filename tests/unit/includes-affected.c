// SPDX-License-Identifier: GPL-2.0
/*
 * includes-affected SRC OBJ UNITS FILE...: the units (one per line in the
 * file UNITS) that include one of FILE, as ksplice-create finds them; a
 * test driver for src/create/includes.c (tests/t/21-includes.t).  With
 * INCLUDES_CACHE set, the tree's include lines are kept there, and the
 * number of files read (not taken from it) goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "includes.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct strv units = { 0 };
	struct includes_stats st;
	char *text;
	size_t len, i;
	bool *hit;
	long n;

	set_progname(argv[0]);
	if (argc < 5)
		die("usage: includes-affected SRC OBJ UNITS FILE...");
	if (read_file(argv[3], 1 << 26, &text, &len))
		die_errno("cannot read %s", argv[3]);
	strv_split_lines(&units, text);
	hit = xcalloc(units.nr + 1, sizeof(bool));
	n = includes_affected(argv[1], argv[2], getenv("INCLUDES_CACHE"),
			      argv + 4, argc - 4, units.v, units.nr, hit, NULL,
			      &st);
	if (n < 0)
		return 1;
	if (getenv("INCLUDES_CACHE"))
		fprintf(stderr, "read %zu of %zu\n", st.read, st.files);
	for (i = 0; i < units.nr; i++)
		if (hit[i])
			printf("%s\n", units.v[i]);
	free(text);
	free(hit);
	strv_free(&units);
	return 0;
}
