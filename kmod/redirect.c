// SPDX-License-Identifier: GPL-2.0
/*
 * Redirection through ftrace, for a function whose jump cannot go after
 * its ftrace site: a jump label or static call sits there (the kernel
 * rewrites those bytes at run time), or the function is shorter than the
 * site and a jump.  An ftrace_ops on the function's entry sends callers to
 * the new code, the way livepatch does.  It is registered before the
 * stop_machine that applies the update, and switched on inside it together
 * with the jumps of the other functions, so that the update still changes
 * all at once; undo switches it off inside the stop_machine and
 * unregisters it afterwards.
 *
 * An update stacked on one that ftrace redirects registers nothing (two
 * ops may not both modify one function's ip): inside its stop_machine
 * it retargets the redirection below to its own code, and its undo
 * points it back to the code below, as livepatch's func_stack does.  The
 * redirection stays the bottom update's, which undo's last-in-first-out
 * rule keeps until every update above is gone.
 *
 * A replace update takes the redirection over: one that carries the
 * function retargets it inside its stop_machine and then owns it (the
 * updates it replaces go); for one that does not, its stop_machine
 * switches it off and the replaced update's cleanup unregisters it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "ksplice.h"
#include "compat.h"

/*
 * Redirect every function that has an ftrace site through ftrace, even
 * where a jump fits: for measuring what each costs a call (bench/per-call).
 * Read when an update is matched; an update stacked on another keeps the
 * jump.
 */
bool ksplice_prefer_ftrace;
module_param_named(prefer_ftrace, ksplice_prefer_ftrace, bool, 0600);
MODULE_PARM_DESC(prefer_ftrace,
		 "redirect functions through ftrace even where a jump fits (to compare costs)");

struct ksplice_redirect {
	struct ftrace_ops ops;
	unsigned long to;
	bool on;			/* written inside stop_machine */
};

static void notrace ksplice_redirect_handler(unsigned long ip,
					     unsigned long parent_ip,
					     struct ftrace_ops *ops,
					     struct ftrace_regs *fregs)
{
	struct ksplice_redirect *rd = container_of(ops, struct ksplice_redirect,
						   ops);

	if (READ_ONCE(rd->on))
		ksplice_ftrace_set_ip(fregs, READ_ONCE(rd->to));
}

/* Registers the (switched off) redirection of @fs to @f's new code. */
int ksplice_redirect_arm(struct ksplice_fstate *fs,
			 const struct ksplice_func *f)
{
	struct ksplice_redirect *rd;
	int ret;

	if (fs->rd)
		return 0;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->to = (unsigned long)f->new_code;
	rd->ops.func = ksplice_redirect_handler;
	rd->ops.flags = FTRACE_OPS_FL_DYNAMIC | FTRACE_OPS_FL_IPMODIFY;
	ret = ftrace_set_filter_ip(&rd->ops, fs->old_addr, 0, 0);
	if (!ret) {
		ret = register_ftrace_function(&rd->ops);
		if (ret)
			ftrace_set_filter_ip(&rd->ops, fs->old_addr, 1, 0);
	}
	if (ret) {
		kfree(rd);
		return ret;
	}
	fs->rd = rd;
	pr_info("%s: no room for a jump after its ftrace site: ftrace redirects it\n",
		f->name);
	return 0;
}

void ksplice_redirect_disarm(struct ksplice_fstate *fs)
{
	struct ksplice_redirect *rd = fs->rd;

	if (!rd)
		return;
	WRITE_ONCE(rd->on, false);
	unregister_ftrace_function(&rd->ops);
	ftrace_set_filter_ip(&rd->ops, fs->old_addr, 1, 0);
	kfree(rd);
	fs->rd = NULL;
}

/* Inside stop_machine. */
void ksplice_redirect_switch(struct ksplice_fstate *fs, bool on)
{
	WRITE_ONCE(fs->rd->on, on);
}

/* Inside stop_machine: callers go to the function's own code again. */
void ksplice_redirect_off(struct ksplice_redirect *rd)
{
	WRITE_ONCE(rd->on, false);
}

/* Inside stop_machine: callers go to @to from now on. */
void ksplice_redirect_retarget(struct ksplice_redirect *rd, unsigned long to)
{
	WRITE_ONCE(rd->to, to);
}

/*
 * After an undo that retargeted a redirection: a task that was inside
 * ftrace's trampoline may have read the old target; wait until every
 * task has left it, as unregistering an ftrace_ops does.
 */
void ksplice_redirect_sync(void)
{
	synchronize_rcu_tasks();
}
