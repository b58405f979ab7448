#include "twin.h"

DEV unsigned swz(unsigned m) { unsigned x = m >> 3; return ((x ^ ((x >> 3) & 7)) << 3) | (m & 7); }

DEV void cp_async_wait_1() { asm volatile("cp.async.wait_group 1;"); }
DEV void cp_async_wait_2() { asm volatile("cp.async.wait_group 2;"); }

KERNEL(128) pipe3_ldgsts_f16_swz(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(128) uint8_t S[6144];
	const unsigned tid = threadIdx.x;
	for (int j = 0; j < 2; j++) {
		const size_t g0 = ((size_t)blockIdx.x * 96 + j * 48) * 64;
#pragma unroll
		for (int s = 0; s < 3; s++) {
#pragma unroll
			for (int i = 0; i < 1; i++) {
				unsigned c = (i * 128 + tid) * 8;
				cp_async<16>(smem(S) + swz(s * 1024 + c) * 2, A + g0 + s * 1024 + c);
			}
			cp_async_commit();
		}
		cp_async_wait_2();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 128 + tid) * 8;
			Mov<16>::s2g(B + g0 + 0 + c, smem(S) + swz(0 + c) * 2);
		}
		cp_async_wait_1();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 128 + tid) * 8;
			Mov<16>::s2g(B + g0 + 1024 + c, smem(S) + swz(1024 + c) * 2);
		}
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < 1; i++) {
			unsigned c = (i * 128 + tid) * 8;
			Mov<16>::s2g(B + g0 + 2048 + c, smem(S) + swz(2048 + c) * 2);
		}
		__syncthreads();
	}
}
