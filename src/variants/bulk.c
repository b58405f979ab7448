/* copy_async / bulk: non-tensor bulk copies (cp.async.bulk), sm_90+. A load
 * from a param without a tensor map into shared memory completes on the
 * copy's mbarrier (its bytes counted by the phase analysis of
 * src/proof/roles.c); a store from shared memory to such a param joins the bulk
 * async-group. One elected thread (thread 0) moves the whole region, so
 * both sides must be one contiguous run of a multiple of 16 bytes, starting
 * on 16 bytes for every value of their offset expressions. */
#include "../tilepx.h"
#include "bulk.h"

static const char *accepts(const CopyOp *op)
{
	if (!target_has(op->mod->target, CAP_SM90))
		return arena_printf(op->cx->arena, "bulk copies need sm_90 or newer (target is %s)", op->mod->target->name);
	if ((stmt_is_tma_load(op->st) && !op->sbuf->tma) || stmt_is_bulk_store(op->st))
		return NULL;
	return "needs param -> shared with an mbarrier, or shared -> param, without a tensor map";
}

/* one stride-1 run of elements, at a 16-byte multiple for every variable value */
static const char *contiguous16(const CopyOp *op, const View *v, const Buffer *b)
{
	if (b->mem == MEM_SHARED && buffer_swizzle(op->cx, b).on)
		return arena_printf(op->cx->arena, "'%s' is swizzled: a bulk copy writes bytes in order", b->name);
	Layout L = v->L;
	lay_canonicalize(&L);
	if (L.n > 1 || (L.n == 1 && (L.it[0].axis != AX_M || L.it[0].stride != 1)))
		return arena_printf(op->cx->arena, "the region of '%s' is not one contiguous run", b->name);
	int64_t es = dtype_bytes(op->dt);
	const Affine *o = &v->off[AX_M];
	bool aligned = (o->c * es) % 16 == 0;
	for (int i = 0; i < o->n; i++)
		aligned &= (o->t[i].k * es) % 16 == 0;
	if (!aligned)
		return arena_printf(op->cx->arena, "the region of '%s' may start at a byte offset that is not a multiple of "
		                    "16", b->name);
	return NULL;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	BulkPlan *t = &p->u.bulk;
	t->load = stmt_is_tma_load(op->st);
	t->bytes = op->elems * dtype_bytes(op->dt);
	if (t->bytes % 16)
		return arena_printf(op->cx->arena, "a bulk copy moves a multiple of 16 bytes, not %lld", (long long)t->bytes);
	const char *why = contiguous16(op, &op->dst, op->dbuf);
	if (!why)
		why = contiguous16(op, &op->src, op->sbuf);
	if (why)
		return why;
	snprintf(p->params, sizeof p->params, "{\"direction\": \"%s\", \"bytes\": %lld}", t->load ? "load" : "store",
	         (long long)t->bytes);
	return NULL;
}

static Reg side_address(Emit *e, const View *v, const Buffer *b)
{
	const Affine *o = &v->off[AX_M];
	return emit_address(e, b, affine_is_const(o) ? b_const32(emit_builder(e), o->c) : emit_affine(e, o));
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const BulkPlan *t = &p->u.bulk;
	Builder *b = emit_builder(e);
	int l = emit_elect_begin(e);
	Reg d = side_address(e, &op->dst, op->dbuf), s = side_address(e, &op->src, op->sbuf);
	if (t->load)
		b_ins(b, FORM_BULK_LOAD, b_name(b, d), b_name(b, s), b_imm(b, t->bytes), b_name(b, emit_mbar_addr(e, op->st)),
		      NULL);
	else
		b_ins(b, FORM_BULK_STORE, b_name(b, d), b_name(b, s), b_imm(b, t->bytes), NULL);
	emit_elect_end(e, l);
}

const Variant variant_bulk = {"bulk", ST_COPY_ASYNC, 25, accepts, plan, emit, .trace = NULL, .ragged = false};
