// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing update files; the format is described in
 * update-file.h.  Everything read here may have been tampered with or
 * damaged in transit, and is looked at by root: check, then use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "sha256.h"
#include "update-file.h"
#include "util.h"

#define IO_BLOCK	(64 << 10)

/* ---- names ---- */

char *update_module_name(const char *id)
{
	return xasprintf("ksplice_%s", id);
}

char *update_module_file(const char *id)
{
	return xasprintf("ksplice_%s.ko", id);
}

/* ---- gzip integrity ---- */

/* libarchive does not check the gzip trailer, so we do (IEEE CRC-32). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = (c & 1) ? 0xedb88320 ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t get_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int corrupt(const char *path, const char *why)
{
	return error("%s is corrupt or truncated (%s); copy the update file again",
		     path, why);
}

static int unpack_crc(struct archive *a, const char *path, uint32_t *crc,
		      uint32_t *size)
{
	struct archive_entry *e;
	unsigned char *block;
	size_t total = 0;
	ssize_t n;
	int ret = 0;

	if (archive_read_next_header(a, &e) != ARCHIVE_OK)
		return corrupt(path, archive_error_string(a) ?: "no data");
	block = xmalloc(IO_BLOCK);
	while ((n = archive_read_data(a, block, IO_BLOCK)) > 0) {
		*crc = crc32_update(*crc, block, n);
		total += n;
		if (total > UPDATE_FILE_MAX) {
			ret = error("%s unpacks to more than %d MiB; not a ksplice update file",
				    path, UPDATE_FILE_MAX >> 20);
			break;
		}
	}
	if (n < 0)
		ret = corrupt(path, archive_error_string(a) ?: "bad data");
	*size = total;
	free(block);
	return ret;
}

/*
 * Unpacks the whole gzip stream and checks it against the CRC-32 and
 * length in the trailer: this catches truncation and bit flips anywhere,
 * including in file data that tar itself never checksums.
 */
static int verify_gzip(const char *path, const unsigned char *buf, size_t len)
{
	uint32_t crc = 0, size = 0;
	struct archive *a;
	int ret;

	if (len < 18 || buf[0] != 0x1f || buf[1] != 0x8b)
		return error("%s is not a ksplice update file (not gzip data)",
			     path);
	a = archive_read_new();
	if (!a)
		die("out of memory");
	archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK)
		ret = corrupt(path, archive_error_string(a) ?: "bad gzip data");
	else
		ret = unpack_crc(a, path, &crc, &size);
	archive_read_free(a);
	if (ret)
		return ret;
	if (crc != get_le32(buf + len - 8) || size != get_le32(buf + len - 4))
		return corrupt(path, "checksum mismatch");
	return 0;
}

/* ---- extracting ---- */

/* The gzip CRC held, so this was made that way, not damaged in transit. */
static int invalid(const char *path, const char *why)
{
	return error("%s is not a valid ksplice update file (%s)", path, why);
}

struct extract {
	const char *path;	/* the update file, for messages */
	const char *dir;
	struct archive *a;
	char *manifest;		/* its text */
	size_t manifest_len;
	bool have_core;
	char *update_member;	/* the ksplice_<id>.ko member seen */
	char core_sha[SHA256_HEX_LEN + 1];	/* of what was extracted */
	char update_sha[SHA256_HEX_LEN + 1];
};

static bool path_unsafe(const char *name)
{
	return name[0] == '/' || !strcmp(name, "..") ||
	       str_has_prefix(name, "../") || strstr(name, "/../") ||
	       str_has_suffix(name, "/..");
}

static bool is_update_member(const char *name)
{
	size_t n = strlen(name);
	char id[KSPLICE_ID_MAX + 1];

	if (!str_has_prefix(name, "ksplice_") || !str_has_suffix(name, ".ko"))
		return false;
	n -= strlen("ksplice_") + strlen(".ko");
	if (n < 1 || n > KSPLICE_ID_MAX)
		return false;
	memcpy(id, name + strlen("ksplice_"), n);
	id[n] = '\0';
	return update_id_valid(id);
}

/* Why @e may not be extracted, or NULL; also claims its name. */
static const char *member_refused(struct extract *x,
				  struct archive_entry *e, const char *name)
{
	if (path_unsafe(name))
		return "has an unsafe path (absolute or containing '..')";
	if (archive_entry_hardlink(e))
		return "is a hard link";
	if (archive_entry_filetype(e) == AE_IFLNK)
		return "is a symbolic link";
	if (archive_entry_filetype(e) != AE_IFREG)
		return "is not a regular file";
	if (!strcmp(name, UPDATE_MANIFEST)) {
		if (x->manifest)
			return "appears twice";
	} else if (!strcmp(name, UPDATE_CORE_MODULE)) {
		if (x->have_core)
			return "appears twice";
		x->have_core = true;
	} else if (is_update_member(name)) {
		if (x->update_member)
			return "is a second update module";
		x->update_member = xstrdup(name);
	} else {
		return "is not expected in an update file (only manifest, ksplice.ko and ksplice_<id>.ko are)";
	}
	return NULL;
}

