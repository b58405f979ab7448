#include "twin.h"

KERNEL(32) fallback_s2s(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[128], S2[128];
	const unsigned lane = threadIdx.x;
	Mov<8>::g2s(smem(S) + lane * 8, A + lane * 4);
	__syncthreads();
	if (threadIdx.x == 0)
		for (int i = 0; i < 16; i++) // the fallback's 16-byte vectors (vec_bits 128)
			Mov<16>::s2s(smem(S2) + i * 16, smem(S) + i * 16);
	__syncthreads();
	Mov<8>::s2g(B + lane * 4, smem(S2) + lane * 8);
}
