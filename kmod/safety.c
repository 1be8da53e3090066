// SPDX-License-Identifier: GPL-2.0
/*
 * The safety check: code may be replaced only while no task is inside
 * it.  Runs inside stop_machine(), so every other task is switched out
 * with a complete saved state and its stack can be walked with the ORC
 * unwinder.  A return address or an interrupted IP inside a range (old
 * code on apply, new code on undo) is a conflict.  The old code of a
 * function another update replaced is that update's new code (stack.c).  The time the walk
 * took is reported with the conflicts (sysfs check_ns).
 */
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/unwind.h>
#include "ksplice.h"

static int ksplice_range_cmp(const void *a, const void *b)
{
	const struct ksplice_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * On undo, the functions the update added count as new code too: a
 * replacement that tail-calls one (a wrapper left of a function whose
 * body moved into a helper) is no longer on the stack of a task sleeping
 * in the helper, and unloading the update would free the code the task
 * returns to.  Only those of the view's targets: the others stay.
 */
unsigned int ksplice_added_ranges(const struct ksplice_core *core,
				  struct ksplice_range *r)
{
	const struct ksplice_update *u = core->update;
	const struct ksplice_func *f;
	unsigned int i, n = 0;

	for (i = 0; i < u->nr_new_funcs; i++) {
		f = &u->new_funcs[i];
		if (!ksplice_view_has_target(core, f->target))
			continue;
		r[n].name = f->name;
		r[n].start = (unsigned long)f->new_code;
		r[n].end = r[n].start + f->new_size;
		n++;
	}
	return n;
}

/*
 * The end is inclusive: a return address equal to the end belongs to a
 * call that was the range's last instruction.
 */
struct ksplice_ranges *ksplice_ranges_build(struct ksplice_core *core,
					    bool undo)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_ranges *rs;
	struct ksplice_range *r;
	unsigned long max_end = 0;
	unsigned int i;

	unsigned int replaced = !undo && core->replacing ?
				ksplice_replaced_ranges(NULL) : 0;

	rs = kvzalloc(struct_size(rs, r, 2 * u->nr_funcs + u->nr_new_funcs +
				  replaced), GFP_KERNEL);
	if (!rs)
		return NULL;
	for (i = 0; i < u->nr_funcs; i++) {
		const struct ksplice_func *f = &u->funcs[i];
		const struct ksplice_fstate *fs = &core->fs[i];

		r = &rs->r[rs->nr++];
		r->name = f->name;
		r->start = undo ? (unsigned long)f->new_code : fs->run_addr;
		r->end = r->start + (undo ? f->new_size : f->pre_size);
		/*
		 * On top of another update: its code is what runs (above),
		 * and the stock code counts as well, as it would alone.
		 */
		if (undo || fs->run_addr == fs->old_addr)
			continue;
		r = &rs->r[rs->nr++];
		r->name = f->name;
		r->start = fs->old_addr;
		r->end = r->start + fs->stock_size;
	}
	if (undo)
		rs->nr += ksplice_added_ranges(core, &rs->r[rs->nr]);
	/* A replace update takes all applied updates' code out of use. */
	if (replaced)
		rs->nr += ksplice_replaced_ranges(&rs->r[rs->nr]);
	sort(rs->r, rs->nr, sizeof(rs->r[0]), ksplice_range_cmp, NULL);
	for (i = 0; i < rs->nr; i++) {
		max_end = max(max_end, rs->r[i].end);
		rs->r[i].max_end = max_end;
	}
	return rs;
}

/* The name of a range holding @ip, or NULL. */
static const char *ksplice_range_of(const struct ksplice_ranges *rs,
				    unsigned long ip)
{
	int lo = 0, hi = rs->nr - 1, mid, i = -1;

	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		if (rs->r[mid].start <= ip) {
			i = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* Walk down while an earlier range could still reach @ip. */
	for (; i >= 0 && rs->r[i].max_end >= ip; i--)
		if (ip <= rs->r[i].end)
			return rs->r[i].name;
	return NULL;
}

void ksplice_conflict(struct ksplice_conflicts *out, struct task_struct *t,
		      const char *func)
{
	struct ksplice_conflict *c;

	if (out->nr < KSPLICE_MAX_CONFLICTS) {
		c = &out->c[out->nr];
		memcpy(c->comm, t->comm, sizeof(c->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
		c->pid = task_pid_nr(t);
		c->func = func;
	}
	out->nr++;
}

/*
 * The range @t's stack is in, or NULL; a stack we could not walk to its
 * end may hide a frame in a range, which counts as a conflict too.  The
 * caller makes sure the stack stands still and is there.
 */
const char *ksplice_walk_task(const struct ksplice_ranges *rs,
			      struct task_struct *t)
{
	struct unwind_state state;
	const char *name;
	unsigned long ip;

	for (unwind_start(&state, t, NULL, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		ip = unwind_get_return_address(&state);
		name = ip ? ksplice_range_of(rs, ip) : NULL;
		if (name)
			return name;
	}
	return unwind_error(&state) ? "unwind_error" : NULL;
}

/* Inside the stop. */
void ksplice_check_task(const struct ksplice_ranges *rs, struct task_struct *t,
			struct ksplice_conflicts *out)
{
	const char *name;

	/*
	 * Every other CPU runs its stopper thread now, in stop_machine()
	 * code; their stacks are live and cannot be walked from here.
	 */
	if (t != current && READ_ONCE(t->on_cpu))
		return;
	/* An exited task whose stack is already freed. */
	if (!refcount_read(&t->stack_refcount))
		return;
	name = ksplice_walk_task(rs, t);
	if (name)
		ksplice_conflict(out, t, name);
}

/*
 * With a pre-walk (prewalk.c), only the tasks that ran since it are
 * walked again; the others keep its verdict.
 */
void ksplice_check_stacks(const struct ksplice_ranges *rs,
			  struct ksplice_prewalk *pw,
			  struct ksplice_conflicts *out)
{
	u64 t0 = ktime_get_mono_fast_ns();
	struct task_struct *g, *t;
	int cpu;

	out->nr = 0;
	for_each_online_cpu(cpu)
		ksplice_check_task(rs, ksplice_k.idle_task(cpu), out);
	if (ksplice_prewalk_check(pw, rs, out))
		goto done;
	/* No CPU can be inside a tasklist_lock writer now; RCU for form. */
	rcu_read_lock();
	for_each_process_thread(g, t)
		ksplice_check_task(rs, t, out);
	rcu_read_unlock();
done:
	out->check_ns = ktime_get_mono_fast_ns() - t0;
}
