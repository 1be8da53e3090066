// SPDX-License-Identifier: GPL-2.0
/*
 * Functions that share a section: those with an explicit section attribute
 * (__sched's .sched.text, __ref's .ref.text, __lockfunc's .spinlock.text,
 * ...) escape -ffunction-sections.  Between two functions of one section
 * the assembler resolves a call, a jump or a lea itself and leaves no
 * relocation: copied alone, such a reference would point at whatever
 * follows the copy.  So each PC-relative reference from one function to
 * another of its section gets the relocation the assembler omitted,
 * against the function it points into, before objects are compared; the
 * code is then as if each function had its own section.  A reference that
 * cannot have one (a rel8 jump to a neighbour) stays without, and a
 * changed function with such a reference is refused (shared_check()).
 *
 * In the running kernel the section is laid out as in the object (the
 * linker keeps an input section whole), so pre code matches either way.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "shared.h"
#include "util.h"

struct scan {
	const struct object *obj;
	const struct section *sec;
	unsigned long start, end;	/* the function's range */
	struct reloc *add;
	size_t nr_add;
	const char *why;
};

static bool shared(const struct object *obj, const struct section *sec)
{
	const struct symbol *first = NULL;
	size_t i;

	if (!(sec->sh.sh_flags & SHF_EXECINSTR))
		return false;
	for (i = 0; i < obj->nr_syms; i++) {
		const struct symbol *s = &obj->syms[i];

		if (s->sec != sec || !elf_is_function(s))
			continue;
		if (first && !elf_func_aliases(first, s))
			return true;
		first = s;
	}
	return false;
}

/* The function of @sec whose code holds @off. */
static struct symbol *function_at(const struct object *obj,
				  const struct section *sec, unsigned long off)
{
	size_t i;

	for (i = 0; i < obj->nr_syms; i++) {
		struct symbol *s = &obj->syms[i];

		if (s->sec == sec && elf_is_function(s) &&
		    off >= s->st.st_value &&
		    off < s->st.st_value + s->st.st_size)
			return elf_func_primary(obj, s);
	}
	return NULL;
}

static bool outside(const struct scan *sc, const struct arch_ref *r)
{
	return (r->dest < sc->start || r->dest >= sc->end) &&
	       !elf_reloc_at(sc->sec, r->field);
}

static int add_ref(const struct arch_ref *r, void *arg)
{
	struct scan *sc = arg;
	struct symbol *to;

	if (!outside(sc, r) || r->size != 4)
		return 0;
	/*
	 * C code only calls, jumps to or takes the address of a function's
	 * entry: anything else stays without (shared_check() refuses it).
	 */
	to = function_at(sc->obj, sc->sec, r->dest);
	if (!to || to->st.st_value != r->dest)
		return 0;
	sc->add = xrealloc(sc->add, (sc->nr_add + 1) * sizeof(*sc->add));
	sc->add[sc->nr_add++] = (struct reloc){
		.offset = r->field,
		.type = R_X86_64_PC32,
		/* S + A - P = dest - end, with S = dest */
		.addend = -(long)(r->end - r->field),
		.sym = to,
	};
	return 0;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void add_section_relocs(struct object *obj, struct section *sec)
{
	struct scan sc = { .obj = obj, .sec = sec };
	size_t i;

	for (i = 0; i < obj->nr_syms; i++) {
		const struct symbol *f = &obj->syms[i];

		if (f->sec != sec || !elf_is_function(f) ||
		    elf_func_primary(obj, f) != f)
			continue;
		sc.start = f->st.st_value;
		sc.end = sc.start + f->st.st_size;
		/* Undecodable: shared_check() refuses it if it changed. */
		arch_for_each_ref(sec, sc.start, sc.end, add_ref, &sc);
	}
	if (!sc.nr_add)
		return;
	/* As the assembler writes a RELA field: zero, the addend says it. */
	for (i = 0; i < sc.nr_add; i++)
		memset(sec->data + sc.add[i].offset, 0, 4);
	sec->relocs = xrealloc(sec->relocs, (sec->nr_relocs + sc.nr_add) *
			       sizeof(*sec->relocs));
	memcpy(sec->relocs + sec->nr_relocs, sc.add,
	       sc.nr_add * sizeof(*sc.add));
	sec->nr_relocs += sc.nr_add;
	qsort(sec->relocs, sec->nr_relocs, sizeof(*sec->relocs), cmp_reloc);
	free(sc.add);
}

int shared_add_relocs(struct object *obj)
{
	size_t i;

	for (i = 0; i < obj->nr_secs; i++)
		if (shared(obj, &obj->secs[i]))
			add_section_relocs(obj, &obj->secs[i]);
	return 0;
}

static int unresolved(const struct arch_ref *r, void *arg)
{
	struct scan *sc = arg;

	const struct symbol *to;

	if (!outside(sc, r))
		return 0;
	to = function_at(sc->obj, sc->sec, r->dest);
	sc->why = xasprintf("%s %s+%#lx, in its section %s, without a relocation%s",
			    r->size != 4 ? "jumps short to" : "refers to",
			    to ? to->name : sc->sec->name,
			    r->dest - (to ? to->st.st_value : 0), sc->sec->name,
			    r->size != 4 ? " (none can hold a short jump)" : "");
	return 1;
}

int shared_check(const struct object *obj, const struct symbol *f)
{
	struct scan sc = { .obj = obj, .sec = f->sec };
	int ret;

	if (!shared(obj, f->sec))
		return 0;
	sc.start = f->st.st_value;
	sc.end = sc.start + f->st.st_size;
	ret = arch_for_each_ref(f->sec, sc.start, sc.end, unresolved, &sc);
	if (ret < 0)
		return error("%s: %s shares section %s and cannot be decoded to check its references",
			     obj->path, f->name, f->sec->name);
	if (ret) {
		error("%s: %s %s", obj->path, f->name, sc.why);
		free((char *)sc.why);
		return -1;
	}
	return 0;
}
