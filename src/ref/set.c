/* The reference's meaning of set (docs/language.md, "Compute on tiles:
 * set"), over logical coordinates: every thread that holds an element of
 * the destination computes it from its own copies of the operand elements
 * the expression names, in f32 with IEEE round-to-nearest-even per
 * operation (the host's float arithmetic; C11 forbids contraction unless
 * asked), NaN results canonical (0x7fffffff). The approximate functions
 * take the exact value (double libm, rounded to f32) and an error bound.
 * Each value carries an absolute bound on how far the device's value may
 * be from it: 0 when no approximate function influenced it (then the
 * comparison is bit for bit), propagated through later operations.
 * Nothing here knows registers or the emitter's plan: elements are found
 * through the caller's elem function (ref.c's layout definitions). */
#include "../tilepx.h"
#include "fmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct FV {
	float v;
	double err; /* absolute bound; 0: exactly what the device computes */
} FV;

typedef struct RefSet {
	const Kernel *k;
	const SetExpr *x;
	int64_t *vars;
	int64_t thread;
	RefElemFn elem;
	void *ctx;
	bool failed;    /* an operand not found: a tilepx bug (check proved them) */
	bool uncertain; /* a float comparison that the operands' errors could flip */
} RefSet;

/* the per-element bounds of the approximate instructions on |y - f(x)|,
 * y the device's result and f(x) the exact value, as relative and absolute
 * parts (docs/ptx-notes.md, "Approximate math", from the PTX ISA's stated
 * maximum errors): ex2 2^-21.5 |f| + 2^-147; lg2 2^-22 max(1, |f|); rcp
 * 2^-22.4 |f| + 1.5 2^-149; rsqrt 2^-22.9 |f|; tanh 2^-11 |f|; ex2.ftz as
 * ex2 but 2^-126 absolute (a subnormal result is flushed to +0, a
 * subnormal operand read as 0: 2^x within the relative part there) */
static double approx_rel(SetOp op)
{
	switch (op) {
	case SX_EXP2: case SX_EXP2_FTZ: return 0x1.6a09e667f3bcdp-22; /* 2^-21.5 */
	case SX_LOG2: return 0x1p-22;
	case SX_RCP: return 0x1.8406003b2ae63p-23; /* 2^-22.4 */
	case SX_RSQRT: return 0x1.125fbee250669p-23; /* 2^-22.9 */
	default: return 0x1p-11;
	}
}
static double approx_abs(SetOp op)
{
	if (op == SX_EXP2_FTZ) /* a result below 2^-126 may be +0 */
		return 0x1p-126;
	return op == SX_EXP2 ? 0x1p-147 : op == SX_LOG2 ? 0x1p-22 : op == SX_RCP ? 0x1.8p-149 : 0;
}

static float bits_f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t f_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float canon(float f) { return isnan(f) ? bits_f(0x7fffffffu) : f; }

/* one unit in the last place of an f32 of magnitude a (the subnormal step below) */
static double ulp32(double a)
{
	if (!isfinite(a))
		return INFINITY;
	int e;
	rm_frexp(a, &e);
	return rm_ldexp(1.0, (e - 1 < -126 ? -126 : e - 1) - 23);
}

/* a result rounded from inputs with errors: prop bounds how far the exact
 * results apart, plus one rounding step at the result's magnitude */
static double rounded_err(double prop, float v)
{
	if (prop == 0)
		return 0;
	double e = prop + ulp32(fabs((double)v) + prop);
	return isfinite(v) && isfinite(e) ? e : INFINITY;
}

static FV operand_value(RefSet *S, const SetNode *n)
{
	int64_t coord[MAX_DIMS];
	for (int d = 0; d < n->buf->ndim; d++) {
		coord[d] = n->idx[d].c;
		for (int i = 0; i < n->idx[d].n; i++)
			coord[d] += n->idx[d].t[i].k * S->vars[n->idx[d].t[i].var];
	}
	float *err = NULL;
	const unsigned char *p = S->elem(S->ctx, n->buf, coord, S->thread, &err, false);
	if (!p) { /* check proved every operand colocated: a tilepx bug */
		S->failed = true;
		return (FV){0, 0};
	}
	FV r = {0, err ? *err : 0};
	if (n->buf->dt == DT_F32) {
		memcpy(&r.v, p, 4);
	} else {
		uint16_t h;
		memcpy(&h, p, 2);
		r.v = bits_f(ref_half_to_f32(h, n->buf->dt == DT_BF16));
	}
	return r;
}

