/* ptxemu's f32 compute instructions (emu/ptxemu_float.c) against
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

#include "../../emu/ptxemu_float.c"

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

/* the .approx instructions' special values: the PTX ISA's tables
 * (docs/ptx-notes.md section 13), a NaN result canonical */
static const struct {
	const char *op;
	uint32_t x, y;
} approx_specials[] = {
	{"ex2.approx.f32", 0xff800000, 0x00000000},   {"ex2.approx.f32", 0x80000000, 0x3f800000},
	{"ex2.approx.f32", 0x00000000, 0x3f800000},   {"ex2.approx.f32", 0x7f800000, 0x7f800000},
	{"ex2.approx.f32", 0x7fc00000, 0x7fffffff},   {"lg2.approx.f32", 0xff800000, 0x7fffffff},
	{"lg2.approx.f32", 0xbf800000, 0x7fffffff},   {"lg2.approx.f32", 0x80000000, 0xff800000},
	{"lg2.approx.f32", 0x00000000, 0xff800000},   {"lg2.approx.f32", 0x7f800000, 0x7f800000},
	{"lg2.approx.f32", 0xffc00001, 0x7fffffff},   {"rcp.approx.f32", 0xff800000, 0x80000000},
	{"rcp.approx.f32", 0x80000000, 0xff800000},   {"rcp.approx.f32", 0x00000000, 0x7f800000},
	{"rcp.approx.f32", 0x7f800000, 0x00000000},   {"rcp.approx.f32", 0x7fc00000, 0x7fffffff},
	{"rsqrt.approx.f32", 0xff800000, 0x7fffffff}, {"rsqrt.approx.f32", 0xbf800000, 0x7fffffff},
	{"rsqrt.approx.f32", 0x80000000, 0xff800000}, {"rsqrt.approx.f32", 0x00000000, 0x7f800000},
	{"rsqrt.approx.f32", 0x7f800000, 0x00000000}, {"rsqrt.approx.f32", 0x7fc00000, 0x7fffffff},
	{"tanh.approx.f32", 0xff800000, 0xbf800000},  {"tanh.approx.f32", 0x80000000, 0x80000000},
	{"tanh.approx.f32", 0x00000000, 0x00000000},  {"tanh.approx.f32", 0x7f800000, 0x3f800000},
	{"tanh.approx.f32", 0x7fc00000, 0x7fffffff},  {"tanh.approx.f32", 0x00000001, 0x00000001},
	{"tanh.approx.f32", 0x807fffff, 0x807fffff},
};


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
	CHECK(ptxemu_float_exec(ng, 0x7fc00123, 0, 0) == 0x7fffffff, "neg of a NaN: the canonical NaN");
	CHECK(ptxemu_float_exec(ab, 0xff800001, 0, 0) == 0x7fffffff, "abs of a NaN: the canonical NaN");
	CHECK(ptxemu_float_exec(ng, 0x80000000, 0, 0) == 0 && ptxemu_float_exec(ab, 0xff800000, 0, 0) == 0x7f800000,
	      "neg -0 = +0, abs -inf = +inf");
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
			bool nan = isnan(dval(specials[i]));
			bad += ptxemu_float_exec(ab, specials[i], 0, 0) != (nan ? 0x7fffffffu : specials[i] & 0x7fffffffu);
			bad += ptxemu_float_exec(ng, specials[i], 0, 0) != (nan ? 0x7fffffffu : specials[i] ^ 0x80000000u);
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
	CHECK(ptxemu_float_decode("setp.lt.b32").kind == 0 && ptxemu_float_decode("setp.ltu.s32").kind == 0, "setp.lt.b32, setp.ltu.s32 are no forms");
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

/* the documented bound B(x) of docs/ptx-notes.md section 13, in long double */
static long double approx_bound(int kind, long double x, long double f)
{
	switch (kind) {
	case FOP_EX2: return exp2l(-21.5L) * f + exp2l(-147);
	case FOP_LG2: return exp2l(-22) * fmaxl(1, fabsl(f));
	case FOP_RCP: return exp2l(-22.4L) * fabsl(f) + 1.5L * exp2l(-149);
	case FOP_RSQRT: return exp2l(-22.9L) * f;
	default: return exp2l(-11) * fabsl(f); /* FOP_TANH */
	}
	(void)x;
}

/* the emulator's .approx results: inside the documented bound of the exact
 * value (long double libm) for random inputs of every binade, and the
 * special values of the PTX ISA's tables */
static void test_approx(void)
{
	static const char *names[] = {"ex2.approx.f32", "lg2.approx.f32", "rcp.approx.f32", "rsqrt.approx.f32", "tanh.approx.f32"};
	int bad = 0, n = 0;
	for (int k = 0; k < 5; k++) {
		FloatOp o = op(names[k]);
		for (int r = 0; r < 400000; r++, n++) {
			uint32_t u = rnd32();
			if (o.kind == FOP_EX2 || o.kind == FOP_TANH)
				u = (u & 0x807fffffu) | (u >> 23 & 0xff) % 135 << 23;
			else if (o.kind != FOP_RCP)
				u &= 0x7fffffffu;
			if ((u & 0x7f800000u) == 0x7f800000u || !(u & 0x7fffffffu))
				continue;
			long double x = dval(u), f;
			switch (o.kind) {
			case FOP_EX2: f = exp2l(x); break;
			case FOP_LG2: f = log2l(x); break;
			case FOP_RCP: f = 1 / x; break;
			case FOP_RSQRT: f = 1 / sqrtl(x); break;
			default: f = tanhl(x); break;
			}
			float y = as_float(ptxemu_float_exec(o, u, 0, 0));
			bool in = fabsl((long double)y - f) <= approx_bound(o.kind, x, f) ||
			          (isinf(y) && fabsl(f) + approx_bound(o.kind, x, f) >= exp2l(128) && !signbit(y) == !signbit(f));
			if (!in && bad++ < 5)
				fprintf(stderr, "%s(%08x) = %a, exact %La\n", names[k], u, (double)y, f);
		}
	}
	CHECK(bad == 0, ".approx: %d of %d emulated results outside the documented bound", bad, n);
	bad = 0;
	for (size_t i = 0; i < sizeof approx_specials / sizeof *approx_specials; i++)
		bad += ptxemu_float_exec(op(approx_specials[i].op), approx_specials[i].x, 0, 0) != approx_specials[i].y;
	CHECK(bad == 0, ".approx special values: %d differ from the PTX ISA's tables", bad);
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

/* The cases tests/gpu/float_exact_*.tile check on the GPU (and in ptxemu):
 * an instruction on constant inputs and the result this file's references
 * give. Generated by `build/tests/test_ptxemu_float --tile arith|misc`. */
enum { F_UN, F_BIN, F_FMA, F_SETP, F_SELP, F_CVT8, F_BF16, F_PRMT, F_SWAP16, F_NOTP };
typedef struct Case {
	const char *op;
	int form;
	uint32_t a, b, c, want;
} Case;
enum { MAXCASES = 320, APPROX_THREADS = 256, APPROX_GPU_ITERS = 65536, SWEEP_GPU_ITERS = 16384 };

static uint32_t fmax_ref(uint32_t a, uint32_t b, bool is_max) /* the PTX ISA's max_num/min_num */
{
	double x = dval(a), y = dval(b);
	if (isnan(x) && isnan(y))
		return PTXEMU_CANONICAL_NAN;
	if (isnan(x) || isnan(y))
		return isnan(x) ? b : a;
	if (x == y && x == 0) /* +0 > -0 */
		return is_max ? ((a >> 31) && (b >> 31) ? 0x80000000u : 0) : ((a >> 31) || (b >> 31) ? 0x80000000u : 0);
	return (is_max ? x > y : x < y) ? a : b;
}

/* prmt.b32 (default mode): the bytes of {b, a} numbered 0-7 from a's low
 * byte; selector nibble i picks d's byte i, its top bit replicating the
 * picked byte's sign */
static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c)
{
	unsigned char bytes[8];
	for (int i = 0; i < 4; i++) {
		bytes[i] = (unsigned char)(a >> (8 * i));
		bytes[4 + i] = (unsigned char)(b >> (8 * i));
	}
	uint32_t d = 0;
	for (int i = 0; i < 4; i++) {
		unsigned sel = c >> (4 * i) & 15, v = bytes[sel & 7];
		if (sel & 8)
			v = v >= 0x80 ? 0xff : 0;
		d |= v << (8 * i);
	}
	return d;
}

