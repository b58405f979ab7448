#include "twin.h"

DEV unsigned swz(unsigned m) { unsigned x = m >> 3; return ((x ^ ((x >> 3) & 7)) << 3) | (m & 7); }

KERNEL(128) ldgsts_bf16_swz_grid(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint8_t S[8192];
	const unsigned tid = threadIdx.x;
	{
		const int j = 0;
		const size_t g0 = (size_t)(blockIdx.x * 1 + j) * 4096;
		(void)j;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 8, r = c / 64, col = c % 64;
			cp_async<16>(smem(S) + (swz(r * 64 + col)) * 2, A + g0 + c);
		}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 4; i++) {
			unsigned c = (i * 128 + tid) * 8, r = c / 64, col = c % 64;
			Mov<16>::s2g(B + g0 + c, smem(S) + (swz(r * 64 + col)) * 2);
		}

	}
}
