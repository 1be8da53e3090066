// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-walk: every task's stack is walked before stop_machine(), while
 * the machine runs, and inside it only the tasks that may have moved
 * since are walked again (safety.c).  The pause then grows with the
 * number of tasks that ran in between, not with the number of tasks.
 *
 * Which tasks ran is told by the scheduler: before the pre-walk a probe
 * is put on the sched_switch tracepoint, which __schedule() fires for
 * every switch (prev != next), right after it counts it in prev's
 * nvcsw/nivcsw and before context_switch(); it logs prev.  A probe on
 * sched_process_fork logs each new task.  The pre-walk logs the tasks it
 * cannot vouch for: current, a task on a CPU (its stack is live) and one
 * whose walk found a frame in the ranges or could not finish.  Each
 * logged task is held (get_task_struct()) until after the stop.
 *
 * Why a task found off its CPU inside the stop and not in the log has the
 * stack the pre-walk saw, outside the ranges:
 *  - A task's kernel frames change only while it runs on a CPU.  Nothing
 *    else writes them: ptrace and signal delivery change the user
 *    registers saved at the top, which the unwinder stops at; interrupts
 *    and exceptions land on it only while it runs.
 *  - The probes are registered and synchronize_rcu() has returned before
 *    the pre-walk starts: every __schedule() from then on runs them
 *    (tracepoints call their probes with preemption off).
 *  - The pre-walk saw the task off its CPU and walked it.  If it ran
 *    after that (even from the middle of its walk, which is then garbage)
 *    it was switched out before the stop, since inside the stop every
 *    CPU but this one runs its stopper and every other task is off its
 *    CPU: that switch ran the probe, which logged it.
 *  - A task created after the pre-walk passed its place on the list is
 *    logged by the fork probe.
 * So every task whose stack may differ from its pre-walk is in the log,
 * and the stop walks exactly: the idle tasks (not on the task list, one
 * per CPU), current (this CPU's stopper: switched in, not out, so not
 * logged) and the logged tasks.  The other CPUs' stoppers are on their
 * CPUs, in stop_machine() code, and are skipped as before.  A task that
 * exited is skipped once it is TASK_DEAD (it never runs again) or its
 * stack is freed.
 *
 * The log is allocated before the stop.  If more tasks are logged than
 * it holds, every task is walked inside the stop, as before the pre-walk
 * existed.  Undo goes through the same code (patch.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>
#include "ksplice.h"

/*
 * For tests only: a window between the pre-walk and stop_machine() in
 * which a task can enter the code being replaced (tests/t/52).
 */
static unsigned int prewalk_delay_ms;
module_param(prewalk_delay_ms, uint, 0644);
MODULE_PARM_DESC(prewalk_delay_ms,
		 "tests only: sleep this long between the pre-walk and stop_machine");

#define KSPLICE_PREWALK_LOG	16384

struct ksplice_prewalk {
	atomic_t nr;			/* logged; may exceed the array */
	struct task_struct *log[KSPLICE_PREWALK_LOG];
};

static void ksplice_prewalk_log(struct ksplice_prewalk *pw,
				struct task_struct *t)
{
	unsigned int i = atomic_inc_return(&pw->nr) - 1;

	if (i < KSPLICE_PREWALK_LOG) {
		get_task_struct(t);
		pw->log[i] = t;
	}
}

static void ksplice_prewalk_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	ksplice_prewalk_log(data, prev);
}

static void ksplice_prewalk_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	ksplice_prewalk_log(data, child);
}

static int ksplice_prewalk_probes(struct ksplice_prewalk *pw)
{
	int ret;

	if (!ksplice_k.tp_sched_switch || !ksplice_k.tp_sched_process_fork)
		return -ENOENT;
	ret = tracepoint_probe_register(ksplice_k.tp_sched_switch,
					ksplice_prewalk_switch, pw);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(ksplice_k.tp_sched_process_fork,
					ksplice_prewalk_fork, pw);
	if (ret) {
		tracepoint_probe_unregister(ksplice_k.tp_sched_switch,
					    ksplice_prewalk_switch, pw);
		tracepoint_synchronize_unregister();
		return ret;
	}
	/* Every __schedule() and fork from now on runs them. */
	synchronize_rcu();
	return 0;
}

static void ksplice_prewalk_task(struct ksplice_prewalk *pw,
				 const struct ksplice_ranges *rs,
				 struct task_struct *t)
{
	if (t == current || READ_ONCE(t->on_cpu) || ksplice_walk_task(rs, t))
		ksplice_prewalk_log(pw, t);
}

/*
 * Walks every task's stack against @rs and logs, from then until
 * ksplice_prewalk_free(), the tasks the stop must walk again.  NULL if
 * that cannot be set up: then every task is walked inside the stop.
 */
struct ksplice_prewalk *ksplice_prewalk(const struct ksplice_ranges *rs)
{
	struct ksplice_prewalk *pw = kvzalloc(sizeof(*pw), GFP_KERNEL);
	struct task_struct *g, *t;
	unsigned int delay;

	if (!pw)
		return NULL;
	if (ksplice_prewalk_probes(pw)) {
		kvfree(pw);
		return NULL;
	}
	rcu_read_lock();
	for_each_process_thread(g, t)
		ksplice_prewalk_task(pw, rs, t);
	rcu_read_unlock();
	delay = READ_ONCE(prewalk_delay_ms);
	if (delay) {
		pr_info("pre-walk done, %u tasks logged; waiting %u ms (prewalk_delay_ms, for tests)\n",
			atomic_read(&pw->nr), delay);
		msleep(delay);
	}
	return pw;
}

static int ksplice_ptr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Inside the stop: the tasks to walk again, sorted and without repeats,
 * into *@tasks; how many.  -1 if every task must be walked (no log, or
 * it overflowed).  No probe runs now: every CPU is in the stop.
 */
int ksplice_prewalk_moved(struct ksplice_prewalk *pw,
			  struct task_struct ***tasks)
{
	unsigned int n, i, k = 0;

	if (!pw)
		return -1;
	n = atomic_read(&pw->nr);
	if (n > KSPLICE_PREWALK_LOG)
		return -1;
	sort(pw->log, n, sizeof(pw->log[0]), ksplice_ptr_cmp, NULL);
	/* A permutation, not a copy: each entry holds a reference. */
	for (i = 0; i < n; i++) {
		if (k && pw->log[i] == pw->log[k - 1])
			continue;
		swap(pw->log[i], pw->log[k]);
		k++;
	}
	*tasks = pw->log;
	return k;
}

/* After the stop: the probes off, the tasks let go. */
void ksplice_prewalk_free(struct ksplice_prewalk *pw)
{
	unsigned int i, n;

	if (!pw)
		return;
	tracepoint_probe_unregister(ksplice_k.tp_sched_process_fork,
				    ksplice_prewalk_fork, pw);
	tracepoint_probe_unregister(ksplice_k.tp_sched_switch,
				    ksplice_prewalk_switch, pw);
	tracepoint_synchronize_unregister();
	n = min_t(unsigned int, atomic_read(&pw->nr), KSPLICE_PREWALK_LOG);
	for (i = 0; i < n; i++)
		put_task_struct(pw->log[i]);
	kvfree(pw);
}
