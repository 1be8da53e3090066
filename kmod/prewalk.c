// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-walk (issue 13): walk every task's stack before stop_machine(),
 * so that the stop re-walks only the tasks that ran since.  The machine
 * then stands still for the tasks that moved, not for all of them.
 *
 * Which tasks ran is told by the scheduler itself: a probe on the
 * sched_switch tracepoint (registered at load) marks, while a pre-walk is
 * watched -- from before any stack is walked until after the stop --
 * every task switched in (and one on sched_process_fork every task
 * forked) and lists it once.  Inside the stop (safety.c) the verdict of
 * the pre-walk is reused for a task that was walked and not marked; every
 * marked task, every task the pre-walk could not walk, the idle tasks and
 * the current one are walked as without a pre-walk.
 *
 * Why a task walked here and not marked since has the same stack in the
 * stop.  A task's kernel stack changes only while the task runs (nothing
 * else writes into another task's frames: ptrace and signals change the
 * user registers, which are no kernel address; the function-graph tracer
 * and kretprobes rewrite return addresses only from the task's own
 * function entries).  The walk (ksplice_prewalk_task) happens under the
 * task's pi_lock, only if the task is asleep and switched out: its state
 * is neither TASK_RUNNING nor TASK_WAKING, it is not on a runqueue, and
 * on_cpu is clear (the release in finish_task() orders the saved stack
 * before it) -- the conditions get_wchan() uses.  Every wakeup
 * (try_to_wake_up(), wake_up_new_task()) takes pi_lock, so the task
 * cannot start running during the walk; the stack walked is complete and
 * stays as it is until the task runs again.  To run again, it must be
 * switched in by __schedule(), which calls trace_sched_switch() for every
 * switch (prev != next) before context_switch(); the pre-walk was
 * published to the probe, and an RCU grace period passed (the probe runs
 * with preemption off), before the walk, so the task is marked.  Hence unmarked means not run since the walk:
 *  - preemption: a preempted task is runnable (on a runqueue): not walked
 *    here at all, walked in the stop;
 *  - a wakeup not yet run: try_to_wake_up() alone does not touch the
 *    stack; the task sleeps in the frames walked until it is switched in,
 *    which marks it;
 *  - exit: exiting runs the task (marked); a task already exiting
 *    (PF_EXITING) or whose stack is gone is left to the stop, which skips
 *    a released task (pid_alive) as the tasklist walk would;
 *  - fork: a task forked after the probe is marked by sched_process_fork
 *    (copy_process() of kernel_clone(); an io_uring or vhost worker made by
 *    copy_process() directly is marked when first switched in; before
 *    that its stack holds only the fork frame, which ret_from_fork starts
 *    from); one forked before is in the tasklist snapshot below, which
 *    begins after the watch did;
 *  - a freed and reused task_struct: every task recorded holds a
 *    reference (get_task_struct) until the pre-walk is freed, after the
 *    stop, so no two tasks share an address meanwhile.
 * The stop runs with every CPU in its stopper thread: no task is
 * switched in during it, so the marks are complete when it reads them.
 * If the table overflows (more tasks forked than room was made for) the
 * stop walks every task, as it would without a pre-walk.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "ksplice.h"

struct ksplice_prewalk_rec {
	struct task_struct *task;	/* NULL: a free slot */
	const char *func;		/* the pre-walk's verdict */
	int ran;			/* switched in since the probe */
	bool walked;			/* func is the verdict */
};

struct ksplice_prewalk {
	struct ksplice_ranges *rs;
	unsigned int bits;
	unsigned int max_used;		/* < 1 << bits: a free slot remains */
	atomic_t used;
	atomic_t nr_ran;
	int overflow;
	unsigned int nr_check;
	struct ksplice_prewalk_rec **ran;	/* marked, each once */
	struct ksplice_prewalk_rec **check;	/* not walked, or in a range */
	struct ksplice_prewalk_rec **snap;	/* the tasklist snapshot */
	unsigned int nr_snap;
	struct ksplice_prewalk_rec *slots;
};

/*
 * The record of @t, inserted if missing and @add (then holding a
 * reference on @t).  Lock-free: the probes insert while the pre-walk does.
 * Never more than max_used slots are taken, so a probe sequence ends at a
 * free slot.  NULL if @t has none, or (overflow set) no room is left.
 */
static struct ksplice_prewalk_rec *
ksplice_prewalk_find(struct ksplice_prewalk *pw, struct task_struct *t,
		     bool add)
{
	unsigned int mask = (1U << pw->bits) - 1;
	unsigned int i = hash_ptr(t, pw->bits);
	struct task_struct *cur;

	for (;; i = (i + 1) & mask) {
		cur = READ_ONCE(pw->slots[i].task);
		if (cur == t)
			return &pw->slots[i];
		if (cur)
			continue;
		if (!add)
			return NULL;
		if (atomic_inc_return(&pw->used) > pw->max_used) {
			atomic_dec(&pw->used);
			WRITE_ONCE(pw->overflow, 1);
			return NULL;
		}
		cur = cmpxchg(&pw->slots[i].task, NULL, t);
		if (!cur) {
			get_task_struct(t);
			return &pw->slots[i];
		}
		atomic_dec(&pw->used);
		if (cur == t)
			return &pw->slots[i];
	}
}

