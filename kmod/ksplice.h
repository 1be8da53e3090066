/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the ksplice core.
 */
#ifndef _KSPLICE_H
#define _KSPLICE_H

#include <linux/hashtable.h>
#include <linux/kobject.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/stop_machine.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/tracepoint.h>
#include "ksplice-update.h"
#include "arch.h"

#define KSPLICE_DETAIL_LEN	256
#define KSPLICE_MAX_CONFLICTS	64
#define KSPLICE_MAX_CANDIDATES	32
#define KSPLICE_MAX_EXPECT	KSPLICE_MAX_CODE
#define KSPLICE_DEFAULT_TRIES	5
#define KSPLICE_MAX_STACK	16	/* updates on one function */
#define KSPLICE_MAX_USES	16	/* updates whose functions one uses */
#define KSPLICE_DEFAULT_INTERVAL_MS	1000
#define KSPLICE_MAX_JUMP_PINS	2	/* 2-byte jump labels in a jump */

enum ksplice_stage {
	KSPLICE_STAGE_LOADED,
	KSPLICE_STAGE_APPLIED,
	KSPLICE_STAGE_REVERSED,
};

enum ksplice_abort {
	KSPLICE_ABORT_NONE,
	KSPLICE_ABORT_NO_MATCH,
	KSPLICE_ABORT_CODE_BUSY,
	KSPLICE_ABORT_FAILED_TO_FIND,
	KSPLICE_ABORT_BAD_UPDATE,
	KSPLICE_ABORT_ALREADY_APPLIED,
	KSPLICE_ABORT_NOT_APPLIED,
	KSPLICE_ABORT_UNPATCHABLE,
	KSPLICE_ABORT_OUT_OF_MEMORY,
	KSPLICE_ABORT_UNEXPECTED,
	KSPLICE_ABORT_REFUSED,		/* by a hook of the update */
	KSPLICE_ABORT_PROBED,		/* a kprobe in the code */
	KSPLICE_ABORT_EXPORTS,		/* its exports clash, or are in use */
};

/* What covers a byte of pre code, for matching. */
enum ksplice_mask {
	KSPLICE_MASK_CODE = 0,
	KSPLICE_MASK_RELOC,
	KSPLICE_MASK_SITE,
};

/* name -> address learned from the running code, per target. */
struct ksplice_bindings {
	DECLARE_HASHTABLE(tab, 8);
};

struct jump_entry;
struct ksplice_prewalk;

/* A jump label site under a function's jump (jump_pin.c). */
struct ksplice_jump_pin {
	struct jump_entry *entry;	/* in vmlinux's __jump_table */
	unsigned int off;		/* of the site in the jump */
	unsigned int len;		/* of the site, as the kernel sees it */
	bool held;			/* its init bit is set, by us */
};

/* Per function: what validation derived and what apply needs. */
struct ksplice_fstate {
	u8 *mask;			/* enum ksplice_mask per pre byte */
	unsigned int *site_rel;		/* index of each site's pre reloc */
	u8 *site_len;			/* length of each site */
	unsigned int patch_off;		/* where the jump goes */
	bool ftrace_site;		/* at the entry: ftrace can redirect */

	unsigned long old_addr;		/* matched, 0 before */
	unsigned long run_addr;		/* the code matched: old_addr, or the
					 * new code of the update below */
	unsigned int stock_size;	/* of the code at old_addr */
	u64 seq;			/* when its jump was written (stack.c) */
	unsigned long patch_addr;
	u8 before[KSPLICE_JMP_LEN];	/* running bytes there at matching */
	u8 saved[KSPLICE_JMP_LEN];	/* what undo puts back: the same, or
					 * the stock bytes for a replace */
	u8 jmp[KSPLICE_JMP_LEN];
	bool live;			/* its jump is in the running code */
	bool via_ftrace;		/* no room for the jump: redirect.c */
	struct ksplice_redirect *rd;	/* registered, while via_ftrace */
	struct ksplice_redirect *over;	/* via_ftrace on top of another
					 * update: its redirection, which
					 * this one retargets */
	struct ksplice_jump_pin jump_pins[KSPLICE_MAX_JUMP_PINS];
	unsigned int nr_jump_pins;	/* sites under the jump, pinned
					 * while it is in */
};

/*
 * Per read-only variable patched in place (data.c): shared by the
 * update and its views, so that what an apply in a view did stays.
 */
struct ksplice_dstate {
	unsigned long addr;		/* the running variable, 0 if unknown */
	u8 *pre;			/* the images, resolved for @addr */
	u8 *post;
	struct page **pages;		/* under @addr, while @alias is */
	void *alias;			/* a writable mapping of them */
	bool sel;			/* in the operation under way */
	bool live;			/* the post image is in */
	bool into_update;		/* a post image pointed into it */
	u64 seq;			/* when it went live, as fs->seq */
};

