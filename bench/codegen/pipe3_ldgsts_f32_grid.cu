#include "twin.h"

DEV void cp_async_wait1() { asm volatile("cp.async.wait_group 1;"); }
DEV void cp_async_wait2() { asm volatile("cp.async.wait_group 2;"); }

KERNEL(128) pipe3_ldgsts_f32_grid(const float *A, float *B)
{
	__shared__ __align__(16) float S[3264];
	const unsigned tid = threadIdx.x;
	for (int j = 0; j < 6; j++) {
		const size_t g0 = ((size_t)blockIdx.x * 288 + j * 48) * 64;
#pragma unroll
		for (int s = 0; s < 3; s++) {
#pragma unroll
			for (int i = 0; i < 2; i++) {
				unsigned c = (i * 128 + tid) * 4, r = c / 64, col = c % 64;
				cp_async<16>(smem(S) + (s * 1088 + r * 68 + col) * 4, A + g0 + s * 1024 + c);
			}
			cp_async_commit();
		}
#pragma unroll
		for (int s = 0; s < 3; s++) {
			if (s == 0) cp_async_wait2();
			if (s == 1) cp_async_wait1();
			if (s == 2) cp_async_wait0();
			__syncthreads();
#pragma unroll
			for (int i = 0; i < 2; i++) {
				unsigned c = (i * 128 + tid) * 4, r = c / 64, col = c % 64;
				Mov<16>::s2g(B + g0 + s * 1024 + c, smem(S) + (s * 1088 + r * 68 + col) * 4);
			}
		}
		__syncthreads();
	}
}
