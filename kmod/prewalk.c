// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-walk: every task's stack is walked before stop_machine(), while
 * the machine runs, and inside it only the tasks that may have moved
 * since are walked again (safety.c).  The pause then no longer grows with
 * the number of tasks by a full unwind each, only by a lookup each.
 *
 * For each task the pre-walk records the task pointer, its start_time
 * (a task freed and another allocated at the same address has another
 * start_time: the record is never dereferenced, only compared with the
 * tasks found inside the stop) and its context-switch count,
 * nvcsw + nivcsw.  It marks the task "re-walk" when it is current, on a
 * CPU (its stack is live and cannot be walked reliably) or when its walk
 * found a frame in the ranges or could not finish.
 *
 * Why a task found inside the stop that is not current and not on a CPU,
 * has a record not marked re-walk, the same start_time and the same count
 * has the stack the pre-walk saw:
 *  - A task's kernel frames change only while it runs on a CPU.  Nothing
 *    else writes them: ptrace and signal delivery change the user
 *    registers saved at the top, which the unwinder stops at; interrupts
 *    and exceptions land on it only while it runs.
 *  - In 6.1's __schedule(), whenever prev != next, ++*switch_count
 *    increments prev's nvcsw or nivcsw before context_switch(), and
 *    prev->on_cpu is cleared (release) only after that, in
 *    finish_task_switch() on the next task.  So a task switched in after
 *    its count was read and not on a CPU now was switched out since, and
 *    its count moved.  Inside the stop every CPU but this one runs its
 *    stopper, so every task but those stoppers is off its CPU and has
 *    finished its last switch-out.
 *  - The pre-walk reads the count, then (smp_rmb()) on_cpu, then walks.
 *    A task on a CPU then is marked.  A task that was off a CPU but is
 *    switched in after the count was read, even in the middle of its walk
 *    (the walk may be garbage), is switched out again before the stop and
 *    its count differs: it is walked again.  A stale count read just
 *    before a switch-out only makes the task walked again.
 *  - Counts are unsigned long: they do not wrap in between.
 * Tasks created after their list position was passed have no record (or
 * another start_time): walked.  Tasks beyond the record's size: walked.
 * Tasks that exited are not on the list inside the stop: not walked, as
 * before the pre-walk existed.  This CPU's stopper (current) was switched
 * in without being switched out, so its count did not move: it is always
 * walked (safety.c).  The other CPUs' stoppers are on their CPUs, in
 * stop_machine() code, and are skipped as before.  The idle tasks are not
 * on the task list: they are always walked inside, one per CPU.
 *
 * The record is allocated before the stop (sized by the tasks counted
 * plus slack) and is an open-addressing hash by task pointer.  Undo goes
 * through the same code (patch.c), so it pre-walks the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "ksplice.h"

/*
 * For tests only: a window between the pre-walk and stop_machine() in
 * which a task can enter the code being replaced (tests/t/59).
 */
static unsigned int prewalk_delay_ms;
module_param(prewalk_delay_ms, uint, 0644);
MODULE_PARM_DESC(prewalk_delay_ms,
		 "tests only: sleep this long between the pre-walk and stop_machine");

struct ksplice_seen {
	struct task_struct *task;	/* NULL: a free slot */
	u64 start_time;
	unsigned long switches;		/* nvcsw + nivcsw */
	bool rewalk;
};

struct ksplice_prewalk {
	unsigned int bits;		/* the table has 1 << bits slots */
	unsigned int nr;		/* recorded */
	unsigned int max;		/* recordable: half the slots at most */
	struct ksplice_seen s[];
};

static unsigned long ksplice_switches(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

/* @t's slot: its record, or the free slot where it would go. */
static struct ksplice_seen *ksplice_slot(const struct ksplice_prewalk *pw,
					 const struct task_struct *t)
{
	unsigned int mask = (1U << pw->bits) - 1;
	unsigned int i = hash_ptr(t, pw->bits);
	struct ksplice_seen *s = (struct ksplice_seen *)pw->s;

	while (s[i].task && s[i].task != t)
		i = (i + 1) & mask;
	return &s[i];
}

static void ksplice_prewalk_task(struct ksplice_prewalk *pw,
				 const struct ksplice_ranges *rs,
				 struct task_struct *t)
{
	struct ksplice_seen *s;
	unsigned long switches;

	if (pw->nr >= pw->max)
		return;
	s = ksplice_slot(pw, t);
	if (s->task)
		return;
	switches = ksplice_switches(t);
	/* The count before on_cpu: see the top of this file. */
	smp_rmb();
	s->task = t;
	s->start_time = t->start_time;
	s->switches = switches;
	s->rewalk = t == current || READ_ONCE(t->on_cpu) ||
		    ksplice_walk_task(rs, t);
	pw->nr++;
}

static struct ksplice_prewalk *ksplice_prewalk_alloc(void)
{
	struct ksplice_prewalk *pw;
	struct task_struct *g, *t;
	unsigned int n = 0, bits;

	rcu_read_lock();
	for_each_process_thread(g, t)
		n++;
	rcu_read_unlock();
	/* Slack for the tasks created meanwhile; the rest are walked inside. */
	n += n / 4 + 64;
	bits = order_base_2(2 * n);
	pw = kvzalloc(struct_size(pw, s, 1UL << bits), GFP_KERNEL);
	if (!pw)
		return NULL;
	pw->bits = bits;
	pw->max = n;
	return pw;
}

/*
 * Walks every task's stack against @rs and records what the stop needs
 * to skip it.  NULL if there is no memory for it: then every task is
 * walked inside the stop, as it was before.
 */
struct ksplice_prewalk *ksplice_prewalk(const struct ksplice_ranges *rs)
{
	struct ksplice_prewalk *pw = ksplice_prewalk_alloc();
	struct task_struct *g, *t;
	unsigned int delay;

	if (!pw)
		return NULL;
	rcu_read_lock();
	for_each_process_thread(g, t)
		ksplice_prewalk_task(pw, rs, t);
	rcu_read_unlock();
	delay = READ_ONCE(prewalk_delay_ms);
	if (delay) {
		pr_info("pre-walk of %u tasks done; waiting %u ms (prewalk_delay_ms, for tests)\n",
			pw->nr, delay);
		msleep(delay);
	}
	return pw;
}

/*
 * Inside the stop: whether @t (not current, not on a CPU) must be walked
 * again.  With no record (@pw NULL) every task must.
 */
bool ksplice_prewalk_moved(const struct ksplice_prewalk *pw,
			   struct task_struct *t)
{
	const struct ksplice_seen *s;

	if (!pw)
		return true;
	s = ksplice_slot(pw, t);
	return !s->task || s->rewalk || s->start_time != t->start_time ||
	       s->switches != ksplice_switches(t);
}

void ksplice_prewalk_free(struct ksplice_prewalk *pw)
{
	kvfree(pw);
}
