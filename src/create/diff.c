// SPDX-License-Identifier: GPL-2.0
/*
 * Object diff.  Two functions are the same when their bytes are the same
 * and every relocation points at the same thing: the same named symbol at
 * the same offset, or anonymous data with the same bytes.  Relocation
 * fields hold zeros in a RELA object, so the raw bytes never depend on
 * where things were laid out.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util.h"

/* How far past the referenced byte a PC-relative field's place lies. */
#define PC_BIAS 4

/*
 * static_cpu_has() jumps out of line to a test of the boot CPU's feature
 * bit, one block per site in .altinstr_aux, in the order of the unit's
 * sites: "testb $bit, cap_byte(%rip); jnz t_yes; jmp t_no".  A site added
 * before one moves its block, not what the block is: it is compared as
 * its own 18 bytes and their three references (aux_relocs_same()), not as
 * the bytes of the blocks that happen to follow it.
 */
#define AUX_SECTION	".altinstr_aux"

static const unsigned char aux_shape[AUX_BLOCK] = {
	0xf6, 0x05, 0, 0, 0, 0, 0,	/* testb $imm8, disp32(%rip) */
	0x0f, 0x85, 0, 0, 0, 0,		/* jnz rel32 */
	0xe9, 0, 0, 0, 0,		/* jmp rel32 */
};
static const unsigned char aux_mask[AUX_BLOCK] = {
	0xff, 0xff, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0, 0, 0, 0,
};

bool diff_aux_block(const struct section *sec, unsigned long off)
{
	size_t i;

	if (strcmp(sec->name, AUX_SECTION) || !sec->data || off > sec->size ||
	    sec->size - off < AUX_BLOCK)
		return false;
	for (i = 0; i < AUX_BLOCK; i++)
		if ((sec->data[off + i] & aux_mask[i]) != aux_shape[i])
			return false;
	return true;
}

static void anon_bytes(const struct section *sec, unsigned long off,
		       struct target *t)
{
	size_t max = sec->size > off ? sec->size - off : 0;

	t->sec = sec;
	t->off = off;
	t->bytes = sec->data ? sec->data + off : NULL;
	if (!t->bytes)
		t->len = 0;
	else if (sec->sh.sh_flags & SHF_STRINGS)
		t->len = strnlen((const char *)t->bytes, max) + 1;
	else if ((sec->sh.sh_flags & SHF_MERGE) && sec->sh.sh_entsize)
		t->len = sec->sh.sh_entsize;
	else if (diff_aux_block(sec, off))
		t->len = AUX_BLOCK;
	else
		t->len = max < 64 ? max : 64;
	if (t->len > max)
		t->len = max;
}

/*
 * The start of the string a reference into a string section means.  The
 * assembler folds the field's distance from the instruction's end into
 * the addend, so step back from addend+4 to the string's first byte.
 */
static unsigned long string_start(const struct section *sec, long addend,
				  unsigned int type)
{
	long off = addend + (elf_reloc_pc_relative(type) ? PC_BIAS : 0);

	if (off < 0)
		off = 0;
	if ((size_t)off >= sec->size)
		return sec->size ? sec->size - 1 : 0;
	while (off > 0 && sec->data[off - 1])
		off--;
	return off;
}

/*
 * The assembler keeps a reference to a local label of a mergeable section
 * (.LC7 in .rodata.str1.1 or .rodata.cst2) against the label whenever the
 * addend is not 0, as a PC-relative one's always is: the linker merges
 * those sections, and the label names no symbol of the running kernel.
 * What it means is anonymous data, like a section-relative reference.
 */
static bool merge_label(const struct symbol *sym)
{
	return sym->sec && sym->bind == STB_LOCAL &&
	       (sym->sec->sh.sh_flags & SHF_MERGE) &&
	       (sym->type == STT_NOTYPE || !strncmp(sym->name, ".L", 2));
}

/* An object that ends at @at: a reference to one past an array's end. */
static const struct symbol *symbol_ending_at(const struct object *obj,
					     const struct section *sec,
					     long at)
{
	size_t i;

	for (i = 0; i < obj->nr_syms; i++) {
		const struct symbol *s = &obj->syms[i];

		if (s->sec == sec && s->type == STT_OBJECT && s->st.st_size &&
		    (long)(s->st.st_value + s->st.st_size) == at)
			return s;
	}
	return NULL;
}

