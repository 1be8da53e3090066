// SPDX-License-Identifier: GPL-2.0
/*
 * Uses the exports tests/patches/new-exports.patch adds to vmlinux: a
 * function and a variable.
 */
#include <linux/module.h>

extern int ksplice_test_answer;
int ksplice_test_twice(int x);

static int __init user_init(void)
{
	pr_info("ksplice export user: %d\n",
		ksplice_test_twice(ksplice_test_answer));
	return 0;
}

static void __exit user_exit(void)
{
}

module_init(user_init);
module_exit(user_exit);
MODULE_LICENSE("GPL");
