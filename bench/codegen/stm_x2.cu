#include "twin.h"

KERNEL(32) stm_x2(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[128];
	const unsigned lane = threadIdx.x;
	uint32_t r[2];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < 1; m++)
#pragma unroll
		for (int k = 0; k < 2; k++)
			ldg(r + 2 * m + k, A + (8 * m + lane / 4) * 16 + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % 2;
#pragma unroll
	for (int m = 0; m < 1; m++)
		stsm<2, false>(smem(S) + ((8 * m + q) * 16 + 8 * j) * 2, r + 2 * m);
	__syncthreads();
	#pragma unroll
	for (int i = 0; i < 1; i++) {
		unsigned c = (i * 32 + lane) * 4;
		Mov<8>::s2g(B + c, smem(S) + c * 2);
	}
}
