/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-kernel store of installed updates, which the ksplice-updates-<ABI>
 * packages fill and ksplice-apply --installed (ksplice.service, at boot)
 * applies:
 *
 *   /var/lib/ksplice/updates/<uname -r>/<NN>-<id>.tar.gz
 *
 * applied in name order.  The kill switches are "ksplice=off" on the
 * kernel command line and the file /etc/ksplice/disable.
 *
 * For tests: KSPLICE_STORE, KSPLICE_CMDLINE and KSPLICE_DISABLE_FILE
 * replace the three paths.
 */
#ifndef _KSPLICE_INSTALLED_H
#define _KSPLICE_INSTALLED_H

#include <stddef.h>

#define KSPLICE_STORE_DEFAULT		"/var/lib/ksplice/updates"
#define KSPLICE_CMDLINE_DEFAULT		"/proc/cmdline"
#define KSPLICE_DISABLE_DEFAULT		"/etc/ksplice/disable"

/* The store's directory for kernel @release, malloc'ed. */
char *installed_dir(const char *release);

/*
 * The update files installed for @release, sorted, as full paths: 0 with
 * *nr 0 when there are none (no directory is none), else -errno.  Free
 * with free_strv(*files, *nr).
 */
int installed_updates(const char *release, char ***files, size_t *nr);

/*
 * Why updates must not be applied, as words for a sysadmin (a static
 * string), or NULL if they may.
 */
const char *installed_disabled(void);

#endif /* _KSPLICE_INSTALLED_H */
