// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a relocatable object into the model of elf.h.  The object is
 * copied out of libelf so the model outlives the Elf handle.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libelf.h>
#include <gelf.h>

#include "elf.h"
#include "util.h"

static int read_sections(Elf *elf, struct object *obj)
{
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getshdrnum(elf, &obj->nr_secs))
		return -1;
	obj->secs = xcalloc(obj->nr_secs, sizeof(*obj->secs));
	while ((scn = elf_nextscn(elf, scn))) {
		struct section *sec;
		Elf_Data *d;
		const char *name;

		i = elf_ndxscn(scn);
		sec = &obj->secs[i];
		sec->index = i;
		if (!gelf_getshdr(scn, &sec->sh))
			return -1;
		name = elf_strptr(elf, shstrndx, sec->sh.sh_name);
		sec->name = xstrdup(name ? name : "");
		sec->size = sec->sh.sh_size;
		if (sec->sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size != sec->size)
			return -1;
		sec->data = xcalloc(1, sec->size);
		if (sec->size)
			memcpy(sec->data, d->d_buf, sec->size);
	}
	obj->secs[0].name = xstrdup("");
	return 0;
}

static int read_symbols(struct object *obj)
{
	struct section *symtab = NULL, *strtab;
	size_t i;

	for (i = 0; i < obj->nr_secs; i++)
		if (obj->secs[i].sh.sh_type == SHT_SYMTAB)
			symtab = &obj->secs[i];
	if (!symtab || symtab->sh.sh_link >= obj->nr_secs)
		return -1;
	strtab = &obj->secs[symtab->sh.sh_link];
	obj->nr_syms = symtab->size / sizeof(Elf64_Sym);
	obj->syms = xcalloc(obj->nr_syms, sizeof(*obj->syms));
	for (i = 0; i < obj->nr_syms; i++) {
		struct symbol *sym = &obj->syms[i];
		const Elf64_Sym *raw = (Elf64_Sym *)symtab->data + i;

		sym->index = i;
		sym->st = *raw;
		if (raw->st_name >= strtab->size)
			return -1;
		sym->name = (char *)strtab->data + raw->st_name;
		sym->bind = GELF_ST_BIND(raw->st_info);
		sym->type = GELF_ST_TYPE(raw->st_info);
		if (raw->st_shndx != SHN_UNDEF && raw->st_shndx < obj->nr_secs)
			sym->sec = &obj->secs[raw->st_shndx];
		if (sym->type == STT_SECTION && sym->sec) {
			sym->name = sym->sec->name;
			if (!sym->sec->sym)
				sym->sec->sym = sym;
		}
	}
	return 0;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int read_relocs(struct object *obj)
{
	size_t i, j;

	for (i = 0; i < obj->nr_secs; i++) {
		struct section *rsec = &obj->secs[i], *sec;

		if (rsec->sh.sh_type != SHT_RELA)
			continue;
		if (rsec->sh.sh_info >= obj->nr_secs)
			return -1;
		sec = &obj->secs[rsec->sh.sh_info];
		sec->nr_relocs = rsec->size / sizeof(Elf64_Rela);
		sec->relocs = xcalloc(sec->nr_relocs, sizeof(*sec->relocs));
		for (j = 0; j < sec->nr_relocs; j++) {
			const Elf64_Rela *raw = (Elf64_Rela *)rsec->data + j;
			size_t symi = GELF_R_SYM(raw->r_info);

			if (symi >= obj->nr_syms || raw->r_offset > sec->size)
				return -1;
			sec->relocs[j].offset = raw->r_offset;
			sec->relocs[j].type = GELF_R_TYPE(raw->r_info);
			sec->relocs[j].addend = raw->r_addend;
			sec->relocs[j].sym = &obj->syms[symi];
		}
		qsort(sec->relocs, sec->nr_relocs, sizeof(*sec->relocs),
		      cmp_reloc);
	}
	return 0;
}

int elf_object_read(const char *path, struct object *obj)
{
	Elf *elf;
	GElf_Ehdr eh;
	int fd, ret = -1;

	memset(obj, 0, sizeof(*obj));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_REL &&
	    eh.e_machine == EM_X86_64 && gelf_getclass(elf) == ELFCLASS64 &&
	    !read_sections(elf, obj) && !read_symbols(obj) && !read_relocs(obj))
		ret = 0;
	elf_end(elf);
	close(fd);
	obj->path = xstrdup(path);
	return ret;
}

