#include "twin.h"

KERNEL(128) ldgsts_f16_128x32(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint8_t S[8192];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 8, r = c / 32, col = c % 32;
			cp_async<16>(smem(S) + (r * 32 + col) * 2, A + g0 + c);
		}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 8, r = c / 32, col = c % 32;
			Mov<16>::s2g(B + g0 + c, smem(S) + (r * 32 + col) * 2);
		}

	}
}
