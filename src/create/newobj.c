// SPDX-License-Identifier: GPL-2.0
/*
 * The new-code object: the changed and new functions of one compilation
 * unit, copied out of the post object into a relocatable object that Kbuild
 * links into the update module.
 *
 * Each reference from new code goes one of these ways:
 *  - to something the update itself carries (another new function, a string
 *    literal, a variable only the post object has, a dynamic-debug
 *    descriptor: see is_dyndbg()): an ordinary relocation, applied by the
 *    module loader; but code that takes the address of a function the
 *    update replaces (rather than calling it) gets the running function's,
 *    as below;
 *  - to a new global function of another unit of the update: an undefined
 *    symbol that the linker resolves inside the update module;
 *  - to a symbol vmlinux exports (or a module does, from data): an
 *    ordinary undefined-symbol relocation, also the loader's (this is how
 *    __fentry__, the return and retpoline thunks resolve before the
 *    loader's own rewrites look at them);
 *  - from code to a symbol a module exports: a ksplice relocation, as
 *    below, so that the update module needs no module loaded but its
 *    targets' own (see linked_export());
 *  - to anything else in the running kernel, static symbols included: a
 *    ksplice relocation, resolved by the core from what run-pre matching
 *    learned, with the field left zero here;
 *  - but from data the loader reads (a jump label's static key), or from
 *    code the loader rewrites (an alternative's original instruction or its
 *    replacement: see alt_krelocs_to_load_syms()), to such a symbol: a load
 *    symbol, resolved by ksplice-apply from kallsyms before the loader sees
 *    it (see struct ksplice_load_sym).
 *
 * Special-section entries (ORC, ftrace, return and retpoline sites,
 * alternatives, paravirt sites, lock prefixes, jump labels, exception and
 * bug tables) of the copied functions come along, so the module loader
 * rewrites the new code the way the kernel rewrote its own.  Static call
 * sites do not: new code calls the (exported) trampoline.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libelf.h>

#include "ksplice-update.h"
#include "newexports.h"
#include "newobj.h"
#include "shared.h"
#include "special.h"
#include "util.h"

#define GROW(arr, n) do { \
	(arr) = xrealloc((arr), ((n) + 1) * sizeof(*(arr))); \
	memset(&(arr)[(n)], 0, sizeof(*(arr))); \
} while (0)

static int add_osec(struct newobj *no, const char *name,
		    const struct section *from, unsigned long start,
		    size_t size)
{
	struct osec *o;

	GROW(no->secs, no->nr_secs);
	o = &no->secs[no->nr_secs];
	o->name = xstrdup(name);
	o->from = from;
	o->start = start;
	o->size = size;
	if (from) {
		o->sh = from->sh;
		if (from->data) {
			o->data = xmalloc(size ? size : 1);
			memcpy(o->data, from->data + start, size);
		}
	}
	return no->nr_secs++;
}

static int find_included(const struct newobj *no, const struct section *sec,
			 long at)
{
	size_t i;
	int end = -1;

	/* One that holds @at; else one @at is the end of (a label there). */
	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *o = &no->secs[i];

		if (o->from != sec || at < (long)o->start ||
		    at > (long)(o->start + o->size))
			continue;
		if (at < (long)(o->start + o->size))
			return i;
		/* Data copied in pieces (descriptors) ends where the next begins. */
		if (end < 0 && (o->func || !o->size ||
				(!o->start && o->size == sec->size)))
			end = i;
	}
	return end;
}

static int include_section(struct newobj *no, const struct section *sec)
{
	int i = find_included(no, sec, 0);

	if (i >= 0 && no->secs[i].start == 0 && no->secs[i].size == sec->size)
		return i;
	return add_osec(no, sec->name, sec, 0, sec->size);
}

/*
 * A dynamic-debug descriptor (section __dyndbg) is one pr_debug call
 * site's metadata and the static key of its jump label.  New code gets
 * its own copy of each descriptor it uses, not the running one: binding
 * to the running one would need its static key as a load symbol, found
 * by name in kallsyms, and such names repeat in a module (descriptor.3
 * of pr_debug_ratelimited in every unit).  The module loader registers
 * the copies with dynamic debug under the update module's name; a query
 * by file, function or line controls them (one made before the update
 * was applied does not).  Only the descriptors used are copied.
 */
static bool is_dyndbg(const struct symbol *s)
{
	return s && s->sec && s->type == STT_OBJECT && s->st.st_size &&
	       !strcmp(s->sec->name, "__dyndbg");
}

