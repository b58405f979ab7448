/* copy / fallback: priority 0. One thread of each scope instance copies
 * in a serial loop, element by element or in vectors both layouts keep
 * aligned; any pair of layouts works because each side's offset is
 * computed from the flat logical index. */
#include "partition.h"

#include <string.h>

static bool is_mem(Mem m) { return m == MEM_GLOBAL || m == MEM_SHARED; }

static const char *accepts(const CopyOp *op)
{
	if (!is_mem(op->dbuf->mem) || !is_mem(op->sbuf->mem))
		return arena_printf(op->cx->arena,
		                    "copies memory to memory only (%s -> %s): registers and tensor memory belong to "
		                    "their threads",
		                    mem_name(op->sbuf->mem), mem_name(op->dbuf->mem));
	return NULL;
}

/* elements in a run of v's innermost iters that is contiguous in memory
 * (strides 1, ext, ext * ext', ...) */
static int64_t contiguous_run(const View *v, int *first)
{
	int64_t run = 1;
	int k = v->L.n - 1;
	for (; k >= 0; k--) {
		const Iter *it = &v->L.it[k];
		if (it->ext == 1)
			continue;
		if (it->stride != run)
			break;
		run *= it->ext;
	}
	*first = k + 1; /* iters [0, first) are outside the run */
	return run;
}

/* one side keeps vectors of n elements aligned: every group of n
 * consecutive flat indices (from a multiple of n) is n adjacent elements
 * whose first offset is a multiple of n (bases are 16-byte aligned, as for
 * every vector variant); a swizzle moves whole 2^p-element chunks */
static bool side_vectorizes(const Ctx *cx, const View *v, const Buffer *b, int64_t n)
{
	int outside;
	if (b->dynamic || contiguous_run(v, &outside) % n)
		return false;
	Swizzle sw = buffer_swizzle(cx, b);
	if (b->mem == MEM_SHARED && sw.on && n > ((int64_t)1 << sw.p))
		return false;
	const Affine *a = &v->off[AX_M];
	if (a->c % n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->t[i].k % n)
			return false;
	for (int k = 0; k < outside; k++)
		if (v->L.it[k].ext > 1 && v->L.it[k].stride % n)
			return false;
	return true;
}

/* the widest access (16, 8, 4 bytes, else the element) both sides allow:
 * the thread moves whole vectors, so what runs (and what explain's bank
 * model counts) is the wide LDS/STS that ptxas would otherwise merge */
static int vector_elems(const CopyOp *op)
{
	int es = dtype_bytes(op->dt);
	for (int bytes = 16; bytes >= 4 && bytes > es; bytes /= 2) {
		int n = bytes / es;
		if (op->elems % n == 0 && side_vectorizes(op->cx, &op->src, op->sbuf, n) &&
		    side_vectorizes(op->cx, &op->dst, op->dbuf, n))
			return n;
	}
	return 1;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	int vec = vector_elems(op);
	memcpy(p->data, &vec, sizeof vec);
	snprintf(p->params, sizeof p->params, "{\"elements\": %lld, \"vec_bits\": %d}", (long long)op->elems,
	         vec * dtype_bytes(op->dt) * 8);
	return NULL;
}

/* element offset of flat index i on one side: digits of i over the view's iters */
static Reg side_offset(Emit *e, const View *v, Reg i)
{
	Builder *b = emit_builder(e);
	Reg acc = emit_affine(e, &v->off[AX_M]);
	int64_t div = 1;
	for (int k = v->L.n - 1; k >= 0; k--) {
		const Iter *it = &v->L.it[k];
		if (it->ext > 1 && it->stride) {
			Reg d = emit_digit(e, i, div, it->ext);
			Reg r = b_reg(b, RC_R);
			b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, d), b_imm(b, it->stride), b_name(b, acc), NULL);
			acc = r;
		}
		div *= it->ext;
	}
	return acc;
}

/* a param with runtime extents (row-major; rank 3..5: one slab of the last
 * two dimensions, region.c): the address of element i of the region
 * (row-major over its extents) and, when a dimension is guarded, the
 * predicate "inside the tensor" */
