// SPDX-License-Identifier: GPL-2.0
/*
 * Run-pre matching: find, for each function of an update, the one place
 * in the running kernel whose bytes are its pre code.  Bytes compare
 * equal except where the pre object had a relocation (the running value
 * must refer to the right symbol) or a site the kernel rewrites at boot
 * (the running form must be one the rewrite produces).  Matching never
 * writes to the kernel.
 *
 * Reasons name raw addresses (%px) where only they tell apart static
 * symbols of one name; abort_detail is readable by root only.
 */
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ksplice.h"
#include "ksplice-unpatchable.h"

struct ksplice_match {
	struct ksplice_core *core;
	const struct ksplice_func *f;
	struct ksplice_fstate *fs;
	unsigned long addr;		/* the candidate */
	unsigned long code;		/* where its running code is read:
					 * @addr or an update's new code */
	unsigned long found_code;	/* ->code of the match */
	bool refused;			/* a stacking refusal is in ->why */
	bool probed;			/* a kprobe's bytes are: see ->why */
	u8 *run;			/* its running bytes */
	u8 *skip;			/* bytes verified by their site */
	struct ksplice_bindings pending; /* learned from this candidate */
	struct ksplice_bindings winner;	/* learned from the match */
	char why[KSPLICE_DETAIL_LEN];
};

static __printf(2, 3) bool ksplice_fail(struct ksplice_match *m,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, args);
	va_end(args);
	return false;
}

/* The address of a kprobe set in [@start, @end]; 0 if none. */
unsigned long ksplice_kprobe_in(unsigned long start, unsigned long end)
{
	unsigned long a, found = 0;

	/* get_kprobe walks an RCU list. */
	rcu_read_lock();
	for (a = start; a <= end && !found; a++)
		if (ksplice_k.get_kprobe((void *)a))
			found = a;
	rcu_read_unlock();
	return found;
}

static bool ksplice_match_bytes(struct ksplice_match *m)
{
	const struct ksplice_func *f = m->f;
	unsigned long probe;
	unsigned int i, n;

	for (i = 0; i < f->pre_size; i++) {
		if (m->fs->mask[i] != KSPLICE_MASK_CODE || m->skip[i] ||
		    m->run[i] == f->pre[i])
			continue;
		n = min(8U, f->pre_size - i);
		/*
		 * A kprobe's int3, or an optimized one's jmp, differs at its
		 * first byte, or up to 4 bytes later when the instruction it
		 * covers began with the same byte.
		 */
		probe = ksplice_kprobe_in(m->code + max(i, 4U) - 4, m->code + i);
		m->probed = probe;
		if (probe)
			return ksplice_fail(m, "%s+0x%x: a kprobe is set at %pS (running %*ph, expected %*ph)",
					    f->name, i, (void *)probe, n,
					    m->run + i, n, f->pre + i);
		return ksplice_fail(m, "%s+0x%x: running %*ph, expected %*ph",
				    f->name, i, n, m->run + i, n, f->pre + i);
	}
	return true;
}

static bool ksplice_match_sym(void *p, const struct ksplice_reloc *r,
			      unsigned long sym, bool bind);

static void ksplice_site_ctx_init(struct ksplice_match *m,
				  struct ksplice_site_ctx *c, unsigned int i)
{
	const struct ksplice_func *f = m->f;
	unsigned int off = f->pre_sites[i].offset;
	unsigned int rel = m->fs->site_rel[i];

	c->target = f->target;
	c->why = m->why;
	c->why_len = sizeof(m->why);
	c->site = &f->pre_sites[i];
	c->rel = rel == KSPLICE_NO_REL ? NULL : &f->pre_relocs[rel];
	c->mask = m->fs->mask + off;
	c->skip = m->skip + off;
	c->check = ksplice_match_sym;
	c->m = m;
	c->relocs = f->pre_relocs;
	c->nr_relocs = f->nr_pre_relocs;
	c->offset = off;
	c->pre = f->pre + off;
	c->run = m->run + off;
	c->addr = m->code + off;
	c->len = m->fs->site_len[i];
}

