/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSPLICE_PATCHFILE_H
#define KSPLICE_PATCHFILE_H

#include <stddef.h>

struct patch_files {
	char **paths;			/* relative to the tree, -p1 */
	size_t nr;
};

int patch_files_read(const char *patch, struct patch_files *pf);
/* The same, for undoing @patch: two diffs of one file are not refused. */
int patch_files_named(const char *patch, struct patch_files *pf);
void patch_files_free(struct patch_files *pf);

#endif
