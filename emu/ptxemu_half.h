/* The emulator's one f16/bf16 -> f32 conversion: the runners (runcore.c,
 * attention_host.c), the mma and wgmma models and cvt.f32.f16 read 16-bit
 * floats through it. The CPU reference keeps its own (src/ref/convert.c):
 * it shares nothing with the emulator. */
#ifndef PTXEMU_HALF_H
#define PTXEMU_HALF_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* an f16 (IEEE half) or bf16 value's f32 bits, exactly (subnormals, inf
 * and NaN payloads kept) */
static inline uint32_t emu_half_bits(uint16_t h, bool bf16)
{
	if (bf16)
		return (uint32_t)h << 16;
	uint32_t u, sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
	if (e == 0) { /* zero and subnormals: m * 2^-24, exact in f32 */
		float f = (float)m / 16777216.0f;
		memcpy(&u, &f, 4);
		return u | sign;
	}
	if (e == 31)
		return sign | 0x7f800000u | (m << 13);
	return sign | ((e + 112) << 23) | (m << 13);
}

static inline float emu_half_to_f32(uint16_t h, bool bf16)
{
	uint32_t u = emu_half_bits(h, bf16);
	float f;
	memcpy(&f, &u, 4);
	return f;
}
#endif
