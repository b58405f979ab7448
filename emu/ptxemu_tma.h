/* ptxemu's mbarriers, TMA (cp.async.bulk.tensor) and bulk async-groups,
 * from the PTX ISA's description, not from tilepx's emitter:
 *  - an mbarrier has an arrival count, pending arrivals, a transaction count
 *    and a phase; a phase completes when both counts reach zero;
 *  - a TMA load lands (and completes its bytes on the barrier) only when a
 *    thread waits on that barrier or every thread is blocked, so a read
 *    before the wait sees stale shared memory;
 *  - a TMA store reads shared memory when its bulk group is waited for
 *    (cp.async.bulk.wait_group[.read]) or its thread exits;
 *  - a multicast load (.multicast::cluster, ctaMask) is one load per CTA of
 *    the mask: the box at the same shared offset of each, completing on
 *    each one's mbarrier at the same offset; that barrier must be
 *    initialized when the multicast is issued, and the CTA must not exit
 *    before the bytes land;
 *  - the 32/64/128-byte swizzles XOR address bits [4, 4+W) with [7, 7+W)
 *    (W = 1, 2, 3) of the shared address; out-of-bounds box elements load
 *    as zero; a store writes the innermost dimension in whole 16-byte units,
 *    as an H100 does (box elements past the innermost edge up to the next
 *    16 bytes are stored; past the param that is an error); a load or store
 *    whose box's innermost start is not on 16 bytes faults.
 * The tensor maps are the emulator's own: the kernel's K_tmap_I param is
 * addressed as TMAP_TAG | I, and I indexes kernel_tensor_maps(). */
#ifndef PTXEMU_TMA_H
#define PTXEMU_TMA_H
#include "tilepx.h"

#define TMAP_TAG (1ull << 60)

typedef struct TmaState TmaState;

typedef struct TmaEnv {
	unsigned char *shared;
	int64_t shared_bytes;
	unsigned char **param_mem; /* global buffers by declared param index */
	size_t *param_bytes;
	const TensorMapArgs *maps;
	int nmaps;
	int nparams;
	/* a cluster's CTAs: CTA r's shared memory is shared[r*win, r*win + cta_bytes) */
	int64_t win;
	int nranks;
	int64_t cta_bytes;
} TmaEnv;

TmaState *tma_new(void);
void tma_free(TmaState *s);
void tma_reset(TmaState *s); /* a new CTA */
/* one instruction of thread `tid`: returns 1 when handled, 0 when op is not
 * one of these; *blocked is set when a try_wait found its phase incomplete
 * (the thread stays at the instruction); vals[i] are the operand values the
 * caller resolved (registers, immediates, addresses in brackets) */
typedef struct TmaOp {
	const char *op;
	int nops;
	uint64_t v[8];      /* operand values; for a tensor operand: v[1] map, coords in c[] */
	int32_t c[5];
	int nc;
	int rank;           /* the issuing thread's CTA in the cluster */
	uint64_t sbase;     /* its shared window: added to every shared address operand */
	int line;           /* the .tile line it comes from (0 unknown) */
} TmaOp;
int tma_step(TmaState *s, const TmaEnv *env, int tid, const TmaOp *o, uint64_t *result, bool *blocked,
             const char **err);
/* a store (TMA or bulk) not yet performed reads shared bytes [a, a + bytes):
 * its thread and .tile line */
bool tma_store_reading(const TmaState *s, const TmaEnv *env, uint64_t a, int bytes, int *tid, int *line);
/* a thread ends: its uncompleted stores are performed */
void tma_thread_exit(TmaState *s, const TmaEnv *env, int tid, const char **err);
/* CTA `rank` has exited: a multicast still in flight into it, or issued
 * into it later, is an error */
void tma_cta_exit(TmaState *s, const TmaEnv *env, int rank, const char **err);
/* every thread is blocked: perform all loads in flight; false if none was */
bool tma_drain(TmaState *s, const TmaEnv *env, const char **err);
/* the state of the mbarrier at cluster-wide shared address addr; false when
 * none was initialized there */
bool tma_mbar(const TmaState *s, uint64_t addr, int64_t *phase, int64_t *pending, int64_t *count, int64_t *tx);
#endif
