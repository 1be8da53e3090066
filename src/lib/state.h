/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools remember about the running kernel's updates, beyond what
 * the core's sysfs says: the manifest of each applied update (its Debian
 * versions, its CVEs) and the last failure of each update that did not
 * apply.  Kept in /run/ksplice (tmpfs: it goes with the kernel it is
 * about, at reboot):
 *
 *   /run/ksplice/applied/<id>   the manifest, written after an apply
 *   /run/ksplice/failed/<id>    one line, why the last apply failed
 *
 * KSPLICE_RUN replaces /run/ksplice (tests).
 */
#ifndef _KSPLICE_STATE_H
#define _KSPLICE_STATE_H

#include "update-file.h"

#define KSPLICE_RUN_DEFAULT	"/run/ksplice"

/* Record that update @m is applied (and did not fail); 0 or -1 with errno. */
int state_applied(const struct manifest *m);
/* Record that update @id failed to apply, @why in a few words. */
int state_failed(const char *id, const char *why);
/* Forget update @id (after undo). */
void state_forget(const char *id);

/* The manifest recorded for applied update @id: 0, or -1 if none. */
int state_manifest(const char *id, struct manifest *m);
/* Why update @id last failed to apply (malloc'ed), or NULL. */
char *state_failure(const char *id);

/*
 * The Debian version the running kernel is at with its applied updates:
 * the highest of the kernel's own (from uname's version, "Debian X") and
 * the NEW of each applied --debian OLD..NEW update; NULL if none is known.
 */
char *state_effective_version(const char *uname_version);

/* "Debian X" in uname's version: X (malloc'ed), or NULL. */
char *debian_version_of(const char *uname_version);

#endif /* _KSPLICE_STATE_H */
