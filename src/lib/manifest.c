// SPDX-License-Identifier: GPL-2.0
/*
 * The manifest (manifest.h): built by ksplice-create, formatted into the
 * update file, parsed and validated when an update file is read.  What is
 * parsed here comes from a file that may have been tampered with: every
 * value is checked before it is kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "sha256.h"
#include "util.h"

#define MODULE_NAME_MAX	55	/* MODULE_NAME_LEN - 1 */
#define RELEASE_MAX	64	/* sizeof(utsname.release) - 1 */

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
	free_strv(m->data, m->nr_data);
	free_strv(m->exports, m->nr_exports);
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

void manifest_add_data(struct manifest *m, const char *name)
{
	m->data = xrealloc(m->data, (m->nr_data + 1) * sizeof(char *));
	m->data[m->nr_data++] = xstrdup(name);
	if (m->format < UPDATE_FORMAT_DATA)
		m->format = UPDATE_FORMAT_DATA;
}

void manifest_add_export(struct manifest *m, const char *target,
			 const char *name)
{
	m->exports = xrealloc(m->exports,
			      (m->nr_exports + 1) * sizeof(char *));
	m->exports[m->nr_exports++] = xasprintf("%s %s", target, name);
	if (m->format < UPDATE_FORMAT_EXPORTS)
		m->format = UPDATE_FORMAT_EXPORTS;
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

	/*
	 * An update of hooks alone replaces nothing: it runs them; one of
	 * read-only data alone patches that; one of exports alone adds them.
	 */
	if (m->nr_functions == 0 && !m->nr_hooks && !m->nr_data &&
	    !m->nr_exports)
		return error("%s: no 'function', 'hook', 'data' or 'export' line: an update replaces a function, runs hooks, patches data or adds exports",
			     where);
	for (i = 0; i < m->nr_exports; i++) {
		const char *v = m->exports[i], *sp = strchr(v, ' ');

		if (!sp || !module_name_valid(v, sp - v) ||
		    !token_valid(sp + 1, UPDATE_VALUE_MAX - 1))
			return error("%s: invalid export '%.80s': expected TARGET NAME",
				     where, v);
	}
	if (m->nr_data > KSPLICE_MAX_DATA * KSPLICE_MAX_OBJS)
		return error("%s: %zu data lines, more than %d", where,
			     m->nr_data, KSPLICE_MAX_DATA * KSPLICE_MAX_OBJS);
	for (i = 0; i < m->nr_data; i++) {
		if (!token_valid(m->data[i], UPDATE_VALUE_MAX - 1))
			return error("%s: invalid data name '%.64s'",
				     where, m->data[i]);
	}
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
	for (i = 0; i < m->nr_data; i++)
		size += strlen(m->data[i]) + 8;
	for (i = 0; i < m->nr_exports; i++)
		size += strlen(m->exports[i]) + 10;
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
	for (i = 0; i < m->nr_data; i++)
		p += sprintf(p, "data: %s\n", m->data[i]);
	for (i = 0; i < m->nr_exports; i++)
		p += sprintf(p, "export: %s\n", m->exports[i]);
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

/* Appends @value to a list of manifest lines, at most @max of them. */
static int push_line(char ***v, size_t *nr, size_t max, const char *value,
		     const char *key, const char *where)
{
	if (*nr >= max)
		return error("%s: more than %zu %s lines", where, max, key);
	*v = xrealloc(*v, (*nr + 1) * sizeof(char *));
	(*v)[(*nr)++] = xstrdup(value);
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
	if (!strcmp(line, "load_symbol"))
		return push_line(&m->load_syms, &m->nr_load_syms,
				 KSPLICE_MAX_LOAD_SYMS, value, line, where);
	if (!strcmp(line, "member_sha256") && m->format >= 2) {
		if (m->nr_members >= 2)
			return error("%s: line %d: more member_sha256 lines than members",
				     where, nr);
		m->members = xrealloc(m->members,
				      (m->nr_members + 1) * sizeof(char *));
		m->members[m->nr_members++] = xstrdup(value);
		return 0;
	}
	if (!strcmp(line, "hook") && m->format >= UPDATE_FORMAT_HOOKS)
		return push_line(&m->hooks, &m->nr_hooks, UPDATE_HOOKS_MAX,
				 value, line, where);
	if (!strcmp(line, "data") && m->format >= UPDATE_FORMAT_DATA) {
		if (m->nr_data >= KSPLICE_MAX_DATA * KSPLICE_MAX_OBJS)
			return error("%s: more than %d data lines", where,
				     KSPLICE_MAX_DATA * KSPLICE_MAX_OBJS);
		manifest_add_data(m, value);
		return 0;
	}
	if (!strcmp(line, "export") && m->format >= UPDATE_FORMAT_EXPORTS)
		return push_line(&m->exports, &m->nr_exports, UPDATE_EXPORTS_MAX,
				 value, line, where);
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
