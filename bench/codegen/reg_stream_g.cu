#include "twin.h"

KERNEL(128) reg_stream_g(const uint16_t *A, uint16_t *B)
{
	const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
	for (int j = 0; j < 8; j++) {
		const size_t row = (size_t)blockIdx.x * 256 + j * 32 + w * 8 + lane / 4;
		uint32_t r[4];
#pragma unroll
		for (int k = 0; k < 4; k++)
			ldg(r + k, A + row * 32 + 8 * k + 2 * (lane % 4), 4);
#pragma unroll
		for (int k = 0; k < 4; k++)
			stg(B + row * 32 + 8 * k + 2 * (lane % 4), r + k, 4);
	}
}
