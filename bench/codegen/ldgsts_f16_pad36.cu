#include "twin.h"

KERNEL(128) ldgsts_f16_pad36(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint8_t S[4608];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)0;
		(void)j;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 4, r = c / 32, col = c % 32;
			cp_async<8>(smem(S) + (r * 36 + col) * 2, A + g0 + c);
		}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 4, r = c / 32, col = c % 32;
			Mov<8>::s2g(B + g0 + c, smem(S) + (r * 36 + col) * 2);
		}

	}
}