struct ksplice_conflict {
	char comm[TASK_COMM_LEN];
	pid_t pid;
	const char *func;
};

struct ksplice_conflicts {
	struct ksplice_conflict c[KSPLICE_MAX_CONFLICTS];
	unsigned int nr;		/* may exceed the array */
	u64 check_ns;			/* how long the stack walk took */
};

/* Code no task may be in, sorted by start. */
struct ksplice_range {
	unsigned long start;
	unsigned long end;		/* inclusive: see safety.c */
	unsigned long max_end;		/* of this and all before */
	const char *name;
};

struct ksplice_ranges {
	unsigned int nr;
	struct ksplice_range r[];
};

/* An applied update whose added function @name an update uses (added.c). */
struct ksplice_use {
	struct ksplice_core *core;
	const char *name;
};

struct ksplice_core {
	struct kobject kobj;
	struct list_head list;		/* in ksplice_updates */
	struct ksplice_update *update;
	struct ksplice_fstate *fs;	/* one per update->funcs */
	struct ksplice_dstate *ds;	/* one per update->data; a view's is
					 * its update's */
	struct ksplice_bindings bindings;
	bool holds_ref;			/* on the update module */
	bool draining;			/* undone, its code maybe in use (drain.c) */
	struct delayed_work drain;
	unsigned long drain_delay;	/* jiffies to the next check */

	/* Status, under status_lock: read by sysfs while work runs. */
	struct mutex status_lock;
	enum ksplice_stage stage;
	enum ksplice_abort cause;
	char detail[KSPLICE_DETAIL_LEN];
	struct ksplice_conflicts conflicts;
	u64 pause_ns;			/* last stop_machine callback */

	unsigned int max_tries;
	unsigned int retry_interval_ms;
	u64 seq;			/* when it was applied (stack.c) */
	bool replacing;			/* a view applying a replace update */
	/* hooks.c: objects whose apply hooks of each kind ran (bit i: objs[i]) */
	u64 hooks_ran[KSPLICE_HOOK_MAX];
	u64 hook_objs;			/* a view's: whose stop hooks run */
	struct ksplice_use uses[KSPLICE_MAX_USES];
	unsigned int nr_uses;
	struct ksplice_prewalk *prewalk;	/* a view's, made before its
						 * pre-apply hooks (prewalk.c) */
	bool exports_live;		/* its exports published (exports.c) */
	struct module *exports_pin;	/* the module target they hold */
};

/*
 * A jump of a replaced update taken out by a replace update (replace.c),
 * or, with @off set, a redirection through ftrace switched off.
 */
struct ksplice_write {
	unsigned long addr;
	u8 before[KSPLICE_JMP_LEN];
	u8 after[KSPLICE_JMP_LEN];
	struct ksplice_redirect *off;
};

struct ksplice_writes {
	unsigned int nr;
	struct ksplice_write w[];
};

/* Kernel functions and data not exported to modules (symbols.c). */
struct ksplice_kernel {
	void *(*text_poke)(void *addr, const void *opcode, size_t len);
	struct mutex *text_mutex;
	struct mutex *module_mutex;
	int (*on_each_match_symbol)(int (*fn)(void *, unsigned long),
				    const char *name, void *data);
	const char *(*kallsyms_lookup)(unsigned long addr, unsigned long *size,
				       unsigned long *offset, char **modname,
				       char *namebuf);
	bool (*is_ftrace_trampoline)(unsigned long addr);
	struct module *(*find_module)(const char *name);
	struct module *(*module_address)(unsigned long addr);
	int (*stop_machine_cpuslocked)(cpu_stop_fn_t fn, void *data,
				       const struct cpumask *cpus);
	struct task_struct *(*idle_task)(int cpu);
	int (*jump_label_reserved)(void *start, void *end);
	int (*static_call_reserved)(void *start, void *end);
	struct kprobe *(*get_kprobe)(void *addr);
	void (*jump_label_lock)(void);
	void (*jump_label_unlock)(void);
	struct jump_entry *start_jump_table;	/* vmlinux's __jump_table */
	struct jump_entry *stop_jump_table;
	void (*put_task_stack)(struct task_struct *t);
	struct tracepoint *tp_sched_switch;
	struct tracepoint *tp_sched_fork;
};

extern struct ksplice_kernel ksplice_k;
extern struct mutex ksplice_mutex;
extern struct list_head ksplice_updates;

/* symbols.c */
int ksplice_symbols_init(void);
unsigned long ksplice_lookup_name(const char *name);
int ksplice_sym_addrs(const char *target, const char *name,
		      unsigned long *addrs, int max);
