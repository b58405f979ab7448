/* The reference's own elementary functions (src/ref/set.c): the library
 * links without libm, and the reference depends on nothing but the
 * language's definition. Accurate to a few units of double precision, far
 * inside the f32 bounds they are compared within; sqrtf and fmaf are
 * correctly rounded (IEEE, as sqrt.rn.f32 and fma.rn.f32). */
#include "fmath.h"

#include <stdint.h>
#include <string.h>

static uint64_t rm_bits_of(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static double rm_double_of(uint64_t u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

double rm_ldexp(double x, int e)
{
	while (e > 1000) /* in steps whose powers of two are normal doubles */
		x *= rm_double_of((uint64_t)(1023 + 1000) << 52), e -= 1000;
	while (e < -1000)
		x *= rm_double_of((uint64_t)(1023 - 1000) << 52), e += 1000;
	return x * rm_double_of((uint64_t)(1023 + e) << 52);
}

double rm_frexp(double x, int *e)
{
	*e = 0;
	if (x == 0 || x != x || x - x != 0) /* zero, NaN, inf */
		return x;
	if (((rm_bits_of(x) >> 52) & 0x7ff) == 0) { /* subnormal: scale up first */
		x *= rm_ldexp(1.0, 64);
		*e = -64;
	}
	uint64_t u = rm_bits_of(x);
	*e += (int)((u >> 52) & 0x7ff) - 1022;
	return rm_double_of((u & ~((uint64_t)0x7ff << 52)) | ((uint64_t)1022 << 52));
}

/* x rounded to an integer, ties to even (|x| < 2^52, or returned as is) */
double rm_rint(double x)
{
	double a = x < 0 ? -x : x;
	if (!(a < 4503599627370496.0))
		return x;
	double f = (double)(int64_t)a, d = a - f;
	if (d > 0.5 || (d == 0.5 && ((int64_t)f & 1)))
		f += 1;
	return x < 0 ? -f : f;
}

double rm_sqrt(double x)
{
	if (!(x > 0) || x - x != 0)
		return x == 0 || x - x != 0 ? x : (x < 0 ? (x - x) / (x - x) : x);
	int e;
	double m = rm_frexp(x, &e);
	if (e & 1)
		m *= 2, e--;
	double r = 0.5 + 0.5 * m; /* sqrt(m), m in [0.5, 2): Newton from above */
	for (int i = 0; i < 8; i++)
		r = 0.5 * (r + m / r);
	return rm_ldexp(r, e / 2);
}

/* the f32 nearest sqrt(x), exactly: candidates around the double root,
 * decided by comparing squares (exact in double: 24-bit factors) */
float rm_sqrtf(float x)
{
	if (!(x > 0) || x - x != 0)
		return x == 0 || x - x != 0 ? x : (x - x) / (x - x);
	float r = (float)rm_sqrt((double)x);
	for (int i = 0; i < 2; i++) {
		uint32_t u;
		memcpy(&u, &r, 4);
		uint32_t dn = u - 1, up = u + 1;
		float lo, hi;
		memcpy(&lo, &dn, 4);
		memcpy(&hi, &up, 4);
		double mid_lo = ((double)lo + r) / 2, mid_hi = ((double)hi + r) / 2;
		if (mid_hi * mid_hi < x || (mid_hi * mid_hi == x && (u & 1)))
			r = hi;
		else if (mid_lo * mid_lo > x || (mid_lo * mid_lo == x && (u & 1)))
			r = lo;
	}
	return r;
}

/* a * b + c rounded once: the product is exact in double; the sum's
 * rounding error is known exactly (two-sum), and only a double that lands
 * on an f32 midpoint can round the wrong way after it */
float rm_fmaf(float a, float b, float c)
{
	double p = (double)a * b, s = p + c;
	if (s - s != 0 || s != s)
		return (float)s;
	double bv = s - p, err = (p - (s - bv)) + (c - bv);
	float r = (float)s;
	if (err == 0 || r - r != 0)
		return r;
	uint32_t u;
	memcpy(&u, &r, 4);
	uint32_t nb = ((double)r < s) == (r > 0) ? u + 1 : u - 1; /* the neighbour across s */
	if (r == 0) /* the smallest subnormal on s's side */
		nb = s > 0 ? 1u : 0x80000001u;
	float o;
	memcpy(&o, &nb, 4);
	if (((double)r + o) / 2 != s) /* not a midpoint: s rounded as the exact sum does */
		return r;
	return ((double)o > s) == (err > 0) ? o : r; /* the exact sum lies past the midpoint on err's side */
}

/* 2^x: 2^n times e^(f ln 2) for the nearest integer n, f in [-1/2, 1/2] */
double rm_exp2(double x)
{
	if (x != x)
		return x;
	if (x > 1100)
		return rm_ldexp(1.0, 1100) * 2;
	if (x < -1200)
		return 0;
	double n = rm_rint(x), y = (x - n) * 0.69314718055994530942, t = 1, s = 1;
	for (int i = 1; i < 30; i++)
		t *= y / i, s += t;
	return rm_ldexp(s, (int)n);
}

/* log2(x): e + ln(m) / ln 2 with m in [sqrt(1/2), sqrt(2)), ln(m) = 2 atanh((m - 1) / (m + 1)) */
double rm_log2(double x)
{
	if (x != x || x < 0)
		return (x - x) / (x - x);
	if (x == 0)
		return -rm_ldexp(1.0, 1100) * 2;
	if (x - x != 0)
		return x;
	int e;
	double m = rm_frexp(x, &e);
	if (m < 0.70710678118654752440)
		m *= 2, e--;
	double t = (m - 1) / (m + 1), t2 = t * t, p = t, s = 0;
	for (int i = 1; i < 60; i += 2)
		s += p / i, p *= t2;
	return e + 2 * s / 0.69314718055994530942;
}

/* tanh(x) = em1 / (em1 + 2) with em1 = e^(2x) - 1 (a series near 0, where
 * the subtraction would cancel) */
double rm_tanh(double x)
{
	if (x != x || x == 0) /* NaN, and a zero keeps its sign */
		return x;
	if (x > 20 || x < -20)
		return x > 0 ? 1 : -1;
	double y = 2 * x, em1;
	if (y > -1 && y < 1) {
		double t = 1, s = 0;
		for (int i = 1; i < 30; i++)
			t *= y / i, s += t;
		em1 = s;
	} else {
		em1 = rm_exp2(y / 0.69314718055994530942) - 1;
	}
	return em1 / (em1 + 2);
}
