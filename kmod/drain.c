// SPDX-License-Identifier: GPL-2.0
/*
 * Letting go of the update module after an undo that took back data
 * pointing into it.  A callback field patched in place to a function the
 * update adds may have been read by a task that was then preempted
 * (preempt=full, PREEMPT_RT) before making the call: the undo's stack
 * check sees only the caller, and the module must not go while that
 * task can still call into it.  Once every task has been through an RCU
 * grace period and a voluntary switch (tasks RCU), such a task has made
 * its call, and is on a stack inside the update's code if it is still
 * there; the reference on the module is dropped only when no stack is,
 * checked again after a second, then after twice as long each time, up
 * to a minute.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/workqueue.h>
#include "ksplice.h"

/* Every second at first, then less often: each check stops the machine. */
#define KSPLICE_DRAIN_RECHECK	HZ
#define KSPLICE_DRAIN_RECHECK_MAX	(60 * HZ)

struct ksplice_drain_walk {
	struct ksplice_ranges *rs;
	struct ksplice_conflicts out;
};

static int ksplice_drain_stop(void *data)
{
	struct ksplice_drain_walk *w = data;

	ksplice_check_stacks(w->rs, NULL, &w->out);
	return 0;
}

/*
 * The update's code, one range from its lowest to its highest function:
 * all of it is the update module's text.
 */
static struct ksplice_ranges *ksplice_drain_range(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *f;
	struct ksplice_ranges *rs;
	struct ksplice_range *r;
	unsigned int i, n = u->nr_funcs + u->nr_new_funcs;

	rs = kzalloc(struct_size(rs, r, 1), GFP_KERNEL);
	if (!rs)
		return NULL;
	r = &rs->r[0];
	r->name = u->id;
	r->start = ULONG_MAX;
	for (i = 0; i < n; i++) {
		f = i < u->nr_funcs ? &u->funcs[i] :
				      &u->new_funcs[i - u->nr_funcs];
		r->start = min_t(unsigned long, r->start, (unsigned long)f->new_code);
		r->end = max_t(unsigned long, r->end,
			       (unsigned long)f->new_code + f->new_size);
	}
	r->max_end = r->end;
	rs->nr = r->end ? 1 : 0;
	return rs;
}

/* Tasks in the update's code; the first is named in @first. */
static int ksplice_drain_busy(struct ksplice_core *core,
			      struct ksplice_conflict *first)
{
	struct ksplice_drain_walk *w = kzalloc(sizeof(*w), GFP_KERNEL);
	int nr = -ENOMEM;

	if (!w)
		return nr;
	w->rs = ksplice_drain_range(core);
	if (w->rs) {
		stop_machine(ksplice_drain_stop, w, NULL);
		nr = w->out.nr;
		if (nr)
			*first = w->out.c[0];
	}
	kfree(w->rs);
	kfree(w);
	return nr;
}

static void ksplice_drain_work(struct work_struct *work)
{
	struct ksplice_core *core = container_of(to_delayed_work(work),
						 struct ksplice_core, drain);
	struct ksplice_conflict c;

	mutex_lock(&ksplice_mutex);
	if (ksplice_drain_busy(core, &c)) {
		core->drain_delay = min_t(unsigned long, 2 * core->drain_delay,
					  KSPLICE_DRAIN_RECHECK_MAX);
		schedule_delayed_work(&core->drain, core->drain_delay);
	} else {
		core->draining = false;
		ksplice_put_ref(core);
		pr_info("%s: no task is in its code any more: it can be unloaded\n",
			core->update->id);
	}
	mutex_unlock(&ksplice_mutex);
}

void ksplice_drain_init(struct ksplice_core *core)
{
	INIT_DELAYED_WORK(&core->drain, ksplice_drain_work);
}

/* Before the core goes: the work takes ksplice_mutex. */
void ksplice_drain_cancel(struct ksplice_core *core)
{
	cancel_delayed_work_sync(&core->drain);
	core->draining = false;
}

/*
 * Under ksplice_mutex, after an undo: drops the reference on the update
 * module, at once unless its data pointed into it; then once no task is
 * in its code, retried as the stop is, and after that every second.
 */
void ksplice_drain(struct ksplice_core *core)
{
	unsigned int tries = max(READ_ONCE(core->max_tries), 1U);
	struct ksplice_conflict c;
	unsigned int try;
	int nr;

	if (!ksplice_data_into_update(core)) {
		ksplice_put_ref(core);
		return;
	}
	synchronize_rcu();
	synchronize_rcu_tasks();
	for (try = 1; ; try++) {
		nr = ksplice_drain_busy(core, &c);
		if (!nr) {
			ksplice_put_ref(core);
			return;
		}
		if (try >= tries)
			break;
		msleep(READ_ONCE(core->retry_interval_ms));
	}
	if (nr > 0)
		pr_warn("%s: undone, but tasks are in its code (%d, first %s %d): its module stays until none is\n",
			core->update->id, nr, c.comm, c.pid);
	core->draining = true;
	core->drain_delay = KSPLICE_DRAIN_RECHECK;
	schedule_delayed_work(&core->drain, core->drain_delay);
}