static FV scalar_value(RefSet *S, const SetNode *n)
{
	const Scalar *sc = &S->k->scalars[n->scalar];
	int64_t v = S->k->bound_vals ? S->k->bound_vals[n->scalar] : S->vars[sc->var];
	if (sc->dt == DT_F32)
		return (FV){bits_f((uint32_t)v), 0};
	if (sc->dt == DT_F16 || sc->dt == DT_BF16)
		return (FV){bits_f(ref_half_to_f32((uint16_t)v, sc->dt == DT_BF16)), 0};
	return (FV){(float)v, 0}; /* exact: check bounds it by 2^24 */
}

/* max/min: a NaN input gives the other, two NaNs the canonical NaN */
static FV fv_max_min(FV a, FV b, bool max)
{
	double e = a.err > b.err ? a.err : b.err;
	if (isnan(a.v))
		return isnan(b.v) ? (FV){canon(a.v), e} : (FV){b.v, e};
	if (isnan(b.v))
		return (FV){a.v, e};
	if (a.v == b.v) /* +0 and -0: max is +0, min is -0 */
		return (FV){bits_f(max ? f_bits(a.v) & f_bits(b.v) : f_bits(a.v) | f_bits(b.v)), e};
	return (FV){(max ? a.v > b.v : a.v < b.v) ? a.v : b.v, e};
}

/* the exact value of an approximate function of x (double libm) */
static double approx_exact(SetOp op, double x)
{
	switch (op) {
	case SX_EXP2: case SX_EXP2_FTZ: return rm_exp2(x);
	case SX_LOG2: return x < 0 ? NAN : rm_log2(x);
	case SX_RCP: return 1.0 / x;
	case SX_RSQRT: return x < 0 ? NAN : 1.0 / rm_sqrt(x);
	case SX_TANH: return rm_tanh(x);
	default: return rm_sqrt(x);
	}
}

/* how far f may move over [x - e, x + e]: the largest change at the ends
 * (these functions are monotone on each side of their poles); infinite
 * when the interval reaches a pole or the domain's edge */
static double spread(SetOp op, double x, double e)
{
	if (e == 0)
		return 0;
	double lo = x - e, hi = x + e;
	if ((op == SX_LOG2 || op == SX_RSQRT || op == SX_SQRT) && lo <= 0 && !(op == SX_SQRT && lo >= 0))
		return INFINITY;
	if (op == SX_RCP && lo <= 0 && hi >= 0)
		return INFINITY;
	double f = approx_exact(op, x), a = fabs(approx_exact(op, lo) - f), b = fabs(approx_exact(op, hi) - f);
	double s = a > b ? a : b;
	return isnan(s) ? INFINITY : s;
}

static FV unary(SetOp op, FV a)
{
	uint32_t u = f_bits(a.v);
	switch (op) {
	/* the sign bit; a NaN becomes the canonical one (the H100's bits, docs/ptx-notes.md) */
	case SX_NEG: return (FV){canon(bits_f(u ^ 0x80000000u)), a.err};
	case SX_ABS: return (FV){canon(bits_f(u & 0x7fffffffu)), a.err};
	case SX_SQRT: {
		float v = canon(rm_sqrtf(a.v));
		return (FV){v, rounded_err(spread(op, a.v, a.err), v)};
	}
	default: break;
	}
	double exact = approx_exact(op, (double)a.v);
	float v = canon((float)exact);
	if (!isfinite(v)) /* the special values are exact (a NaN of any payload, the same infinity); the bound marks it inexact */
		return (FV){v, a.err > 0 ? INFINITY : 0x1p-149};
	double e = spread(op, a.v, a.err);
	e += approx_rel(op) * (fabs(exact) + e) + approx_abs(op) + ulp32(fabs(exact) + e);
	return (FV){v, isfinite(e) ? e : INFINITY};
}

/* |value| * err, where an exact operand (err 0) adds nothing even beside an
 * infinite value (inf * 0 would make every later bound infinite: a running
 * max that starts at -inf) */
static double scaled(double value, double err) { return err == 0 ? 0 : fabs(value) * err; }

static FV binary(SetOp op, FV a, FV b)
{
	double x = a.v, y = b.v, ea = a.err, eb = b.err, prop = 0;
	float v = 0;
	switch (op) {
	case SX_ADD: v = a.v + b.v, prop = ea + eb; break;
	case SX_SUB: v = a.v - b.v, prop = ea + eb; break;
	case SX_MUL: v = a.v * b.v, prop = scaled(x, eb) + scaled(y, ea) + ea * eb; break;
	case SX_DIV:
		v = a.v / b.v;
		prop = ea + eb == 0 ? 0 : fabs(y) > eb ? (fabs(x) * eb + fabs(y) * ea) / (fabs(y) * (fabs(y) - eb)) : INFINITY;
		break;
	case SX_MAX: case SX_MIN: return fv_max_min(a, b, op == SX_MAX);
	default: break;
	}
	v = canon(v);
	return (FV){v, rounded_err(prop, v)};
}