/*
 * Alternatives first: where the running code holds a replacement, the
 * pre code's own bytes, relocs and sites there are not looked at.  The
 * sites of one ALTERNATIVE_2 are adjacent in the table, at one offset.
 */
static bool ksplice_match_alts(struct ksplice_match *m)
{
	const struct ksplice_func *f = m->f;
	struct ksplice_site_ctx c;
	unsigned int i, n;

	for (i = 0; i < f->nr_pre_sites; i += n) {
		n = 1;
		if (f->pre_sites[i].kind != KSPLICE_SITE_ALT)
			continue;
		while (i + n < f->nr_pre_sites &&
		       f->pre_sites[i + n].kind == KSPLICE_SITE_ALT &&
		       f->pre_sites[i + n].offset == f->pre_sites[i].offset)
			n++;
		ksplice_site_ctx_init(m, &c, i);
		if (!ksplice_arch_alt_match(&c, &f->pre_sites[i], n))
			return false;
	}
	return true;
}

static bool ksplice_match_sites(struct ksplice_match *m)
{
	const struct ksplice_func *f = m->f;
	struct ksplice_site_ctx c;
	unsigned int i;

	for (i = 0; i < f->nr_pre_sites; i++) {
		if (f->pre_sites[i].kind == KSPLICE_SITE_ALT ||
		    m->skip[f->pre_sites[i].offset])
			continue;
		ksplice_site_ctx_init(m, &c, i);
		if (!ksplice_arch_site_match(f->pre_sites[i].kind, &c))
			return false;
	}
	return true;
}

/* Binds @name to @addr unless it is bound to another address already. */
static bool ksplice_match_bind(struct ksplice_match *m, const char *name,
			       unsigned long addr)
{
	unsigned long old;

	if (ksplice_binding_get(&m->core->bindings, m->f, name, &old) ||
	    ksplice_binding_get(&m->pending, m->f, name, &old)) {
		if (old == addr)
			return true;
		return ksplice_fail(m, "%s: %s refers to %px, elsewhere to %px",
				    m->f->name, name, (void *)addr,
				    (void *)old);
	}
	if (ksplice_binding_add(&m->pending, m->f, name, addr))
		return ksplice_fail(m, "out of memory");
	return true;
}

/* An anonymous symbol (a string, say) is known by its bytes. */
static bool ksplice_match_anon(struct ksplice_match *m,
			       const struct ksplice_reloc *r,
			       unsigned long sym)
{
	unsigned long at = sym + r->expect_off;
	u8 buf[64];
	unsigned int done, n;

	for (done = 0; done < r->expect_len; done += n) {
		n = min_t(unsigned int, sizeof(buf), r->expect_len - done);
		if (copy_from_kernel_nofault(buf, (void *)(at + done), n) ||
		    memcmp(buf, r->expect + done, n))
			return ksplice_fail(m, "%s+0x%x: data at %pS differs from the pre object's",
					    m->f->name, r->offset,
					    (void *)at);
	}
	return true;
}

/* Is @sym what @r refers to?  See ksplice_sym_check_t. */
static bool ksplice_match_sym(void *p, const struct ksplice_reloc *r,
			      unsigned long sym, bool bind)
{
	struct ksplice_match *m = p;
	unsigned long old;

	if (r->expect_len && !ksplice_match_anon(m, r, sym))
		return false;
	if (!r->symbol[0])
		return true;
	if (!ksplice_sym_is(m->f->target, r->symbol, sym)) {
		/* An applied update's copy of the function: stack.c */
		old = ksplice_stack_copy_of(m->f->target, r->symbol, sym);
		if (old)
			sym = old;
		/* Or what an applied update added: added.c */
		else if (!ksplice_added_by(m->f->target, r->symbol,
					   m->f->unit, sym))
			return ksplice_fail(m, "%s+0x%x: refers to %pS, not to %s",
					    m->f->name, r->offset, (void *)sym,
					    r->symbol);
	}
	return !bind || ksplice_match_bind(m, r->symbol, sym);
}

