#include "twin.h"

KERNEL(32) ldm_x4_trans_m4(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[1024];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int c = 0; c < 4; c++) {
		uint32_t w[4];
#pragma unroll
		for (int k = 0; k < 4; k++)
			w[k] = ldg_u16(A + (8 * c + 2 * k) * 32 + lane) | ldg_u16(A + (8 * c + 2 * k + 1) * 32 + lane) << 16;
		sts(smem(S) + lane * 64 + 16 * c, w, 16);
	}
	__syncthreads();
	uint32_t r[16];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 4; m++)
		ldsm<4, true>(r + 4 * m, smem(S) + ((8 * m) + 32 * (8 * j + q)) * 2);
	dump<16>(D, r, 32);
}
