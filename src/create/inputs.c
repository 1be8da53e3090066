// SPDX-License-Identifier: GPL-2.0
/*
 * What an update is built from, recorded in its manifest so that anyone
 * can build it again (ksplice-create --verify): the source, the patch,
 * the target's headers and config, the compiler, this ksplice.  The
 * update's default id is a hash of them, so the same inputs give the
 * same update file, byte for byte.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "sha256.h"

#ifndef KSPLICE_VERSION
#define KSPLICE_VERSION "unknown"
#endif

/* The first line a command prints, or NULL. */
static char *first_line(const char *const argv[])
{
	char *out = NULL;
	size_t len;

	if (run_command_capture(argv, 1 << 16, &out, &len) || !out) {
		free(out);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * What scripts/fetch-source and scripts/fetch-headers unpack says which
 * package it is in a .complete stamp, "<@prefix>X.Y=VERSION"; NULL if
 * @stamp is missing or says anything else.
 */
static char *stamp_package(const char *stamp, const char *prefix)
{
	char *text;
	size_t len;

	if (read_file(stamp, 256, &text, &len))
		return NULL;
	str_rstrip(text);
	if (str_has_prefix(text, prefix) && strchr(text, '=') &&
	    strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789.+~=-") == strlen(text))
		return text;
	free(text);
	return NULL;
}

/*
 * A fetched source tree is named by its package (the stamp next to it);
 * any other tree by its path, which is all we can say about it cheaply.
 */
static char *source_name(const char *source)
{
	char real[PATH_MAX], *stamp, *name;

	if (!realpath(source, real))
		return xstrdup(source);
	stamp = xasprintf("%s/../.complete", real);
	name = stamp_package(stamp, "linux-source-");
	free(stamp);
	return name ? name : xasprintf("tree %s", real);
}

/* Headers fetch-headers extracted (6.12's): the stamp three levels up. */
static char *fetched_headers_name(const char *real)
{
	char *stamp = xasprintf("%s/../../../.complete", real);
	char *name = stamp_package(stamp, "linux-headers-");

	free(stamp);
	return name;
}

/*
 * /usr/src/linux-headers-X is package linux-headers-X's when that is
 * installed: asked by name, as dpkg-query -S would answer after reading
 * every package's file list (a quarter of a second, each create).
 */
static char *installed_headers_package(const char *real)
{
	const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	const char *status[] = { "dpkg-query", "-W", "-f=${db:Status-Abbrev}",
				 base, NULL };
	char *dir = xasprintf("/usr/src/%s", base), *st = NULL;
	bool ours = str_has_prefix(base, "linux-headers-") && !strcmp(dir, real);

	free(dir);
	if (ours)
		st = first_line(status);
	ours = st && str_has_prefix(st, "ii");
	free(st);
	return ours ? xasprintf("%s:", base) : NULL;
}

/* The Debian package the build dir belongs to, with its version. */
static char *headers_name(const char *build)
{
	char real[PATH_MAX], *pkg, *colon, *ver, *out;
	const char *query[] = { "dpkg-query", "-S", real, NULL };

	if (!realpath(build, real))
		return xasprintf("dir %s", build);
	out = fetched_headers_name(real);
	if (out)
		return out;
	pkg = installed_headers_package(real);
	if (!pkg)
		pkg = first_line(query);
	colon = pkg ? strchr(pkg, ':') : NULL;
	if (!colon) {
		free(pkg);
		return xasprintf("dir %s", real);
	}
	*colon = '\0';
	{
		const char *show[] = { "dpkg-query", "-W", "-f=${Version}", pkg, NULL };

		ver = first_line(show);
	}
	out = xasprintf("%s=%s", pkg, ver ? ver : "unknown");
	free(pkg);
	free(ver);
	return out;
}

static char *file_sha256(const char *path)
{
	char hex[SHA256_HEX_LEN + 1];

	if (sha256_file(path, hex)) {
		error_errno("cannot read %s", path);
		return NULL;
	}
	return xstrdup(hex);
}

int inputs_record(struct work *w)
{
	struct manifest_inputs *in = &w->in;
	const char *version[] = { w->tree.cc, "--version", NULL };

	if (w->o->debian) {
		/* A..B: debian_patch() set the source to A's fetched tree */
		in->debian = xstrdup(w->o->debian);
	}
	in->source = source_name(w->o->source);
	in->patch_sha256 = file_sha256(w->o->patch);
	in->config_sha256 = file_sha256(w->o->config);
	if (!in->patch_sha256 || !in->config_sha256)
		return -1;
	in->headers = headers_name(w->o->build);
	in->compiler = first_line(version);
	if (!in->compiler)
		return error("cannot run %s --version", w->tree.cc);
	in->ksplice_version = xstrdup(KSPLICE_VERSION);
	return 0;
}

/*
 * 16 hex digits of the SHA-256 of the inputs and the release: the same
 * build, the same id; a different patch, another id.  The work directory,
 * the time and the user are not inputs.
 */
char *inputs_id(const struct work *w)
{
	const struct manifest_inputs *in = &w->in;
	const char *parts[] = { w->release, in->source, in->debian,
				in->patch_sha256, in->headers, in->compiler,
				in->config_sha256, in->ksplice_version };
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 s;
	size_t i;

	sha256_init(&s);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		const char *p = parts[i] ? parts[i] : "";

		sha256_update(&s, p, strlen(p) + 1);
	}
	/* Only then: the ids of other updates stay what they were. */
	if (w->o->replace)
		sha256_update(&s, "replaces: all", sizeof("replaces: all"));
	sha256_final(&s, hex);
	return xstrndup(hex, 16);
}
