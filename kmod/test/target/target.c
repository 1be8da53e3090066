// SPDX-License-Identifier: GPL-2.0
/*
 * Target module of the core's self-test: small functions for a test
 * update to replace, driven through /proc/ksplice_target.
 *
 *   cat /proc/ksplice_target        calls ksplice_test_target(20)
 *   echo sleep N >/proc/ksplice_target
 *                                   sleeps N ms in ksplice_test_sleeper()
 *
 * Built twice: as is (the running code and the pre object) and with
 * KSPLICE_V2 (the post object, never loaded).
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

int ksplice_test_counter;
int (*ksplice_test_op)(int x);

static noinline int ksplice_test_double(int x)
{
	return 2 * x;
}

/* An indirect call (retpoline site), a string, a printk. */
noinline int ksplice_test_target(int x)
{
	ksplice_test_counter++;
#ifndef KSPLICE_V2
	pr_info("ksplice_test_target(%d)\n", x);
	return ksplice_test_op(x) + 1;
#else
	return ksplice_test_op(x) + 100;
#endif
}

noinline void ksplice_test_sleeper(unsigned int ms)
{
	msleep(ms);
#ifndef KSPLICE_V2
	ksplice_test_counter += 1000;
#else
	ksplice_test_counter += 2000;
#endif
}

static int ksplice_test_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", ksplice_test_target(20));
	return 0;
}

static int ksplice_test_open(struct inode *inode, struct file *file)
{
	return single_open(file, ksplice_test_show, NULL);
}

static ssize_t ksplice_test_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[32];
	unsigned int ms;

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	buf[count] = '\0';
	if (sscanf(buf, "sleep %u", &ms) != 1)
		return -EINVAL;
	ksplice_test_sleeper(ms);
	return count;
}

static const struct proc_ops ksplice_test_ops = {
	.proc_open = ksplice_test_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = ksplice_test_write,
};

static int __init ksplice_test_init(void)
{
	ksplice_test_op = ksplice_test_double;
	if (!proc_create("ksplice_target", 0600, NULL, &ksplice_test_ops))
		return -ENOMEM;
	return 0;
}

static void __exit ksplice_test_exit(void)
{
	remove_proc_entry("ksplice_target", NULL);
}

module_init(ksplice_test_init);
module_exit(ksplice_test_exit);
MODULE_LICENSE("GPL");