static int copy_data(struct extract *x, const char *name, int fd,
		     size_t max, char **keep)
{
	char *block = xmalloc(IO_BLOCK);
	size_t total = 0;
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 sha;
	ssize_t n;
	int ret = 0;

	sha256_init(&sha);
	while (!ret && (n = archive_read_data(x->a, block, IO_BLOCK)) > 0) {
		sha256_update(&sha, block, n);
		total += n;
		if (total > max)
			ret = error("%s: member '%s' is larger than the %zu byte limit; refusing the update file",
				    x->path, name, max);
		else if (write_all(fd, block, n) < 0)
			ret = error_errno("cannot write %s/%s", x->dir, name);
		else if (keep) {
			*keep = xrealloc(*keep, total + 1);
			memcpy(*keep + total - n, block, n);
		}
	}
	if (!ret && n < 0)
		ret = invalid(x->path, archive_error_string(x->a) ?: "bad data");
	if (!ret && keep)
		x->manifest_len = total;
	sha256_final(&sha, hex);
	if (!keep)
		strcpy(!strcmp(name, UPDATE_CORE_MODULE) ? x->core_sha :
		       x->update_sha, hex);
	free(block);
	return ret;
}

static int extract_member(struct extract *x, struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);
	const char *why;
	size_t max;
	char *out;
	int fd, ret;

	if (!name)
		return invalid(x->path, "member without a name");
	why = member_refused(x, e, name);
	if (why)
		return error("%s: member '%.100s' %s; refusing the update file",
			     x->path, name, why);
	max = strcmp(name, UPDATE_MANIFEST) ? UPDATE_MEMBER_MAX
					    : UPDATE_MANIFEST_MAX;
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > (int64_t)max)
		return error("%s: member '%s' is %lld bytes, more than the %zu byte limit; refusing the update file",
			     x->path, name, (long long)archive_entry_size(e), max);
	out = path_join(x->dir, name);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		ret = error_errno("cannot create %s", out);
		free(out);
		return ret;
	}
	if (!strcmp(name, UPDATE_MANIFEST))
		x->manifest = xstrdup("");
	ret = copy_data(x, name, fd, max,
			strcmp(name, UPDATE_MANIFEST) ? NULL : &x->manifest);
	if (close(fd) < 0 && !ret)
		ret = error_errno("cannot write %s", out);
	free(out);
	return ret;
}

static int extract_members(struct extract *x, const void *buf, size_t len)
{
	struct archive_entry *e;
	int r, ret = 0;

	x->a = archive_read_new();
	if (!x->a)
		die("out of memory");
	archive_read_support_filter_gzip(x->a);
	archive_read_support_format_tar(x->a);
	if (archive_read_open_memory(x->a, buf, len) != ARCHIVE_OK)
		ret = invalid(x->path, archive_error_string(x->a) ?: "not a tar archive");
	while (!ret) {
		r = archive_read_next_header(x->a, &e);
		if (r == ARCHIVE_EOF)
			break;
		/* Our writer never causes warnings: treat them as damage. */
		if (r != ARCHIVE_OK)
			ret = invalid(x->path,
				      archive_error_string(x->a) ?: "bad tar header");
		else
			ret = extract_member(x, e);
	}
	archive_read_free(x->a);
	return ret;
}

const char *manifest_member_sha256(const struct manifest *m, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < m->nr_members; i++)
		if (!strncmp(m->members[i], name, n) && m->members[i][n] == ' ')
			return m->members[i] + n + 1;
	return NULL;
}

/* The gzip CRC held, so a digest that differs was made, not damaged. */
static int check_digest(struct extract *x, const struct manifest *m,
			const char *name, const char *have)
{
	const char *want = manifest_member_sha256(m, name);

	if (!want)
		return error("%s: the manifest has no member_sha256 for '%s'; refusing the update file",
			     x->path, name);
	if (strcmp(want, have))
		return error("%s: member '%s' does not match its sha256 in the manifest (it was changed after the update was made); refusing the update file",
			     x->path, name);
	return 0;
}

/* All three members present, and the module named after the manifest id. */
static int check_complete(struct extract *x, struct manifest *m)
{
	char *where, *want;
	int ret;

	if (!x->manifest)
		return error("%s has no manifest; it is not a ksplice update file",
			     x->path);
	where = xasprintf("%s: manifest", x->path);
	ret = manifest_parse(m, x->manifest, x->manifest_len, where);
	free(where);
	if (ret)
		return ret;
	want = update_module_file(m->id);
	if (!x->update_member)
		ret = error("%s has no update module %s; refusing it",
			    x->path, want);
	else if (strcmp(x->update_member, want))
		ret = error("%s: update module '%s' does not match the manifest id '%s'; refusing it",
			    x->path, x->update_member, m->id);
	else if (!x->have_core)
		ret = error("%s has no core module %s; refusing it",
			    x->path, UPDATE_CORE_MODULE);
	if (!ret && m->format >= 2)
		ret = check_digest(x, m, want, x->update_sha) ||
		      check_digest(x, m, UPDATE_CORE_MODULE, x->core_sha);
	free(want);
	return ret;
}

