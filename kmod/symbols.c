// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms access: the addresses a name has in vmlinux or in a module,
 * and the kernel internals the core needs but which are not exported.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/string.h>
#include "ksplice.h"

struct ksplice_kernel ksplice_k;

typedef unsigned long (*ksplice_lookup_name_t)(const char *name);
static ksplice_lookup_name_t ksplice_kallsyms_lookup_name;

/*
 * kallsyms_lookup_name is not exported; a kprobe on it resolves its
 * address without a guessed constant.
 */
static int ksplice_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0)
		return ret;
	ksplice_kallsyms_lookup_name = (ksplice_lookup_name_t)kp.addr;
	unregister_kprobe(&kp);
	return ksplice_kallsyms_lookup_name ? 0 : -ENOENT;
}

unsigned long ksplice_lookup_name(const char *name)
{
	return ksplice_kallsyms_lookup_name(name);
}

#define KSPLICE_KSYM(field, name) { name, (void **)&ksplice_k.field }

static const struct {
	const char *name;
	void **ptr;
} ksplice_ksyms[] = {
	KSPLICE_KSYM(text_poke, "text_poke"),
	KSPLICE_KSYM(text_mutex, "text_mutex"),
	KSPLICE_KSYM(module_mutex, "module_mutex"),
	KSPLICE_KSYM(on_each_match_symbol, "kallsyms_on_each_match_symbol"),
	KSPLICE_KSYM(kallsyms_lookup, "kallsyms_lookup"),
	KSPLICE_KSYM(is_ftrace_trampoline, "is_ftrace_trampoline"),
	KSPLICE_KSYM(find_module, "find_module"),
	KSPLICE_KSYM(module_address, "__module_address"),
	KSPLICE_KSYM(stop_machine_cpuslocked, "stop_machine_cpuslocked"),
	KSPLICE_KSYM(idle_task, "idle_task"),
	KSPLICE_KSYM(jump_label_reserved, "jump_label_text_reserved"),
	KSPLICE_KSYM(static_call_reserved, "static_call_text_reserved"),
	KSPLICE_KSYM(get_kprobe, "get_kprobe"),
	KSPLICE_KSYM(jump_label_lock, "jump_label_lock"),
	KSPLICE_KSYM(jump_label_unlock, "jump_label_unlock"),
	KSPLICE_KSYM(start_jump_table, "__start___jump_table"),
	KSPLICE_KSYM(stop_jump_table, "__stop___jump_table"),
	KSPLICE_KSYM(put_task_stack, "put_task_stack"),
	KSPLICE_KSYM(tp_sched_switch, "__tracepoint_sched_switch"),
	KSPLICE_KSYM(tp_sched_fork, "__tracepoint_sched_process_fork"),
};

