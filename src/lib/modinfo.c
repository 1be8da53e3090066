// SPDX-License-Identifier: GPL-2.0
/*
 * A module file's .modinfo: NUL-separated "key=value" strings, read with
 * libelf.  modpost writes "depends=" with the modules whose exports the
 * module uses; the kernel's loader does not load them, modprobe would.
 */
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "modinfo.h"
#include "util.h"

static char **split_depends(const char *list, size_t len)
{
	struct strv deps = { 0 };
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *comma = memchr(p, ',', end - p);
		size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (n)
			strv_add(&deps, xstrndup(p, n));
		p += n + 1;
	}
	if (!deps.v)
		strv_add(&deps, NULL);
	return deps.v;
}

static char **find_depends(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		const char *name, *p, *end;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".modinfo"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		p = data->d_buf;
		end = p + data->d_size;
		for (; p < end; p += strnlen(p, end - p) + 1)
			if (!strncmp(p, "depends=", 8))
				return split_depends(p + 8,
						     strnlen(p + 8, end - p - 8));
		return split_depends("", 0);
	}
	return NULL;
}

char **modinfo_depends(const char *ko)
{
	int fd = open(ko, O_RDONLY);
	char **deps = NULL;
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		deps = find_depends(elf);
	elf_end(elf);
	close(fd);
	return deps;
}
