/* Partitions shared by the copy variants: the [outer, threads, vec] split of
 * gmem_smem / ldgsts and the register-induced split of reg. Both are built
 * on one layout-algebra step: the common refinement of the two operands'
 * sliced layouts into pairs (extent, stride on side A, stride on side B). */
#ifndef TILEPX_PARTITION_H
#define TILEPX_PARTITION_H

#include "../tilepx.h"
#include "part.h"

/* gmem_smem / ldgsts: a = global, b = shared. vec_bits lists candidates, widest
 * first; returns NULL or the reason no width fits. */
const char *gs_partition(const CopyOp *op, const View *g, const View *s, const int *vec_bits, int ncand, Part *out);
/* the same; idle: when no width splits over all the scope's threads, the
 * widest that splits over fewer (Part.thr_size: the others idle) */
const char *gs_partition_some(const CopyOp *op, const View *g, const View *s, const int *vec_bits, int ncand,
                              bool idle, Part *out);

/* gmem_smem: where the global side is narrower than the shared side allows
 * (a column-major tile read with scalar accesses), move the innermost outer
 * digit's 2..16 adjacent shared accesses as one access of 4, 8 or 16 bytes
 * when every shared stride and offset keeps it aligned (ptxas merged them
 * itself, so the bank model counted accesses that never ran) */
void gs_widen_shared(const CopyOp *op, const View *s, Part *p);

/* reg: a = registers (view of the local buffer, thread axes fused to its
 * owner), b = the memory side */
const char *reg_partition(const CopyOp *op, const View *r, const View *s, Part *out);

/* emit the loads/stores of a Part for gmem_smem-like copies: nested serial
 * loops over out (2..16 trips unrolled, at most 32 accesses), per-thread
 * digits from the scope's thread index (hoisted, shared); access is called
 * innermost with both sides' address operands ([reg+imm]) */
/* one access: both sides' address operands and, when a side is a param with
 * runtime extents, its guard predicate (NULL: none): guard_out false means
 * "in bounds" (predicate the access), true "out of bounds" (zero-fill) */
typedef struct AccessOps {
	const char *a, *b;
	const char *aw[16]; /* Part.wide > 1: side a's operands of the pieces (aw[0] == a) */
	int nw;
	const char *guard;
	bool guard_out;
	int nuse; /* > 0: only the first nuse pieces go to side a (a shared read over padding) */
} AccessOps;
typedef void (*AccessFn)(const CopyOp *op, Emit *e, const void *ctx, const AccessOps *ac);
void emit_partition_loops(const CopyOp *op, Emit *e, const Part *p, const View *a, const View *b, Reg thread,
                          AccessFn access, const void *ctx);

/* refine two views into pairs sorted threads-first, then by side a's stride
 * descending, fused where contiguous on both sides (TIRx align_layouts_raw) */
bool reg_pairs(const View *r, const View *s, Pair *out, int *n);
/* regroup pairs so that runs multiply to shape[0..ns); splits a pair where a
 * boundary falls inside it (high part first) */
bool group_pairs(const Pair *p, int n, const int64_t *shape, int ns, Pair *out, int *nout, int *seps);

/* element offset of a thread's digits on one side plus the view's affine
 * offset: inv (thread digits, CTA and warp terms: hoisted, memoized), var
 * (repeat indices: per statement) and a constant */
typedef struct Off {
	Reg inv, var;
	bool has_inv, has_var;
	int64_t c;
	Reg inv_x;     /* inv_k != 0: inv is exactly inv_x * inv_k (one thread digit) */
	int64_t inv_k;
	bool may_neg;  /* a variable's coefficient is negative: inv + var may be below 0 until c is added */
} Off;
Off emit_view_offset(Emit *e, const Part *p, const View *v, Reg thread, bool side_a);
/* the general form: af plus sum of ((t / div) % mod) * stride */
typedef struct Term {
	Reg t;
	int64_t div, mod, stride;
} Term;
Off emit_offset_terms(Emit *e, const Affine *af, const Term *tm, int nt);
Reg emit_thread_offset(Emit *e, const Part *p, const View *v, Reg thread, bool side_a);

/* one side's address: a base register plus a constant element offset.
 * Unswizzled: r is an address (global %rd, shared 32-bit %r), so constant
 * offsets become [r+imm]. Swizzled shared: r is an element offset (none when
 * has_r is false) and the swizzle is applied per access, whole swizzle spans
 * as immediates. */
typedef struct Side {
	const Buffer *buf;
	int bytes;
	bool has_r;
	Reg r;
	int64_t c;
	/* a param with runtime extents (partition.c): r addresses the thread's
	 * first element; offsets split into rows (c / proxy) and columns; left[]
	 * are the rows and columns left before the bound of a guarded dimension */
	bool dyn;
	int64_t proxy;
	bool guard[2];
	Reg left[2];
	struct DynCache *cache; /* row addresses computed so far */
} Side;
Side emit_dyn_side(Emit *e, const CopyOp *op, const Part *p, const Region *r, Reg thread, bool side_a);
/* base + (row * row stride + col) * size of an element of a param with
 * runtime extents, row and col its coordinates in the strided and the
 * contiguous dimension (rank 1: col only), in 64 bits; rank 3..5: inside
 * the slab of r's point-indexed outer dimensions */
Reg emit_dyn_address(Emit *e, const Kernel *k, const Region *r, Reg row, Reg col);
/* extent - coord of runtime dimension d (compared signed: coordinates stay below 2^31) */
Reg emit_dyn_left(Emit *e, const Kernel *k, const Buffer *b, int d, Reg coord);
/* the guard predicate of the access at constant offset extra, or NULL */
const char *emit_side_guard(Emit *e, const Side *s, int64_t extra, bool out);
Side emit_side(Emit *e, const Buffer *buf, const Off *o);
Side emit_side_step(Emit *e, Side s, Reg x, int64_t k); /* + x * k elements */
const char *emit_side_operand(Emit *e, const Side *s, int64_t extra);

/* ---- access traces (Variant.trace) ---- */
/* the warpid and wgid of the scope instance that starts at CTA thread first */
void trace_instance_vars(int64_t *vals, int64_t first);
/* one side's element offset of the thread digits of scope thread t, and of
 * outer step f (digits as emit_view_offset and the emitters' loops) */
int64_t part_thread_offset(const Part *p, int64_t t, bool side_a);
/* thread t's replica index under p's rep digits (0: the storing copy) */
int64_t part_replica_of(const Part *p, int64_t t);
int64_t part_outer_offset(const Part *p, int64_t f, bool side_a);
/* the accesses of a Part on the shared side (side a or b, view v): every
 * thread of the CTA as thread t = tid % (threads of `by`), skipped when
 * t >= p->thr_size; the region's variables of the copy's scope instance */
void trace_part(const CopyOp *op, const Part *p, const View *v, bool side_a, const Buffer *buf, bool write, Scope by,
                int64_t *vals, TraceFn fn, void *ctx);

#endif
