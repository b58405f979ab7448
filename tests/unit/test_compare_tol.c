/* The runners' comparison (emu/runcore.c, rc_compare) with error bounds:
 * an element whose bound is 0 (or that has none) must match bit for bit;
 * one with a bound passes when both are NaN or they are at most the bound
 * apart, in the param's own dtype (f32, f16, bf16, e4m3, e5m2). */
#include "unit.h"
#include "../../emu/runcore.c"

/* one param of dtype dt holding want[0] and got[0] with bound tol (tol < 0: no bounds kept) */
static int64_t differ(DType dt, uint32_t want, uint32_t got, float tol)
{
	Buffer b = {.name = "P", .mem = MEM_GLOBAL, .dt = dt, .ndim = 1, .shape = {1}, .storage = 1};
	const Buffer *bufs[1] = {&b};
	unsigned char w[4], g[4];
	memcpy(w, &want, 4);
	memcpy(g, &got, 4);
	unsigned char *wp[1] = {w}, *gp[1] = {g};
	float t[1] = {tol}, *tp[1] = {tol < 0 ? NULL : t};
	size_t bytes[1] = {4};
	RunParams rp = {.n = 1, .buf = bufs, .bytes = bytes, .want = wp, .got = gp, .tol = tp};
	return rc_compare(&rp, 0);
}

int main(void)
{
	CHECK(differ(DT_F32, 0x3f800000u, 0x3f800000u, -1) == 0, "equal bits, no bounds");
	CHECK(differ(DT_F32, 0x3f800000u, 0x3f800001u, -1) == 1, "one ulp, no bounds");
	CHECK(differ(DT_F32, 0x3f800000u, 0x3f800001u, 0) == 1, "one ulp, bound 0 (exact)");
	CHECK(differ(DT_F32, 0x3f800000u, 0x3f800001u, 0x1p-23f) == 0, "one ulp within 2^-23");
	CHECK(differ(DT_F32, 0x3f800000u, 0x3f800002u, 0x1p-23f) == 1, "two ulps beyond 2^-23");
	CHECK(differ(DT_F32, 0x7fffffffu, 0x7fc00001u, 0x1p-149f) == 0, "two NaNs with a bound");
	CHECK(differ(DT_F32, 0x7fffffffu, 0x7fc00001u, 0) == 1, "two NaNs of other bits, exact");
	CHECK(differ(DT_F32, 0x7fffffffu, 0x3f800000u, 1e30f) == 1, "NaN against a number");
	CHECK(differ(DT_F32, 0x7f800000u, 0x7f800000u, 1.0f) == 0, "the same infinity");
	CHECK(differ(DT_F32, 0x7f800000u, 0x7f7fffffu, 1e30f) == 1, "infinity against the largest finite");
	CHECK(differ(DT_F16, 0x3c00u, 0x3c01u, 0x1p-10f) == 0, "f16: one ulp within 2^-10");
	CHECK(differ(DT_F16, 0x3c00u, 0x3c02u, 0x1p-10f) == 1, "f16: two ulps beyond");
	CHECK(differ(DT_BF16, 0x3f80u, 0x3f81u, 0x1p-7f) == 0, "bf16: one ulp within 2^-7");
	CHECK(differ(DT_BF16, 0x3f80u, 0x3f81u, 0x1p-8f) == 1, "bf16: one ulp beyond 2^-8");
	CHECK(differ(DT_E4M3, 0x38u, 0x39u, 0.125f) == 0, "e4m3: 1.0 against 1.125 within 1/8");
	CHECK(differ(DT_E4M3, 0x38u, 0x39u, 0.1f) == 1, "e4m3: beyond 0.1");
	CHECK(differ(DT_E5M2, 0x3cu, 0x3du, 0.25f) == 0, "e5m2: 1.0 against 1.25 within 1/4");
	CHECK(differ(DT_E5M2, 0xbcu, 0x3cu, 1.5f) == 1, "e5m2: -1 against 1 beyond 1.5");
	CHECK(differ(DT_U32, 5, 6, 10.0f) == 1, "integers are exact whatever the bound");
	UNIT_END();
}
