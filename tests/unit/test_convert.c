/* The converting copies' element conversions, both implementations: the CPU
 * reference's (src/ref/convert.c) and ptxemu's (emu/ptxemu_cvt.c), against
 * a direct reference built from the definition: a search over every finite
 * value of the 16-bit format for the nearest (ties: the even code), inf past
 * the largest finite value plus half its ulp, NaN to 0x7fff. Inputs: every
 * 16-bit value, the midpoints between neighbours and one f32 ulp either
 * side, the overflow thresholds, both signs, and a stride through all f32
 * bit patterns. Widening: every 16-bit value against ldexp. */
#include "unit.h"

#include <math.h>

#include "../../emu/ptxemu_cvt.c"

static double value16(unsigned h, int bf) /* a finite non-negative code's value */
{
	int mb = bf ? 7 : 10, bias = bf ? 127 : 15;
	unsigned e = h >> mb, m = h & ((1u << mb) - 1);
	return e ? ldexp((double)(m | 1u << mb), (int)e - bias - mb) : ldexp((double)m, 1 - bias - mb);
}

static uint16_t nearest(uint32_t u, int bf)
{
	float x;
	memcpy(&x, &u, 4);
	if (isnan(x))
		return 0x7fff;
	uint16_t sign = u >> 31 ? 0x8000 : 0, max = bf ? 0x7f7f : 0x7bff;
	double a = fabs((double)x), top = value16(max, bf), ulp = top - value16(max - 1u, bf);
	if (a >= top + ulp / 2)
		return sign | (bf ? 0x7f80 : 0x7c00);
	unsigned lo = 0, hi = max;
	if (a >= top)
		return sign | max;
	while (hi - lo > 1) { /* value(lo) <= a < value(hi) */
		unsigned mid = (lo + hi) / 2;
		if (value16(mid, bf) <= a)
			lo = mid;
		else
			hi = mid;
	}
	double dl = a - value16(lo, bf), dh = value16(hi, bf) - a;
	unsigned r = dl < dh ? lo : dh < dl ? hi : (lo & 1 ? hi : lo);
	return (uint16_t)(sign | r);
}

static int bad_ref, bad_emu;

static void one(uint32_t u, int bf)
{
	uint16_t want = nearest(u, bf), r = ref_f32_to_half(u, bf), e = ptxemu_cvt_rn_half(u, bf);
	if (r != want && bad_ref++ < 5)
		fprintf(stderr, "ref %s(0x%08x) = 0x%04x, want 0x%04x\n", bf ? "bf16" : "f16", u, r, want);
	if (e != want && bad_emu++ < 5)
		fprintf(stderr, "ptxemu %s(0x%08x) = 0x%04x, want 0x%04x\n", bf ? "bf16" : "f16", u, e, want);
}

static uint32_t bits_of(double d)
{
	float f = (float)d;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

int main(void)
{
	long n = 0;
	for (int bf = 0; bf < 2; bf++) {
		unsigned max = bf ? 0x7f7f : 0x7bff;
		for (unsigned h = 0; h <= max; h++) {
			double v = value16(h, bf), next = h < max ? value16(h + 1, bf) : 2 * v - value16(h - 1, bf);
			uint32_t pts[4] = {bits_of(v), bits_of((v + next) / 2), 0, 0}; /* the midpoint is exact in f32 */
			pts[2] = pts[1] - (pts[1] & 0x7fffffff ? 1 : 0);
			pts[3] = pts[1] + 1;
			for (int i = 0; i < 4; i++)
				for (int s = 0; s < 2; s++, n++)
					one(pts[i] | (uint32_t)s << 31, bf);
		}
		for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 65521, n++)
			one((uint32_t)u, bf);
		uint32_t specials[] = {0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001, 0x80000001,
		                       0x007fffff, 0x477ff000, 0x477fefff, 0x7f7f8000, 0x7f7f7fff, 0x33000000, 0x33000001};
		for (size_t i = 0; i < sizeof specials / sizeof *specials; i++, n++)
			one(specials[i], bf);
	}
	CHECK(bad_ref == 0, "the reference rounds %d of %ld inputs wrong", bad_ref, n);
	CHECK(bad_emu == 0, "ptxemu rounds %d of %ld inputs wrong", bad_emu, n);
	/* the x2 form: the first source goes to the upper half */
	uint32_t d = 0;
	CHECK(ptxemu_cvt("cvt.rn.bf16x2.f32", 0x3f800000, 0x40000000, &d) && d == 0x3f804000, "bf16x2 gives 0x%08x", d);
	CHECK(ptxemu_cvt("cvt.rn.f16x2.f32", 0x3f800000, 0x40000000, &d) && d == 0x3c004000, "f16x2 gives 0x%08x", d);
	/* widening: exact, NaN as documented */
	int wbad = 0;
	for (unsigned h = 0; h < 65536; h++)
		for (int bf = 0; bf < 2; bf++) {
			unsigned mag = h & 0x7fff, inf = bf ? 0x7f80 : 0x7c00;
			uint32_t want;
			if (mag > inf)
				want = bf ? (uint32_t)h << 16 : 0x7fffffff;
			else if (mag == inf)
				want = (h & 0x8000 ? 0xff800000u : 0x7f800000u);
			else
				want = bits_of(h & 0x8000 ? -value16(mag, bf) : value16(mag, bf));
			uint32_t r = ref_half_to_f32((uint16_t)h, bf);
			bool ok = r == want && (bf || ptxemu_cvt_f32_f16(h) == want);
			if (!ok && wbad++ < 5)
				fprintf(stderr, "widen %s 0x%04x: ref 0x%08x emu 0x%08x want 0x%08x\n", bf ? "bf16" : "f16", h, r,
				        bf ? 0 : ptxemu_cvt_f32_f16(h), want);
		}
	CHECK(wbad == 0, "%d widenings wrong", wbad);
	CHECK(ptxemu_cvt("cvt.f32.f16", 0xabcd3c00, 0, &d) && d == 0x3f800000, "cvt.f32.f16 reads the low half: 0x%08x", d);
	UNIT_END();
}
