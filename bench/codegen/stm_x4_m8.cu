#include "twin.h"

KERNEL(32) stm_x4_m8(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[2048];
	const unsigned lane = threadIdx.x;
	uint32_t r[32];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < 8; m++)
#pragma unroll
		for (int k = 0; k < 4; k++)
			ldg(r + 4 * m + k, A + (8 * m + lane / 4) * 32 + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 8; m++)
		stsm<4, false>(smem(S) + ((8 * m + q) * 32 + 8 * j) * 2, r + 4 * m);
	__syncthreads();
	#pragma unroll
	for (int i = 0; i < 8; i++) {
		unsigned c = (i * 32 + lane) * 8;
		Mov<16>::s2g(B + c, smem(S) + c * 2);
	}
}
