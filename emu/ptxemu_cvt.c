/* ptxemu: cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32 and cvt.f32.f16 (the forms of
 * ptx_templates/cvt.tpl). f32 -> 16 bits: the value as an integer
 * significand times a power of two, rounded to the target's quantum at its
 * binade (nearest, ties to even), then encoded; out of range is inf,
 * subnormals are kept (no .ftz), a NaN is the canonical 0x7fff. The x2
 * forms put the first source's result in the upper half. f16 -> f32 is
 * exact; a NaN is 0x7fffffff. Independent of the CPU reference's code
 * (src/ref/convert.c); tests/unit/test_convert.c checks both. */
#include <string.h>

#include "ptxemu_cvt.h"
#include "ptxemu_half.h"

uint16_t ptxemu_cvt_rn_half(uint32_t f32, bool bf)
{
	const int mbits = bf ? 7 : 10, bias = bf ? 127 : 15, emax = bf ? 254 : 30;
	uint16_t sign = (uint16_t)(f32 >> 31 << 15);
	uint32_t ef = (f32 >> 23) & 0xff, mf = f32 & 0x7fffff;
	if (ef == 0xff)
		return mf ? 0x7fff : (uint16_t)(sign | (bf ? 0x7f80 : 0x7c00));
	if (ef == 0 && mf == 0)
		return sign;
	/* value = M * 2^E exactly */
	uint64_t M = ef ? (mf | 0x800000u) : mf;
	int E = (ef ? (int)ef : 1) - 150;
	int top = 63; /* the value's binade: 2^(top + E) <= value */
	while (!(M >> top & 1))
		top--;
	int q = top + E - mbits; /* the quantum at that binade, at least the subnormal one */
	if (q < 1 - bias - mbits)
		q = 1 - bias - mbits;
	int sh = q - E; /* N = M * 2^-sh, rounded */
	uint64_t N;
	if (sh <= 0) {
		N = M << -sh;
	} else if (sh > 40) {
		N = 0; /* far below half a quantum */
	} else {
		uint64_t keep = M >> sh, rest = M - (keep << sh), half = 1ull << (sh - 1);
		N = keep + (rest > half || (rest == half && (keep & 1)));
	}
	if (N >> (mbits + 1)) { /* rounded up into the next binade */
		N >>= 1;
		q++;
	}
	if (N < (1ull << mbits)) /* subnormal (or zero): the quantum is the smallest */
		return (uint16_t)(sign | N);
	int field = q + mbits + bias;
	if (field > emax)
		return (uint16_t)(sign | (bf ? 0x7f80 : 0x7c00));
	return (uint16_t)(sign | (uint32_t)field << mbits | (uint32_t)(N - (1ull << mbits)));
}

uint32_t ptxemu_cvt_f32_f16(uint32_t h)
{
	uint32_t u = emu_half_bits((uint16_t)h, false);
	return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u; /* a NaN: the canonical one */
}

bool ptxemu_cvt(const char *op, uint32_t a, uint32_t b, uint32_t *d)
{
	if (!strcmp(op, "cvt.rn.f16x2.f32") || !strcmp(op, "cvt.rn.bf16x2.f32")) {
		bool bf = op[7] == 'b';
		*d = (uint32_t)ptxemu_cvt_rn_half(a, bf) << 16 | ptxemu_cvt_rn_half(b, bf);
		return true;
	}
	if (!strcmp(op, "cvt.f32.f16")) {
		*d = ptxemu_cvt_f32_f16(a & 0xffff);
		return true;
	}
	return false;
}
