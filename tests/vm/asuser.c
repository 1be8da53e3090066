// SPDX-License-Identifier: GPL-2.0
/*
 * asuser COMMAND [ARG]...: run COMMAND as uid and gid 65534 (nobody),
 * with no supplementary groups and so no capabilities.
 * asuser --no-sys-module COMMAND [ARG]...: stay root but drop
 * CAP_SYS_MODULE from the bounding set, so that COMMAND runs as root
 * without it.
 * A guest-side tool for the tests of what an unprivileged user may do.
 */
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/capability.h>

int main(int argc, char **argv)
{
	int nomod = argc > 1 && !strcmp(argv[1], "--no-sys-module");

	if (argc < 2 + nomod) {
		fprintf(stderr, "usage: asuser [--no-sys-module] COMMAND [ARG]...\n");
		return 2;
	}
	if (nomod) {
		/* exec recomputes root's capabilities within the bounding set. */
		if (prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0)) {
			perror("asuser: cannot drop CAP_SYS_MODULE");
			return 126;
		}
	} else {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("asuser: cannot drop to uid 65534");
			return 126;
		}
		if (!setuid(0)) {
			fprintf(stderr, "asuser: could get root back\n");
			return 126;
		}
	}
	execvp(argv[1 + nomod], argv + 1 + nomod);
	perror(argv[1 + nomod]);
	return 127;
}
