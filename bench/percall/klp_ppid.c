// SPDX-License-Identifier: GPL-2.0
/*
 * The livepatch side of bench/percall for the system call itself: replaces
 * getppid(2)'s function (__x64_sys_getppid, an alias of __do_sys_getppid)
 * through klp_enable_patch with the same new code bench/percall/ppid.patch
 * gives ksplice.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

static long klp_sys_getppid(const struct pt_regs *regs)
{
	int pid;

	rcu_read_lock();
	pid = task_tgid_vnr(rcu_dereference(current->real_parent));
	rcu_read_unlock();

	if (unlikely(pid < 0))
		return 0;
	return pid;
}

static struct klp_func funcs[] = {
	{
		.old_name = "__x64_sys_getppid",
		.new_func = klp_sys_getppid,
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

static int klp_ppid_init(void)
{
	return klp_enable_patch(&patch);
}

static void klp_ppid_exit(void)
{
}

module_init(klp_ppid_init);
module_exit(klp_ppid_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("bench/percall: getppid(2) through livepatch");