static int add_undef(struct newobj *no, const char *name)
{
	size_t i;

	for (i = 0; i < no->nr_undefs; i++)
		if (!strcmp(no->undefs[i], name))
			return i;
	GROW(no->undefs, no->nr_undefs);
	no->undefs[no->nr_undefs] = name;
	return no->nr_undefs++;
}

/*
 * A new global function of a unit of the update: calls to it from other
 * units link to it inside the update module.
 */
static bool update_defines(const struct update *u, const char *name)
{
	size_t i, k;

	for (i = 0; i < u->nr_units; i++)
		for (k = 0; k < u->units[i].diff.nr_changes; k++) {
			const struct change *c = &u->units[i].diff.changes[k];

			if (c->kind == FUNC_NEW && c->post->bind == STB_GLOBAL &&
			    !strcmp(c->post->name, name))
				return true;
		}
	return false;
}

/* The running kernel's name for what post calls @t, or NULL if it has none. */
static const char *running_name(const struct unit *u, const struct target *t)
{
	const struct symbol *pre;

	if (!t->sym)
		return t->name;		/* undefined here: a global */
	pre = diff_counterpart(&u->pre, t->sym);
	return pre ? pre->name : NULL;
}

/* Does the field at @off of code @o end a call, jmp or jcc rel32? */
static bool ends_branch(const struct osec *o, unsigned long off)
{
	const unsigned char *p = o->data + off;

	/* A rip-relative operand's ModRM (mod 00, rm 101) is never these. */
	return (off >= 1 && (p[-1] == 0xe8 || p[-1] == 0xe9)) ||
	       (off >= 2 && p[-2] == 0x0f && (p[-1] & 0xf0) == 0x80);
}

/*
 * New code that takes the address of a function the update replaces (to
 * compare it with a pointer the kernel holds, or to store one) means the
 * running function: the kernel's own pointers hold that address, a call
 * through it reaches the new code by the jump, and it outlives an undo.
 * Only a branch goes straight to the new copy.
 */
static bool takes_replaced_address(const struct newobj *no, size_t fi,
				   const struct reloc *r, int i, long at)
{
	const struct osec *from = &no->secs[fi], *to = &no->secs[i];
	unsigned long off = r->offset - from->start;

	if (!from->func || !to->func || at != (long)to->start ||
	    !diff_counterpart(&no->unit->pre, to->func))
		return false;
	return !elf_reloc_pc_relative(r->type) || !ends_branch(from, off);
}

/* The function whose new code (or special entry) a section of ours is. */
static const struct symbol *from_func(const struct newobj *no, size_t fi)
{
	return no->secs[fi].func ? no->secs[fi].func : no->secs[0].func;
}

/*
 * Notes a static local new code refers to, for the create output (see
 * statics.c for how it was paired); false, with an error, when it
 * cannot be bound safely.
 */
static bool note_static(struct newobj *no, const struct symbol *f,
			const struct symbol *s)
{
	size_t i;

	for (i = 0; i < no->nr_statics; i++)
		if (no->statics[i] == s)
			return no->statics[i]->local != LOCAL_AMBIGUOUS &&
			       no->statics[i]->local != LOCAL_RESIZED;
	GROW(no->statics, no->nr_statics);
	GROW(no->static_users, no->nr_statics);
	no->static_users[no->nr_statics] = f;
	no->statics[no->nr_statics++] = s;
	if (s->local != LOCAL_AMBIGUOUS && s->local != LOCAL_RESIZED)
		return true;
	error("%s: new code of %s refers to %s: %s; refusing rather than binding it to another variable",
	      no->unit->source, f ? f->name : "?", s->name,
	      diff_local_problem(s));
	no->errors++;
	return false;
}

void newobj_print_statics(const struct newobj *no, FILE *out,
			  const char *prefix)
{
	size_t i;

	for (i = 0; i < no->nr_statics; i++) {
		const struct symbol *s = no->statics[i];
		const char *f = no->static_users[i] ? no->static_users[i]->name : "?";

		if (s->local == LOCAL_BOUND)
			fprintf(out, "%sstatic local %s of %s: bound to the running %s\n",
				prefix, s->name, f, s->twin->name);
		else if (s->local == LOCAL_NEW)
			fprintf(out, "%sstatic local %s of %s: new, carried (%s)\n",
				prefix, s->name, f, s->sec->data ?
				"initialised as the post object says" : "zero");
		else if (s->local == LOCAL_CARRIED)
			fprintf(out, "%sstatic local %s of %s: a constant, carried (only code the update does not replace refers to the running one: the core could not tell which of its name it is)\n",
				prefix, s->name, f);
		else if (s->local == LOCAL_FRESH)
			fprintf(out, "%sstatic local %s of %s: new, carried (a rate limit's state; which running one it is cannot be told, or its limits changed: it starts over)\n",
				prefix, s->name, f);
	}
}

