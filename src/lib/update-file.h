/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The update file: what ksplice-create writes and ksplice-apply reads.
 *
 * A gzip-compressed tar with exactly three regular files:
 *
 *   manifest          "key: value" lines describing the update
 *   ksplice_<id>.ko   the update module
 *   ksplice.ko        the core module, built for the same kernel
 *
 * Update files travel between machines and are handled as root, so the
 * reader trusts nothing: it checks the gzip CRC before looking inside,
 * then accepts only those three names, only regular files, each once and
 * under a size cap, and a manifest that passes manifest_validate()
 * (manifest.h).
 */
#ifndef _KSPLICE_UPDATE_FILE_H
#define _KSPLICE_UPDATE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ksplice-update.h"
#include "manifest.h"

#define UPDATE_MANIFEST		"manifest"
#define UPDATE_CORE_MODULE	"ksplice.ko"

/* Caps: far above real sizes, low enough that a hostile file can't fill
 * the disk or memory.  A debug-info ksplice.ko is a few MiB. */
#define UPDATE_MANIFEST_MAX	(1 << 20)
#define UPDATE_MEMBER_MAX	(64 << 20)
#define UPDATE_FILE_MAX		(256 << 20)	/* compressed, and unpacked */

/* "ksplice_<id>": the update module's name, as lsmod shows it. */
char *update_module_name(const char *id);
/* "ksplice_<id>.ko": its member name in the update file. */
char *update_module_file(const char *id);

/*
 * Writes the update file @path from @m and @files, a NULL-terminated
 * list of paths whose base names must be exactly ksplice_<id>.ko and
 * ksplice.ko.  Writes to a temporary file beside @path and renames it,
 * so @path is either the old file or a complete new one.  Members get
 * fixed metadata (time 0, root, 0644) in a fixed order, and the manifest
 * gets a member_sha256 line for each module: same inputs, same bytes.
 * Returns 0 or -1 after printing why.
 */
int update_file_write(const char *path, const struct manifest *m,
		      const char *const *files);

/*
 * Checks @path and extracts its members into @dir, which must exist and
 * should be a fresh private directory (make_temp_dir()): members are
 * created O_EXCL, so nothing in @dir is overwritten.  Fills @m (which
 * need not be initialised; manifest_free() it on success).  Returns 0, or
 * -1 after printing why; @dir may then hold partial files to remove.
 */
int update_file_extract(const char *path, const char *dir,
			struct manifest *m);

/* The recorded SHA-256 of member @name in @m, or NULL. */
const char *manifest_member_sha256(const struct manifest *m, const char *name);


#endif /* _KSPLICE_UPDATE_FILE_H */
