// SPDX-License-Identifier: GPL-2.0
/*
 * Drives src/lib/update-file.c for tests/t/10-update-file.t, which makes
 * the assertions.  Subcommands:
 *
 *   write OUT ID RELEASE UPDATE_KO CORE_KO FUNC...
 *	update_file_write() with a manifest made of the arguments (and
 *	the input "debian: $UPDATE_FILE_TEST_DEBIAN" if that is set, and
 *	a cve line for each word of $UPDATE_FILE_TEST_CVES)
 *   extract FILE DIR
 *	update_file_extract(), then print the manifest read
 *   parse FILE
 *	manifest_parse() on FILE's text, then print the manifest
 *   craft OUT MEMBER...
 *	a .tar.gz written with libarchive directly, with no checks, so
 *	that it can hold what update_file_write() refuses to write.
 *	MEMBER is NAME:text:STRING, NAME:file:PATH, NAME:zeros:N,
 *	NAME:symlink:TARGET, NAME:hardlink:TARGET or NAME:dir.
 *
 * Exit status: 0 if the library call succeeded, else 1 with a message on
 * stderr (the library's refusal, or "update-file-test: ..." for a
 * mistake in the test itself), 2 for an unknown subcommand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "update-file.h"
#include "util.h"

static int cmd_write(int argc, char **argv)
{
	struct manifest m;
	const char *files[3];
	int i, ret;

	if (argc < 7)
		die("usage: write OUT ID RELEASE UPDATE_KO CORE_KO FUNC...");
	manifest_init(&m);
	m.format = UPDATE_FORMAT;
	m.id = xstrdup(argv[2]);
	m.kernel_release = xstrdup(argv[3]);
	m.target = xstrdup("vmlinux");
	m.created_by = xstrdup("update-file-test");
	if (getenv("UPDATE_FILE_TEST_DEBIAN"))
		m.in.debian = xstrdup(getenv("UPDATE_FILE_TEST_DEBIAN"));
	if (getenv("UPDATE_FILE_TEST_REPLACE"))
		m.replaces = xstrdup("all");
	if (getenv("UPDATE_FILE_TEST_CVES")) {
		char *cves = xstrdup(getenv("UPDATE_FILE_TEST_CVES")), *save;
		char *cve;

		for (cve = strtok_r(cves, " ", &save); cve;
		     cve = strtok_r(NULL, " ", &save))
			manifest_add_cve(&m, cve);
		free(cves);
	}
	for (i = 6; i < argc; i++)
		manifest_add_function(&m, argv[i]);
	files[0] = argv[4];
	files[1] = argv[5];
	files[2] = NULL;
	ret = update_file_write(argv[1], &m, files);
	manifest_free(&m);
	return ret ? 1 : 0;
}

static int print_manifest(struct manifest *m)
{
	char *text = manifest_format(m);

	fputs(text, stdout);
	free(text);
	manifest_free(m);
	return 0;
}

static int cmd_extract(int argc, char **argv)
{
	struct manifest m;

	if (argc != 3)
		die("usage: extract FILE DIR");
	if (update_file_extract(argv[1], argv[2], &m))
		return 1;
	return print_manifest(&m);
}

static int cmd_parse(int argc, char **argv)
{
	struct manifest m;
	size_t len;
	char *text;

	if (argc != 2)
		die("usage: parse FILE");
	if (read_file(argv[1], 1 << 20, &text, &len) < 0)
		die_errno("%s", argv[1]);
	manifest_init(&m);
	if (manifest_parse(&m, text, len, argv[1])) {
		manifest_free(&m);
		free(text);
		return 1;
	}
	free(text);
	return print_manifest(&m);
}

static void craft_data(struct archive *a, struct archive_entry *e,
		       const char *data, size_t len)
{
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, len);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(a, data, len) != (ssize_t)len))
		die("craft: %s", archive_error_string(a));
}

static void craft_member(struct archive *a, char *spec)
{
	struct archive_entry *e = archive_entry_new();
	char *kind = strchr(spec, ':'), *arg, *data;
	size_t len;

	if (!kind)
		die("craft: bad member '%s'", spec);
	*kind++ = '\0';
	arg = strchr(kind, ':');
	if (arg)
		*arg++ = '\0';
	archive_entry_set_pathname(e, spec);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, time(NULL), 0);
	if (!strcmp(kind, "text") && arg) {
		craft_data(a, e, arg, strlen(arg));
	} else if (!strcmp(kind, "file") && arg) {
		if (read_file(arg, 1 << 30, &data, &len) < 0)
			die_errno("craft: %s", arg);
		craft_data(a, e, data, len);
		free(data);
	} else if (!strcmp(kind, "zeros") && arg) {
		len = strtoul(arg, NULL, 0);
		data = xcalloc(1, len);
		craft_data(a, e, data, len);
		free(data);
	} else if (!strcmp(kind, "symlink") && arg) {
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_symlink(e, arg);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			die("craft: %s", archive_error_string(a));
	} else if (!strcmp(kind, "hardlink") && arg) {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_hardlink(e, arg);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			die("craft: %s", archive_error_string(a));
	} else if (!strcmp(kind, "dir")) {
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		if (archive_write_header(a, e) != ARCHIVE_OK)
			die("craft: %s", archive_error_string(a));
	} else {
		die("craft: bad member kind '%s'", kind);
	}
	archive_entry_free(e);
}

static int cmd_craft(int argc, char **argv)
{
	struct archive *a = archive_write_new();
	int i;

	if (argc < 2)
		die("usage: craft OUT MEMBER...");
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, argv[1]) != ARCHIVE_OK)
		die("craft: %s", archive_error_string(a));
	for (i = 2; i < argc; i++)
		craft_member(a, argv[i]);
	if (archive_write_close(a) != ARCHIVE_OK)
		die("craft: %s", archive_error_string(a));
	archive_write_free(a);
	return 0;
}

int main(int argc, char **argv)
{
	set_progname("update-file-test");
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc - 1, argv + 1);
	if (!strcmp(argv[1], "extract"))
		return cmd_extract(argc - 1, argv + 1);
	if (!strcmp(argv[1], "parse"))
		return cmd_parse(argc - 1, argv + 1);
	if (!strcmp(argv[1], "craft"))
		return cmd_craft(argc - 1, argv + 1);
usage:
	fprintf(stderr, "usage: update-file-test write|extract|parse|craft ...\n");
	return 2;
}
