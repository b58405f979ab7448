#include "twin.h"

KERNEL(128) ragged_ldm_loop(const uint16_t *A, uint16_t *D, unsigned M, unsigned N)
{
	__shared__ __align__(16) uint16_t S[64 * 64];
	unsigned t = threadIdx.x, lane = t % 32, w = t / 32, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;
	uint32_t s = smem(&S[t / 8 * 64 + c0]);
	#pragma unroll 1
	for (unsigned n = 0; n < (N + 63) / 64; n++) {
		unsigned c = n * 64 + c0;
#pragma unroll
		for (int q = 0; q < 4; q++) {
			unsigned r = r0 + 16 * q;
			uint32_t v[4] = {0, 0, 0, 0};
			if ((int)(M - r) > 0 && (int)(N - c) > 0)
				ldg(v, A + (r * N + c), 16);
			sts(s + q * 2048, v, 16);
		}
		__syncthreads();
#pragma unroll
		for (int j = 0; j < 2; j++) {
			uint32_t f[4];
			ldsm<4, false>(f, smem(&S[(w * 16 + j * 8 + lane % 8) * 64 + j * 32 + lane / 8 * 8]));
			unsigned r = blockIdx.x * 64 + w * 16 + j * 8 + lane / 4;
#pragma unroll
			for (int k = 0; k < 4; k++) {
				unsigned cc = n * 64 + j * 32 + 8 * k + 2 * (lane % 4);
				if ((int)(M - r) > 0 && (int)(N - cc) > 0)
					stg(D + (r * N + cc), f + k, 4);
			}
		}
		__syncthreads();
	}
}
