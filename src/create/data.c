// SPDX-License-Identifier: GPL-2.0
/*
 * Changed data: an existing variable whose size or initial contents
 * (bytes, or what its relocations point at) the patch changes.  One that
 * only moves (const, __read_mostly, __ro_after_init) keeps its contents
 * where it is: a note.
 *
 * An update replaces code.  The running kernel keeps its variables with
 * the values they have, and new code binds to them, so a changed initial
 * value (a netlink policy's new limit, a device table's new entry, a
 * function table's new member) would be lost without a word: the update
 * would apply and not fix what the patch fixes.  Every such change is
 * found here and named, with the code and data that refer to it, and the
 * update is refused (units.c); changing live data needs code of the
 * patch author's.
 *
 * New variables (no counterpart before the patch) are carried by the
 * update, initialised as the patch says (newobj.c); static locals pair
 * through their functions (statics.c), and a writable one that stays the
 * running one is compared with it like any variable; dynamic-debug descriptors,
 * warn-once flags and the kernel's special tables are not variables of
 * the program.  Data used only at initialization has done its work.
 *
 * A read-only variable (not __ro_after_init, not used only at boot)
 * whose size stays or shrinks has its initial value as its running value:
 * the core patches it in place, exactly, from the pre image to the post
 * image (struct ksplice_data, kmod/data.c).  One that shrinks (a device
 * table that loses an entry) gets its new bytes and zeros after them.
 * That is sound because nothing writes it: code that reads it is either
 * replaced, or the same before and after the patch, and then reads what
 * the new kernel's would, so no more than the new size; code that used
 * the old size has a different constant and is replaced.  One that grows
 * has no room where it is.  Its relocations must be absolute
 * 64-bit references to named symbols, and the post ones to symbols the
 * running kernel has, or to a function of this unit the update adds (the
 * core points at its copy in the update module): no other new symbol,
 * no carried constant, no string literal the core could not prove is
 * there.
 *
 * A writable variable changed only in callback fields (NULL or a
 * function's address, before and after) has those fields patched in
 * place, and nothing else of it (datafields.c): an ops structure that
 * gains an optional callback.
 *
 * One changed variable needs no running one: a constant of this unit
 * (static, read-only) that only its functions refer to, before and after
 * the patch, none of them run only at initialization, and that holds no
 * function's address (a netlink policy's new limit, a table of names).
 * The update carries the new copy and replaces every function using it,
 * as kpatch does with changed read-only data; what old code handed the
 * old one's address to keeps the old one.
 */
#include <stdlib.h>
#include <string.h>

#include "ksplice-update.h"
#include "diff.h"
#include "util.h"

/* Sections that hold the program's variables; -fdata-sections names each. */
static const char *const data_prefixes[] = {
	".data", ".rodata", ".bss", ".ref.data", ".tdata", ".tbss",
};

/* ...but not these: flags of WARN_ONCE and friends, and merged constants. */
static const char *const not_data[] = {
	".data.once", ".data..once", ".rodata.str", ".rodata.cst",
};

static const char *const init_data[] = {
	".init.data", ".init.rodata", ".exit.data", ".init.bss",
	".meminit.data", ".meminit.rodata",
};

static bool has_prefix_in(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (str_has_prefix(name, list[i]))
			return true;
	return false;
}

#define IN(name, list) has_prefix_in(name, list, sizeof(list) / sizeof(list[0]))

bool diff_is_init_data(const struct section *sec)
{
	return IN(sec->name, init_data);
}

static bool is_variable(const struct symbol *s)
{
	if (s->type != STT_OBJECT || !s->sec || !(s->sec->sh.sh_flags & SHF_ALLOC) ||
	    (s->sec->sh.sh_flags & SHF_EXECINSTR))
		return false;
	if (diff_is_static_local(s) || diff_numbered_base(s->name))
		return false;
	return IN(s->sec->name, data_prefixes) && !IN(s->sec->name, not_data);
}

/*
 * A writable static local that stays the running one (statics.c); a
 * read-only one whose contents change is carried by the new code instead.
 */
