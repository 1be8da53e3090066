// SPDX-License-Identifier: GPL-2.0
/*
 * Static locals of new code: which running variable each one is.
 *
 * gcc names a function's static variable x.N, numbering them per unit in
 * the order it meets them, so a static added or removed by the patch
 * shifts the numbers of those after it: post's x.21 may be another
 * function's x than pre's x.21.  Binding new code to another function's
 * variable corrupts data silently, so the number is never used.  As
 * kpatch does, a post static local is paired through the function that
 * references it: with the static of the same base name that the
 * function's pre twin references.  When that twin references several of
 * the base name, they pair in order of first reference if both sides have
 * as many, else by identical initial contents if only one pre candidate
 * has them; else, or when two functions referencing it disagree, or two
 * post statics claim one pre static, it is ambiguous, and new code that
 * refers to it is refused.  A writable counterpart of another size is
 * refused too (new code would read or write past the running variable).
 *
 * A static a variable points at pairs through the variable likewise: with
 * the pre static its counterpart points at in the same place (a compound
 * literal of an ops table, which no function may reference).
 *
 * A post static local no pre twin references is new: the update carries
 * it, initialised as the post object says, and never looks its name up in
 * the running kernel.  A read-only one (__func__.N, a const table) is
 * bound to one of the same base name and the same bytes and relocations
 * that the pre twin references, whichever (constants alike are
 * interchangeable); else it is carried too, which is always correct for
 * constant data, and never refused.  So is one that only code the update
 * does not replace refers to: the core could not tell which it is.
 *
 * Once flags (WARN_ONCE's __already_done.N in .data.once, __warned.N of
 * the RCU lockdep checks) follow the same rule: a flag of a warning the
 * pre function had stays bound (a warning that already fired stays
 * quiet); a new warning's flag is new and starts clear.
 *
 * The one exception to refusing is a rate limit's state (_rs.N, which
 * printk_ratelimited() and its kin define): a fix that adds such a
 * message next to others of the function cannot say which is which, but
 * a state that starts over only lets one more burst of messages through,
 * so an ambiguous one is carried anew (LOCAL_FRESH), as kpatch does with
 * its "special" statics; and so is one whose limits the patch changes (a
 * new DEFINE_RATELIMIT_STATE in place of a pr_warn_ratelimited()): the
 * running state has the old ones.  Flags of WARN_ONCE are not such: a warning that
 * fired again could panic a kernel booted with panic_on_warn.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util.h"

size_t diff_numbered_base(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (!dot || !dot[1] || dot[strspn(dot + 1, "0123456789") + 1])
		return 0;
	return dot - name;
}

/* Dynamic-debug descriptors are always carried (newobj.c) and compared by call site. */
bool diff_is_static_local(const struct symbol *s)
{
	return s->bind == STB_LOCAL && s->type == STT_OBJECT && s->sec &&
	       strcmp(s->sec->name, "__dyndbg") && diff_numbered_base(s->name);
}

static bool same_base(const struct symbol *a, const struct symbol *b)
{
	size_t n = diff_numbered_base(a->name);

	return n && n == diff_numbered_base(b->name) &&
	       !strncmp(a->name, b->name, n);
}

struct locals {
	const struct symbol **v;
	size_t n;
};

/* The static locals @f references, each once, in order of first reference. */
static void referenced(const struct object *obj, const struct symbol *f,
		       struct locals *out)
{
	unsigned long start = f->st.st_value;
	struct reloc *r;
	size_t n, i, k;

	out->v = NULL;
	out->n = 0;
	n = elf_relocs_in(f->sec, start, start + f->st.st_size, &r);
	for (i = 0; i < n; i++) {
		struct target t;

		diff_target(obj, &r[i], &t);
		if (!t.sym || !diff_is_static_local(t.sym))
			continue;
		for (k = 0; k < out->n && out->v[k] != t.sym; k++)
			;
		if (k < out->n)
			continue;
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = t.sym;
	}
}

