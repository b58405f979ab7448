/* copy_async / tcgen05_ldst: tensor memory <-> registers on Blackwell
 * , the .32x32b path: a warpgroup moves a 128-row datapath-D tile,
 * thread t of the warpgroup owning row t, one 32-bit column per register.
 * Warp w addresses lanes 32w..32w+31 (the lane-quarter rule). No wait is
 * emitted: tcgen05.wait.ld / .st are the program's job. */
#include "partition.h"
#include "tcgen05_ldst.h"

static const char *accepts(const CopyOp *op)
{
	Mem d = op->dbuf->mem, s = op->sbuf->mem;
	if (!((d == MEM_TMEM && s == MEM_LOCAL) || (d == MEM_LOCAL && s == MEM_TMEM)))
		return arena_printf(op->cx->arena, "needs tmem <-> local, got %s -> %s", mem_name(s), mem_name(d));
	if ((d == MEM_LOCAL ? op->dbuf : op->sbuf)->layout.nrep)
		return "the register layout is replicated ('+ R[...]'): only 'reg' copies replicas";
	if (op->st->scope != SC_WARPGROUP)
		return arena_printf(op->cx->arena, "tcgen05.ld/st are warpgroup-collective (scope is %s)",
		                    scope_name(op->st->scope));
	if (!target_has(op->mod->target, CAP_TCGEN05))
		return arena_printf(op->cx->arena, "tcgen05 needs %s (target is %s)", cap_name(CAP_TCGEN05),
		                    op->mod->target->name);
	return NULL;
}

enum { SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2 };
static const FormShape shape_key[] = {SHAPE_32X32B, SHAPE_16X64B, SHAPE_16X128B, SHAPE_16X256B, SHAPE_16X32BX2};
static const int shape_cols[] = {1, 2, 4, 8, 2};  /* 32-bit columns per rep */

/* the tcgen05.ld / .st form of a shape and num (FORM_COUNT if PTX has none) */
static FormId tc_form(bool ld, int sh, int num, bool pack)
{
	return form_find(ld ? FAM_TC_LD : FAM_TC_ST, &(FormKey){.shape = shape_key[sh], .num = num, .pack = pack});
}

/* registers per thread of one rep (.x1) of the shape: the forms' data */
static int shape_base(int sh)
{
	FormId f = tc_form(true, sh, 1, false);
	return f == FORM_COUNT ? 0 : ptx_forms[f].regs;
}

/* a tensor-memory column start that moves with kernel variables (a repeat
 * index): each term must move by whole 32-bit columns (div elements each),
 * so the constant part keeps the alignment the plan proves */
static bool var_cols(const Affine *a, int64_t div, Affine *out)
{
	*out = (Affine){0};
	for (int t = 0; t < a->n; t++) {
		if (a->t[t].k % div)
			return false;
		out->t[out->n].var = a->t[t].var;
		out->t[out->n++].k = a->t[t].k / div;
	}
	return true;
}

/* the view as [(128, 1@row axis), (W, 1@col axis)] after canonicalization */
static bool two_iters_stride(View v, Axis row, Axis col, int64_t cstride, int64_t *w);
static bool two_iters(View v, Axis row, Axis col, int64_t *w) { return two_iters_stride(v, row, col, 1, w); }

static bool two_iters_stride(View v, Axis row, Axis col, int64_t cstride, int64_t *w)
{
	lay_canonicalize(&v.L);
	if (v.L.n == 1 && v.L.it[0].axis == row && v.L.it[0].ext == 128 && v.L.it[0].stride == 1) {
		*w = 1;
		return true;
	}
	if (v.L.n != 2 || v.L.it[0].axis != row || v.L.it[0].ext != 128 || v.L.it[0].stride != 1 ||
	    v.L.it[1].axis != col || v.L.it[1].stride != cstride)
		return false;
	*w = v.L.it[1].ext;
	return true;
}

/* TIRx tcgen05_atom_layout: the register layout of a .16x*b atom for a
 * (rows, K) tile, in elements; N reps of the shape. */
