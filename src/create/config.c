// SPDX-License-Identifier: GPL-2.0
/*
 * Is the prepared tree's .config the target's?  Only the set options
 * (CONFIG_X=V lines) are compared: "is not set" comments are not options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

#define CONFIG_SHOWN 4		/* differences named in the message */

struct options {
	char *text;
	char **line;
	size_t nr;
};

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file's CONFIG_X=V lines, sorted. */
static int options_read(const char *path, struct options *o)
{
	size_t len, cap = 0;
	char *p, *nl;

	o->line = NULL;
	o->nr = 0;
	if (read_file(path, 64 << 20, &o->text, &len))
		return error("cannot read %s", path);
	for (p = o->text; p < o->text + len; p = nl + 1) {
		nl = memchr(p, '\n', o->text + len - p);
		if (!nl)
			nl = o->text + len;
		*nl = '\0';
		if (strncmp(p, "CONFIG_", 7) || !strchr(p, '='))
			continue;
		if (o->nr == cap) {
			cap = cap ? 2 * cap : 4096;
			o->line = xrealloc(o->line, cap * sizeof(*o->line));
		}
		o->line[o->nr++] = p;
	}
	qsort(o->line, o->nr, sizeof(*o->line), compare_lines);
	return 0;
}

static void options_free(struct options *o)
{
	free(o->line);
	free(o->text);
}

/* Appends " LINE" to @msg, the first CONFIG_SHOWN times. */
static void add_note(char **msg, size_t *nr, const char *what, const char *line)
{
	char *old = *msg;

	if ((*nr)++ >= CONFIG_SHOWN)
		return;
	*msg = xasprintf("%s%s%s %s", old, *old ? ", " : "", line, what);
	free(old);
}

int config_check_kept(const char *want, const char *got, const char *source)
{
	struct options w, g;
	size_t i = 0, j = 0, nr = 0;
	char *msg;
	int c, ret = 0;

	if (options_read(want, &w))
		return -1;
	if (options_read(got, &g)) {
		options_free(&w);
		return -1;
	}
	msg = xstrdup("");
	while (i < w.nr || j < g.nr) {
		c = i == w.nr ? 1 : j == g.nr ? -1 : strcmp(w.line[i], g.line[j]);
		if (c < 0)
			add_note(&msg, &nr, "dropped", w.line[i++]);
		else if (c > 0)
			add_note(&msg, &nr, "added", g.line[j++]);
		else
			i++, j++;
	}
	if (nr)
		ret = error("%s cannot build this configuration: make olddefconfig changed %zu option%s (%s%s); it is not the source of the kernel of %s (Debian's rt flavour, for one, is built from linux-source with the RT patches applied)",
			    source, nr, nr == 1 ? "" : "s", msg,
			    nr > CONFIG_SHOWN ? ", ..." : "", want);
	free(msg);
	options_free(&w);
	options_free(&g);
	return ret;
}
