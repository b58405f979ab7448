/* ptxemu's f32 compute instructions (tools/ptxemu_float.c) against
 * references of this file's own, none of which uses binary32 arithmetic:
 * - add, sub, mul, div, sqrt: the double result rounded once to f32
 *   (double has 53 >= 2 * 24 + 2 bits, so the double rounding is innocuous
 *   for these five operations: Figueroa, "When is double rounding
 *   innocuous?", 1995);
 * - fma: a*b exact in double (48 bits), then the exact sum a*b + c as a
 *   double-double (TwoSum), rounded once to f32 (a double that lies exactly
 *   on an f32 midpoint is nudged one double ulp towards the low part);
 * - max/min, setp, abs/neg/selp and the fp8 conversions from their
 *   definitions in the PTX ISA (docs/ptx-notes.md).
 * Inputs: every pair/triple of a list of special values (zeros, subnormals,
 * normal limits, infinities, NaNs with payloads), millions of random bit
 * patterns, and constructed halfway cases for fma. */
#include "unit.h"

#include <float.h>
#include <math.h>

#include "../../tools/ptxemu_float.c"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd32(void) /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static double dval(uint32_t u) { return (double)as_float(u); }

/* the f32 pattern of double d rounded once (a NaN: the canonical one) */
static uint32_t round_f32(double d)
{
	if (isnan(d))
		return PTXEMU_CANONICAL_NAN;
	float f = (float)d;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static const uint32_t specials[] = {
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff, 0x00400000,
	0x00800000, 0x80800000, 0x00800001, 0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff, 0x40000000,
	0x3f000000, 0x33800000, 0x34000000, 0x4b800000, 0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000,
	0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fbfffff, 0x7fffffff, 0x1f800000, 0x5f800000,
	0x40490fdb, 0xc2f00000, 0x42fe0000, 0xc3160000, 0x0c000000, 0x72800000,
};
enum { NSPECIAL = sizeof specials / sizeof *specials };

static uint32_t ref_binary(int kind, uint32_t a, uint32_t b)
{
	double x = dval(a), y = dval(b);
	switch (kind) {
	case FOP_ADD: return round_f32(x + y);
	case FOP_SUB: return round_f32(x - y);
	case FOP_MUL: return round_f32(x * y);
	case FOP_DIV: return round_f32(x / y);
	default: return round_f32(sqrt(x)); /* FOP_SQRT */
	}
}

/* fma's reference: a*b + c exactly as s + e (TwoSum), rounded once */
static uint32_t ref_fma(uint32_t a, uint32_t b, uint32_t c)
{
	double p = dval(a) * dval(b), z = dval(c); /* p exact: 48 significant bits at most */
	double s = p + z;
	if (!isfinite(p) || !isfinite(z) || !isfinite(s))
		return round_f32(s);
	double bb = s - p, e = (p - (s - bb)) + (z - bb); /* Knuth's TwoSum: p + z = s + e exactly */
	float f = (float)s;
	if (e != 0 && (double)f != s) { /* s on an f32 midpoint: the low part decides */
		float lo = isinf(f) ? copysignf(FLT_MAX, f) : f;
		float other = nextafterf(lo, s > (double)lo ? INFINITY : -INFINITY);
		if (isfinite(other) && ((double)lo + (double)other) / 2 == s)
			return round_f32(nextafter(s, e > 0 ? INFINITY : -INFINITY));
		if (isinf(other) && fabs(s) == (double)FLT_MAX + ldexp(1.0, 103)) /* the overflow midpoint */
			return round_f32(nextafter(s, e > 0 ? INFINITY : -INFINITY));
	}
	return round_f32(s);
}

static FloatOp op(const char *name)
{
	FloatOp o = ptxemu_float_decode(name);
	CHECK(o.kind != 0, "%s decodes", name);
	return o;
}

static int check_fma(uint32_t a, uint32_t b, uint32_t c)
{
	static FloatOp fma_op;
	if (!fma_op.kind)
		fma_op = op("fma.rn.f32");
	uint32_t got = ptxemu_float_exec(fma_op, a, b, c), want = ref_fma(a, b, c);
	if (got != want)
		fprintf(stderr, "fma(%08x, %08x, %08x) = %08x, want %08x\n", a, b, c, got, want);
	return got == want;
}

static void test_arith(void)
{
	static const char *names[] = {"add.rn.f32", "sub.rn.f32", "mul.rn.f32", "div.rn.f32", "sqrt.rn.f32"};
	for (int k = 0; k < 5; k++) {
		FloatOp o = op(names[k]);
		int bad = 0;
		for (int i = 0; i < NSPECIAL; i++)
			for (int j = 0; j < NSPECIAL; j++)
				bad += ptxemu_float_exec(o, specials[i], specials[j], 0) != ref_binary(o.kind, specials[i], specials[j]);
		for (int n = 0; n < 2000000; n++) {
			uint32_t a = rnd32(), b = rnd32();
			if (n & 1) /* operands of close magnitudes too: cancellation, subnormal results */
				b = (b & 0x807fffffu) | (a & 0x7f800000u);
			uint32_t got = ptxemu_float_exec(o, a, b, 0), want = ref_binary(o.kind, a, b);
			if (got != want && bad++ < 5)
				fprintf(stderr, "%s(%08x, %08x) = %08x, want %08x\n", names[k], a, b, got, want);
		}
		CHECK(bad == 0, "%s: %d results differ from the double reference", names[k], bad);
	}
}

static void test_fma(void)
{
	int bad = 0, n = 0;
	for (int i = 0; i < NSPECIAL; i++) /* every triple of special values */
		for (int j = 0; j < NSPECIAL; j++)
			for (int k = 0; k < NSPECIAL; k++, n++)
				bad += !check_fma(specials[i], specials[j], specials[k]);
	for (int r = 0; r < 3000000; r++, n++) { /* random patterns; every third with c near a*b's magnitude */
		uint32_t a = rnd32(), b = rnd32(), c = rnd32();
		if (r % 3 == 1) {
			float p = as_float(a) * as_float(b);
			uint32_t pu;
			memcpy(&pu, &p, 4);
			c = (c & 0x80ffffffu) ^ (pu & 0x7f000000u);
		} else if (r % 3 == 2) { /* small exponents: subnormal products and sums */
			a = (a & 0x81ffffffu) | 0x1e000000u;
			b = (b & 0x81ffffffu) | 0x1e000000u;
			c &= 0x80ffffffu;
		}
		bad += !check_fma(a, b, c);
	}
	/* halfway cases: (1 + k 2^-12)(1 + l 2^-12) has up to 26 bits, often an
	 * exact f32 midpoint; c = 0 (ties to even) or one tiny value (the tie broken) */
	static const uint32_t tiny[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x2f800000, 0xaf800000};
	for (int r = 0; r < 200000; r++)
		for (int t = 0; t < 6; t++, n++) {
			uint32_t a = 0x3f800000u | (rnd32() & 0xfff) << 11, b = 0x3f800000u | (rnd32() & 0xfff) << 11;
			a |= rnd32() & 0x80000000u;
			bad += !check_fma(a, b, tiny[t]);
		}
	/* c plus a power of two at half c's ulp, times 1 and 1 +- 2^-23 */
	for (int r = 0; r < 200000; r++, n++) {
		uint32_t c = (rnd32() & 0x807fffffu) | (0x20000000u + (rnd32() % 0x3f000000u & 0x7f800000u));
		int ce = (int)(c >> 23 & 0xff);
		uint32_t a = (uint32_t)(ce - 24) << 23 | (rnd32() & 0x80000000u); /* 2^(e - 24 - 127 + 127): half an ulp */
		static const uint32_t ones[] = {0x3f800000, 0x3f800001, 0x3f7fffff};
		bad += !check_fma(a, ones[r % 3], c);
	}
	CHECK(bad == 0, "fma: %d of %d results differ from the double-double reference", bad, n);
	/* the reference itself on known answers: one rounding, not two */
	CHECK(ref_fma(0x3f800001, 0x3f7fffff, 0xbf800000) == 0x337ffffe, "(1+2^-23)(1-2^-24) - 1: one rounding (two give 0)");
	CHECK(ref_fma(0x3f800800, 0x3f800800, 0x00000000) == 0x3f801000, "(1+2^-12)^2: a tie, to even");
	CHECK(ref_fma(0x3f800800, 0x3f800800, 0x00000001) == 0x3f801001, "the tie broken upwards by the subnormal");
	CHECK(ref_fma(0x7f7fffff, 0x3f800000, 0x73000000) == 0x7f800000, "FLT_MAX + half its ulp: to even, inf");
	CHECK(ref_fma(0x7f7fffff, 0x3f800000, 0x72ffffff) == 0x7f7fffff, "just below the overflow midpoint");
	CHECK(ref_fma(0x3f800000, 0x00000000, 0x80000000) == 0x00000000, "1 * 0 + -0 = +0");
	CHECK(ref_fma(0x80000000, 0x3f800000, 0x80000000) == 0x80000000, "-0 * 1 + -0 = -0");
}

static void test_max_min_abs_neg(void)
{
	FloatOp mx = op("max.f32"), mn = op("min.f32"), ab = op("abs.f32"), ng = op("neg.f32"), mv = op("mov.f32");
	CHECK(ptxemu_float_exec(mx, 0x7fc00000, 0x3f800000, 0) == 0x3f800000, "max(NaN, 1) = 1");
	CHECK(ptxemu_float_exec(mn, 0xbf800000, 0xffc00001, 0) == 0xbf800000, "min(-1, NaN) = -1");
	CHECK(ptxemu_float_exec(mx, 0x7fc00000, 0xff800001, 0) == 0x7fffffff, "max(NaN, NaN) canonical");
	CHECK(ptxemu_float_exec(mx, 0x80000000, 0x00000000, 0) == 0x00000000, "max(-0, +0) = +0");
	CHECK(ptxemu_float_exec(mx, 0x00000000, 0x80000000, 0) == 0x00000000, "max(+0, -0) = +0");
	CHECK(ptxemu_float_exec(mn, 0x00000000, 0x80000000, 0) == 0x80000000, "min(+0, -0) = -0");
	CHECK(ptxemu_float_exec(mn, 0x80000000, 0x80000000, 0) == 0x80000000, "min(-0, -0) = -0");
	CHECK(ptxemu_float_exec(ng, 0x7fc00123, 0, 0) == 0xffc00123, "neg keeps the NaN payload");
	CHECK(ptxemu_float_exec(ab, 0xff800001, 0, 0) == 0x7f800001, "abs keeps the NaN payload");
	CHECK(ptxemu_float_exec(mv, 0xff800001, 0, 0) == 0xff800001, "mov.f32 moves bits");
	int bad = 0;
	for (int i = 0; i < NSPECIAL; i++)
		for (int j = 0; j < NSPECIAL; j++) {
			double x = dval(specials[i]), y = dval(specials[j]);
			uint32_t M = ptxemu_float_exec(mx, specials[i], specials[j], 0);
			uint32_t m = ptxemu_float_exec(mn, specials[i], specials[j], 0);
			if (isnan(x) || isnan(y)) {
				uint32_t other = isnan(x) ? specials[j] : specials[i];
				bad += (isnan(x) && isnan(y)) ? (M != 0x7fffffffu || m != 0x7fffffffu) : (M != other || m != other);
			} else if (x != y) {
				bad += dval(M) != fmax(x, y) || dval(m) != fmin(x, y);
			} else { /* equal values: only zeros differ, by their sign */
				bad += (M >> 31) != ((specials[i] & specials[j]) >> 31) || (m >> 31) != ((specials[i] | specials[j]) >> 31);
			}
			bad += ptxemu_float_exec(ab, specials[i], 0, 0) != (specials[i] & 0x7fffffffu);
			bad += ptxemu_float_exec(ng, specials[i], 0, 0) != (specials[i] ^ 0x80000000u);
		}
	CHECK(bad == 0, "max/min/abs/neg over the special values: %d wrong", bad);
}

static void test_setp_selp(void)
{
	static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
	int bad = 0;
	for (int c = 0; c < 14; c++) {
		char name[32];
		snprintf(name, sizeof name, "setp.%s.f32", names[c]);
		FloatOp o = op(name);
		for (int i = 0; i < NSPECIAL; i++)
			for (int j = 0; j < NSPECIAL; j++) {
				double x = dval(specials[i]), y = dval(specials[j]);
				bool un = isnan(x) || isnan(y), want;
				bool rel[6] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
				want = c < 6 ? !un && rel[c] : c < 12 ? un || rel[c - 6] : c == 12 ? !un : un;
				bad += ptxemu_float_exec(o, specials[i], specials[j], 0) != (uint32_t)want;
			}
	}
	CHECK(bad == 0, "setp over the special values: %d wrong", bad);
	CHECK(ptxemu_float_decode("setp.lt.u32").kind == 0, "setp.lt.u32 is no f32 form");
	CHECK(ptxemu_float_decode("setp.ltx.f32").kind == 0, "setp.ltx.f32 is no form");
	FloatOp s = op("selp.b32"), sf = op("selp.f32");
	CHECK(ptxemu_float_exec(s, 0x11, 0x22, 1) == 0x11 && ptxemu_float_exec(sf, 0x11, 0x22, 0) == 0x22,
	      "selp: c ? a : b");
}

/* fp8's reference: the nearest code by search over every finite code (ties: even), NaN 0x7f */
static double fp8_value(unsigned code, bool e5)
{
	int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7;
	unsigned e = code >> mb & (e5 ? 31 : 15), m = code & ((1u << mb) - 1);
	double v = e ? ldexp((double)(m | 1u << mb), (int)e - bias - mb) : ldexp((double)m, 1 - bias - mb);
	return code & 0x80 ? -v : v;
}

static uint8_t fp8_nearest(uint32_t u, bool e5)
{
	double x = dval(u);
	if (isnan(x))
		return 0x7f;
	unsigned maxcode = e5 ? 0x7b : 0x7e, best = 0;
	double bestd = INFINITY;
	if (fabs(x) >= fp8_value(maxcode, e5))
		return (uint8_t)(maxcode | (u >> 31 << 7));
	for (unsigned c = 0; c <= maxcode; c++) {
		double d = fabs(fabs(x) - fp8_value(c, e5));
		if (d < bestd || (d == bestd && !(c & 1))) {
			best = c;
			bestd = d;
		}
	}
	return (uint8_t)(best | (u >> 31 << 7));
}

static void test_fp8(void)
{
	int bad = 0, n = 0;
	for (int e5 = 0; e5 < 2; e5++) {
		for (unsigned c = 0; c < 256; c++) { /* every code, its midpoints with the next, one f32 ulp either side */
			double v = fp8_value(c, e5), w = fp8_value(c + 1 < 256 ? c + 1 : c, e5);
			float cand[5] = {(float)v, (float)((v + w) / 2), 0, 0, 0};
			cand[2] = nextafterf(cand[1], INFINITY);
			cand[3] = nextafterf(cand[1], -INFINITY);
			cand[4] = nextafterf(cand[0], INFINITY);
			for (int k = 0; k < 5; k++, n++) {
				uint32_t u;
				memcpy(&u, &cand[k], 4);
				bad += ptxemu_cvt_fp8_satfinite(u, e5) != fp8_nearest(u, e5);
			}
		}
		for (uint64_t u = 0; u < (1ull << 32); u += 65537, n++)
			bad += ptxemu_cvt_fp8_satfinite((uint32_t)u, e5) != fp8_nearest((uint32_t)u, e5);
	}
	CHECK(bad == 0, "fp8 satfinite: %d of %d differ from the nearest-code search", bad, n);
	FloatOp o4 = op("cvt.rn.satfinite.e4m3x2.f32"), o5 = op("cvt.rn.satfinite.e5m2x2.f32");
	CHECK(ptxemu_float_exec(o4, 0x3f800000, 0xc0000000, 0) == 0x38c0, "e4m3x2(1, -2): the first source high");
	CHECK(ptxemu_float_exec(o4, 0x7f800000, 0xff800000, 0) == 0x7efe, "e4m3x2(inf, -inf) = +-448");
	CHECK(ptxemu_float_exec(o5, 0x7f800000, 0x7fc00000, 0) == 0x7b7f, "e5m2x2(inf, NaN) = 57344, NaN");
	CHECK(ptxemu_float_exec(o4, 0x43e80000, 0x43e00000, 0) == 0x7e7e, "464 (past 448's tie) saturates to 448");
}

static void test_immediates(void)
{
	uint32_t u = 0;
	CHECK(ptxemu_float_immediate("0f3F800000", &u) && u == 0x3f800000, "0f3F800000");
	CHECK(ptxemu_float_immediate("0fFF800000", &u) && u == 0xff800000, "0fFF800000: -inf");
	CHECK(ptxemu_float_immediate("0d3FF0000000000000", &u) && u == 0x3f800000, "0d: 1.0");
	CHECK(ptxemu_float_immediate("0.5", &u) && u == 0x3f000000, "0.5");
	CHECK(ptxemu_float_immediate("1e-3", &u) && u == 0x3a83126f, "1e-3 rounded to f32");
	CHECK(!ptxemu_float_immediate("17", &u) && !ptxemu_float_immediate("0x1f", &u) && !ptxemu_float_immediate("%f1", &u),
	      "integers and registers are no float immediates");
}

int main(void)
{
	test_arith();
	test_fma();
	test_max_min_abs_neg();
	test_setp_selp();
	test_fp8();
	test_immediates();
	UNIT_END();
}
