/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks and shadow data for the author of a ksplice patch.
 *
 * A patch that only changes what functions do needs nothing from here.
 * One that must also change live state (a variable's value, a field the
 * running objects lack) includes this header in the patched source:
 *
 *	#include <ksplice/hooks.h>
 *
 * ksplice-create puts it on the include path of every unit it compiles.
 * What follows is the contract; the README's "Writing patches" section
 * has worked examples.
 *
 * HOOKS
 *
 * A hook is a function the patch adds to a unit, registered with one of
 * the six macros below.  It is new code: carried by the update, never
 * matched against the running kernel, and never run by the kernel on its
 * own.  Its unit's target (vmlinux, or the module the unit is built into)
 * is the hook's object; the hooks of an object run when that object is
 * patched or unpatched:
 *
 *  - vmlinux: when the update is applied (ksplice-apply) and undone
 *    (ksplice-undo);
 *  - a module: at apply and undo if the module is loaded then; when it
 *    loads while the update is applied (after the update's jumps are in
 *    its code and before its init runs); when it unloads while the
 *    update is applied (after its exit ran, before its memory is freed).
 *
 * An update may consist of hooks alone (a new default set by stop hooks,
 * say, with no function changed): it replaces nothing, and applying and
 * undoing it runs its hooks as below.  A patch that neither changes a
 * function nor registers a hook is refused as nothing to update.
 *
 * The order, for one object, is
 *
 *	pre-apply, stop-apply, post-apply	(applying)
 *	pre-undo, stop-undo, post-undo		(undoing)
 *
 * and over several objects of one update: each step for every object
 * (in the order of the update's objects: vmlinux first, then the
 * modules in the order of their units) before the next step.  Several
 * hooks of one kind in one object run in the order of their units and,
 * in a unit, of their registrations.
 *
 * Hooks run in pairs, as the mirror of each other:
 *
 *	pre-apply  <->  post-undo
 *	stop-apply <->  stop-undo
 *	post-apply <->  pre-undo
 *
 * An undo hook runs only if its apply hook ran for that object (and
 * then exactly once), so a hook that sets something up may count on its
 * mirror to take it down, and on nothing else.  In particular:
 *
 *  - a pre-apply hook that refuses: no other hook of that update runs
 *    for that apply, except the post-undo hooks of the objects whose
 *    pre-apply hooks had all succeeded before it;
 *  - an apply that fails after the pre-apply hooks (tasks in the code
 *    being replaced, say): the post-undo hooks of those objects run,
 *    and nothing was changed;
 *  - a pre-undo hook that refuses: the update stays applied, and the
 *    objects whose pre-undo hooks had all passed get their post-apply
 *    hooks again (the mirror), so the state is as it was;
 *  - an undo that fails after the pre-undo hooks: the same;
 *  - the update module unloaded by force (rmmod -f) while applied: the
 *    undo goes on even if a pre-undo hook refuses (its code is going).
 *
 * The hooks of one kind of one object are one step: if one of them
 * refuses, the object's step did not happen and its mirror will not
 * run, for the hooks before it either.  So a pre-apply hook should only
 * check; what needs taking down is set up by stop- or post-apply.
 *
 * A replace update (ksplice-create --replace) takes over the state of
 * the updates it replaces: their undo hooks never run, and its apply
 * hooks find what theirs set up.
 *
 * The hooks of one update never run concurrently with each other, with
 * another update's, or with the core applying or undoing anything: they
 * run under the core's mutex (and stop-* ones inside stop_machine).
 *
 * KSPLICE_PRE_APPLY(fn), KSPLICE_PRE_UNDO(fn)
 *	int fn(char *why, size_t len)
 *	Process context, may sleep, may allocate with GFP_KERNEL.  Returns
 *	0 to go on, or a negative errno to refuse: nothing is changed (for
 *	a module loading after the update was applied: the load fails),
 *	and the message the hook wrote into @why (at most @len bytes,
 *	snprintf) is what ksplice-apply, ksplice-undo and
 *	/sys/kernel/ksplice/<id>/abort_detail say.  The jumps are not
 *	there yet (pre-apply) / still there (pre-undo): the old code
 *	(pre-apply) or the new one (pre-undo) may be running on other CPUs
 *	meanwhile.  Pre-apply runs once the running code matched and the
 *	new code (the hooks included) is relocated: it may use what any
 *	new code may use (below).  A pre-undo hook cannot refuse a module's unload: there
 *	its return value is ignored (with a warning in the kernel log).
 *
 * KSPLICE_STOP_APPLY(fn), KSPLICE_STOP_UNDO(fn)
 *	void fn(void)
 *	Inside the stop_machine() that writes (removes) the jumps, on one
 *	CPU, with interrupts off and every other CPU spinning: no sleeping,
 *	no locks that may be held by the interrupted kernel (no mutexes, no
 *	GFP_KERNEL, no spinlock a stopped task may hold), no waiting for
 *	other CPUs.  Keep it short (it adds to the pause).  stop-apply runs
 *	right after the jumps are written and stop-undo right before they
 *	are removed: what they do and the change of code are one step for
 *	every other task, which is what a state swap needs (a variable the
 *	new code reads with a new meaning).  Cannot fail.  A retried apply
 *	(tasks were in the code) runs them only in the stop that succeeds.
 *	For a module unloading there are no jumps to remove; stop-undo
 *	still runs in a stop_machine of its own.
 *
 * KSPLICE_POST_APPLY(fn), KSPLICE_POST_UNDO(fn)
 *	void fn(void)
 *	Process context, may sleep.  The new code is in place (post-apply)
 *	/ the old code is back and no task is inside the new code
 *	(post-undo): post-undo is where what the new code used is freed.
 *	Cannot fail.
 *
 * A hook may use what any new code may use: the unit's statics (the
 * running ones), the kernel's exports, the update's new functions and
 * variables.  It should not rely on anything of another object.
 *
 * SHADOW DATA
 *
 * A new field for objects the running kernel already has (and that its
 * unpatched code allocates with the old size) lives in a shadow
 * variable: memory attached to the object's address under an id, found
 * again by (object, id).  The wrappers below are the kernel's
 * klp_shadow_* (kernel/livepatch/shadow.c; CONFIG_LIVEPATCH, which
 * Debian's kernels have); see Documentation/livepatch/shadow-vars.rst for
 * their locking.  ksplice_shadow_get() and ksplice_shadow_free() may be
 * called in any context; the allocating ones with gfp flags that suit
 * the caller.
 *
 * Ids are shared with livepatch and every other update: make them with
 * KSPLICE_SHADOW_ID(), one per kind of field, unique across the updates
 * of a kernel (a number from the fix, say).
 *
 * Lifetime.  The update owns its shadow variables; nothing frees them
 * but the update's code.
 *  - When the object is freed while the update is applied, the new code
 *    that frees it (the patched release function) frees its shadow too,
 *    with ksplice_shadow_free().
 *  - At undo, objects still alive keep theirs: the update's post-undo
 *    hook frees them all with ksplice_shadow_free_all(id, dtor).  After
 *    undo the old code frees the objects without knowing of shadows;
 *    once the update module is unloaded no dtor of it may be left.
 *  - The new code must expect objects that have no shadow: those that
 *    existed before the update was applied (unless a pre- or post-apply
 *    hook attached one to each), and any whose allocation of a shadow
 *    failed.  ksplice_shadow_get_or_alloc() attaches one lazily.
 *  - A dtor runs with the shadow lock held (a spinlock, interrupts
 *    off): count, release references, no sleeping.
 */
#ifndef _KSPLICE_HOOKS_H
#define _KSPLICE_HOOKS_H

/* The kinds, as in the update's tables (ksplice-update.h's own). */
#define KSPLICE_HOOK_KIND_PRE_APPLY	1
#define KSPLICE_HOOK_KIND_STOP_APPLY	2
#define KSPLICE_HOOK_KIND_POST_APPLY	3
#define KSPLICE_HOOK_KIND_PRE_UNDO	4
#define KSPLICE_HOOK_KIND_STOP_UNDO	5
#define KSPLICE_HOOK_KIND_POST_UNDO	6

/*
 * The section ksplice-create reads the hooks of a unit from: entries of
 * 16 bytes, the kind (4), the line of the registration (4: the compiler
 * emits the entries in no particular order) and the hook's address (8).
 */
#define KSPLICE_HOOKS_SECTION		".ksplice_hooks"

#ifdef __KERNEL__

#include <linux/compiler.h>
#include <linux/livepatch.h>
#include <linux/types.h>

struct ksplice_hook_entry {
	unsigned int kind;
	unsigned int line;
	union {
		int (*check)(char *why, size_t len);
		void (*action)(void);
	};
};

#define __KSPLICE_HOOK(kind_, member, fn)				\
	static const struct ksplice_hook_entry __ksplice_hook_##fn	\
	__used __section(KSPLICE_HOOKS_SECTION) __aligned(8) = {	\
		.kind = (kind_), .line = __LINE__, .member = (fn) }

#define KSPLICE_PRE_APPLY(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_PRE_APPLY, check, fn)
#define KSPLICE_STOP_APPLY(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_STOP_APPLY, action, fn)
#define KSPLICE_POST_APPLY(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_POST_APPLY, action, fn)
#define KSPLICE_PRE_UNDO(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_PRE_UNDO, check, fn)
#define KSPLICE_STOP_UNDO(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_STOP_UNDO, action, fn)
#define KSPLICE_POST_UNDO(fn)	\
	__KSPLICE_HOOK(KSPLICE_HOOK_KIND_POST_UNDO, action, fn)

/* A shadow id: "ks" in the top bits, then the author's number. */
#define KSPLICE_SHADOW_ID(n)	((0x6b73UL << 48) | ((n) & 0xffffffffffffUL))

/* The shadow @id of @obj, or NULL. */
static inline void *ksplice_shadow_get(void *obj, unsigned long id)
{
	return klp_shadow_get(obj, id);
}

/*
 * Attaches a new zeroed shadow of @size bytes, then @ctor(obj, shadow,
 * ctor_data) if not NULL (under the shadow lock: no sleeping).  NULL if
 * one is already attached (with a warning), on no memory, or if @ctor
 * failed.
 */
static inline void *ksplice_shadow_alloc(void *obj, unsigned long id,
					 size_t size, gfp_t gfp,
					 klp_shadow_ctor_t ctor,
					 void *ctor_data)
{
	return klp_shadow_alloc(obj, id, size, gfp, ctor, ctor_data);
}

/* The attached one, or a new one as ksplice_shadow_alloc() makes. */
static inline void *ksplice_shadow_get_or_alloc(void *obj, unsigned long id,
						size_t size, gfp_t gfp,
						klp_shadow_ctor_t ctor,
						void *ctor_data)
{
	return klp_shadow_get_or_alloc(obj, id, size, gfp, ctor, ctor_data);
}

/* Detaches and frees the shadow @id of @obj; @dtor first, if not NULL. */
static inline void ksplice_shadow_free(void *obj, unsigned long id,
				       klp_shadow_dtor_t dtor)
{
	klp_shadow_free(obj, id, dtor);
}

/* The same for every object's shadow @id: at undo (post-undo hook). */
static inline void ksplice_shadow_free_all(unsigned long id,
					   klp_shadow_dtor_t dtor)
{
	klp_shadow_free_all(id, dtor);
}

#endif /* __KERNEL__ */
#endif /* _KSPLICE_HOOKS_H */
