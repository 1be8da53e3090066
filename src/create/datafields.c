// SPDX-License-Identifier: GPL-2.0
/*
 * Callback fields of writable data: a changed writable variable (an ops
 * structure registered with the kernel, which writes its list head) whose
 * only differences are whole 8-byte fields, each NULL or a function's
 * address before and after the patch -- a callback added, removed or
 * retargeted.  The running variable's other bytes are the kernel's and
 * are not compared; those fields are (the core checks that each holds its
 * pre value) and become their post values (KSPLICE_DATA_FIELDS).
 *
 * A callee this unit does not define may be data for all it can tell:
 * the core checks that its running address is text.
 *
 * Anything else that differs keeps the change refused, named: a byte
 * outside such a field, a pointer to data, a reference with an addend or
 * to anonymous data, a size change.
 *
 * A NULL field proves little about where the running variable is and how
 * it is laid out; its other references to functions and externs (which
 * the kernel does not rewrite as it runs, unlike its list heads) go along
 * as anchors, which the core proves as it proves pre code's references.
 */
#include <stdlib.h>
#include <string.h>

#include "ksplice-update.h"
#include "diff.h"
#include "util.h"

/* Byte @off of @s's initial value: a NOBITS section's are zero. */
static unsigned char byte_of(const struct symbol *s, unsigned long off)
{
	return s->sec->data ? s->sec->data[s->st.st_value + off] : 0;
}

static bool same_bytes(const struct symbol *a, const struct symbol *b,
		       unsigned long off, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i++)
		if (byte_of(a, off + i) != byte_of(b, off + i))
			return false;
	return true;
}

static bool zero_bytes(const struct symbol *s, unsigned long off)
{
	unsigned long i;

	for (i = 0; i < 8; i++)
		if (byte_of(s, off + i))
			return false;
	return true;
}

/* The relocations of @s whose field starts in [off, off + len). */
static size_t relocs_at(const struct symbol *s, unsigned long off,
			unsigned long len, struct reloc **r)
{
	unsigned long start = s->st.st_value + off;

	return elf_relocs_in(s->sec, start, start + len, r);
}

/* Same bytes and same references in [off, off + len) of @a and @b? */
static bool same_slot(const struct object *pre, const struct symbol *a,
		      const struct object *post, const struct symbol *b,
		      unsigned long off, unsigned long len)
{
	struct reloc *ra, *rb;
	struct target ta, tb;
	size_t na, nb, i;

	if (!same_bytes(a, b, off, len))
		return false;
	na = relocs_at(a, off, len, &ra);
	nb = relocs_at(b, off, len, &rb);
	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		if (ra[i].offset - a->st.st_value != rb[i].offset - b->st.st_value ||
		    ra[i].type != rb[i].type)
			return false;
		diff_target(pre, &ra[i], &ta);
		diff_target(post, &rb[i], &tb);
		if (!diff_same_target(&ta, &tb))
			return false;
	}
	return true;
}

/*
 * Why the field at @off of @s (of @obj) is not a callback, NULL or a
 * function's address, or NULL.
 */
static const char *callback_problem(const struct object *obj,
				    const struct symbol *s, unsigned long off)
{
	static char why[320];
	struct reloc *r;
	struct target t;
	size_t n;

	n = relocs_at(s, off, 8, &r);
	if (!n)
		return zero_bytes(s, off) ? NULL : "a byte that is not a callback";
	diff_target(obj, r, &t);
	if (n > 1 || r->offset != s->st.st_value + off || r->type != R_X86_64_64 ||
	    !zero_bytes(s, off))
		snprintf(why, sizeof(why), "a reference of type %u that is not a callback",
			 r->type);
	else if (!t.name)
		snprintf(why, sizeof(why), "a reference to anonymous data");
	else if (t.sym && !elf_is_function(t.sym))
		snprintf(why, sizeof(why), "a pointer to data (%s)", t.name);
	else if (t.addend)
		snprintf(why, sizeof(why), "a reference to %s%+ld, not a function's start",
			 t.name, t.addend);
	else
		return NULL;
	return why;
}

/* Does a reference of @s start in the 7 bytes before @off (reach into it)? */
static bool reached_into(const struct symbol *s, unsigned long off)
{
	struct reloc *r;

	return off && relocs_at(s, off < 7 ? 0 : off - 7, off < 7 ? off : 7, &r);
}

const char *diff_fields_problem(const struct object *pre,
				const struct symbol *a,
				const struct object *post,
				const struct symbol *b, unsigned int *nr)
{
	static char why[400];
	unsigned long size = a->st.st_size, off, len;
	const char *p;

	*nr = 0;
	if (size != b->st.st_size)
		return "its size changes";
	if (!size || size > KSPLICE_MAX_DATA_SIZE)
		return "its size is out of bounds";
	for (off = 0; off < size; off += 8) {
		len = size - off < 8 ? size - off : 8;
		if (same_slot(pre, a, post, b, off, len))
			continue;
		if (len < 8 || (a->st.st_value % 8) || (b->st.st_value % 8))
			p = "a byte that is not an aligned field";
		else if (reached_into(a, off) || reached_into(b, off))
			p = "a reference across a field";
		else
			p = callback_problem(pre, a, off) ?: callback_problem(post, b, off);
		if (p) {
			snprintf(why, sizeof(why), "%s at +%#lx", p, off);
			return why;
		}
		++*nr;
	}
	return *nr ? NULL : "no field changes";
}

bool diff_is_field(const struct object *pre, const struct symbol *a,
		   const struct object *post, const struct symbol *b,
		   unsigned long off)
{
	return off % 8 == 0 && off + 8 <= a->st.st_size &&
	       !same_slot(pre, a, post, b, off, 8);
}

/*
 * Is @r, a reference of writable @a, an anchor: outside the fields that
 * change, absolute, 8-aligned, naming a function or an extern (such as
 * THIS_MODULE) without addend?  Not one the running kernel may no longer
 * name: an __init function (kallsyms drops a module's once it ran) or a
 * weak extern (NULL where nothing defines it).
 */
bool diff_is_anchor(const struct object *pre, const struct symbol *a,
		    const struct object *post, const struct symbol *b,
		    const struct reloc *r)
{
	unsigned long off = r->offset - a->st.st_value;
	struct target t;

	if (r->type != R_X86_64_64 || off % 8 ||
	    diff_is_field(pre, a, post, b, off))
		return false;
	diff_target(pre, r, &t);
	if (!t.name || t.addend)
		return false;
	if (!t.sym)
		return GELF_ST_BIND(r->sym->st.st_info) != STB_WEAK;
	return elf_is_function(t.sym) && !diff_is_init_section(t.sym->sec);
}

unsigned int diff_anchors(const struct object *pre, const struct symbol *a,
			  const struct object *post, const struct symbol *b)
{
	struct reloc *r;
	unsigned int n = 0;
	size_t nr, i;

	nr = relocs_at(a, 0, a->st.st_size, &r);
	for (i = 0; i < nr; i++)
		n += diff_is_anchor(pre, a, post, b, &r[i]);
	return n;
}
