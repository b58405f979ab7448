/* copy / ldstmatrix: registers <-> shared with ldmatrix / stmatrix m8n8 .b16
 * . Both layouts are regrouped to [T/32, 8, 4, M/(2*num), num, 2]:
 * warps, the 8 rows of a tile, 4 lane column pairs, m_outer tiles, num tiles,
 * the packed element pair. The register side must be the m8n8 fragment; the
 * shared side decides .trans and the row stride p. Declines to reg otherwise. */
#include "partition.h"
#include "ldstmatrix.h"

#include <string.h>

static const char *accepts(const CopyOp *op)
{
	Mem d = op->dbuf->mem, s = op->sbuf->mem;
	bool ld = d == MEM_LOCAL && s == MEM_SHARED, st = s == MEM_LOCAL && d == MEM_SHARED;
	if (!ld && !st)
		return arena_printf(op->cx->arena, "needs local <-> shared, got %s -> %s", mem_name(s), mem_name(d));
	if (op->st->scope == SC_THREAD)
		return "unsupported exec_scope thread (need warp, warpgroup, or cta)";
	if (op->rdt != op->dt && (ld || op->rdt != DT_F32 || dtype_bytes(op->dt) != 2))
		return arena_printf(op->cx->arena,
		                    "converts only f32 registers to f16/bf16 shared (cvt pairs, then stmatrix), not %s -> %s",
		                    dtype_name(op->sbuf->dt), dtype_name(op->dbuf->dt));
	if ((ld ? op->dbuf : op->sbuf)->layout.nrep)
		return "the register layout is replicated ('+ R[...]'): only 'reg' copies replicas";
	if (st && !target_has(op->mod->target, CAP_SM90))
		return arena_printf(op->cx->arena, "stmatrix needs sm_90 or newer (target is %s)", op->mod->target->name);
	if (dtype_bytes(op->dt) == 1 && !target_has(op->mod->target, CAP_B8MATRIX))
		return arena_printf(op->cx->arena, "8-bit ldmatrix/stmatrix shapes need %s (target is %s)",
		                    cap_name(CAP_B8MATRIX), op->mod->target->name);
	if (dtype_bytes(op->dt) != 2 && dtype_bytes(op->dt) != 1)
		return arena_printf(op->cx->arena,
		                    "ldmatrix/stmatrix move 16-bit elements (m8n8) or 8-bit ones (m16n16/m16n8) (dtype is %s)",
		                    dtype_name(op->dt));
	const Buffer *r = ld ? op->dbuf : op->sbuf;
	if (r->owner == SC_THREAD)
		return "the register layout has no thread axis (need laneid, tid_in_wg or tx)";
	if (r->owner > op->st->scope)
		return arena_printf(op->cx->arena, "register layout is owned per %s, wider than the %s scope",
		                    scope_name(r->owner), scope_name(op->st->scope));
	return NULL;
}

/* out = in with its leading run of thread pairs sorted by lane stride,
 * descending (an insertion sort: equal strides keep their order) */
