/* The emitter's per-kernel state, shared by the lowering helpers
 * (src/ptx/lower.c) and the statement and module emitter (src/emit/emit.c). */
#ifndef TILEPX_LOWER_H
#define TILEPX_LOWER_H
#include "tilepx.h"
#include "abi.h"

struct Emit {
	Ctx *cx;
	const Module *m;
	const Kernel *k;
	KernelAbi abi;    /* the kernel's params (src/abi.h), built once */
	Builder b;
	Reg tid, ctaid, ctaidy, crank, lane, warp, wg, tid_wg;
	Reg not_leader;   /* %p: this thread is not thread 0 (elected statements) */
	Reg *mbar_base;   /* per mbarrier array */
	Reg red_base;     /* the reductions' scratch words (Kernel.red_scratch) */
	Reg *mbar_phase;  /* per mbarrier array touched by a runtime loop: its phase bits (0: none) */
	Reg *tmap_addr;   /* per buffer index: generic address of its tensor map */
	Reg *param_base;  /* per buffer index */
	Reg *shared_base; /* per buffer index */
	Reg **local_words;
	Reg *tmem_addr;
	Reg *var_regs;    /* per variable id */
	Reg across_c, across_n; /* the persistent loop's CTA index and count on its axis */
	Str decls;        /* .shared declarations inside the entry */
	/* hoisting: inside a repeat, values that depend only on the prologue's
	 * registers (thread and CTA indices, bases) are emitted once, into `pre`,
	 * printed before the outermost loop, and memoized by content for the
	 * loop. Outside loops they are emitted in place (short live ranges) and
	 * memoized for the statement only (control flow inside a statement never
	 * escapes it). */
	Str pre;
	Loc pre_loc; /* -lineinfo: the last .loc written into pre (swapped with the builder's) */
	int hoisting, repeat_depth;
	struct Memo { int n; size_t key; Reg r; } *memo; /* key: offset in kpool */
	size_t nmemo, memocap;
	int64_t *kpool; /* keys of the live memo entries; reused when the memo is cleared */
	size_t kn, kcap;
};

static inline bool is_pow2(int64_t v) { return v > 0 && !(v & (v - 1)); }
static inline int log2i(int64_t v)
{
	int n = 0;
	while (((int64_t)1 << n) < v)
		n++;
	return n;
}

#endif
