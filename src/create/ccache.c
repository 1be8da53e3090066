// SPDX-License-Identifier: GPL-2.0
/*
 * An update compiles each unit it reaches twice, before and after the
 * patch, and the unit before the patch is the same from one update to
 * the next.  ccache's direct mode keys an object on the compiler, its
 * arguments and the contents of every file the unit included, so a hit
 * is the object gcc would write, byte for byte.
 *
 * It is used through the masquerade directory of Debian's ccache package
 * (/usr/lib/ccache/gcc-12 first in PATH) rather than as CC="ccache
 * gcc-12": Kbuild's commands keep their text, so nothing the prepared
 * tree recorded in its .cmd files looks changed to it.
 */
#include <stdlib.h>
#include <unistd.h>

#include "ccache.h"
#include "util.h"

#define CCACHE_MASQUERADE "/usr/lib/ccache"

char **ccache_env(const char *cc, const char *cache)
{
	char *link = path_join(CCACHE_MASQUERADE, cc);
	const char *path = getenv("PATH"), *dir = getenv("CCACHE_DIR");
	bool found = !access(link, X_OK);
	char **env, *cdir;

	free(link);
	if (!found)
		return NULL;
	/* A cache it cannot write would fail every compile: none then. */
	cdir = dir && *dir ? xstrdup(dir) : path_join(cache, "ccache");
	if (mkdir_p(cdir) || access(cdir, W_OK | X_OK)) {
		free(cdir);
		return NULL;
	}
	env = xcalloc(5, sizeof(char *));
	env[0] = xasprintf("PATH=%s:%s", CCACHE_MASQUERADE,
			   path && *path ? path : "/usr/bin:/bin");
	env[1] = xasprintf("CCACHE_DIR=%s", cdir);
	/*
	 * Whatever a cache's own ccache.conf says: objtool rewrites an
	 * object in place, which would change a hard-linked cached copy,
	 * and a sloppiness would let a hit differ from gcc's object.
	 */
	env[2] = xstrdup("CCACHE_NOHARDLINK=1");
	env[3] = xstrdup("CCACHE_SLOPPINESS=");
	free(cdir);
	return env;
}
