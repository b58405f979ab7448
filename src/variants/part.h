/* The partition types (partition.h builds them) that variant plans hold:
 * types only, on tilepx.h's, so that tilepx.h's end can include the plans
 * (variants/plans.h) through them. */
#ifndef TILEPX_PART_H
#define TILEPX_PART_H

typedef struct Pair {
	int64_t ext, a, b; /* a: driving side (global / registers), b: the other */
	Axis axis;         /* axis of side a's iter */
} Pair;

typedef struct Part {
	int vec;             /* elements per access */
	int nthr, nout;
	Pair thr[MAX_ITERS]; /* thread digits, most significant first */
	Pair out[MAX_ITERS]; /* outer loop digits, most significant first */
	int64_t outer;       /* product of out extents */
	int64_t thr_size;    /* product of thr extents (reg: and of rep extents) */
	/* reg only: the register layout's replica digits (a: thread stride, b: 0):
	 * every replica loads; only replica 0 (all rep digits 0) stores */
	int nrep;
	Pair rep[MAX_REPS];
	/* reg only, nvp > 0: the vector's digits (most significant first), one
	 * contiguous run in memory whose 32-bit words lie anywhere in the
	 * registers (strides a); nvp == 0: contiguous on both sides */
	int nvp;
	Pair vp[4];
	/* gmem_smem only, wide > 1: the shared side moves `wide` accesses of vec
	 * elements at once (one wider access); the global side's `wide` pieces
	 * are wide_a apart (the innermost outer digit, split off out[]) */
	int wide;
	int64_t wide_a;
} Part;

#endif
