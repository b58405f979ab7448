/* ptxemu's tensor-core instructions (emu/ptxemu_mma.c) */
#ifndef PTXEMU_MMA_H
#define PTXEMU_MMA_H
#include <stdbool.h>
#include <stdint.h>
/* one warp's mma.sync m16n8k16 .row.col f32 accumulate; d may alias c */
void ptxemu_mma_m16n8k16(const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][4],
                         uint32_t d[32][4], bool bf16);
#endif
