/* red.add / red.max: registers -> global with red.global atomics
 * (docs/language.md, "Global reductions: red"). The partition is reg's (the
 * register layout's thread axes induce it); the vector is capped by what
 * the atomics have: red.global.add.v2/.v4.f32 on sm_90 (one aligned run of
 * 2 or 4 elements), one element otherwise and for max. A replicated layout
 * reduces once per element: only replica 0 issues. Ragged edges: the
 * accesses are predicated, as reg's stores are. */
#include "partition.h"

#include <string.h>

/* an f16 / bf16 destination: f32 registers converted in pairs, added per half */
static bool half_dst(const CopyOp *op)
{
	return op->dt == DT_F16 || op->dt == DT_BF16;
}

/* a one-element destination: every source element combined into it */
static bool fold(const CopyOp *op)
{
	int64_t n = 1;
	for (int d = 0; d < op->st->dst->ndim; d++)
		n *= op->st->dst->ext[d];
	return n == 1 && op->elems > 1;
}

static const char *accepts(const CopyOp *op)
{
	if (op->dbuf->mem != MEM_GLOBAL || op->sbuf->mem != MEM_LOCAL)
		return arena_printf(op->cx->arena, "needs local -> global, got %s -> %s", mem_name(op->sbuf->mem),
		                    mem_name(op->dbuf->mem));
	if (op->sbuf->owner > op->st->scope)
		return arena_printf(op->cx->arena, "register layout of '%s' is owned per %s, wider than the %s scope",
		                    op->sbuf->name, scope_name(op->sbuf->owner), scope_name(op->st->scope));
	for (int a = AX_LANEID; a <= AX_TX; a++)
		if (op->src.off[a].c || op->src.off[a].n)
			return "the register region starts at a nonzero thread offset";
	if (half_dst(op) && fold(op))
		return arena_printf(op->cx->arena, "a one-element %s destination: the %s atomics add pairs of elements",
		                    dtype_name(op->dt), dtype_name(op->dt));
	if (op->dbuf->dynamic && fold(op))
		return arena_printf(op->cx->arena, "a one-element destination in '%s', which has runtime extents (give "
		                    "the param constant extents)", op->dbuf->name);
	if (!affine_is_const(&op->src.off[AX_M]))
		return arena_printf(op->cx->arena, "the region of '%s' starts at a register that moves with a repeat index "
		                    "(registers are not indexable at run time)", op->sbuf->name);
	return NULL;
}

typedef struct RedPlan {
	View rv; /* register view, thread axes fused to the owner */
	Part part;
} RedPlan;

/* the widest vector (elements) the atomics have: 4 f32 or 8 halves (.v4) on sm_90, else 1 f32 or a pair */
static int64_t widest(const CopyOp *op)
{
	bool sm90 = target_has(op->mod->target, CAP_SM90);
	if (half_dst(op))
		return sm90 ? 8 : 2;
	return op->st->kind == ST_RED_ADD && sm90 ? 4 : 1;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	RedPlan *rp = (RedPlan *)p->data;
	_Static_assert(sizeof(RedPlan) <= PLAN_BYTES, "plan too large");
	rp->rv = op->src;
	lay_fuse_threads(&rp->rv.L, op->sbuf->owner);
	View mv = op->dst;
	int64_t cap = widest(op);
	if (fold(op)) { /* every element to the one address: the memory side strides 0 */
		mv.L = (Layout){.n = 1, .it = {{op->elems, 0, AX_M}}};
		cap = 1;
	}
	if (!mv.vec_cap || mv.vec_cap > cap)
		mv.vec_cap = cap;
	const char *why = reg_partition(op, &rp->rv, &mv, &rp->part);
	if (why)
		return why;
	int words = half_dst(op) ? rp->part.vec / 2 : rp->part.vec;
	if (half_dst(op) && rp->part.vec < 2)
		return arena_printf(op->cx->arena, "the %s atomics add pairs: a thread's elements are not pairs contiguous "
		                    "in '%s' (an even column first)", dtype_name(op->dt), op->dbuf->name);
	const char *form = op->st->kind == ST_RED_MAX ? "max.s32 / min.u32"
	                   : half_dst(op)         ? arena_printf(op->cx->arena, "add.noftz.%s%sx2", words == 1 ? ""
	                                                         : words == 2 ? "v2." : "v4.", dtype_name(op->dt))
	                   : words == 1           ? "add.f32"
	                   : words == 2           ? "add.v2.f32"
	                                          : "add.v4.f32";
	snprintf(p->params, sizeof p->params, "{\"red\": \"red.global.%s\", \"vec_bits\": %d, \"outer\": %lld%s%s}", form,
	         rp->part.vec * dtype_bytes(op->dt) * 8, (long long)rp->part.outer, rp->part.nrep ? ", \"replica 0 issues\": true" : "",
	         fold(op) ? ", \"into one element\": true" : "");
	return NULL;
}

/* threads whose replica digits are not all 0 skip (one copy reduces) */
static int emit_replica_skip(Builder *b, const Part *part, Reg t, int skip)
{
	for (int i = 0; i < part->nrep; i++) {
		const Pair *r = &part->rep[i];
		Reg x = b_reg(b, RC_R), pr = b_reg(b, RC_P);
		b_ins(b, FORM_DIV_U32, b_name(b, x), b_name(b, t), b_imm(b, r->a), NULL);
		b_ins(b, FORM_REM_U32, b_name(b, x), b_name(b, x), b_imm(b, r->ext), NULL);
		if (!skip)
			skip = b_label(b);
		b_ins(b, FORM_SETP_NE_U32, b_name(b, pr), b_name(b, x), "0", NULL);
		b_ins(b, FORM_BRA_IF, b_name(b, pr), b_label_name(b, skip), NULL);
	}
	return skip;
}