static bool writable(const struct symbol *s)
{
	return s->sec->sh.sh_flags & SHF_WRITE;
}

static bool zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Same size and initial bytes (.bss holds zeros)? */
bool diff_same_contents(const struct symbol *a, const struct symbol *b)
{
	size_t n = a->st.st_size;
	const unsigned char *pa, *pb;

	if (n != b->st.st_size)
		return false;
	pa = a->sec->data ? a->sec->data + a->st.st_value : NULL;
	pb = b->sec->data ? b->sec->data + b->st.st_value : NULL;
	if (!pa || !pb)
		return (!pa || zero(pa, n)) && (!pb || zero(pb, n));
	return !memcmp(pa, pb, n);
}

/*
 * The pre counterpart of @s, the @idx-th of @post's statics of its base
 * that a function references, among @pre's of its twin; NULL with
 * *@bad set when it cannot be told.
 */
static const struct symbol *pick(const struct symbol *s, size_t idx,
				 const struct locals *post,
				 const struct locals *pre, bool *bad)
{
	const struct symbol *c = NULL;
	size_t i;

	if (post->n == pre->n)
		return pre->v[idx];
	for (i = 0; i < pre->n; i++) {
		if (!diff_same_contents(s, pre->v[i]))
			continue;
		if (c) {
			*bad = true;
			return NULL;
		}
		c = pre->v[i];
	}
	if (!c)
		*bad = true;
	return c;
}

/* Keeps only the statics of @s's base name, their order kept. */
static void of_base(const struct locals *all, const struct symbol *s,
		    struct locals *out, size_t *idx)
{
	size_t i;

	out->v = xcalloc(all->n ? all->n : 1, sizeof(*out->v));
	out->n = 0;
	for (i = 0; i < all->n; i++) {
		if (!same_base(all->v[i], s))
			continue;
		if (idx && all->v[i] == s)
			*idx = out->n;
		out->v[out->n++] = all->v[i];
	}
}

static void bind_constant(struct symbol *s, const struct symbol *c)
{
	if (s->local != LOCAL_BOUND && !writable(c) && diff_same_contents(s, c)) {
		s->local = LOCAL_BOUND;
		s->twin = (struct symbol *)c;
	}
}

/* One function pair's say on @s. */
static void vote(struct symbol *s, const struct symbol *f,
		 const struct locals *post_refs, const struct locals *pre_refs)
{
	struct locals lp, lq;
	const struct symbol *c;
	bool bad = false;
	size_t idx = 0, k;

	if (!s->user)
		s->user = f;
	of_base(post_refs, s, &lp, &idx);
	of_base(pre_refs, s, &lq, NULL);
	if (!writable(s)) {
		/*
		 * Constants of the same bytes are interchangeable; the one in
		 * the same place first, or a function that names two alike
		 * (NL_SET_ERR_MSG twice with one message) would differ from
		 * itself.
		 */
		if (lp.n == lq.n)
			bind_constant(s, lq.v[idx]);
		for (k = 0; k < lq.n; k++)
			bind_constant(s, lq.v[k]);
	} else if (lq.n) {
		c = pick(s, idx, &lp, &lq, &bad);
		if (bad || (s->local == LOCAL_BOUND && s->twin != c)) {
			s->local = LOCAL_AMBIGUOUS;
			s->user = f;
		} else if (s->local != LOCAL_AMBIGUOUS) {
			s->local = LOCAL_BOUND;
			s->twin = (struct symbol *)c;
		}
	}
	free(lp.v);
	free(lq.v);
}

/*
 * A variable's say on the static @s it points at: @c, what its pre
 * counterpart points at in the same place.  Returns true if it changed
 * what @s is bound to.
 */