static bool bound_local(const struct symbol *s)
{
	return diff_is_static_local(s) && s->local == LOCAL_BOUND &&
	       (s->sec->sh.sh_flags & SHF_WRITE);
}

/* Data whose change diff_data() looks for. */
static bool compared(const struct symbol *s)
{
	return is_variable(s) || bound_local(s) ||
	       (s->type == STT_OBJECT && s->sec && diff_is_init_data(s->sec));
}

/* What differs between @a (pre) and @b (post), or NULL. */
static const char *what_changed(const struct object *pre, const struct symbol *a,
				const struct object *post, const struct symbol *b)
{
	if (a->st.st_size != b->st.st_size)
		return "size";
	if (!diff_same_contents(a, b))
		return "initial value";
	if (!diff_same_relocs(pre, a, post, b, false))
		return "initial value (what it points at)";
	return NULL;
}

static const struct symbol *named_counterpart(const struct object *pre,
					      const struct symbol *b)
{
	size_t i;

	for (i = 0; i < pre->nr_syms; i++) {
		const struct symbol *s = &pre->syms[i];

		if (s->type == STT_OBJECT && s->sec && s->bind == b->bind &&
		    !strcmp(s->name, b->name))
			return s;
	}
	return NULL;
}

static bool same_place(const struct symbol *a, const struct symbol *b)
{
	return a && b && a->sec == b->sec && a->st.st_value == b->st.st_value &&
	       a->st.st_size == b->st.st_size;
}

static const struct symbol *counterpart(const struct object *pre,
					const struct symbol *b)
{
	return diff_is_static_local(b) ? b->twin : named_counterpart(pre, b);
}

/*
 * Is @b another name of a variable diff_data() looks at before it, in
 * both objects (a device table's __mod_*_device_table)?  Then it changes,
 * and is patched, as that one.
 */
static bool is_alias(const struct object *pre, const struct object *post,
		     const struct symbol *b)
{
	const struct symbol *o;

	for (o = post->syms; o < b; o++)
		if (same_place(o, b) && compared(o))
			return same_place(counterpart(pre, o),
					  counterpart(pre, b));
	return false;
}

/* Is @r a reference to @s, by its name or into its section's bytes? */
static bool refers_to(const struct reloc *r, const struct symbol *s)
{
	return r->sym == s ||
	       (r->sym == s->sec->sym &&
		r->addend >= (long)s->st.st_value - 8 &&
		r->addend < (long)(s->st.st_value + s->st.st_size));
}

/*
 * Calls @visit with each reference to @s in @obj's loaded sections and
 * the symbol it is in (NULL: none); stops at the first false.
 */
static bool each_reference(const struct object *obj, const struct symbol *s,
			   bool (*visit)(const struct section *sec,
					 const struct symbol *by, void *ctx),
			   void *ctx)
{
	size_t i, k;

	for (i = 0; i < obj->nr_secs; i++) {
		const struct section *sec = &obj->secs[i];

		if (!(sec->sh.sh_flags & SHF_ALLOC))
			continue;
		for (k = 0; k < sec->nr_relocs; k++)
			if (refers_to(&sec->relocs[k], s) &&
			    !visit(sec, elf_symbol_at(obj, sec, sec->relocs[k].offset), ctx))
				return false;
	}
	return true;
}

struct names_buf {
	const struct symbol *s, *last;
	char *buf;
	size_t size, len, shown;
};

static bool name_one(const struct section *sec, const struct symbol *by, void *ctx)
{
	struct names_buf *nb = ctx;

	(void)sec;
	if (!by || by == nb->s || (nb->last && !strcmp(nb->last->name, by->name)))
		return true;
	nb->last = by;
	if (nb->shown++ == 6) {
		nb->len += snprintf(nb->buf + nb->len, nb->size - nb->len, ", ...");
		return false;
	}
	nb->len += snprintf(nb->buf + nb->len, nb->size - nb->len, "%s%s%s",
			    nb->len ? ", " : "",
			    elf_is_function(by) ? "" : "data ", by->name);
	return nb->len < nb->size;
}

/* Writes to @buf the names of what refers to @s in @obj (code and data). */
static void referrers(const struct object *obj, const struct symbol *s,
		      char *buf, size_t size)
{
	struct names_buf nb = { .s = s, .buf = buf, .size = size };

	buf[0] = 0;
	each_reference(obj, s, name_one, &nb);
}

