/* set DST[i, j] = EXPR: the check hook and the plan its emission follows
 * (docs/language.md, "Compute on tiles: set"). Each thread computes the
 * destination elements it holds from operand elements it holds: the
 * colocation rule is proved exactly, for every element of the destination,
 * every thread that holds it and every operand element it reads, through
 * the one ownership query (local_reg_of, src/layout/local_own.c). The operand's
 * register must be the same in every thread (one straight-line code for
 * all), and an integer condition is decided per register where the
 * thread's coordinates and the other variables' ranges make it constant. */
#include "tilepx.h"

#include <string.h>

static bool dst_dtype_ok(DType t)
{
	return t == DT_F32 || t == DT_F16 || t == DT_BF16 || t == DT_E4M3 || t == DT_E5M2;
}

static bool operand_dtype_ok(DType t) { return t == DT_F32 || t == DT_F16 || t == DT_BF16; }

/* the index variable of the statement that affine e uses (-1: none), false
 * when it uses another variable or two of them */
static bool index_var_of(const SetExpr *x, int ndim, const Affine *e, int *var)
{
	*var = -1;
	for (int i = 0; i < e->n; i++) {
		if (!e->t[i].k)
			continue;
		int found = -1;
		for (int d = 0; d < ndim; d++)
			if (x->idx_var[d] == e->t[i].var)
				found = d;
		if (found < 0 || (*var >= 0 && *var != e->t[i].var))
			return false;
		*var = e->t[i].var;
	}
	return true;
}

/* the operand's indices: affine in at most one index name each, inside its shape */
static bool check_load_indices(Ctx *cx, const Kernel *k, const SetExpr *x, const SetNode *n)
{
	for (int d = 0; d < n->buf->ndim; d++) {
		int v;
		if (!index_var_of(x, x->dst->ndim, &n->idx[d], &v)) {
			diag_error(cx, n->loc, "index %d of '%s' is not an affine expression of one index name and constants", d,
			           n->buf->name);
			diag_note(cx, "registers are named at compile time: operand indices use the destination's index names "
			          "(each at most one) and constants, not repeat indices or other variables");
			return false;
		}
		int64_t lo, hi;
		if (!check_affine_range(k, &n->idx[d], &lo, &hi) || lo < 0 || hi >= n->buf->shape[d]) {
			diag_error(cx, n->loc, "index %d of '%s' reaches %lld..%lld, outside its dimension of %lld", d,
			           n->buf->name, (long long)lo, (long long)hi, (long long)n->buf->shape[d]);
			diag_note(cx, "'%s' has shape %s; the destination '%s' has its own: operands are read at the "
			          "destination's coordinates through their indices", n->buf->name,
			          elem_text_of(cx->arena, n->buf, n->buf->shape), x->dst->name);
			return false;
		}
	}
	return true;
}

static bool check_node(Ctx *cx, const Kernel *k, const SetExpr *x, const SetNode *n)
{
	if (n->op == SX_LOAD) {
		if (n->buf->mem != MEM_LOCAL) {
			diag_error(cx, n->loc, "set reads registers: '%s' is %s, not local", n->buf->name, mem_name(n->buf->mem));
			return false;
		}
		if (!operand_dtype_ok(n->buf->dt)) {
			diag_error(cx, n->loc, "set reads f32, f16 and bf16 operands; '%s' is %s", n->buf->name,
			           dtype_name(n->buf->dt));
			return false;
		}
		return check_load_indices(cx, k, x, n);
	}
	if (n->op == SX_SCALAR && !dtype_is_float_scalar(k->scalars[n->scalar].dt) &&
	    k->scalars[n->scalar].hi > (1 << 24)) {
		const Scalar *sc = &k->scalars[n->scalar];
		diag_error(cx, n->loc, "scalar '%s' is not exact in f32: it may reach %lld (f32 holds integers up to 2^24 "
		           "exactly)", sc->name, (long long)sc->hi);
		diag_note(cx, "declare 'assume %s <= 16777216', or pass the value as a float param", sc->name);
		return false;
	}
	if (n->op == SX_ICMP) {
		int64_t lo, hi;
		if (!check_affine_range(k, &n->diff, &lo, &hi) || lo < INT32_MIN || hi > INT32_MAX) {
			diag_error(cx, n->loc, "the comparison's sides differ by values outside 32 bits");
			return false;
		}
	}
	return true;
}

static bool check_dst(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	const SetExpr *x = s->set;
	const Buffer *b = x->dst;
	if (!check_region_of(cx, k, s->dst))
		return false;
	if (b->mem != MEM_LOCAL) {
		diag_error(cx, x->dst_loc, "set writes registers: '%s' is %s, not local", b->name, mem_name(b->mem));
		return false;
	}
	if (!dst_dtype_ok(b->dt)) {
		diag_error(cx, x->dst_loc, "set writes f32, f16, bf16, e4m3 or e5m2; '%s' is %s", b->name, dtype_name(b->dt));
		return false;
	}
	if ((b->dt == DT_E4M3 || b->dt == DT_E5M2) && m->target->sm < 89) {
		diag_error(cx, x->dst_loc, "an %s destination needs sm_89 or newer (cvt.rn.satfinite.%sx2.f32); the target is "
		           "%s", dtype_name(b->dt), dtype_name(b->dt), m->target->name);
		return false;
	}
	if ((b->dt == DT_F16 || b->dt == DT_BF16) && !target_has(m->target, CAP_SM80)) {
		diag_error(cx, x->dst_loc, "writing %s needs sm_80 or newer (cvt.rn.%sx2.f32); the target is %s",
		           dtype_name(b->dt), dtype_name(b->dt), m->target->name);
		return false;
	}
	for (int d = 0; d < b->ndim; d++) {
		if (x->idx_var[d] >= 0)
			continue;
		if (!affine_is_const(&x->dst_idx[d])) {
			diag_error(cx, x->idx_loc[d], "a fixed coordinate of the destination is a constant (registers are named at "
			           "compile time)");
			return false;
		}
		if (x->dst_idx[d].c < 0 || x->dst_idx[d].c >= b->shape[d]) {
			diag_error(cx, x->idx_loc[d], "coordinate %lld is outside dimension %d of '%s' (%lld)",
			           (long long)x->dst_idx[d].c, d, b->name, (long long)b->shape[d]);
			return false;
		}
	}
	return true;
}

void check_set(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	const SetExpr *x = s->set;
	if (!check_dst(cx, m, k, s))
		return;
	for (int i = 0; i < x->nreads; i++)
		if (!check_region_of(cx, k, x->reads[i]))
			return;
	for (int i = 0; i < x->nnodes; i++)
		if (!check_node(cx, k, x, x->nodes[i]))
			return;
	SetPlan *pl = arena_alloc(cx->arena, sizeof *pl);
	if (set_plan(cx, cx->arena, k, s, pl)) /* kept for emission (emit_set) */
		plan_keep(cx, k, s, pl);
}
