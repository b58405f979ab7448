#include "twin.h"

KERNEL(32) ldm_x4_trans(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[256];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 8; i++) {
		unsigned c = i * 32 + lane, rr = c / 32, cc = c % 32;
		Mov<2>::g2s(smem(S) + (rr + 8 * cc) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[4];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<4, true>(r + 4 * m, smem(S) + ((8 * m) + 8 * (8 * j + q)) * 2);
	dump<4>(D, r, 32);
}
