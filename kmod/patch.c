// SPDX-License-Identifier: GPL-2.0
/*
 * Apply and undo: inside one stop_machine() on all online CPUs, check
 * that no task is in the code being left and then write (or restore)
 * the jumps of every function of the update, and its read-only data
 * (data.c).  Either all of them change in one stop or none does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <asm/sync_core.h>
#include "ksplice.h"

struct ksplice_stop {
	struct ksplice_core *core;
	struct ksplice_ranges *ranges;
	struct ksplice_writes *writes;	/* a replace update's, or NULL */
	struct ksplice_pokes *pokes;	/* the jumps to write */
	struct ksplice_prewalk *prewalk;	/* or NULL: walk every task */
	bool undo;
	atomic_t arrived;
	int done;
	int phase;			/* of the pokes, see ksplice_stop_sync() */
	atomic_t acks;			/* of the phases, by the other CPUs */
	unsigned int stale;		/* function whose bytes changed */
	int stale_data;			/* variable whose bytes are not the
					 * image expected (data.c) */
	u64 ns;				/* the whole callback */
	struct ksplice_conflicts conflicts;
};

/* The bytes expected at a jump's place before and after the change. */
static const u8 *ksplice_before(struct ksplice_fstate *fs, bool undo)
{
	return undo ? fs->jmp : fs->before;
}

static const u8 *ksplice_after(struct ksplice_fstate *fs, bool undo)
{
	return undo ? fs->saved : fs->jmp;
}

static void ksplice_poke_add(struct ksplice_pokes *b, unsigned long addr,
			     const u8 *bytes, unsigned long detour)
{
	b->p[b->nr++] = (struct ksplice_poke){ addr, bytes, detour };
}

/*
 * A replaced update's jump is written back to what it replaced (or
 * retargeted): a CPU meeting the write goes where the jump went, to the
 * replaced update's code, which stays loaded until after the stop.
 */
static unsigned long ksplice_write_detour(const struct ksplice_write *w)
{
	return ksplice_arch_jmp_dest(w->addr, w->before);
}

static int ksplice_stop_work(struct ksplice_stop *st)
{
	struct ksplice_core *core = st->core;
	unsigned int i, n = core->update->nr_funcs;
	struct ksplice_fstate *fs;

	ksplice_check_stacks(st->ranges, st->prewalk, &st->conflicts);
	if (st->conflicts.nr)
		return -EBUSY;
	/* Someone else (a kprobe, say) wrote there since matching. */
	for (i = 0; i < n; i++) {
		fs = &core->fs[i];
		if (!fs->via_ftrace &&
		    memcmp((void *)fs->patch_addr, ksplice_before(fs, st->undo),
			   KSPLICE_JMP_LEN)) {
			st->stale = i;
			return -ESTALE;
		}
	}
	for (i = 0; st->writes && i < st->writes->nr; i++) {
		if (!st->writes->w[i].off &&
		    memcmp((void *)st->writes->w[i].addr,
			   st->writes->w[i].before, KSPLICE_JMP_LEN)) {
			st->stale = n;
			return -ESTALE;
		}
	}
	st->stale_data = ksplice_data_check(core, st->undo);
	if (st->stale_data >= 0)
		return -EILSEQ;
	/* Undo: the state swaps back while the new code is still in. */
	if (st->undo)
		ksplice_hooks_stop(core, true);
	for (i = 0; st->writes && i < st->writes->nr; i++) {
		if (st->writes->w[i].off)
			ksplice_redirect_off(st->writes->w[i].off);
		else
			ksplice_poke_add(st->pokes, st->writes->w[i].addr,
					 st->writes->w[i].after,
					 ksplice_write_detour(&st->writes->w[i]));
	}
	for (i = 0; i < n; i++) {
		fs = &core->fs[i];
		if (fs->over) {
			ksplice_redirect_retarget(fs->over, st->undo ?
				fs->run_addr :
				(unsigned long)core->update->funcs[i].new_code);
			continue;
		}
		if (fs->via_ftrace) {
			ksplice_redirect_switch(fs, !st->undo);
			continue;
		}
		ksplice_poke_add(st->pokes, fs->patch_addr,
				 ksplice_after(fs, st->undo),
				 (unsigned long)core->update->funcs[i].new_code);
	}
	ksplice_data_write(core, st->undo);
	ksplice_arch_poke(st->pokes);
	if (!st->undo)
		ksplice_hooks_stop(core, false);
	return 0;
}