static bool ksplice_match_reloc(struct ksplice_match *m,
				const struct ksplice_reloc *r)
{
	unsigned long place = m->code + r->offset;

	return ksplice_match_sym(m, r, ksplice_arch_reloc_read(r,
				 m->run + r->offset, place), true);
}

static bool ksplice_match_relocs(struct ksplice_match *m)
{
	const struct ksplice_func *f = m->f;
	unsigned int i;

	for (i = 0; i < f->nr_pre_relocs; i++) {
		if (m->fs->mask[f->pre_relocs[i].offset] == KSPLICE_MASK_SITE ||
		    m->skip[f->pre_relocs[i].offset])
			continue;
		if (!ksplice_match_reloc(m, &f->pre_relocs[i]))
			return false;
		cond_resched();
	}
	return true;
}

/*
 * Matches the pre code against @len running bytes at @code; @under, if
 * set, are the bytes a jump covers at @under_off (the stock code below
 * the first update's jump).
 */
static bool ksplice_match_at(struct ksplice_match *m, unsigned long code,
			     const u8 *under, unsigned int under_off)
{
	m->code = code;
	if (copy_from_kernel_nofault(m->run, (void *)code, m->f->pre_size))
		return ksplice_fail(m, "%s: cannot read %u bytes at %px",
				    m->f->name, m->f->pre_size, (void *)code);
	if (under && under_off + KSPLICE_JMP_LEN <= m->f->pre_size)
		memcpy(m->run + under_off, under, KSPLICE_JMP_LEN);
	memset(m->skip, 0, m->f->pre_size);
	ksplice_arch_match_entry(m->f, m->run, m->skip);
	return ksplice_match_alts(m) && ksplice_match_bytes(m) &&
	       ksplice_match_sites(m) &&
	       ksplice_match_relocs(m) &&
	       ksplice_match_bind(m, m->f->name, m->addr);
}

/* Against the new code of update @e, which replaced the candidate. */
static bool ksplice_match_update(struct ksplice_match *m,
				 const struct ksplice_stack_entry *e)
{
	const struct ksplice_func *g = &e->core->update->funcs[e->idx];

	if (g->new_size != m->f->pre_size)
		return ksplice_fail(m, "%s: update %s's code runs there (%u bytes), the pre code has %u",
				    m->f->name, e->core->update->id,
				    g->new_size, m->f->pre_size);
	return ksplice_match_at(m, (unsigned long)g->new_code, NULL, 0);
}

/*
 * The pre code did not match the code of the update on top of the stack
 * @s (of @n).  If it is code further down (the stock code, or an earlier
 * update's), the update was built from a tree without the later patches:
 * say so, naming them, instead of a mismatch.
 */
static void ksplice_match_below(struct ksplice_match *m,
				const struct ksplice_stack_entry *s,
				unsigned int n)
{
	const struct ksplice_stack_entry *top = &s[n - 1];
	const struct ksplice_fstate *bottom = &s[0].core->fs[s[0].idx];
	char why[KSPLICE_DETAIL_LEN];
	unsigned int k;
	bool hit;

	memcpy(why, m->why, sizeof(why));
	for (k = 0; k < n; k++) {
		hit = k ? ksplice_match_update(m, &s[k - 1]) :
			  ksplice_match_at(m, m->addr, bottom->saved,
					   bottom->patch_off);
		ksplice_bindings_clear(&m->pending);
		if (!hit)
			continue;
		m->refused = true;
		if (k)
			ksplice_fail(m, "%s: its pre code is update %s's code, which update %s replaced; build it from a tree with %s's patch",
				     m->f->name, s[k - 1].core->update->id,
				     s[k].core->update->id,
				     top->core->update->id);
		else
			ksplice_fail(m, "%s: its pre code is the stock code, which update %s replaced; build it from a tree with %s's patch",
				     m->f->name, s[0].core->update->id,
				     top->core->update->id);
		return;
	}
	memcpy(m->why, why, sizeof(why));
}

/*
 * The running code of a function that updates replaced is the newest
 * one's new code (stack.c): an update built on top of it matches there.
 */
