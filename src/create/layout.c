// SPDX-License-Identifier: GPL-2.0
/*
 * Structure layouts before and after the patch, from the compiler's own
 * debug information.
 *
 * Running code and the objects it has allocated use the layout the kernel
 * was built with.  New code compiled for another layout reads and writes
 * the wrong bytes of every existing object: an update that applies and
 * then corrupts memory.  So a struct or union whose size or members'
 * places change is refused (create.c), naming it; a change of the text
 * that keeps the layout (int to unsigned int, a renamed member) is not.
 *
 * Only named types at file scope are compared, each with the members of
 * its anonymous structs and unions; a type one object does not use is
 * not in its DWARF and cannot be compared, but then that object's code
 * does not depend on it.  The objects are relocatable: libdwfl applies
 * their .debug_* relocations, which hold every string offset.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>

#include "layout.h"
#include "util.h"

struct shape {
	char *name;		/* "struct hid_device" */
	char *sig;		/* size and members, comparable as text */
};

struct shapes {
	struct shape *v;
	size_t nr;
};

static const Dwfl_Callbacks offline = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && b->len + n < b->cap)
			break;
		b->cap = b->cap * 2 + n + 64;
		b->s = xrealloc(b->s, b->cap);
	}
	b->len += n;
}

static Dwarf_Word attr_u(Dwarf_Die *d, unsigned int name, Dwarf_Word dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(d, name, &a) || dwarf_formudata(&a, &w))
		return dflt;
	return w;
}

/* The type a member's type names, past typedefs and qualifiers. */
static bool strip(Dwarf_Die *type)
{
	Dwarf_Attribute a;
	int depth = 0;

	while (depth++ < 32) {
		int tag = dwarf_tag(type);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_atomic_type &&
		    tag != DW_TAG_restrict_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, type))
			return false;
	}
	return false;
}

static void members(Dwarf_Die *agg, struct buf *b, int depth);

/*
 * A bit-field of 8, 16, 32 or 64 bits at a multiple of its width is
 * loaded and stored as a plain integer of that width: it is written as
 * one, so that "enum e x:8" become "u8 x" keeps the layout.
 */
static bool whole_bytes(Dwarf_Die *m, struct buf *b, const char *name)
{
	Dwarf_Word bits = attr_u(m, DW_AT_bit_size, 0);
	Dwarf_Word at = attr_u(m, DW_AT_data_bit_offset, 1);

	if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) ||
	    !dwarf_hasattr(m, DW_AT_data_bit_offset) || at % bits)
		return false;
	put(b, " %s@%lu#%lu", name ? name : "(anonymous)",
	    (unsigned long)(at / 8), (unsigned long)(bits / 8));
	return true;
}

static void member(Dwarf_Die *m, struct buf *b, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die type;
	Dwarf_Word size = 0;
	const char *name = dwarf_diename(m);

	if (whole_bytes(m, b, name))
		return;
	put(b, " %s@%lu", name ? name : "(anonymous)", (unsigned long)
	    attr_u(m, DW_AT_data_member_location, 0));
	if (dwarf_hasattr(m, DW_AT_bit_size))
		put(b, ":%lu+%lu/%lu", (unsigned long)attr_u(m, DW_AT_data_bit_offset, 0),
		    (unsigned long)attr_u(m, DW_AT_bit_offset, 0),
		    (unsigned long)attr_u(m, DW_AT_bit_size, 0));
	if (!dwarf_attr_integrate(m, DW_AT_type, &a) || !dwarf_formref_die(&a, &type))
		return;
	if (dwarf_aggregate_size(&type, &size) == 0)
		put(b, "#%lu", (unsigned long)size);
	/* An anonymous struct or union's members are the outer type's. */
	if (!name && strip(&type) && !dwarf_diename(&type) &&
	    (dwarf_tag(&type) == DW_TAG_structure_type ||
	     dwarf_tag(&type) == DW_TAG_union_type))
		members(&type, b, depth + 1);
}

static void members(Dwarf_Die *agg, struct buf *b, int depth)
{
	Dwarf_Die m;

	if (depth > 16 || dwarf_child(agg, &m))
		return;
	put(b, " {");
	do {
		if (dwarf_tag(&m) == DW_TAG_member)
			member(&m, b, depth);
	} while (dwarf_siblingof(&m, &m) == 0);
	put(b, " }");
}

static void add_shape(struct shapes *s, Dwarf_Die *d, const char *kind)
{
	struct buf b = { 0 };
	size_t i;
	char *name = xasprintf("%s %s", kind, dwarf_diename(d));

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].name, name)) {
			free(name);
			return;
		}
	put(&b, "%lu", (unsigned long)attr_u(d, DW_AT_byte_size, 0));
	members(d, &b, 0);
	s->v = xrealloc(s->v, (s->nr + 1) * sizeof(*s->v));
	s->v[s->nr++] = (struct shape){ name, b.s };
}

static void cu_shapes(Dwarf_Die *cu, struct shapes *s)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d))
		return;
	do {
		int tag = dwarf_tag(&d);

		if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type) ||
		    !dwarf_diename(&d) || dwarf_hasattr(&d, DW_AT_declaration))
			continue;
		add_shape(s, &d, tag == DW_TAG_union_type ? "union" : "struct");
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int read_shapes(const char *path, struct shapes *s)
{
	Dwfl *dwfl = dwfl_begin(&offline);
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (!dwfl)
		return error("libdwfl: %s", dwfl_errmsg(-1));
	mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		ret = error("%s: no debug information to compare layouts with (%s)",
			    path, dwfl_errmsg(-1));
		goto out;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			cu_shapes(&cu, s);
		off = next;
	}
out:
	dwfl_end(dwfl);
	return ret;
}

static void shapes_free(struct shapes *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].name);
		free(s->v[i].sig);
	}
	free(s->v);
}

/* Sizes, and the first member whose place differs: "name@offset#size". */
static void say(FILE *log, const char *unit, const char *name,
		const char *pre, const char *post)
{
	const char *a = strchr(pre, ' '), *b = strchr(post, ' ');
	size_t i = 0, s, ea, eb;

	a = a ? a : "";
	b = b ? b : "";
	while (a[i] && a[i] == b[i])
		i++;
	s = i;
	while (s && a[s - 1] != ' ')
		s--;
	ea = s + strcspn(a + s, " ");
	eb = s + strcspn(b + s, " ");
	fprintf(log, "  changed layout: %s (in %s): %lu -> %lu bytes; first difference %.*s -> %.*s\n",
		name, unit, strtoul(pre, NULL, 10), strtoul(post, NULL, 10),
		(int)(ea - s), a + s, (int)(eb - s), b + s);
}

int layout_diff(const char *pre, const char *post, const char *unit,
		struct strv *changed, FILE *log)
{
	struct shapes a, b;
	size_t i, j;

	if (read_shapes(pre, &a))
		return -1;
	if (read_shapes(post, &b)) {
		shapes_free(&a);
		return -1;
	}
	for (i = 0; i < b.nr; i++) {
		for (j = 0; j < a.nr && strcmp(a.v[j].name, b.v[i].name); j++)
			;
		if (j == a.nr || !strcmp(a.v[j].sig, b.v[i].sig))
			continue;
		if (strv_has(changed, b.v[i].name))
			continue;
		strv_add(changed, xstrdup(b.v[i].name));
		if (log)
			say(log, unit, b.v[i].name, a.v[j].sig, b.v[i].sig);
	}
	shapes_free(&a);
	shapes_free(&b);
	return 0;
}