static uint32_t reference(const Case *k)
{
	if (!strcmp(k->op, "prmt.b32"))
		return prmt_ref(k->a, k->b, k->c);
	if (k->form == F_SWAP16) /* mov.b32 {lo, hi}, a; mov.b32 d, {hi, lo} */
		return k->a >> 16 | k->a << 16;
	if (k->form == F_NOTP)
		return k->a == 0;
	if (!strncmp(k->op, "setp.", 5) && (strstr(k->op, ".s32") || strstr(k->op, ".u32"))) {
		static const char *ic[] = {"eq", "ne", "lt", "le", "gt", "ge"};
		bool sgn = strstr(k->op, ".s32") != NULL;
		long long x = sgn ? (int32_t)k->a : (long long)k->a, y = sgn ? (int32_t)k->b : (long long)k->b;
		bool rel[6] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
		for (int c = 0; c < 6; c++)
			if (!strncmp(k->op + 5, ic[c], strlen(ic[c])) && k->op[5 + strlen(ic[c])] == '.')
				return rel[c];
	}
	for (size_t i = 0; i < sizeof approx_specials / sizeof *approx_specials; i++)
		if (!strcmp(k->op, approx_specials[i].op) && k->a == approx_specials[i].x)
			return approx_specials[i].y;
	static const char *cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
	const char *op = k->op;
	double x = dval(k->a), y = dval(k->b);
	if (!strcmp(op, "add.rn.f32")) return ref_binary(FOP_ADD, k->a, k->b);
	if (!strcmp(op, "sub.rn.f32")) return ref_binary(FOP_SUB, k->a, k->b);
	if (!strcmp(op, "mul.rn.f32")) return ref_binary(FOP_MUL, k->a, k->b);
	if (!strcmp(op, "div.rn.f32")) return ref_binary(FOP_DIV, k->a, k->b);
	if (!strcmp(op, "sqrt.rn.f32")) return ref_binary(FOP_SQRT, k->a, 0);
	if (!strcmp(op, "fma.rn.f32")) return ref_fma(k->a, k->b, k->c);
	if (!strcmp(op, "max.f32") || !strcmp(op, "min.f32")) return fmax_ref(k->a, k->b, op[1] == 'a');
	if (!strcmp(op, "abs.f32")) return isnan(x) ? PTXEMU_CANONICAL_NAN : k->a & 0x7fffffffu;
	if (!strcmp(op, "neg.f32")) return isnan(x) ? PTXEMU_CANONICAL_NAN : k->a ^ 0x80000000u;
	if (!strcmp(op, "selp.f32") || !strcmp(op, "selp.b32")) return k->c ? k->a : k->b;
	if (!strcmp(op, "cvt.rn.f32.u32")) return round_f32((double)k->a);
	if (!strcmp(op, "cvt.rn.f32.s32")) return round_f32((double)(int32_t)k->a);
	if (!strcmp(op, "cvt.f32.bf16")) return (k->a & 0xffff) << 16; /* bits unchanged, a NaN too (the H200 run of float_exact_misc) */
	if (!strncmp(op, "cvt.rn.satfinite.e", 18)) {
		bool e5 = op[18] == '5';
		return (uint32_t)fp8_nearest(k->a, e5) << 8 | fp8_nearest(k->b, e5);
	}
	for (int c = 0; c < 14; c++) { /* setp.CMP.f32 */
		char name[32];
		snprintf(name, sizeof name, "setp.%s.f32", cmps[c]);
		if (!strcmp(op, name)) {
			bool un = isnan(x) || isnan(y), rel[6] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
			return c < 6 ? !un && rel[c] : c < 12 ? un || rel[c - 6] : c == 12 ? !un : un;
		}
	}
	return 0xdeadbeefu;
}

static void add_case(Case *cs, int *n, const char *op, int form, uint32_t a, uint32_t b, uint32_t c)
{
	if (*n < MAXCASES)
		cs[(*n)++] = (Case){op, form, a, b, c, 0};
}

/* add, sub, mul, div, sqrt, fma: special values, subnormal results,
 * overflow, cancellation, ties, the double-rounding cases of fma */