/* max under the total order of bit patterns: sign clear -> max.s32, set -> min.u32 */
static void emit_max(Builder *b, const char *addr, Reg w, const char *guard)
{
	Reg pos = b_reg(b, RC_P), neg = b_reg(b, RC_P);
	if (guard) {
		b_ins(b, FORM_SETP_GE_AND_S32, b_name(b, pos), b_name(b, w), "0", guard, NULL);
		b_ins(b, FORM_SETP_LT_AND_S32, b_name(b, neg), b_name(b, w), "0", guard, NULL);
	} else {
		b_ins(b, FORM_SETP_GE_S32, b_name(b, pos), b_name(b, w), "0", NULL);
		b_ins(b, FORM_SETP_LT_S32, b_name(b, neg), b_name(b, w), "0", NULL);
	}
	b->guard = b_name(b, pos);
	b_ins(b, FORM_RED_MAX_S32, addr, b_name(b, w), NULL);
	b->guard = b_name(b, neg);
	b_ins(b, FORM_RED_MIN_U32, addr, b_name(b, w), NULL);
	b->guard = NULL;
}

/* f32 registers f[0..n) packed into n / 2 halves pairs (the even element low), then one atomic */
static void emit_half(const CopyOp *op, Builder *b, const char *addr, Reg *f, int n, const char *guard)
{
	bool bf = op->dt == DT_BF16;
	Reg h[4];
	FormId cvt = b_form(b, FAM_CVT, &(FormKey){.atype = ATYPE_F32, .dtype = bf ? DTYPE_BF16 : DTYPE_F16});
	for (int w = 0; w < n / 2; w++) {
		h[w] = b_reg(b, RC_R);
		b_ins(b, cvt, b_name(b, h[w]), b_name(b, f[2 * w + 1]), b_name(b, f[2 * w]), NULL);
	}
	static const FormId forms[2][3] = {{FORM_RED_ADD_F16X2, FORM_RED_ADD_V2_F16X2, FORM_RED_ADD_V4_F16X2},
	                                   {FORM_RED_ADD_BF16X2, FORM_RED_ADD_V2_BF16X2, FORM_RED_ADD_V4_BF16X2}};
	FormId form = forms[bf][n / 2 == 1 ? 0 : n / 2 == 2 ? 1 : 2];
	b->guard = guard;
	b_ins(b, form, addr, n / 2 == 1 ? b_name(b, h[0]) : b_vec(b, h, n / 2), NULL);
	b->guard = NULL;
}

static void emit_access(const CopyOp *op, Builder *b, const char *addr, Reg *w, int vec, const char *guard)
{
	if (op->st->kind == ST_RED_MAX) {
		emit_max(b, addr, w[0], guard);
		return;
	}
	if (half_dst(op)) {
		emit_half(op, b, addr, w, vec, guard);
		return;
	}
	b->guard = guard;
	if (vec == 1)
		b_ins(b, FORM_RED_ADD_F32, addr, b_name(b, w[0]), NULL);
	else
		b_ins(b, vec == 2 ? FORM_RED_ADD_V2_F32 : FORM_RED_ADD_V4_F32, addr, b_vec(b, w, vec), NULL);
	b->guard = NULL;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const RedPlan *rp = (const RedPlan *)p->data;
	const Part *part = &rp->part;
	Builder *b = emit_builder(e);
	Reg t = emit_scope_tid(e, op->sbuf->owner);
	int skip = 0;
	if (part->thr_size < scope_threads(op->sbuf->owner, op->k->threads)) { /* threads past the last owner */
		Reg pr = b_reg(b, RC_P);
		skip = b_label(b);
		b_ins(b, FORM_SETP_LT_U32, b_name(b, pr), b_name(b, t), b_imm(b, part->thr_size), NULL);
		b_ins(b, FORM_BRA_IF_NOT, b_name(b, pr), b_label_name(b, skip), NULL);
	}
	skip = emit_replica_skip(b, part, t, skip);
	Side side;
	if (op->dbuf->dynamic) {
		side = emit_dyn_side(e, op, part, op->st->dst, t, false);
	} else {
		Off o = emit_view_offset(e, part, &op->dst, t, false);
		side = emit_side(e, op->dbuf, &o);
	}
	Reg *words = emit_local_regs(e, op->sbuf);
	int64_t r0 = rp->rv.off[AX_M].c;
	for (int64_t f = 0; f < part->outer; f++) {
		int64_t ds = 0, dr = 0, rem = f;
		for (int i = part->nout - 1; i >= 0; i--) {
			int64_t d = rem % part->out[i].ext;
			rem /= part->out[i].ext;
			dr += d * part->out[i].a;
			ds += d * part->out[i].b;
		}
		const char *addr = emit_side_operand(e, &side, ds);
		const char *guard = emit_side_guard(e, &side, ds, false);
		Reg w[8];
		for (int v = 0; v < part->vec; v++) { /* the vector's words, wherever they are in the registers */
			int64_t j = v, rj = v;
			if (part->nvp) {
				rj = 0;
				for (int i = part->nvp - 1; i >= 0; i--) {
					rj += j % part->vp[i].ext * part->vp[i].a;
					j /= part->vp[i].ext;
				}
			}
			w[v] = words[r0 + dr + rj];
		}
		emit_access(op, b, addr, w, part->vec, guard);
	}
	if (skip)
		b_place_label(b, skip);
}

const Variant variant_red_add = {"red_add", ST_RED_ADD, 10, accepts, plan, emit, .ragged = true, .converts = true};
const Variant variant_red_max = {"red_max", ST_RED_MAX, 10, accepts, plan, emit, .ragged = true};
