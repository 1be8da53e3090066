// SPDX-License-Identifier: GPL-2.0
/*
 * The CVE ids a Debian update fixes: those its changelog names in the
 * entries after the running version.  dpkg-parsechangelog reads the
 * changelog (not a parser of ours); we only pick the ids out of the
 * entries' text, in order of first mention.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "update-file.h"
#include "util.h"

#define CHANGES_MAX	(64 << 20)

/* Adds every CVE-YYYY-NNNN... of @text to @m. */
static void scan_cves(struct manifest *m, const char *text)
{
	const char *p = text;

	while ((p = strstr(p, "CVE-"))) {
		size_t n = 4 + strspn(p + 4, "0123456789-");
		char *id = xstrndup(p, n);

		/* "CVE-2026-99362," or "...)": the id is the digits. */
		while (n > 4 && id[n - 1] == '-')
			id[--n] = '\0';
		if ((p == text || !isalnum((unsigned char)p[-1])) &&
		    cve_id_valid(id))
			manifest_add_cve(m, id);
		free(id);
		p += n;
	}
}

int debian_cves(const char *changelog, const char *since, struct manifest *m)
{
	const char *argv[] = { "dpkg-parsechangelog", "-l", changelog,
			       "--since", since, "-S", "Changes", NULL };
	char *out = NULL;
	size_t len;
	int ret;

	ret = run_command_capture(argv, CHANGES_MAX, &out, &len);
	if (ret) {
		free(out);
		return error("dpkg-parsechangelog -l %s --since %s failed (exit %d)",
			     changelog, since, ret);
	}
	scan_cves(m, out);
	free(out);
	return 0;
}

/* "fetch-source --changelog VERSION": the changelog's path. */
char *debian_changelog(const char *script, const char *version)
{
	const char *argv[] = { script, "--changelog", version, NULL };
	char *out = NULL, *last;
	size_t len;

	if (run_command_capture(argv, 1 << 16, &out, &len)) {
		free(out);
		error("cannot fetch the Debian changelog of linux-source-6.1 %s",
		      version);
		return NULL;
	}
	str_rstrip(out);
	last = strrchr(out, '\n');
	last = xstrdup(last ? last + 1 : out);
	free(out);
	return last;
}
