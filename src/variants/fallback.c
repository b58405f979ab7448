/* copy / fallback: priority 0. One thread of each scope instance copies
 * in a serial loop, each side in the widest vector its layout keeps
 * aligned (the narrower side's pieces through registers), along flat order
 * or down a column of one side; any pair of layouts works because each
 * side's offset is computed from the flat logical index. */
#include "partition.h"
#include "fallback.h"

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

/* a column of v: an iter k outside the innermost run whose stride is 1
 * (a column-major tile walked in row-major order), groups of n of its
 * elements aligned as side_vectorizes asks; its flat stride (the product of
 * the extents inside it), 0 if there is none */
static int64_t column_stride(const Ctx *cx, const View *v, const Buffer *b, int64_t n, int *col)
{
	Swizzle sw = buffer_swizzle(cx, b);
	if (b->dynamic || (b->mem == MEM_SHARED && sw.on && n > ((int64_t)1 << sw.p)))
		return 0;
	const Affine *a = &v->off[AX_M];
	bool aligned = a->c % n == 0;
	for (int i = 0; i < a->n; i++)
		aligned &= a->t[i].k % n == 0;
	int k = v->L.n - 1;
	int64_t flat = 1;
	for (; k >= 0 && !(v->L.it[k].stride == 1 && v->L.it[k].ext > 1); k--)
		flat *= v->L.it[k].ext;
	if (!aligned || k < 0 || flat == 1 || v->L.it[k].ext % n)
		return 0;
	for (int j = 0; j < v->L.n; j++)
		if (j != k && v->L.it[j].ext > 1 && v->L.it[j].stride % n)
			return 0;
	*col = k;
	return flat;
}

/* the widest access (16, 8, 4 bytes, else the element) one side allows
 * along flat order, or else along a column (*flat: the column's flat
 * stride, 1 along flat order): the thread moves whole vectors, so what
 * runs (and what explain's bank model counts) is the wide LDS/STS that
 * ptxas would otherwise merge */
static int side_vector(const CopyOp *op, const View *v, const Buffer *b, int64_t *flat, int64_t *ext)
{
	int es = dtype_bytes(op->dt);
	*flat = 1;
	for (int bytes = 16; bytes >= 4 && bytes > es; bytes /= 2)
		if (op->elems % (bytes / es) == 0 && side_vectorizes(op->cx, v, b, bytes / es))
			return bytes / es;
	for (int bytes = 16; bytes > es; bytes /= 2) {
		int col;
		int64_t d = column_stride(op->cx, v, b, bytes / es, &col);
		if (d) {
			*flat = d;
			*ext = v->L.it[col].ext;
			return bytes / es;
		}
	}
	return 1;
}

/* v's element offset of flat index i (the region's start left out) */
static int64_t flat_offset(const View *v, int64_t i)
{
	int64_t off = 0;
	for (int k = v->L.n - 1; k >= 0; k--) {
		off += i % v->L.it[k].ext * v->L.it[k].stride;
		i /= v->L.it[k].ext;
	}
	return off;
}

/* each side's own width; a step moves the wider side's vector and the
 * narrower side's pieces through registers (a row-major tile against a
 * column-major one: the wide side is whichever ptxas would merge). Along a
 * column the other side goes element by element. A param with runtime
 * extents stays element by element (its pieces are guarded one by one).
 * Shared pieces that lie side by side stay one width with their partner:
 * ptxas merges them where the addresses happen to align (rows padded to 10
 * f32), which no count made here could follow. */