static bool ksplice_match_candidate(struct ksplice_match *m)
{
	struct ksplice_stack_entry s[KSPLICE_MAX_STACK];
	unsigned int n = ksplice_stack_get(m->addr, s, ARRAY_SIZE(s));

	m->refused = false;
	m->probed = false;
	if (!n)
		return ksplice_match_at(m, m->addr, NULL, 0);
	if (n > ARRAY_SIZE(s))
		return ksplice_fail(m, "%s: %u updates replace it already",
				    m->f->name, n);
	/* A replace update's pre code is the stock code, below them all. */
	if (m->core->replacing)
		return ksplice_match_at(m, m->addr, s[0].core->fs[s[0].idx].saved,
					s[0].core->fs[s[0].idx].patch_off);
	if (ksplice_match_update(m, &s[n - 1]))
		return true;
	ksplice_bindings_clear(&m->pending);
	ksplice_match_below(m, s, n);
	return false;
}

/*
 * May @addr be the function?  Not if another function of the update has
 * it already, nor if its unit's code refers to the name elsewhere.
 */
static bool ksplice_candidate_ok(struct ksplice_match *m, unsigned long addr)
{
	struct ksplice_core *core = m->core;
	unsigned long bound;
	unsigned int i;

	for (i = 0; i < core->update->nr_funcs; i++)
		if (core->fs[i].old_addr == addr)
			return false;
	return !ksplice_binding_get(&core->bindings, m->f, m->f->name, &bound) ||
	       bound == addr;
}

/*
 * Tries every address of the function's name; exactly one must match.
 * Returns the abort cause and leaves the winner's bindings committed;
 * *@hits > 1 says the function is ambiguous for now.  With @first, the
 * first match wins (twins: see KSPLICE_FUNC_TWIN).
 */
static enum ksplice_abort ksplice_match_func(struct ksplice_match *m,
					     unsigned long *found, int *hits,
					     bool first_wins)
{
	unsigned long cands[KSPLICE_MAX_CANDIDATES];
	char first[KSPLICE_DETAIL_LEN] = "";
	bool refused = false, probed = false;
	int nr, i;

	*hits = 0;
	nr = ksplice_sym_addrs(m->f->target, m->f->name, cands,
			       ARRAY_SIZE(cands));
	/* A function an applied update added: its jump goes on that copy. */
	if (nr >= 0 && nr < ARRAY_SIZE(cands))
		nr += ksplice_added_addrs(m->f->target, m->f->name,
					  m->f->unit, cands + nr,
					  ARRAY_SIZE(cands) - nr);
	if (nr <= 0) {
		ksplice_fail(m, nr ? "%s: target %s is not loaded" :
			     "%s: no such symbol in %s", m->f->name,
			     m->f->target);
		return KSPLICE_ABORT_FAILED_TO_FIND;
	}
	if (nr > ARRAY_SIZE(cands)) {
		ksplice_fail(m, "%s: %d symbols of that name", m->f->name, nr);
		return KSPLICE_ABORT_NO_MATCH;
	}
	for (i = 0; i < nr; i++) {
		m->addr = cands[i];
		if (!ksplice_candidate_ok(m, m->addr))
			continue;
		if (!ksplice_match_candidate(m)) {
			if (!first[0] || (m->refused && !refused) ||
			    (m->probed && !probed && !refused))
				strscpy(first, m->why, sizeof(first));
			refused |= m->refused;
			probed |= m->probed;
			ksplice_bindings_clear(&m->pending);
			continue;
		}
		if ((*hits)++)
			break;
		*found = m->addr;
		m->found_code = m->code;
		/* Kept aside: the other candidates must not see them. */
		ksplice_bindings_move(&m->winner, &m->pending);
		if (first_wins)
			break;
	}
	ksplice_bindings_clear(&m->pending);
	if (*hits == 1) {
		ksplice_bindings_move(&m->core->bindings, &m->winner);
		return KSPLICE_ABORT_NONE;
	}
	ksplice_bindings_clear(&m->winner);
	if (*hits > 1) {
		ksplice_fail(m, "%s: ambiguous: matches at %px and %px",
			     m->f->name, (void *)*found, (void *)m->addr);
	} else if (refused) {
		strscpy(m->why, first, sizeof(m->why));
		return KSPLICE_ABORT_ALREADY_APPLIED;
	} else if (probed) {
		strscpy(m->why, first, sizeof(m->why));
		return KSPLICE_ABORT_PROBED;
	} else if (!first[0]) {
		/* Other functions of the update claim them all: malformed. */
		ksplice_fail(m, "%s: all %d candidates taken by other functions of the update",
			     m->f->name, nr);
		return KSPLICE_ABORT_BAD_UPDATE;
	} else if (nr == 1) {
		strscpy(m->why, first, sizeof(m->why));
	} else {
		snprintf(m->why, sizeof(m->why), "none of %d candidates: %s",
			 nr, first);
	}
	return KSPLICE_ABORT_NO_MATCH;
}