void elf_object_free(struct object *obj)
{
	size_t i;

	for (i = 0; i < obj->nr_secs; i++) {
		free(obj->secs[i].name);
		free(obj->secs[i].data);
		free(obj->secs[i].relocs);
	}
	free(obj->secs);
	free(obj->syms);
	free(obj->path);
	memset(obj, 0, sizeof(*obj));
}

struct section *elf_find_section(const struct object *obj, const char *name)
{
	size_t i;

	for (i = 0; i < obj->nr_secs; i++)
		if (!strcmp(obj->secs[i].name, name))
			return &obj->secs[i];
	return NULL;
}

bool elf_is_function(const struct symbol *sym)
{
	return sym->type == STT_FUNC && sym->sec && sym->st.st_size;
}

static bool same_place(const struct symbol *a, const struct symbol *b)
{
	return a->sec == b->sec && a->st.st_value == b->st.st_value &&
	       a->st.st_size == b->st.st_size;
}

/*
 * Aliases (__alias(): SYSCALL_DEFINE0's __x64_sys_ and __ia32_sys_ stubs
 * of a static __do_sys_) are one function under several names.  The one
 * that stands for them is the first global name, as elf_symbol_at()
 * names references: kallsyms resolves it uniquely.
 */
struct symbol *elf_func_primary(const struct object *obj,
				const struct symbol *f)
{
	struct symbol *best = NULL;
	size_t i;

	for (i = 0; i < obj->nr_syms; i++) {
		struct symbol *s = &obj->syms[i];

		if (!elf_is_function(s) || !same_place(s, f))
			continue;
		if (!best || (best->bind == STB_LOCAL && s->bind != STB_LOCAL))
			best = s;
	}
	return best;
}

bool elf_func_aliases(const struct symbol *a, const struct symbol *b)
{
	return elf_is_function(a) && elf_is_function(b) && same_place(a, b);
}

struct symbol *elf_find_function(const struct object *obj, const char *name)
{
	size_t i;

	for (i = 0; i < obj->nr_syms; i++)
		if (elf_is_function(&obj->syms[i]) &&
		    !strcmp(obj->syms[i].name, name))
			return &obj->syms[i];
	return NULL;
}

struct symbol *elf_symbol_at(const struct object *obj,
			     const struct section *sec, unsigned long offset)
{
	struct symbol *best = NULL;
	size_t i;

	for (i = 0; i < obj->nr_syms; i++) {
		struct symbol *s = &obj->syms[i];

		if (s->sec != sec || s->type == STT_SECTION ||
		    (s->type != STT_FUNC && s->type != STT_OBJECT))
			continue;
		if (s->st.st_value > offset ||
		    offset >= s->st.st_value + (s->st.st_size ? s->st.st_size : 1))
			continue;
		/* Prefer a global name: kallsyms shows it unambiguously. */
		if (!best || (best->bind == STB_LOCAL && s->bind != STB_LOCAL))
			best = s;
	}
	return best;
}

size_t elf_relocs_in(const struct section *sec, unsigned long start,
		     unsigned long end, struct reloc **first)
{
	size_t i, n = 0;

	*first = NULL;
	for (i = 0; i < sec->nr_relocs; i++) {
		if (sec->relocs[i].offset < start || sec->relocs[i].offset >= end)
			continue;
		if (!n++)
			*first = &sec->relocs[i];
	}
	return n;
}

const struct reloc *elf_reloc_at(const struct section *sec,
				 unsigned long offset)
{
	struct reloc *first;

	return elf_relocs_in(sec, offset, offset + 1, &first) ? first : NULL;
}

unsigned int elf_reloc_size(unsigned int type)
{
	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_32:
	case R_X86_64_32S:
		return 4;
	case R_X86_64_64:
	case R_X86_64_PC64:
		return 8;
	}
	return 0;
}

bool elf_reloc_pc_relative(unsigned int type)
{
	return type == R_X86_64_PC32 || type == R_X86_64_PLT32 ||
	       type == R_X86_64_PC64;
}
