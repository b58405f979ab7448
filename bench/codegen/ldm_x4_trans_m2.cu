#include "twin.h"

KERNEL(32) ldm_x4_trans_m2(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[512];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int c = 0; c < 2; c++) {
		uint32_t w[4];
#pragma unroll
		for (int k = 0; k < 4; k++)
			w[k] = ldg_u16(A + (8 * c + 2 * k) * 32 + lane) | ldg_u16(A + (8 * c + 2 * k + 1) * 32 + lane) << 16;
		sts(smem(S) + lane * 32 + 16 * c, w, 16);
	}
	__syncthreads();
	uint32_t r[8];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 2; m++)
		ldsm<4, true>(r + 4 * m, smem(S) + ((8 * m) + 16 * (8 * j + q)) * 2);
	dump<8>(D, r, 32);
}
