// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/ksplice/<id>/: the user interface of an update.
 *
 *   stage              rw  loaded | applied | reversed; write applied or
 *                          reversed to change it (an error on failure)
 *   abort_cause        ro  why the last operation failed, or none
 *   abort_detail       ro  one human-readable line about it
 *   conflicts          ro  after code_busy: "<comm> <pid> <function>"
 *   functions          ro  "<name> <old_addr> <new_addr>" per function
 *   targets            ro  "<target>: <name>..." per target (vmlinux, a module)
 *   stacks             ro  "<name>: <id>..." per function more than one
 *                          applied update replaced, oldest first (stack.c)
 *   max_tries          rw  stop_machine attempts per operation
 *   retry_interval_ms  rw  pause between attempts
 *   pause_ns           ro  time spent in the last stop_machine
 *   check_ns           ro  the part of pause_ns spent walking stacks
 *
 * Writes change the running kernel's code, so besides the file modes
 * they need CAP_SYS_MODULE, like loading the update module did: root
 * without it (a container, a capability-dropping sandbox) is refused.
 */
#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "ksplice.h"

static struct kobject *ksplice_kobj;

static const char * const ksplice_stage_names[] = {
	[KSPLICE_STAGE_LOADED] = "loaded",
	[KSPLICE_STAGE_APPLIED] = "applied",
	[KSPLICE_STAGE_REVERSED] = "reversed",
};

static const char * const ksplice_abort_names[] = {
	[KSPLICE_ABORT_NONE] = "none",
	[KSPLICE_ABORT_NO_MATCH] = "no_match",
	[KSPLICE_ABORT_CODE_BUSY] = "code_busy",
	[KSPLICE_ABORT_FAILED_TO_FIND] = "failed_to_find",
	[KSPLICE_ABORT_BAD_UPDATE] = "bad_update",
	[KSPLICE_ABORT_ALREADY_APPLIED] = "already_applied",
	[KSPLICE_ABORT_NOT_APPLIED] = "not_applied",
	[KSPLICE_ABORT_UNPATCHABLE] = "unpatchable",
	[KSPLICE_ABORT_OUT_OF_MEMORY] = "out_of_memory",
	[KSPLICE_ABORT_UNEXPECTED] = "unexpected",
	[KSPLICE_ABORT_REFUSED] = "refused",
	[KSPLICE_ABORT_PROBED] = "probed",
	[KSPLICE_ABORT_EXPORTS] = "exports",
};

const char *ksplice_stage_name(enum ksplice_stage stage)
{
	return ksplice_stage_names[stage];
}

const char *ksplice_abort_name(enum ksplice_abort cause)
{
	return ksplice_abort_names[cause];
}

static struct ksplice_core *to_core(struct kobject *kobj)
{
	return container_of(kobj, struct ksplice_core, kobj);
}

/* An attribute that shows one field of the status apply and undo update. */
#define KSPLICE_STATUS_SHOW(name, fmt, expr)				\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *a, char *buf)		\
{									\
	struct ksplice_core *core = to_core(kobj);			\
	ssize_t n;							\
									\
	mutex_lock(&core->status_lock);					\
	n = sysfs_emit(buf, fmt "\n", expr);				\
	mutex_unlock(&core->status_lock);				\
	return n;							\
}

KSPLICE_STATUS_SHOW(stage, "%s", ksplice_stage_name(core->stage))

static ssize_t stage_store(struct kobject *kobj, struct kobj_attribute *a,
			   const char *buf, size_t count)
{
	struct ksplice_core *core = to_core(kobj);
	int ret;

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	if (sysfs_streq(buf, "applied"))
		ret = ksplice_apply(core);
	else if (sysfs_streq(buf, "reversed"))
		ret = ksplice_reverse(core);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}

KSPLICE_STATUS_SHOW(abort_cause, "%s", ksplice_abort_name(core->cause))

KSPLICE_STATUS_SHOW(abort_detail, "%s", core->detail)