/*
 * The pre-walk being watched, if any (one at a time: ksplice_mutex).  The
 * probes stay registered while the core is loaded, reading this: patching
 * the sched_switch call site in and out around every attempt (static call
 * and key updates through int3) hung the TCG guest under a storm of
 * context switches (tests/t/47) with one CPU looping on the int3 in
 * __schedule and the other in the poke; once at load, it does not.
 */
static struct ksplice_prewalk __rcu *ksplice_prewalk_active;
static bool ksplice_prewalk_probing;

/* Probe context: preemption off (sched_switch: the runqueue lock held). */
static void ksplice_prewalk_mark(struct task_struct *t)
{
	struct ksplice_prewalk *pw = rcu_dereference_sched(ksplice_prewalk_active);
	struct ksplice_prewalk_rec *rec;

	if (!pw || is_idle_task(t))
		return;
	rec = ksplice_prewalk_find(pw, t, true);
	if (rec && !xchg(&rec->ran, 1))
		pw->ran[atomic_inc_return(&pw->nr_ran) - 1] = rec;
}

static void ksplice_prewalk_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	ksplice_prewalk_mark(next);
}

static void ksplice_prewalk_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	ksplice_prewalk_mark(child);
}

/* At load; without the probes, the stop walks every task. */
void ksplice_prewalk_init(void)
{
	if (tracepoint_probe_register(ksplice_k.tp_sched_fork,
				      ksplice_prewalk_fork, NULL))
		goto fail;
	if (!tracepoint_probe_register(ksplice_k.tp_sched_switch,
				       ksplice_prewalk_switch, NULL)) {
		ksplice_prewalk_probing = true;
		return;
	}
	tracepoint_probe_unregister(ksplice_k.tp_sched_fork,
				    ksplice_prewalk_fork, NULL);
	tracepoint_synchronize_unregister();
fail:
	pr_warn("ksplice: no sched tracepoint probes: every stack is walked in the stop\n");
}

void ksplice_prewalk_exit(void)
{
	if (!ksplice_prewalk_probing)
		return;
	tracepoint_probe_unregister(ksplice_k.tp_sched_switch,
				    ksplice_prewalk_switch, NULL);
	tracepoint_probe_unregister(ksplice_k.tp_sched_fork,
				    ksplice_prewalk_fork, NULL);
	tracepoint_synchronize_unregister();
}

/* Watching starts before any stack is walked and ends before the free. */
static int ksplice_prewalk_watch(struct ksplice_prewalk *pw, bool on)
{
	if (!on) {
		RCU_INIT_POINTER(ksplice_prewalk_active, NULL);
		/* No probe may still run on the table when it is freed. */
		synchronize_rcu();
		return 0;
	}
	if (!ksplice_prewalk_probing ||
	    WARN_ON_ONCE(rcu_access_pointer(ksplice_prewalk_active)))
		return -EBUSY;
	rcu_assign_pointer(ksplice_prewalk_active, pw);
	/*
	 * A probe that read NULL may still be running: the switches it saw
	 * come before the snapshot and the walk, which see their effect.
	 */
	synchronize_rcu();
	return 0;
}

static unsigned int ksplice_count_tasks(void)
{
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
		n++;
	rcu_read_unlock();
	return n;
}

static struct ksplice_prewalk *ksplice_prewalk_alloc(void)
{
	unsigned int n = ksplice_count_tasks();
	struct ksplice_prewalk *pw = kzalloc(sizeof(*pw), GFP_KERNEL);

	if (!pw)
		return NULL;
	/* Room for the tasks forked meanwhile; past it, the stop walks all. */
	pw->max_used = n + n / 4 + 1024;
	pw->bits = order_base_2(2 * pw->max_used);
	pw->slots = kvcalloc(1U << pw->bits, sizeof(*pw->slots), GFP_KERNEL);
	pw->ran = kvcalloc(pw->max_used, sizeof(*pw->ran), GFP_KERNEL);
	pw->check = kvcalloc(pw->max_used, sizeof(*pw->check), GFP_KERNEL);
	pw->snap = kvcalloc(pw->max_used, sizeof(*pw->snap), GFP_KERNEL);
	if (!pw->slots || !pw->ran || !pw->check || !pw->snap) {
		kvfree(pw->slots);
		kvfree(pw->ran);
		kvfree(pw->check);
		kvfree(pw->snap);
		kfree(pw);
		return NULL;
	}
	return pw;
}

/* Every task in the tasklist, recorded (a reference each); under RCU. */
static void ksplice_prewalk_snapshot(struct ksplice_prewalk *pw)
{
	struct ksplice_prewalk_rec *rec;
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		rec = ksplice_prewalk_find(pw, t, true);
		if (!rec)
			goto out;
		if (pw->nr_snap < pw->max_used)
			pw->snap[pw->nr_snap++] = rec;
	}
out:
	rcu_read_unlock();
}