/* The section whose relocation table holds @r, or NULL (a copy). */
static const struct section *reloc_section(const struct object *obj,
					   const struct reloc *r)
{
	size_t i;

	for (i = 0; i < obj->nr_secs; i++) {
		const struct section *s = &obj->secs[i];

		if (s->nr_relocs && r >= s->relocs && r < s->relocs + s->nr_relocs)
			return s;
	}
	return NULL;
}

static bool imm8_two_byte(unsigned char op)
{
	return op == 0xba || op == 0xc2 || op == 0xc4 || op == 0xc5 ||
	       op == 0xc6 || op == 0xa4 || op == 0xac ||
	       (op >= 0x70 && op <= 0x73);
}

/*
 * How many immediate bytes follow the RIP-relative field at @field of
 * @code.  The CPU counts the distance from the instruction's end, so the
 * assembler folded them into the addend too: `cmpb $0,x(%rip)` says x-5.
 * Without this, a reference to the second of two adjacent one-byte once
 * flags (.data.once) would be taken for one to the first.
 */
static unsigned int imm_after(const struct section *code, unsigned long field)
{
	const unsigned char *p;
	unsigned char modrm, op, reg;
	bool opsize;

	if (!code || !code->data || !(code->sh.sh_flags & SHF_EXECINSTR) ||
	    field < 2 || field + 4 > code->size)
		return 0;
	p = code->data;
	modrm = p[field - 1];
	if ((modrm & 0xc7) != 0x05)	/* no ModRM with disp32(%rip) */
		return 0;
	op = p[field - 2];
	reg = (modrm >> 3) & 7;
	/* 0f 80..8f is a jcc, which has no ModRM: that 0f ends the instruction before */
	if (field >= 3 && p[field - 3] == 0x0f && (op < 0x80 || op > 0x8f))
		return imm8_two_byte(op) ? 1 : 0;
	opsize = field >= 3 && (p[field - 3] == 0x66 ||
		 (field >= 4 && (p[field - 3] & 0xf0) == 0x40 &&
		  p[field - 4] == 0x66));
	switch (op) {
	case 0x80: case 0x82: case 0x83: case 0xc0: case 0xc1:
	case 0xc6: case 0x6b:
		return 1;
	case 0x81: case 0xc7: case 0x69:
		return opsize ? 2 : 4;
	case 0xf6:
		return reg < 2 ? 1 : 0;
	case 0xf7:
		return reg < 2 ? (opsize ? 2 : 4) : 0;
	}
	return 0;
}

void diff_target(const struct object *obj, const struct reloc *r,
		 struct target *t)
{
	const struct symbol *sym = r->sym;
	const struct section *sec = sym->sec;
	const struct symbol *named;
	long addend = r->addend, at;

	memset(t, 0, sizeof(*t));
	if (merge_label(sym)) {
		addend += (long)sym->st.st_value;
	} else if (sym->type != STT_SECTION) {
		t->name = sym->name;
		t->sym = sym->sec ? sym : NULL;
		t->addend = r->addend;
		return;
	}
	at = addend;
	if (elf_reloc_pc_relative(r->type))
		at += PC_BIAS + imm_after(reloc_section(obj, r), r->offset);
	named = at >= 0 ? elf_symbol_at(obj, sec, at) : NULL;
	if (!named)
		named = elf_symbol_at(obj, sec, addend > 0 ? addend : 0);
	if (!named && !(sec->sh.sh_flags & SHF_MERGE))
		named = symbol_ending_at(obj, sec, at);
	if (named && !(sec->sh.sh_flags & SHF_MERGE)) {
		t->name = named->name;
		t->sym = named;
		t->addend = addend - (long)named->st.st_value;
		return;
	}
	if (sec->sh.sh_flags & SHF_STRINGS)
		anon_bytes(sec, string_start(sec, addend, r->type), t);
	else
		anon_bytes(sec, at > 0 ? at : 0, t);
	t->addend = addend;
}

static bool same_numbered_local(const struct symbol *a, const struct symbol *b)
{
	size_t n = diff_numbered_base(a->name);

	if (a->bind != STB_LOCAL || b->bind != STB_LOCAL ||
	    !n || n != diff_numbered_base(b->name) || strncmp(a->name, b->name, n) ||
	    a->type != b->type || a->st.st_size != b->st.st_size ||
	    !a->sec != !b->sec || !a->sec->data != !b->sec->data)
		return false;
	return !a->sec->data ||
	       !memcmp(a->sec->data + a->st.st_value,
		       b->sec->data + b->st.st_value, a->st.st_size);
}