/*
 * The kernel rewrites jump labels and static calls at run time; the jump
 * must not cover one.  (These take their own mutexes, which nest outside
 * text_mutex, so this runs before text_mutex is taken.)
 */
static bool ksplice_window_free(const struct ksplice_fstate *fs)
{
	void *start = (void *)fs->patch_addr;
	void *end = start + KSPLICE_JMP_LEN - 1;

	return !ksplice_k.jump_label_reserved(start, end) &&
	       !ksplice_k.static_call_reserved(start, end);
}

/*
 * The kernel rewrites bytes where the jump goes, and the function has no
 * ftrace site to be redirected at: a jump label there is pinned while the
 * jump is in (jump_pin.c); a static call is refused.
 */
static int ksplice_match_pinned(struct ksplice_match *m)
{
	void *start = (void *)m->fs->patch_addr;

	if (ksplice_k.static_call_reserved(start, start + KSPLICE_JMP_LEN - 1))
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: static call where the jump goes, and no ftrace site",
					 m->f->name);
	return ksplice_jump_pin_find(m->core, m->f, m->fs);
}

/* Two functions of one update must not share their jump's bytes. */
static int ksplice_windows_distinct(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	unsigned int i, j;
	long d;

	for (i = 0; i < u->nr_funcs; i++) {
		for (j = 0; j < i; j++) {
			d = core->fs[i].patch_addr - core->fs[j].patch_addr;
			if (d > -KSPLICE_JMP_LEN && d < KSPLICE_JMP_LEN)
				return ksplice_set_abort(core,
					KSPLICE_ABORT_BAD_UPDATE,
					"%s and %s are the same code",
					u->funcs[i].name, u->funcs[j].name);
		}
		cond_resched();
	}
	return 0;
}

/* How patient matching is with a function several places match. */
enum ksplice_round {
	KSPLICE_ROUND_WAIT,		/* leave it for later */
	KSPLICE_ROUND_TWINS,		/* a twin takes its first match */
	KSPLICE_ROUND_LAST,		/* it is ambiguous */
};

/*
 * The update below redirects the function through ftrace: this one
 * retargets that redirection, the bottom update's (redirect.c); a
 * replace update then takes it over (replace.c).
 */
static int ksplice_match_over(struct ksplice_match *m,
			      const struct ksplice_stack_entry *bottom)
{
	const struct ksplice_fstate *b = &bottom->core->fs[bottom->idx];

	if (!b->rd)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: update %s's redirection is gone",
					 m->f->name, bottom->core->update->id);
	m->fs->over = b->rd;
	m->fs->stock_size = b->stock_size;
	return 0;
}

/*
 * The function matched the new code of the update on top of its stack,
 * or, for a replace update, the stock code under it: its jump takes the
 * place of that update's, which it must cover exactly.  A replace
 * update's undo puts back the stock bytes.
 */
