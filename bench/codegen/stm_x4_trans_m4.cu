#include "twin.h"

KERNEL(32) stm_x4_trans_m4(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[1024];
	const unsigned lane = threadIdx.x;
	uint32_t r[16];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < 4; m++)
#pragma unroll
		for (int k = 0; k < 4; k++)
			ldg(r + 4 * m + k, A + (8 * m + lane / 4) * 32 + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 4; m++)
		stsm<4, true>(smem(S) + ((8 * m) + 32 * (8 * j + q)) * 2, r + 4 * m);
	__syncthreads();
	#pragma unroll
	for (int c = 0; c < 4; c++) {
		uint32_t w[4];
		lds(w, smem(S) + lane * 64 + 16 * c, 16);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			stg_u16(B + (8 * c + 2 * k) * 32 + lane, w[k] & 0xffff);
			stg_u16(B + (8 * c + 2 * k + 1) * 32 + lane, w[k] >> 16);
		}
	}
}
