// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the new-code object with libelf.  Layout: our sections, then one
 * .rela section for each that has relocations, then .note.GNU-stack,
 * .symtab, .strtab and .shstrtab.  Symbols: the section symbols, each
 * function under its own (local) name so traces read naturally, then a
 * global alias per function for update.c, then a global name per new
 * variable for update.c (its new_vars), then each new global function
 * under its own name for the other units, then the undefined names the
 * linker and the loader resolve.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libelf.h>

#include "newobj.h"
#include "util.h"

struct strtab {
	char *buf;
	size_t len;
};

static size_t str_add(struct strtab *t, const char *s)
{
	size_t at = t->len, n = strlen(s) + 1;

	t->buf = xrealloc(t->buf, t->len + n);
	memcpy(t->buf + at, s, n);
	t->len += n;
	return at;
}

static Elf_Scn *new_section(Elf *elf, struct strtab *shstr, const char *name,
			    GElf_Shdr *sh, void *buf, size_t size,
			    Elf_Type type)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;

	if (!d)
		goto fail;
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = type;
	d->d_align = sh->sh_addralign ? sh->sh_addralign : 1;
	sh->sh_name = str_add(shstr, name);
	sh->sh_size = size;
	if (gelf_update_shdr(scn, sh))
		return scn;
fail:
	error("libelf: section %s: %s", name, elf_errmsg(-1));
	return NULL;
}

struct layout {
	size_t nr_rela;			/* .rela sections */
	size_t symtab;			/* section index of .symtab */
	size_t first_func_sym;
	size_t first_global;
	size_t first_var;		/* new variables, for update.c */
	size_t first_named;		/* new globals under their own name */
	size_t first_undef;
	size_t nr_syms;
};

static size_t nr_funcs(const struct newobj *no)
{
	size_t i, n = 0;

	for (i = 0; i < no->nr_secs; i++)
		n += !!no->secs[i].func;
	return n;
}

static void plan(const struct newobj *no, struct layout *l)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < no->nr_secs; i++)
		l->nr_rela += !!no->secs[i].nr_relocs;
	/* 1..n ours, then relas, then .note.GNU-stack, then .symtab */
	l->symtab = no->nr_secs + l->nr_rela + 2;
	l->first_func_sym = 1 + no->nr_secs;
	l->first_global = l->first_func_sym + nr_funcs(no);
	l->first_var = l->first_global + nr_funcs(no);
	l->first_named = l->first_var + no->nr_vars;
	l->first_undef = l->first_named;
	for (i = 0; i < no->nr_secs; i++)
		l->first_undef += no->secs[i].global;
	l->nr_syms = l->first_undef + no->nr_undefs;
}

static Elf64_Sym *build_symbols(const struct newobj *no, const struct layout *l,
				struct strtab *str)
{
	Elf64_Sym *syms = xcalloc(l->nr_syms, sizeof(*syms));
	size_t i, f = 0, named = l->first_named;

	str_add(str, "");
	for (i = 0; i < no->nr_secs; i++) {
		syms[1 + i].st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
		syms[1 + i].st_shndx = 1 + i;
	}
	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *o = &no->secs[i];
		Elf64_Sym *local, *global;

		if (!o->func)
			continue;
		local = &syms[l->first_func_sym + f];
		global = &syms[l->first_global + f++];
		local->st_name = str_add(str, o->func->name);
		local->st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
		local->st_shndx = 1 + i;
		local->st_size = o->size;
		*global = *local;
		global->st_name = str_add(str, newobj_func_symbol(no, o->func));
		global->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		if (o->global) {
			syms[named] = *global;
			syms[named++].st_name = local->st_name;
		}
	}
	for (i = 0; i < no->nr_vars; i++) {
		Elf64_Sym *v = &syms[l->first_var + i];

		v->st_name = str_add(str, newobj_var_symbol(no, i));
		v->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
		v->st_shndx = 1 + no->vars[i].osec;
		v->st_value = no->vars[i].off;
		v->st_size = no->vars[i].sym->st.st_size;
	}
	for (i = 0; i < no->nr_undefs; i++) {
		Elf64_Sym *u = &syms[l->first_undef + i];

		u->st_name = str_add(str, no->undefs[i]);
		/* Load symbols: see load-symbols.c. */
		u->st_info = ELF64_ST_INFO(str_has_prefix(no->undefs[i],
					   "__ksplice_load_") ? STB_WEAK :
					   STB_GLOBAL, STT_NOTYPE);
	}
	return syms;
}