/*
 * The verdict on @t's stack if it can be had now, that is if @t sleeps
 * switched out (see the comment at the top); else *walked stays false.
 */
static const char *ksplice_prewalk_task(const struct ksplice_ranges *rs,
					struct task_struct *t, bool *walked)
{
	const char *func = NULL;
	unsigned long flags;
	unsigned int state;
	bool stack = false;

	raw_spin_lock_irqsave(&t->pi_lock, flags);
	state = READ_ONCE(t->__state);
	/* The state before on_rq, as get_wchan() (ttwu() writes them in turn). */
	smp_rmb();
	/* on_cpu's acquire pairs with finish_task(): the switch-out is done. */
	if (state == TASK_RUNNING || state == TASK_WAKING ||
	    READ_ONCE(t->on_rq) || smp_load_acquire(&t->on_cpu) ||
	    (READ_ONCE(t->flags) & PF_EXITING))
		goto out;
	stack = try_get_task_stack(t);
	if (!stack)
		goto out;
	func = ksplice_walk_task(rs, t);
	*walked = true;
out:
	raw_spin_unlock_irqrestore(&t->pi_lock, flags);
	if (stack)
		ksplice_k.put_task_stack(t);
	return func;
}

static void ksplice_prewalk_walk(struct ksplice_prewalk *pw)
{
	struct ksplice_prewalk_rec *rec;
	unsigned int i;

	for (i = 0; i < pw->nr_snap; i++) {
		rec = pw->snap[i];
		if (READ_ONCE(rec->ran) || rec->walked)
			continue;
		rec->func = ksplice_prewalk_task(pw->rs, rec->task,
						 &rec->walked);
		if (!rec->walked || rec->func)
			pw->check[pw->nr_check++] = rec;
		cond_resched();
	}
}

/*
 * Walks every task's stack against the ranges @core's patching will check
 * (ksplice_ranges_build) and keeps watching which tasks run.  NULL if it
 * could not (no memory, no probe): the stop then walks every task.
 */
struct ksplice_prewalk *ksplice_prewalk(struct ksplice_core *core, bool undo)
{
	struct ksplice_prewalk *pw = ksplice_prewalk_alloc();

	if (!pw)
		return NULL;
	pw->rs = ksplice_ranges_build(core, undo);
	if (!pw->rs || ksplice_prewalk_watch(pw, true)) {
		kvfree(pw->rs);
		pw->rs = NULL;
		ksplice_prewalk_free(pw);
		return NULL;
	}
	ksplice_prewalk_snapshot(pw);
	ksplice_prewalk_walk(pw);
	return pw;
}

/* @core's pre-walk if one was made (before its hooks), else a new one. */
struct ksplice_prewalk *ksplice_prewalk_take(struct ksplice_core *core,
					     bool undo)
{
	struct ksplice_prewalk *pw = core->prewalk;

	core->prewalk = NULL;
	return pw ?: ksplice_prewalk(core, undo);
}

void ksplice_prewalk_free(struct ksplice_prewalk *pw)
{
	unsigned int i;

	if (!pw)
		return;
	if (pw->rs)
		ksplice_prewalk_watch(pw, false);
	for (i = 0; i < 1U << pw->bits; i++) {
		if (pw->slots[i].task)
			put_task_struct(pw->slots[i].task);
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(pw->rs);
	kvfree(pw->slots);
	kvfree(pw->ran);
	kvfree(pw->check);
	kvfree(pw->snap);
	kfree(pw);
}

static bool ksplice_ranges_same(const struct ksplice_ranges *a,
				const struct ksplice_ranges *b)
{
	unsigned int i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->r[i].start != b->r[i].start || a->r[i].end != b->r[i].end)
			return false;
	return true;
}

static void ksplice_prewalk_recheck(const struct ksplice_ranges *rs,
				    struct task_struct *t,
				    struct ksplice_conflicts *out)
{
	/* Released since (the tasklist walk would not see it). */
	if (t == current || !pid_alive(t))
		return;
	ksplice_check_task(rs, t, out);
}

/*
 * Inside the stop: the tasks' part of the check (the idle tasks are the
 * caller's), from the pre-walk @pw.  False if it cannot be used: the
 * caller walks the tasklist.
 */
bool ksplice_prewalk_check(struct ksplice_prewalk *pw,
			   const struct ksplice_ranges *rs,
			   struct ksplice_conflicts *out)
{
	struct ksplice_prewalk_rec *rec;
	unsigned int i, n;

	if (!pw || READ_ONCE(pw->overflow) || !ksplice_ranges_same(pw->rs, rs))
		return false;
	ksplice_check_task(rs, current, out);
	n = atomic_read(&pw->nr_ran);
	for (i = 0; i < n; i++)
		ksplice_prewalk_recheck(rs, pw->ran[i]->task, out);
	for (i = 0; i < pw->nr_check; i++) {
		rec = pw->check[i];
		if (rec->ran)
			continue;
		if (!rec->walked)
			ksplice_prewalk_recheck(rs, rec->task, out);
		else if (pid_alive(rec->task))
			ksplice_conflict(out, rec->task, rec->func);
	}
	return true;
}