static ssize_t conflicts_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	struct ksplice_core *core = to_core(kobj);
	const struct ksplice_conflicts *cs = &core->conflicts;
	unsigned int i;
	ssize_t n = 0;

	mutex_lock(&core->status_lock);
	for (i = 0; i < min_t(unsigned int, cs->nr, KSPLICE_MAX_CONFLICTS); i++)
		n += sysfs_emit_at(buf, n, "%s %d %s\n", cs->c[i].comm,
				   cs->c[i].pid, cs->c[i].func);
	mutex_unlock(&core->status_lock);
	return n;
}

/* Output stops at a page; 4096 functions do not fit one. */
static ssize_t functions_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	struct ksplice_core *core = to_core(kobj);
	const struct ksplice_update *u = core->update;
	unsigned int i;
	ssize_t n = 0;

	/* Not under ksplice_mutex: an apply may hold it for seconds. */
	for (i = 0; i < u->nr_funcs; i++)
		n += sysfs_emit_at(buf, n, "%s 0x%lx 0x%lx\n",
				   u->funcs[i].name,
				   READ_ONCE(core->fs[i].old_addr),
				   (unsigned long)u->funcs[i].new_code);
	return n;
}

/*
 * The read-only variables patched in place (data.c): name, target, the
 * running address (0 until found) and whether the post image is in.
 * Under ksplice_mutex: the addresses change with applies and modules.
 */
static ssize_t data_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	struct ksplice_core *core = to_core(kobj);
	const struct ksplice_update *u = core->update;
	unsigned int i;
	ssize_t n = 0;

	if (mutex_lock_interruptible(&ksplice_mutex))
		return -EINTR;
	for (i = 0; i < u->nr_data; i++)
		n += sysfs_emit_at(buf, n, "%s %s 0x%lx %s\n", u->data[i].name,
				   u->data[i].target, core->ds[i].addr,
				   core->ds[i].live ? "patched" : "-");
	mutex_unlock(&ksplice_mutex);
	return n;
}

/* The update's functions grouped by target, in the order they first come. */
static ssize_t targets_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	const struct ksplice_update *u = to_core(kobj)->update;
	unsigned int i, j;
	ssize_t n = 0;

	for (i = 0; i < u->nr_funcs; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(u->funcs[j].target, u->funcs[i].target))
				break;
		if (j < i)
			continue;
		n += sysfs_emit_at(buf, n, "%s:", u->funcs[i].target);
		for (j = i; j < u->nr_funcs; j++)
			if (!strcmp(u->funcs[j].target, u->funcs[i].target))
				n += sysfs_emit_at(buf, n, " %s",
						   u->funcs[j].name);
		n += sysfs_emit_at(buf, n, "\n");
	}
	return n;
}

/* Under ksplice_mutex: the list and the states change while it is free. */
static ssize_t stacks_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	struct ksplice_stack_entry s[KSPLICE_MAX_STACK];
	struct ksplice_core *core = to_core(kobj);
	const struct ksplice_update *u = core->update;
	unsigned int i, k, nr;
	ssize_t n = 0;

	if (mutex_lock_interruptible(&ksplice_mutex))
		return -EINTR;
	for (i = 0; i < u->nr_funcs; i++) {
		if (!core->fs[i].live)
			continue;
		nr = ksplice_stack_get(core->fs[i].old_addr, s, ARRAY_SIZE(s));
		if (nr < 2)
			continue;
		n += sysfs_emit_at(buf, n, "%s:", u->funcs[i].name);
		for (k = 0; k < min_t(unsigned int, nr, ARRAY_SIZE(s)); k++)
			n += sysfs_emit_at(buf, n, " %s",
					   s[k].core->update->id);
		n += sysfs_emit_at(buf, n, "\n");
	}
	mutex_unlock(&ksplice_mutex);
	return n;
}

static ssize_t max_tries_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_core(kobj)->max_tries));
}

