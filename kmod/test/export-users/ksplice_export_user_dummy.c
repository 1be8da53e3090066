// SPDX-License-Identifier: GPL-2.0
/*
 * Uses the export tests/patches/new-export-module.patch adds to the
 * module dummy, whose code reads dummy's static numdummies.
 */
#include <linux/module.h>

int ksplice_dummy_count(int x);

static int __init user_init(void)
{
	pr_info("ksplice export user of dummy: %d\n", ksplice_dummy_count(7));
	return 0;
}

static void __exit user_exit(void)
{
}

module_init(user_init);
module_exit(user_exit);
MODULE_LICENSE("GPL");
