#include "twin.h"

DEV void cp_async_wait_1() { asm volatile("cp.async.wait_group 1;"); }

KERNEL(256) pipe2_ldgsts_f32(const float *A, float *B)
{
	__shared__ __align__(128) uint8_t S[8192];
	const unsigned tid = threadIdx.x;
	for (int j = 0; j < 4; j++) {
		const size_t g0 = ((size_t)blockIdx.x * 256 + j * 64) * 32;
#pragma unroll
		for (int s = 0; s < 2; s++) {
#pragma unroll
			for (int i = 0; i < 1; i++) {
				unsigned c = (i * 256 + tid) * 4;
				cp_async<16>(smem(S) + (s * 1024 + c) * 4, A + g0 + s * 1024 + c);
			}
			cp_async_commit();
		}
		cp_async_wait_1();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 256 + tid) * 4;
			Mov<16>::s2g(B + g0 + 0 + c, smem(S) + (0 + c) * 4);
		}
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 256 + tid) * 4;
			Mov<16>::s2g(B + g0 + 1024 + c, smem(S) + (1024 + c) * 4);
		}
		__syncthreads();
	}
}