static void choose_widths(const CopyOp *op, FallbackPlan *fp)
{
	int64_t sflat, dflat, sext = 1, dext = 1;
	fp->svec = side_vector(op, &op->src, op->sbuf, &sflat, &sext);
	fp->dvec = side_vector(op, &op->dst, op->dbuf, &dflat, &dext);
	int sflatvec = sflat > 1 ? 1 : fp->svec, dflatvec = dflat > 1 ? 1 : fp->dvec;
	/* a column when the other side has no vector along flat order or is a
	 * param (its widths do not count shared wavefronts); two columns: the
	 * shared one (the source if both are) */
	bool ssh = op->sbuf->mem == MEM_SHARED, dsh = op->dbuf->mem == MEM_SHARED;
	bool scol = sflat > 1 && (dflatvec == 1 || (ssh && !dsh)), dcol = dflat > 1 && (sflatvec == 1 || (dsh && !ssh));
	if (scol && dcol)
		scol = ssh || !dsh, dcol = !scol;
	fp->flat = scol ? sflat : dcol ? dflat : 1;
	fp->col_ext = scol ? sext : dcol ? dext : 1;
	fp->svec = scol ? fp->svec : dcol ? 1 : sflatvec;
	fp->dvec = dcol ? fp->dvec : scol ? 1 : dflatvec;
	fp->vec = fp->svec > fp->dvec ? fp->svec : fp->dvec;
	bool narrow_src = fp->svec < fp->dvec;
	const View *nv = narrow_src ? &op->src : &op->dst;
	int64_t nvec = narrow_src ? fp->svec : fp->dvec;
	if (fp->svec != fp->dvec && (narrow_src ? op->sbuf : op->dbuf)->mem == MEM_SHARED &&
	    flat_offset(nv, fp->flat * nvec) - flat_offset(nv, 0) == nvec) {
		fp->svec = fp->dvec = fp->vec = (int)(sflatvec < dflatvec ? sflatvec : dflatvec);
		fp->flat = fp->col_ext = 1;
	}
}

static const char *plan(const CopyOp *op, Plan *p)
{
	FallbackPlan *fp = &p->u.fallback;
	choose_widths(op, fp);
	int eb = dtype_bytes(op->dt) * 8;
	if (fp->svec == fp->dvec)
		snprintf(p->params, sizeof p->params, "{\"elements\": %lld, \"vec_bits\": %d}", (long long)op->elems,
		         fp->vec * eb);
	else
		snprintf(p->params, sizeof p->params,
		         "{\"elements\": %lld, \"vec_bits\": %d, \"src_vec_bits\": %d, \"dst_vec_bits\": %d%s}",
		         (long long)op->elems, fp->vec * eb, fp->svec * eb, fp->dvec * eb,
		         fp->flat > 1 ? ", \"along\": \"column\"" : "");
	return NULL;
}

/* the flat index of step c's first element: c * vec along flat order; along
 * a column (flat stride D, extent E), c's digits (D, E / vec, the rest) with
 * the middle one scaled by vec */
