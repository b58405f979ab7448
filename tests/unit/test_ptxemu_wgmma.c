/* ptxemu's wgmma on 8-bit float specials: e4m3's S.1111.111 is NaN (e4m3
 * has no infinities), e5m2's top exponent holds infinities and NaNs, as the
 * PTX ISA's formats define them; the ordinary formula would read 480 and
 * 65536. The emulator's sources are compiled into this test (the generic
 * unit rule links only the library). */
#include "unit.h"

#include "../../emu/ptxemu_mma.c"
#include "../../emu/ptxemu_wgmma.c"

/* a K-major, unswizzled descriptor: 16-byte core-matrix rows, the two
 * 16-byte K chunks of a 32-byte k-step 128 bytes apart, 8-row groups 256 */
static uint64_t desc(uint64_t start)
{
	return (start >> 4) | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
}

int main(void)
{
	static const char *const op[2] = {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3",
	                                  "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2"};
	static const unsigned char one[2] = {0x38, 0x3c}, special[2] = {0x7f, 0xfc}; /* 1.0; NaN, -inf */
	for (int t = 0; t < 2; t++) {
		WgmmaInsn w;
		CHECK(ptxemu_wgmma_parse(op[t], &w) && w.k == 32 && w.nregs == 4, "%s parses", op[t]);
		w.da = desc(0);      /* A [64, 32]: 2048 bytes */
		w.db = desc(2048);   /* B [8, 32] */
		static unsigned char smem[4096];
		memset(smem, one[t], sizeof smem);
		smem[0] = special[t]; /* A[0, 0] */
		static uint32_t acc[128][128];
		const char *err = ptxemu_wgmma_run(&w, smem, sizeof smem, acc, NULL);
		CHECK(!err, "%s runs: %s", op[t], err ? err : "");
		/* thread t holds row 16 (t / 32) + (t % 32) / 4 + 8 ((i % 4) / 2) */
		int row0 = 1, rest = 1;
		for (int th = 0; th < 128; th++)
			for (int i = 0; i < 4; i++) {
				float d;
				memcpy(&d, &acc[th][i], 4);
				int row = 16 * (th / 32) + (th % 32) / 4 + 8 * ((i % 4) / 2);
				if (row == 0)
					row0 &= t == 0 ? d != d : d < -1e38f;
				else
					rest &= d == 32.0f;
			}
		CHECK(row0, "%s: row 0 of D is %s", op[t], t == 0 ? "NaN" : "-infinity");
		CHECK(rest, "%s: the other rows are 32", op[t]);
	}
	UNIT_END();
}
