#include "twin.h"

KERNEL(32) ldm_x4_m8(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(16) uint16_t S[2048];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 8; i++) {
		unsigned c = (i * 32 + lane) * 8, rr = c / 32, cc = c % 32;
		Mov<16>::g2s(smem(S) + (rr * 32 + cc) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[32];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 8; m++)
		ldsm<4, false>(r + 4 * m, smem(S) + ((8 * m + q) * 32 + 8 * j) * 2);
	dump<32>(D, r, 32);
}
