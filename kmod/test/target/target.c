// SPDX-License-Identifier: GPL-2.0
/*
 * Target module of the core's self-test: small functions for a test
 * update to replace, driven through /proc/ksplice_target.
 *
 *   cat /proc/ksplice_target        prints ksplice_test_target(20),
 *                                   ksplice_test_caller(20) and
 *                                   ksplice_test_tail(20)
 *   echo sleep N >/proc/ksplice_target
 *                                   sleeps N ms in ksplice_test_sleeper()
 *   echo sc N >/proc/ksplice_target points the static calls elsewhere
 *                                   (N=1) or back (N=0)
 *   echo nmi N >/proc/ksplice_target
 *                                   every unclaimed NMI (QEMU's inject-nmi)
 *                                   calls ksplice_test_nmi() (N=1), and
 *                                   sends the next NMI to the next CPU
 *                                   (N=2), or not (N=0)
 *   cat /proc/ksplice_target_nmi    what those calls returned
 *   echo hold N >/proc/ksplice_target
 *                                   reads ksplice_test_cb's callback, waits
 *                                   for "go" without sleeping, then calls
 *                                   it with N (ENOENT if it read NULL)
 *   echo go >/proc/ksplice_target   lets "hold" go on
 *   echo spin N >/proc/ksplice_target
 *                                   keeps the CPU N ms without a switch
 *                                   (the rig's lockup check, 01-vm-lockup.t)
 *
 * Built twice: as is (the running code and the pre object) and with
 * KSPLICE_V2 (the post object, never loaded).
 */
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/static_call.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/nmi.h>

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

static int ksplice_test_triple(int x)
{
	return 3 * x;
}

static void ksplice_test_note(int x)
{
	ksplice_test_counter += x;
}

DEFINE_STATIC_CALL(ksplice_test_sc, ksplice_test_triple);
DEFINE_STATIC_CALL_NULL(ksplice_test_null, ksplice_test_note);

/* Static call sites: a call, and a NULL (nop) conditional call. */
noinline int ksplice_test_caller(int x)
{
	int ret;

	ksplice_test_counter++;
#ifndef KSPLICE_V2
	ret = static_call(ksplice_test_sc)(x) + 1;
#else
	ret = static_call(ksplice_test_sc)(x) + 2;
#endif
	static_call_cond(ksplice_test_null)(x);
	return ret;
}

/*
 * A static call right after the ftrace site, where the jump would go:
 * ftrace redirects it instead (bad=108 of the self-test).
 */
noinline int ksplice_test_wrapper(int x)
{
	return static_call(ksplice_test_sc)(x);
}

/* A static call as a tail call (not where the jump goes: see match.c). */
noinline int ksplice_test_tail(int x)
{
	ksplice_test_counter++;
#ifndef KSPLICE_V2
	return static_call(ksplice_test_sc)(x);
#else
	return static_call(ksplice_test_sc)(x + 1);
#endif
}

DEFINE_STATIC_KEY_FALSE(ksplice_test_key);

/*
 * A jump label whose jmp is 5 bytes in the pre object (target_pre.c) and
 * runs as the 2-byte jmp to the same place and a 3-byte nop.  The key is
 * never toggled: jump_label.c would find the bytes it expects there.
 */
#ifdef KSPLICE_PRE
#define KSPLICE_TEST_JMP ".byte 0xe9\n\t.long %l[l_yes] - 2f\n2:\n\t"
#else
#define KSPLICE_TEST_JMP ".byte 0xeb, %l[l_yes] - 2f\n2:\n\t" \
			 ".byte 0x0f, 0x1f, 0x00\n\t"
#endif

noinline int ksplice_test_jl(int x)
{
	asm goto("1: " KSPLICE_TEST_JMP JUMP_TABLE_ENTRY
		 : : "i" (&ksplice_test_key), "i" (0) : : l_yes);
	return x;
l_yes:
#ifndef KSPLICE_V2
	return x + 1;
#else
	return x + 2;
#endif
}

