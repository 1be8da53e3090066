/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of ksplice-create: its options and its work, shared by main.c
 * (the flow), units.c (which units, compiled and diffed) and package.c
 * (the modules built and packed into the update file).
 */
#ifndef KSPLICE_CREATE_H
#define KSPLICE_CREATE_H

#include "build.h"
#include "emit.h"
#include "patchfile.h"
#include "update-file.h"
#include "util.h"

/*
 * Units compiled for a header: each takes seconds, twice (those that only
 * include it are preprocessed first, and kept only if their code can change).
 */
#define DEFAULT_MAX_UNITS	400

struct options {
	const char *build;
	const char *config;
	const char *id;
	const char *outdir;
	const char *patch;
	const char *source;
	const char *debian;		/* --debian A..B[:PATH,...] */
	char *debian_since;		/* ... its A */
	char *debian_changelog;		/* ... B's Debian changelog */
	const char *list_cves;		/* --list-cves A..B */
	bool keep;
	const char *diff_pre;		/* --diff-objects PRE POST */
	bool refs;			/* --refs: and where new code's go */
	bool diff_cpp;			/* --diff-cpp PRE POST */
	size_t max_units;
	size_t max_reach;		/* 0: preprocess every includer */
	bool list_units;		/* --list-units */
	const char *verify;		/* --verify UPDATE */
	bool replace;			/* --replace: a cumulative update */
	const char *sign_key;		/* --sign-key, with --sign-cert */
	const char *sign_cert;
	bool no_ccache;			/* --no-ccache */
};

struct work {
	struct options *o;
	char *dir;			/* temporary */
	char *log;
	char *release;
	struct tree tree;
	struct patch_files files;
	struct strv units;		/* fs/proc/cmdline.o */
	struct strv probes;		/* includers kept for distinct reasons */
	bool regenerates;		/* what `prepare` makes from C may change */
	size_t data_changes;		/* existing variables the patch changes */
	size_t table_changes;		/* entries of boot tables it changes */
	size_t new_exports;		/* exports the update carries (newexports.c) */
	const char *exports_target;	/* their object */
	size_t hook_errors;		/* units whose hooks are not usable */
	struct update update;
	struct exports exports;
	struct load_syms load_syms;
	char *cache;			/* ~/.cache/ksplice */
	struct manifest_inputs in;	/* what it is built from */
};

/* inputs.c */
int inputs_record(struct work *w);
char *inputs_id(const struct work *w);

/* units.c */
int units_pick(struct work *w);
int units_compile(struct work *w);
int units_diff(struct work *w);

/* preprocess.c */
#define CPP_FAILED_PRE "does not preprocess without the patch"
int preprocess_compare(char *const *cmds, size_t nr, const char *src,
		       const char *post, const char *obj, const char *cache,
		       bool *differs, char **why, size_t *cached);

/* package.c */
int package_build(struct work *w, const char *data);
int package_write(struct work *w);
char *update_file_path(const struct work *w);

/* sign.c */
int sign_check_args(const struct options *o);
int sign_modules(const struct options *o, const char *const *files);

/* main.c */
/* kmod/, include/ and scripts/ of this installation (malloc'ed). */
char *data_dir(void);

/* debian.c */
/* --debian A..B[:PATH,...]: sets o->patch, o->source and the changelog. */
int debian_patch(struct options *o, const char *workdir);
/* Splits "A..B[:PATH,...]" into two Debian versions; -1 after a message. */
int debian_range(const char *range, char **a, char **b);
/* --list-cves A..B: prints them. */
int list_cves(const char *range);
/* Adds to @m the CVE ids of @changelog's entries after version @since. */
int debian_cves(const char *changelog, const char *since, struct manifest *m);
/* The Debian changelog of linux-source @version, via fetch-source. */
char *debian_changelog(const char *fetch_source, const char *version);
int create(struct work *w);

/* verify.c */
int verify_update(struct work *w, const char *path);

#endif
