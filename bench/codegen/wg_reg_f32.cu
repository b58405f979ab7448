#include "twin.h"

KERNEL(256) wg_reg_f32(const float *A, float *B)
{
	__shared__ __align__(16) float S[256 * 32];
#pragma unroll
	for (int i = 0; i < 8; i++) {
		unsigned c = (i * 256 + threadIdx.x) * 4;
		Mov<16>::g2s(smem(S) + c * 4, A + c);
	}
	__syncthreads();
	const unsigned row = threadIdx.x; // wgid * 128 + tid_in_wg
	uint32_t r[32];
#pragma unroll
	for (int k = 0; k < 8; k++)
		lds(r + 4 * k, smem(S) + (row * 32 + 4 * k) * 4, 16);
#pragma unroll
	for (int k = 0; k < 8; k++)
		stg(B + row * 32 + 4 * k, r + 4 * k, 16);
}
