#include "twin.h"

KERNEL(32) stm_x2_trans(const uint16_t *A, uint16_t *B)
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
		stsm<2, true>(smem(S) + ((8 * m) + 8 * (8 * j + q)) * 2, r + 2 * m);
	__syncthreads();
	#pragma unroll
	for (int i = 0; i < 4; i++) {
		unsigned c = i * 32 + lane, rr = c / 16, cc = c % 16;
		Mov<2>::s2g(B + c, smem(S) + (rr + 8 * cc) * 2);
	}
}