static int arith_cases(Case *cs)
{
	int n = 0;
	rng_state = 0x2545f4914f6cdd1dull; /* the same cases in every run */
	static const uint32_t vals[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000,
	                                0xbf800001, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00001, 0xffbfffff};
	static const char *bin[] = {"add.rn.f32", "sub.rn.f32", "mul.rn.f32", "div.rn.f32"};
	for (int o = 0; o < 4; o++) {
		for (int i = 0; i < 12; i++) /* a diagonal and an off-diagonal of the special values */
			add_case(cs, &n, bin[o], F_BIN, vals[i], vals[(i * 5 + o) % 12], 0);
		for (int r = 0; r < 14; r++) {
			uint32_t a = rnd32(), b = rnd32();
			if (r % 2)
				b = (b & 0x807fffffu) | (a & 0x7f800000u);
			else if (r % 4 == 0) { /* subnormal territory */
				a &= 0x81ffffffu;
				b = (b & 0x80ffffffu) | 0x3e000000u;
			}
			add_case(cs, &n, bin[o], F_BIN, a, b, 0);
		}
	}
	add_case(cs, &n, "add.rn.f32", F_BIN, 0x3f800000, 0x33800000, 0); /* 1 + 2^-24: a tie, to even */
	add_case(cs, &n, "add.rn.f32", F_BIN, 0x3f800001, 0x33800000, 0); /* a tie, up to even */
	add_case(cs, &n, "sub.rn.f32", F_BIN, 0x00800000, 0x007fffff, 0);  /* normal - subnormal = min subnormal */
	add_case(cs, &n, "mul.rn.f32", F_BIN, 0x00800000, 0x3f000000, 0);  /* halving into the subnormals */
	add_case(cs, &n, "mul.rn.f32", F_BIN, 0x00000001, 0x3f000000, 0);  /* a tie at zero: +0 */
	add_case(cs, &n, "mul.rn.f32", F_BIN, 0x00000003, 0x3f000000, 0);  /* 1.5 subnormal ulps: to even, 2 */
	add_case(cs, &n, "div.rn.f32", F_BIN, 0x3f800000, 0x40400000, 0);  /* 1/3 */
	add_case(cs, &n, "div.rn.f32", F_BIN, 0x00000001, 0x40000000, 0);  /* min subnormal / 2: tie to +0 */
	add_case(cs, &n, "div.rn.f32", F_BIN, 0x7f7fffff, 0x3f000000, 0);  /* overflow */
	add_case(cs, &n, "div.rn.f32", F_BIN, 0x00800000, 0x7f7fffff, 0);  /* a tiny quotient */
	static const uint32_t roots[] = {0x00000000, 0x80000000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
	                                 0x00000001, 0x00000002, 0x007fffff, 0x40000000, 0x3f800001, 0x7f7fffff};
	for (int i = 0; i < 12; i++)
		add_case(cs, &n, "sqrt.rn.f32", F_UN, roots[i], 0, 0);
	for (int r = 0; r < 12; r++)
		add_case(cs, &n, "sqrt.rn.f32", F_UN, rnd32() & 0x7fffffffu, 0, 0);
	for (int i = 0; i < 12; i++) /* fma: special triples */
		add_case(cs, &n, "fma.rn.f32", F_FMA, vals[i], vals[(i * 7 + 3) % 12], vals[(i * 5 + 1) % 12]);
	static const uint32_t fixed[][3] = {
		{0x3f800001, 0x3f7fffff, 0xbf800000}, /* one rounding: 2^-24 - 2^-47, two: 0 */
		{0x3f800800, 0x3f800800, 0x00000000}, /* (1 + 2^-12)^2: a tie, to even */
		{0x3f800800, 0x3f800800, 0x00000001}, /* the tie broken by a subnormal */
		{0x3f800800, 0x3f800800, 0x80000001}, /* ... and the other way */
		{0x7f7fffff, 0x3f800000, 0x73000000}, /* FLT_MAX + half its ulp: inf */
		{0x7f7fffff, 0x3f800000, 0x72ffffff}, /* just below: FLT_MAX */
		{0x3f800000, 0x00000000, 0x80000000}, /* 1 * 0 + -0 = +0 */
		{0x80000000, 0x3f800000, 0x80000000}, /* -0 * 1 + -0 = -0 */
		{0x3f800000, 0x3f800000, 0xbf800000}, /* exact zero: +0 */
		{0x7f800000, 0x00000000, 0x3f800000}, /* inf * 0: NaN */
		{0x7f800000, 0x3f800000, 0xff800000}, /* inf - inf: NaN */
		{0x1f800000, 0x1f800000, 0x00000001}, /* a subnormal product plus one */
		{0x20000001, 0x1f7fffff, 0x80000000}, /* a product in the subnormal range, rounded once */
		{0x00ffffff, 0x3f000000, 0x00000000}, /* halving a normal into the subnormals: a tie */
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		add_case(cs, &n, "fma.rn.f32", F_FMA, fixed[i][0], fixed[i][1], fixed[i][2]);
	while (n < 216) { /* halfway products, random triples */
		uint32_t a = 0x3f800000u | (rnd32() & 0xfff) << 11, b = 0x3f800000u | (rnd32() & 0xfff) << 11;
		add_case(cs, &n, "fma.rn.f32", F_FMA, a | (rnd32() & 0x80000000u), b, (n % 3) ? 0 : 0x33000000u);
		uint32_t x = rnd32(), y = rnd32(), z = rnd32();
		float p = as_float(x) * as_float(y);
		uint32_t pu;
		memcpy(&pu, &p, 4);
		add_case(cs, &n, "fma.rn.f32", F_FMA, x, y, (z & 0x80ffffffu) ^ (pu & 0x7f000000u));
	}
	return n;
}

/* max, min, abs, neg, setp, selp, the fp8 and int/bf16 conversions */
static int misc_cases(Case *cs)
{
	int n = 0;
	rng_state = 0x6a09e667f3bcc909ull;
	static const uint32_t mm[][2] = {
		{0x7fc00000, 0x3f800000}, {0xbf800000, 0xffc00001}, {0x7fc00000, 0xff800001}, {0x80000000, 0x00000000},
		{0x00000000, 0x80000000}, {0x80000000, 0x80000000}, {0x00000001, 0x80000001}, {0x7f800000, 0x7f7fffff},
		{0xff800000, 0x7fbfffff}, {0x3f800000, 0x40000000},
	};
	for (int m = 0; m < 2; m++)
		for (size_t i = 0; i < sizeof mm / sizeof *mm; i++)
			add_case(cs, &n, m ? "min.f32" : "max.f32", F_BIN, mm[i][0], mm[i][1], 0);
	static const uint32_t un[] = {0x00000000, 0x80000000, 0x00000001, 0xff800000, 0x7fc00000, 0xffc00000,
	                              0x7f800001, 0xff812345, 0x7fffffff, 0x3f800000};
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < 10; i++)
			add_case(cs, &n, m ? "neg.f32" : "abs.f32", F_UN, un[i], 0, 0);
	static const char *cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
	static const uint32_t sp[][2] = {{0x3f800000, 0x40000000}, {0x40000000, 0x3f800000}, {0x80000000, 0x00000000},
	                                 {0x7fc00000, 0x3f800000}, {0x3f800000, 0xffc00000}, {0xff800000, 0x00000001}};
	for (int c = 0; c < 14; c++)
		for (int i = 0; i < 6; i++) {
			static char names[14][24];
			snprintf(names[c], sizeof names[c], "setp.%s.f32", cmps[c]);
			add_case(cs, &n, names[c], F_SETP, sp[i][0], sp[i][1], 0);
		}
	add_case(cs, &n, "selp.f32", F_SELP, 0x7fc00123, 0x3f800000, 1);
	add_case(cs, &n, "selp.f32", F_SELP, 0x7fc00123, 0x3f800000, 0);
	add_case(cs, &n, "selp.b32", F_SELP, 0x80000000, 0x00000000, 1);
	add_case(cs, &n, "selp.b32", F_SELP, 0x80000000, 0xffffffff, 0);
	static const uint32_t f8[] = {0x3f800000, 0xc0000000, 0x43e00000, 0x43e80000, 0x43f00000, 0x7f800000,
	                              0xff800000, 0x7fc00000, 0xffc00000, 0x3b000000, 0x3a800000, 0xba800000,
	                              0x47600000, 0x47700000, 0x37800000, 0x37000000, 0x00000001, 0x80000000,
	                              0x3f880000, 0x3f980000, 0x3e900000, 0x477fe000};
	for (int e5 = 0; e5 < 2; e5++) {
		for (int i = 0; i < 22; i += 2)
			add_case(cs, &n, e5 ? "cvt.rn.satfinite.e5m2x2.f32" : "cvt.rn.satfinite.e4m3x2.f32", F_CVT8, f8[i],
			         f8[i + 1], 0);
		for (int r = 0; r < 6; r++) {
			uint32_t a = (rnd32() & 0x83ffffffu) | 0x3c000000u, b = (rnd32() & 0x81ffffffu) | 0x3e000000u;
			add_case(cs, &n, e5 ? "cvt.rn.satfinite.e5m2x2.f32" : "cvt.rn.satfinite.e4m3x2.f32", F_CVT8, a, b, 0);
		}
	}
	static const uint32_t ints[] = {0, 1, 16777217, 16777219, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe};
	for (int i = 0; i < 8; i++) {
		add_case(cs, &n, "cvt.rn.f32.u32", F_UN, ints[i], 0, 0);
		add_case(cs, &n, "cvt.rn.f32.s32", F_UN, ints[i], 0, 0);
	}
	static const uint32_t bf[] = {0x3f80, 0x8000, 0x0001, 0xff80, 0x7fc1, 0xffff, 0x7f7f, 0x1234};
	for (int i = 0; i < 8; i++)
		add_case(cs, &n, "cvt.f32.bf16", F_BF16, bf[i], 0, 0);
	for (size_t i = 0; i < sizeof approx_specials / sizeof *approx_specials; i++)
		add_case(cs, &n, approx_specials[i].op, F_UN, approx_specials[i].x, 0, 0);
	static const char *isetp[] = {"setp.eq.s32", "setp.ne.s32", "setp.lt.s32", "setp.le.s32", "setp.gt.s32",
	                              "setp.ge.s32", "setp.eq.u32", "setp.ne.u32", "setp.lt.u32", "setp.le.u32",
	                              "setp.gt.u32", "setp.ge.u32"};
	static const uint32_t ip[][2] = {{5, 7}, {0xfffffffe, 3}, {9, 9}};
	for (int c = 0; c < 12; c++) /* the integer comparisons of masks */
		for (int i = 0; i < 3; i++)
			add_case(cs, &n, isetp[c], F_SETP, ip[i][0], ip[i][1], 0);
	add_case(cs, &n, "mov.b32", F_SWAP16, 0x12345678, 0, 0);
	add_case(cs, &n, "mov.b32", F_SWAP16, 0xffff0001, 0, 0);
	add_case(cs, &n, "not.pred", F_NOTP, 0, 0, 0);
	add_case(cs, &n, "not.pred", F_NOTP, 0x80000000, 0, 0);
	static const uint32_t sels[] = {0x3210, 0x7654, 0x0123, 0x5140, 0x8888, 0xfedc, 0x1111, 0x9a3c};
	for (int i = 0; i < 8; i++) /* prmt.b32, default mode (ptxemu_exec.c) */
		add_case(cs, &n, "prmt.b32", F_PRMT, 0x80ff7f01u ^ rnd32() % 2 * 0x00800080u, 0x12b4568au, sels[i]);
	return n;
}

