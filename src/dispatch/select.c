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
 * is the emitter's memory per statement. The candidates and strings as
 * long as they are, the chosen variant's member of the plan union, no more. */
typedef struct Selection {
	const Stmt *s;
	bool op_ok; /* its regions slice (copy_op_init) */
	const Variant *chosen;
	int ncand;
	Candidate *cand;
	const char *params, *summary;
	size_t nplan;
	void *plan;
} Selection;

static Selection *find(Ctx *cx, const Stmt *s) { return stmtmap_get(cx->sel, s); }

static void keep(Ctx *cx, Selection *x, const Decision *d)
{
	x->chosen = d->chosen;
	x->ncand = d->ncand;
	x->cand = arena_alloc(cx->arena, sizeof *x->cand * (size_t)(d->ncand ? d->ncand : 1));
	memcpy(x->cand, d->cand, sizeof *x->cand * (size_t)d->ncand);
	x->params = d->plan.params[0] ? arena_strndup(cx->arena, d->plan.params, strlen(d->plan.params)) : "";
	x->summary = d->plan.summary[0] ? arena_strndup(cx->arena, d->plan.summary, strlen(d->plan.summary)) : "";
	size_t n = d->chosen ? variant_plan_bytes(d->chosen) : 0; /* else a declined candidate's leftovers */
	x->nplan = n;
	x->plan = n ? arena_alloc(cx->arena, n) : NULL;
	if (n)
		memcpy(x->plan, &d->plan.u, n);
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
	if (x->nplan)
		memcpy(&d->plan.u, x->plan, x->nplan);
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