/*
 * A table of label addresses (&&label: ___bpf_prog_run's jumptable) holds
 * places inside its function's code, not function pointers: every entry
 * is a section-relative reference into code, some not at a section's (a
 * function's) start.
 */
static bool label_table(const struct symbol *sym)
{
	struct reloc *r;
	size_t n, i;
	bool inside = false;

	if (sym->type != STT_OBJECT || !sym->sec || !sym->st.st_size)
		return false;
	n = elf_relocs_in(sym->sec, sym->st.st_value,
			  sym->st.st_value + sym->st.st_size, &r);
	for (i = 0; i < n; i++) {
		if (r[i].sym->type != STT_SECTION || !r[i].sym->sec ||
		    !(r[i].sym->sec->sh.sh_flags & SHF_EXECINSTR))
			return false;
		inside |= r[i].addend != 0;
	}
	return inside;
}

/*
 * A static local pairs through the functions referencing it (statics.c),
 * never by its number; anything else by name.
 */
const struct symbol *diff_counterpart(const struct object *pre,
				      const struct symbol *post)
{
	size_t i;

	if (post->type == STT_FUNC)
		return post->twin;
	/* The new code's own: the old table sends it into the old code. */
	if (label_table(post))
		return NULL;
	if (diff_is_static_local(post))
		return post->local == LOCAL_BOUND ? post->twin : NULL;
	if (diff_numbered_base(post->name) || post->local == LOCAL_CONST_COPY)
		return NULL;
	for (i = 0; i < pre->nr_syms; i++) {
		const struct symbol *s = &pre->syms[i];

		if (s->sec && s->type != STT_SECTION && !strcmp(s->name, post->name))
			return s;
	}
	return NULL;
}

/* The string a descriptor's field points at, or NULL. */
static const char *field_string(const struct reloc *r)
{
	const struct section *sec = r->sym->sec;
	long at = r->addend +
		  (r->sym->type == STT_SECTION ? 0 : (long)r->sym->st.st_value);

	if (!sec || !sec->data || at < 0 || (size_t)at >= sec->size ||
	    !memchr(sec->data + at, 0, sec->size - at))
		return NULL;
	return (const char *)sec->data + at;
}

/*
 * Dynamic-debug descriptors of one call site: pr_debug names its
 * descriptor __UNIQUE_ID_ddebug<__COUNTER__>, so a pr_debug added above
 * renames all that follow, and a line added above moves their line
 * numbers.  The same module, function, file and format strings (and the
 * same flags) are the same call site.
 */
#define DDEBUG_SIZE		56	/* struct _ddebug, x86-64 */
#define DDEBUG_LINE_WORD	32	/* lineno:18, class_id:6, flags:8 */
#define DDEBUG_LINE_MASK	0x3ffffu

static bool same_descriptor(const struct symbol *a, const struct symbol *b)
{
	unsigned int wa, wb;
	struct reloc *ra, *rb;
	size_t na, nb, i;

	if (!a || !b || !a->sec || !b->sec || !a->sec->data || !b->sec->data ||
	    strcmp(a->sec->name, "__dyndbg") || strcmp(b->sec->name, "__dyndbg") ||
	    a->st.st_size != DDEBUG_SIZE || b->st.st_size != DDEBUG_SIZE)
		return false;
	memcpy(&wa, a->sec->data + a->st.st_value + DDEBUG_LINE_WORD, 4);
	memcpy(&wb, b->sec->data + b->st.st_value + DDEBUG_LINE_WORD, 4);
	if ((wa & ~DDEBUG_LINE_MASK) != (wb & ~DDEBUG_LINE_MASK) ||
	    memcmp(a->sec->data + a->st.st_value, b->sec->data + b->st.st_value,
		   DDEBUG_LINE_WORD) ||
	    memcmp(a->sec->data + a->st.st_value + DDEBUG_LINE_WORD + 4,
		   b->sec->data + b->st.st_value + DDEBUG_LINE_WORD + 4,
		   DDEBUG_SIZE - DDEBUG_LINE_WORD - 4))
		return false;
	na = elf_relocs_in(a->sec, a->st.st_value, a->st.st_value + DDEBUG_SIZE, &ra);
	nb = elf_relocs_in(b->sec, b->st.st_value, b->st.st_value + DDEBUG_SIZE, &rb);
	if (na != nb || na != 4)
		return false;
	for (i = 0; i < na; i++) {
		const char *sa = field_string(&ra[i]), *sb = field_string(&rb[i]);

		if (ra[i].offset - a->st.st_value != rb[i].offset - b->st.st_value ||
		    ra[i].type != rb[i].type || !sa || !sb || strcmp(sa, sb))
			return false;
	}
	return true;
}

