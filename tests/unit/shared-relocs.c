// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver for src/create/shared.c: reads an object, adds the
 * relocations between functions of a shared section, and prints, for each
 * function of such a section, its relocations to other functions and
 * whether shared_check() accepts it.
 */
#include <stdio.h>
#include <string.h>

#include "elf.h"
#include "shared.h"
#include "util.h"

static void print_function(const struct object *obj, const struct symbol *f)
{
	unsigned long start = f->st.st_value, end = start + f->st.st_size;
	int refused = shared_check(obj, f);
	struct reloc *r;
	size_t n, i;

	fflush(stderr);
	printf("%s:", f->name);
	n = elf_relocs_in(f->sec, start, end, &r);
	for (i = 0; i < n; i++)
		if (r[i].sym->sec == f->sec && elf_is_function(r[i].sym))
			printf(" +%#lx->%s%+ld", r[i].offset - start,
			       r[i].sym->name, r[i].addend);
	printf(" %s\n", refused ? "refused" : "ok");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct object obj;
	size_t i;

	set_progname("shared-relocs");
	if (argc != 3 || elf_object_read(argv[1], &obj)) {
		fprintf(stderr, "usage: shared-relocs OBJECT SECTION\n");
		return 2;
	}
	shared_add_relocs(&obj);
	for (i = 0; i < obj.nr_syms; i++) {
		const struct symbol *s = &obj.syms[i];

		if (s->sec && elf_is_function(s) &&
		    !strcmp(s->sec->name, argv[2]))
			print_function(&obj, s);
	}
	return 0;
}
