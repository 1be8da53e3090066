// SPDX-License-Identifier: GPL-2.0
/*
 * Load symbols (struct ksplice_load_sym): addresses the module loader
 * needs while it loads the update module, before the core can resolve
 * anything, of symbols the target does not export (the static keys of new
 * code's jump labels).  Found by name in /proc/kallsyms, in the target
 * module and then in vmlinux, the way the core looks names up; a name
 * found twice there is refused rather than guessed.
 *
 * In the update module they are the undefined __ksplice_load_<k>: weak
 * while Kbuild links it (modpost refuses other undefined names the
 * kernel does not export), global once built, so that the loader refuses
 * the module unless ksplice-apply made each an absolute symbol.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load-symbols.h"
#include "util.h"

struct wanted {
	char *target;
	const char *name;
	unsigned long addr[2];		/* in the target module, in vmlinux */
	unsigned int nr[2];
	bool target_loaded;
};

/* "ffffffffc09d20c0 t ext4_es_is_delayed\t[ext4]" */
static void kallsyms_line(char *line, struct wanted *w, size_t nr)
{
	char *name, *mod, *end;
	unsigned long addr = strtoul(line, &end, 16);
	size_t i;

	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return;
	name = end + 3;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[')
			mod++;
		mod[strcspn(mod, "]")] = '\0';
	}
	for (i = 0; i < nr; i++) {
		int in_vmlinux = !mod;

		if (mod && !strcmp(mod, w[i].target))
			w[i].target_loaded = true;
		if (strcmp(name, w[i].name) ||
		    (mod && strcmp(mod, w[i].target)))
			continue;
		w[i].addr[in_vmlinux] = addr;
		w[i].nr[in_vmlinux]++;
	}
}

static int read_kallsyms(struct wanted *w, size_t nr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024];

	if (!f)
		return error_errno("cannot read /proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		kallsyms_line(line, w, nr);
	}
	fclose(f);
	return 0;
}

static int pick(const struct wanted *w, unsigned long *addr)
{
	bool vmlinux = !strcmp(w->target, "vmlinux");
	int k = w->nr[0] ? 0 : 1;

	if (!vmlinux && !w->target_loaded)
		return error("the update needs %s of module %s, which is not loaded: load %s (modprobe %s), then apply the update",
			     w->name, w->target, w->target, w->target);
	if (!w->nr[k])
		return error("the update needs %s, which the running kernel's /proc/kallsyms does not have",
			     w->name);
	if (w->nr[k] > 1)
		return error("the update needs %s, of which %s has several: it cannot tell which",
			     w->name, k ? "vmlinux" : w->target);
	if (!w->addr[k])
		return error("/proc/kallsyms shows no addresses (kernel.kptr_restrict?); ksplice-apply must run as root");
	*addr = w->addr[k];
	return 0;
}

typedef void edit_fn(GElf_Sym *sym, size_t k, const void *arg);

static size_t edit_symtab(Elf *elf, Elf_Scn *scn, size_t nr, edit_fn *edit,
			  const void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, k, done = 0;
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!data || !gelf_getshdr(scn, &sh))
		return 0;
	for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		const char *n;

		if (!gelf_getsym(data, i, &sym))
			break;
		n = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!n || sscanf(n, "__ksplice_load_%zu", &k) != 1 || k >= nr ||
		    sym.st_shndx != SHN_UNDEF)
			continue;
		edit(&sym, k, arg);
		gelf_update_sym(data, i, &sym);
		done++;
	}
	elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY);
	return done;
}

/* Edits each undefined __ksplice_load_<k> of @ko's symbol table. */
static int edit_load_symbols(const char *ko, size_t nr, edit_fn *edit,
			     const void *arg)
{
	int fd = open(ko, O_RDWR), ret = -1;
	Elf_Scn *scn = NULL;
	size_t done = 0;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return error_errno("cannot open %s", ko);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	/* Keep the file as it is but for the symbols. */
	if (elf)
		elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			done += edit_symtab(elf, scn, nr, edit, arg);
	if (elf && done == nr && elf_update(elf, ELF_C_WRITE) >= 0)
		ret = 0;
	else if (elf && done != nr)
		error("%s: %zu of its %zu load symbols are missing", ko,
		      nr - done, nr);
	else
		error("%s: %s", ko, elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static void set_address(GElf_Sym *sym, size_t k, const void *addrs)
{
	sym->st_shndx = SHN_ABS;
	sym->st_value = ((const unsigned long *)addrs)[k];
}

static void make_global(GElf_Sym *sym, size_t k, const void *arg)
{
	sym->st_info = GELF_ST_INFO(STB_GLOBAL, GELF_ST_TYPE(sym->st_info));
}

int load_symbols_require(const char *ko, size_t nr)
{
	return nr ? edit_load_symbols(ko, nr, make_global, NULL) : 0;
}

int load_symbols_set(const char *ko, const struct manifest *m)
{
	struct wanted *w;
	unsigned long *addrs;
	size_t i;
	int ret = 0;

	if (!m->nr_load_syms)
		return 0;
	w = xcalloc(m->nr_load_syms, sizeof(*w));
	addrs = xcalloc(m->nr_load_syms, sizeof(*addrs));
	for (i = 0; i < m->nr_load_syms; i++) {
		w[i].target = xstrdup(m->load_syms[i]);
		w[i].target[strcspn(w[i].target, " ")] = '\0';
		w[i].name = w[i].target + strlen(w[i].target) + 1;
	}
	ret = read_kallsyms(w, m->nr_load_syms);
	for (i = 0; !ret && i < m->nr_load_syms; i++)
		ret = pick(&w[i], &addrs[i]);
	if (!ret)
		ret = edit_load_symbols(ko, m->nr_load_syms, set_address, addrs);
	for (i = 0; i < m->nr_load_syms; i++)
		free(w[i].target);
	free(w);
	free(addrs);
	return ret;
}