/*
 * BTF_ID() names its slot __BTF_ID__<kind>__<type>__<counter><line>: a
 * line added above renumbers it, while resolve_btfids fills the slot from
 * <kind> and <type> alone.
 */
static size_t btf_id_base(const char *name)
{
	const char *p = strrchr(name, '_');

	if (!str_has_prefix(name, "__BTF_ID__") || !p || p[-1] != '_' || !p[1] ||
	    strspn(p + 1, "0123456789") != strlen(p + 1))
		return 0;
	return p + 1 - name;
}

static bool same_btf_id(const struct symbol *a, const struct symbol *b)
{
	size_t n = btf_id_base(a->name);

	return n && n == btf_id_base(b->name) && !strncmp(a->name, b->name, n) &&
	       a->sec && b->sec && !strcmp(a->sec->name, ".BTF_ids") &&
	       !strcmp(b->sec->name, ".BTF_ids") && a->st.st_size == b->st.st_size;
}

bool diff_same_target(const struct target *a, const struct target *b)
{
	if (!a->name != !b->name ||
	    (b->sym && b->sym->local == LOCAL_CONST_COPY))
		return false;
	/* x.1 may be another function's x.1: numbers are no names. */
	if (a->sym && b->sym && diff_is_static_local(b->sym) &&
	    (b->sym->local == LOCAL_BOUND || b->sym->local == LOCAL_NEW ||
	     b->sym->local == LOCAL_FRESH || b->sym->local == LOCAL_CARRIED))
		return b->sym->twin == a->sym && a->addend == b->addend;
	/* A renumbered clone: the pairing says, or the same bytes do. */
	if (a->name && strcmp(a->name, b->name) &&
	    !(a->sym && b->sym && (b->sym->twin == a->sym ||
				   same_numbered_local(a->sym, b->sym) ||
				   same_descriptor(a->sym, b->sym) ||
				   same_btf_id(a->sym, b->sym))))
		return false;
	if (a->name)
		return a->addend == b->addend;
	return a->len == b->len && !memcmp(a->bytes, b->bytes, a->len) &&
	       a->addend - (long)a->off == b->addend - (long)b->off;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * "... at arch/x86/kvm/x86.c:8493" and the same at 8494: a string built
 * with __FILE__ ":" __stringify(__LINE__) (fortify's field-spanning
 * memcpy warning, WARN messages), the same but for the line, which only
 * a warning would ever print.  Only digits right after "<file>.c:" or
 * "<file>.h:" may differ, and the reference must point at the same byte
 * before them.
 */
static bool same_but_line(const struct target *a, const struct target *b)
{
	size_t i = 0, j = 0;

	if (a->name || b->name || !a->bytes || !b->bytes ||
	    !(a->sec->sh.sh_flags & SHF_STRINGS) ||
	    !(b->sec->sh.sh_flags & SHF_STRINGS) ||
	    a->addend - (long)a->off != b->addend - (long)b->off)
		return false;
	while (i < a->len && j < b->len) {
		if (a->bytes[i] == b->bytes[j]) {
			i++;
			j++;
			continue;
		}
		/* back to the first digit of the number: they matched so far */
		while (i > 0 && j > 0 && is_digit(a->bytes[i - 1])) {
			i--;
			j--;
		}
		if (i < 3 || !is_digit(a->bytes[i]) || !is_digit(b->bytes[j]) ||
		    a->bytes[i - 1] != ':' || a->bytes[i - 3] != '.' ||
		    (a->bytes[i - 2] != 'c' && a->bytes[i - 2] != 'h') ||
		    a->addend - (long)a->off > (long)i)
			return false;
		while (i < a->len && is_digit(a->bytes[i]))
			i++;
		while (j < b->len && is_digit(b->bytes[j]))
			j++;
	}
	return i == a->len && j == b->len;
}

bool diff_is_init_section(const struct section *sec)
{
	static const char *const init[] = {
		".init.text", ".exit.text", ".head.text", ".meminit.text",
	};
	size_t i;

	for (i = 0; i < sizeof(init) / sizeof(init[0]); i++)
		if (!strcmp(sec->name, init[i]))
			return true;
	return false;
}

static const unsigned char *func_bytes(const struct symbol *f)
{
	return f->sec->data ? f->sec->data + f->st.st_value : NULL;
}

static bool same_function(const struct object *pre, const struct symbol *a,
			  const struct object *post, const struct symbol *b,
			  bool lines);

bool diff_same_function(const struct object *pre, const struct symbol *a,
			const struct object *post, const struct symbol *b)
{
	return same_function(pre, a, post, b, false);
}

/* The references of two blocks of .altinstr_aux: to the same named places. */
static bool aux_relocs_same(const struct object *pre, const struct target *a,
			    const struct object *post, const struct target *b)
{
	struct reloc *ra, *rb;
	size_t na, nb, i;

	na = elf_relocs_in(a->sec, a->off, a->off + a->len, &ra);
	nb = elf_relocs_in(b->sec, b->off, b->off + b->len, &rb);
	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		struct target ta, tb;

		if (ra[i].offset - a->off != rb[i].offset - b->off ||
		    ra[i].type != rb[i].type)
			return false;
		diff_target(pre, &ra[i], &ta);
		diff_target(post, &rb[i], &tb);
		if (!ta.name || !diff_same_target(&ta, &tb))
			return false;
	}
	return true;
}