/*
 * Does the module loader link @from's reference @t, a symbol the kernel
 * exports?  Not code's reference to a module's export: the core resolves
 * it as it patches the target, which uses that module, so it is loaded
 * by then; an update module linked against it would need it loaded first,
 * and some modules load only on their hardware (hv_vmbus off Hyper-V).
 */
static bool linked_export(const struct newobj *no, const struct osec *from,
			  const struct target *t)
{
	const struct export *e;

	if (t->sym && t->sym->bind == STB_LOCAL)
		return false;
	e = exports_find(no->exports, t->name);
	return e && !(e->in_module && from->func);
}

/* Decides where one reference of new code goes; see the file comment. */
static void classify(struct newobj *no, size_t fi, const struct reloc *r,
		     unsigned long bias)
{
	const struct symbol *s = r->sym;
	long base = s->type == STT_SECTION ? 0 : (long)s->st.st_value;
	struct orel rel = { r->offset - no->secs[fi].start, r->type, 0, -1, -1 };
	struct osec *from;
	struct target t;
	int i = -1;

	diff_target(&no->unit->post, r, &t);
	if (t.sym && diff_is_static_local(t.sym) && !is_dyndbg(t.sym) &&
	    !note_static(no, from_func(no, fi), t.sym))
		return;
	/* A bound static is the running one, though a new one carried its section. */
	if (s->sec && !(t.sym && diff_is_static_local(t.sym) &&
			t.sym->local == LOCAL_BOUND))
		i = find_included(no, s->sec, base + r->addend + (long)bias);
	if (i >= 0 && takes_replaced_address(no, fi, r, i,
					     base + r->addend + (long)bias))
		i = -1;
	if (i < 0) {
		/* Only its own block: the others name functions not carried. */
		if (!t.name && diff_aux_block(t.sec, t.off))
			i = add_osec(no, t.sec->name, t.sec, t.off, t.len);
		else if (!t.name)
			i = include_section(no, t.sec);
		else if (is_dyndbg(t.sym))
			i = add_osec(no, t.sym->sec->name, t.sym->sec,
				     t.sym->st.st_value, t.sym->st.st_size);
		else if (!running_name(no->unit, &t) && t.sym->type != STT_FUNC)
			i = include_section(no, t.sym->sec);
		/* A table's read-only data (__bug_table's file name): a copy. */
		else if (!no->secs[fi].func && t.sym && t.sym->sec &&
			 t.sym->type != STT_FUNC &&
			 str_has_prefix(t.sym->sec->name, ".rodata"))
			i = include_section(no, t.sym->sec);
	}
	from = &no->secs[fi];		/* including may have moved it */
	if (i >= 0) {
		rel.osec = i;
		rel.addend = base + r->addend - (long)no->secs[i].start;
	} else if (!t.sym && update_defines(no->update, t.name)) {
		rel.undef = add_undef(no, t.name);
		rel.addend = t.addend;
	} else if (!running_name(no->unit, &t)) {
		error("%s: new function %s is referenced but not carried",
		      from->name, t.name);
		no->errors++;
		return;
	} else if (linked_export(no, from, &t)) {
		rel.undef = add_undef(no, t.name);
		rel.addend = t.addend;
	} else if (from->func) {
		GROW(no->krelocs, no->nr_krelocs);
		no->krelocs[no->nr_krelocs++] = (struct kreloc){
			from->func, rel.offset, r->type, t.addend,
			running_name(no->unit, &t),
			(!t.sym || t.sym->bind != STB_LOCAL) &&
			exports_find(no->exports, t.name) };
		return;
	} else {
		/* The loader reads it (a jump label's key): ksplice-apply's. */
		rel.undef = add_undef(no, load_sym_ref(no->load_syms,
				no->unit->target, running_name(no->unit, &t)));
		rel.addend = t.addend;
	}
	GROW(from->relocs, from->nr_relocs);
	from->relocs[from->nr_relocs++] = rel;
}