/* every case's expected value from the references, and ptxemu's agreement */
static int fill_cases(Case *cs, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		cs[i].want = reference(&cs[i]);
		if (cs[i].form == F_PRMT || cs[i].form == F_SWAP16 || cs[i].form == F_NOTP) /* no float form: checked by running the program in ptxemu */
			continue;
		FloatOp o = ptxemu_float_decode(cs[i].op);
		uint32_t got = ptxemu_float_exec(o, cs[i].a, cs[i].b, cs[i].c);
		if (got != cs[i].want && bad++ < 5)
			fprintf(stderr, "case %d %s(%08x, %08x, %08x): ptxemu %08x, reference %08x\n", i, cs[i].op, cs[i].a,
			        cs[i].b, cs[i].c, got, cs[i].want);
	}
	return bad;
}

static void print_case(const Case *k, int i)
{
	printf("  // %d: %s\n", i, k->op);
	printf("  xor.b32 a, z, 0x%08x;\n", k->a);
	if (k->form != F_UN && k->form != F_BF16 && k->form != F_SWAP16 && k->form != F_NOTP)
		printf("  xor.b32 b, z, 0x%08x;\n", k->b);
	if (k->form == F_FMA || k->form == F_SELP || k->form == F_PRMT)
		printf("  xor.b32 c, z, 0x%08x;\n", k->c);
	switch (k->form) {
	case F_UN: printf("  %s d, a;\n", k->op); break;
	case F_BIN: printf("  %s d, a, b;\n", k->op); break;
	case F_FMA:
	case F_PRMT: printf("  %s d, a, b, c;\n", k->op); break;
	case F_SETP: printf("  %s q, a, b;\n  selp.u32 d, 1, 0, q;\n", k->op); break;
	case F_SELP: printf("  setp.ne.u32 q, c, 0;\n  %s d, a, b, q;\n", k->op); break;
	case F_CVT8: printf("  %s h, a, b;\n  cvt.u32.u16 d, h;\n", k->op); break;
	case F_SWAP16: printf("  mov.b32 {h, h2}, a;\n  mov.b32 d, {h2, h};\n"); break;
	case F_NOTP: printf("  setp.ne.u32 q, a, 0;\n  not.pred q, q;\n  selp.u32 d, 1, 0, q;\n"); break;
	default: printf("  cvt.u16.u32 h, a;\n  %s d, h;\n", k->op); break; /* F_BF16 */
	}
	printf("  xor.b32 d, d, 0x%08x;\n  setp.eq.u32 p, t, %d;\n  @p mov.b32 acc, d;\n", k->want, i);
}