static int ksplice_match_onto(struct ksplice_match *m)
{
	struct ksplice_stack_entry s[KSPLICE_MAX_STACK];
	struct ksplice_fstate *fs = m->fs;
	const struct ksplice_fstate *below;
	struct ksplice_stack_entry top;
	const char *id;

	unsigned int n = ksplice_stack_get(fs->old_addr, s, ARRAY_SIZE(s));

	if (!n || n > ARRAY_SIZE(s))
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: the update below is gone",
					 m->f->name);
	top = s[n - 1];
	below = &top.core->fs[top.idx];
	id = top.core->update->id;
	if (below->via_ftrace)
		return ksplice_match_over(m, &s[0]);
	if (below->patch_addr != fs->patch_addr)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: its jump would go at +0x%x, update %s's is at +0x%lx",
					 m->f->name, fs->patch_off, id,
					 below->patch_addr - below->old_addr);
	if (m->core->replacing && s[0].core->fs[s[0].idx].nr_jump_pins)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: update %s pinned a jump label under its jump, which a replace update cannot take over yet",
					 m->f->name, s[0].core->update->id);
	fs->stock_size = below->stock_size;
	if (m->core->replacing)
		memcpy(fs->saved, s[0].core->fs[s[0].idx].saved,
		       KSPLICE_JMP_LEN);
	return 0;
}

static const struct ksplice_unpatchable ksplice_unpatchable_table[] =
	KSPLICE_UNPATCHABLE_TABLE;

/* Code that runs while the core patches (include/ksplice-unpatchable.h). */
static const char *ksplice_must_not_patch(const struct ksplice_func *f)
{
	if (!strcmp(f->target, KSPLICE_CORE_MODULE))
		return "it is the ksplice core, which does the patching";
	if (strcmp(f->target, "vmlinux") || !f->unit)
		return NULL;
	return ksplice_unpatchable(ksplice_unpatchable_table,
				   ARRAY_SIZE(ksplice_unpatchable_table),
				   f->unit, f->name);
}

/*
 * A function an applied update added to a module: a module's unload would
 * leave the jump in the copy (added.c), and its reload could not match it
 * again.
 */
static int ksplice_match_not_added(struct ksplice_match *m, unsigned long addr)
{
	struct ksplice_core *by;

	if (ksplice_is_vmlinux(m->f->target))
		return 0;
	by = ksplice_added_by(m->f->target, m->f->name, NULL, addr);
	if (!by)
		return 0;
	return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
				 "%s: update %s added it to module %s; replacing it there is not supported",
				 m->f->name, by->update->id, m->f->target);
}

/*
 * Returns 0 when matched, 1 when ambiguous for now (other functions of
 * its unit may yet say which), or an error with the abort cause set.
 */
static int ksplice_match_one(struct ksplice_match *m, enum ksplice_round r)
{
	struct ksplice_fstate *fs = m->fs;
	enum ksplice_abort cause;
	unsigned long addr = 0;
	const char *why;
	bool stacked;
	int hits, ret;

	why = ksplice_must_not_patch(m->f);
	if (why)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s (%s): it cannot be patched live: %s",
					 m->f->name, m->f->unit, why);
	cause = ksplice_match_func(m, &addr, &hits, r == KSPLICE_ROUND_TWINS &&
				   (m->f->flags & KSPLICE_FUNC_TWIN));
	if (cause != KSPLICE_ABORT_NONE && hits > 1 && r != KSPLICE_ROUND_LAST)
		return 1;
	if (cause != KSPLICE_ABORT_NONE)
		return ksplice_set_abort(m->core, cause, "%s", m->why);
	ret = ksplice_match_not_added(m, addr);
	if (ret)
		return ret;
	fs->old_addr = addr;
	fs->over = NULL;
	fs->patch_addr = addr + fs->patch_off;
	fs->run_addr = m->found_code;
	fs->stock_size = m->f->pre_size;
	if (copy_from_kernel_nofault(fs->before, (void *)fs->patch_addr,
				     KSPLICE_JMP_LEN))
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNEXPECTED,
					 "%s: unreadable", m->f->name);
	memcpy(fs->saved, fs->before, KSPLICE_JMP_LEN);
	stacked = fs->run_addr != addr ||
		  (m->core->replacing && ksplice_stack_get(addr, NULL, 0));
	if (stacked) {
		ret = ksplice_match_onto(m);
		if (ret)
			return ret;
	}
	/* No room for the jump: ftrace redirects the function instead. */
	fs->nr_jump_pins = 0;
	fs->via_ftrace = fs->over ||
			 m->f->pre_size < fs->patch_off + KSPLICE_JMP_LEN ||
			 (ksplice_prefer_ftrace && fs->ftrace_site && !stacked);
	if (!fs->via_ftrace && !ksplice_window_free(fs)) {
		/* Or, with no ftrace site, the jump goes over a pinned site. */
		if (!fs->ftrace_site && !stacked)
			return ksplice_match_pinned(m);
		fs->via_ftrace = true;
	}
	if (fs->via_ftrace && stacked && !fs->over)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: no room for a jump on top of the update below",
					 m->f->name);
	if (fs->via_ftrace && !fs->ftrace_site)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_UNPATCHABLE,
					 "%s: no room for the jump, and no ftrace site",
					 m->f->name);
	return 0;
}

