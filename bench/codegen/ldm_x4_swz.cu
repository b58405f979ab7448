#include "twin.h"

DEV unsigned swz(unsigned m) { unsigned x = m >> 3; return ((x ^ ((x >> 3) & 7)) << 3) | (m & 7); }

KERNEL(32) ldm_x4_swz(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(128) uint16_t S[512];
	const unsigned lane = threadIdx.x;
	#pragma unroll
	for (int i = 0; i < 1; i++) {
		unsigned c = (i * 32 + lane) * 8, rr = c / 32, cc = c % 32;
		Mov<16>::g2s(smem(S) + (swz(rr * 64 + cc)) * 2, A + c);
	}
	__syncthreads();
	uint32_t r[4];
	const unsigned q = lane % 8, j = (lane / 8) % 4;
#pragma unroll
	for (int m = 0; m < 1; m++)
		ldsm<4, false>(r + 4 * m, smem(S) + (swz((8 * m + q) * 64 + 8 * j)) * 2);
	dump<4>(D, r, 32);
}