static void print_tile(const char *name, const Case *cs, int n)
{
	int threads = (n + 31) / 32 * 32;
	printf("# Generated by `build/tests/test_ptxemu_float --tile %s` (tests/unit/test_ptxemu_float.c):\n"
	       "# %d cases of the compute instructions (f32, the fp8/int conversions,\n# prmt.b32) on constant inputs; thread K checks case K against\n"
	       "# the result of the unit test's references (double, double-double, the\n"
	       "# PTX ISA's definitions; docs/ptx-notes.md section 12), which ptxemu also\n"
	       "# gives. The inputs are XORed with a zero ptxas cannot see (nctaid.y - 1)\n"
	       "# so that the GPU computes them. Thread K XORs its result's difference\n"
	       "# from the expected bits into B[K]: B equals its copy of A (the CPU\n"
	       "# reference) exactly when every case matches; a mismatch at B[K] names\n"
	       "# case K (the `// K:` comments), and got XOR want is the difference.\n"
	       "target sm_90\n\nkernel float_exact_%s\nthreads %d\nparam  A f32 [%d]\nparam  B f32 [%d]\n"
	       "shared S f32 [%d]\n\ncta copy S, A\nsync\ncta copy B, S\nsync\nasm {\n"
	       "  { .reg .b32 z, t, a, b, c, d, acc, w; .reg .b64 ad; .reg .pred p, q; .reg .b16 h, h2;\n"
	       "  mov.u32 z, %%nctaid.y;\n  sub.u32 z, z, 1;\n  mov.u32 t, %%{tid};\n  mov.u32 acc, 0;\n",
	       name, n, name, threads, threads, threads, threads);
	for (int i = 0; i < n; i++)
		print_case(&cs[i], i);
	printf("  mul.wide.u32 ad, t, 4;\n  add.u64 ad, %%{&B[0]}, ad;\n  ld.global.b32 w, [ad];\n"
	       "  xor.b32 w, w, acc;\n  st.global.b32 [ad], w;\n  }\n}\n");
}

static void test_gpu_cases(void)
{
	static Case cs[MAXCASES];
	int n = arith_cases(cs);
	CHECK(fill_cases(cs, n) == 0, "the arith cases: ptxemu agrees with the references");
	n = misc_cases(cs);
	CHECK(fill_cases(cs, n) == 0, "the misc cases: ptxemu agrees with the references");
}

/* tests/gpu/approx_bounds.tile: each .approx instruction over a sweep of
 * inputs, checked against docs/ptx-notes.md's bound with an f64 reference
 * computed in the kernel (`--tile approx` prints it) */
static void print_d(const char *insn, const char *dst, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	printf("  %s %s, 0d%016llX;\n", insn, dst, (unsigned long long)u);
}

/* R = 2^a (a a .b64 register, |a| < 1000): a = n + r, |r| <= 1/2, 2^r by
 * its Taylor series in r ln2 to degree 13 (truncation below 2^-56), scaled
 * by 2^n built from its exponent bits */
static void print_exp2_f64(const char *a)
{
	printf("  cvt.rni.s32.f64 ni, %s;\n  cvt.rn.f64.s32 nd, ni;\n  sub.rn.f64 r, %s, nd;\n", a, a);
	long double c[14], ln2 = 0.693147180559945309417232121458176568L;
	c[0] = 1;
	for (int k = 1; k < 14; k++)
		c[k] = c[k - 1] * ln2 / k;
	print_d("mov.f64", "q", (double)c[13]);
	for (int k = 12; k >= 0; k--) {
		uint64_t u;
		double v = (double)c[k];
		memcpy(&u, &v, 8);
		printf("  fma.rn.f64 q, q, r, 0d%016llX;\n", (unsigned long long)u);
	}
	printf("  add.u32 ni, ni, 1023;\n  cvt.u64.u32 sc, ni;\n  shl.b64 sc, sc, 52;\n  mul.rn.f64 R, q, sc;\n");
}

static void print_lg2_ref(void)
{
	printf("  mov.u32 k, -127;\n  mov.u32 xs, xb;\n  setp.lt.u32 p1, xb, 0x00800000;\n");
	print_d("@p1 mul.rn.f64", "tmp, xd", 0x1p64); /* a subnormal, scaled into the normals (exact) */
	printf("  @p1 cvt.rn.f32.f64 xs, tmp;\n  @p1 mov.u32 k, -191;\n");
	printf("  shr.u32 e, xs, 23;\n  add.u32 e, e, k;\n  and.b32 mb, xs, 0x007fffff;\n  or.b32 mb, mb, 0x3f800000;\n"
	       "  setp.gt.u32 p1, mb, 0x3fb504f3;\n  @p1 sub.u32 mb, mb, 0x00800000;\n  @p1 add.u32 e, e, 1;\n"
	       "  cvt.f64.f32 md, mb;\n  cvt.rn.f64.s32 nd, e;\n");
	print_d("sub.rn.f64", "num, md", 1.0);
	print_d("add.rn.f64", "den, md", 1.0);
	printf("  div.rn.f64 r, num, den;\n  mul.rn.f64 r2, r, r;\n");
	print_d("mov.f64", "q", 1.0 / 25);
	for (int k = 11; k >= 0; k--) { /* ln m = 2 atanh(r) = 2 (r + r^3/3 + ...) */
		uint64_t u;
		double v = 1.0 / (2 * k + 1);
		memcpy(&u, &v, 8);
		printf("  fma.rn.f64 q, q, r2, 0d%016llX;\n", (unsigned long long)u);
	}
	printf("  mul.rn.f64 q, q, r;\n");
	print_d("mul.rn.f64", "q, q", (double)(2 / 0.693147180559945309417232121458176568L));
	printf("  add.rn.f64 R, nd, q;\n  abs.f64 tmp, R;\n");
	print_d("max.f64", "tmp, tmp", 1.0);
	print_d("mul.rn.f64", "B, tmp", 0x1p-22);
}

