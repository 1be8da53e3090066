/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools ask of the running kernel: loading and unloading
 * modules, and the ksplice core's sysfs tree, one directory per update:
 *
 *   <root>/<id>/stage              loaded, applied or reversed; writing
 *                                  "applied"/"reversed" does the work
 *   <root>/<id>/abort_cause        why the last stage change failed
 *   <root>/<id>/abort_detail       ... in the core's words
 *   <root>/<id>/conflicts          "comm pid function" per busy task
 *   <root>/<id>/functions          "name old_addr new_addr" per function
 *   <root>/<id>/max_tries, retry_interval_ms   tunables
 *
 * For tests on a machine where nothing may be loaded:
 *   KSPLICE_SYSFS=DIR         use DIR instead of /sys/kernel/ksplice
 *   KSPLICE_FAKE_MODULES=1    print the module loads and unloads instead
 *                             of doing them (and skip the privilege check)
 */
#ifndef _KSPLICE_KERNEL_H
#define _KSPLICE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#define KSPLICE_SYSFS_DEFAULT	"/sys/kernel/ksplice"
#define SYSFS_VALUE_MAX		(1 << 20)

const char *ksplice_sysfs_root(void);
bool ksplice_fake_modules(void);

/*
 * Returns 0 if we may load and unload modules (CAP_SYS_MODULE), else
 * prints "<progname>: must be run as root (CAP_SYS_MODULE)" and
 * returns -1.  Asks the kernel for our capabilities rather than
 * checking the uid: root may have dropped it, and a non-root may hold it.
 */
int check_module_privilege(void);

/* finit_module(): 0 or -errno (-EEXIST: a module of that name is loaded). */
int module_load(const char *path);
/* Is module @name loaded (or built in with a /sys/module entry)? */
bool module_present(const char *name);
/* The modules using module @name's exports, space-separated, or NULL. */
char *module_holders(const char *name);
/* modprobe @name; 0 or its exit status.  Honours KSPLICE_FAKE_MODULES. */
int module_probe(const char *name);
/* delete_module(O_NONBLOCK): 0 or -errno (-ENOENT: not loaded). */
int module_unload(const char *name);
/* Words for a sysadmin about a failed load, after strerror(). */
const char *module_load_hint(int err);

/*
 * What the kernel logs while a module loads: kmsg_mark() before, an fd
 * at the end of /dev/kmsg (-1 if it cannot be read); kmsg_show() after,
 * prints as notes the new records containing @word, closes the fd and
 * returns how many it printed.
 */
int kmsg_mark(void);
int kmsg_show(int fd, const char *word);

/* "<root>/<id>/<attr>" (or "<root>/<id>" if @attr is NULL), malloc'ed. */
char *sysfs_path(const char *id, const char *attr);
bool sysfs_core_present(void);
bool sysfs_update_present(const char *id);

/* Reads an attribute, trailing newlines removed.  0 or -errno. */
int sysfs_read(const char *id, const char *attr, char **value);
/*
 * Writes "<value>\n" in one write(2), as sysfs wants.  0 or -errno: a
 * store that fails (the core refusing a stage change) shows up here.
 */
int sysfs_set_tunable(const char *id, const char *attr, const char *value);
int sysfs_write(const char *id, const char *attr, const char *value);

/*
 * The ids of the updates the core knows, sorted: the subdirectories of
 * the root with a valid id as name.  No root means no updates.
 * 0 or -errno; free with free_strv(ids, nr).
 */
int sysfs_list_updates(char ***ids, size_t *nr);

/*
 * The function names from the "functions" attribute (first field of each
 * line), as a NULL-terminated array for free_strv(v, -1), or NULL if it
 * cannot be read.
 */
char **sysfs_function_names(const char *id);

enum ksplice_op { KSPLICE_OP_APPLY, KSPLICE_OP_REVERSE };

/*
 * After a failed stage change of update @id: reads abort_cause,
 * abort_detail and conflicts and explains on stderr, in a sysadmin's
 * words, what went wrong and what to do.  @write_err is the -errno of
 * the stage write (0 if it seemed to succeed), @stage what stage reads
 * now (NULL if unreadable).
 */
void explain_abort(enum ksplice_op op, const char *id, int write_err,
		   const char *stage);

#endif /* _KSPLICE_KERNEL_H */