static void sort_thread_pairs(const Pair *in, int np, Pair *out)
{
	memcpy(out, in, sizeof(Pair) * (size_t)np);
	for (int i = 1; i < np && axis_is_thread(out[i].axis); i++)
		for (int j = i; j > 0 && out[j].a > out[j - 1].a; j--) {
			Pair t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
}

/* one num candidate (TIRx _try_num) */
static const char *try_num(const Pair *in, int np, int64_t T, int64_t M, int num, LdstPlan *lp)
{
	/* a pair's order is only the traversal order, so a fragment whose column
	 * pairs come first in its logical shape (the mma B operand) regroups like
	 * one whose rows do */
	Pair pairs[MAX_ITERS];
	sort_thread_pairs(in, np, pairs);
	if (M % (2 * num))
		return "per-thread element count does not split";
	int64_t shape[6] = {T / 32, 8, 4, M / (2 * num), num, 2};
	Pair g[MAX_ITERS];
	int ng, seps[7];
	if (!group_pairs(pairs, np, shape, 6, g, &ng, seps))
		return "layouts do not regroup to [T/32, 8, 4, M/(2*num), num, 2]";
	int cnt[6];
	for (int i = 0; i < 6; i++)
		cnt[i] = seps[i + 1] - seps[i];
	if ((shape[0] > 1 && cnt[0] != 1) || cnt[1] != 1 || cnt[2] != 1 || cnt[5] != 1)
		return "warp, row, column-pair and element-pair groups must be single iters";
	const Pair *w = shape[0] > 1 ? &g[seps[0]] : NULL, *r8 = &g[seps[1]], *r4 = &g[seps[2]], *r2 = &g[seps[5]];
	if (w && (!axis_is_thread(w->axis) || w->a != 32))
		return "warps of the register layout are not 32 threads apart";
	if (!axis_is_thread(r8->axis) || !axis_is_thread(r4->axis) || axis_is_thread(r2->axis) || r8->a != 4 ||
	    r4->a != 1 || r2->a != 1)
		return "register layout is not the m8n8 fragment (lane = 4*row + column pair, element pairs adjacent)";
	for (int i = seps[3]; i < seps[5]; i++) {
		if (axis_is_thread(g[i].axis))
			return "register layout has thread strides inside the tile groups";
		if (g[i].a % 2)
			return "register pairs are not 32-bit aligned";
		if (g[i].b <= 0 || g[i].b % 8)
			return "shared tile strides are not multiples of 8 elements (16 bytes)";
	}
	if (w && w->b % 8)
		return "shared per-warp stride is not a multiple of 8 elements";
	int64_t s8 = r8->b, s4 = r4->b, s2 = r2->b;
	if (s4 == 2 && s2 == 1 && s8 > 0 && s8 % 8 == 0) {
		lp->trans = false;
		lp->p = s8;
	} else if (s8 == 1 && s2 > 0 && s2 % 8 == 0 && s4 == 2 * s2) {
		lp->trans = true;
		lp->p = s2;
	} else {
		return "shared layout is neither row- nor column-major 8x8 tiles with 16-byte rows";
	}
	lp->num = num;
	lp->warps = shape[0];
	lp->s_warp = w ? w->b : 0;
	lp->nm = cnt[3];
	memcpy(lp->m, &g[seps[3]], sizeof(Pair) * (size_t)cnt[3]);
	lp->nn = cnt[4];
	memcpy(lp->n, &g[seps[4]], sizeof(Pair) * (size_t)cnt[4]);
	lp->m_outer = shape[3];
	return NULL;
}

/* the b8 forms (docs/ptx-notes.md), regrouped threads-first like m8n8:
 *   ldmatrix m16n16.trans: [T/32, 8 (col%8, lane*4), 4 (row/4, lane), m_outer, num, 2 (row/2%2, reg 4),
 *                           2 (col/8, reg 2), 2 (row%2, reg 1)]
 *   stmatrix m16n8.trans:  [T/32, 8 (col%8, lane*4), 4 (row/2, lane), m_outer, num, 2 (col/8, reg 2),
 *                           2 (row%2, reg 1)]
 * rows are 16 contiguous bytes (col%8 stride 1, col/8 stride 8) on 16-byte boundaries */
static const char *try_b8(const Pair *in, int np, int64_t T, int64_t M, int num, LdstPlan *lp)
{
	/* the b8 fragment's lane = 4*(col%8) + row group */
	Pair pairs[MAX_ITERS];
	sort_thread_pairs(in, np, pairs);
	int per = lp->ld ? 8 : 4; /* bytes per matrix per thread */
	if (M % (per * num))
		return "per-thread byte count does not split";
	int64_t mo = M / (per * num);
	int64_t ld_shape[8] = {T / 32, 8, 4, mo, num, 2, 2, 2}, st_shape[7] = {T / 32, 8, 4, mo, num, 2, 2};
	int ns = lp->ld ? 8 : 7;
	const int64_t *shape = lp->ld ? ld_shape : st_shape;
	Pair g[MAX_ITERS];
	int ng, seps[9];
	if (!group_pairs(pairs, np, shape, ns, g, &ng, seps))
		return "layouts do not regroup to the b8 fragment";
	for (int i = 0; i < ns; i++)
		if (i != 3 && i != 4 && shape[i] > 1 && seps[i + 1] - seps[i] != 1)
			return "b8 fragment groups must be single iters";
	const Pair *w = shape[0] > 1 ? &g[seps[0]] : NULL, *c8 = &g[seps[1]], *r4 = &g[seps[2]];
	if (w && (!axis_is_thread(w->axis) || w->a != 32 || w->b % 16))
		return "warps of the register layout are not 32 threads apart on 16-byte tiles";
	if (!axis_is_thread(c8->axis) || c8->a != 4 || c8->b != 1 || !axis_is_thread(r4->axis) || r4->a != 1)
		return "register layout is not the b8 fragment (lane = 4*(col%8) + row group)";
	const Pair *tail = &g[seps[5]];
	int64_t want_r[3] = {4, 2, 1};
	if (!lp->ld)
		want_r[0] = 2, want_r[1] = 1;
	for (int i = 0; i < ns - 5; i++)
		if (axis_is_thread(tail[i].axis) || tail[i].a != want_r[i])
			return "register bytes are not in the b8 fragment order";
	/* col/8 must be the second 8 bytes of the row */
	const Pair *c1 = &tail[lp->ld ? 1 : 0];
	if (c1->b != 8)
		return "shared rows are not 16 contiguous bytes";
	for (int i = seps[3]; i < seps[5]; i++)
		if (axis_is_thread(g[i].axis) || g[i].a % 4 || g[i].b % 16)
			return "tile strides are not 32-bit registers and 16-byte shared offsets";
	lp->rs[0] = r4->b;
	lp->rs[1] = lp->ld ? tail[0].b : tail[1].b;
	lp->rs[2] = lp->ld ? tail[2].b : 0;
	for (int i = 0; i < 3; i++)
		if (lp->rs[i] % 16)
			return "shared row strides are not multiples of 16 bytes";
	lp->b8 = true;
	lp->trans = true;
	lp->num = num;
	lp->warps = shape[0];
	lp->s_warp = w ? w->b : 0;
	lp->nm = seps[4] - seps[3];
	memcpy(lp->m, &g[seps[3]], sizeof(Pair) * (size_t)lp->nm);
	lp->nn = seps[5] - seps[4];
	memcpy(lp->n, &g[seps[4]], sizeof(Pair) * (size_t)lp->nn);
	lp->m_outer = mo;
	return NULL;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	LdstPlan *lp = &p->u.ldstmatrix;
	lp->ld = op->dbuf->mem == MEM_LOCAL;
	const Buffer *rb = lp->ld ? op->dbuf : op->sbuf;
	View rv = lp->ld ? op->dst : op->src;
	lp->sv = lp->ld ? op->src : op->dst;
	if (lp->sv.L.sw.on && ((int64_t)1 << lp->sv.L.sw.p) * dtype_bytes(op->dt) < 16)
		return arena_printf(op->cx->arena, "swizzle(%d, %d, %d) keeps fewer than 16 contiguous bytes per row",
		                    lp->sv.L.sw.p, lp->sv.L.sw.w, lp->sv.L.sw.a);
	for (int a = AX_LANEID; a <= AX_TX; a++)
		if (rv.off[a].c || rv.off[a].n)
			return "the register region starts at a nonzero thread offset";
	if (!affine_is_const(&rv.off[AX_M]) || rv.off[AX_M].c % (4 / dtype_bytes(op->dt)))
		return "the register region does not start at a static 32-bit register";
	const Affine *so = &lp->sv.off[AX_M];
	int64_t row_align = 16 / dtype_bytes(op->dt); /* 16-byte rows */
	bool aligned = so->c % row_align == 0;
	for (int i = 0; i < so->n; i++)
		aligned &= so->t[i].k % row_align == 0;
	if (!aligned)
		return "the shared region does not start on a 16-byte boundary";
	lp->r_off = rv.off[AX_M].c;
	lay_fuse_threads(&rv.L, rb->owner);
	Pair pairs[MAX_ITERS];
	int np;
	if (!reg_pairs(&rv, &lp->sv, pairs, &np))
		return "the register and shared layouts split the copy's index space incompatibly";
	int64_t T = 1, M = 1;
	for (int i = 0; i < np; i++) {
		if (axis_is_thread(pairs[i].axis))
			T *= pairs[i].ext;
		else
			M *= pairs[i].ext;
	}
	if (T % 32 || T != scope_threads(rb->owner, op->k->threads))
		return arena_printf(op->cx->arena, "register layout covers %lld threads, not every thread of its %s",
		                    (long long)T, scope_name(rb->owner));
	const char *why = NULL;
	if (dtype_bytes(op->dt) == 1) {
		/* ldmatrix m16n16 .x1/.x2, stmatrix m16n8 .x1/.x2/.x4 */
		static const int nums_ld[] = {2, 1}, nums_st[] = {4, 2, 1};
		const int *nums = lp->ld ? nums_ld : nums_st;
		for (int i = 0; i < (lp->ld ? 2 : 3); i++) {
			const char *w = try_b8(pairs, np, T, M, nums[i], lp);
			if (!w) {
				snprintf(p->params, sizeof p->params,
				         "{\"direction\": \"%s\", \"num\": %d, \"trans\": true, \"m_outer\": %lld, \"shape\": \"%s\"}",
				         lp->ld ? "ld" : "st", lp->num, (long long)lp->m_outer, lp->ld ? "m16n16" : "m16n8");
				return NULL;
			}
			why = w;
		}
		return arena_printf(op->cx->arena, "the b8 ldmatrix/stmatrix fragment does not fit: %s", why);
	}
	static const int nums[] = {4, 2, 1};
	for (int i = 0; i < 3; i++) {
		const char *w = try_num(pairs, np, T, M, nums[i], lp);
		if (!w) {
			snprintf(p->params, sizeof p->params,
			         "{\"direction\": \"%s\", \"num\": %d, \"trans\": %s, \"m_outer\": %lld%s}",
			         lp->ld ? "ld" : "st", lp->num, lp->trans ? "true" : "false", (long long)lp->m_outer,
			         op->rdt != op->dt ? (op->dt == DT_BF16 ? ", \"convert\": \"f32 -> bf16\"" : ", \"convert\": \"f32 -> f16\"")
			                           : "");
			return NULL;
		}
		if (!why || nums[i] == 1)
			why = w;
	}
	return arena_printf(op->cx->arena, "ldstmatrix layout doesn't fit any num in {4,2,1}: %s", why);
}

/* offset of digit value v over a group of pairs (mixed radix, last fastest) */
static void group_offset(const Pair *g, int n, int64_t v, int64_t *a, int64_t *b)
{
	*a = *b = 0;
	for (int i = n - 1; i >= 0; i--) {
		int64_t d = v % g[i].ext;
		v /= g[i].ext;
		*a += d * g[i].a;
		*b += d * g[i].b;
	}
}

/* one instruction per m_outer step: the lane's address (a base plus an
 * immediate per step; swizzled per step) and, per matrix, words_per_matrix
 * consecutive 32-bit registers */
static void issue(const CopyOp *op, const LdstPlan *lp, Emit *e, const Side *side, FormId f, int words_per_matrix)
{
	Builder *b = emit_builder(e);
	const Buffer *rb = lp->ld ? op->dbuf : op->sbuf;
	int esize = dtype_bytes(op->dt), per_word = 4 / esize;
	Reg *words = emit_local_regs(e, rb);
	bool conv = op->rdt != op->dt;
	FormId cvt = conv ? b_form(b, FAM_CVT, &(FormKey){.atype = ATYPE_F32,
	                                                  .dtype = op->dt == DT_BF16 ? DTYPE_BF16 : DTYPE_F16})
	                  : FORM_COUNT;
	for (int64_t mm = 0; mm < lp->m_outer; mm++) {
		int64_t ra, sa;
		group_offset(lp->m, lp->nm, mm, &ra, &sa);
		Reg regs[8];
		int nr = 0;
		for (int i = 0; i < lp->num; i++) {
			int64_t na, nb;
			group_offset(lp->n, lp->nn, i, &na, &nb);
			for (int h = 0; h < words_per_matrix; h++) {
				int64_t el = lp->r_off + ra + na + (int64_t)h * per_word;
				if (!conv) {
					regs[nr++] = words[el / per_word];
					continue;
				}
				/* f32 elements el, el + 1 (adjacent registers: the fragment's element
				 * pair) packed by one cvt, the even element low */
				regs[nr] = b_reg(b, RC_R);
				b_ins(b, cvt, b_name(b, regs[nr]), b_name(b, words[el + 1]), b_name(b, words[el]), NULL);
				nr++;
			}
		}
		const char *addr = emit_side_operand(e, side, sa);
		if (lp->ld)
			b_ins(b, f, b_vec(b, regs, nr), addr, NULL);
		else
			b_ins(b, f, addr, b_vec(b, regs, nr), NULL);
	}
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const LdstPlan *lp = &p->u.ldstmatrix;
	const Buffer *rb = lp->ld ? op->dbuf : op->sbuf, *sb = lp->ld ? op->sbuf : op->dbuf;
	Reg lane = emit_scope_tid(e, SC_WARP);
	/* the lane's row address: the region's start, this warp's tile (warps of
	 * the register owner), the row digits and the matrix index; thread
	 * digits are hoisted and shared (partition.c) */
	Term tm[16];
	int nt = 0;
	if (lp->warps > 1)
		tm[nt++] = (Term){emit_scope_tid(e, rb->owner), 32, lp->warps, lp->s_warp};
	/* rows of matrix j come from lanes rows*j ..: m8n8 8, ldmatrix m16n16 16, stmatrix m16n8 8 */
	int rows = lp->b8 && lp->ld ? 16 : 8;
	if (lp->b8) {
		/* row digits of lane % rows: ld (row/4, row/2%2, row%2), st (row/2, row%2) */
		static const int64_t divs_ld[3] = {4, 2, 1}, mods_ld[3] = {4, 2, 2}, divs_st[2] = {2, 1}, mods_st[2] = {4, 2};
		for (int i = 0; i < (lp->ld ? 3 : 2); i++)
			tm[nt++] = (Term){lane, lp->ld ? divs_ld[i] : divs_st[i], lp->ld ? mods_ld[i] : mods_st[i], lp->rs[i]};
	} else {
		tm[nt++] = (Term){lane, 1, 8, lp->p}; /* (lane % 8) * p */
	}
	/* matrix index lane / rows over the num group's pairs */
	int64_t div = 1;
	for (int i = lp->nn - 1; lp->num > 1 && i >= 0 && nt < 16; i--) {
		tm[nt++] = (Term){lane, rows * div, lp->n[i].ext, lp->n[i].b};
		div *= lp->n[i].ext;
	}
	Off o = emit_offset_terms(e, &lp->sv.off[AX_M], tm, nt);
	Side side = emit_side(e, sb, &o);
	/* b8: ldmatrix m16n16 / stmatrix m16n8, both .trans; else m8n8 .b16 */
	FormKey key = {.shape = !lp->b8 ? SHAPE_M8N8 : lp->ld ? SHAPE_M16N16 : SHAPE_M16N8, .num = lp->num,
	               .trans = lp->b8 || lp->trans, .bits = lp->b8 ? 8 : 16};
	FormId f = b_form(emit_builder(e), lp->ld ? FAM_LDMATRIX : FAM_STMATRIX, &key);
	if (f != FORM_COUNT)
		issue(op, lp, e, &side, f, ptx_forms[f].regs / lp->num);
}

/* the lanes that address rows (8 per matrix, 16 for ldmatrix m16n16), 16
 * bytes each, one instruction per m_outer step: the address terms of emit */
static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	const LdstPlan *lp = &p->u.ldstmatrix;
	const Buffer *rb = lp->ld ? op->dbuf : op->sbuf, *sb = lp->ld ? op->sbuf : op->dbuf;
	int64_t T = op->k->threads, ownT = scope_threads(rb->owner, T);
	int rows = lp->b8 && lp->ld ? 16 : 8;
	for (int64_t first = 0; first < T; first += op->scope_threads) {
		trace_instance_vars(vals, first);
		int64_t base = affine_eval(&lp->sv.off[AX_M], vals);
		for (int64_t tid = first; tid < first + op->scope_threads && tid < T; tid++) {
			int64_t lane = tid % 32, off = base;
			if (lane >= rows * lp->num)
				continue;
			if (lp->warps > 1)
				off += (tid % ownT) / 32 % lp->warps * lp->s_warp;
			if (lp->b8) {
				static const int64_t divs_ld[3] = {4, 2, 1}, mods_ld[3] = {4, 2, 2}, divs_st[2] = {2, 1},
				                     mods_st[2] = {4, 2};
				for (int i = 0; i < (lp->ld ? 3 : 2); i++)
					off += lane / (lp->ld ? divs_ld[i] : divs_st[i]) % (lp->ld ? mods_ld[i] : mods_st[i]) * lp->rs[i];
			} else {
				off += lane % 8 * lp->p;
			}
			int64_t div = 1;
			for (int i = lp->nn - 1; lp->num > 1 && i >= 0; i--) {
				off += lane / (rows * div) % lp->n[i].ext * lp->n[i].b;
				div *= lp->n[i].ext;
			}
			for (int64_t mm = 0; mm < lp->m_outer; mm++) {
				int64_t ra, sa;
				group_offset(lp->m, lp->nm, mm, &ra, &sa);
				Access a = {sb, tid, mm, off + sa, 16, !lp->ld};
				fn(ctx, &a);
			}
		}
	}
}

const Variant variant_ldstmatrix = {"ldstmatrix", ST_COPY, 10, accepts, plan, emit, .trace = trace, .ragged = false,
                                       .converts = true, .converts_into_shared = true, .collective = true};