static void print_tanh_ref(void)
{
	printf("  mul.rn.f64 r2, xd, xd;\n"); /* |x| < 2^-6: x - x^3/3 + 2x^5/15 - 17x^7/315 + 62x^9/2835 */
	print_d("mov.f64", "q", 62.0 / 2835);
	print_d("fma.rn.f64", "q, q, r2", -17.0 / 315);
	print_d("fma.rn.f64", "q, q, r2", 2.0 / 15);
	print_d("fma.rn.f64", "q, q, r2", -1.0 / 3);
	print_d("fma.rn.f64", "q, q, r2", 1.0);
	printf("  mul.rn.f64 Rs, q, xd;\n");
	print_d("mul.rn.f64", "a2, xd", (double)(2 / 0.693147180559945309417232121458176568L));
	print_exp2_f64("a2"); /* otherwise (e^2x - 1) / (e^2x + 1) */
	print_d("sub.rn.f64", "num, R", 1.0);
	print_d("add.rn.f64", "den, R", 1.0);
	printf("  div.rn.f64 R, num, den;\n  abs.f64 tmp, xd;\n");
	print_d("setp.lt.f64", "p1, tmp", 0x1p-6);
	printf("  selp.f64 R, Rs, R, p1;\n  abs.f64 tmp, R;\n");
	print_d("mul.rn.f64", "B, tmp", 0x1p-11);
}

static void print_approx_fn(int fn)
{
	static const char *ops[] = {"ex2", "lg2", "rcp", "rsqrt", "tanh"};
	/* the exponent fields swept (EMIN + 0..ERANGE-1) and the sign: ex2 and
	 * tanh |x| < 256, the others every finite binade; lg2, rsqrt positive */
	static const unsigned erange[] = {135, 255, 255, 255, 135}, keep[] = {0x807fffff, 0x007fffff, 0x807fffff, 0x007fffff, 0x807fffff};
	printf("  // %s.approx.f32\n  mad.lo.u32 u, it, %d, t;\n  mul.lo.u32 u, u, 0x9e3779b9;\n  xor.b32 u, u, 0x%08x;\n",
	       ops[fn], APPROX_THREADS, 0x1234567u * (unsigned)(fn + 1));
	printf("  shr.u32 w, u, 16;\n  xor.b32 u, u, w;\n  mul.lo.u32 u, u, 0x7feb352d;\n  shr.u32 w, u, 15;\n"
	       "  xor.b32 u, u, w;\n  mul.lo.u32 u, u, 0x846ca68b;\n  shr.u32 w, u, 16;\n  xor.b32 u, u, w;\n");
	printf("  shr.u32 e, u, 23;\n  and.b32 e, e, 255;\n  rem.u32 e, e, %u;\n  shl.b32 e, e, 23;\n"
	       "  and.b32 xb, u, 0x%08x;\n  or.b32 xb, xb, e;\n", erange[fn], keep[fn]);
	if (fn == 1 || fn == 2 || fn == 3)
		printf("  or.b32 xb, xb, 1;\n"); /* never zero (the special table covers +-0) */
	printf("  %s.approx.f32 y, xb;\n  cvt.f64.f32 xd, xb;\n  cvt.f64.f32 yd, y;\n", ops[fn]);
	switch (fn) {
	case 0:
		print_exp2_f64("xd");
		print_d("mul.rn.f64", "B, R", exp2(-21.5));
		print_d("add.rn.f64", "B, B", 0x1p-147);
		break;
	case 1: print_lg2_ref(); break;
	case 3: printf("  sqrt.rn.f64 tmp, xd;\n"); break;
	case 2: break;
	default: print_tanh_ref(); break;
	}
	if (fn == 2) { /* 1/x exactly rounded; the bound 2^-22.4 |1/x| + 1.5 2^-149 */
		printf("  div.rn.f64 R, 0d3FF0000000000000, xd;\n  abs.f64 tmp, R;\n");
		print_d("mul.rn.f64", "B, tmp", exp2(-22.4));
		print_d("add.rn.f64", "B, B", 0x1.8p-149);
	}
	if (fn == 3) { /* 1/sqrt(x), two roundings in f64; the bound 2^-22.9 / sqrt(x) */
		printf("  div.rn.f64 R, 0d3FF0000000000000, tmp;\n");
		print_d("mul.rn.f64", "B, R", exp2(-22.9));
	}
	printf("  sub.rn.f64 tmp, yd, R;\n  abs.f64 tmp, tmp;\n  setp.gtu.f64 p0, tmp, B;\n");
	if (fn == 0 || fn == 2) { /* an infinity where the bound reaches 2^128, with R's sign */
		printf("  abs.f64 tmp, R;\n  add.rn.f64 tmp, tmp, B;\n");
		print_d("setp.ge.f64", "p1, tmp", 0x1p128);
		printf("  abs.f64 tmp, yd;\n");
		print_d("setp.eq.f64", "p2, tmp", INFINITY);
		printf("  and.pred p1, p1, p2;\n  mul.rn.f64 tmp, yd, R;\n");
		print_d("setp.gt.f64", "p2, tmp", 0.0);
		printf("  and.pred p1, p1, p2;\n  @p1 setp.ne.u32 p0, t, t;\n");
	}
	printf("  @p0 or.b32 flags, flags, %d;\n  @p0 mov.b32 badx, xb;\n  @p0 mov.b32 bady, y;\n", 1 << fn);
}