static void scan_relocs(struct newobj *no, size_t i)
{
	struct osec *o = &no->secs[i];
	const struct section *sec = o->from;
	struct reloc *first;
	size_t n, k;
	unsigned long bias;

	o->scanned = true;
	if (!sec)
		return;
	n = elf_relocs_in(sec, o->start, o->start + o->size, &first);
	for (k = 0; k < n; k++) {
		bias = no->secs[i].func && elf_reloc_pc_relative(first[k].type) ? 4 : 0;
		classify(no, i, &first[k], bias);
	}
}

struct special_arg {
	struct newobj *no;
	int table, parallel;
};

/*
 * An alternative's replacement comes along by itself: the rest of
 * .altinstr_replacement belongs to other functions (and may jump into
 * them).
 */
static void carry_replacement(struct newobj *no, const struct special *sp,
			      const struct section *sec, unsigned long entry)
{
	struct special_entry se;
	const struct reloc *r;
	unsigned int len;
	long start;
	int i;

	special_entry_read(sp, sec, entry, &se);
	r = se.new;
	len = se.new_len;
	if (!r || !r->sym->sec)
		return;
	start = (r->sym->type == STT_SECTION ? 0 : (long)r->sym->st.st_value) +
		r->addend;
	i = find_included(no, r->sym->sec, start);
	if (i >= 0 && start + len <= (long)(no->secs[i].start + no->secs[i].size))
		return;
	add_osec(no, r->sym->sec->name, r->sym->sec, start, len);
}

/* Copies one special-section entry; its relocations classified like code. */
static void copy_entry(const struct special *sp, const struct section *sec,
		       unsigned long entry, unsigned long offset, void *p)
{
	struct special_arg *a = p;
	struct newobj *no = a->no;
	struct reloc *first;
	struct osec *po, *t;
	unsigned long at;
	size_t n, k;

	if (sp->site_kind == KSPLICE_SITE_ALT)
		carry_replacement(no, sp, sec, entry);
	t = &no->secs[a->table];
	at = t->size;

	t->data = xrealloc(t->data, at + sp->entry_size);
	memcpy(t->data + at, sec->data + entry, sp->entry_size);
	t->size += sp->entry_size;
	n = elf_relocs_in(sec, entry, entry + sp->entry_size, &first);
	for (k = 0; k < n; k++) {
		struct reloc r = first[k];

		r.offset = r.offset - entry + at;
		classify(no, a->table, &r, 0);
	}
	if (a->parallel >= 0) {
		const struct section *ps = elf_find_section(&no->unit->post,
							    sp->parallel);
		unsigned long idx = entry / sp->entry_size;

		po = &no->secs[a->parallel];
		po->data = xrealloc(po->data, po->size + sp->parallel_size);
		memcpy(po->data + po->size, ps->data + idx * sp->parallel_size,
		       sp->parallel_size);
		po->size += sp->parallel_size;
	}
}

static int add_table(struct newobj *no, const char *name)
{
	const struct section *from = elf_find_section(&no->unit->post, name);
	int i = add_osec(no, name, NULL, 0, 0);

	no->secs[i].sh = from->sh;
	no->secs[i].scanned = true;
	return i;
}

static void copy_specials(struct newobj *no, size_t nr_funcs)
{
	unsigned int s;
	size_t f;

	for (s = 0; s < nr_special_sections; s++) {
		const struct special *sp = &special_sections[s];
		struct special_arg a = { no, -1, -1 };

		if (sp->pre_only || !elf_find_section(&no->unit->post, sp->name))
			continue;
		if (sp->parallel && !elf_find_section(&no->unit->post, sp->parallel))
			continue;
		a.table = add_table(no, sp->name);
		no->secs[a.table].special = sp;
		if (sp->parallel)
			a.parallel = add_table(no, sp->parallel);
		for (f = 0; f < nr_funcs; f++)
			special_for_each(&no->unit->post, sp, no->secs[f].func,
					 copy_entry, &a);
	}
}

/*
 * The variables the patch adds that the new code carries: named in the
 * update (new_vars), because an update built later from a tree with this
 * patch may refer to them, and the core must then prove that its pre
 * code's reference is to this update's copy (kmod/added.c).  Static
 * locals pair through their functions instead (statics.c).
 */
