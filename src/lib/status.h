/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the running kernel has every update installed for it applied:
 * ksplice-view --status (its exit code) and --json.
 */
#ifndef _KSPLICE_STATUS_H
#define _KSPLICE_STATUS_H

#include <stdbool.h>
#include <stddef.h>

enum ksplice_status {
	STATUS_UP_TO_DATE,	/* every installed update applied (or none) */
	STATUS_NOT_APPLIED,	/* one is installed but not applied */
	STATUS_FAILED,		/* one failed at its last apply */
};

/* Exit codes of ksplice-view --status (1 and 2: error, usage). */
#define STATUS_EXIT_NOT_APPLIED	3
#define STATUS_EXIT_FAILED	4

struct installed_update {
	char *file;
	char *id;		/* NULL if the file is unreadable */
	bool applied;
	char *failure;		/* the last failure's cause, or NULL */
};

struct status {
	char *release;		/* uname -r */
	char *version;		/* uname -v */
	char *effective;	/* state_effective_version(), or NULL */
	const char *disabled;	/* installed_disabled() */
	struct installed_update *installed;
	size_t nr_installed;
	enum ksplice_status status;
};

/* Fills @s: 0, or -1 after a message. */
int status_read(struct status *s);
void status_free(struct status *s);
const char *status_name(enum ksplice_status st);

#endif /* _KSPLICE_STATUS_H */
