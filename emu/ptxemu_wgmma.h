/* ptxemu's warpgroup MMA (tools/ptxemu_wgmma.c) */
#ifndef PTXEMU_WGMMA_H
#define PTXEMU_WGMMA_H
#include <stdbool.h>
#include <stdint.h>

enum { WG_F16 = 1, WG_BF16, WG_TF32, WG_E4M3, WG_E5M2, WG_F32 };

/* one wgmma.mma_async.sync.aligned.m64nNkK.D.A.B as decoded from its text */
typedef struct WgmmaInsn {
	int n, k;
	int dt, at, bt;       /* WG_* */
	uint64_t da, db;      /* the descriptors */
	bool scale_d, ta, tb; /* scale-d; imm-trans-a/b (MN-major) */
	int nregs;            /* accumulator registers per thread */
} WgmmaInsn;

/* the instruction's shape and types from its opcode; false: not one */
bool ptxemu_wgmma_parse(const char *op, WgmmaInsn *w);
/* the shared address of element (row, k) of an operand (row: M for A, N for
 * B) read through descriptor desc, as the hardware forms it: start, leading
 * and stride byte offsets by the layout type, then the swizzle XOR on the
 * final address (bits [4, 4+B) ^= [7, 7+B)); es the element bytes */
uint64_t ptxemu_wgmma_addr(uint64_t desc, bool mn_major, int es, int row, int k);
/* every thread's accumulator words acc[t][j] (t < 128, j < nregs) updated
 * from shared memory smem (bytes long) and, for the RS form (a != NULL),
 * each thread's four A fragment words a[t]; NULL, or why it cannot run */
const char *ptxemu_wgmma_run(const WgmmaInsn *w, const unsigned char *smem, int64_t bytes, uint32_t (*acc)[128],
                             const uint32_t (*a)[4]);
/* call fn(ctx, address) for every 16-byte piece of shared memory the
 * instruction reads (B only when rs) */
void ptxemu_wgmma_reads(const WgmmaInsn *w, bool rs, void (*fn)(void *ctx, uint64_t a), void *ctx);
#endif
