#include "twin.h"

KERNEL(256) wg_reg_frag_f16(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[128 * 16];
	const unsigned tid = threadIdx.x, lane = tid % 32, w = tid / 32; // w = wgid * 4 + wid_in_wg
	Mov<16>::g2s(smem(S) + tid * 16, A + tid * 8);
	__syncthreads();
	uint32_t r[4];
	ldsm<4, false>(r, smem(S) + ((w * 16 + lane % 8 + 8 * ((lane / 8) % 2)) * 16 + 8 * (lane / 16)) * 2);
#pragma unroll
	for (int k = 0; k < 4; k++)
		stg(B + (w * 16 + 8 * (k % 2) + lane / 4) * 16 + 8 * (k / 2) + 2 * (lane % 4), r + k, 4);
}
