#include "twin.h"

KERNEL(32) reg_32x8(const float *A, float *B, float *D)
{
	__shared__ __align__(16) float S[256];
	const unsigned lane = threadIdx.x;
#pragma unroll
	for (int i = 0; i < 2; i++)
		Mov<16>::g2s(smem(S) + ((i * 32 + lane) * 4) * 4, A + (i * 32 + lane) * 4);
	__syncthreads();
	uint32_t r[8];
	lds(r, smem(S) + lane * 32, 16);
	lds(r + 4, smem(S) + lane * 32 + 16, 16);
	dump<8>(D, r, 32);
	__syncthreads();
	sts(smem(S) + lane * 32, r, 16);
	sts(smem(S) + lane * 32 + 16, r + 4, 16);
	__syncthreads();
#pragma unroll
	for (int i = 0; i < 2; i++)
		Mov<16>::s2g(B + (i * 32 + lane) * 4, smem(S) + ((i * 32 + lane) * 4) * 4);
}
