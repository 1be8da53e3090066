// SPDX-License-Identifier: GPL-2.0
/*
 * ksplice-uname: uname(1) for the kernel as its applied updates make it.
 *
 * The release stays what it is (modules and packages are keyed by it);
 * the version's "Debian X" becomes the Debian version the applied updates
 * bring the kernel to (state_effective_version()), so that
 *   uname -v:         #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-2 (2026-11-16)
 *   ksplice-uname -v: #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-16)
 * Flags and output order are uname's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "state.h"
#include "util.h"

enum {
	F_SYSNAME = 1, F_NODENAME = 2, F_RELEASE = 4, F_VERSION = 8,
	F_MACHINE = 16, F_PROCESSOR = 32, F_PLATFORM = 64, F_OS = 128,
	F_ALL = 0xff,
};

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [OPTION]...\n"
		"Print what uname prints, with the kernel version the applied ksplice\n"
		"updates bring the running kernel to.\n"
		"\n"
		"  -a, --all                print all, in this order, except -p and -i\n"
		"                           when unknown\n"
		"  -s, --kernel-name        the kernel name\n"
		"  -n, --nodename           the network node hostname\n"
		"  -r, --kernel-release     the kernel release\n"
		"  -v, --kernel-version     the effective kernel version\n"
		"  -m, --machine            the machine hardware name\n"
		"  -p, --processor          the processor type (unknown)\n"
		"  -i, --hardware-platform  the hardware platform (unknown)\n"
		"  -o, --operating-system   the operating system\n"
		"  -h, --help               show this help\n",
		progname);
	exit(status);
}

static unsigned int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "kernel-name", no_argument, NULL, 's' },
		{ "nodename", no_argument, NULL, 'n' },
		{ "kernel-release", no_argument, NULL, 'r' },
		{ "kernel-version", no_argument, NULL, 'v' },
		{ "machine", no_argument, NULL, 'm' },
		{ "processor", no_argument, NULL, 'p' },
		{ "hardware-platform", no_argument, NULL, 'i' },
		{ "operating-system", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static const char flags[] = "snrvmpio";
	unsigned int f = 0;
	const char *p;
	int c;

	while ((c = getopt_long(argc, argv, "asnrvmpioh", longopts, NULL)) != -1) {
		if (c == 'h')
			usage(0);
		if (c == 'a') {
			f |= F_ALL;
			continue;
		}
		p = strchr(flags, c);
		if (!p)
			usage(2);
		f |= 1u << (p - flags);
	}
	if (optind != argc) {
		fprintf(stderr, "%s: extra operand '%s'\n", progname, argv[optind]);
		usage(2);
	}
	return f ? f : F_SYSNAME;
}

/* @version with its "Debian X" made "Debian @effective" (malloc'ed). */
static char *effective_version(const char *version, const char *effective)
{
	const char *p = strstr(version, "Debian ");
	size_t skip;

	if (!effective)
		return xstrdup(version);
	if (!p)
		return xasprintf("%s (ksplice: Debian %s)", version, effective);
	p += 7;
	skip = strcspn(p, " \t\n()");
	return xasprintf("%.*s%s%s", (int)(p - version), version, effective,
			 p + skip);
}

static void field(bool *first, const char *s)
{
	printf("%s%s", *first ? "" : " ", s);
	*first = false;
}

int main(int argc, char **argv)
{
	unsigned int f;
	struct utsname u;
	bool first = true;
	char *eff, *version;

	set_progname(argv[0]);
	f = parse_args(argc, argv);
	if (uname(&u) < 0)
		die_errno("cannot read the kernel's name");
	eff = state_effective_version(u.version);
	version = effective_version(u.version, eff);
	if (f & F_SYSNAME)
		field(&first, u.sysname);
	if (f & F_NODENAME)
		field(&first, u.nodename);
	if (f & F_RELEASE)
		field(&first, u.release);
	if (f & F_VERSION)
		field(&first, version);
	if (f & F_MACHINE)
		field(&first, u.machine);
	/* As GNU uname: unknown, and left out of -a. */
	if ((f & F_PROCESSOR) && f != F_ALL)
		field(&first, "unknown");
	if ((f & F_PLATFORM) && f != F_ALL)
		field(&first, "unknown");
	if (f & F_OS)
		field(&first, "GNU/Linux");
	printf("\n");
	free(eff);
	free(version);
	return fflush(stdout) ? 1 : 0;
}