/* Relocations at the same places pointing at the same things? @lines: see below. */
bool diff_same_relocs(const struct object *pre, const struct symbol *a,
		      const struct object *post, const struct symbol *b,
		      bool lines)
{
	struct reloc *ra, *rb;
	size_t na, nb, i;

	na = elf_relocs_in(a->sec, a->st.st_value,
			   a->st.st_value + a->st.st_size, &ra);
	nb = elf_relocs_in(b->sec, b->st.st_value,
			   b->st.st_value + b->st.st_size, &rb);
	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		struct target ta, tb;

		if (ra[i].offset - a->st.st_value != rb[i].offset - b->st.st_value ||
		    ra[i].type != rb[i].type)
			return false;
		diff_target(pre, &ra[i], &ta);
		diff_target(post, &rb[i], &tb);
		if (!diff_same_target(&ta, &tb) &&
		    !(lines && same_but_line(&ta, &tb)))
			return false;
		if (!ta.name && diff_aux_block(ta.sec, ta.off) &&
		    !aux_relocs_same(pre, &ta, post, &tb))
			return false;
	}
	return true;
}

/* @lines: strings that differ only in a line number are the same. */
static bool same_function(const struct object *pre, const struct symbol *a,
			  const struct object *post, const struct symbol *b,
			  bool lines)
{
	unsigned long size = a->st.st_size;

	if (size != b->st.st_size || !func_bytes(a) || !func_bytes(b) ||
	    memcmp(func_bytes(a), func_bytes(b), size))
		return false;
	return diff_same_relocs(pre, a, post, b, lines);
}

static void add_change(struct diff *d, enum change_kind kind,
		       struct symbol *pre, struct symbol *post)
{
	struct change *c;

	d->changes = xrealloc(d->changes, (d->nr_changes + 1) * sizeof(*c));
	c = &d->changes[d->nr_changes++];
	/* All of it: a stray ->twin would be random flags in the update. */
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->pre = pre;
	c->post = post;
}

/* foo.constprop.1 -> foo.constprop: gcc numbers clones per unit. */
static char *clone_shape(const char *name)
{
	char *out = xstrdup(name), *p = out, *q = out;

	while (*p) {
		if (*p == '.' && p[1] >= '0' && p[1] <= '9' &&
		    p[1 + strspn(p + 1, "0123456789")] == '\0')
			break;
		if (*p == '.' && p[1] >= '0' && p[1] <= '9' &&
		    p[1 + strspn(p + 1, "0123456789")] == '.') {
			p += 1 + strspn(p + 1, "0123456789");
			continue;
		}
		*q++ = *p++;
	}
	*q = '\0';
	return out;
}

