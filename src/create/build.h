/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds: the prepared kernel tree (a cached copy of the source, configured
 * like the target, with Kbuild's O= objects), single units compiled in it,
 * and modules built with Kbuild against the target's build dir.
 */
#ifndef KSPLICE_BUILD_H
#define KSPLICE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct unit_list;

struct tree {
	const char *source;		/* the user's tree; never written */
	const char *config;
	const char *cc;
	char *dir;			/* cache: <cache>/trees/<key>[.N] */
	char *home;			/* <cache>/trees/<key>: shared caches */
	char *src;			/* <dir>/src: hard links to @source */
	char *obj;			/* <dir>/obj: Kbuild O= */
	char *log;			/* where command output goes */
	int lock_fd;
	struct unit_list *units;	/* read once, by tree_units() */
	char **env;			/* compiles run under it (ccache.h) */
};

/* The compiler the target was built with, from CONFIG_CC_VERSION_TEXT. */
char *build_config_cc(const char *config);

/*
 * The prepared tree (cached); TREE_BAD_CONFIG, with a message said, if
 * the source cannot build @t->config exactly (see config.h), else -1 on
 * failure (the log says why).
 */
#define TREE_BAD_CONFIG 1
int tree_prepare(struct tree *t, const char *cache, const char *log);
void tree_release(struct tree *t);

/* Applies (or, with @reverse, removes) a -p1 patch in the tree's copy. */
int tree_patch(struct tree *t, const char *patch, bool reverse, bool dry_run);

/*
 * Every file @patch names put back in the tree as the source has it
 * (patch(1)'s .rej and .orig of them removed), and checked; says so,
 * with @why, on stderr.  -1, each file that could not be named, if not.
 */
int tree_restore(const struct tree *t, const char *patch, const char *why);

/*
 * Compiles @units (e.g. fs/proc/cmdline.o) for live patching and copies
 * each to @dests[i]; @failed[i] says which did not compile.
 */
int tree_compile(struct tree *t, char *const *units, size_t nr,
		 char *const *dests, bool *failed, bool direct);

/*
 * Every C unit the configuration builds, from a Kbuild dry run (cached,
 * and read once per create).
 */
int tree_units(struct tree *t, struct strv *units);
/*
 * The gcc -E of unit @i of tree_units()' list (NULL past its end), and
 * Kbuild's recipe for @unit ("" if unknown), to run in t->obj; valid
 * until tree_release().
 */
const char *tree_unit_command(const struct tree *t, size_t i);
const char *tree_unit_recipe(const struct tree *t, const char *unit);

/* Kbuild's command line making @unit, as the gcc -E of its source. */
char *build_cpp_command(const char *cmd, size_t len, const char *unit);

/* <dir>/post: the tree with @patch applied (hard links); NULL on failure. */
char *tree_post_copy(struct tree *t, const char *patch);
void tree_post_remove(struct tree *t, char *post);

/* "vmlinux", or the module the unit was compiled into (malloc'ed). */
char *tree_unit_target(const struct tree *t, const char *unit_o);

int kbuild_module(const char *build, const char *dir, const char *extra_symvers,
		  const char *log);

int run_logged(char *const argv[], const char *log);
int run_logged_in(char *const argv[], const char *log, const char *dir);

/* genksyms' "#SYMVER name crc" lines of @unit's exports into @out. */
int tree_symvers(const struct tree *t, const char *unit, const char *out);

/* Puts the file @from at include/@rel of the tree (unless it is there). */
int tree_add_header(struct tree *t, const char *from, const char *rel);

#endif
