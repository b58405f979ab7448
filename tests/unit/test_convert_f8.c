/* The register copies' f32 -> e4m3 / e5m2 conversion (satfinite), both
 * implementations: the CPU reference's (src/ref/convert.c, integer rounding
 * on the f32 mantissa) and ptxemu's (emu/ptxemu_float.c, scaled doubles),
 * against a search over every finite code for the nearest (ties: the even
 * code), the largest finite past it, NaN 0x7f. Inputs: every code, the
 * midpoints between neighbours and one f32 ulp either side, both signs, the
 * specials, and a stride through all f32 bit patterns. */
#include "unit.h"

#include <math.h>

#include "../../emu/ptxemu_float.c"

static double code_value(unsigned c, bool e5) /* a non-negative code's value */
{
	int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7;
	unsigned e = c >> mb, m = c & ((1u << mb) - 1);
	return e ? ldexp((double)(m | 1u << mb), (int)e - bias - mb) : ldexp((double)m, 1 - bias - mb);
}

static uint8_t nearest(uint32_t u, bool e5)
{
	float x;
	memcpy(&x, &u, 4);
	if (isnan(x))
		return 0x7f;
	unsigned maxcode = e5 ? 0x7b : 0x7e, best = 0;
	uint8_t sign = (uint8_t)(u >> 31 << 7);
	double a = fabs((double)x), bestd = INFINITY;
	if (a >= code_value(maxcode, e5))
		return (uint8_t)(sign | maxcode);
	for (unsigned c = 0; c <= maxcode; c++) {
		double d = fabs(a - code_value(c, e5));
		if (d < bestd || (d == bestd && !(c & 1))) {
			best = c;
			bestd = d;
		}
	}
	return (uint8_t)(sign | best);
}

static int bad_ref, bad_emu;

static void one(uint32_t u, bool e5)
{
	uint8_t want = nearest(u, e5), r = ref_f32_to_f8(u, e5), e = ptxemu_cvt_fp8_satfinite(u, e5);
	if (r != want && bad_ref++ < 5)
		fprintf(stderr, "ref %s(0x%08x) = 0x%02x, want 0x%02x\n", e5 ? "e5m2" : "e4m3", u, r, want);
	if (e != want && bad_emu++ < 5)
		fprintf(stderr, "ptxemu %s(0x%08x) = 0x%02x, want 0x%02x\n", e5 ? "e5m2" : "e4m3", u, e, want);
}

static uint32_t f32_bits(double d)
{
	float f = (float)d;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

int main(void)
{
	long n = 0;
	for (int e5 = 0; e5 < 2; e5++) {
		unsigned maxcode = e5 ? 0x7b : 0x7e;
		for (unsigned c = 0; c <= maxcode + 1; c++) { /* one past the largest: the saturation threshold */
			double v = c <= maxcode ? code_value(c, e5) : 2 * code_value(maxcode, e5) - code_value(maxcode - 1, e5);
			double next = 2 * v; /* stands in past the end */
			if (c < maxcode)
				next = code_value(c + 1, e5);
			uint32_t pts[4] = {f32_bits(v), f32_bits((v + next) / 2), 0, 0}; /* the midpoint is exact in f32 */
			pts[2] = pts[1] - (pts[1] & 0x7fffffff ? 1 : 0);
			pts[3] = pts[1] + 1;
			for (int i = 0; i < 4; i++)
				for (int s = 0; s < 2; s++, n++)
					one(pts[i] | (uint32_t)s << 31, e5);
		}
		for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 65521, n++)
			one((uint32_t)u, e5);
		uint32_t specials[] = {0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001,
		                       0x80000001, 0x007fffff, 0x00000000, 0x80000000, 0x43e00000, 0x43e80000,
		                       0x43e7ffff, 0x47600000, 0x47700000, 0x3a800000, 0x3a000000, 0x3a000001,
		                       0x37800000, 0x37000000, 0x37000001, 0x7f7fffff};
		for (size_t i = 0; i < sizeof specials / sizeof *specials; i++, n++)
			one(specials[i], e5);
	}
	CHECK(bad_ref == 0, "the reference rounds %d of %ld inputs wrong", bad_ref, n);
	CHECK(bad_emu == 0, "ptxemu rounds %d of %ld inputs wrong", bad_emu, n);
	CHECK(ref_f32_to_f8(0x7f800000, false) == 0x7e && ref_f32_to_f8(0xff800000, true) == 0xfb,
	      "inf saturates to the largest finite with its sign");
	CHECK(ref_f32_to_f8(0xffc00000, false) == 0x7f && ref_f32_to_f8(0x7f800001, true) == 0x7f, "NaN is 0x7f");
	UNIT_END();
}
