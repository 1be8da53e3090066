// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the update file reader (src/lib/update-file.c):
 * the code that parses what anyone may hand to ksplice-apply, run as
 * root.  The first input byte says what the rest is, modulo 3:
 *
 *   0  an update file, as is: exercises the gzip and CRC checks
 *   1  a tar archive, which we gzip first: almost every mutation of a
 *      real update file breaks its CRC, so this is how mutations reach
 *      the tar reader and the member checks behind it
 *   2  manifest text, for manifest_parse() and manifest_validate()
 *
 * Each input is extracted into a fresh directory that is removed after;
 * a leaked descriptor, or a directory left behind, aborts at once rather
 * than failing a long run far from its cause.  Run it with
 * -close_fd_mask=2: the parser says why it refuses nearly every input on
 * stderr (tests/t/15-fuzz.t).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <sanitizer/common_interface_defs.h>

#include "update-file.h"
#include "util.h"

enum { MODE_UPDATE, MODE_TAR, MODE_MANIFEST, NR_MODES };

static char *base;	/* our private scratch directory */
static char *input;	/* base/input: the update file to extract */
static char *outdir;	/* base/out: extracted into, removed after */

/* Reported where the sanitizers report: -close_fd_mask=2 hides stderr. */
static void __noreturn fail(const char *why)
{
	char *msg = xasprintf("fuzz-update-file: %s", why);

	__sanitizer_report_error_summary(msg);
	abort();
}

static void cleanup(void)
{
	remove_tree(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	set_progname("fuzz-update-file");
	base = make_temp_dir("ksplice-fuzz");
	if (!base)
		die_errno("cannot make a temporary directory");
	input = path_join(base, "input");
	outdir = path_join(base, "out");
	atexit(cleanup);
	return 0;
}

/* The lowest free descriptor: it rises if an input leaked one. */
static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("cannot open /dev/null");
	close(fd);
	return fd;
}

/* Name what is open: a leak is found inputs after its cause, if at all. */
static void __noreturn fail_fds(int expected)
{
	char *msg = xasprintf("a file descriptor leaked (lowest free %d, was %d):",
			      lowest_free_fd(), expected);
	char link[64], target[256];
	ssize_t n;

	for (int fd = 0; fd < 16; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		msg = xasprintf("%s %d=%s", msg, fd, target);
	}
	fail(msg);
}

/* gzip without padding, as update_file_write() makes it. */
static void *gzip(const uint8_t *data, size_t len, size_t *out_len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t size = len + len / 64 + 1024;
	void *buf = xmalloc(size);

	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, len);
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "compression-level",
					    "1") != ARCHIVE_OK ||
	    archive_write_set_format_raw(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_memory(a, buf, size, out_len) != ARCHIVE_OK ||
	    archive_write_header(a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(a, data, len) != (ssize_t)len) ||
	    archive_write_close(a) != ARCHIVE_OK)
		fail(archive_error_string(a) ?: "cannot gzip");
	archive_entry_free(e);
	archive_write_free(a);
	return buf;
}

static void fuzz_extract(const void *data, size_t len)
{
	struct manifest m;

	if (write_file(input, data, len) < 0)
		fail("cannot write the input file");
	if (mkdir(outdir, 0700) < 0)
		fail("cannot make the output directory");
	if (!update_file_extract(input, outdir, &m))
		manifest_free(&m);
	if (remove_tree(outdir) < 0 || !access(outdir, F_OK))
		fail("cannot remove the output directory");
}

/* What the parser accepts must be valid and survive a round trip. */
static void fuzz_manifest(const char *text, size_t len)
{
	struct manifest m, again;
	char *out, *out2;

	manifest_init(&m);
	if (!manifest_parse(&m, text, len, "manifest")) {
		if (manifest_validate(&m, "manifest"))
			fail("manifest_parse() accepted an invalid manifest");
		out = manifest_format(&m);
		manifest_init(&again);
		if (manifest_parse(&again, out, strlen(out), "formatted"))
			fail("manifest_format() wrote what manifest_parse() refuses");
		out2 = manifest_format(&again);
		if (strcmp(out, out2))
			fail("a manifest changed on a round trip");
		free(out2);
		free(out);
		manifest_free(&again);
	}
	manifest_free(&m);
}

/*
 * The lowest free descriptor is taken before and after each input, not
 * once: between inputs libFuzzer itself may open some for good (the pipes
 * of the symbolizer it starts to name newly covered functions).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	int free_fd;
	void *gz;
	size_t gz_len;

	if (len == 0)
		return 0;
	free_fd = lowest_free_fd();
	switch (data[0] % NR_MODES) {
	case MODE_UPDATE:
		fuzz_extract(data + 1, len - 1);
		break;
	case MODE_TAR:
		gz = gzip(data + 1, len - 1, &gz_len);
		fuzz_extract(gz, gz_len);
		free(gz);
		break;
	case MODE_MANIFEST:
		fuzz_manifest((const char *)data + 1, len - 1);
		break;
	}
	if (lowest_free_fd() != free_fd)
		fail_fds(free_fd);
	return 0;
}
