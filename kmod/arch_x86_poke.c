// SPDX-License-Identifier: GPL-2.0
/*
 * Writing jumps that an NMI may run into.  stop_machine() holds every
 * CPU in its callback with interrupts off, but NMI handlers still run,
 * and anything they call may be a function being patched.  A plain
 * five-byte write is not atomic for a CPU that fetches the bytes
 * meanwhile (the write itself may be interrupted half-way on its own
 * CPU), so the jump is written as text_poke_bp() writes its sites: an
 * int3 over the first byte, then the last four bytes, then the first,
 * each phase made visible to every CPU before the next.  A CPU that
 * meets the int3 in between is sent to the jump's detour: the new code,
 * which is loaded and valid during the whole stop in both directions.
 *
 * text_poke_bp() itself cannot be used here: it synchronises the other
 * CPUs with IPIs, which they cannot take while they spin in the stop
 * with interrupts off.  They are synchronised by the caller's @sync
 * instead (patch.c), and the int3 is caught by a die notifier, since the
 * kernel's own int3 handler only knows text_poke_bp()'s descriptor.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <asm/text-patching.h>
#include "ksplice.h"

/* The batch being written, or NULL: read by the die notifier. */
static struct ksplice_pokes *ksplice_poking;

static int ksplice_poke_notify(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct die_args *args = data;
	struct ksplice_pokes *b;
	unsigned long ip;
	unsigned int i;

	if (val != DIE_INT3 || user_mode(args->regs))
		return NOTIFY_DONE;
	/* Pairs with the release in ksplice_arch_poke(). */
	b = smp_load_acquire(&ksplice_poking);
	if (!b)
		return NOTIFY_DONE;
	ip = args->regs->ip - INT3_INSN_SIZE;
	for (i = 0; i < b->nr; i++) {
		if (b->p[i].addr == ip) {
			args->regs->ip = b->p[i].detour;
			atomic_inc(&b->detours);
			return NOTIFY_STOP;
		}
	}
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(ksplice_poke_notify);

static struct notifier_block ksplice_poke_nb = {
	.notifier_call = ksplice_poke_notify,
};

int ksplice_arch_poke_init(void)
{
	return register_die_notifier(&ksplice_poke_nb);
}

void ksplice_arch_poke_exit(void)
{
	unregister_die_notifier(&ksplice_poke_nb);
}

/*
 * Runs on one CPU inside stop_machine(), text_mutex held.  After the
 * first phase no CPU can execute a write's old first byte without
 * trapping, so the tail may change under it; after the second every CPU
 * has serialized with the new tail, and the last phase turns the int3
 * into the jump's opcode in one byte, which is atomic.  It needs no
 * rendezvous of its own: every CPU serializes before it leaves the stop,
 * and one still inside an int3 handler either finds the int3 gone (the
 * kernel's kprobe handler then re-runs the instruction) or finds the
 * batch, which stays published until ksplice_arch_poke_end().
 */
void ksplice_arch_poke(struct ksplice_pokes *b)
{
	static const u8 int3 = INT3_INSN_OPCODE;
	const struct ksplice_poke *p;
	unsigned int i;

	if (!b->nr)
		return;
	/* Pairs with the acquire in the notifier: the batch before its int3s. */
	smp_store_release(&ksplice_poking, b);
	for (i = 0, p = b->p; i < b->nr; i++, p++)
		ksplice_k.text_poke((void *)p->addr, &int3, INT3_INSN_SIZE);
	b->sync(b->arg);
	for (i = 0, p = b->p; i < b->nr; i++, p++)
		ksplice_k.text_poke((void *)p->addr + INT3_INSN_SIZE,
				    p->bytes + INT3_INSN_SIZE,
				    KSPLICE_JMP_LEN - INT3_INSN_SIZE);
	b->sync(b->arg);
	for (i = 0, p = b->p; i < b->nr; i++, p++)
		ksplice_k.text_poke((void *)p->addr, p->bytes, INT3_INSN_SIZE);
}

/*
 * After stop_machine() returned: every CPU has left the stop callback, so
 * any NMI that interrupted it has returned, and none is in the notifier.
 */
void ksplice_arch_poke_end(void)
{
	WRITE_ONCE(ksplice_poking, NULL);
}
