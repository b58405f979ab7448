#include "twin.h"

KERNEL(32) ldm_x1(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[64];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 1; i++) {
		unsigned c = (i * 32 + lane) * 2, rr = c / 8, cc = c % 8;
		Mov<4>::g2s(smem(S) + (rr * 8 + cc) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[1];
	const unsigned q = lane % 8, j = (lane / 8) % 1;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<1, false>(r + 1 * m, smem(S) + ((8 * m + q) * 8 + 8 * j) * 2);
	dump<1>(D, r, 32);
}