static bool by_runtime_code(const struct section *sec, const struct symbol *by,
			    void *ctx)
{
	(void)ctx;
	return (sec->sh.sh_flags & SHF_EXECINSTR) && by && elf_is_function(by) &&
	       !diff_is_init_section(sec);
}

/* Does only code of @obj refer to @s, and never code run only at boot? */
static bool only_code_refers(const struct object *obj, const struct symbol *s)
{
	return each_reference(obj, s, by_runtime_code, NULL);
}

/*
 * Does @s hold a function's address?  A table of them (an ops table) is
 * most often handed to the kernel to keep (registered when a device
 * probes), and what it keeps would stay the old table's: refused still.
 */
static bool holds_code_address(const struct symbol *s)
{
	struct reloc *r;
	size_t n, i;

	n = elf_relocs_in(s->sec, s->st.st_value, s->st.st_value + s->st.st_size, &r);
	/* another unit's symbol may be a function */
	for (i = 0; i < n; i++)
		if (!r[i].sym->sec || (r[i].sym->sec->sh.sh_flags & SHF_EXECINSTR))
			return true;
	return false;
}

void diff_const_copies(const struct object *pre, struct object *post, FILE *log)
{
	size_t i;

	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *b = &post->syms[i];
		const struct symbol *a;

		if (!is_variable(b) || b->bind != STB_LOCAL ||
		    (b->sec->sh.sh_flags & SHF_WRITE) || diff_is_init_data(b->sec))
			continue;
		a = named_counterpart(pre, b);
		if (!a || (a->sec->sh.sh_flags & SHF_WRITE) ||
		    !what_changed(pre, a, post, b) ||
		    holds_code_address(a) || holds_code_address(b) ||
		    !only_code_refers(pre, a) || !only_code_refers(post, b))
			continue;
		b->local = LOCAL_CONST_COPY;
		if (log)
			fprintf(log, "  note: %s, a constant only this unit's functions use, changes: the update carries the new one and replaces them\n",
				b->name);
	}
}

static void add_data(struct diff *d, const struct symbol *a,
		     const struct symbol *b, const char *what, bool in_place,
		     unsigned int nr_fields)
{
	d->data = xrealloc(d->data, (d->nr_data + 1) * sizeof(*d->data));
	d->data[d->nr_data++] = (struct data_change){ a, b, what, in_place,
						      nr_fields };
}

/*
 * Why the references in @s (of @obj) keep it from being patched in
 * place, or NULL.  In the post image (@pre set: the object before),
 * each must be to something the running kernel has.
 */
static const char *refs_problem(const struct object *obj,
				const struct symbol *s,
				const struct object *pre)
{
	static char why[320];
	struct target t;
	struct reloc *r;
	size_t n, i;

	n = elf_relocs_in(s->sec, s->st.st_value, s->st.st_value + s->st.st_size, &r);
	for (i = 0; i < n; i++) {
		diff_target(obj, &r[i], &t);
		if (r[i].type != R_X86_64_64 ||
		    r[i].offset + 8 > s->st.st_value + s->st.st_size)
			snprintf(why, sizeof(why), "a reference of type %u at +%#lx",
				 r[i].type, r[i].offset - s->st.st_value);
		else if (!t.name)
			snprintf(why, sizeof(why), "a reference to anonymous data (a string literal?) at +%#lx",
				 r[i].offset - s->st.st_value);
		else if (pre && t.sym && t.sym->local == LOCAL_CONST_COPY)
			snprintf(why, sizeof(why), "a reference to %s, a constant the update carries anew",
				 t.name);
		else if (pre && t.sym && !diff_counterpart(pre, t.sym) &&
			 !(elf_is_function(t.sym) && !t.addend))
			snprintf(why, sizeof(why), "a reference to %s, new in this update",
				 t.name);
		else
			continue;
		return why;
	}
	return NULL;
}

/*
 * Writable data whose callback fields may be patched in place: not
 * per-CPU or thread-local (one copy per CPU or task), not __ro_after_init
 * (boot sets it), in a writable section before and after.
 */
