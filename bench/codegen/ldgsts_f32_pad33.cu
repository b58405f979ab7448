#include "twin.h"

KERNEL(128) ldgsts_f32_pad33(const float *A, float *B)
{
	__shared__ __align__(16) uint8_t S[4224];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 8; i++) {
			unsigned c = (i * 128 + tid) * 1, r = c / 32, col = c % 32;
			cp_async<4>(smem(S) + (r * 33 + col) * 4, A + g0 + c);
		}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 8; i++) {
			unsigned c = (i * 128 + tid) * 1, r = c / 32, col = c % 32;
			Mov<4>::s2g(B + g0 + c, smem(S) + (r * 33 + col) * 4);
		}

	}
}