static bool atom_layout(bool ld, int sh, int rows, int64_t K, int esize, Layout *out, int64_t *n_reps,
                        int64_t *slab_regs)
{
	int per32 = 4 / esize;
	if (K % (shape_cols[sh] * per32))
		return false;
	int64_t N = K / (shape_cols[sh] * per32);
	if (N < 1 || N > 128 || tc_form(ld, sh, (int)N, false) == FORM_COUNT) /* the .xN PTX offers */
		return false;
	int64_t rps = N * shape_base(sh);
	Iter it[12];
	int n = 0;
	it[n++] = (Iter){4, 1, AX_WID_IN_WG};
	if (rows == 128)
		it[n++] = (Iter){2, rps, AX_M};
	switch (sh) {
	case SH_16X64B:
		it[n++] = (Iter){2, 1, AX_LANEID};
		it[n++] = (Iter){8, 4, AX_LANEID};
		it[n++] = (Iter){N, 1, AX_M};
		it[n++] = (Iter){2, 2, AX_LANEID};
		break;
	case SH_16X128B:
		it[n++] = (Iter){2, 1, AX_M};
		it[n++] = (Iter){8, 4, AX_LANEID};
		it[n++] = (Iter){N, 2, AX_M};
		it[n++] = (Iter){4, 1, AX_LANEID};
		break;
	case SH_16X32BX2:
		/* lanes 0-15 hold columns 0..N-1, lanes 16-31 columns N..2N-1 (imm = N) */
		it[n++] = (Iter){16, 1, AX_LANEID};
		it[n++] = (Iter){2, 16, AX_LANEID};
		it[n++] = (Iter){N, 1, AX_M};
		break;
	default:
		it[n++] = (Iter){2, 2, AX_M};
		it[n++] = (Iter){8, 4, AX_LANEID};
		it[n++] = (Iter){N, 4, AX_M};
		it[n++] = (Iter){4, 1, AX_LANEID};
		it[n++] = (Iter){2, 1, AX_M};
		break;
	}
	for (int i = 0; i < n; i++)
		if (it[i].axis == AX_M)
			it[i].stride *= per32;
	if (per32 > 1)
		it[n++] = (Iter){per32, 1, AX_M};
	Layout L = {0};
	L.n = n;
	for (int i = 0; i < n; i++)
		L.it[i] = it[i];
	lay_fuse_threads(&L, SC_WARPGROUP);
	lay_canonicalize(&L);
	*out = L;
	*n_reps = N;
	*slab_regs = rps;
	return true;
}

/* datapath of a tensor-memory view: D = S[(128, W) : (1@TLane, 1@TCol)],
 * F = S[(4, 16, W) : (32@TLane, 1@TLane, 1@TCol)] (row r in lane (r/16)*32 + r%16) */
static int datapath(View v, int64_t *w)
{
	lay_canonicalize(&v.L);
	if (two_iters(v, AX_TLANE, AX_TCOL, w))
		return 'D';
	Layout *L = &v.L;
	if (L->n == 3 && L->it[0].ext == 4 && L->it[0].stride == 32 && L->it[0].axis == AX_TLANE && L->it[1].ext == 16 &&
	    L->it[1].stride == 1 && L->it[1].axis == AX_TLANE && L->it[2].stride == 1 && L->it[2].axis == AX_TCOL) {
		*w = L->it[2].ext;
		return 'F';
	}
	return 0;
}

/* the .16x*b path: the local buffer's whole layout is an atom; the region
 * takes all rows and whole reps of columns */
