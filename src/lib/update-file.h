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
 * under a size cap, and a manifest that passes manifest_validate().
 */
#ifndef _KSPLICE_UPDATE_FILE_H
#define _KSPLICE_UPDATE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ksplice-update.h"

/* 2: member_sha256 lines, checked; and the inputs of the build.  1 is
 * still read (without digests: its members are only covered by gzip).
 * 3: cve lines too; written only by an update that has them, so that
 * others stay readable by a ksplice that reads 2.
 * 4: hook lines too; written only by an update that has hooks (one of
 * hooks alone has no function line, which an older ksplice refuses). */
#define UPDATE_FORMAT		2
#define UPDATE_FORMAT_CVES	3
#define UPDATE_FORMAT_HOOKS	4
#define UPDATE_FORMAT_MIN	1
#define UPDATE_FORMAT_MAX	4
#define UPDATE_MANIFEST		"manifest"
#define UPDATE_CORE_MODULE	"ksplice.ko"

/* Caps: far above real sizes, low enough that a hostile file can't fill
 * the disk or memory.  A debug-info ksplice.ko is a few MiB. */
#define UPDATE_MANIFEST_MAX	(1 << 20)
#define UPDATE_MEMBER_MAX	(64 << 20)
#define UPDATE_FILE_MAX		(256 << 20)	/* compressed, and unpacked */
#define UPDATE_VALUE_MAX	512
#define UPDATE_CVES_MAX		4096
#define UPDATE_HOOKS_MAX	(KSPLICE_MAX_HOOKS * KSPLICE_MAX_OBJS)		/* one manifest value (KSYM_NAME_LEN) */

struct manifest {
	int format;		/* UPDATE_FORMAT */
	char *id;		/* [0-9a-z_]{1,KSPLICE_ID_MAX} */
	char *kernel_release;	/* uname -r of the kernel it was built for */
	char *target;		/* "vmlinux" and/or modules, space-separated */
	char *created_by;	/* free text, may be NULL */
	char *replaces;		/* "all" for a cumulative update, else NULL */
	char **functions;	/* kallsyms names of the replaced functions */
	size_t nr_functions;
	/* "KIND FUNCTION": the patch author's hooks (format 4) */
	char **hooks;
	size_t nr_hooks;
	/* "TARGET NAME": the k-th sets __ksplice_load_<k> (ksplice_load_sym) */
	char **load_syms;
	size_t nr_load_syms;
	/* What the update was built from, free text (format 2, optional). */
	struct manifest_inputs {
		char *source;		/* linux-source-6.1=VERSION or tree PATH */
		char *debian;		/* --debian A..B */
		char *patch_sha256;
		char *headers;		/* linux-headers-ABI=VERSION */
		char *compiler;		/* first line of CC --version */
		char *config_sha256;
		char *ksplice_version;
	} in;
	/* CVE-YYYY-N...: what the update fixes (format 3) */
	char **cves;
	size_t nr_cves;
	/* "NAME HEX": a member's SHA-256, read from the file (format 2) */
	char **members;
	size_t nr_members;
};

void manifest_init(struct manifest *m);
void manifest_free(struct manifest *m);
/* Copies @name onto the end of m->functions. */
void manifest_add_function(struct manifest *m, const char *name);
/* Adds a CVE id (once) and makes the format one that has them. */
void manifest_add_cve(struct manifest *m, const char *cve);
/* Adds "@kind @fn" to m->hooks (and makes the format 4). */
void manifest_add_hook(struct manifest *m, const char *kind, const char *fn);
bool cve_id_valid(const char *s);
/* Adds "TARGET NAME" to m->load_syms. */
void manifest_add_load_sym(struct manifest *m, const char *target,
			   const char *name);

/*
 * Parses manifest text into @m (which manifest_init() prepared) and
 * validates it.  Messages name @where.  Returns 0 or -1 after printing.
 */
int manifest_parse(struct manifest *m, const char *text, size_t len,
		   const char *where);
int manifest_validate(const struct manifest *m, const char *where);
/* The manifest as text, malloc'ed; validate first. */
char *manifest_format(const struct manifest *m);

bool update_id_valid(const char *id);
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
