#include "twin.h"

KERNEL(128) gs_f32_32x32(const float *A, float *B)
{
	__shared__ __align__(16) uint8_t S[4096];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 2; i++) {
			unsigned c = (i * 128 + tid) * 4, r = c / 32, col = c % 32;
			Mov<16>::g2s(smem(S) + (r * 32 + col) * 4, A + g0 + c);
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 2; i++) {
			unsigned c = (i * 128 + tid) * 4, r = c / 32, col = c % 32;
			Mov<16>::s2g(B + g0 + c, smem(S) + (r * 32 + col) * 4);
		}

	}
}