static const char *plan_16xb(const CopyOp *op, TcPlan *tp, const Buffer *rb, const View *rv, const View *tv)
{
	int esize = dtype_bytes(op->dt), per32 = 4 / esize;
	if (rb->ndim != 2 || (rb->shape[0] != 64 && rb->shape[0] != 128))
		return "not a 16x*b atom: the local buffer is not (64 or 128 rows, K)";
	Layout full = rb->layout;
	lay_fuse_threads(&full, SC_WARPGROUP);
	lay_canonicalize(&full);
	for (int sh = SH_16X64B; sh <= SH_16X32BX2; sh++) {
		Layout atom;
		int64_t N, rps;
		if (!atom_layout(tp->ld, sh, (int)rb->shape[0], rb->shape[1], esize, &atom, &N, &rps) || !lay_eq(&atom, &full))
			continue;
		/* the region: all rows, whole reps of columns */
		const Region *rr = tp->ld ? op->st->dst : op->st->src;
		int64_t c0 = rr->whole || rr->all[1] ? 0 : rr->begin[1].c, w = rr->ext[1], rep = shape_cols[sh] * per32;
		if (rr->ext[0] != rb->shape[0])
			return "a 16x*b copy moves every row of the atom";
		if ((!rr->whole && !rr->all[1] && rr->begin[1].n) || c0 % rep || w % rep)
			return "a column slice of a 16x*b atom must cover whole reps at a static start";
		if (sh == SH_16X32BX2 && (c0 || w != rb->shape[1]))
			return "a .16x32bx2 copy moves the whole atom (its two halves are N columns apart)";
		int64_t wt;
		int dp = datapath(*tv, &wt);
		int rows = (int)rb->shape[0];
		if (rows == 64 && dp != 'F')
			return "a 64-row 16x*b fragment reaches lanes (r/16)*32 + r%16: the tensor memory region must be "
			       "datapath F (S[(4, 16, W) : (32@TLane, 1@TLane, 1@TCol)]); rows 0:64 of datapath D would be "
			       "remapped";
		if (rows == 128 && dp != 'D')
			return "a 128-row 16x*b copy needs datapath D (S[(128, W) : (1@TLane, 1@TCol)])";
		if (tv->off[AX_TLANE].c || tv->off[AX_TLANE].n || !var_cols(&tv->off[AX_TCOL], per32, &tp->colvar) ||
		    tv->off[AX_TCOL].c % per32)
			return "the tensor memory region must start at lane 0 and a whole column (an index may move it by "
			       "whole 32-bit columns)";
		tp->shape = sh;
		tp->rows = rows;
		tp->n_slabs = rows / 64;
		tp->slab_regs = rps;
		tp->col32 = tv->off[AX_TCOL].c / per32;
		tp->reg32 = (c0 / rep) * shape_base(sh);
		tp->width32 = (w / rep) * shape_base(sh); /* registers per slab */
		tp->nchunks = 1;
		tp->chunk[0] = (int)(w / rep);
		(void)rv;
		return NULL;
	}
	return "register layout does not match a .16x64b, .16x128b or .16x256b atom";
}

static const char *plan(const CopyOp *op, Plan *p)
{
	TcPlan *tp = &p->u.tcgen05_ldst;
	tp->ld = op->dbuf->mem == MEM_LOCAL;
	const Buffer *rb = tp->ld ? op->dbuf : op->sbuf;
	View rv = tp->ld ? op->dst : op->src, tv = tp->ld ? op->src : op->dst;
	int esize = dtype_bytes(op->dt), per32 = 4 / esize;
	if (rb->owner != SC_WARPGROUP)
		return "the register layout must give one row per thread of the warpgroup (tid_in_wg)";
	const char *why16 = plan_16xb(op, tp, rb, &rv, &tv);
	if (!why16) {
		snprintf(p->params, sizeof p->params,
		         "{\"direction\": \"%s\", \"shape\": \"%s\", \"num\": %d, \"n_slabs\": %d, \"datapath\": \"%c\"}",
		         tp->ld ? "ld" : "st", form_shape_names[shape_key[tp->shape]], tp->chunk[0], tp->n_slabs, tp->rows == 64 ? 'F' : 'D');
		return NULL;
	}
	tp->shape = SH_32X32B;
	tp->n_slabs = 1;
	lay_fuse_threads(&rv.L, SC_WARPGROUP);
	int64_t wr, wt;
	if (!two_iters(rv, AX_TID_IN_WG, AX_M, &wr))
		return arena_printf(op->cx->arena, "%s; the .32x32b path needs S[(128, W) : (1@tid_in_wg, 1)]", why16);
	if (esize == 2 && two_iters_stride(tv, AX_TLANE, AX_TCOL, 2, &wt)) {
		/* 16-bit elements one per 32-bit column: registers stay packed, .pack/.unpack::16b */
		tp->pack = true;
	} else if (!two_iters(tv, AX_TLANE, AX_TCOL, &wt)) {
		return "tensor-memory region is not datapath D (S[(128, W) : (1@TLane, 1@TCol)] over rows 0..127)";
	}
	if (tv.off[AX_TLANE].c || tv.off[AX_TLANE].n || !affine_is_const(&rv.off[AX_M]))
		return "regions must start at lane 0 and at static registers";
	if (!var_cols(&tv.off[AX_TCOL], tp->pack ? 2 : per32, &tp->colvar))
		return "a column start that moves with an index must move by whole 32-bit columns";
	int64_t col = tv.off[AX_TCOL].c, reg = rv.off[AX_M].c;
	if ((!tp->pack && col % per32) || reg % per32 || (wr * esize) % 4)
		return "16-bit and 8-bit data must cover whole 32-bit columns and registers";
	tp->col32 = tp->pack ? col / 2 : col / per32; /* unpacked: element k sits in column k */
	tp->reg32 = reg / per32;
	tp->width32 = wr * esize / 4;
	int64_t left = tp->width32;
	for (int num = 128; num >= 1 && left; num /= 2)
		while (left >= num && tp->nchunks < 16) {
			tp->chunk[tp->nchunks++] = num;
			left -= num;
		}
	if (left)
		return "row too wide for the instruction budget";
	snprintf(p->params, sizeof p->params,
	         "{\"direction\": \"%s\", \"shape\": \"32x32b\", \"num\": %d, \"n_slabs\": 1, \"datapath\": \"D\"%s}",
	         tp->ld ? "ld" : "st", tp->chunk[0], tp->pack ? (tp->ld ? ", \"pack\": \"16b\"" : ", \"unpack\": \"16b\"") : "");
	if (tp->nchunks > 1)
		snprintf(p->summary, sizeof p->summary, "%d instructions", tp->nchunks);
	return NULL;
}