int update_file_extract(const char *path, const char *dir,
			struct manifest *m)
{
	struct extract x = { .path = path, .dir = dir };
	char *buf;
	size_t len;
	int ret;

	manifest_init(m);
	/* One read: what we check is what we extract, even if @path changes. */
	if (read_file(path, UPDATE_FILE_MAX, &buf, &len) < 0) {
		if (errno == EFBIG)
			return error("%s is larger than %d MiB; not a ksplice update file",
				     path, UPDATE_FILE_MAX >> 20);
		return error_errno("cannot read update file %s", path);
	}
	ret = verify_gzip(path, (unsigned char *)buf, len);
	if (!ret)
		ret = extract_members(&x, buf, len);
	if (!ret)
		ret = check_complete(&x, m);
	if (ret)
		manifest_free(m);
	free(x.manifest);
	free(x.update_member);
	free(buf);
	return ret;
}

/* ---- writing ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The members we are given must be exactly the ones the reader accepts. */
static int check_files(const struct manifest *m, const char *const *files)
{
	char *want = update_module_file(m->id);
	bool have_update = false, have_core = false;
	int ret = 0;
	size_t i;

	for (i = 0; files[i] && !ret; i++) {
		const char *name = base_name(files[i]);
		bool *seen = !strcmp(name, want) ? &have_update :
			     !strcmp(name, UPDATE_CORE_MODULE) ? &have_core : NULL;

		if (!seen)
			ret = error("cannot put %s in an update file: only %s and %s belong there",
				    files[i], want, UPDATE_CORE_MODULE);
		else if (*seen)
			ret = error("%s is given twice", name);
		else
			*seen = true;
	}
	if (!ret && (!have_update || !have_core))
		ret = error("an update file needs both %s and %s", want,
			    UPDATE_CORE_MODULE);
	free(want);
	return ret;
}

static int add_member(struct archive *a, const char *name, const void *data,
		      size_t len)
{
	struct archive_entry *e = archive_entry_new();
	int ret = 0;

	if (!e)
		die("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, len);
	/* Fixed, not the build's time or user: same inputs, same bytes. */
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, "root");
	archive_entry_set_gname(e, "root");
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, data, len) != (ssize_t)len)
		ret = error("cannot add %s to the update file: %s", name,
			    archive_error_string(a));
	archive_entry_free(e);
	return ret;
}

struct member {
	char *data;
	size_t len;
};

/* The members read once: what is digested is what is packed. */
static int read_members(const struct manifest *m, const char *const *files,
			struct member *mem, struct manifest *with)
{
	char hex[SHA256_HEX_LEN + 1];
	size_t i;

	*with = *m;
	with->members = NULL;
	with->nr_members = 0;
	for (i = 0; files[i]; i++) {
		if (read_file(files[i], UPDATE_MEMBER_MAX, &mem[i].data,
			      &mem[i].len) < 0)
			return error_errno("cannot read %s", files[i]);
		sha256_hex(mem[i].data, mem[i].len, hex);
		with->members = xrealloc(with->members,
					 (i + 1) * sizeof(char *));
		with->members[with->nr_members++] =
			xasprintf("%s %s", base_name(files[i]), hex);
	}
	return 0;
}

static int write_archive(int fd, const struct manifest *m,
			 const char *const *files)
{
	struct archive *a = archive_write_new();
	struct member mem[2] = { { 0 } };
	struct manifest with;
	char *text = NULL;
	int ret;
	size_t i;

	ret = read_members(m, files, mem, &with);
	if (!ret)
		text = manifest_format(&with);

	if (!a)
		die("out of memory");
	/* No gzip header time: same inputs, same update file. */
	if (!ret && (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "timestamp",
					    NULL) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK))
		ret = error("cannot start the update file: %s",
			    archive_error_string(a));
	if (!ret)
		ret = add_member(a, UPDATE_MANIFEST, text, strlen(text));
	for (i = 0; files[i] && !ret; i++)
		ret = add_member(a, base_name(files[i]), mem[i].data,
				 mem[i].len);
	if (archive_write_close(a) != ARCHIVE_OK && !ret)
		ret = error("cannot finish the update file: %s",
			    archive_error_string(a));
	archive_write_free(a);
	free_strv(with.members, with.nr_members);
	for (i = 0; i < ARRAY_SIZE(mem); i++)
		free(mem[i].data);
	free(text);
	return ret;
}

int update_file_write(const char *path, const struct manifest *m,
		      const char *const *files)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	mode_t mask;
	int fd, ret;

	if (manifest_validate(m, "manifest") || check_files(m, files)) {
		free(tmp);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = error_errno("cannot create %s", tmp);
		free(tmp);
		return ret;
	}
	mask = umask(0);
	umask(mask);
	ret = write_archive(fd, m, files);
	if (!ret && (fchmod(fd, 0644 & ~mask) < 0 || fsync(fd) < 0))
		ret = error_errno("cannot write %s", tmp);
	if (close(fd) < 0 && !ret)
		ret = error_errno("cannot write %s", tmp);
	if (!ret && rename(tmp, path) < 0)
		ret = error_errno("cannot rename %s to %s", tmp, path);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
