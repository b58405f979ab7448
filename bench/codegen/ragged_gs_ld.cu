#include "twin.h"

KERNEL(128) ragged_gs_ld(const uint16_t *A, uint16_t *B, unsigned M, unsigned K, unsigned LDA)
{
	__shared__ __align__(16) uint16_t S[64 * 64];
	unsigned t = threadIdx.x, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;
	uint32_t s = smem(&S[t / 8 * 64 + c0]);
	#pragma unroll 1
	for (unsigned k = 0; k < (K + 63) / 64; k++) {
		unsigned c = k * 64 + c0;
		for (int j = 0; j < 4; j++) {
			unsigned r = r0 + 16 * j;
			uint32_t v[4] = {0, 0, 0, 0};
			if ((int)(M - r) > 0 && (int)(K - c) > 0)
				ldg(v, A + (r * LDA + c), 16);
			sts(s + j * 2048, v, 16);
		}
		__syncthreads();
		for (int j = 0; j < 4; j++) {
			unsigned r = r0 + 16 * j;
			uint32_t v[4];
			lds(v, s + j * 2048, 16);
			if ((int)(M - r) > 0 && (int)(K - c) > 0)
				stg(B + (r * LDA + c), v, 16);
		}
		__syncthreads();
	}
}
