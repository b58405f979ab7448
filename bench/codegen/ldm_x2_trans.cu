#include "twin.h"

KERNEL(32) ldm_x2_trans(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[128];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 4; i++) {
		unsigned c = i * 32 + lane, rr = c / 16, cc = c % 16;
		Mov<2>::g2s(smem(S) + (rr + 8 * cc) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[2];
	const unsigned q = lane % 8, j = (lane / 8) % 2;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<2, true>(r + 2 * m, smem(S) + ((8 * m) + 8 * (8 * j + q)) * 2);
	dump<2>(D, r, 32);
}