/*
 * No ftrace site, and a jump label first: where its jump would go.  The
 * core pins such a site in vmlinux only (kmod/jump_pin.c): in a module
 * it refuses the function.
 */
notrace noinline int ksplice_test_jl_nt(int x)
{
	if (static_branch_unlikely(&ksplice_test_key))
		return x + 3;
#ifndef KSPLICE_V2
	return x;
#else
	return x + 1;
#endif
}

static void ksplice_test_retarget(bool other)
{
	if (other) {
		static_call_update(ksplice_test_sc, ksplice_test_double);
		static_call_update(ksplice_test_null, ksplice_test_note);
	} else {
		static_call_update(ksplice_test_sc, ksplice_test_triple);
		static_call_update(ksplice_test_null,
				   (typeof(&ksplice_test_note))NULL);
	}
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

/*
 * A writable structure with a callback, NULL here: the self-test update
 * with cb=1 points it at ksplice_test_cb_new, which only the new code has.
 * Its @op is what the update proves it by (an anchor).
 */
struct ksplice_test_cbs {
	void (*fn)(unsigned int ms);
	unsigned long calls;
	int (*op)(int x);
};

struct ksplice_test_cbs ksplice_test_cb = { .op = ksplice_test_double };
static bool ksplice_test_go;

#ifdef KSPLICE_V2
noinline void ksplice_test_cb_new(unsigned int ms)
{
	msleep(ms);
	ksplice_test_counter += 5000;
}
#endif

/*
 * "hold": as a task preempted between loading an ops pointer and the
 * call, it yields without ever sleeping (no voluntary switch) until "go".
 */
static int ksplice_test_hold(unsigned int ms)
{
	void (*fn)(unsigned int ms) = READ_ONCE(ksplice_test_cb.fn);

	while (!READ_ONCE(ksplice_test_go))
		cond_resched();
	WRITE_ONCE(ksplice_test_go, false);
	if (!fn)
		return -ENOENT;
	ksplice_test_cb.calls++;
	fn(ms);
	return 0;
}

/*
 * Run by an NMI handler (echo nmi 1): stop_machine() does not stop those,
 * so the jump must be written so that a CPU running this function in
 * the middle of the write runs the old or the new code, never a mix
 * (kmod/arch_x86_poke.c).  Long enough for the jump after the ftrace site.
 */
int ksplice_test_nmi_base[4];

noinline int ksplice_test_nmi(int x)
{
	int b = READ_ONCE(ksplice_test_nmi_base[x & 3]);

#ifndef KSPLICE_V2
	return x + b + 1;
#else
	return x + b + 2;
#endif
}

#define KSPLICE_TEST_NMI_CALLS	256

static atomic_t ksplice_test_nmis, ksplice_test_nmis_stop;
/* Results of ksplice_test_nmi(): old code, new code, neither. */
static atomic_long_t ksplice_test_nmi_res[3];
static bool ksplice_test_nmi_on, ksplice_test_nmi_storm;

/*
 * "nmi 2": each NMI handled sends the next one to the next CPU, so NMIs
 * run on every CPU all along -- during stop_machine() too, where nothing
 * else could send one -- whatever rate QEMU injects them at.
 */
static void ksplice_test_nmi_next(void)
{
	unsigned int cpu = smp_processor_id();
	unsigned int next = cpumask_next(cpu, cpu_online_mask);

	if (next >= nr_cpu_ids)
		next = cpumask_first(cpu_online_mask);
	if (next != cpu)
		apic->send_IPI(next, NMI_VECTOR);
}

/* NMI_UNKNOWN: QEMU's injected NMIs, which nothing else claims. */
static int ksplice_test_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	long res[3] = { 0 };
	int i, r;

	atomic_inc(&ksplice_test_nmis);
	/* stop_machine() runs its callbacks in these, interrupts off. */
	if (!(regs->flags & X86_EFLAGS_IF) &&
	    !strncmp(current->comm, "migration/", 10))
		atomic_inc(&ksplice_test_nmis_stop);
	for (i = 0; i < KSPLICE_TEST_NMI_CALLS; i++) {
		r = ksplice_test_nmi(i) - i;
		res[r == 1 ? 0 : r == 2 ? 1 : 2]++;
	}
	for (i = 0; i < 3; i++)
		atomic_long_add(res[i], &ksplice_test_nmi_res[i]);
	if (READ_ONCE(ksplice_test_nmi_storm))
		ksplice_test_nmi_next();
	return NMI_HANDLED;
}