static bool vote_data(struct symbol *s, const struct symbol *v,
		      const struct symbol *c)
{
	if (!s->user)
		s->user = v;
	/* (a bound constant stays: constants alike are interchangeable) */
	if (s->local == LOCAL_AMBIGUOUS ||
	    (s->local == LOCAL_BOUND && (s->twin == c || !writable(s))))
		return false;
	if (s->local == LOCAL_BOUND) {
		s->local = LOCAL_AMBIGUOUS;
		s->twin = NULL;
		s->user = v;
		return true;
	}
	if (!writable(s) && (writable(c) || !diff_same_contents(s, c)))
		return false;
	s->local = LOCAL_BOUND;
	s->twin = (struct symbol *)c;
	return true;
}

/* The pre static that @c's reference at offset @at points at, like @t. */
static const struct symbol *same_place(const struct object *pre,
				       const struct symbol *c, long at,
				       const struct target *t)
{
	struct reloc *r;
	struct target ct;
	size_t n, i;

	n = elf_relocs_in(c->sec, c->st.st_value, c->st.st_value + c->st.st_size, &r);
	for (i = 0; i < n; i++) {
		if ((long)(r[i].offset - c->st.st_value) != at)
			continue;
		diff_target(pre, &r[i], &ct);
		if (ct.sym && diff_is_static_local(ct.sym) &&
		    same_base(ct.sym, t->sym) && ct.addend == t->addend)
			return ct.sym;
	}
	return NULL;
}

/*
 * Statics that a variable points at (a compound literal of a const ops
 * table: .default_domain_ops = &(const struct ...){ ... }) pair with what
 * its pre counterpart points at in the same place: no function may
 * reference them.  Returns true if a pairing changed (one static may
 * point at another: the caller goes on until none does).
 */
static bool pair_through_data(const struct object *pre, struct object *post)
{
	bool changed = false;
	size_t i, n, k;

	for (i = 0; i < post->nr_syms; i++) {
		const struct symbol *v = &post->syms[i], *c, *pc;
		struct reloc *r;

		if (v->type != STT_OBJECT || !v->sec || !v->st.st_size)
			continue;
		c = diff_counterpart(pre, v);
		if (!c || !c->sec || c->st.st_size != v->st.st_size)
			continue;
		n = elf_relocs_in(v->sec, v->st.st_value,
				  v->st.st_value + v->st.st_size, &r);
		for (k = 0; k < n; k++) {
			struct target t;

			diff_target(post, &r[k], &t);
			if (!t.sym || !diff_is_static_local(t.sym) || t.sym == v)
				continue;
			pc = same_place(pre, c, r[k].offset - v->st.st_value, &t);
			if (pc)
				changed |= vote_data((struct symbol *)t.sym, v, pc);
		}
	}
	return changed;
}

/*
 * A bound counterpart must be one the running variable can stand for.
 * Returns true if it no longer is bound.
 */
static bool check_bound(const struct object *pre, const struct object *post,
			struct symbol *s)
{
	const struct symbol *c = s->twin;

	if (s->local != LOCAL_BOUND)
		return false;
	if (!writable(s) || !writable(c)) {
		if (writable(s) != writable(c) || !diff_same_contents(s, c) ||
		    !diff_same_relocs(pre, c, post, s, false))
			s->local = LOCAL_NEW;
	} else if (s->st.st_size != c->st.st_size) {
		s->local = LOCAL_RESIZED;
	}
	if (s->local == LOCAL_BOUND)
		return false;
	s->twin = NULL;
	return true;
}

/* Two post statics bound to one pre static: neither can be trusted. */
static void check_unique(struct object *post)
{
	size_t i, j;

	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *a = &post->syms[i];

		if (a->local != LOCAL_BOUND || !writable(a))
			continue;
		for (j = i + 1; a->local == LOCAL_BOUND && j < post->nr_syms; j++) {
			struct symbol *b = &post->syms[j];

			if (b->local == LOCAL_BOUND && b->twin == a->twin) {
				a->local = b->local = LOCAL_AMBIGUOUS;
				a->twin = b->twin = NULL;
			}
		}
	}
}

/* The static a printk_ratelimited() and its kin define, see above. */
static bool rate_limit_state(const struct symbol *s)
{
	return diff_numbered_base(s->name) == strlen("_rs") && !strncmp(s->name, "_rs", 3) &&
	       writable(s);
}

