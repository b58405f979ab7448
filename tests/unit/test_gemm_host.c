/* The host side of bench/gemm_bench.c (bench/gemm_host.h), which needs no
 * GPU: the 16-bit and e4m3 conversions against a search over every value of
 * the format, the seeded data, the host GEMM in both B orientations, and reading
 * A, B, C and B's orientation from a kernel's declarations. */
#include "unit.h"

#include "../../bench/gemm_host.h"

/* nearest of all finite positive values of the format (ties: even bits) */
static uint16_t nearest16(float x, int bf)
{
	uint16_t sign = gb_bits(x) >> 31 ? 0x8000 : 0;
	double a = x < 0 ? -(double)x : (double)x;
	uint16_t max = bf ? 0x7f7f : 0x7bff;
	double top = bf ? (double)gb_bf16_to_f32(max) : (double)gb_f16_to_f32(max);
	double ulp_top = bf ? 0x1p120 : 32.0;
	if (a >= top + ulp_top / 2) /* the halfway point to the next binade rounds up (even) */
		return sign | (bf ? 0x7f80 : 0x7c00);
	unsigned lo = 0, hi = max; /* value(lo) <= a < value(hi) or a = top */
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		double v = bf ? gb_bf16_to_f32((uint16_t)mid) : gb_f16_to_f32((uint16_t)mid);
		if (v <= a)
			lo = mid;
		else
			hi = mid;
	}
	double vl = bf ? gb_bf16_to_f32((uint16_t)lo) : gb_f16_to_f32((uint16_t)lo);
	double vh = bf ? gb_bf16_to_f32((uint16_t)hi) : gb_f16_to_f32((uint16_t)hi);
	if (a >= vh)
		return sign | (uint16_t)hi;
	unsigned pick = a - vl < vh - a ? lo : a - vl > vh - a ? hi : (lo & 1 ? hi : lo);
	return sign | (uint16_t)pick;
}

/* e4m3 from its definition: (-1)^s 2^(e-7) (1 + m/8), e = 0: 2^-6 m/8 */
static double e4m3_value(unsigned v)
{
	unsigned e = (v >> 3) & 15, m = v & 7;
	double mag = e ? 1.0 + m / 8.0 : m / 8.0;
	for (int x = (e ? (int)e : 1) - 7; x < 0; x++)
		mag /= 2;
	for (int x = (e ? (int)e : 1) - 7; x > 0; x--)
		mag *= 2;
	return v & 0x80 ? -mag : mag;
}

/* nearest e4m3 of all 127 finite non-negative codes (ties: even code),
 * saturating at 448 */
static uint8_t nearest8(float x)
{
	uint8_t sign = gb_bits(x) >> 31 ? 0x80 : 0;
	double a = x < 0 ? -(double)x : (double)x;
	unsigned best = 0;
	for (unsigned c = 1; c <= 0x7e; c++) {
		double d = e4m3_value(c) - a, db = e4m3_value(best) - a;
		d = d < 0 ? -d : d;
		db = db < 0 ? -db : db;
		if (d < db || (d == db && !(c & 1)))
			best = c;
	}
	return sign | (uint8_t)best;
}

static const char prog[] = "target sm_90a\n"
			   "func helper\nthreads 32\nparam A f16 [8, 8]\n"
			   "kernel first\nthreads 128\nparam A f16 [64, 32]\nparam B f16 [32, 48]\nparam C f32 [64, 48]\n"
			   "kernel runtime   # comment\nthreads 128\nparam M u32\nparam N u32\nparam K u32\n"
			   "param A bf16 [M, K] tma  # A\nparam B bf16 [N, K] fill small\nparam C bf16 [M, N]\n"
			   "kernel colmaj\nthreads 32\nparam X f16 [M, K]\nparam Y f16 [K, N] colmajor\nparam Z f32 [M, N]\n"
			   "kernel square\nthreads 32\nparam A f16 [64, 64]\nparam B f16 [64, 64]\nparam C f32 [64, 64]\n"
			   "kernel odd\nthreads 32\nparam A f16 [64, 64] layout S[(64, 64) : (1, 64)]\nparam B f16 [64, 64]\n"
			   "param C f32 [64, 64]\nparam D f32 [64, 64] colmajor\n"
			   "kernel fp8\nthreads 32\nparam A e4m3 [M, K]\nparam B e4m3 [N, K]\nparam C bf16 [M, N]\n"
			   "param D e4m3 [M, N]\n";

