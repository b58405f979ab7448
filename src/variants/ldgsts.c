/* copy_async / ldgsts: cp.async global -> shared . The gmem_smem
 * partition with widths 128, 64, 32 bits; cp-size 16 uses .cg, 8 and 4 use
 * .ca. Pieces that do not split over every thread of the scope go to fewer
 * (the others branch around). No commit, wait or barrier: completion is the program's job. */
#include "partition.h"
#include "ldgsts.h"

static const char *accepts(const CopyOp *op)
{
	if (!target_has(op->mod->target, CAP_SM80))
		return arena_printf(op->cx->arena, "cp.async needs sm_80 or newer (target is %s)", op->mod->target->name);
	if (op->st->mbar_name)
		return "the copy completes on an mbarrier, which only TMA and bulk copies signal";
	if (op->dbuf->mem != MEM_SHARED || op->sbuf->mem != MEM_GLOBAL)
		return arena_printf(op->cx->arena, "cp.async copies global -> shared only, got %s -> %s",
		                    mem_name(op->sbuf->mem), mem_name(op->dbuf->mem));
	return NULL;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	Part *part = &p->u.ldgsts.part;
	static const int cands[] = {128, 64, 32};
	const char *why = gs_partition_some(op, &op->src, &op->dst, cands, 3, true, part);
	if (why)
		return arena_printf(op->cx->arena,
		                    "cp.async moves 4, 8 or 16 bytes, contiguous and aligned in both layouts: %s (copy_async "
		                    "has no synchronous lowering; a 'copy' moves pieces of any size)",
		                    why);
	int bytes = part->vec * dtype_bytes(op->dt);
	if (part->thr_size < op->scope_threads) /* the pieces do not split over every thread: the others idle */
		snprintf(p->params, sizeof p->params, "{\"vec_bits\": %d, \"cp_size\": %d, \"outer\": %lld, \"threads\": %lld}",
		         bytes * 8, bytes, (long long)part->outer, (long long)part->thr_size);
	else
		snprintf(p->params, sizeof p->params, "{\"vec_bits\": %d, \"cp_size\": %d, \"outer\": %lld}", bytes * 8,
		         bytes, (long long)part->outer);
	return NULL;
}

static void access(const CopyOp *op, Emit *e, const void *ctx, const AccessOps *ac)
{
	const Part *part = ctx;
	Builder *b = emit_builder(e);
	int bytes = part->vec * dtype_bytes(op->dt);
	/* outside the tensor: the ignore-src form, which writes zeros */
	FormId f = b_form(b, FAM_CP_ASYNC, &(FormKey){.space = SPACE_SHARED, .bytes = bytes, .zfill = ac->guard != NULL});
	b_ins(b, f, ac->b, ac->a, ac->guard, NULL);
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const Part *part = &p->u.ldgsts.part;
	Builder *b = emit_builder(e);
	Reg t = emit_scope_tid(e, op->st->scope);
	int skip = -1;
	if (part->thr_size < op->scope_threads) { /* threads past the split have no piece */
		Reg pr = b_reg(b, RC_P);
		skip = b_label(b);
		b_ins(b, FORM_SETP_LT_U32, b_name(b, pr), b_name(b, t), b_imm(b, part->thr_size), NULL);
		b_ins(b, FORM_BRA_IF_NOT, b_name(b, pr), b_label_name(b, skip), NULL);
	}
	emit_partition_loops(op, e, part, &op->src, &op->dst, t, access, part);
	if (skip >= 0)
		b_place_label(b, skip);
}

static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	trace_part(op, &p->u.ldgsts.part, &op->dst, false, op->dbuf, true, op->st->scope, vals, fn, ctx);
}

const Variant variant_ldgsts = {"ldgsts", ST_COPY_ASYNC, 20, accepts, plan, emit, .trace = trace, .ragged = true};
