/* Dispatch: a registry of variants tried by descending priority, then by
 * name; each may reject (predicate) or decline (plan) with a reason. */
#include "../tilepx.h"

#include <string.h>

static const Variant *const registry[] = {
#define VARIANT(name) &variant_##name,
#include "../variants/variants.def"
};

size_t variant_plan_bytes(const Variant *v)
{
#define VARIANT(name)                                                                                                  \
	if (v == &variant_##name)                                                                                      \
		return sizeof(struct name##_plan);
#include "../variants/variants.def"
	return 0;
}

static bool before(const Variant *a, const Variant *b)
{
	return a->priority != b->priority ? a->priority > b->priority : strcmp(a->name, b->name) < 0;
}

int dispatch_variants(StmtKind op, const Variant **out, int max)
{
	int n = 0;
	for (size_t i = 0; i < sizeof registry / sizeof registry[0] && n < max; i++) {
		if (registry[i]->op != op)
			continue;
		int j = n++;
		while (j > 0 && before(registry[i], out[j - 1])) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = registry[i];
	}
	return n;
}

bool copy_op_init(Ctx *cx, const Module *m, const Kernel *k, const Stmt *st, CopyOp *op)
{
	memset(op, 0, sizeof *op);
	op->cx = cx;
	op->mod = m;
	op->k = k;
	op->st = st;
	op->dbuf = st->dst->buf;
	op->sbuf = st->src->buf;
	op->dt = op->dbuf->dt;
	op->rdt = op->dt;
	if (op->dbuf->dt != op->sbuf->dt) { /* a converting copy: dt is the memory side's, rdt the registers' */
		bool load = op->dbuf->mem == MEM_LOCAL;
		op->dt = load ? op->sbuf->dt : op->dbuf->dt;
		op->rdt = load ? op->dbuf->dt : op->sbuf->dt;
	}
	const char *why;
	if (!region_view(cx, k, st->dst, &op->dst, &why) || !region_view(cx, k, st->src, &op->src, &why)) {
		diag_error(cx, st->loc, "%s", why);
		return false;
	}
	op->elems = 1;
	for (int d = 0; d < st->src->ndim; d++)
		op->elems *= st->src->ext[d];
	op->scope_threads = scope_threads(st->scope, k->threads);
	return true;
}

bool dispatch_copy(const CopyOp *op, Decision *d, bool report)
{
	/* not a memset of the whole Decision (8.6 KiB, twice per copy with the
	 * plan's below): the candidates are written as they are tried */
	d->ncand = 0;
	d->chosen = NULL;
	d->plan.params[0] = d->plan.summary[0] = 0;
	const Variant *vs[16];
	int n = dispatch_variants(op->st->kind, vs, 16);
	const char *forced = op->st->dispatch;
	for (int i = 0; i < n; i++) {
		if (forced && strcmp(forced, vs[i]->name))
			continue;
		Candidate *c = &d->cand[d->ncand++];
		*c = (Candidate){.v = vs[i]};
		if (d->chosen) {
			c->state = -1;
			c->reason = "not tried";
			continue;
		}
		const char *why = NULL;
		if (!vs[i]->ragged && (op->dbuf->dynamic || op->sbuf->dynamic))
			why = arena_printf(op->cx->arena, "'%s' has runtime extents, and this variant does not guard its "
			                   "accesses", op->dbuf->dynamic ? op->dbuf->name : op->sbuf->name);
		if (!why && op->dbuf->dt != op->sbuf->dt &&
		    (!vs[i]->converts || (vs[i]->converts_into_shared && op->dbuf->mem != MEM_SHARED)))
			why = arena_printf(op->cx->arena, "this variant %s (%s -> %s)",
			                   vs[i]->converts ? "converts only into shared memory" : "does not convert",
			                   dtype_name(op->sbuf->dt), dtype_name(op->dbuf->dt));
		c->depth = 0;
		if (!why) {
			c->depth = 1;
			why = vs[i]->accepts(op);
		}
		if (!why) {
			c->depth = 2;
			memset(&d->plan, 0, sizeof d->plan); /* a plan starts zeroed */
			why = vs[i]->plan(op, &d->plan);
		}
		if (why) {
			c->state = 0;
			c->reason = why;
		} else {
			c->state = 1;
			d->chosen = vs[i];
		}
	}
	if (d->chosen)
		return true;
	if (report)
		dispatch_report(op, d);
	return false;
}

/* why nothing lowers the copy: one error, then its candidates' reasons */
void dispatch_report(const CopyOp *op, const Decision *d)
{
	const char *forced = op->st->dispatch;
	const Variant *vs[16];
	int n = dispatch_variants(op->st->kind, vs, 16);
	const char *opname = stmt_info[op->st->kind].keyword;
	if (forced && d->ncand == 1) {
		diag_error(op->cx, op->st->dispatch_loc, "dispatch=%s rejects this %s: %s", forced, opname, d->cand[0].reason);
		return;
	}
	/* one error, then one note per candidate with its reason (gcc style) */
	diag_error(op->cx, op->st->loc, "no variant lowers this %s %s <- %s%s", opname, op->dbuf->name, op->sbuf->name,
	           n ? "" : ": no variants are registered for it");
	/* the variants that got furthest first: their reasons are about this copy's layouts, the blanket
	 * ones (no conversion, no guards) about whole classes of copies */
	for (int depth = 2; depth >= 0; depth--)
		for (int i = 0; i < d->ncand; i++)
			if (d->cand[i].depth == depth)
				diag_note(op->cx, "%s (prio=%d): %s", d->cand[i].v->name, d->cand[i].v->priority,
				          d->cand[i].reason);
}
