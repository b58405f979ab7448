/* The statement hooks that stmt.def names, by family (included by tilepx.h
 * where they stand in its order: after the types they use). */
#ifndef TILEPX_HOOKS_H
#define TILEPX_HOOKS_H

/* ---- asm blocks and init (src/front/asm.c): stmt.def hooks ---- */
void check_asm(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void check_init(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void emit_asm(Emit *e, const Stmt *s);
/* ---- set (src/front/set_check.c, src/emit/set_emit.c): stmt.def hooks ---- */
void check_set(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void emit_set(Emit *e, const Stmt *s);
/* ownership of local elements (src/layout/local_own.c): the register of thread
 * `thread` (CTA index) that holds element coord of local buffer b, or -1
 * when that thread holds no copy of it. The one query set's checks and
 * emission ask (replicated layouts extend it here). */
int64_t local_reg_of(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t thread);
/* threads in one instance of local buffer b (its owner group) */
int64_t local_owner_threads(const Kernel *k, const Buffer *b);
/* the thread of the first owner group that holds element coord of b (the
 * threads that hold it are this one plus multiples of the group's size) */
int64_t local_thread_of(const Kernel *k, const Buffer *b, const int64_t *coord);
/* replicated layouts: how many copies of each element, and copy rep's thread */
int64_t local_replicas(const Buffer *b);
int64_t local_thread_of_rep(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t rep);
/* what set's check proves and its emission follows (src/front/set_check.c):
 * computed from the program alone, the same in both */
typedef struct SetTerm { int64_t div, mod, w; } SetTerm; /* ((tid / div) % mod) * w */
typedef struct SetPlan {
	int64_t regs;         /* elements of the destination per thread */
	signed char *written; /* [regs]: 1 the statement writes register r (in every thread), 0 it does not */
	int64_t *opreg;       /* [nnodes * regs]: an SX_LOAD's operand register for destination register r */
	signed char *fold;    /* [nnodes * regs]: an SX_ICMP at register r: 0, 1, or -1 (decided at run time) */
	int64_t *base;        /* [regs * ndim]: coordinate d at register r, less its thread part */
	bool thread_terms;    /* every coordinate is base plus the thread part (run-time masks need it) */
	int nterm[SET_MAX_RANK];
	SetTerm term[SET_MAX_RANK][MAX_ITERS];
} SetPlan;
/* the plan of set statement s; cx NULL: no diagnostics (emission, after a
 * check that passed); false when the statement is not colocated */
bool set_plan(Ctx *cx, Arena *a, const Kernel *k, const Stmt *s, SetPlan *pl);
/* "O[3, 5]" and a buffer's layout as written, for messages */
const char *elem_text_of(Arena *a, const Buffer *b, const int64_t *c);
const char *layout_text_of(Arena *a, const Buffer *b);
void emit_init(Emit *e, const Stmt *s);
bool check_region_of(Ctx *cx, Kernel *k, Region *r); /* src/front/region.c */
/* ---- reduce.max|min|sum (src/front/reduce.c): stmt.def hooks ---- */
enum { RED_BAR_CTA = 1, RED_BAR_WG = 2, RED_BAR_ID = 12 /* + wgid */ };
void check_reduce(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void emit_reduce(Emit *e, const Stmt *s);
/* ---- red.add|max (src/front/red.c): stmt.def hook ---- */
void check_red(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
bool check_affine_range(const Kernel *k, const Affine *e, int64_t *lo, int64_t *hi);

/* ---- mbarriers, bulk groups, TMA (src/front/mbar_check.c, mbar_emit.c): stmt.def hooks ---- */
void check_mbar(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
/* a copy's TMA facts: its mbarrier operand, the tensor map's box and swizzle */
void check_copy_tma(Ctx *cx, Kernel *k, Stmt *s);
/* the phase analysis: arrival counts, transaction bytes, parities, bulk
 * groups and proxy fences of the whole kernel, executed statically */
bool check_tma_maps_used(Ctx *cx, const Kernel *k);
bool stmt_is_tma_load(const Stmt *s);
bool stmt_is_tma_store(const Stmt *s);
bool stmt_is_bulk_store(const Stmt *s);
void emit_mbar_init(Emit *e, const Stmt *s);
void emit_mbar_expect_tx(Emit *e, const Stmt *s);
void emit_mbar_arrive(Emit *e, const Stmt *s);
void emit_mbar_wait(Emit *e, const Stmt *s);
void emit_mbar_skip(Emit *e, const Stmt *s);
void emit_fence_async(Emit *e, const Stmt *s);
void emit_bulk_commit(Emit *e, const Stmt *s);
void emit_bulk_wait(Emit *e, const Stmt *s);
void emit_bulk_wait_read(Emit *e, const Stmt *s);
void emit_cluster_sync(Emit *e, const Stmt *s);
void emit_cluster_arrive(Emit *e, const Stmt *s);
void emit_cluster_wait(Emit *e, const Stmt *s);
/* emission helpers for them (src/emit/emit.c) */
int emit_elect_begin(Emit *e);          /* code up to emit_elect_end runs on thread 0 only */
void emit_elect_end(Emit *e, int label);
Reg emit_mbar_addr(Emit *e, const Stmt *s); /* shared address of the statement's mbarrier */
Reg emit_mbar_phase_bits(Emit *e, const Stmt *s); /* its array's phase-bit register, id 0 when parities are static */
Reg emit_tmap_addr(Emit *e, const Buffer *b); /* generic address of a param's tensor map */

/* ---- Hopper warpgroup MMA (src/front/wgmma.c): stmt.def hooks ---- */
/* a wgmma operand's descriptor fields (src/ptx/wgmma_desc.c), in bytes */
enum { WG_MAX_KSTEPS = 64 };
typedef struct WgDesc {
	bool mn_major;          /* imm-trans 1: 16-byte runs along M (A) or N (B) */
	int swz;                /* swizzle row: 0 (none), 32, 64, 128 bytes */
	int mode;               /* descriptor layout type: 0 none, 1 128B, 2 64B, 3 32B */
	int ksteps;
	int64_t lbo, sbo;       /* leading / stride byte offsets */
	bool lbo_used, sbo_used;/* whether the layout reads the field (else a filler) */
	int64_t step_off[WG_MAX_KSTEPS]; /* each k-step's start from the region's, bytes */
} WgDesc;
/* off[i * kext + j]: the byte offset (before the swizzle) of operand element
 * (row i, k j) from the region's first; swz the buffer's swizzle row (0, 32,
 * 64, 128); kinst the K of one instruction. Derives and proves the canonical
 * layout; false with the reason in why and a fix in note (may be empty). */
bool wgmma_derive(const int64_t *off, int rows, int kext, int es, int swz, int kinst, const char *name, WgDesc *d,
                  char *why, size_t wn, char *note, size_t nn);
/* the 64-bit descriptor for a start address in shared memory */
uint64_t wgmma_desc_encode(uint32_t start, const WgDesc *d);
void check_wgmma(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
/* every warp of the kernel's CTA (src/base/kernel.c) */
uint64_t kernel_all_warps(const Kernel *k);
/* warp roles (their checks src/front/roles_check.c, the phase proof src/proof/roles*.c) */
/* every warpgroup is in the set entirely or not at all */
bool whole_warpgroups(uint64_t warps);
/* the warps of a set as text: "0..3, 8" */
void fmt_warps(char *out, size_t n, uint64_t warps);
/* the warps of s that use named barrier id (an id from wgid: each warpgroup its own) */
uint64_t nbar_warps(const Stmt *s, int64_t id);
/* vals[var] = v, and the stage indices (i + c) % C of var with it */
void kernel_set_var(const Kernel *k, int64_t *vals, int var, int64_t v);
/* tile t of a linear walk over tm_count x tn_count tiles: bands of g tile
 * rows (fewer in the last band), each walked column by column (the
 * analyses'; the emitter and the reference compute it their own ways) */
void tile_of(int64_t t, int64_t tm_count, int64_t tn_count, int64_t g, int64_t *tm, int64_t *tn);
/* a repeat whose count is set at launch (a scalar, cdiv or an expression) */
static inline bool stmt_runtime_trips(const Stmt *s) { return s->trips_scalar || s->trips_expr; }
/* repeat s's trips at the variables' values vals (before 'across' deals them out) */
int64_t stmt_trips_at(const Kernel *k, const Stmt *s, const int64_t *vals);
/* a named barrier statement's id in warp w (bar_id at w's wgid, or n) */
int64_t nbar_id_at(const Stmt *s, int w);
/* e uses an enclosing repeat's index (its value may change from trip to trip
 * of that repeat; else it is one value per CTA) */
bool trip_expr_uses_index(const Kernel *k, const TripExpr *e);
/* repeats a and b run the same count at every launch, in every CTA */
bool stmt_trips_same(const Stmt *a, const Stmt *b);
void check_when(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void check_named_bar(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
void check_setmaxnreg(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
/* what a statement inside a when block may not do (after its own check) */
void check_in_role(Ctx *cx, Kernel *k, const Stmt *s);
/* a linear tile walk's ranges and its variables' uses (src/front/tiles.c) */
void check_tiles(Ctx *cx, Kernel *k, Stmt *s);
void check_tile_uses(Ctx *cx, Kernel *k, Stmt *s);
/* the register budgets of setmaxnreg, and the multi-role phase proof */
void check_named_bar_uses(Ctx *cx, Kernel *k);
void check_role_budgets(Ctx *cx, const Module *m, Kernel *k);
void check_role_phases(Ctx *cx, const Module *m, Kernel *k);
void emit_when(Emit *e, const Stmt *s);
void emit_named_bar(Emit *e, const Stmt *s);
void emit_setmaxnreg(Emit *e, const Stmt *s);
void emit_wgmma(Emit *e, const Stmt *s);
void emit_wgmma_fence(Emit *e, const Stmt *s);
void emit_wgmma_commit(Emit *e, const Stmt *s);
void emit_wgmma_wait(Emit *e, const Stmt *s);
/* explain's record of the statement: every descriptor field and why */
void explain_wgmma(const Kernel *k, const Stmt *s, bool json, Str *out);

#endif
