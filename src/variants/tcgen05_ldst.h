/* The plan of variant tcgen05_ldst (src/variants/tcgen05_ldst.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.tcgen05_ldst. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_TCGEN05_LDST_H
#define TILEPX_VARIANT_TCGEN05_LDST_H
#include "part.h"

typedef struct tcgen05_ldst_plan {
	bool ld;
	int shape, n_slabs, rows;
	bool pack;        /* .pack::16b / .unpack::16b: one 16-bit element per column */
	int64_t slab_regs; /* 32-bit registers per slab (16x*b) */
	int64_t col32;   /* first 32-bit column of the region */
	int64_t reg32;   /* first 32-bit register of the region */
	int64_t width32; /* 32-bit columns per row */
	int nchunks;
	int chunk[16];   /* num of each instruction, widest first */
	Affine colvar;   /* the column start's terms over kernel variables, in 32-bit columns (c = 0) */
} TcPlan;

#endif
