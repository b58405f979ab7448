/* What check_wgmma decides for one wgmma statement (Stmt.wg): its form,
 * shared operands' descriptors and accumulator registers; read by
 * explain_wgmma and emit_wgmma. */
#ifndef TILEPX_WGMMA_PLAN_H
#define TILEPX_WGMMA_PLAN_H
#include "tilepx.h"

typedef struct WgOperand {
	const Buffer *buf;
	WgDesc d;
	Affine start; /* bytes from the buffer's base to the region's first element */
} WgOperand;

typedef struct WgmmaPlan {
	int n, kinst;
	DType at, bt, acc;
	FormId form;
	WgOperand a, b;
	int nwords;  /* accumulator words per thread */
	int *words;  /* word j of the fragment -> D's register word */
	int64_t dbox[MAX_DIMS][2]; /* D's region, logical [begin, end) per dim */
	bool rs;                   /* A from registers: its fragment words per k-step */
	int awords[WG_MAX_KSTEPS][4];
	int64_t abox[MAX_DIMS][2];
} WgmmaPlan;

#endif
