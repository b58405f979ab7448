#include "twin.h"

DEV unsigned swz(unsigned m) { unsigned x = m >> 3; return ((x ^ ((x >> 3) & 7)) << 3) | (m & 7); }

KERNEL(128) ldm_x4_trans_loop(const uint16_t *A, uint16_t *D)
{
	__shared__ __align__(128) uint16_t S[4096];
	const unsigned tid = threadIdx.x, lane = tid % 32, w = tid / 32;
	for (int i = 0; i < 32; i++) {
		unsigned g = i * 128 + tid, r = g / 64, c = g % 64;
		Mov<2>::g2s(smem(S) + swz(r + 64 * c) * 2, A + g);
	}
	__syncthreads();
	for (int j = 0; j < 2; j++) {
		uint32_t r[4];
		ldsm<4, true>(r, smem(S) + swz(w * 8 + 64 * (lane % 8) + 512 * (lane / 8) + 2048 * j) * 2);
#pragma unroll
		for (int k = 0; k < 4; k++)
			stg(D + w * 512 + j * 256 + (lane / 4) * 32 + (lane % 4) * 2 + 8 * k, r + k, 4);
	}
}
