#include "twin.h"

KERNEL(32) reg_frag_g(const uint16_t *A, uint16_t *B)
{
	const unsigned lane = threadIdx.x;
	uint32_t r[4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		ldg(r + k, A + (lane / 4) * 32 + 8 * k + 2 * (lane % 4), 4);
#pragma unroll
	for (int k = 0; k < 4; k++)
		stg(B + (lane / 4) * 32 + 8 * k + 2 * (lane % 4), r + k, 4);
}