static Elf64_Rela *build_relas(const struct osec *o, const struct layout *l)
{
	Elf64_Rela *r = xcalloc(o->nr_relocs, sizeof(*r));
	size_t i;

	for (i = 0; i < o->nr_relocs; i++) {
		const struct orel *x = &o->relocs[i];
		size_t sym = x->osec >= 0 ? 1 + (size_t)x->osec :
					     l->first_undef + x->undef;

		r[i].r_offset = x->offset;
		r[i].r_info = ELF64_R_INFO(sym, x->type);
		r[i].r_addend = x->addend;
	}
	return r;
}

static int write_sections(Elf *elf, const struct newobj *no,
			  const struct layout *l, struct strtab *shstr,
			  void **bufs)
{
	struct strtab str = { 0 };
	Elf64_Sym *syms;
	GElf_Shdr sh;
	size_t i, b = 0;

	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *o = &no->secs[i];

		sh = o->sh;
		sh.sh_flags &= ~(GElf_Xword)SHF_GROUP;
		sh.sh_link = sh.sh_info = 0;
		/*
		 * A NOBITS section's size is its data's d_size too (no
		 * buffer): libelf's elf_update() recomputes sh_size from
		 * the data, so setting sh_size alone left every carried
		 * .bss variable 0 bytes, all at one address.
		 */
		if (!new_section(elf, shstr, o->name, &sh, o->data,
				 o->data || sh.sh_type == SHT_NOBITS ?
				 o->size : 0, ELF_T_BYTE))
			return -1;
	}
	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *o = &no->secs[i];
		char name[512];

		if (!o->nr_relocs)
			continue;
		memset(&sh, 0, sizeof(sh));
		sh.sh_type = SHT_RELA;
		sh.sh_flags = SHF_INFO_LINK;
		sh.sh_link = l->symtab;
		sh.sh_info = 1 + i;
		sh.sh_entsize = sizeof(Elf64_Rela);
		sh.sh_addralign = 8;
		snprintf(name, sizeof(name), ".rela%s", o->name);
		bufs[b] = build_relas(o, l);
		if (!new_section(elf, shstr, name, &sh, bufs[b++],
				 o->nr_relocs * sizeof(Elf64_Rela), ELF_T_RELA))
			return -1;
	}
	memset(&sh, 0, sizeof(sh));
	sh.sh_type = SHT_PROGBITS;
	if (!new_section(elf, shstr, ".note.GNU-stack", &sh, NULL, 0,
			 ELF_T_BYTE))
		return -1;

	syms = build_symbols(no, l, &str);
	bufs[b++] = syms;
	memset(&sh, 0, sizeof(sh));
	sh.sh_type = SHT_SYMTAB;
	sh.sh_link = l->symtab + 1;
	sh.sh_info = l->first_global;
	sh.sh_entsize = sizeof(Elf64_Sym);
	sh.sh_addralign = 8;
	if (!new_section(elf, shstr, ".symtab", &sh, syms,
			 l->nr_syms * sizeof(*syms), ELF_T_SYM))
		return -1;
	memset(&sh, 0, sizeof(sh));
	sh.sh_type = SHT_STRTAB;
	sh.sh_addralign = 1;
	bufs[b++] = str.buf;
	return new_section(elf, shstr, ".strtab", &sh, str.buf, str.len,
			   ELF_T_BYTE) ? 0 : -1;
}

int newobj_write(const struct newobj *no, const char *path)
{
	struct strtab shstr = { 0 };
	struct layout l;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	void **bufs;
	size_t i;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return error_errno("cannot write %s", path);
	plan(no, &l);
	bufs = xcalloc(l.nr_rela + 2, sizeof(*bufs));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, ELFCLASS64)) {
		ret = error("libelf: %s: %s", path, elf_errmsg(-1));
		goto out;
	}
	gelf_getehdr(elf, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	str_add(&shstr, "");
	memset(&sh, 0, sizeof(sh));
	sh.sh_type = SHT_STRTAB;
	sh.sh_addralign = 1;
	if (write_sections(elf, no, &l, &shstr, bufs) ||
	    !(scn = new_section(elf, &shstr, ".shstrtab", &sh, NULL, 0,
				ELF_T_BYTE))) {
		ret = -1;
		goto out;
	}
	/* new_section added the name again; point data at the final table */
	elf_getdata(scn, NULL)->d_buf = shstr.buf;
	elf_getdata(scn, NULL)->d_size = shstr.len;
	gelf_getshdr(scn, &sh);
	sh.sh_size = shstr.len;
	gelf_update_shdr(scn, &sh);
	eh.e_shstrndx = elf_ndxscn(scn);
	gelf_update_ehdr(elf, &eh);
	if (elf_update(elf, ELF_C_WRITE) < 0)
		ret = error("libelf: writing %s: %s", path, elf_errmsg(-1));
out:
	elf_end(elf);
	close(fd);
	for (i = 0; i < l.nr_rela + 2; i++)
		free(bufs[i]);
	free(bufs);
	free(shstr.buf);
	return ret;
}
