// SPDX-License-Identifier: GPL-2.0
/*
 * The livepatch side of bench/percall: replaces __task_pid_nr_ns through
 * klp_enable_patch (ftrace handler at the old function's entry) with the
 * same new code as bench/percall/pid.patch gives ksplice, so the two
 * redirections are compared on identical code.  The body is kernel/pid.c's
 * of 6.1 with the patch applied; task_pid_ptr is static there, copied.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

static struct pid **task_pid_ptr(struct task_struct *task, enum pid_type type)
{
	return (type == PIDTYPE_PID) ?
		&task->thread_pid :
		&task->signal->pids[type];
}

static pid_t klp_task_pid_nr_ns(struct task_struct *task, enum pid_type type,
				struct pid_namespace *ns)
{
	pid_t nr = 0;

	if (unlikely(type >= PIDTYPE_MAX))
		return 0;
	rcu_read_lock();
	if (!ns)
		ns = task_active_pid_ns(current);
	nr = pid_nr_ns(rcu_dereference(*task_pid_ptr(task, type)), ns);
	rcu_read_unlock();

	return nr;
}

static struct klp_func funcs[] = {
	{
		.old_name = "__task_pid_nr_ns",
		.new_func = klp_task_pid_nr_ns,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int klp_pid_init(void)
{
	return klp_enable_patch(&patch);
}

static void klp_pid_exit(void)
{
}

module_init(klp_pid_init);
module_exit(klp_pid_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("bench/percall: __task_pid_nr_ns through livepatch");
