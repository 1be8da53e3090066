// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver of src/create/preprocess-cache.c:
 *   preprocess-cache store DIR SRC OBJ CMD TEXT SINCE   keep file TEXT for CMD
 *   preprocess-cache load DIR SRC OBJ CMD               print its text, or "miss"
 * (SINCE: a text naming a file modified at that time, in seconds, or
 * later is not kept; "now": the time the driver starts, as a create's
 * preprocessing does.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preprocess-cache.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct timespec since = { 0 };
	struct cpp_cache *c;
	char *buf = NULL;
	size_t len, cap = 0;
	int ret = 0;

	if (argc < 6 || (strcmp(argv[1], "load") && argc < 8)) {
		fprintf(stderr, "usage: see the source\n");
		return 2;
	}
	if (argc > 7 && !strcmp(argv[7], "now"))
		clock_gettime(CLOCK_REALTIME_COARSE, &since);
	else
		since.tv_sec = argc > 7 ? atol(argv[7]) : 0;
	c = cpp_cache_open(argv[2], argv[3], argv[4], since.tv_sec ? &since : NULL);
	if (!strcmp(argv[1], "store")) {
		if (read_file(argv[6], 1 << 30, &buf, &len))
			return 1;
		cpp_cache_store(c, argv[5], buf, len);
	} else if (!cpp_cache_load(c, argv[5], &buf, &cap, &len)) {
		fwrite(buf, 1, len, stdout);
	} else {
		printf("miss\n");
	}
	free(buf);
	cpp_cache_close(c);
	return ret;
}