static void print_approx_tile(void)
{
	int nt = APPROX_THREADS;
	printf("# Generated by `build/tests/test_ptxemu_float --tile approx` (tests/unit/test_ptxemu_float.c).\n"
	       "# The bounds of docs/ptx-notes.md \"Approximate math\" pinned on the GPU:\n"
	       "# each thread runs ex2, lg2, rcp, rsqrt and tanh .approx.f32 on ITERS\n"
	       "# inputs each (hashed bit patterns over every binade the bound covers:\n"
	       "# subnormals, both signs where the domain has them, |x| < 256 for ex2\n"
	       "# and tanh, overflow to inf and underflow to 0 included) and compares\n"
	       "# each result with an f64 reference computed in the kernel (Taylor\n"
	       "# series for 2^r and atanh, div.rn/sqrt.rn.f64), |y - f(x)| <= B(x).\n"
	       "# A thread that finds one out of bound XORs into B[t] a flag per\n"
	       "# function (1 ex2, 2 lg2, 4 rcp, 8 rsqrt, 16 tanh) and into C[t], D[t]\n"
	       "# the last failing input and result bits: the outputs equal their\n"
	       "# copies of A (the CPU reference) exactly when every result is in bound.\n"
	       "# ptxemu (make test) runs %d inputs per function and thread; the GPU run\n"
	       "# (make gpu-test, '# harness:') %d, %d per function in all.\n"
	       "target sm_90\n# set: ITERS=2\n# harness: --set ITERS=%d\n\nkernel approx_bounds\nthreads %d\n"
	       "param  ITERS u32\nparam  A f32 [%d]\nparam  B f32 [%d]\nparam  C f32 [%d]\nparam  D f32 [%d]\n"
	       "shared S f32 [%d]\n\ncta copy S, A\nsync\ncta copy B, S\ncta copy C, S\ncta copy D, S\nsync\nasm {\n"
	       "  { .reg .b32 t, it, n, u, w, e, xb, y, k, xs, mb, ni, flags, badx, bady;\n"
	       "  .reg .b64 xd, yd, R, B, r, r2, q, sc, nd, tmp, md, num, den, Rs, a2, ad;\n  .reg .pred p0, p1, p2;\n"
	       "  mov.u32 t, %%{tid};\n  mov.u32 n, %%{ITERS};\n  mov.u32 it, 0;\n  mov.u32 flags, 0;\n"
	       "  mov.u32 badx, 0;\n  mov.u32 bady, 0;\n  setp.eq.u32 p0, n, 0;\n  @p0 bra DONE;\nLOOP:\n",
	       2, APPROX_GPU_ITERS, APPROX_GPU_ITERS * nt, APPROX_GPU_ITERS, nt, nt, nt, nt, nt, nt);
	for (int fn = 0; fn < 5; fn++)
		print_approx_fn(fn);
	printf("  add.u32 it, it, 1;\n  setp.lt.u32 p0, it, n;\n  @p0 bra LOOP;\nDONE:\n");
	static const char *outs[] = {"B", "C", "D"}, *vals[] = {"flags", "badx", "bady"};
	printf("  mul.wide.u32 ad, t, 4;\n");
	for (int i = 0; i < 3; i++)
		printf("  add.u64 tmp, %%{&%s[0]}, ad;\n  ld.global.b32 w, [tmp];\n  xor.b32 w, w, %s;\n  st.global.b32 [tmp], w;\n",
		       outs[i], vals[i]);
	printf("  }\n}\n");
}

/* tests/gpu/float_exact_sweep.tile: the exact f32 instructions on hashed
 * inputs against an f64 reference computed in the kernel, bit for bit */
static void print_hash(const char *dst, unsigned salt)
{
	printf("  mad.lo.u32 u, it, %d, t;\n  mul.lo.u32 u, u, 0x9e3779b9;\n  xor.b32 u, u, 0x%08x;\n"
	       "  shr.u32 w, u, 16;\n  xor.b32 u, u, w;\n  mul.lo.u32 u, u, 0x7feb352d;\n  shr.u32 w, u, 15;\n"
	       "  xor.b32 u, u, w;\n  mul.lo.u32 u, u, 0x846ca68b;\n  shr.u32 w, u, 16;\n  xor.b32 %s, u, w;\n",
	       APPROX_THREADS, salt, dst);
}

/* an f32 pattern in register dst from hash word h: sign and fraction from
 * h, the exponent field (h >> 23) % range + lo, shifted by register add
 * (or 0) and wrapped into 0..253 (finite, never inf/NaN) */
static void print_operand(const char *dst, const char *h, unsigned range, unsigned lo, const char *add)
{
	printf("  shr.u32 e, %s, 23;\n  rem.u32 e, e, %u;\n  add.u32 e, e, %u;\n", h, range, lo);
	if (add)
		printf("  add.u32 e, e, %s;\n", add);
	printf("  rem.u32 e, e, 254;\n  shl.b32 e, e, 23;\n  and.b32 %s, %s, 0x807fffff;\n  or.b32 %s, %s, e;\n", dst, h,
	       dst, dst);
}

static void print_sweep_check(int bit)
{
	/* a NaN reference must be the canonical NaN; then bit for bit */
	printf("  setp.neu.f32 p1, r, r;\n  @p1 mov.b32 r, 0x7fffffff;\n  setp.ne.b32 p0, y, r;\n"
	       "  @p0 or.b32 flags, flags, %d;\n  @p0 mov.b32 bada, a;\n  @p0 mov.b32 badb, b;\n  @p0 mov.b32 bady, y;\n",
	       bit);
}

