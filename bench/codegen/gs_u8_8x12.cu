#include "twin.h"

KERNEL(32) gs_u8_8x12(const uint8_t *A, uint8_t *B)
{
	__shared__ __align__(16) uint8_t S[96];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 3; i++) {
			unsigned c = (i * 32 + tid) * 1, r = c / 12, col = c % 12;
			Mov<1>::g2s(smem(S) + (r * 12 + col) * 1, A + g0 + c);
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 3; i++) {
			unsigned c = (i * 32 + tid) * 1, r = c / 12, col = c % 12;
			Mov<1>::s2g(B + g0 + c, smem(S) + (r * 12 + col) * 1);
		}

	}
}
