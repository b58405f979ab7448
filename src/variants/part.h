/* The partition types (partition.h builds them) that variant plans hold:
 * types only, on tilepx.h's, so that tilepx.h's end can include the plans
 * (variants/plans.h) through them. */
#ifndef TILEPX_PART_H
#define TILEPX_PART_H

enum { MAX_TAIL = 8 }; /* a digit's remainder below 16 accesses: at most 8 pieces */

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
	/* gmem_smem only, ntail > 0: that digit's extent is not a multiple of
	 * `wide`; once per step of the digits before it (out[0..tail_at)), the
	 * rest moves in tail_n[i] accesses of vec elements at once from access
	 * tail_start[i] of the digit, widest first (so each stays aligned) */
	int ntail, tail_at;
	int tail_use; /* > 0: one shared read of tail_n[0] accesses, the first tail_use of them copied (the rest is padding) */
	int tail_n[MAX_TAIL];
	int64_t tail_start[MAX_TAIL];
} Part;

#endif