int ksplice_symbols_init(void)
{
	int i, ret;

	ret = ksplice_find_lookup_name();
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name: %d\n", ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(ksplice_ksyms); i++) {
		*ksplice_ksyms[i].ptr =
			(void *)ksplice_lookup_name(ksplice_ksyms[i].name);
		if (!*ksplice_ksyms[i].ptr) {
			pr_err("cannot find kernel symbol %s\n",
			       ksplice_ksyms[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

bool ksplice_is_vmlinux(const char *target)
{
	return !strcmp(target, "vmlinux");
}

/*
 * Collects every address of a name, keeping the first @max; or, with
 * @want set, only notes whether @want is among them.
 */
struct ksplice_addrs {
	unsigned long *addrs;
	int max;
	int nr;
	unsigned long want;
	bool found;
	bool global;		/* only global symbols (modules') */
};

static void ksplice_addrs_push(struct ksplice_addrs *a, unsigned long addr)
{
	if (a->want) {
		a->found |= addr == a->want;
		return;
	}
	if (a->nr < a->max)
		a->addrs[a->nr] = addr;
	a->nr++;
}

static int ksplice_vmlinux_cb(void *data, unsigned long addr)
{
	ksplice_addrs_push(data, addr);
	return 0;
}

/* The module's symbols named @name; called under module_mutex. */
static void ksplice_module_addrs(struct module *mod, const char *name,
				 struct ksplice_addrs *a)
{
	struct mod_kallsyms *ks;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	preempt_enable();

	for (i = 0; i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];

		if (sym->st_shndx == SHN_UNDEF ||
		    (a->global && ELF_ST_BIND(sym->st_info) == STB_LOCAL))
			continue;
		if (!strcmp(ks->strtab + sym->st_name, name))
			ksplice_addrs_push(a, sym->st_value);
	}
}

/* A module being loaded or running: its text is there and stays. */
static bool ksplice_module_present(const struct module *mod)
{
	return mod && (mod->state == MODULE_STATE_LIVE ||
		       mod->state == MODULE_STATE_COMING);
}

/*
 * Every address kallsyms has for @name in @target ("vmlinux" or a module
 * name), or with @deps in the modules @target uses (links against).
 * Returns 0, or -ENOENT if the target module is not loaded.
 */
static int ksplice_walk(const char *target, const char *name, bool deps,
			struct ksplice_addrs *a)
{
	struct module_use *use;
	struct module *mod;

	if (ksplice_is_vmlinux(target)) {
		ksplice_k.on_each_match_symbol(ksplice_vmlinux_cb, name, a);
		return 0;
	}

	mutex_lock(ksplice_k.module_mutex);
	mod = ksplice_k.find_module(target);
	if (ksplice_module_present(mod)) {
		if (!deps)
			ksplice_module_addrs(mod, name, a);
		else
			list_for_each_entry(use, &mod->target_list, target_list)
				if (use->target->state != MODULE_STATE_UNFORMED)
					ksplice_module_addrs(use->target, name,
							     a);
	}
	mutex_unlock(ksplice_k.module_mutex);
	return ksplice_module_present(mod) ? 0 : -ENOENT;
}

int ksplice_sym_addrs(const char *target, const char *name,
		      unsigned long *addrs, int max)
{
	struct ksplice_addrs a = { .addrs = addrs, .max = max };
	int ret;

	ret = ksplice_walk(target, name, false, &a);
	return ret ? ret : a.nr;
}

static bool ksplice_sym_is_in(const char *target, const char *name,
			      bool deps, unsigned long addr)
{
	struct ksplice_addrs a = { .want = addr };

	return addr && !ksplice_walk(target, name, deps, &a) && a.found;
}

/*
 * Is @addr one of the addresses of @name as code of @target sees it?  A
 * module's code also refers to vmlinux and to the modules it uses (whose
 * exports it links against): a name several modules have is told apart
 * by which of them the target depends on.
 */
bool ksplice_sym_is(const char *target, const char *name, unsigned long addr)
{
	if (ksplice_sym_is_in(target, name, false, addr))
		return true;
	if (ksplice_is_vmlinux(target))
		return false;
	return ksplice_sym_is_in("vmlinux", name, false, addr) ||
	       ksplice_sym_is_in(target, name, true, addr);
}

/*
 * The one address of @name for code of @target: the target module's own
 * symbol first, then vmlinux, then the modules the target uses.  -ENOENT
 * if none, -E2BIG if ambiguous.
 */
int ksplice_sym_unique(const char *target, const char *name,
		       unsigned long *addr)
{
	struct ksplice_addrs a = { .addrs = addr, .max = 1 };
	int nr;

	nr = ksplice_sym_addrs(target, name, addr, 1);
	if (nr <= 0 && !ksplice_is_vmlinux(target))
		nr = ksplice_sym_addrs("vmlinux", name, addr, 1);
	if (nr <= 0 && !ksplice_is_vmlinux(target) &&
	    !ksplice_walk(target, name, true, &a))
		nr = a.nr;
	if (nr <= 0)
		return -ENOENT;
	return nr == 1 ? 0 : -E2BIG;
}

/*
 * The one address of global @name in module @target or the modules it
 * uses (links against): where the module loader would have linked a call
 * of a module's export (the target's own, as nvme_core's
 * nvme_find_get_ns, or another's).  -ENOENT if none, -E2BIG if ambiguous.
 */
int ksplice_sym_export(const char *target, const char *name,
		       unsigned long *addr)
{
	struct ksplice_addrs a = { .addrs = addr, .max = 1, .global = true };

	if (ksplice_is_vmlinux(target) || ksplice_walk(target, name, false, &a) ||
	    ksplice_walk(target, name, true, &a) || a.nr <= 0)
		return -ENOENT;
	return a.nr == 1 ? 0 : -E2BIG;
}

/* Is module @name loaded (live, or coming and not yet initialised)? */
bool ksplice_target_present(const char *name)
{
	bool ret;

	if (ksplice_is_vmlinux(name))
		return true;
	mutex_lock(ksplice_k.module_mutex);
	ret = ksplice_module_present(ksplice_k.find_module(name));
	mutex_unlock(ksplice_k.module_mutex);
	return ret;
}

/*
 * The name of the symbol starting exactly at @addr, into @buf of
 * KSYM_NAME_LEN bytes; false if @addr is not a symbol's start.
 * kallsyms_lookup() also knows BPF trampolines.
 */
bool ksplice_sym_start_name(unsigned long addr, char *buf)
{
	unsigned long size, off;
	char *modname;

	return ksplice_k.kallsyms_lookup(addr, &size, &off, &modname, buf) &&
	       !off;
}
