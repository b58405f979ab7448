/* The emit hook of reduce.max|min|sum: each thread combines its registers
 * of one DST element (in register order; max and min as a tree where the
 * statement says tree), then the lanes combine with shfl.sync.bfly and the
 * warps through shared memory, as
 * reduce_plan (src/front/reduce.c) decided. */
#include "lower.h"
#include "reduce_plan.h"

/* SRC register r as an f32 value: f32 as is; f16/bf16 widened exactly from
 * its half of the packed word (the even element low) */
static Reg read_f32(Builder *b, const Reg *words, DType dt, int64_t r)
{
	if (dt == DT_F32)
		return words[r];
	Reg w = words[r / 2], x = b_reg(b, RC_R);
	if (dt == DT_BF16) { /* bf16 is the upper half of an f32 */
		b_ins(b, r % 2 ? FORM_AND_B32 : FORM_SHL_B32, b_name(b, x), b_name(b, w), r % 2 ? "0xffff0000" : "16", NULL);
		return x;
	}
	if (r % 2) { /* cvt.f32.f16 reads the low 16 bits of its .b32 source */
		b_ins(b, FORM_SHR_U32, b_name(b, x), b_name(b, w), "16", NULL);
		w = x;
		x = b_reg(b, RC_R);
	}
	b_ins(b, b_form(b, FAM_CVT, &(FormKey){.atype = ATYPE_F16, .dtype = DTYPE_F32}), b_name(b, x), b_name(b, w), NULL);
	return x;
}

static Reg combine(Builder *b, FormId op, Reg a, Reg c)
{
	Reg d = b_reg(b, RC_R);
	b_ins(b, op, b_name(b, d), b_name(b, a), b_name(b, c), NULL);
	return d;
}

static void red_barrier(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	if (s->red_bar == RED_BAR_CTA) {
		b_ins(b, FORM_BAR_SYNC, NULL);
		return;
	}
	Reg id = b_reg(b, RC_R); /* the warpgroup's own barrier: warpgroups reduce independently */
	b_ins(b, FORM_ADD_U32, b_name(b, id), b_name(b, emit_var_reg(e, VAR_WGID)), b_imm(b, RED_BAR_ID), NULL);
	b_ins(b, FORM_BAR_SYNC_R, b_name(b, id), "128", NULL);
}

/* across warps: each thread's partials to its scratch words (thread t, slot
 * g at word t * nslot + g), a barrier, then the partials of the threads
 * that differ from it only in the warp bits, combined by bit, lowest first
 * (op(bit clear, bit set)), and a barrier before the words are reused */
static void over_warps(Emit *e, const Stmt *s, const RedPlan *rp, FormId op, Reg *acc)
{
	Builder *b = emit_builder(e);
	int64_t stride = 4 * (int64_t)rp->nslot, mask = 0, n = (int64_t)1 << rp->nwbits;
	for (int i = 0; i < rp->nwbits; i++)
		mask |= (int64_t)1 << rp->wbits[i];
	Reg own = b_reg(b, RC_R), low = b_reg(b, RC_R), base = b_reg(b, RC_R);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, own), b_name(b, emit_tid(e)), b_imm(b, stride), b_name(b, e->red_base), NULL);
	for (int g = 0; g < rp->nslot; g++)
		b_ins(b, FORM_ST_SHARED_B32, b_addr(b, own, 4 * g), b_name(b, acc[g]), NULL);
	red_barrier(e, s);
	b_ins(b, FORM_AND_B32, b_name(b, low), b_name(b, emit_tid(e)), b_imm(b, (int64_t)(uint32_t)~mask), NULL);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, base), b_name(b, low), b_imm(b, stride), b_name(b, e->red_base), NULL);
	Reg v[256] = {0}; /* n <= 256 (nwbits <= 8); zeroed: gcc 14 cannot see every v[0] written */
	for (int g = 0; g < rp->nslot; g++) {
		for (int64_t m = 0; m < n; m++) { /* m's bit i is thread-index bit wbits[i] */
			int64_t t = 0;
			for (int i = 0; i < rp->nwbits; i++)
				t |= (m >> i & 1) << rp->wbits[i];
			v[m] = b_reg(b, RC_R);
			b_ins(b, FORM_LD_SHARED_B32, b_name(b, v[m]), b_addr(b, base, t * stride + 4 * g), NULL);
		}
		for (int i = 0; i < rp->nwbits; i++)
			for (int64_t m = 0; m < n; m++)
				if (!(m >> i & 1) && !(m & (((int64_t)1 << i) - 1)))
					v[m] = combine(b, op, v[m], v[m | (int64_t)1 << i]);
		acc[g] = v[0];
	}
	red_barrier(e, s);
}