/* the form for emission; the plan only picks shapes and nums that have one */
static FormId form(Emit *e, bool ld, int sh, int num, bool pack)
{
	return b_form(emit_builder(e), ld ? FAM_TC_LD : FAM_TC_ST,
	              &(FormKey){.shape = shape_key[sh], .num = num, .pack = pack});
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const TcPlan *tp = &p->u.tcgen05_ldst;
	Builder *b = emit_builder(e);
	const Buffer *rb = tp->ld ? op->dbuf : op->sbuf, *tb = tp->ld ? op->sbuf : op->dbuf;
	/* taddr = base + ((32 * warp_in_wg) << 16) + column */
	Reg w = emit_digit(e, emit_tid(e), 32, 4), lane_base = b_reg(b, RC_R), taddr = b_reg(b, RC_R);
	b_ins(b, FORM_SHL_B32, b_name(b, lane_base), b_name(b, w), "21", NULL);
	b_ins(b, FORM_ADD_U32, b_name(b, taddr), b_name(b, emit_tmem_addr(e, tb)), b_name(b, lane_base), NULL);
	if (tp->colvar.n) { /* the column start's moving part (a repeat index) */
		Reg moved = b_reg(b, RC_R);
		b_ins(b, FORM_ADD_U32, b_name(b, moved), b_name(b, taddr), b_name(b, emit_affine(e, &tp->colvar)), NULL);
		taddr = moved;
	}
	Reg *words = emit_local_regs(e, rb);
	if (tp->shape != SH_32X32B) {
		/* one instruction per 16-row slab: slab s reads lanes +16s, registers s * slab_regs.. */
		int num = tp->chunk[0];
		for (int s = 0; s < tp->n_slabs; s++) {
			const char *addr = b_addr(b, taddr, ((int64_t)(16 * s) << 16) + tp->col32);
			const char *regs = b_vec(b, words + s * tp->slab_regs + tp->reg32, (int)tp->width32);
			if (tp->shape == SH_16X32BX2) { /* the immediate: the upper half-warp's column offset */
				const char *half = b_imm(b, num);
				if (tp->ld)
					b_ins(b, form(e, true, tp->shape, num, false), regs, addr, half, NULL);
				else
					b_ins(b, form(e, false, tp->shape, num, false), addr, half, regs, NULL);
				continue;
			}
			if (tp->ld)
				b_ins(b, form(e, true, tp->shape, num, false), regs, addr, NULL);
			else
				b_ins(b, form(e, false, tp->shape, num, false), addr, regs, NULL);
		}
		return;
	}
	int64_t off = 0;
	for (int c = 0; c < tp->nchunks; c++) {
		int num = tp->chunk[c];
		/* unpacked, register j covers columns 2j and 2j+1 */
		const char *addr = b_addr(b, taddr, tp->col32 + (tp->pack ? 2 * off : off));
		const char *regs = b_vec(b, words + tp->reg32 + off, num);
		FormId f = form(e, tp->ld, SH_32X32B, num, tp->pack);
		if (tp->ld)
			b_ins(b, f, regs, addr, NULL);
		else
			b_ins(b, f, addr, regs, NULL);
		off += num;
	}
}

const Variant variant_tcgen05_ldst = {"tcgen05_ldst", ST_COPY_ASYNC, 10, accepts, plan, emit, .trace = NULL, .ragged = false};
