#include "twin.h"

KERNEL(256) stream_gs_f32(const float *A, float *B)
{
	__shared__ __align__(16) float S[2048];
	const unsigned tid = threadIdx.x;
	for (int j = 0; j < 32; j++) {
		const size_t g0 = ((size_t)blockIdx.x * 512 + j * 16) * 128;
#pragma unroll
		for (int i = 0; i < 2; i++) {
			unsigned c = (i * 256 + tid) * 4;
			Mov<16>::g2s(smem(S) + c * 4, A + g0 + c);
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 2; i++) {
			unsigned c = (i * 256 + tid) * 4;
			Mov<16>::s2g(B + g0 + c, smem(S) + c * 4);
		}
		__syncthreads();
	}
}
