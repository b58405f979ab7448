/* ptxemu: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
 * for one warp, from the PTX ISA's fragment tables ("Matrix Fragments for
 * mma.m16n8k16 with floating point type"), with groupID = lane >> 2 and
 * threadID_in_group = lane % 4:
 *   A (16x16, .row), a_i (two per .b32 register, a_{2j} in the low half):
 *     row = groupID + 8 * (i in {2,3,6,7}), col = 2 * tig + (i & 1) + 8 * (i >= 4)
 *   B (16x8, .col), b_i: row = 2 * tig + (i & 1) + 8 * (i >= 2), col = groupID
 *   C, D (16x8 f32), c_i: row = groupID + 8 * (i >= 2), col = 2 * tig + (i & 1)
 * The products are summed in f32 in k order; inputs whose products and
 * sums are exact in f32 give the hardware's result bit for bit. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptxemu_mma.h"
#include "ptxemu_half.h"

void ptxemu_mma_m16n8k16(const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][4],
                         uint32_t d[32][4], bool bf16)
{
	float A[16][16], B[16][8], C[16][8];
	for (int lane = 0; lane < 32; lane++) {
		int g = lane >> 2, t = lane % 4;
		for (int i = 0; i < 8; i++) {
			int row = g + 8 * (i == 2 || i == 3 || i == 6 || i == 7), col = 2 * t + (i & 1) + 8 * (i >= 4);
			A[row][col] = emu_half_to_f32((uint16_t)(a[lane][i / 2] >> (16 * (i & 1))), bf16);
		}
		for (int i = 0; i < 4; i++) {
			int row = 2 * t + (i & 1) + 8 * (i >= 2);
			B[row][g] = emu_half_to_f32((uint16_t)(b[lane][i / 2] >> (16 * (i & 1))), bf16);
		}
		for (int i = 0; i < 4; i++) {
			float f;
			memcpy(&f, &c[lane][i], 4);
			C[g + 8 * (i >= 2)][2 * t + (i & 1)] = f;
		}
	}
	for (int lane = 0; lane < 32; lane++) {
		int g = lane >> 2, t = lane % 4;
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i >= 2), col = 2 * t + (i & 1);
			float acc = C[row][col];
			for (int k = 0; k < 16; k++)
				acc += A[row][k] * B[k][col];
			memcpy(&d[lane][i], &acc, 4);
		}
	}
}
