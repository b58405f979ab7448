#include "twin.h"

KERNEL(32) gs_f16_16x4(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint8_t S[128];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 32 + tid) * 2, r = c / 4, col = c % 4;
			Mov<4>::g2s(smem(S) + (r * 4 + col) * 2, A + g0 + c);
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 32 + tid) * 2, r = c / 4, col = c % 4;
			Mov<4>::s2g(B + g0 + c, smem(S) + (r * 4 + col) * 2);
		}

	}
}