static void print_sweep_tile(void)
{
	int nt = APPROX_THREADS;
	printf("# Generated by `build/tests/test_ptxemu_float --tile sweep` (tests/unit/test_ptxemu_float.c).\n"
	       "# The exact f32 instructions bit for bit on the GPU over hashed inputs:\n"
	       "# add/sub (operands' exponents close, so cancellation, and far), mul and\n"
	       "# div (every binade: overflow, underflow, subnormal results), sqrt\n"
	       "# (both signs), fma (products near c: cancellation; tiny operands:\n"
	       "# subnormal results). The reference is computed in the kernel in f64:\n"
	       "# add/sub/mul/div/sqrt as the f64 result rounded to f32 (53 >= 2*24+2\n"
	       "# bits: the double rounding is innocuous), fma as a*b (exact in f64)\n"
	       "# plus c rounded to odd (TwoSum's error picks the odd neighbour), then\n"
	       "# to f32 (round to odd at 53 >= 24+2 bits, then to nearest, is one\n"
	       "# rounding: Boldo and Melquiond); a NaN must be 0x7fffffff. A thread\n"
	       "# that finds a difference XORs into B[t] a flag per instruction (1 add,\n"
	       "# 2 sub, 4 mul, 8 div, 16 sqrt, 32 fma) and into C[t], D[t], E[t] the last\n"
	       "# failing a, b and result: the outputs equal their copies of A (the CPU\n"
	       "# reference) exactly when every result matches. ptxemu (make test) runs 2\n"
	       "# inputs per instruction and thread; the GPU run ('# harness:') %d, %d per\n"
	       "# instruction in all.\n"
	       "target sm_90\n# set: ITERS=2\n# harness: --set ITERS=%d\n\nkernel float_exact_sweep\nthreads %d\n"
	       "param  ITERS u32\nparam  A f32 [%d]\nparam  B f32 [%d]\nparam  C f32 [%d]\nparam  D f32 [%d]\n"
	       "param  E f32 [%d]\nshared S f32 [%d]\n\ncta copy S, A\nsync\ncta copy B, S\ncta copy C, S\ncta copy D, S\n"
	       "cta copy E, S\nsync\nasm {\n"
	       "  { .reg .b32 t, it, n, u, w, e, h1, h2, h3, a, b, c, y, r, lo, flags, bada, badb, bady;\n"
	       "  .reg .b64 ad, bd, cd, s, bb, t1, t2, er, inc, adr;\n  .reg .pred p0, p1, p2, p3, p4;\n"
	       "  mov.u32 t, %%{tid};\n  mov.u32 n, %%{ITERS};\n  mov.u32 it, 0;\n  mov.u32 flags, 0;\n"
	       "  mov.u32 bada, 0;\n  mov.u32 badb, 0;\n  mov.u32 bady, 0;\n  setp.eq.u32 p0, n, 0;\n  @p0 bra DONE;\nLOOP:\n",
	       SWEEP_GPU_ITERS, SWEEP_GPU_ITERS * nt, SWEEP_GPU_ITERS, nt, nt, nt, nt, nt, nt, nt);
	static const char *bin[] = {"add", "sub", "mul", "div"};
	for (int k = 0; k < 4; k++) {
		printf("  // %s.rn.f32\n", bin[k]);
		print_hash("h1", 0x51ed270bu * (unsigned)(k + 1));
		print_hash("h2", 0x2545f491u * (unsigned)(k + 7));
		print_operand("a", "h1", 254, 0, NULL);
		if (k < 2) { /* b's exponent within 30 of a's (wrapping at the ends) */
			printf("  shr.u32 lo, a, 23;\n  and.b32 lo, lo, 255;\n");
			print_operand("b", "h2", 61, 224, "lo");
		} else {
			print_operand("b", "h2", 254, 0, NULL);
		}
		printf("  %s.rn.f32 y, a, b;\n  cvt.f64.f32 ad, a;\n  cvt.f64.f32 bd, b;\n  %s.rn.f64 s, ad, bd;\n"
		       "  cvt.rn.f32.f64 r, s;\n", bin[k], bin[k]);
		print_sweep_check(1 << k);
	}
	printf("  // sqrt.rn.f32\n");
	print_hash("h1", 0x3c6ef372u);
	print_operand("a", "h1", 254, 0, NULL);
	printf("  mov.b32 b, 0;\n  sqrt.rn.f32 y, a;\n  cvt.f64.f32 ad, a;\n  sqrt.rn.f64 s, ad;\n  cvt.rn.f32.f64 r, s;\n");
	print_sweep_check(16);
	printf("  // fma.rn.f32: odd iterations tiny operands (subnormal results), even ones c near a*b\n");
	print_hash("h1", 0xa54ff53au);
	print_hash("h2", 0x510e527fu);
	print_hash("h3", 0x9b05688cu);
	printf("  and.b32 lo, it, 1;\n  setp.eq.u32 p2, lo, 1;\n");
	print_operand("a", "h1", 94, 80, NULL);
	print_operand("b", "h2", 94, 80, NULL);
	printf("  shr.u32 lo, a, 23;\n  and.b32 lo, lo, 255;\n  shr.u32 w, b, 23;\n  and.b32 w, w, 255;\n  add.u32 lo, lo, w;\n");
	print_operand("c", "h3", 61, 97, "lo"); /* field(a) + field(b) - 157 + (0..60): near the product's */
	printf("  @p2 and.b32 a, a, 0x81ffffff;\n  @p2 and.b32 b, b, 0x87ffffff;\n  @p2 or.b32 b, b, 0x34000000;\n"
	       "  @p2 and.b32 c, c, 0x80ffffff;\n");
	printf("  fma.rn.f32 y, a, b, c;\n  cvt.f64.f32 ad, a;\n  cvt.f64.f32 bd, b;\n  cvt.f64.f32 cd, c;\n"
	       "  mul.rn.f64 ad, ad, bd;\n  add.rn.f64 s, ad, cd;\n  sub.rn.f64 bb, s, ad;\n  sub.rn.f64 t1, s, bb;\n"
	       "  sub.rn.f64 t1, ad, t1;\n  sub.rn.f64 t2, cd, bb;\n  add.rn.f64 er, t1, t2;\n"
	       "  cvt.u32.u64 lo, s;\n  and.b32 lo, lo, 1;\n  setp.eq.u32 p1, lo, 0;\n  setp.ne.f64 p0, er, 0d0000000000000000;\n"
	       "  and.pred p1, p1, p0;\n  setp.gt.f64 p3, er, 0d0000000000000000;\n  setp.gt.f64 p4, s, 0d0000000000000000;\n"
	       "  xor.pred p3, p3, p4;\n  selp.b64 inc, -1, 1, p3;\n  @p1 add.u64 s, s, inc;\n  cvt.rn.f32.f64 r, s;\n");
	print_sweep_check(32);
	printf("  add.u32 it, it, 1;\n  setp.lt.u32 p0, it, n;\n  @p0 bra LOOP;\nDONE:\n  mul.wide.u32 adr, t, 4;\n");
	static const char *outs[] = {"B", "C", "D", "E"}, *vals[] = {"flags", "bada", "badb", "bady"};
	for (int i = 0; i < 4; i++)
		printf("  add.u64 s, %%{&%s[0]}, adr;\n  ld.global.b32 w, [s];\n  xor.b32 w, w, %s;\n  st.global.b32 [s], w;\n",
		       outs[i], vals[i]);
	printf("  }\n}\n");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--tile") && !strcmp(argv[2], "approx")) {
		print_approx_tile();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--tile") && !strcmp(argv[2], "sweep")) {
		print_sweep_tile();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--tile")) { /* print a GPU test program */
		static Case cs[MAXCASES];
		bool arith = !strcmp(argv[2], "arith");
		int n = arith ? arith_cases(cs) : misc_cases(cs);
		if (fill_cases(cs, n))
			return 1;
		print_tile(arith ? "arith" : "misc", cs, n);
		return 0;
	}
	test_arith();
	test_fma();
	test_max_min_abs_neg();
	test_setp_selp();
	test_fp8();
	test_immediates();
	test_approx();
	test_gpu_cases();
	UNIT_END();
}
