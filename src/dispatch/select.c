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
 * is the emitter's memory per statement. A Plan is 8 KiB of fixed arrays
 * (48 iters per side) of which a copy uses a few hundred bytes, scattered:
 * only its nonzero 16-byte blocks are kept, as runs (a plan starts zeroed). */
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
	Run *runs;
	unsigned char *blocks; /* the runs' bytes, one after the other */
} Selection;

enum { BLOCK = 16, NBLOCKS = PLAN_BYTES / BLOCK };

static Selection *find(Ctx *cx, const Stmt *s) { return stmtmap_get(cx->sel, s); }

static bool block_zero(const unsigned char *b)
{
	uint64_t w[2];
	memcpy(w, b, sizeof w);
	return !(w[0] | w[1]);
}

/* the plan's nonzero blocks as runs, found in one pass over the 8 KiB */
static void keep_plan(Ctx *cx, Selection *x, const unsigned char *data)
{
	Run runs[NBLOCKS / 2 + 1];
	int nruns = 0, nblocks = 0;
	for (int i = 0; i < NBLOCKS; i++) {
		if (block_zero(data + i * BLOCK))
			continue;
		if (!nruns || runs[nruns - 1].at + runs[nruns - 1].n != i)
			runs[nruns++] = (Run){(uint16_t)i, 0};
		runs[nruns - 1].n++;
		nblocks++;
	}
	x->nruns = nruns;
	if (!nruns)
		return;
	x->runs = arena_alloc(cx->arena, sizeof *x->runs * (size_t)nruns);
	memcpy(x->runs, runs, sizeof *x->runs * (size_t)nruns);
	unsigned char *to = x->blocks = (unsigned char *)arena_str(cx->arena, (size_t)nblocks * BLOCK);
	for (int r = 0; r < nruns; r++) {
		size_t n = (size_t)runs[r].n * BLOCK;
		memcpy(to, data + (size_t)runs[r].at * BLOCK, n);
		to += n;
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
		keep_plan(cx, x, d->plan.data);
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
	memset(d->plan.data, 0, sizeof d->plan.data);
	const unsigned char *from = x->blocks;
	for (int r = 0; r < x->nruns; r++) {
		size_t n = (size_t)x->runs[r].n * BLOCK;
		memcpy(d->plan.data + (size_t)x->runs[r].at * BLOCK, from, n);
		from += n;
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
