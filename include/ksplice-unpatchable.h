/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ksplice must never patch: code that runs while it patches.
 *
 * The jumps are written inside stop_machine(), with every CPU spinning in
 * multi_cpu_stop(); text_poke() writes them; the stack check walks every
 * task with the ORC unwinder and names what it finds through kallsyms.
 * Writing a jump into any of these while it runs, on this CPU or from an
 * NMI on another (stop_machine does not stop NMIs), executes a torn
 * instruction.  The core's own code is not in the kernel's source, and the
 * core refuses updates to its own module by name.
 *
 * One table, read by ksplice-create (refuses the update, src/create/
 * unsafe.c) and by the core (refuses to match, kmod/match.c), so a hand-made
 * update is refused too.  @name NULL: every function of @unit.  Functions
 * the kernel itself marks NOKPROBE_SYMBOL (they run on the int3 and NMI
 * paths) are refused by ksplice-create as well, from the object's
 * _kprobe_blacklist section.
 */
#ifndef KSPLICE_UNPATCHABLE_H
#define KSPLICE_UNPATCHABLE_H

struct ksplice_unpatchable {
	const char *unit;	/* source file, as the update's func.unit */
	const char *name;	/* a function of it, or NULL: all */
	const char *why;	/* completes "it cannot be patched live: " */
};

#define KSPLICE_UNPATCHABLE_TABLE {					\
	{ "kernel/stop_machine.c", NULL,				\
	  "stop_machine() holds every CPU while the jumps are written" },	\
	{ "arch/x86/kernel/alternative.c", NULL,			\
	  "text_poke() writes the jumps" },				\
	{ "arch/x86/kernel/unwind_orc.c", NULL,				\
	  "the stack check walks every task with the ORC unwinder" },	\
	{ "kernel/kallsyms.c", NULL,					\
	  "the core looks up symbols while the machine is stopped" },	\
	{ "arch/x86/kernel/nmi.c", NULL,				\
	  "NMIs run on other CPUs while the machine is stopped" },	\
	{ "kernel/watchdog_hld.c", NULL,				\
	  "the NMI watchdog runs while the machine is stopped" },	\
	{ "arch/x86/events/core.c", "perf_event_nmi_handler",		\
	  "NMIs run on other CPUs while the machine is stopped" },	\
	{ "kernel/trace/ftrace.c", NULL,				\
	  "ftrace redirects the functions a jump cannot" },		\
	{ "arch/x86/kernel/ftrace.c", NULL,				\
	  "ftrace redirects the functions a jump cannot" },		\
}

#define KSPLICE_CORE_MODULE	"ksplice"

/* Why @name of @unit must not be patched, or NULL. */
static inline const char *
ksplice_unpatchable(const struct ksplice_unpatchable *table, unsigned int n,
		    const char *unit, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct ksplice_unpatchable *u = &table[i];

		if (!__builtin_strcmp(u->unit, unit) &&
		    (!u->name || !__builtin_strcmp(u->name, name)))
			return u->why;
	}
	return 0;
}

#endif
