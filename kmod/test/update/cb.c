// SPDX-License-Identifier: GPL-2.0
/*
 * cb=1 for the self-test update: the target's writable ksplice_test_cb
 * gets its callback, NULL in the running module, pointed at
 * ksplice_test_cb_new, a function only the update has (a callback field
 * patched in place, ABI 9).  Undo takes it back while a task may have
 * read it: the module must stay until that task is out of it
 * (kmod/drain.c).
 */
#include <linux/elf.h>
#include "ksplice-update.h"

static const unsigned char ksplice_test_cb_img[16];
static const struct ksplice_reloc ksplice_test_cb_rel[] = {
	{ .symbol = "ksplice_test_cb_new", .offset = 0, .type = R_X86_64_64 },
};
static const struct ksplice_data ksplice_test_cb_data = {
	.name = "ksplice_test_cb", .unit = "target.c", .size = 16,
	.pre = ksplice_test_cb_img,
	.post = ksplice_test_cb_img, .post_relocs = ksplice_test_cb_rel,
	.nr_post_relocs = 1, .flags = KSPLICE_DATA_FIELDS,
};

void ksplice_test_cb(struct ksplice_update *u, int cb, unsigned int nr_new)
{
	struct ksplice_object *o = (struct ksplice_object *)u->objs;

	if (!cb)
		return;
	o->nr_new_funcs = nr_new;
	o->data = &ksplice_test_cb_data;
	o->nr_data = 1;
}