static void find_new_vars(struct newobj *no)
{
	const struct object *post = &no->unit->post;
	const struct osec *o;
	const struct symbol *s;
	size_t i, k;

	for (i = 0; i < no->nr_secs; i++) {
		o = &no->secs[i];
		if (o->func || o->special || !o->from)
			continue;
		for (k = 0; k < post->nr_syms; k++) {
			s = &post->syms[k];
			if (s->type != STT_OBJECT || s->sec != o->from ||
			    s->st.st_value < o->start ||
			    s->st.st_value >= o->start + o->size ||
			    !s->st.st_size || diff_is_static_local(s) ||
			    diff_counterpart(&no->unit->pre, s))
				continue;
			GROW(no->vars, no->nr_vars);
			no->vars[no->nr_vars++] = (struct ovar){
				s, i, s->st.st_value - o->start };
		}
	}
}
/*
 * A ksplice reloc inside the original instruction of an alternative of
 * new code: the loader applies the module's alternatives before the core
 * writes its relocs, so the core's write would land on the replacement
 * the loader copied there (or, if the core went first, the loader would
 * copy the original's unresolved field nowhere useful).  Such a reference
 * becomes a load symbol instead: ksplice-apply resolves it from kallsyms,
 * and the loader relocates the original before apply_alternatives() looks
 * at it, as it does for the replacement's own references (which are
 * load symbols already: the replacement is no function of ours).
 */
static bool in_alt_orig(const struct newobj *no, const struct osec *t,
			size_t e, const struct kreloc *kr)
{
	const struct special *sp = t->special;
	unsigned int len = special_field(t->data + e, sp->len);
	const struct orel *r = NULL;
	size_t k;

	for (k = 0; k < t->nr_relocs; k++)
		if (t->relocs[k].offset == e + sp->key_offset)
			r = &t->relocs[k];
	return r && r->osec >= 0 && no->secs[r->osec].func == kr->func &&
	       (long)kr->offset >= r->addend &&
	       (long)kr->offset < r->addend + (long)len;
}

static bool kreloc_in_alt(const struct newobj *no, const struct kreloc *kr)
{
	size_t i, e;

	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *t = &no->secs[i];
		const struct special *sp = t->special;

		if (!sp || sp->site_kind != KSPLICE_SITE_ALT)
			continue;
		for (e = 0; e + sp->entry_size <= t->size; e += sp->entry_size)
			if (in_alt_orig(no, t, e, kr))
				return true;
	}
	return false;
}

static int func_osec(const struct newobj *no, const struct symbol *f)
{
	size_t i;

	for (i = 0; i < no->nr_secs; i++)
		if (no->secs[i].func == f)
			return i;
	return -1;
}

static void alt_krelocs_to_load_syms(struct newobj *no)
{
	size_t k, kept = 0;

	for (k = 0; k < no->nr_krelocs; k++) {
		const struct kreloc *kr = &no->krelocs[k];
		int fi = func_osec(no, kr->func);
		struct osec *f;

		if (fi < 0 || !kreloc_in_alt(no, kr)) {
			no->krelocs[kept++] = *kr;
			continue;
		}
		f = &no->secs[fi];
		GROW(f->relocs, f->nr_relocs);
		f->relocs[f->nr_relocs++] = (struct orel){
			kr->offset, kr->type, kr->addend, -1,
			add_undef(no, load_sym_ref(no->load_syms,
						   no->unit->target, kr->name)) };
	}
	no->nr_krelocs = kept;
}

/*
 * A new variable the patch exports is carried even if no new code uses
 * it (an exported mutex for the modules of a later release): the
 * export names it (newexports.c).
 */
static void carry_exported_vars(struct newobj *no)
{
	const struct object *post = &no->unit->post;
	const struct symbol *t;
	size_t k;

	for (k = 0; k < post->nr_syms; k++) {
		if (!export_carried(no->unit, &post->syms[k]))
			continue;
		t = export_target(post, &post->syms[k]);
		if (t && t->type == STT_OBJECT && find_included(no, t->sec, t->st.st_value) < 0)
			include_section(no, t->sec);
	}
}

struct newobj *newobj_build(const struct update *u, unsigned int unit_nr)
{
	struct newobj *no = xcalloc(1, sizeof(*no));
	const struct unit *unit = &u->units[unit_nr];
	size_t i, nr_funcs;