static ssize_t max_tries_store(struct kobject *kobj, struct kobj_attribute *a,
			       const char *buf, size_t count)
{
	unsigned int v;
	int ret = kstrtouint(buf, 0, &v);

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	if (ret)
		return ret;
	if (!v || v > 1000)
		return -EINVAL;
	WRITE_ONCE(to_core(kobj)->max_tries, v);
	return count;
}

static ssize_t retry_interval_ms_show(struct kobject *kobj,
				      struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(to_core(kobj)->retry_interval_ms));
}

static ssize_t retry_interval_ms_store(struct kobject *kobj,
				       struct kobj_attribute *a,
				       const char *buf, size_t count)
{
	unsigned int v;
	int ret = kstrtouint(buf, 0, &v);

	if (!capable(CAP_SYS_MODULE))
		return -EPERM;
	if (ret)
		return ret;
	if (v > 60000)
		return -EINVAL;
	WRITE_ONCE(to_core(kobj)->retry_interval_ms, v);
	return count;
}

KSPLICE_STATUS_SHOW(pause_ns, "%llu", core->pause_ns)

KSPLICE_STATUS_SHOW(check_ns, "%llu", core->conflicts.check_ns)

static struct kobj_attribute stage_attr = __ATTR_RW_MODE(stage, 0600);
static struct kobj_attribute abort_cause_attr = __ATTR_RO(abort_cause);
static struct kobj_attribute abort_detail_attr = __ATTR_RO_MODE(abort_detail,
								0400);
static struct kobj_attribute conflicts_attr = __ATTR_RO_MODE(conflicts, 0400);
static struct kobj_attribute functions_attr = __ATTR_RO_MODE(functions, 0400);
static struct kobj_attribute data_attr = __ATTR_RO_MODE(data, 0400);
static struct kobj_attribute targets_attr = __ATTR_RO(targets);
static struct kobj_attribute stacks_attr = __ATTR_RO(stacks);
static struct kobj_attribute max_tries_attr = __ATTR_RW_MODE(max_tries, 0600);
static struct kobj_attribute retry_interval_ms_attr =
	__ATTR_RW_MODE(retry_interval_ms, 0600);
static struct kobj_attribute pause_ns_attr = __ATTR_RO(pause_ns);
static struct kobj_attribute check_ns_attr = __ATTR_RO(check_ns);

static struct attribute *ksplice_attrs[] = {
	&stage_attr.attr,
	&abort_cause_attr.attr,
	&abort_detail_attr.attr,
	&conflicts_attr.attr,
	&functions_attr.attr,
	&data_attr.attr,
	&targets_attr.attr,
	&stacks_attr.attr,
	&max_tries_attr.attr,
	&retry_interval_ms_attr.attr,
	&pause_ns_attr.attr,
	&check_ns_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ksplice);

static void ksplice_release(struct kobject *kobj)
{
	struct ksplice_core *core = to_core(kobj);

	ksplice_bindings_clear(&core->bindings);
	ksplice_fstates_free(core);
	ksplice_dstates_free(core);
	ksplice_objects_free(core->update);
	kfree(core);
}

static struct kobj_type ksplice_ktype = {
	.release = ksplice_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ksplice_groups,
};

int ksplice_sysfs_add(struct ksplice_core *core)
{
	int ret;

	ret = kobject_init_and_add(&core->kobj, &ksplice_ktype, ksplice_kobj,
				   "%s", core->update->id);
	if (ret)
		kobject_put(&core->kobj);
	return ret;
}

void ksplice_sysfs_del(struct ksplice_core *core)
{
	kobject_del(&core->kobj);
}

void ksplice_sysfs_put(struct ksplice_core *core)
{
	kobject_put(&core->kobj);
}

int ksplice_sysfs_init(void)
{
	ksplice_kobj = kobject_create_and_add("ksplice", kernel_kobj);
	return ksplice_kobj ? 0 : -ENOMEM;
}

void ksplice_sysfs_exit(void)
{
	kobject_put(ksplice_kobj);
}
