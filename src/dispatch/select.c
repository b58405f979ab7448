/* The "select" pass: each copy's dispatch decision, computed once per
 * compilation and kept beside its statement (a table in the Ctx keyed by the
 * statement, never a field of it). The race check, explain and the emitter
 * read it; only 'swizzle auto' dispatches on its own, because it searches
 * decisions under swizzles the buffer does not have. */
#include "../tilepx.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* a decision as kept, small: every copy of a program has one, so its size
 * is the emitter's memory per statement. The candidates and strings as long
 * as they are; of the chosen variant's member of the plan union (a few KiB
 * of fixed arrays of which a copy uses a few hundred bytes, scattered) only
 * the nonzero 16-byte blocks, as runs (a plan starts zeroed). */
typedef struct Run {
	uint16_t at, n; /* first block, blocks */
} Run;

typedef struct Selection {
	const Stmt *s;
	bool op_ok; /* its regions slice (copy_op_init) */
	const Variant *chosen;
	int ncand, nruns;
	Candidate *cand;
	const char *params, *summary;
	size_t nplan; /* the member's bytes */
	Run *runs;
	unsigned char *blocks; /* the runs' bytes, one after the other */
} Selection;

enum { BLOCK = 16 };

static Selection *find(Ctx *cx, const Stmt *s) { return stmtmap_get(cx->sel, s); }

static bool block_zero(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* the member's nonzero blocks as runs, found in one pass over its n bytes */
static void keep_plan(Ctx *cx, Selection *x, const unsigned char *data, size_t n)
{
	size_t nb = (n + BLOCK - 1) / BLOCK;
	Run *runs = arena_alloc(cx->arena, sizeof *runs * (nb / 2 + 1));
	int nruns = 0;
	size_t nblocks = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t len = i + 1 < nb ? BLOCK : n - i * BLOCK;
		if (block_zero(data + i * BLOCK, len))
			continue;
		if (!nruns || (size_t)runs[nruns - 1].at + runs[nruns - 1].n != i)
			runs[nruns++] = (Run){(uint16_t)i, 0};
		runs[nruns - 1].n++;
		nblocks++;
	}
	x->nplan = n, x->nruns = nruns, x->runs = runs;
	unsigned char *to = x->blocks = nblocks ? arena_alloc(cx->arena, nblocks * BLOCK) : NULL;
	for (int r = 0; r < nruns; r++) {
		size_t at = (size_t)runs[r].at * BLOCK, len = (size_t)runs[r].n * BLOCK;
		if (at + len > n)
			len = n - at;
		memcpy(to, data + at, len);
		to += (size_t)runs[r].n * BLOCK;
	}
}

static void keep(Ctx *cx, Selection *x, const Decision *d)
{
	x->chosen = d->chosen;
	x->ncand = d->ncand;
	x->cand = arena_alloc(cx->arena, sizeof *x->cand * (size_t)(d->ncand ? d->ncand : 1));
	memcpy(x->cand, d->cand, sizeof *x->cand * (size_t)d->ncand);
	x->params = d->plan.params[0] ? arena_strndup(cx->arena, d->plan.params, strlen(d->plan.params)) : "";
	x->summary = d->plan.summary[0] ? arena_strndup(cx->arena, d->plan.summary, strlen(d->plan.summary)) : "";
	if (d->chosen) /* else the plan holds a declined candidate's leftovers */
		keep_plan(cx, x, (const unsigned char *)&d->plan.u, variant_plan_bytes(d->chosen));
}

/* the Decision again; only the parts a caller reads are written (a whole
 * Decision is 8.6 KiB, and every pass after select asks for it) */
static void expand(const Selection *x, Decision *d)
{
	d->chosen = x->chosen;
	d->ncand = x->ncand;
	memcpy(d->cand, x->cand, sizeof *d->cand * (size_t)x->ncand);
	snprintf(d->plan.params, sizeof d->plan.params, "%s", x->params);
	snprintf(d->plan.summary, sizeof d->plan.summary, "%s", x->summary);
	if (x->nplan) /* the member's bytes: zero, then its nonzero runs */
		memset(&d->plan.u, 0, x->nplan);
	const unsigned char *from = x->blocks;
	for (int r = 0; r < x->nruns; r++) {
		size_t at = (size_t)x->runs[r].at * BLOCK, len = (size_t)x->runs[r].n * BLOCK;
		memcpy((unsigned char *)&d->plan.u + at, from, at + len > x->nplan ? x->nplan - at : len);
		from += len;
	}
}

bool select_copy(Ctx *cx, const Module *m, const Kernel *k, const Stmt *s, CopyOp *op, Decision *d)
{
	Selection *x = find(cx, s);
	if (x) {
		if (!x->op_ok)
			return false;
		/* the views again (the decision is not recomputed); they sliced before */
		copy_op_init(cx, m, k, s, op);
		expand(x, d);
		return true;
	}
	x = arena_alloc(cx->arena, sizeof *x);
	x->s = s;
	x->op_ok = copy_op_init(cx, m, k, s, op);
	if (x->op_ok) {
		dispatch_copy(op, d, false);
		keep(cx, x, d);
	}
	stmtmap_put(cx->arena, &cx->sel, s, x);
	return x->op_ok;
}

typedef struct At {
	Ctx *cx;
	const Module *m;
	const Kernel *k;
} At;

static void select_one(void *ctx, const Stmt *s)
{
	const At *at = ctx;
	if (!(stmt_info[s->kind].flags & SF_COPY))
		return;
	CopyOp op;
	Decision d;
	select_copy(at->cx, at->m, at->k, s, &op, &d);
}

bool select_kernel(Ctx *cx, const Module *m, const Kernel *k)
{
	int before = cx->diags.errors;
	At at = {cx, m, k};
	stmt_walk(k->body, k->nbody, select_one, &at);
	return cx->diags.errors == before;
}