	no->update = u;
	no->unit = unit;
	no->exports = u->exports;
	no->load_syms = u->load_syms;
	no->nr = unit_nr;
	for (i = 0; i < unit->diff.nr_changes; i++) {
		const struct symbol *f = unit->diff.changes[i].post;
		int k;

		/* Its references to neighbours got relocations (shared.c). */
		if (shared_check(&unit->post, f))
			no->errors++;
		k = add_osec(no, f->sec->name, f->sec, f->st.st_value,
			     f->st.st_size);
		no->secs[k].func = f;
		no->secs[k].global = unit->diff.changes[i].kind == FUNC_NEW &&
				     f->bind == STB_GLOBAL;
	}
	nr_funcs = no->nr_secs;
	carry_exported_vars(no);
	for (i = 0; i < no->nr_secs; i++)
		if (!no->secs[i].scanned)
			scan_relocs(no, i);
	copy_specials(no, nr_funcs);
	/* Tables may have pulled in more data (strings of __bug_table). */
	for (i = 0; i < no->nr_secs; i++)
		if (!no->secs[i].scanned)
			scan_relocs(no, i);
	alt_krelocs_to_load_syms(no);
	find_new_vars(no);
	if (no->errors) {
		newobj_free(no);
		return NULL;
	}
	return no;
}

const char *newobj_var_symbol(const struct newobj *no, size_t k)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "__ksplice_var_%u_%zu", no->nr, k);
	return buf;
}

const char *newobj_func_symbol(const struct newobj *no, const struct symbol *post)
{
	static char buf[64];
	size_t i;

	for (i = 0; i < no->nr_secs; i++)
		if (no->secs[i].func == post) {
			snprintf(buf, sizeof(buf), "__ksplice_new_%u_%zu", no->nr, i);
			return buf;
		}
	return NULL;
}

void newobj_print_ksplice_relocs(const struct newobj *no,
				 const struct symbol *post, FILE *out,
				 const char *prefix)
{
	size_t i;

	for (i = 0; i < no->nr_krelocs; i++) {
		const struct kreloc *k = &no->krelocs[i];

		if (k->func != post)
			continue;
		fprintf(out, "%s{ .symbol = \"%s\", .offset = %#lx, .type = %u, .addend = %ld%s },\n",
			prefix, k->name, k->offset, k->type, k->addend,
			k->export ? ", .flags = KSPLICE_RELOC_EXPORT" : "");
	}
}

size_t newobj_count_ksplice_relocs(const struct newobj *no,
				   const struct symbol *post)
{
	size_t i, n = 0;

	for (i = 0; i < no->nr_krelocs; i++)
		n += no->krelocs[i].func == post;
	return n;
}

static void print_target(const struct newobj *no, const struct orel *r,
			 FILE *out)
{
	const char *name;

	if (r->osec >= 0) {
		const struct osec *t = &no->secs[r->osec];

		fprintf(out, "carried %s%+ld\n", t->func ? t->func->name : t->name,
			r->addend + (long)t->start);
		return;
	}
	name = no->undefs[r->undef];
	if (str_has_prefix(name, "__ksplice_load_"))
		fprintf(out, "load %s\n", load_sym_name(no->load_syms, name));
	else if (exports_find(no->exports, name) &&
		 exports_find(no->exports, name)->ns)
		fprintf(out, "export %s namespace %s\n", name,
			exports_find(no->exports, name)->ns);
	else if (exports_find(no->exports, name))
		fprintf(out, "export %s\n", name);
	else
		fprintf(out, "linked %s\n", name);
}

/* Where each reference of new code goes (--diff-objects --refs). */
void newobj_print_refs(const struct newobj *no, FILE *out)
{
	size_t i, k;

	for (i = 0; i < no->nr_secs; i++) {
		const struct osec *o = &no->secs[i];

		if (o->from)
			fprintf(out, "carry %s %s+%#lx %zu\n",
				o->func ? o->func->name : "data", o->name,
				o->start, o->size);
		for (k = 0; k < o->nr_relocs; k++) {
			fprintf(out, "  %s+%#lx -> ", o->func ? o->func->name :
				o->name, o->relocs[k].offset);
			print_target(no, &o->relocs[k], out);
		}
	}
	for (k = 0; k < no->nr_krelocs; k++)
		fprintf(out, "  %s+%#lx -> kernel %s%+ld\n",
			no->krelocs[k].func->name, no->krelocs[k].offset,
			no->krelocs[k].name, no->krelocs[k].addend);
	newobj_print_statics(no, out, "");
}

void newobj_free(struct newobj *no)
{
	size_t i;

	if (!no)
		return;
	for (i = 0; i < no->nr_secs; i++) {
		free(no->secs[i].name);
		free(no->secs[i].data);
		free(no->secs[i].relocs);
	}
	free(no->secs);
	free(no->undefs);
	free(no->krelocs);
	free(no->statics);
	free(no->static_users);
	free(no->vars);
	free(no);
}