static bool cond(RefSet *S, const SetNode *n);

static FV eval(RefSet *S, const SetNode *n)
{
	switch (n->op) {
	case SX_LOAD: return operand_value(S, n);
	case SX_SCALAR: return scalar_value(S, n);
	case SX_CONST: return (FV){bits_f(n->bits), 0};
	case SX_FMA: {
		FV a = eval(S, n->a[0]), b = eval(S, n->a[1]), c = eval(S, n->a[2]);
		float v = canon(rm_fmaf(a.v, b.v, c.v));
		double prop = scaled(a.v, b.err) + scaled(b.v, a.err) + a.err * b.err + c.err;
		return (FV){v, rounded_err(prop, v)};
	}
	case SX_SELECT: {
		FV a = eval(S, n->a[1]), b = eval(S, n->a[2]);
		bool outer = S->uncertain;
		S->uncertain = false;
		FV r = cond(S, n->a[0]) ? a : b;
		if (S->uncertain) /* a float condition within its operands' errors: either side */
			r.err = (a.err > b.err ? a.err : b.err) + fabs((double)a.v - (double)b.v);
		S->uncertain = outer;
		return r;
	}
	default: break;
	}
	if (n->op <= SX_EXP2_FTZ)
		return unary(n->op, eval(S, n->a[0]));
	return binary(n->op, eval(S, n->a[0]), eval(S, n->a[1]));
}

static bool cmp_holds(SetCmp c, double a, double b)
{
	switch (c) {
	case CMP_LT: return a < b;
	case CMP_LE: return a <= b;
	case CMP_GT: return a > b;
	case CMP_GE: return a >= b;
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b; /* true when either is NaN */
	}
	return false;
}

static bool cond(RefSet *S, const SetNode *n)
{
	switch (n->op) {
	case SX_FCMP: {
		FV a = eval(S, n->a[0]), b = eval(S, n->a[1]);
		if (a.err + b.err > 0 && !(fabs((double)a.v - (double)b.v) > a.err + b.err))
			S->uncertain = true;
		return cmp_holds(n->cmp, a.v, b.v);
	}
	case SX_ICMP: {
		int64_t v = n->diff.c;
		for (int i = 0; i < n->diff.n; i++)
			v += n->diff.t[i].k * S->vars[n->diff.t[i].var];
		return cmp_holds(n->cmp, (double)v, 0);
	}
	case SX_NOT: return !cond(S, n->a[0]);
	default: { /* both sides evaluated: either may mark the result uncertain */
		bool a = cond(S, n->a[0]), b = cond(S, n->a[1]);
		return n->op == SX_AND ? a && b : a || b;
	}
	}
}

/* e4m3 (bias 7, 3 fraction bits, no infinities, largest 448) or e5m2 (bias
 * 15, 2 bits, largest finite 57344) of f32 v, nearest even, saturated to the
 * largest finite value (cvt.rn.satfinite); NaN is 0x7f */
static uint8_t to_f8(float v, bool e5m2)
{
	int mb = e5m2 ? 2 : 3, emin = e5m2 ? -14 : -6, bias = e5m2 ? 15 : 7;
	double mx = e5m2 ? 57344.0 : 448.0, a = fabs((double)v);
	uint8_t sign = signbit(v) ? 0x80 : 0;
	if (isnan(v))
		return 0x7f;
	int e;
	rm_frexp(a, &e);
	int q = (e - 1 < emin ? emin : e - 1) - mb;
	double r = a == 0 ? 0 : rm_rint(rm_ldexp(a, -q)) * rm_ldexp(1.0, q);
	if (r > mx || isinf(a))
		r = mx;
	if (r < rm_ldexp(1.0, emin)) /* a subnormal or zero: the field counts steps of 2^(emin - mb) */
		return sign | (uint8_t)rm_ldexp(r, mb - emin);
	rm_frexp(r, &e);
	int frac = (int)rm_ldexp(r, mb - (e - 1)) - (1 << mb);
	return sign | (uint8_t)((e - 1 + bias) << mb | frac);
}