static bool plain_writable(const struct symbol *s)
{
	static const char *const special[] = {
		".data..percpu", ".data..ro_after_init", ".tdata", ".tbss",
	};

	return (s->sec->sh.sh_flags & SHF_WRITE) &&
	       !(s->sec->sh.sh_flags & SHF_TLS) && !IN(s->sec->name, special);
}

/*
 * Why the change of @a to @b cannot be patched in place, or NULL (*@nr:
 * writable, the callback fields patched); with @quiet set, the variable
 * is used only at boot or is special writable data, refused as any
 * change of running data is.
 */
static const char *in_place_problem(const struct object *pre,
				    const struct symbol *a,
				    const struct object *post,
				    const struct symbol *b, bool *quiet,
				    unsigned int *nr)
{
	*quiet = true;
	*nr = 0;
	if (!is_variable(a) || !is_variable(b) ||
	    diff_is_init_data(a->sec) || diff_is_init_data(b->sec))
		return "not a variable of the program's";
	if ((a->sec->sh.sh_flags | b->sec->sh.sh_flags) & SHF_WRITE) {
		if (!plain_writable(a) || !plain_writable(b))
			return "special writable data";
		*quiet = false;
		/* Its other references are the same and left alone. */
		return diff_fields_problem(pre, a, post, b, nr);
	}
	*quiet = false;
	if (b->st.st_size > a->st.st_size)
		return "it grows, and there is no room for it where it is";
	if (!b->st.st_size || a->st.st_size > KSPLICE_MAX_DATA_SIZE)
		return "its size is out of bounds";
	return refs_problem(pre, a, NULL) ?: refs_problem(post, b, pre);
}

void diff_data(const struct object *pre, const struct object *post,
	       struct diff *d, FILE *log)
{
	char refs[512];
	unsigned int nr;
	size_t i;
	bool quiet;

	for (i = 0; i < post->nr_syms; i++) {
		const struct symbol *b = &post->syms[i], *a;
		const char *what, *why;

		if (b->local == LOCAL_CONST_COPY)
			continue;
		if (!compared(b) || is_alias(pre, post, b))
			continue;
		a = counterpart(pre, b);
		if (!a)
			continue;
		what = what_changed(pre, a, post, b);
		if (!what) {
			if (log && strcmp(a->sec->name, b->sec->name))
				fprintf(log, "  note: %s moves from %s to %s; the running one stays where it is, with the same contents\n",
					b->name, a->sec->name, b->sec->name);
			continue;
		}
		if (diff_is_init_data(b->sec) && diff_is_init_data(a->sec)) {
			if (log)
				fprintf(log, "  note: %s is used only at initialization; its change (%s) is not applied\n",
					b->name, what);
			continue;
		}
		why = in_place_problem(pre, a, post, b, &quiet, &nr);
		add_data(d, a, b, what, !why, why ? 0 : nr);
		if (!log)
			continue;
		if (!why && nr) {
			fprintf(log, "  changed data: %s: callback fields (%u) of writable data: patched in place (anchors: %u)\n",
				b->name, nr, diff_anchors(pre, a, post, b));
			continue;
		}
		if (!why && a->st.st_size > b->st.st_size) {
			fprintf(log, "  changed data: %s: shrinks from %lu to %lu bytes, read-only: patched in place, the rest zeroed\n",
				b->name, (unsigned long)a->st.st_size,
				(unsigned long)b->st.st_size);
			continue;
		}
		if (!why) {
			fprintf(log, "  changed data: %s: its %s, read-only: patched in place (%lu bytes)\n",
				b->name, what, (unsigned long)b->st.st_size);
			continue;
		}
		if (!quiet)
			fprintf(log, "  note: %s is %s, but cannot be patched in place: %s\n",
				b->name, (b->sec->sh.sh_flags & SHF_WRITE) ?
				"writable (only callback fields can be)" : "read-only",
				why);
		referrers(post, b, refs, sizeof(refs));
		fprintf(log, "  changed data: %s: its %s (%s; used by %s)\n",
			b->name, what, b->sec->name, refs[0] ? refs : "nothing here");
	}
}