bool ksplice_sym_is(const char *target, const char *name, unsigned long addr);
int ksplice_sym_unique(const char *target, const char *name,
		       unsigned long *addr);
int ksplice_sym_export(const char *target, const char *name,
		       unsigned long *addr);
bool ksplice_sym_start_name(unsigned long addr, char *buf);
bool ksplice_is_vmlinux(const char *target);
bool ksplice_target_present(const char *name);

/* redirect.c */
extern bool ksplice_prefer_ftrace;
int ksplice_redirect_arm(struct ksplice_fstate *fs,
			 const struct ksplice_func *f);
void ksplice_redirect_disarm(struct ksplice_fstate *fs);
void ksplice_redirect_switch(struct ksplice_fstate *fs, bool on);
void ksplice_redirect_retarget(struct ksplice_redirect *rd, unsigned long to);
void ksplice_redirect_off(struct ksplice_redirect *rd);
void ksplice_redirect_sync(void);

/* jump_pin.c */
int ksplice_jump_pin_find(struct ksplice_core *core,
			  const struct ksplice_func *f,
			  struct ksplice_fstate *fs);
int ksplice_jump_pins_take(struct ksplice_core *core, bool undo);
void ksplice_jump_pins_put(struct ksplice_core *core, bool undo, bool done);

/* pins.c */
int ksplice_pins_take(const struct ksplice_update *u, char *why, size_t len);
void ksplice_pins_release(struct module *update_mod);

/* bindings.c */
void ksplice_bindings_init(struct ksplice_bindings *b);
void ksplice_bindings_clear(struct ksplice_bindings *b);
bool ksplice_binding_get(struct ksplice_bindings *b,
			 const struct ksplice_func *f, const char *name,
			 unsigned long *addr);
int ksplice_binding_add(struct ksplice_bindings *b,
			const struct ksplice_func *f, const char *name,
			unsigned long addr);
void ksplice_bindings_move(struct ksplice_bindings *to,
			   struct ksplice_bindings *from);
int ksplice_bindings_each(struct ksplice_bindings *b,
			  int (*fn)(void *data, const char *target,
				    const char *name, unsigned long addr),
			  void *data);

/* added.c */
struct ksplice_core *ksplice_added_by(const char *target, const char *name,
				      const char *unit, unsigned long addr);
unsigned long ksplice_added_addr(const char *target, const char *name,
				 const char *unit);
int ksplice_added_addrs(const char *target, const char *name,
			const char *unit, unsigned long *addrs, int max);
int ksplice_added_use(struct ksplice_core *core, struct ksplice_core *used,
		      const char *name);
int ksplice_added_uses_bound(struct ksplice_core *core);
void ksplice_added_forget(const struct ksplice_core *core);
int ksplice_added_check_reverse(struct ksplice_core *core);

/* validate.c */
int ksplice_validate(struct ksplice_update *u, char *why, size_t len);
void ksplice_objects_free(struct ksplice_update *u);
int ksplice_fstates_build(struct ksplice_core *core, char *why, size_t len);
void ksplice_fstates_free(struct ksplice_core *core);

/* match.c */
int ksplice_match_all(struct ksplice_core *core);
unsigned long ksplice_kprobe_in(unsigned long start, unsigned long end);

/* data.c */
int ksplice_dstates_build(struct ksplice_core *core, char *why, size_t len);
void ksplice_dstates_free(struct ksplice_core *core);
unsigned int ksplice_data_select(struct ksplice_core *core, const char *target,
				 bool undo);
int ksplice_data_prepare(struct ksplice_core *core, bool undo);
void ksplice_data_finish(struct ksplice_core *core, bool undo, int ret);
int ksplice_data_check(const struct ksplice_core *core, bool undo);
void ksplice_data_write(const struct ksplice_core *core, bool undo);
int ksplice_data_stale(struct ksplice_core *core, int i, bool undo);
bool ksplice_data_in(const struct ksplice_core *core, const char *target);
int ksplice_data_check_replace(struct ksplice_core *core);
void ksplice_data_going(struct ksplice_core *core, const char *target);
bool ksplice_data_into_update(const struct ksplice_core *core);

/* drain.c */
void ksplice_drain_init(struct ksplice_core *core);
void ksplice_drain_cancel(struct ksplice_core *core);
void ksplice_drain(struct ksplice_core *core);

/* reloc.c */
int ksplice_reloc_sym(struct ksplice_core *core, const struct ksplice_func *f,
		      const struct ksplice_reloc *r, unsigned long *sym);