/* One round over the functions not matched yet; how many it matched. */
static int ksplice_match_round(struct ksplice_match *m, bool *done,
			       enum ksplice_round r)
{
	struct ksplice_core *core = m->core;
	unsigned int i;
	int ret, matched = 0;

	for (i = 0; i < core->update->nr_funcs; i++) {
		if (done[i])
			continue;
		m->f = &core->update->funcs[i];
		m->fs = &core->fs[i];
		ret = ksplice_match_one(m, r);
		if (ret < 0)
			return ret;
		done[i] = !ret;
		matched += !ret;
	}
	return matched;
}

/*
 * Every function, in rounds: one that several places match waits until
 * the others have bound their names (a caller in its unit says which
 * copy of a static is meant) or taken their addresses.  When a round
 * settles nothing, twins may pair up; when that settles nothing either,
 * what is left is ambiguous.
 */
static int ksplice_match_rounds(struct ksplice_match *m)
{
	unsigned int n = m->core->update->nr_funcs, left = n;
	bool *done = kvcalloc(n, sizeof(bool), GFP_KERNEL);
	enum ksplice_round r = KSPLICE_ROUND_WAIT;
	int ret = 0;

	if (!done)
		return ksplice_set_abort(m->core, KSPLICE_ABORT_OUT_OF_MEMORY,
					 "matching");
	while (left) {
		ret = ksplice_match_round(m, done, r);
		if (ret < 0)
			break;
		left -= ret;
		r = ret ? KSPLICE_ROUND_WAIT : r + 1;
		ret = 0;
	}
	kvfree(done);
	return ret;
}

static unsigned int ksplice_max_pre(const struct ksplice_update *u)
{
	unsigned int i, max = 0;

	for (i = 0; i < u->nr_funcs; i++)
		max = max(max, u->funcs[i].pre_size);
	return max;
}

/*
 * Matches every function of the update, learning the old addresses and
 * the symbol bindings; sets the abort cause on failure.
 */
int ksplice_match_all(struct ksplice_core *core)
{
	const struct ksplice_update *u = core->update;
	struct ksplice_match *m;
	unsigned int i;
	int ret = 0;

	ksplice_bindings_clear(&core->bindings);
	for (i = 0; i < u->nr_funcs; i++)
		core->fs[i].old_addr = 0;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (m) {
		m->run = kvmalloc(ksplice_max_pre(u), GFP_KERNEL);
		m->skip = kvmalloc(ksplice_max_pre(u), GFP_KERNEL);
	}
	if (!m || !m->run || !m->skip) {
		ret = ksplice_set_abort(core, KSPLICE_ABORT_OUT_OF_MEMORY,
					"matching");
		goto out;
	}
	m->core = core;
	ksplice_bindings_init(&m->pending);
	ksplice_bindings_init(&m->winner);
	ret = ksplice_match_rounds(m);
	if (!ret)
		ret = ksplice_windows_distinct(core);
out:
	if (m) {
		kvfree(m->run);
		kvfree(m->skip);
	}
	kfree(m);
	return ret;
}
