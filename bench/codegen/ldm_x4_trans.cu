#include "twin.h"

KERNEL(32) ldm_x4_trans(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[256];
	const unsigned lane = threadIdx.x;
	uint32_t w[4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		w[k] = ldg_u16(A + (2 * k) * 32 + lane) | ldg_u16(A + (2 * k + 1) * 32 + lane) << 16;
	sts(smem(S) + lane * 16, w, 16);
	__syncthreads();
	uint32_t r[4];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<4, true>(r + 4 * m, smem(S) + ((8 * m) + 8 * (8 * j + q)) * 2);
	dump<4>(D, r, 32);
}
