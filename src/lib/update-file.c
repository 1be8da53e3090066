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

#define MODULE_NAME_MAX	55	/* MODULE_NAME_LEN - 1 */
#define RELEASE_MAX	64	/* sizeof(utsname.release) - 1 */
#define IO_BLOCK	(64 << 10)

/* ---- names ---- */

bool update_id_valid(const char *id)
{
	size_t n = 0;

	for (; id[n]; n++) {
		char c = id[n];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      c == '_'))
			return false;
	}
	return n >= 1 && n <= KSPLICE_ID_MAX;
}

char *update_module_name(const char *id)
{
	return xasprintf("ksplice_%s", id);
}

char *update_module_file(const char *id)
{
	return xasprintf("ksplice_%s.ko", id);
}

/* ---- the manifest ---- */

void manifest_init(struct manifest *m)
{
	memset(m, 0, sizeof(*m));
}

/* The inputs' keys, in the order they are written. */
static const struct {
	const char *key;
	size_t off;
} input_keys[] = {
#define INPUT(k) { #k, offsetof(struct manifest_inputs, k) }
	INPUT(source), INPUT(debian), INPUT(patch_sha256), INPUT(headers),
	INPUT(compiler), INPUT(config_sha256), INPUT(ksplice_version),
#undef INPUT
};

static char **input_field(struct manifest *m, size_t i)
{
	return (char **)((char *)&m->in + input_keys[i].off);
}

static const char *input_value(const struct manifest *m, size_t i)
{
	return *input_field((struct manifest *)m, i);
}

void manifest_free(struct manifest *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(input_keys); i++)
		free(*input_field(m, i));
	free_strv(m->members, m->nr_members);
	free(m->id);
	free(m->kernel_release);
	free(m->replaces);
	free(m->target);
	free(m->created_by);
	free_strv(m->functions, m->nr_functions);
	free_strv(m->load_syms, m->nr_load_syms);
	free_strv(m->cves, m->nr_cves);
	free_strv(m->hooks, m->nr_hooks);
	manifest_init(m);
}

void manifest_add_function(struct manifest *m, const char *name)
{
	m->functions = xrealloc(m->functions,
				(m->nr_functions + 1) * sizeof(char *));
	m->functions[m->nr_functions++] = xstrdup(name);
}

bool cve_id_valid(const char *s)
{
	size_t n;

	if (!str_has_prefix(s, "CVE-") || strspn(s + 4, "0123456789") != 4 ||
	    s[8] != '-')
		return false;
	n = strspn(s + 9, "0123456789");
	return n >= 4 && n <= 12 && !s[9 + n];
}

void manifest_add_cve(struct manifest *m, const char *cve)
{
	size_t i;

	for (i = 0; i < m->nr_cves; i++)
		if (!strcmp(m->cves[i], cve))
			return;
	m->cves = xrealloc(m->cves, (m->nr_cves + 1) * sizeof(char *));
	m->cves[m->nr_cves++] = xstrdup(cve);
	if (m->format < UPDATE_FORMAT_CVES)
		m->format = UPDATE_FORMAT_CVES;
}

void manifest_add_hook(struct manifest *m, const char *kind, const char *fn)
{
	m->hooks = xrealloc(m->hooks, (m->nr_hooks + 1) * sizeof(char *));
	m->hooks[m->nr_hooks++] = xasprintf("%s %s", kind, fn);
	if (m->format < UPDATE_FORMAT_HOOKS)
		m->format = UPDATE_FORMAT_HOOKS;
}

/* A token: printable ASCII, no spaces, so it can't break a line apart. */
static bool token_valid(const char *s, size_t max)
{
	size_t n;

	for (n = 0; s[n]; n++) {
		if (s[n] <= ' ' || s[n] > '~')
			return false;
	}
	return n >= 1 && n <= max;
}

static bool text_valid(const char *s, size_t max)
{
	size_t n;

	for (n = 0; s[n]; n++) {
		if (s[n] < ' ' || s[n] > '~')
			return false;
	}
	return n <= max;
}

static bool module_name_valid(const char *t, size_t len)
{
	size_t n;

	for (n = 0; n < len; n++) {
		char c = t[n];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || c == '_' || c == '-'))
			return false;
	}
	return n >= 1 && n <= MODULE_NAME_MAX;
}

/* "vmlinux", a module name, or several of them separated by spaces. */
static bool target_valid(const char *t)
{
	size_t len;

	do {
		len = strcspn(t, " ");
		if (!module_name_valid(t, len))
			return false;
		t += len;
	} while (*t && *++t);
	return t[-1] != ' ';
}