/* the registers of DST element g in increasing index, ((r0 + r1) + r2) + ...: a sum's order is its
 * meaning, and max and min take it too unless the statement says tree (on the H200 the chain measured
 * 1-9% faster in the attention kernels than the tree, never slower: docs/benchmarks.md, session 14) */
static Reg in_thread_chain(Builder *b, const RedPlan *rp, FormId op, const Reg *sw, DType dt, int g)
{
	Reg acc = read_f32(b, sw, dt, rp->regs[rp->first[g]]);
	for (int i = 1; i < rp->count[g]; i++)
		acc = combine(b, op, acc, read_f32(b, sw, dt, rp->regs[rp->first[g] + i]));
	return acc;
}

/* max and min, whose result no order changes: pairs of neighbours, then
 * pairs of pairs, so the dependent ops are log2(count) deep, not count */
static Reg in_thread_tree(Builder *b, const RedPlan *rp, FormId op, const Reg *sw, DType dt, int g)
{
	int n = rp->count[g];
	Reg *v = arena_alloc(b->arena, sizeof(Reg) * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = read_f32(b, sw, dt, rp->regs[rp->first[g] + i]);
	for (; n > 1; n = (n + 1) / 2) { /* v[i] is written after every read of it (2i >= i) */
		for (int i = 0; i < n / 2; i++)
			v[i] = combine(b, op, v[2 * i], v[2 * i + 1]);
		if (n % 2)
			v[n / 2] = v[n - 1];
	}
	return v[0];
}

void emit_reduce(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	RedPlan rp;
	const RedPlan *kept = plan_kept(emit_ctx(e), emit_kernel_of(e), s); /* check_reduce's */
	if (kept)
		rp = *kept;
	else if (!reduce_plan(NULL, b->arena, emit_kernel_of(e), s, &rp))
		return;
	FormId op = s->kind == ST_REDUCE_MAX   ? FORM_MAX_F32
	          : s->kind == ST_REDUCE_MIN ? FORM_MIN_F32
	                                     : FORM_ADD_RN_F32;
	b_comment(b, "line %d: %s %s, %s (%d per thread, %d shuffles each)", s->loc.line, stmt_info[s->kind].keyword,
	          s->dst->name, s->src->name, rp.nslot, rp.nbits);
	const Reg *sw = emit_local_regs(e, s->src->buf);
	Reg *dw = emit_local_regs(e, s->dst->buf);
	Reg *acc = arena_alloc(b->arena, sizeof(Reg) * (size_t)rp.nslot);
	for (int g = 0; g < rp.nslot; g++) /* in the thread: registers in increasing index */
		acc[g] = s->red_tree ? in_thread_tree(b, &rp, op, sw, s->src->buf->dt, g)
		                     : in_thread_chain(b, &rp, op, sw, s->src->buf->dt, g);
	for (int i = 0; i < rp.nbits; i++) /* across lanes: butterflies, lowest lane bit first */
		for (int g = 0; g < rp.nslot; g++) {
			Reg other = b_reg(b, RC_R);
			b_ins(b, FORM_SHFL_BFLY_B32, b_name(b, other), b_name(b, acc[g]), b_imm(b, rp.bits[i]), "31",
			      "0xffffffff", NULL);
			acc[g] = combine(b, op, acc[g], other);
		}
	if (rp.nwbits)
		over_warps(e, s, &rp, op, acc);
	for (int g = 0; g < rp.nslot; g++)
		b_ins(b, FORM_MOV_B32, b_name(b, dw[rp.dst[g]]), b_name(b, acc[g]), NULL);
}
