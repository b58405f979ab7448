/* copy_async / tcgen05_ldst: tensor memory <-> registers on Blackwell
 * (seed 001), the .32x32b path: a warpgroup moves a 128-row datapath-D tile,
 * thread t of the warpgroup owning row t, one 32-bit column per register.
 * Warp w addresses lanes 32w..32w+31 (the lane-quarter rule). No wait is
 * emitted: tcgen05.wait.ld / .st are the program's job. */
#include "partition.h"

static const char *accepts(const CopyOp *op)
{
	Mem d = op->dbuf->mem, s = op->sbuf->mem;
	if (!((d == MEM_TMEM && s == MEM_LOCAL) || (d == MEM_LOCAL && s == MEM_TMEM)))
		return arena_printf(op->cx->arena, "needs tmem <-> local, got %s -> %s", mem_name(s), mem_name(d));
	if (op->st->scope != SC_WARPGROUP)
		return arena_printf(op->cx->arena, "tcgen05.ld/st are warpgroup-collective (scope is %s)",
		                    scope_name(op->st->scope));
	if (!target_has(op->mod->target, CAP_TCGEN05))
		return arena_printf(op->cx->arena, "tcgen05 needs %s (target is %s)", cap_name(CAP_TCGEN05),
		                    op->mod->target->name);
	return NULL;
}

typedef struct TcPlan {
	bool ld;
	int64_t col32;   /* first 32-bit column of the region */
	int64_t reg32;   /* first 32-bit register of the region */
	int64_t width32; /* 32-bit columns per row */
	int nchunks;
	int chunk[16];   /* num of each instruction, widest first */
} TcPlan;

/* the view as [(128, 1@row axis), (W, 1@col axis)] after canonicalization */
static bool two_iters(View v, Axis row, Axis col, int64_t *w)
{
	lay_canonicalize(&v.L);
	if (v.L.n == 1 && v.L.it[0].axis == row && v.L.it[0].ext == 128 && v.L.it[0].stride == 1) {
		*w = 1;
		return true;
	}
	if (v.L.n != 2 || v.L.it[0].axis != row || v.L.it[0].ext != 128 || v.L.it[0].stride != 1 ||
	    v.L.it[1].axis != col || v.L.it[1].stride != 1)
		return false;
	*w = v.L.it[1].ext;
	return true;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	TcPlan *tp = (TcPlan *)p->data;
	tp->ld = op->dbuf->mem == MEM_LOCAL;
	const Buffer *rb = tp->ld ? op->dbuf : op->sbuf;
	View rv = tp->ld ? op->dst : op->src, tv = tp->ld ? op->src : op->dst;
	int esize = dtype_bytes(op->dt), per32 = 4 / esize;
	if (rb->owner != SC_WARPGROUP)
		return "the register layout must give one row per thread of the warpgroup (tid_in_wg)";
	lay_fuse_threads(&rv.L, SC_WARPGROUP);
	int64_t wr, wt;
	if (!two_iters(rv, AX_TID_IN_WG, AX_M, &wr))
		return "register layout does not match a tcgen05 atom: the .32x32b path needs S[(128, W) : (1@tid_in_wg, 1)]";
	if (!two_iters(tv, AX_TLANE, AX_TCOL, &wt))
		return "tensor-memory region is not datapath D (S[(128, W) : (1@TLane, 1@TCol)] over rows 0..127)";
	if (tv.off[AX_TLANE].c || tv.off[AX_TLANE].n || !affine_is_const(&tv.off[AX_TCOL]) ||
	    !affine_is_const(&rv.off[AX_M]))
		return "regions must start at lane 0 and at static columns and registers";
	int64_t col = tv.off[AX_TCOL].c, reg = rv.off[AX_M].c;
	if (col % per32 || reg % per32 || (wr * esize) % 4)
		return "16-bit and 8-bit data must cover whole 32-bit columns and registers";
	tp->col32 = col / per32;
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
	         "{\"direction\": \"%s\", \"shape\": \"32x32b\", \"num\": %d, \"n_slabs\": 1, \"datapath\": \"D\"}",
	         tp->ld ? "ld" : "st", tp->chunk[0]);
	if (tp->nchunks > 1)
		snprintf(p->summary, sizeof p->summary, "%d instructions", tp->nchunks);
	return NULL;
}

static FormId form(bool ld, int num)
{
	int k = 0;
	while ((1 << k) < num)
		k++;
	return (FormId)((ld ? FORM_TC_LD_32X32B_X1 : FORM_TC_ST_32X32B_X1) + k);
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const TcPlan *tp = (const TcPlan *)p->data;
	Builder *b = emit_builder(e);
	const Buffer *rb = tp->ld ? op->dbuf : op->sbuf, *tb = tp->ld ? op->sbuf : op->dbuf;
	/* taddr = base + ((32 * warp_in_wg) << 16) + column */
	Reg w = emit_digit(e, emit_tid(e), 32, 4), lane_base = b_reg(b, RC_R), taddr = b_reg(b, RC_R);
	b_ins(b, FORM_SHL_B32, b_name(b, lane_base), b_name(b, w), "21", NULL);
	b_ins(b, FORM_ADD_U32, b_name(b, taddr), b_name(b, emit_tmem_addr(e, tb)), b_name(b, lane_base), NULL);
	Reg *words = emit_local_regs(e, rb);
	int64_t off = 0;
	for (int c = 0; c < tp->nchunks; c++) {
		int num = tp->chunk[c];
		const char *addr = b_addr(b, taddr, tp->col32 + off);
		const char *regs = b_vec(b, words + tp->reg32 + off, num);
		if (tp->ld)
			b_ins(b, form(true, num), regs, addr, NULL);
		else
			b_ins(b, form(false, num), addr, regs, NULL);
		off += num;
	}
}

const Variant variant_tcgen05_ldst = {"tcgen05_ldst", ST_COPY_ASYNC, 10, accepts, plan, emit};
