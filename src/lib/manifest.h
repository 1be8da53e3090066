/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The manifest: the update file's "key: value" text that says what an
 * update is (its id, the kernel it was built for, its targets, functions,
 * hooks and load symbols, what it was built from, the CVEs it fixes and
 * the digests of the other members).  The parser is strict: a manifest
 * comes from a file that may have been tampered with, and is read by root.
 */
#ifndef _KSPLICE_MANIFEST_H
#define _KSPLICE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "ksplice-update.h"

/* 2: member_sha256 lines, checked; and the inputs of the build.  1 is
 * still read (without digests: its members are only covered by gzip).
 * 3: cve lines too; written only by an update that has them, so that
 * others stay readable by a ksplice that reads 2.
 * 4: hook lines too; written only by an update that has hooks (one of
 * hooks alone has no function line, which an older ksplice refuses).
 * 5: data lines too (read-only variables patched in place); written only
 * by an update that has them, for the same reason.
 * 6: export lines too (names the update module exports anew); written
 * only by an update that has them. */
#define UPDATE_FORMAT		2
#define UPDATE_FORMAT_CVES	3
#define UPDATE_FORMAT_HOOKS	4
#define UPDATE_FORMAT_DATA	5
#define UPDATE_FORMAT_EXPORTS	6
#define UPDATE_FORMAT_MIN	1
#define UPDATE_FORMAT_MAX	6
/* Caps on values: far above real sizes, low enough that a hostile
 * manifest can't fill memory. */
#define UPDATE_VALUE_MAX	512
#define UPDATE_CVES_MAX		4096
#define UPDATE_EXPORTS_MAX	4096
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
	/* kallsyms names of the read-only variables patched in place (5) */
	char **data;
	size_t nr_data;
	/* "TARGET NAME": names the update publishes, new to the kernel (6) */
	char **exports;
	size_t nr_exports;
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

/* [0-9a-z_]{1,KSPLICE_ID_MAX}: an id, also in module and file names. */
bool update_id_valid(const char *id);

void manifest_init(struct manifest *m);
void manifest_free(struct manifest *m);
/* Copies @name onto the end of m->functions. */
void manifest_add_function(struct manifest *m, const char *name);
/* Adds a CVE id (once) and makes the format one that has them. */
void manifest_add_cve(struct manifest *m, const char *cve);
/* Adds "@kind @fn" to m->hooks (and makes the format 4). */
void manifest_add_hook(struct manifest *m, const char *kind, const char *fn);
/* Adds @name to m->data (and makes the format 5). */
void manifest_add_data(struct manifest *m, const char *name);
/* Adds "@target @name" to m->exports (and makes the format 6). */
void manifest_add_export(struct manifest *m, const char *target,
			 const char *name);
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

#endif /* _KSPLICE_MANIFEST_H */
