/* copy / gmem_smem: global <-> shared. The [outer, threads, vec] partition
 * with the global side driving the order (TIRx align_layouts_gs); widest
 * vector from 128 bits down; loops of 2..16 trips unrolled (partition.c). */
#include "partition.h"
#include "gmem_smem.h"


static bool is_pair(const CopyOp *op)
{
	Mem d = op->dbuf->mem, s = op->sbuf->mem;
	return (d == MEM_GLOBAL && s == MEM_SHARED) || (d == MEM_SHARED && s == MEM_GLOBAL);
}

static const char *accepts(const CopyOp *op)
{
	if (!is_pair(op))
		return arena_printf(op->cx->arena, "needs global <-> shared, got %s -> %s", mem_name(op->sbuf->mem),
		                    mem_name(op->dbuf->mem));
	if (op->elems % op->scope_threads)
		return arena_printf(op->cx->arena, "%lld elements do not divide among the scope's %lld threads",
		                    (long long)op->elems, (long long)op->scope_threads);
	return NULL;
}

/* the widened row's remainder: its pieces' widths, and whether a read
 * rounds it up over the row's padding */
static const char *tail_params(const CopyOp *op, const Part *part, int vb)
{
	if (!part->ntail)
		return "";
	char bits[64] = "";
	for (int i = 0, n = 0; i < part->ntail; i++)
		n += snprintf(bits + n, sizeof bits - (size_t)n, "%s%d", i ? ", " : "", vb * part->tail_n[i]);
	return arena_printf(op->cx->arena, ", \"tail_bits\": [%s]%s", bits,
	                    part->tail_use ? ", \"tail_reads_padding\": true" : "");
}

static const char *plan(const CopyOp *op, Plan *p)
{
	GsPlan *g = &p->u.gmem_smem;
	const int cands[] = {128, 64, 32, 16, 8, dtype_bytes(op->dt) * 8}; /* widest first, then scalar */
	g->global_is_dst = op->dbuf->mem == MEM_GLOBAL;
	const View *gv = g->global_is_dst ? &op->dst : &op->src, *sv = g->global_is_dst ? &op->src : &op->dst;
	const char *why = gs_partition(op, gv, sv, cands, 6, &g->part);
	if (why)
		return why;
	const Buffer *gb = g->global_is_dst ? op->dbuf : op->sbuf;
	if (!gb->dynamic)
		gs_widen_shared(op, sv, &g->part);
	int vb = g->part.vec * dtype_bytes(op->dt) * 8;
	if (g->part.wide > 1)
		snprintf(p->params, sizeof p->params, "{\"vec_bits\": %d, \"shared_vec_bits\": %d, \"outer\": %lld%s}", vb,
		         vb * g->part.wide, (long long)g->part.outer, tail_params(op, &g->part, vb));
	else
		snprintf(p->params, sizeof p->params, "{\"vec_bits\": %d, \"outer\": %lld}", vb, (long long)g->part.outer);
	return NULL;
}

static void access(const CopyOp *op, Emit *e, const void *ctx, const AccessOps *ac)
{
	const GsPlan *g = ctx;
	const Buffer *gb = g->global_is_dst ? op->dbuf : op->sbuf, *sb = g->global_is_dst ? op->sbuf : op->dbuf;
	int bytes = g->part.vec * dtype_bytes(op->dt);
	if (ac->nw > 1) { /* one wide shared access, its pieces through registers */
		Builder *b = emit_builder(e);
		Reg w[4];
		int wide = bytes * ac->nw;
		for (int i = 0; i < wide / 4; i++)
			w[i] = b_reg(b, RC_R);
		if (g->global_is_dst) {
			emit_mem_to_local(e, sb, ac->b, w, 0, wide);
			for (int i = 0; i < (ac->nuse ? ac->nuse : ac->nw); i++) /* past nuse: padding read along */
				emit_local_to_mem(e, gb, ac->aw[i], w, (int64_t)i * bytes, bytes);
		} else {
			for (int i = 0; i < ac->nw; i++) /* a word's first piece loads it whole, the others go in */
				if (bytes < 4 && i * bytes % 4 == 0)
					emit_mem_load_word(e, gb, ac->aw[i], w[i * bytes / 4], bytes);
				else
					emit_mem_to_local(e, gb, ac->aw[i], w, (int64_t)i * bytes, bytes);
			emit_local_to_mem(e, sb, ac->b, w, 0, wide);
		}
		return;
	}
	if (g->global_is_dst)
		emit_mem_copy_guarded(e, gb, ac->a, sb, ac->b, bytes, NULL, ac->guard);
	else
		emit_mem_copy_guarded(e, sb, ac->b, gb, ac->a, bytes, ac->guard, NULL);
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const GsPlan *g = &p->u.gmem_smem;
	const View *gv = g->global_is_dst ? &op->dst : &op->src, *sv = g->global_is_dst ? &op->src : &op->dst;
	emit_partition_loops(op, e, &g->part, gv, sv, emit_scope_tid(e, op->st->scope), access, g);
}

static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	const GsPlan *g = &p->u.gmem_smem;
	const View *sv = g->global_is_dst ? &op->src : &op->dst;
	trace_part(op, &g->part, sv, false, g->global_is_dst ? op->sbuf : op->dbuf, !g->global_is_dst, op->st->scope, vals,
	           fn, ctx);
}

const Variant variant_gmem_smem = {"gmem_smem", ST_COPY, 10, accepts, plan, emit, .trace = trace, .ragged = true};
