#include "twin.h"

KERNEL(32) stm_x1(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[64];
	const unsigned lane = threadIdx.x;
	uint32_t r[1];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < 1; m++)
#pragma unroll
		for (int k = 0; k < 1; k++)
			ldg(r + 1 * m + k, A + (8 * m + lane / 4) * 8 + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % 1;
#pragma unroll
	for (int m = 0; m < 1; m++)
		stsm<1, false>(smem(S) + ((8 * m + q) * 8 + 8 * j) * 2, r + 1 * m);
	__syncthreads();
	#pragma unroll
	for (int i = 0; i < 1; i++) {
		unsigned c = (i * 32 + lane) * 2;
		Mov<4>::s2g(B + c, smem(S) + c * 2);
	}
}
