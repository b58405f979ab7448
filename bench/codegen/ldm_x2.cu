#include "twin.h"

KERNEL(32) ldm_x2(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[128];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 1; i++) {
		unsigned c = (i * 32 + lane) * 4, rr = c / 16, cc = c % 16;
		Mov<8>::g2s(smem(S) + (rr * 16 + cc) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[2];
	const unsigned q = lane % 8, j = (lane / 8) % 2;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<2, false>(r + 2 * m, smem(S) + ((8 * m + q) * 16 + 8 * j) * 2);
	dump<2>(D, r, 32);
}