static Reg dyn_address(Emit *e, const CopyOp *op, const Region *r, Reg i, const char **guard)
{
	Builder *b = emit_builder(e);
	const Buffer *buf = r->buf;
	const Kernel *k = op->k;
	int last = buf->ndim - 1, first_dim = last ? last - 1 : 0;
	Reg coord[MAX_DIMS];
	coord[last] = emit_digit(e, i, 1, r->ext[last]);
	if (last)
		coord[last - 1] = emit_digit(e, i, r->ext[last], r->ext[last - 1]);
	for (int d = first_dim; d <= last; d++) {
		Reg s0 = emit_affine(e, &r->begin[d]), c = b_reg(b, RC_R);
		b_ins(b, FORM_ADD_U32, b_name(b, c), b_name(b, s0), b_name(b, coord[d]), NULL);
		coord[d] = c;
	}
	Reg at = emit_dyn_address(e, k, r, coord[dyn_outer(buf)], coord[dyn_inner(buf)]);
	*guard = NULL;
	Reg p = b_reg(b, RC_P);
	bool first = true;
	for (int d = first_dim; d <= last; d++) {
		if (!region_guarded(k, r, d))
			continue;
		Reg left = emit_dyn_left(e, k, buf, d, coord[d]);
		if (first)
			b_ins(b, FORM_SETP_GT_S32, b_name(b, p), b_name(b, left), "0", NULL);
		else
			b_ins(b, FORM_SETP_GT_AND_S32, b_name(b, p), b_name(b, left), "0", b_name(b, p), NULL);
		first = false;
		*guard = b_name(b, p);
	}
	return at;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	int vec;
	memcpy(&vec, p->data, sizeof vec);
	Builder *b = emit_builder(e);
	diag_warning(op->cx, op->st->loc, "copy/fallback (scalar single-thread) picked for %s <- %s: %lld elements",
	             op->dbuf->name, op->sbuf->name, (long long)op->elems);
	Reg t = emit_scope_tid(e, op->st->scope), pr = b_reg(b, RC_P);
	int skip = b_label(b);
	b_ins(b, FORM_SETP_NE_U32, b_name(b, pr), b_name(b, t), "0", NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, pr), b_label_name(b, skip), NULL);
	Loop l = emit_loop_begin(e, op->elems / vec);
	Reg i = l.counter; /* the flat index of the vector's first element */
	if (vec > 1) {
		i = b_reg(b, RC_R);
		b_ins(b, FORM_MUL_LO_U32, b_name(b, i), b_name(b, l.counter), b_imm(b, vec), NULL);
	}
	const char *sg = NULL, *dg = NULL;
	Reg sa, da;
	if (op->sbuf->dynamic)
		sa = dyn_address(e, op, op->st->src, i, &sg);
	else
		sa = emit_address(e, op->sbuf, side_offset(e, &op->src, i));
	if (op->dbuf->dynamic)
		da = dyn_address(e, op, op->st->dst, i, &dg);
	else
		da = emit_address(e, op->dbuf, side_offset(e, &op->dst, i));
	emit_mem_copy_guarded(e, op->dbuf, b_name(b, da), op->sbuf, b_name(b, sa), vec * dtype_bytes(op->dt), sg, dg);
	emit_loop_end(e, &l);
	b_place_label(b, skip);
}

/* thread 0 of each scope instance, element by element: the source's load,
 * then the destination's store */
static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	int vec;
	memcpy(&vec, p->data, sizeof vec);
	int es = dtype_bytes(op->dt);
	for (int64_t first = 0; first < op->k->threads; first += op->scope_threads) {
		trace_instance_vars(vals, first);
		for (int side = 0; side < 2; side++) {
			const View *v = side ? &op->dst : &op->src;
			const Buffer *b = side ? op->dbuf : op->sbuf;
			if (b->mem != MEM_SHARED)
				continue;
			int64_t base = affine_eval(&v->off[AX_M], vals);
			for (int64_t i = 0; i < op->elems / vec; i++) {
				int64_t off = base, rest = i * vec;
				for (int k = v->L.n - 1; k >= 0; k--) {
					off += rest % v->L.it[k].ext * v->L.it[k].stride;
					rest /= v->L.it[k].ext;
				}
				Access a = {b, first, 2 * i + side, off, es * vec, side == 1};
				fn(ctx, &a);
			}
		}
	}
}

const Variant variant_fallback = {"fallback", ST_COPY, 0, accepts, plan, emit, .trace = trace, .ragged = true};
