/* The reference's own elementary functions (src/ref/fmath.c) against the
 * emulator's f32 instructions (emu/ptxemu_float.c, written apart): fmaf
 * and sqrtf must agree bit for bit (both are correctly rounded), over
 * hashed bit patterns of every class and the cases where a double rounding
 * would show (sums that land on an f32 midpoint); exp2, log2 and tanh
 * within a few double ulps of libm's; set's f32 -> e4m3/e5m2 rounding
 * (satfinite) against the emulator's cvt. */
#include "unit.h"
#include <math.h>
#include "../../src/ref/fmath.c"
#include "../../src/ref/set.c"
#include "../../emu/ptxemu_float.c"

static uint32_t hash(uint64_t i)
{
	uint64_t v = i * 0x9E3779B97F4A7C15ull;
	v ^= v >> 29;
	v *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(v ^ (v >> 32));
}

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (u & 0x7fffffffu) > 0x7f800000u ? PTXEMU_CANONICAL_NAN : u;
}

static float ffrom(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* a pattern of class i % 4: any bits, a normal near 1, a small exponent, a subnormal */
static uint32_t pattern(uint64_t i)
{
	uint32_t h = hash(i);
	switch (i % 4) {
	case 0: return h;
	case 1: return (h & 0x807fffffu) | (uint32_t)(120 + h % 16) << 23;
	case 2: return (h & 0x807fffffu) | (uint32_t)(1 + h % 40) << 23;
	default: return h & 0x807fffffu;
	}
}

int main(void)
{
	FloatOp fma = ptxemu_float_decode("fma.rn.f32"), sq = ptxemu_float_decode("sqrt.rn.f32");
	int bad_fma = 0, bad_sqrt = 0;
	for (uint64_t i = 0; i < 400000; i++) {
		uint32_t a = pattern(3 * i), b = pattern(3 * i + 1), c = pattern(3 * i + 2);
		if (i % 3 == 0) /* c cancels most of a * b: the sum's error decides the rounding */
			c = fbits(-(ffrom(a) * ffrom(b))) ^ (hash(i) & 3);
		if (fbits(rm_fmaf(ffrom(a), ffrom(b), ffrom(c))) != ptxemu_float_exec(fma, a, b, c) && bad_fma++ < 5)
			CHECK(0, "fma(0x%08x, 0x%08x, 0x%08x): 0x%08x, emulator 0x%08x", a, b, c,
			      fbits(rm_fmaf(ffrom(a), ffrom(b), ffrom(c))), ptxemu_float_exec(fma, a, b, c));
		if (fbits(rm_sqrtf(ffrom(a))) != ptxemu_float_exec(sq, a, 0, 0) && bad_sqrt++ < 5)
			CHECK(0, "sqrt(0x%08x): 0x%08x, emulator 0x%08x", a, fbits(rm_sqrtf(ffrom(a))),
			      ptxemu_float_exec(sq, a, 0, 0));
	}
	CHECK(bad_fma == 0, "%d fma results differ", bad_fma);
	CHECK(bad_sqrt == 0, "%d sqrt results differ", bad_sqrt);
	/* products on an f32 midpoint (two 12-bit factors give 24 bits past the
	 * point) plus a c far below the double's precision: a double sum lands
	 * on the midpoint and a second rounding would go to even */
	int bad_mid = 0;
	for (uint64_t i = 0; i < 20000; i++) {
		float a = 1.0f + (float)(hash(i) % 4096) / 4096, b = 1.0f + (float)(hash(i + 7) % 4096) / 4096;
		float c = ldexpf(i % 2 ? 1.0f : -1.0f, -70 - (int)(hash(i + 3) % 40));
		if (fbits(rm_fmaf(a, b, c)) != ptxemu_float_exec(fma, fbits(a), fbits(b), fbits(c)))
			bad_mid++;
	}
	CHECK(bad_mid == 0, "%d midpoint fma results differ", bad_mid);
	CHECK(rm_fmaf(1.0f + 0x1p-12f, 1.0f + 0x1p-12f, 0x1p-80f) == 1.0f + 0x1p-11f + 0x1p-23f, "a midpoint plus a little");
	double worst = 0;
	for (int i = -4000; i <= 4000; i++) {
		double x = i / 37.0, r;
		r = fabs(rm_exp2(x) - exp2(x)) / exp2(x);
		worst = r > worst ? r : worst;
		if (x > 0)
			r = fabs(rm_log2(x) - log2(x)) / fmax(1.0, fabs(log2(x))), worst = r > worst ? r : worst;
		if (x != 0)
			r = fabs(rm_tanh(x / 16) - tanh(x / 16)) / fabs(tanh(x / 16)), worst = r > worst ? r : worst;
		r = fabs(rm_sqrt(fabs(x)) - sqrt(fabs(x))) / fmax(1e-300, sqrt(fabs(x)));
		worst = r > worst ? r : worst;
	}
	CHECK(worst < 1e-13, "exp2/log2/tanh/sqrt within 1e-13 relative of libm: worst %g", worst);
	int bad_f8 = 0;
	for (uint64_t i = 0; i < 400000; i++) {
		uint32_t a = pattern(i);
		if (i % 5 == 0) /* near the fp8 ranges, ties included */
			a = (hash(i) & 0x80000000u) | (uint32_t)(100 + hash(i) % 50) << 23 | (hash(i + 1) & 0x7fffffu & ~0xfffffu);
		for (int e5 = 0; e5 < 2; e5++)
			if (to_f8(ffrom(a), e5) != ptxemu_cvt_fp8_satfinite(a, e5) && bad_f8++ < 5)
				CHECK(0, "f8(0x%08x, e5m2 %d): 0x%02x, emulator 0x%02x", a, e5, to_f8(ffrom(a), e5),
				      ptxemu_cvt_fp8_satfinite(a, e5));
	}
	CHECK(bad_f8 == 0, "%d fp8 conversions differ", bad_f8);
	CHECK(rm_log2(1.0) == 0 && rm_exp2(0) == 1 && rm_tanh(0) == 0, "exact points");
	UNIT_END();
}
