#include "twin.h"

KERNEL(32) stm_x4_trans_m2(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[512];
	const unsigned lane = threadIdx.x;
	uint32_t r[8];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < 2; m++)
#pragma unroll
		for (int k = 0; k < 4; k++)
			ldg(r + 4 * m + k, A + (8 * m + lane / 4) * 32 + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 2; m++)
		stsm<4, true>(smem(S) + ((8 * m) + 16 * (8 * j + q)) * 2, r + 4 * m);
	__syncthreads();
	#pragma unroll
	for (int c = 0; c < 2; c++) {
		uint32_t w[4];
		lds(w, smem(S) + lane * 32 + 16 * c, 16);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			stg_u16(B + (8 * c + 2 * k) * 32 + lane, w[k] & 0xffff);
			stg_u16(B + (8 * c + 2 * k + 1) * 32 + lane, w[k] >> 16);
		}
	}
}