/* the error bound in the destination's dtype: the rounding step there */
static double dst_err(DType dt, float v, double err)
{
	if (err == 0)
		return 0;
	double a = fabs((double)v) + err;
	int e, mb = dt == DT_F16 ? 10 : dt == DT_BF16 ? 7 : dt == DT_E4M3 ? 3 : dt == DT_E5M2 ? 2 : 23;
	int emin = dt == DT_F16 ? -14 : dt == DT_E4M3 ? -6 : dt == DT_E5M2 ? -14 : -126;
	rm_frexp(a, &e);
	double step = rm_ldexp(1.0, (e - 1 < emin ? emin : e - 1) - mb);
	return isfinite(err + step) ? err + step : INFINITY;
}

/* the result in the destination's dtype, written at p */
static void store(DType dt, unsigned char *p, float v)
{
	if (dt == DT_F32) {
		memcpy(p, &v, 4);
	} else if (dt == DT_F16 || dt == DT_BF16) {
		uint16_t h = ref_f32_to_half(f_bits(v), dt == DT_BF16);
		memcpy(p, &h, 2);
	} else {
		*p = to_f8(v, dt == DT_E5M2);
	}
}

typedef struct Result {
	unsigned char *p;
	float *err;
	float v;
	double e;
} Result;

/* destination element coord in thread S->thread: its result, when the statement writes it and the thread holds it */
static bool compute_elem(RefSet *S, const int64_t *coord, Result *out)
{
	const SetExpr *e = S->x;
	const Buffer *b = e->dst;
	for (int d = b->ndim - 1; d >= 0; d--) {
		if (e->idx_var[d] < 0 && coord[d] != e->dst_idx[d].c)
			return false;
		if (e->idx_var[d] >= 0)
			S->vars[e->idx_var[d]] = coord[d];
	}
	out->p = S->elem(S->ctx, b, coord, S->thread, &out->err, true);
	if (!out->p)
		return false;
	FV r = eval(S, e->root);
	out->v = r.v;
	out->e = r.err;
	return true;
}

/* thread S->thread's results into res from n: the elements it holds (held's list), else every element */
static int64_t thread_results(RefSet *S, RefHeldFn held, Result *res, int64_t n)
{
	const Buffer *b = S->x->dst;
	int64_t size = 1, cnt = 0, coord[MAX_DIMS] = {0};
	for (int d = 0; d < b->ndim; d++)
		size *= b->shape[d];
	const int64_t *list = held ? held(S->ctx, b, S->thread, &cnt) : NULL;
	if (list) { /* in increasing order: the order of the loop below */
		for (int64_t i = 0; i < cnt; i++) {
			for (int64_t d = b->ndim - 1, x = list[i]; d >= 0; d--)
				coord[d] = x % b->shape[d], x /= b->shape[d];
			n += compute_elem(S, coord, &res[n]);
		}
		return n;
	}
	for (int64_t x = 0; x < size; x++) { /* row-major, the last index fastest (no division per element) */
		n += compute_elem(S, coord, &res[n]);
		for (int d = b->ndim - 1; d >= 0 && ++coord[d] == b->shape[d]; d--)
			coord[d] = 0;
	}
	return n;
}

bool ref_set_run(const Kernel *k, const Stmt *s, int64_t *vars, uint64_t warps, RefElemFn elem, RefHeldFn held,
                 void *ctx)
{
	RefSet S = {k, s->set, vars, 0, elem, ctx, false, false};
	const Buffer *b = s->set->dst;
	int64_t size = 1, n = 0;
	for (int d = 0; d < b->ndim; d++)
		size *= b->shape[d];
	Result *res = malloc(sizeof(Result) * (size_t)(size * k->threads));
	if (!res)
		return false;
	int64_t warpid = vars[VAR_WARPID], wgid = vars[VAR_WGID];
	for (S.thread = 0; S.thread < k->threads; S.thread++) {
		if (!(S.thread / 32 >= 64 || warps >> (S.thread / 32) & 1))
			continue;
		vars[VAR_WARPID] = S.thread / 32;
		vars[VAR_WGID] = S.thread / 128;
		n = thread_results(&S, held, res, n);
	}
	for (int64_t i = 0; i < n; i++) { /* every element read before any is written (in-place) */
		store(b->dt, res[i].p, res[i].v);
		double e = dst_err(b->dt, res[i].v, res[i].e);
		if (res[i].err)
			*res[i].err = (float)(e > 3e38 ? INFINITY : e);
	}
	vars[VAR_WARPID] = warpid;
	vars[VAR_WGID] = wgid;
	free(res);
	return !S.failed;
}
