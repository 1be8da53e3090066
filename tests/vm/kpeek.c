// SPDX-License-Identifier: GPL-2.0
/*
 * kpeek SYMBOL|0xADDR [LEN]: print LEN (default 16) bytes of the running
 * kernel at a symbol, in hex, read through /proc/kcore.  A guest-side test
 * tool: it shows whether kernel text changed.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long lookup(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long addr;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return addr;
		}
	fclose(f);
	return 0;
}

static long kcore_offset(int fd, unsigned long addr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr < ph.p_vaddr + ph.p_memsz)
			return ph.p_offset + (addr - ph.p_vaddr);
	}
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long addr, len = argc > 2 ? strtoul(argv[2], NULL, 0) : 16;
	unsigned char buf[4096];
	long off;
	int fd;

	if (argc < 2 || len > sizeof(buf)) {
		fprintf(stderr, "usage: kpeek SYMBOL|0xADDR [LEN<=4096]\n");
		return 2;
	}
	addr = strncmp(argv[1], "0x", 2) ? lookup(argv[1]) :
					   strtoul(argv[1], NULL, 16);
	fd = open("/proc/kcore", O_RDONLY);
	off = addr && fd >= 0 ? kcore_offset(fd, addr) : -1;
	if (off < 0 || pread(fd, buf, len, off) != (ssize_t)len) {
		fprintf(stderr, "kpeek: cannot read %s\n", argv[1]);
		return 1;
	}
	for (unsigned long i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
	return 0;
}