void manifest_add_load_sym(struct manifest *m, const char *target,
			   const char *name)
{
	m->load_syms = xrealloc(m->load_syms,
				(m->nr_load_syms + 1) * sizeof(char *));
	m->load_syms[m->nr_load_syms++] = xasprintf("%s %s", target, name);
}

static int validate_load_syms(const struct manifest *m, const char *where)
{
	const char *v, *sp;
	size_t i;

	if (m->nr_load_syms > KSPLICE_MAX_LOAD_SYMS)
		return error("%s: more than %d load symbols", where,
			     KSPLICE_MAX_LOAD_SYMS);
	for (i = 0; i < m->nr_load_syms; i++) {
		v = m->load_syms[i];
		sp = strchr(v, ' ');
		if (!sp || !module_name_valid(v, sp - v) ||
		    !token_valid(sp + 1, UPDATE_VALUE_MAX - 1))
			return error("%s: invalid load_symbol '%.80s': expected TARGET NAME",
				     where, v);
	}
	return 0;
}

/* "NAME HEX", each name once. */
static int validate_members(const struct manifest *m, const char *where)
{
	const char *v, *sp;
	size_t i, j;

	if (m->nr_members > 2)
		return error("%s: more member_sha256 lines than members", where);
	for (i = 0; i < m->nr_members; i++) {
		v = m->members[i];
		sp = strchr(v, ' ');
		if (!sp || sp == v || !sha256_hex_valid(sp + 1))
			return error("%s: invalid member_sha256 '%.80s': expected NAME and 64 hex digits",
				     where, v);
		for (j = 0; j < i; j++)
			if (!strncmp(m->members[j], v, sp - v + 1))
				return error("%s: member_sha256 of '%.*s' given twice",
					     where, (int)(sp - v), v);
	}
	return 0;
}

static int validate_inputs(const struct manifest *m, const char *where)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(input_keys); i++) {
		const char *v = input_value(m, i);

		if (v && !text_valid(v, UPDATE_VALUE_MAX))
			return error("%s: invalid %s value", where,
				     input_keys[i].key);
	}
	return 0;
}

static int validate_functions(const struct manifest *m, const char *where)
{
	size_t i;

	/* An update of hooks alone replaces nothing: it runs them. */
	if (m->nr_functions == 0 && !m->nr_hooks)
		return error("%s: no 'function' or 'hook' line: an update replaces a function or runs hooks",
			     where);
	if (m->nr_functions > KSPLICE_MAX_FUNCS)
		return error("%s: %zu functions, more than the %d an update may replace",
			     where, m->nr_functions, KSPLICE_MAX_FUNCS);
	for (i = 0; i < m->nr_functions; i++) {
		if (!token_valid(m->functions[i], UPDATE_VALUE_MAX - 1))
			return error("%s: invalid function name '%.64s'",
				     where, m->functions[i]);
	}
	return 0;
}

static const char *const hook_kinds[] = {
	"pre-apply", "stop-apply", "post-apply",
	"pre-undo", "stop-undo", "post-undo",
};

static int validate_hooks(const struct manifest *m, const char *where)
{
	size_t i, k, n;
	const char *v;

	if (m->nr_hooks > UPDATE_HOOKS_MAX)
		return error("%s: %zu hooks, more than %d", where, m->nr_hooks,
			     UPDATE_HOOKS_MAX);
	for (i = 0; i < m->nr_hooks; i++) {
		v = m->hooks[i];
		n = strcspn(v, " ");
		for (k = 0; k < ARRAY_SIZE(hook_kinds); k++)
			if (n == strlen(hook_kinds[k]) &&
			    !strncmp(v, hook_kinds[k], n))
				break;
		if (k == ARRAY_SIZE(hook_kinds) || !v[n] ||
		    !token_valid(v + n + 1, UPDATE_VALUE_MAX - 1))
			return error("%s: invalid hook '%.80s': expected KIND FUNCTION",
				     where, v);
	}
	return 0;
}