int main(void)
{
	/* conversions: every finite value round trips, ties go to even, and
	 * 2^20 floats round to the nearest value the search finds */
	int rt16 = 1, rtbf = 1;
	for (unsigned h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00) != 0x7c00 && gb_f32_to_f16(gb_f16_to_f32((uint16_t)h)) != h)
			rt16 = 0;
		if ((h & 0x7f80) != 0x7f80 && gb_f32_to_bf16(gb_bf16_to_f32((uint16_t)h)) != h)
			rtbf = 0;
	}
	CHECK(rt16, "an f16 value does not round trip");
	CHECK(rtbf, "a bf16 value does not round trip");
	CHECK(gb_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00, "tie to even (down)");
	CHECK(gb_f32_to_f16(1.0f + 0x3p-11f) == 0x3c02, "tie to even (up)");
	CHECK(gb_f32_to_f16(0x1p-25f) == 0x0000 && gb_f32_to_f16(0x3p-25f) == 0x0002, "subnormal ties");
	CHECK(gb_f32_to_f16(65519.0f) == 0x7bff && gb_f32_to_f16(65520.0f) == 0x7c00, "overflow at 65520");
	CHECK(gb_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80 && gb_f32_to_bf16(1.0f + 0x3p-8f) == 0x3f82, "bf16 ties");
	uint64_t s = 7;
	int bad16 = 0, badbf = 0;
	for (int i = 0; i < 1 << 20; i++) {
		uint32_t u = (uint32_t)gb_next(&s);
		/* exponents around the f16 range and the bf16 range */
		float x16 = gb_float((u & 0x807fffffu) | ((uint32_t)(100 + (u >> 23) % 45) << 23));
		float xbf = gb_float((u & 0x807fffffu) | ((uint32_t)(1 + (u >> 23) % 253) << 23));
		bad16 += gb_f32_to_f16(x16) != nearest16(x16, 0);
		badbf += gb_f32_to_bf16(xbf) != nearest16(xbf, 1);
	}
	CHECK(bad16 == 0, "%d floats round to another f16 than the nearest", bad16);
	/* e4m3: every code decodes to its definition (S.1111.111 to NaN), every
	 * finite one round trips, floats round to the nearest code, 448 and up
	 * saturate */
	int dec8 = 1, rt8 = 1, bad8 = 0;
	for (unsigned v = 0; v < 256; v++) {
		float f = gb_e4m3_to_f32((uint8_t)v);
		if ((v & 0x7f) == 0x7f) {
			dec8 &= f != f;
			continue;
		}
		dec8 &= (double)f == e4m3_value(v);
		rt8 &= gb_f32_to_e4m3(f) == (v == 0x80 ? 0x80 : v);
	}
	CHECK(dec8, "an e4m3 code decodes to another value than its definition");
	CHECK(rt8, "an e4m3 value does not round trip");
	for (int i = 0; i < 1 << 16; i++) {
		uint32_t u = (uint32_t)gb_next(&s);
		/* exponents from below the smallest subnormal (2^-9) to past 448 */
		float x = gb_float((u & 0x807fffffu) | ((uint32_t)(114 + (u >> 23) % 23) << 23));
		bad8 += gb_f32_to_e4m3(x) != nearest8(x);
	}
	CHECK(bad8 == 0, "%d floats round to another e4m3 than the nearest", bad8);
	CHECK(gb_f32_to_e4m3(1.0f + 0x1p-4f) == 0x38 && gb_f32_to_e4m3(1.0f + 0x3p-4f) == 0x3a, "e4m3 ties to even");
	CHECK(gb_f32_to_e4m3(0x1p-10f) == 0x00 && gb_f32_to_e4m3(0x3p-10f) == 0x02, "e4m3 subnormal ties");
	CHECK(gb_f32_to_e4m3(448.0f) == 0x7e && gb_f32_to_e4m3(-1e6f) == 0xfe, "e4m3 saturates at 448");
	CHECK(badbf == 0, "%d floats round to another bf16 than the nearest", badbf);

	/* data: seeded, repeatable, in range; A and B streams differ */
	uint16_t d1[4096], d2[4096], d3[4096];
	gb_fill(d1, 4096, GB_F16, 1, 5, 0);
	gb_fill(d2, 4096, GB_F16, 1, 5, 0);
	gb_fill(d3, 4096, GB_F16, 1, 5, 1);
	int inrange = 1, seen[5] = {0};
	for (int i = 0; i < 4096; i++) {
		float v = gb_f16_to_f32(d1[i]);
		inrange &= v == (float)(int)v && v >= -2 && v <= 2;
		if (inrange)
			seen[(int)v + 2] = 1;
	}
	CHECK(inrange && seen[0] && seen[1] && seen[2] && seen[3] && seen[4], "integer data: all of -2..2, nothing else");
	CHECK(!memcmp(d1, d2, sizeof d1) && memcmp(d1, d3, sizeof d1), "seeded streams");
	gb_fill(d1, 4096, GB_BF16, 0, 5, 0);
	int uni = 1, neg = 0;
	for (int i = 0; i < 4096; i++) {
		float v = gb_bf16_to_f32(d1[i]);
		uni &= v >= -1 && v <= 1;
		neg += v < 0;
	}
	CHECK(uni && neg > 1800 && neg < 2300, "random data in [-1, 1], about half negative (%d)", neg);
	/* e4m3: the integers -2..2, and random data finite (no NaN code) in [-1, 1] */
	gb_fill(d1, 4096, GB_E4M3, 1, 5, 0);
	int int8 = 1, fin8 = 1, distinct = 0, seen8[256] = {0};
	for (int i = 0; i < 4096; i++) {
		float v = gb_e4m3_to_f32((uint8_t)d1[i]);
		int8 &= d1[i] < 256 && v == (float)(int)v && v >= -2 && v <= 2;
	}
	gb_fill(d1, 4096, GB_E4M3, 0, 5, 0);
	for (int i = 0; i < 4096; i++) {
		float v = gb_e4m3_to_f32((uint8_t)d1[i]);
		fin8 &= d1[i] < 256 && v >= -1 && v <= 1;
		distinct += !seen8[d1[i] & 255]++;
	}
	CHECK(int8, "e4m3 integer data: -2..2 only");
	CHECK(fin8 && distinct > 100, "e4m3 random data: finite, in [-1, 1], many codes (%d)", distinct);

	/* the host GEMM: a hand example, B given either way, threads or not */
	{
		float a[6] = {1, 2, 3, 4, 5, 6};          /* [2, 3] */
		float b[12] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1}; /* [3, 4] */
		float bt[12];
		for (int k = 0; k < 3; k++)
			for (int n = 0; n < 4; n++)
				bt[n * 3 + k] = b[k * 4 + n];
		double c[8], ct[8], want[8] = {1, 2, 3, 6, 4, 5, 6, 15};
		gb_host_gemm(a, b, c, 2, 4, 3, 0, 1);
		gb_host_gemm(a, bt, ct, 2, 4, 3, 1, 2);
		CHECK(!memcmp(c, want, sizeof c), "host GEMM, B [K, N]");
		CHECK(!memcmp(ct, want, sizeof ct), "host GEMM, B [N, K], 2 threads");
	}

	/* declarations */
	gb_kernel k;
	gb_roles r;
	char why[300] = "";
	CHECK(gb_read_kernel(prog, sizeof prog - 1, NULL, &k, why, sizeof why) && !strcmp(k.name, "first"),
	      "the first kernel, not the func: %s", k.name);
	CHECK(k.nparams == 3 && k.npointers == 3 && gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why), "%s", why);
	CHECK(r.ab == GB_F16 && r.out == GB_F32 && !r.b_nk && !r.b_ambiguous && !strcmp(r.m, "64") &&
	              !strcmp(r.n, "48") && !strcmp(r.k, "32"),
	      "first: f16 -> f32, B [K, N], 64x48x32");
	CHECK(gb_read_kernel(prog, sizeof prog - 1, "runtime", &k, why, sizeof why) && k.nparams == 6 && k.npointers == 3,
	      "runtime: %d params", k.nparams);
	CHECK(k.p[3].pointer_index == 0 && k.p[5].pointer_index == 2 && k.p[0].scalar && k.p[0].pointer_index == -1,
	      "pointer params counted apart from scalars");
	CHECK(gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why) && r.b_nk && !r.b_ambiguous && r.ab == GB_BF16 &&
	              r.out == GB_BF16 && !strcmp(r.k, "K"),
	      "runtime: bf16 -> bf16, B [N, K]: %s", why);
	CHECK(gb_read_kernel(prog, sizeof prog - 1, "colmaj", &k, why, sizeof why) &&
	              gb_roles_of(&k, "X", "Y", "Z", &r, why, sizeof why) && r.b_nk,
	      "B [K, N] colmajor is stored [N, K]: %s", why);
	CHECK(gb_read_kernel(prog, sizeof prog - 1, "square", &k, why, sizeof why) &&
	              gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why) && r.b_ambiguous && !r.b_nk,
	      "square: orientation ambiguous, taken as [K, N]");
	CHECK(gb_read_kernel(prog, sizeof prog - 1, "odd", &k, why, sizeof why), "odd");
	CHECK(!gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why) && strstr(why, "param A is not a dense"), "%s", why);
	CHECK(!gb_roles_of(&k, "C", "C", "B", &r, why, sizeof why) && strstr(why, "dtypes f32 x f32"), "%s", why);
	CHECK(!gb_roles_of(&k, "B", "B", "D", &r, why, sizeof why) && strstr(why, "param D is colmajor"), "%s", why);
	CHECK(!gb_roles_of(&k, "B", "B", "E", &r, why, sizeof why) && strstr(why, "has no param E"), "%s", why);
	CHECK(!gb_read_kernel(prog, sizeof prog - 1, "helper", &k, why, sizeof why) && strstr(why, "no kernel 'helper'"),
	      "a func is not a kernel: %s", why);
	CHECK(gb_read_kernel(prog, sizeof prog - 1, "fp8", &k, why, sizeof why) &&
	              gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why) && r.ab == GB_E4M3 && r.out == GB_BF16 && r.b_nk,
	      "fp8: e4m3 -> bf16, B [N, K]: %s", why);
	CHECK(!gb_roles_of(&k, "A", "B", "D", &r, why, sizeof why) && strstr(why, "dtypes e4m3 x e4m3 -> e4m3"), "%s", why);

	/* the example the bench runs today */
	size_t len;
	FILE *f = fopen("examples/gemm_f16_mma.tile", "rb");
	static char src[1 << 16];
	len = f ? fread(src, 1, sizeof src, f) : 0;
	if (f)
		fclose(f);
	CHECK(len > 0 && gb_read_kernel(src, len, NULL, &k, why, sizeof why) && !strcmp(k.name, "gemm_f16_mma") &&
	              gb_roles_of(&k, "A", "B", "C", &r, why, sizeof why) && r.ab == GB_F16 && r.out == GB_F32 &&
	              r.b_ambiguous && !strcmp(r.m, "4096"),
	      "examples/gemm_f16_mma.tile: %s", why);
	UNIT_END();
}
