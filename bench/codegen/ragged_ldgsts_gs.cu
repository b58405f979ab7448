#include "twin.h"

DEV void cp_async16_zfill(uint32_t s, const void *g, bool outside)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\ncp.async.cg.shared.global [%0], [%1], 16, p;\n}" ::"r"(s), "l"(g), "r"((int)outside));
}
KERNEL(128) ragged_ldgsts_gs(const uint16_t *A, uint16_t *B, unsigned M, unsigned N)
{
	__shared__ __align__(16) uint16_t S[64 * 64];
	unsigned t = threadIdx.x, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;
	uint32_t s = smem(&S[t / 8 * 64 + c0]);
#pragma unroll 1
	for (unsigned n = 0; n < (N + 63) / 64; n++) {
		unsigned c = n * 64 + c0;
#pragma unroll
		for (int j = 0; j < 4; j++) {
			unsigned r = r0 + 16 * j;
			cp_async16_zfill(s + j * 2048, A + (r * N + c), !((int)(M - r) > 0 && (int)(N - c) > 0));
		}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int j = 0; j < 4; j++) {
			unsigned r = r0 + 16 * j;
			uint32_t v[4];
			lds(v, s + j * 2048, 16);
			if ((int)(M - r) > 0 && (int)(N - c) > 0)
				stg(B + (r * N + c), v, 16);
		}
		__syncthreads();
	}
}