static int64_t step_first(const FallbackPlan *fp, int64_t c)
{
	int64_t d = fp->flat, per = fp->col_ext / fp->vec;
	if (d == 1)
		return c * fp->vec;
	return c / (d * per) * (d * fp->col_ext) + c / d % per * (fp->vec * d) + c % d;
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

/* the address of flat index i on one side (0: source) and, for a param
 * with runtime extents, its guard */
static Reg side_address(Emit *e, const CopyOp *op, int side, Reg i, const char **guard)
{
	const Buffer *buf = side ? op->dbuf : op->sbuf;
	*guard = NULL;
	if (buf->dynamic)
		return dyn_address(e, op, side ? op->st->dst : op->st->src, i, guard);
	return emit_address(e, buf, side_offset(e, side ? &op->dst : &op->src, i));
}

/* one step from flat index i: one access per side when both are as wide,
 * else each side's pieces through the step's registers */
static void emit_step(Emit *e, const CopyOp *op, const FallbackPlan *fp, Reg i)
{
	Builder *b = emit_builder(e);
	int es = dtype_bytes(op->dt), bytes = fp->vec * es;
	const char *sg, *dg;
	if (fp->svec == fp->dvec) {
		Reg sa = side_address(e, op, 0, i, &sg), da = side_address(e, op, 1, i, &dg);
		emit_mem_copy_guarded(e, op->dbuf, b_name(b, da), op->sbuf, b_name(b, sa), bytes, sg, dg);
		return;
	}
	Reg w[4];
	for (int k = 0; k < (bytes + 3) / 4; k++) {
		w[k] = b_reg(b, RC_R);
		if (fp->svec * es < 4) /* narrow pieces are inserted into their words */
			b_ins(b, FORM_MOV_B32, b_name(b, w[k]), "0", NULL);
	}
	for (int side = 0; side < 2; side++) {
		int n = side ? fp->dvec : fp->svec;
		for (int j = 0; j < fp->vec; j += n) {
			Reg at = i;
			if (j) {
				at = b_reg(b, RC_R);
				b_ins(b, FORM_ADD_U32, b_name(b, at), b_name(b, i), b_imm(b, j * fp->flat), NULL);
			}
			const char *g;
			Reg a = side_address(e, op, side, at, &g);
			if (side)
				emit_local_to_mem_guarded(e, op->dbuf, b_name(b, a), w, (int64_t)j * es, n * es, g);
			else
				emit_mem_to_local_guarded(e, op->sbuf, b_name(b, a), w, (int64_t)j * es, n * es, g);
		}
	}
}

/* step_first in PTX, from the loop counter c */
static Reg emit_step_first(Emit *e, const FallbackPlan *fp, Reg c)
{
	Builder *b = emit_builder(e);
	if (fp->vec == 1)
		return c;
	Reg i = b_reg(b, RC_R);
	if (fp->flat == 1) {
		b_ins(b, FORM_MUL_LO_U32, b_name(b, i), b_name(b, c), b_imm(b, fp->vec), NULL);
		return i;
	}
	int64_t d = fp->flat, per = fp->col_ext / fp->vec;
	Reg hi = emit_digit(e, c, d * per, 0), mid = emit_digit(e, c, d, per), lo = emit_digit(e, c, 1, d);
	Reg t = b_reg(b, RC_R);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, t), b_name(b, mid), b_imm(b, fp->vec * d), b_name(b, lo), NULL);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, i), b_name(b, hi), b_imm(b, d * fp->col_ext), b_name(b, t), NULL);
	return i;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	int vec = p->u.fallback.vec;
	Builder *b = emit_builder(e);
	diag_warning(op->cx, op->st->loc, "copy/fallback (scalar single-thread) picked for %s <- %s: %lld elements",
	             op->dbuf->name, op->sbuf->name, (long long)op->elems);
	Reg t = emit_scope_tid(e, op->st->scope), pr = b_reg(b, RC_P);
	int skip = b_label(b);
	b_ins(b, FORM_SETP_NE_U32, b_name(b, pr), b_name(b, t), "0", NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, pr), b_label_name(b, skip), NULL);
	Loop l = emit_loop_begin(e, op->elems / vec);
	emit_step(e, op, &p->u.fallback, emit_step_first(e, &p->u.fallback, l.counter));
	emit_loop_end(e, &l);
	b_place_label(b, skip);
}

/* thread 0 of each scope instance, step by step: the source's load(s),
 * then the destination's store(s), each side in its own width */
static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	const FallbackPlan *fp = &p->u.fallback;
	int es = dtype_bytes(op->dt);
	for (int64_t first = 0; first < op->k->threads; first += op->scope_threads) {
		trace_instance_vars(vals, first);
		for (int side = 0; side < 2; side++) {
			const View *v = side ? &op->dst : &op->src;
			const Buffer *b = side ? op->dbuf : op->sbuf;
			int n = side ? fp->dvec : fp->svec;
			if (b->mem != MEM_SHARED)
				continue;
			int64_t base = affine_eval(&v->off[AX_M], vals);
			for (int64_t c = 0; c < op->elems / fp->vec; c++)
				for (int64_t j = 0; j < fp->vec; j += n) {
					int64_t off = base + flat_offset(v, step_first(fp, c) + j * fp->flat);
					Access a = {b, first, 2 * (c * fp->vec + j) + side, off, es * n, side == 1};
					fn(ctx, &a);
				}
		}
	}
}

const Variant variant_fallback = {"fallback", ST_COPY, 0, accepts, plan, emit, .trace = trace, .ragged = true};
