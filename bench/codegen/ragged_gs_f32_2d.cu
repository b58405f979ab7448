#include "twin.h"

KERNEL(256) ragged_gs_f32_2d(const float *A, float *B, unsigned M, unsigned N)
{
	__shared__ __align__(16) float S[32 * 32];
	unsigned t = threadIdx.x, r = blockIdx.x * 32 + t / 8, c = blockIdx.y * 32 + t % 8 * 4;
	uint32_t s = smem(&S[t / 8 * 32 + t % 8 * 4]);
	uint32_t v[4] = {0, 0, 0, 0};
	if ((int)(M - r) > 0 && (int)(N - c) > 0)
		ldg(v, A + (r * N + c), 16);
	sts(s, v, 16);
	__syncthreads();
	lds(v, s, 16);
	if ((int)(M - r) > 0 && (int)(N - c) > 0)
		stg(B + (r * N + c), v, 16);
}
