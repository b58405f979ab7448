#include "twin.h"

KERNEL(32) ragged_reg_loop(const uint16_t *A, uint16_t *B, unsigned M, unsigned N)
{
	const unsigned lane = threadIdx.x, r = blockIdx.x * 8 + lane / 4;
	#pragma unroll 1
	for (unsigned n = 0; n < (N + 31) / 32; n++) {
		uint32_t v[4];
#pragma unroll
		for (int k = 0; k < 4; k++) {
			unsigned c = n * 32 + 8 * k + 2 * (lane % 4);
			v[k] = 0;
			if ((int)(M - r) > 0 && (int)(N - c) > 0)
				ldg(v + k, A + (r * N + c), 4);
		}
#pragma unroll
		for (int k = 0; k < 4; k++) {
			unsigned c = n * 32 + 8 * k + 2 * (lane % 4);
			if ((int)(M - r) > 0 && (int)(N - c) > 0)
				stg(B + (r * N + c), v + k, 4);
		}
	}
}
