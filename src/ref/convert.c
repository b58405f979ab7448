/* The CPU reference's element conversions (docs/language.md, "Converting
 * copies"), written from the formats' definitions and sharing nothing with
 * the emitter (which only names cvt forms) or ptxemu (emu/ptxemu_cvt.c);
 * tests/unit/test_convert.c checks both against a search over every 16-bit
 * value. Also the 'fill edges' input pattern. */
#include "../tilepx.h"

#include <string.h>

/* f32 bits -> f16/bf16 bits, round to nearest even; overflow to inf;
 * subnormals kept (no flush); every NaN to the canonical 0x7fff */
uint16_t ref_f32_to_half(uint32_t u, bool bf16)
{
	uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
	if (a > 0x7f800000)
		return 0x7fff;
	if (bf16) { /* the upper 16 bits, rounded on the lower 16 */
		uint32_t hi = a >> 16, lo = a & 0xffff;
		if (lo > 0x8000 || (lo == 0x8000 && (hi & 1)))
			hi++; /* a carry into the exponent is right, up to inf */
		return (uint16_t)(sign | hi);
	}
	if (a >= 0x477ff000) /* 65520 = 65504 + half an ulp: ties go to the even inf */
		return (uint16_t)(sign | 0x7c00);
	uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000;
	if (e < 102) /* below 2^-25: nearer to 0 (2^-25 itself: half of 2^-24, ties to 0) */
		return (uint16_t)sign;
	uint32_t shift, h;
	if (e < 113) { /* an f16 subnormal: units of 2^-24 = m * 2^(e - 150 + 24) */
		shift = 126 - e;
		h = m >> shift;
	} else { /* normal: f16 exponent e - 112, 10 of the 23 mantissa bits */
		shift = 13;
		h = ((e - 112) << 10) | ((m & 0x7fffff) >> 13);
	}
	uint32_t rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rest > half || (rest == half && (h & 1)))
		h++; /* a carry out of the mantissa raises the exponent */
	return (uint16_t)(sign | h);
}

/* f16/bf16 bits -> f32 bits, exact; an f16 NaN becomes 0x7fffffff (cvt.f32.f16),
 * a bf16 NaN keeps its bits (the emitted code shifts) */
/* f32 bits -> e4m3 / e5m2 bits, round to nearest even on the f32
 * mantissa, saturating: a result past the largest finite (448, 57344), inf
 * included, is the largest finite with the sign; every NaN is 0x7f; f32
 * subnormals are far below the smallest fp8 subnormal and give a signed 0 */
uint8_t ref_f32_to_f8(uint32_t u, bool e5m2)
{
	const int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, maxcode = e5m2 ? 0x7b : 0x7e;
	uint8_t sign = (uint8_t)(u >> 31 << 7);
	uint32_t a = u & 0x7fffffff;
	if (a > 0x7f800000)
		return 0x7f;
	if (a == 0x7f800000)
		return (uint8_t)(sign | maxcode);
	if (a < 0x00800000)
		return sign;
	int e = (int)(a >> 23) - 127;                /* value = M * 2^(e - 23) */
	uint32_t M = (a & 0x7fffff) | 0x800000;
	int et = e < 1 - bias ? 1 - bias : e;         /* the binade of the result, subnormals in the lowest */
	int shift = et - m - (e - 23);                /* mantissa bits below the result's quantum */
	if (shift >= 25)
		return sign; /* below half the smallest subnormal */
	uint32_t q = M >> shift, rem = M & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	/* the code: the binade's exponent field (0 in the subnormal binade) then q's
	 * mantissa; q == 2^(m+1) after rounding carries into the next binade */
	int64_t code = ((int64_t)(et + bias - 1) << m) + q;
	if (code > maxcode)
		code = maxcode;
	return (uint8_t)(sign | code);
}

uint32_t ref_half_to_f32(uint16_t h, bool bf16)
{
	if (bf16)
		return (uint32_t)h << 16;
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 0x3ff;
	if (e == 31)
		return m ? 0x7fffffff : sign | 0x7f800000;
	if (e == 0) {
		if (!m)
			return sign;
		e = 113; /* normalize: value m * 2^-24 */
		while (!(m & 0x400)) {
			m <<= 1;
			e--;
		}
		return sign | (e << 23) | ((m & 0x3ff) << 13);
	}
	return sign | ((e + 112) << 23) | (m << 13);
}

static uint64_t mix(int64_t i, int which)
{
	uint64_t v = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)(which + 1) * 0xC2B2AE3D27D4EB4Full;
	v ^= v >> 31;
	v *= 0xBF58476D1CE4E5B9ull;
	v ^= v >> 29;
	return v;
}

/* 'fill edges': for f32, eight classes by index: random bits, bf16 and f16
 * halfway cases, values at the f16 and bf16 overflow thresholds, +-0 and
 * f32 subnormals, f16 subnormals, NaN and inf, values near 1; for f16/bf16,
 * random bits with +-0, subnormals, NaN and inf mixed in, written over
 * ref_fill_pattern's values (the caller's); other types keep those */
void ref_fill_edges(unsigned char *p, int64_t n, DType dt, int which)
{
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = mix(i, which);
		uint32_t r = (uint32_t)(v >> 32), sign = (uint32_t)v & 0x80000000u, f;
		if (dt == DT_F32) {
			switch (i % 8) {
			case 0: continue;
			case 1: f = (r & 0xffff0000u) | 0x8000; break; /* bf16 tie */
			case 2: f = sign | ((uint32_t)(103 + r % 40) << 23) | (r >> 8 & 0x7fe000) | 0x1000; break; /* f16 tie */
			case 3: f = sign | (r & 1 ? 0x477fe000u + (r >> 1) % 0x3000 : 0x7f7f0000u + (r >> 1) % 0x10000); break;
			case 4: f = r % 4 == 0 ? 0 : r % 4 == 1 ? 0x80000000u : sign | (r & 0x7fffff); break;
			case 5: f = sign | ((uint32_t)(101 + r % 13) << 23) | (r >> 4 & 0x7fffff); break; /* f16 subnormals */
			case 6: f = sign | 0x7f800000u | (r % 3 ? r >> 9 & 0x7fffff : 0); break;      /* inf, NaN */
			default: f = sign | ((uint32_t)(120 + r % 16) << 23) | (r >> 9 & 0x7fffff); break;
			}
			memcpy(p + i * 4, &f, 4);
		} else if (dt == DT_F16 || dt == DT_BF16) {
			uint16_t h, exp = dt == DT_F16 ? 0x7c00 : 0x7f80, man = dt == DT_F16 ? 0x3ff : 0x7f;
			uint16_t s16 = sign ? 0x8000 : 0;
			switch (i % 8) {
			case 1: h = s16; break;
			case 2: h = (uint16_t)(s16 | (r & man)); break;
			case 3: h = (uint16_t)(s16 | exp | ((r & man) ? (r & man) : 1)); break;
			case 4: h = (uint16_t)(s16 | exp); break;
			default: continue;
			}
			memcpy(p + i * 2, &h, 2);
		}
	}
}
