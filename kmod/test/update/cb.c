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

static const unsigned char ksplice_test_cb_img[24];
static const struct ksplice_reloc ksplice_test_cb_rel[] = {
	{ .symbol = "ksplice_test_cb_new", .offset = 0, .type = R_X86_64_64 },
};
static struct ksplice_reloc ksplice_test_cb_anchor[] = {
	{ .symbol = "ksplice_test_double", .offset = 16, .type = R_X86_64_64 },
};
static struct ksplice_data ksplice_test_cb_data = {
	.name = "ksplice_test_cb", .unit = "target.c", .size = 24,
	.pre = ksplice_test_cb_img,
	.post = ksplice_test_cb_img, .post_relocs = ksplice_test_cb_rel,
	.nr_post_relocs = 1, .flags = KSPLICE_DATA_FIELDS,
	.anchors = ksplice_test_cb_anchor, .nr_anchors = 1,
};

/*
 * cb=2: the field names ksplice_test_double, a static the target has,
 * and the update's added function is renamed a global of that name of
 * another unit: the name means the target's function, as in C.
 */
static const struct ksplice_reloc ksplice_test_cb_rel2[] = {
	{ .symbol = "ksplice_test_double", .offset = 0, .type = R_X86_64_64 },
};

void ksplice_test_cb(struct ksplice_update *u, int cb, unsigned int nr_new)
{
	struct ksplice_object *o = (struct ksplice_object *)u->objs;
	struct ksplice_data *d = &ksplice_test_cb_data;
	struct ksplice_func *f = (struct ksplice_func *)o->new_funcs;

	if (!cb)
		return;
	o->nr_new_funcs = nr_new;
	o->data = d;
	o->nr_data = 1;
	/* cb=3: an anchor the running variable does not hold. */
	if (cb == 3)
		ksplice_test_cb_anchor[0].symbol = "ksplice_test_cb_new";
	if (cb == 2 && nr_new) {
		d->post_relocs = ksplice_test_cb_rel2;
		f->name = "ksplice_test_double";
		f->unit = "other.c";
		f->flags |= KSPLICE_FUNC_GLOBAL;
	}
}