int manifest_validate(const struct manifest *m, const char *where)
{
	size_t i;

	if (m->format < UPDATE_FORMAT_MIN || m->format > UPDATE_FORMAT_MAX)
		return error("%s: format %d is not supported (this ksplice reads formats %d to %d)",
			     where, m->format, UPDATE_FORMAT_MIN, UPDATE_FORMAT_MAX);
	if (m->nr_cves > UPDATE_CVES_MAX)
		return error("%s: %zu CVE ids, more than %d", where,
			     m->nr_cves, UPDATE_CVES_MAX);
	if (m->nr_cves && m->format < UPDATE_FORMAT_CVES)
		return error("%s: cve lines need format %d", where,
			     UPDATE_FORMAT_CVES);
	for (i = 0; i < m->nr_cves; i++) {
		if (!cve_id_valid(m->cves[i]))
			return error("%s: invalid CVE id '%.40s'", where,
				     m->cves[i]);
	}
	if (!m->id)
		return error("%s: no 'id' line", where);
	if (!update_id_valid(m->id))
		return error("%s: invalid update id '%.64s': an id is 1 to %d characters from [0-9a-z_]",
			     where, m->id, KSPLICE_ID_MAX);
	if (!m->kernel_release)
		return error("%s: no 'kernel_release' line", where);
	if (!token_valid(m->kernel_release, RELEASE_MAX))
		return error("%s: invalid kernel_release '%.80s'",
			     where, m->kernel_release);
	if (!m->target)
		return error("%s: no 'target' line", where);
	if (!target_valid(m->target))
		return error("%s: invalid target '%.80s': expected vmlinux or module names",
			     where, m->target);
	if (m->created_by && !text_valid(m->created_by, UPDATE_VALUE_MAX))
		return error("%s: invalid created_by value", where);
	if (m->nr_hooks && m->format < UPDATE_FORMAT_HOOKS)
		return error("%s: hook lines need format %d", where,
			     UPDATE_FORMAT_HOOKS);
	return validate_functions(m, where) || validate_hooks(m, where) ||
	       validate_load_syms(m, where) || validate_inputs(m, where) ||
	       validate_members(m, where);
}

char *manifest_format(const struct manifest *m)
{
	size_t size = 256, n, i;
	char *text, *p;

	for (i = 0; i < m->nr_functions; i++)
		size += strlen(m->functions[i]) + 12;
	for (i = 0; i < m->nr_load_syms; i++)
		size += strlen(m->load_syms[i]) + 16;
	for (i = 0; i < m->nr_hooks; i++)
		size += strlen(m->hooks[i]) + 8;
	size += strlen(m->id) + strlen(m->kernel_release) + strlen(m->target);
	if (m->created_by)
		size += strlen(m->created_by);
	if (m->replaces)
		size += strlen(m->replaces) + 16;
	for (i = 0; i < ARRAY_SIZE(input_keys); i++)
		if (input_value(m, i))
			size += strlen(input_value(m, i)) + 24;
	for (i = 0; i < m->nr_members; i++)
		size += strlen(m->members[i]) + 24;
	for (i = 0; i < m->nr_cves; i++)
		size += strlen(m->cves[i]) + 8;
	text = p = xmalloc(size);
	n = sprintf(p, "format: %d\nid: %s\nkernel_release: %s\ntarget: %s\n",
		    m->format, m->id, m->kernel_release, m->target);
	p += n;
	if (m->created_by)
		p += sprintf(p, "created_by: %s\n", m->created_by);
	if (m->replaces)
		p += sprintf(p, "replaces: %s\n", m->replaces);
	for (i = 0; i < m->nr_functions; i++)
		p += sprintf(p, "function: %s\n", m->functions[i]);
	for (i = 0; i < m->nr_hooks; i++)
		p += sprintf(p, "hook: %s\n", m->hooks[i]);
	for (i = 0; i < m->nr_load_syms; i++)
		p += sprintf(p, "load_symbol: %s\n", m->load_syms[i]);
	for (i = 0; i < ARRAY_SIZE(input_keys); i++)
		if (input_value(m, i))
			p += sprintf(p, "%s: %s\n", input_keys[i].key,
				     input_value(m, i));
	for (i = 0; i < m->nr_cves; i++)
		p += sprintf(p, "cve: %s\n", m->cves[i]);
	for (i = 0; i < m->nr_members; i++)
		p += sprintf(p, "member_sha256: %s\n", m->members[i]);
	return text;
}

/*
 * Finds the format line before anything else, so that a manifest from a
 * newer ksplice is reported as "format 2 is not supported" rather than
 * as a confusing "unknown key".
 */
static int parse_format(const char *text, const char *where)
{
	const char *p = text;

	while (*p) {
		const char *eol = strchrnul(p, '\n');

		if (str_has_prefix(p, "format: ")) {
			char *end;
			long v;

			errno = 0;
			v = strtol(p + 8, &end, 10);
			if (errno || end != eol || end == p + 8 || v < 0 ||
			    v > 1000000)
				return error("%s: invalid format line '%.*s'",
					     where, (int)(eol - p > 80 ? 80 : eol - p), p);
			return v;
		}
		p = *eol ? eol + 1 : eol;
	}
	return error("%s: no 'format' line; is this a ksplice update?", where);
}