static void release_rate_limits(struct object *post)
{
	size_t i;

	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *s = &post->syms[i];

		if (!rate_limit_state(s))
			continue;
		if (s->local == LOCAL_AMBIGUOUS ||
		    (s->local == LOCAL_BOUND && !diff_same_contents(s, s->twin))) {
			s->local = LOCAL_FRESH;
			s->twin = NULL;
		}
	}
}

void diff_pair_statics(const struct object *pre, struct object *post)
{
	bool changed;
	size_t i, k;

	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *s = &post->syms[i];

		if (!diff_is_static_local(s))
			continue;
		s->local = LOCAL_NEW;
		s->twin = NULL;
		s->user = NULL;
	}
	for (i = 0; i < post->nr_syms; i++) {
		const struct symbol *f = &post->syms[i];
		struct locals pr, qr;

		if (!elf_is_function(f) || !f->st.st_size)
			continue;
		referenced(post, f, &pr);
		if (f->twin && f->twin->st.st_size)
			referenced(pre, f->twin, &qr);
		else
			qr = (struct locals){ NULL, 0 };
		for (k = 0; k < pr.n; k++)
			vote((struct symbol *)pr.v[k], f, &pr, &qr);
		free(pr.v);
		free(qr.v);
	}
	while (pair_through_data(pre, post))
		;
	/* A constant is alike only if what it points at is: again until none changes. */
	do {
		changed = false;
		for (i = 0; i < post->nr_syms; i++)
			changed |= check_bound(pre, post, &post->syms[i]);
	} while (changed);
	check_unique(post);
	release_rate_limits(post);
}

/*
 * The core learns which running static a bound one is from the pre code
 * of the functions the update replaces, and the pre image of the data it
 * patches: matching binds each name it proves.  Else it looks the name up, and x.N recurs in a module's units
 * (fortify's __func__.N, in each unit that calls strnlen).  A constant
 * only unchanged code refers to (a new .cold part printing the name, as
 * unchanged cold parts do) is carried instead.
 */
static void add_referenced(const struct object *pre, const struct symbol *s,
			   struct locals *proven)
{
	struct locals l;
	size_t k;

	referenced(pre, s, &l);
	proven->v = xrealloc(proven->v, (proven->n + l.n + 1) * sizeof(*proven->v));
	for (k = 0; k < l.n; k++)
		proven->v[proven->n++] = l.v[k];
	free(l.v);
}

void diff_carry_unproven_constants(const struct object *pre,
				   struct object *post, const struct diff *d)
{
	struct locals proven = { NULL, 0 };
	size_t i, k;

	/* (the core proves the pre image of data it patches in place too) */
	for (i = 0; i < d->nr_changes; i++)
		if (d->changes[i].pre)
			add_referenced(pre, d->changes[i].pre, &proven);
	for (i = 0; i < d->nr_data; i++)
		if (d->data[i].pre)
			add_referenced(pre, d->data[i].pre, &proven);
	for (i = 0; i < post->nr_syms; i++) {
		struct symbol *s = &post->syms[i];

		if (!diff_is_static_local(s) || s->local != LOCAL_BOUND ||
		    writable(s))
			continue;
		for (k = 0; k < proven.n && proven.v[k] != s->twin; k++)
			;
		if (k == proven.n) {
			s->local = LOCAL_CARRIED;
			s->twin = NULL;
		}
	}
	free(proven.v);
}

const char *diff_local_problem(const struct symbol *s)
{
	static char buf[512];
	size_t n = diff_numbered_base(s->name);
	const char *f = s->user ? s->user->name : "?";

	if (s->local == LOCAL_RESIZED)
		snprintf(buf, sizeof(buf),
			 "static local %s of %s has another size than the running one",
			 s->name, f);
	else
		snprintf(buf, sizeof(buf),
			 "%s has static locals %.*s before and after the patch, and which is which cannot be told (gcc numbers them per unit)",
			 f, (int)n, s->name);
	return buf;
}