static int ksplice_test_nmi_set(unsigned int mode)
{
	bool on = mode > 0;
	int ret = 0;

	WRITE_ONCE(ksplice_test_nmi_storm, mode == 2);
	/* A storm's last NMIs are on their way: let them find the handler. */
	if (!on)
		msleep(100);
	if (on && !ksplice_test_nmi_on)
		ret = register_nmi_handler(NMI_UNKNOWN,
					   ksplice_test_nmi_handler, 0,
					   "ksplice_test");
	else if (!on && ksplice_test_nmi_on)
		unregister_nmi_handler(NMI_UNKNOWN, "ksplice_test");
	if (!ret)
		ksplice_test_nmi_on = on;
	return ret;
}

static int ksplice_test_nmi_show(struct seq_file *m, void *v)
{
	seq_printf(m, "nmis %d in_stop %d old %ld new %ld neither %ld\n",
		   atomic_read(&ksplice_test_nmis),
		   atomic_read(&ksplice_test_nmis_stop),
		   atomic_long_read(&ksplice_test_nmi_res[0]),
		   atomic_long_read(&ksplice_test_nmi_res[1]),
		   atomic_long_read(&ksplice_test_nmi_res[2]));
	return 0;
}

static int ksplice_test_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d %d %d\n", ksplice_test_target(20),
		   ksplice_test_caller(20), ksplice_test_tail(20));
	ksplice_test_counter += ksplice_test_wrapper(1) + ksplice_test_jl(1) +
				ksplice_test_jl_nt(0);
	return 0;
}

static int ksplice_test_open(struct inode *inode, struct file *file)
{
	return single_open(file, ksplice_test_show, NULL);
}

static void ksplice_test_spin(unsigned int ms)
{
	preempt_disable();
	while (ms--)
		mdelay(1);
	preempt_enable();
}

static ssize_t ksplice_test_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[32];
	unsigned int ms;

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	buf[count] = '\0';
	if (sscanf(buf, "sleep %u", &ms) == 1)
		ksplice_test_sleeper(ms);
	else if (sscanf(buf, "sc %u", &ms) == 1)
		ksplice_test_retarget(ms);
	else if (sscanf(buf, "nmi %u", &ms) == 1)
		return ksplice_test_nmi_set(ms) ?: count;
	else if (sscanf(buf, "hold %u", &ms) == 1)
		return ksplice_test_hold(ms) ?: count;
	else if (sscanf(buf, "spin %u", &ms) == 1)
		ksplice_test_spin(ms);
	else if (!strcmp(buf, "go\n") || !strcmp(buf, "go"))
		WRITE_ONCE(ksplice_test_go, true);
	else
		return -EINVAL;
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
	if (!proc_create_single("ksplice_target_nmi", 0400, NULL,
				ksplice_test_nmi_show)) {
		remove_proc_entry("ksplice_target", NULL);
		return -ENOMEM;
	}
	return 0;
}

static void __exit ksplice_test_exit(void)
{
	ksplice_test_nmi_set(0);
	remove_proc_entry("ksplice_target_nmi", NULL);
	remove_proc_entry("ksplice_target", NULL);
}

module_init(ksplice_test_init);
module_exit(ksplice_test_exit);
MODULE_LICENSE("GPL");