static int set_once(char **field, const char *key, const char *value,
		    const char *where, int line)
{
	if (*field)
		return error("%s: line %d: '%s' given twice", where, line, key);
	*field = xstrdup(value);
	return 0;
}

static int parse_line(struct manifest *m, char *line, const char *where,
		      int nr)
{
	char *value = strstr(line, ": ");
	size_t i;

	if (!value)
		return error("%s: line %d is not 'key: value'", where, nr);
	*value = '\0';
	value += 2;
	if (strlen(value) >= UPDATE_VALUE_MAX)
		return error("%s: line %d: value too long", where, nr);
	if (!strcmp(line, "format")) {
		/* parse_format() has read the first one; others must agree */
		if (atoi(value) != m->format)
			return error("%s: line %d: conflicting format lines",
				     where, nr);
		return 0;
	}
	if (!strcmp(line, "id"))
		return set_once(&m->id, line, value, where, nr);
	if (!strcmp(line, "kernel_release"))
		return set_once(&m->kernel_release, line, value, where, nr);
	if (!strcmp(line, "target"))
		return set_once(&m->target, line, value, where, nr);
	if (!strcmp(line, "created_by"))
		return set_once(&m->created_by, line, value, where, nr);
	if (!strcmp(line, "replaces")) {
		/* the only kind there is: every applied update */
		if (strcmp(value, "all"))
			return error("%s: line %d: replaces '%.40s': only 'all' is known",
				     where, nr, value);
		return set_once(&m->replaces, line, value, where, nr);
	}
	if (!strcmp(line, "function")) {
		if (m->nr_functions >= KSPLICE_MAX_FUNCS)
			return error("%s: more than %d functions", where,
				     KSPLICE_MAX_FUNCS);
		manifest_add_function(m, value);
		return 0;
	}
	if (!strcmp(line, "load_symbol")) {
		if (m->nr_load_syms >= KSPLICE_MAX_LOAD_SYMS)
			return error("%s: more than %d load symbols", where,
				     KSPLICE_MAX_LOAD_SYMS);
		m->load_syms = xrealloc(m->load_syms,
					(m->nr_load_syms + 1) * sizeof(char *));
		m->load_syms[m->nr_load_syms++] = xstrdup(value);
		return 0;
	}
	if (!strcmp(line, "member_sha256") && m->format >= 2) {
		if (m->nr_members >= 2)
			return error("%s: line %d: more member_sha256 lines than members",
				     where, nr);
		m->members = xrealloc(m->members,
				      (m->nr_members + 1) * sizeof(char *));
		m->members[m->nr_members++] = xstrdup(value);
		return 0;
	}
	if (!strcmp(line, "hook") && m->format >= UPDATE_FORMAT_HOOKS) {
		if (m->nr_hooks >= UPDATE_HOOKS_MAX)
			return error("%s: more than %d hook lines", where,
				     UPDATE_HOOKS_MAX);
		m->hooks = xrealloc(m->hooks, (m->nr_hooks + 1) * sizeof(char *));
		m->hooks[m->nr_hooks++] = xstrdup(value);
		return 0;
	}
	if (!strcmp(line, "cve") && m->format >= UPDATE_FORMAT_CVES) {
		if (m->nr_cves >= UPDATE_CVES_MAX)
			return error("%s: more than %d cve lines", where,
				     UPDATE_CVES_MAX);
		manifest_add_cve(m, value);
		return 0;
	}
	for (i = 0; m->format >= 2 && i < ARRAY_SIZE(input_keys); i++)
		if (!strcmp(line, input_keys[i].key))
			return set_once(input_field(m, i), line, value, where, nr);
	return error("%s: line %d: unknown key '%.40s'", where, nr, line);
}

int manifest_parse(struct manifest *m, const char *text, size_t len,
		   const char *where)
{
	char *copy, *line, *next;
	int nr = 0, ret = 0;

	if (memchr(text, '\0', len))
		return error("%s: contains a NUL byte; not a manifest", where);
	copy = xstrndup(text, len);
	m->format = parse_format(copy, where);
	if (m->format < 0) {
		free(copy);
		return -1;
	}
	if (m->format < UPDATE_FORMAT_MIN || m->format > UPDATE_FORMAT_MAX) {
		free(copy);
		return error("%s: update file format %d is not supported: this ksplice reads formats %d to %d; use the ksplice that created the update",
			     where, m->format, UPDATE_FORMAT_MIN, UPDATE_FORMAT_MAX);
	}
	for (line = copy; *line && !ret; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		nr++;
		if (*line == '\0' || *line == '#')
			continue;
		ret = parse_line(m, line, where, nr);
	}
	free(copy);
	return ret ? ret : manifest_validate(m, where);
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
