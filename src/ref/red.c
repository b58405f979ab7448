/* The CPU reference of red.add and red.max (ref.c's hook table names
 * ref_red). */
#include "ref.h"
#include "fmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- red.add, red.max (docs/language.md, "Global reductions: red") ----
 * Each element of the source, once per owner group (replica 0), combined
 * into its param element in the order this reference runs the CTAs: add
 * with f32 round to nearest (subnormals kept), max under the total order
 * of bit patterns. The GPU adds in another order, so an add's result
 * carries an error bound: 0 when every order gives the same sum (all terms,
 * the initial value among them, multiples of 2^q with q >= -126 and the
 * sum of their magnitudes below 2^(24 + q): every partial sum is exact),
 * else 2 gamma(n - 1) S (two orders of n terms of magnitude sum S, each
 * within gamma(n - 1) S of the exact sum) plus n 2^-125 for the flushed
 * subnormals of red.global.add.f32, plus the terms' own bounds. */
typedef struct RedAcc {
	double abs, base; /* sum of |term|; of the terms' bounds */
	int64_t n;        /* terms, the initial value included; 0: untouched */
	int q;            /* lowest set bit's exponent over the terms */
} RedAcc;

static int lsb_exponent(uint32_t u)
{
	uint32_t e = u >> 23 & 0xff, m = u & 0x7fffff;
	if (e)
		m |= 0x800000;
	if (!m)
		return 1 << 20; /* zero: no constraint */
	int z = 0;
	while (!(m >> z & 1))
		z++;
	return (e ? (int)e - 150 : -149) + z;
}

/* prec: the significand's bits (24 f32, 11 f16, 8 bf16); ftz: subnormals flushed (f32 atomics) */
static float red_add_bound(const RedAcc *a, int prec, bool ftz)
{
	if (a->base == 0 && (!ftz || a->q >= -126) && a->abs < rm_ldexp(1.0, prec + (a->q > 200 ? 200 : a->q)))
		return 0;
	double u = rm_ldexp(1.0, -prec), k = (double)(a->n - 1) * u;
	return (float)(a->base + 2 * k / (1 - k) * a->abs + (ftz ? (double)a->n * rm_ldexp(1.0, -125) : 0));
}

static RedAcc *red_acc(RefCta *c, const Buffer *b, const unsigned char *d, float old, float old_err)
{
	if (!c->racc)
		return NULL;
	RedAcc **slot = &c->racc[b->param_index];
	if (!*slot && !(*slot = calloc((size_t)(b->storage ? b->storage : 1), sizeof(RedAcc))))
		return NULL;
	RedAcc *a = &(*slot)[(d - c->params[b->param_index]) / dtype_bytes(b->dt)];
	if (!a->n) {
		uint32_t u;
		memcpy(&u, &old, 4);
		*a = (RedAcc){.abs = fabs((double)old), .base = old_err, .n = 1, .q = lsb_exponent(u)};
	}
	return a;
}

/* one more term x (bits x_bits, error bound *se or none) in the
 * accumulator's count, magnitude sum, inherited error and lowest exponent */
static void red_acc_note(RedAcc *a, uint32_t x_bits, float x, const float *se)
{
	int q = lsb_exponent(x_bits);
	a->n++;
	a->abs += fabs((double)x);
	a->base += se ? *se : 0;
	a->q = q < a->q ? q : a->q;
}

/* red.add into f16 / bf16: the f32 term rounded to the type (the emitted
 * cvt.rn pair), added to the element in f32 (exact for two such values, or
 * off by less than the type's half unit: one rounding to it is then the
 * correctly rounded sum) and rounded to nearest even */
static bool red_apply_half(RefCta *c, const Stmt *s, unsigned char *d, const unsigned char *from)
{
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	bool bf = db->dt == DT_BF16;
	float *se = ref_err_slot(c, sb, from, false), *de = ref_err_slot(c, db, d, false);
	uint16_t vh, r;
	uint32_t xu, vu, tu;
	memcpy(&vh, d, 2);
	memcpy(&xu, from, 4);
	vu = ref_half_to_f32(vh, bf);
	tu = ref_half_to_f32(ref_f32_to_half(xu, bf), bf);
	float v, t;
	memcpy(&v, &vu, 4);
	memcpy(&t, &tu, 4);
	RedAcc *a = red_acc(c, db, d, v, de ? *de : 0);
	if (!a)
		return false;
	float sum = v + t;
	uint32_t su;
	memcpy(&su, &sum, 4);
	r = ref_f32_to_half(su, bf);
	memcpy(d, &r, 2);
	red_acc_note(a, tu, t, se);
	uint32_t ru = ref_half_to_f32(r, bf);
	float rf;
	memcpy(&rf, &ru, 4);
	float bound = red_add_bound(a, bf ? 8 : 11, false);
	if (!isfinite(rf) || !isfinite(t) || !isfinite(bound))
		bound = INFINITY;
	float *slot = ref_err_slot(c, db, d, bound > 0);
	if (slot)
		*slot = bound;
	return true;
}

static bool red_apply(RefCta *c, const Stmt *s, unsigned char *d, const unsigned char *from)
{
	if (s->dst->buf->dt != DT_F32)
		return red_apply_half(c, s, d, from);
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	float v, x, *se = ref_err_slot(c, sb, from, false), *de = ref_err_slot(c, db, d, false);
	uint32_t vu, xu;
	memcpy(&v, d, 4);
	memcpy(&x, from, 4);
	memcpy(&vu, d, 4);
	memcpy(&xu, from, 4);
	float bound;
	if (s->kind == ST_RED_MAX) { /* keys: sign clear above sign set; magnitudes ordered within each */
		uint32_t kv = vu >> 31 ? ~vu : vu | 0x80000000u, kx = xu >> 31 ? ~xu : xu | 0x80000000u;
		if (kx > kv)
			memcpy(d, from, 4);
		bound = (de ? *de : 0) > (se ? *se : 0) ? (de ? *de : 0) : (se ? *se : 0);
	} else {
		RedAcc *a = red_acc(c, db, d, v, de ? *de : 0);
		if (!a)
			return false;
		float sum = v + x;
		memcpy(d, &sum, 4);
		red_acc_note(a, xu, x, se);
		bound = red_add_bound(a, 24, true);
		if (!isfinite(sum) || !isfinite(x) || !isfinite(bound))
			bound = INFINITY;
	}
	float *slot = ref_err_slot(c, db, d, bound > 0);
	if (slot)
		*slot = bound;
	return true;
}

bool ref_red(Ctx *cx, RefCta *c, const Stmt *s)
{
	int64_t elems = ref_region_elems(s->src), inst = ref_owner_threads(c, s->src->buf);
	bool fold = ref_region_elems(s->dst) == 1; /* every element into the one */
	for (int64_t first = 0; first < c->k->threads; first += inst) {
		if (!ref_runs_instance(c, first, inst))
			continue;
		ref_enter_instance(c, first);
		for (int64_t x = 0; x < elems; x++) {
			unsigned char *d = ref_place(c, s->dst, fold ? 0 : x, first), *from = ref_place(c, s->src, x, first);
			if (d && from && !red_apply(c, s, d, from)) {
				diag_error(cx, s->loc, "the reference ran out of memory");
				return false;
			}
		}
		c->bytes += elems * 4;
	}
	return true;
}

