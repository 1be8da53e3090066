/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSPLICE_DEBVERSION_H
#define _KSPLICE_DEBVERSION_H

/*
 * Compares two Debian versions ([epoch:]upstream[-revision]) in dpkg's
 * order (deb-version(7)): <0, 0 or >0.  dpkg's own algorithm, so that
 * ksplice-uname needs no dpkg (the test rig's guest has none).
 */
int debversion_cmp(const char *a, const char *b);

#endif /* _KSPLICE_DEBVERSION_H */