/*
 * Called by the CPU writing the jumps between the phases of its writes:
 * returns once every other CPU has serialized after this phase.  They
 * spin in ksplice_stop_fn() and acknowledge each phase once, from there,
 * so an NMI that interrupted one of them has returned by then.  The
 * phase advances only once all acknowledged the last one, so none skips
 * a phase.
 */
static void ksplice_stop_sync(void *arg)
{
	struct ksplice_stop *st = arg;
	int others = num_online_cpus() - 1;
	int phase = st->phase + 1;

	sync_core();
	/* Pairs with the acquire in ksplice_stop_fn(): the bytes are out. */
	smp_store_release(&st->phase, phase);
	while (atomic_read(&st->acks) < phase * others)
		barrier();	/* no cpu_relax(): see ksplice_stop_fn() */
}

/*
 * Runs on every online CPU with interrupts off.  The first to arrive
 * does the work; the others serialize at each phase of its writes and
 * at the end, so that none of them executes stale prefetched
 * instructions of the old code.
 */
static int ksplice_stop_fn(void *data)
{
	struct ksplice_stop *st = data;
	int seen = 0, phase;
	u64 t0;
	int ret;

	if (atomic_inc_return(&st->arrived) == 1) {
		t0 = ktime_get_mono_fast_ns();
		ret = ksplice_stop_work(st);
		st->ns = ktime_get_mono_fast_ns() - t0;
		/* Pairs with the acquire below: the new code is visible. */
		smp_store_release(&st->done, 1);
		sync_core();
		return ret;
	}
	/* Pairs with the release above. */
	while (!smp_load_acquire(&st->done)) {
		/* Pairs with the release in ksplice_stop_sync(). */
		phase = smp_load_acquire(&st->phase);
		if (phase != seen) {
			sync_core();
			seen = phase;
			atomic_inc(&st->acks);
		}
		/*
		 * No cpu_relax(): under an emulator or hypervisor a PAUSE may
		 * exit to it, and the writer waits for this loop at each
		 * phase (QEMU's TCG takes its global lock on each: the pause
		 * of a one-function update grew from 0.5 to 16 ms).  This CPU
		 * spins for the whole stop (the stack check included) with
		 * interrupts off either way; the writer's waits are short.
		 */
		barrier();
	}
	sync_core();
	return 0;
}

static int ksplice_make_jumps(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_fstate *fs;
	unsigned int i;

	for (i = 0; i < u->nr_funcs; i++) {
		fs = &core->fs[i];
		if (ksplice_arch_jmp(fs->patch_addr,
				     (unsigned long)u->funcs[i].new_code,
				     fs->jmp))
			return ksplice_set_abort(core, KSPLICE_ABORT_BAD_UPDATE,
						 "%s: new code out of reach",
						 u->funcs[i].name);
	}
	return 0;
}

/* Someone wrote where a jump goes since matching: a kprobe, say. */
static int ksplice_stale_result(struct ksplice_stop *st)
{
	struct ksplice_core *core = st->core;
	unsigned long addr, probe;
	const char *name;

	if (st->stale == core->update->nr_funcs)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "a replaced update's jump changed since matching");
	name = core->update->funcs[st->stale].name;
	addr = core->fs[st->stale].patch_addr;
	probe = ksplice_kprobe_in(addr - KSPLICE_JMP_LEN + 1,
				  addr + KSPLICE_JMP_LEN - 1);
	if (probe)
		return ksplice_set_abort(core, KSPLICE_ABORT_PROBED,
					 "%s: a kprobe was set at %pS since matching",
					 name, (void *)probe);
	return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
				 "%s: code changed since matching", name);
}

