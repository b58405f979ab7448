/* A reduce statement's lowering (src/front/reduce.c decides it, the
 * emitter builds it: src/emit/reduce_emit.c). */
#ifndef TILEPX_REDUCE_PLAN_H
#define TILEPX_REDUCE_PLAN_H
#include "tilepx.h"

/* the lowering: per slot (one DST element per thread), the SRC registers
 * chained in order and the DST register written; then the lane masks */
typedef struct RedPlan {
	int nslot;
	int *first, *count;  /* slot g: regs[first[g] .. first[g] + count[g]) */
	int64_t *regs;       /* SRC element registers */
	int64_t *dst;        /* DST element register of slot g */
	int nbits;
	int bits[5];         /* shfl.bfly lane masks, lowest first */
	int nwbits;
	int wbits[8];        /* thread-index bits >= 5 combined through shared memory, lowest first */
} RedPlan;

/* the whole plan; cx NULL: no diagnostics (emission, after check passed) */
bool reduce_plan(Ctx *cx, Arena *ar, const Kernel *k, const Stmt *s, RedPlan *rp);

#endif