int ksplice_reloc_unresolved(struct ksplice_core *core,
			     const struct ksplice_func *f,
			     const struct ksplice_reloc *r, int ret,
			     unsigned long *sym);
bool ksplice_view_has_target(const struct ksplice_core *core,
			     const char *target);
int ksplice_relocate_all(struct ksplice_core *core);

/* stack.c: one function's updates, oldest first */
struct ksplice_stack_entry {
	struct ksplice_core *core;
	unsigned int idx;		/* into core->fs */
};

u64 ksplice_stack_next_seq(void);
unsigned int ksplice_stack_get(unsigned long old_addr,
			       struct ksplice_stack_entry *out,
			       unsigned int max);
unsigned int ksplice_stack_top(unsigned long old_addr,
			       struct ksplice_stack_entry *top);
struct ksplice_core *ksplice_stack_above(const struct ksplice_core *core,
					 unsigned int i);
int ksplice_stack_check_reverse(struct ksplice_core *core);
unsigned long ksplice_stack_copy_of(const char *target, const char *name,
				    unsigned long addr);

/* replace.c */
struct ksplice_writes *ksplice_replace_writes(struct ksplice_core *core);
unsigned int ksplice_replaced_ranges(struct ksplice_range *r);
void ksplice_replace_done(struct ksplice_core *core);

/* safety.c */
unsigned int ksplice_added_ranges(const struct ksplice_core *core,
				  struct ksplice_range *r);
struct ksplice_ranges *ksplice_ranges_build(struct ksplice_core *core,
					    bool undo);
const char *ksplice_walk_task(const struct ksplice_ranges *rs,
			      struct task_struct *t);
void ksplice_conflict(struct ksplice_conflicts *out, struct task_struct *t,
		      const char *func);
void ksplice_check_task(const struct ksplice_ranges *rs, struct task_struct *t,
			struct ksplice_conflicts *out);
void ksplice_check_stacks(const struct ksplice_ranges *ranges,
			  struct ksplice_prewalk *pw,
			  struct ksplice_conflicts *out);

/* prewalk.c */
void ksplice_prewalk_init(void);
void ksplice_prewalk_exit(void);
struct ksplice_prewalk *ksplice_prewalk(struct ksplice_core *core, bool undo);
struct ksplice_prewalk *ksplice_prewalk_take(struct ksplice_core *core,
					     bool undo);
void ksplice_prewalk_free(struct ksplice_prewalk *pw);
bool ksplice_prewalk_check(struct ksplice_prewalk *pw,
			   const struct ksplice_ranges *rs,
			   struct ksplice_conflicts *out);

/* exports.c */
u64 ksplice_exports_objs(const struct ksplice_update *u, const char *target);
const char *ksplice_exports_clash(const struct ksplice_core *core, u64 objs);
void ksplice_exports_publish(struct ksplice_core *core, u64 objs);
int ksplice_exports_withdraw(struct ksplice_core *core, bool force);
void ksplice_exports_restore(struct ksplice_core *core);

/* hooks.c */
int ksplice_hooks_validate(const struct ksplice_object *o, char *why,
			   size_t len);
bool ksplice_hooks_in(const struct ksplice_update *u, const char *name);
bool ksplice_update_has_hooks(const struct ksplice_update *u);
bool ksplice_object_runs(const struct ksplice_update *u, const char *name);
u64 ksplice_hooks_objs(const struct ksplice_update *u, const char *target);
void ksplice_hooks_run(const struct ksplice_update *u, unsigned int kind,
		       u64 objs);
int ksplice_hooks_check(struct ksplice_core *core, unsigned int kind,
			u64 objs, u64 *passed);
void ksplice_hooks_stop(struct ksplice_core *core, bool undo);
void ksplice_hooks_going(struct ksplice_core *core, const char *name);

/* patch.c */
int ksplice_patch(struct ksplice_core *core, bool undo);

/* core.c */
int ksplice_set_abort(struct ksplice_core *core, enum ksplice_abort cause,
		      const char *fmt, ...) __printf(3, 4);
void ksplice_set_stage(struct ksplice_core *core, enum ksplice_stage stage);
void ksplice_put_ref(struct ksplice_core *core);
int ksplice_apply(struct ksplice_core *core);
int ksplice_reverse(struct ksplice_core *core);

/* sysfs.c */
int ksplice_sysfs_init(void);
void ksplice_sysfs_exit(void);
int ksplice_sysfs_add(struct ksplice_core *core);
void ksplice_sysfs_del(struct ksplice_core *core);
void ksplice_sysfs_put(struct ksplice_core *core);
const char *ksplice_stage_name(enum ksplice_stage stage);
const char *ksplice_abort_name(enum ksplice_abort cause);

#endif /* _KSPLICE_H */