static bool same_shape(const struct symbol *a, const struct symbol *b)
{
	char *x = clone_shape(a->name), *y = clone_shape(b->name);
	bool same = !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/*
 * Pairs each post function with the pre function it replaces (->twin).
 * gcc numbers clones per unit (foo.constprop.0 may become .1), so a
 * function whose code is unchanged pairs first, by name or else by shape;
 * then a changed one pairs by name, or with the one unclaimed pre clone of
 * its shape; whatever is left is new.
 */
static void pair_functions(const struct object *pre, struct object *post)
{
	size_t i, j;

	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *b = &post->syms[i], *a = elf_find_function(pre, b->name);

		if (elf_is_function(b) && a && diff_same_function(pre, a, post, b)) {
			b->twin = a;
			a->twin = b;
		}
	}
	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *b = &post->syms[i];

		for (j = 0; elf_is_function(b) && !b->twin && j < pre->nr_syms; j++) {
			struct symbol *a = &pre->syms[j];

			if (elf_is_function(a) && !a->twin && same_shape(a, b) &&
			    diff_same_function(pre, a, post, b)) {
				b->twin = a;
				a->twin = b;
			}
		}
	}
	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *b = &post->syms[i], *a, *found = NULL;
		int n = 0;

		if (!elf_is_function(b) || b->twin)
			continue;
		a = elf_find_function(pre, b->name);
		if (a && !a->twin) {
			b->twin = a;
			a->twin = b;
			continue;
		}
		for (j = 0; j < pre->nr_syms; j++) {
			a = &pre->syms[j];
			if (elf_is_function(a) && !a->twin && same_shape(a, b)) {
				found = a;
				n++;
			}
		}
		if (n == 1) {
			b->twin = found;
			found->twin = b;
		}
	}
}

static bool has_change(const struct diff *d, const struct symbol *post)
{
	size_t i;

	for (i = 0; i < d->nr_changes; i++)
		if (d->changes[i].post == post)
			return true;
	return false;
}

/* The other half of a function gcc split into hot and cold parts. */
static struct symbol *partner_of(const struct object *obj, const char *name)
{
	size_t n = strlen(name);
	struct symbol *s;
	char *other;

	if (n > 5 && !strcmp(name + n - 5, ".cold"))
		other = xstrndup(name, n - 5);
	else
		other = xasprintf("%s.cold", name);
	s = elf_find_function(obj, other);
	free(other);
	return s ? elf_func_primary(obj, s) : NULL;
}

/* gcc names the cold part after the name it compiled, which may be an alias. */
static struct symbol *partner(const struct object *obj, const struct symbol *f)
{
	struct symbol *s = partner_of(obj, f->name);
	size_t i;

	for (i = 0; !s && i < obj->nr_syms; i++)
		if (&obj->syms[i] != f && elf_func_aliases(&obj->syms[i], f))
			s = partner_of(obj, obj->syms[i].name);
	return s;
}

/*
 * The hot part jumps into the middle of the cold part and back: one of
 * them replaced means both, or new code would run old code halfway.
 */
static void add_partners(const struct object *pre, const struct object *post,
			 struct diff *d)
{
	size_t i;

	for (i = 0; i < d->nr_changes; i++) {
		struct symbol *b = partner(post, d->changes[i].post), *a;

		if (!b || has_change(d, b) || diff_is_init_section(b->sec))
			continue;
		a = b->twin;
		add_change(d, a ? FUNC_CHANGED : FUNC_NEW, a, b);
	}
}

int diff_objects(const struct object *pre, struct object *post,
		 struct diff *d, FILE *log)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	pair_functions(pre, post);
	diff_pair_statics(pre, post);
	diff_const_copies(pre, post, log);
	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *b = &post->syms[i], *a = b->twin;

		if (!elf_is_function(b))
			continue;
		if (a && same_function(pre, a, post, b, true))
			continue;
		if (elf_func_primary(post, b) != b) {
			if (log)
				fprintf(log, "  note: %s is an alias of %s: one function, replaced under that name\n",
					b->name, elf_func_primary(post, b)->name);
			continue;
		}
		if (diff_is_init_section(b->sec)) {
			if (log)
				fprintf(log, "  note: %s runs only at initialization; its change is not applied\n",
					b->name);
			continue;
		}
		add_change(d, a ? FUNC_CHANGED : FUNC_NEW, a, b);
	}
	add_partners(pre, post, d);
	diff_data(pre, post, d, log);
	d->nr_table_changes = diff_boot_tables(pre, post, log);
	diff_carry_unproven_constants(pre, post, d);
	return 0;
}

void diff_free(struct diff *d)
{
	free(d->changes);
	free(d->data);
	memset(d, 0, sizeof(*d));
}
