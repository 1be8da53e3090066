// SPDX-License-Identifier: GPL-2.0
/*
 * The store of installed updates and the kill switches (installed.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "installed.h"
#include "util.h"

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

char *installed_dir(const char *release)
{
	return path_join(env_or("KSPLICE_STORE", KSPLICE_STORE_DEFAULT),
			 release);
}

static int is_update_file(const struct dirent *de)
{
	return de->d_name[0] != '.' && str_has_suffix(de->d_name, ".tar.gz");
}

int installed_updates(const char *release, char ***files, size_t *nr)
{
	char *dir = installed_dir(release);
	struct dirent **des;
	int n, i;

	*files = NULL;
	*nr = 0;
	n = scandir(dir, &des, is_update_file, alphasort);
	if (n < 0) {
		int err = errno;

		free(dir);
		return err == ENOENT ? 0 : -err;
	}
	*files = xcalloc(n + 1, sizeof(**files));
	for (i = 0; i < n; i++) {
		(*files)[i] = path_join(dir, des[i]->d_name);
		free(des[i]);
	}
	free(des);
	free(dir);
	*nr = n;
	return 0;
}

/* "ksplice=off" as a word of the command line, as the kernel splits it. */
static bool cmdline_off(void)
{
	char *text, *word, *save = NULL;
	size_t len;
	bool off = false;

	if (read_file(env_or("KSPLICE_CMDLINE", KSPLICE_CMDLINE_DEFAULT),
		      1 << 16, &text, &len))
		return false;
	for (word = strtok_r(text, " \t\n", &save); word && !off;
	     word = strtok_r(NULL, " \t\n", &save))
		off = !strcmp(word, "ksplice=off");
	free(text);
	return off;
}

const char *installed_disabled(void)
{
	if (cmdline_off())
		return "ksplice=off is on the kernel command line";
	if (!access(env_or("KSPLICE_DISABLE_FILE", KSPLICE_DISABLE_DEFAULT),
		    F_OK))
		return "/etc/ksplice/disable exists";
	return NULL;
}