static int ksplice_stop_result(struct ksplice_stop *st, int ret)
{
	struct ksplice_core *core = st->core;
	const struct ksplice_conflict *c = &st->conflicts.c[0];

	mutex_lock(&core->status_lock);
	core->conflicts = st->conflicts;
	core->pause_ns = st->ns;
	mutex_unlock(&core->status_lock);

	if (ret == -EBUSY)
		return ksplice_set_abort(core, KSPLICE_ABORT_CODE_BUSY,
					 "%u tasks in the code, first %s %d in %s",
					 st->conflicts.nr, c->comm, c->pid,
					 c->func);
	if (ret == -ESTALE)
		return ksplice_stale_result(st);
	if (ret == -EILSEQ)
		return ksplice_data_stale(core, st->stale_data, st->undo);
	if (ret)
		return ksplice_set_abort(core, KSPLICE_ABORT_UNEXPECTED,
					 "stop_machine: %d", ret);
	return 0;
}

/* Room for every jump the stop may write: the update's and the replaced. */
static struct ksplice_pokes *ksplice_pokes_alloc(struct ksplice_stop *st)
{
	unsigned int n = st->core->update->nr_funcs +
			 (st->writes ? st->writes->nr : 0);
	struct ksplice_pokes *b;

	b = kvzalloc(struct_size(b, p, n), GFP_KERNEL);
	if (b) {
		b->sync = ksplice_stop_sync;
		b->arg = st;
	}
	return b;
}

/*
 * One attempt to apply (or undo) the update.  Returns -EBUSY if tasks
 * were in the way; the caller retries.  The abort cause is set on
 * failure.
 */
int ksplice_patch(struct ksplice_core *core, bool undo)
{
	struct ksplice_stop *st;
	int ret, pinned;

	if (!undo) {
		ret = ksplice_make_jumps(core);
		if (ret)
			return ret;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "patching");
	st->core = core;
	if (!undo && core->replacing) {
		st->writes = ksplice_replace_writes(core);
		if (IS_ERR(st->writes)) {
			ret = PTR_ERR(st->writes);
			kfree(st);
			return ret;
		}
	}
	st->ranges = ksplice_ranges_build(core, undo);
	st->pokes = ksplice_pokes_alloc(st);
	if (!st->ranges || !st->pokes) {
		kvfree(st->pokes);
		kvfree(st->ranges);
		kvfree(st->writes);
		kfree(st);
		return ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "patching");
	}
	st->undo = undo;
	atomic_set(&st->arrived, 0);
	atomic_set(&st->acks, 0);

	/* Stacks walked before the stop, which re-walks those that moved. */
	st->prewalk = ksplice_prewalk_take(core, undo);
	/*
	 * The kernel's order: cpu_hotplug_lock, jump_label_mutex (jump_pin.c),
	 * text_mutex (see static_key_enable() and kprobes).
	 */
	cpus_read_lock();
	pinned = ksplice_jump_pins_take(core, undo);
	if (!pinned) {
		mutex_lock(ksplice_k.text_mutex);
		ret = ksplice_k.stop_machine_cpuslocked(ksplice_stop_fn, st,
							cpu_online_mask);
		ksplice_arch_poke_end();
		mutex_unlock(ksplice_k.text_mutex);
		ksplice_jump_pins_put(core, undo, !ret);
	}
	cpus_read_unlock();
	ksplice_prewalk_free(st->prewalk);

	ret = pinned ? pinned : ksplice_stop_result(st, ret);
	if (!ret)
		pr_info("%s: %s, %llu ns in stop_machine (%llu ns walking stacks, %d CPUs detoured past a write)\n",
			core->update->id, undo ? "reversed" : "applied", st->ns,
			st->conflicts.check_ns,
			atomic_read(&st->pokes->detours));
	kvfree(st->pokes);
	kvfree(st->ranges);
	kvfree(st->writes);
	kfree(st);
	return ret;
}
