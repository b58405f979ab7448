/* tilepx core header: every pass includes this one file (QBE style).
 * Pipeline: lex -> parse -> check -> (layout views) -> dispatch -> variant
 * emitters -> PTX builder -> module printer. */
#ifndef TILEPX_CORE_H
#define TILEPX_CORE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../include/tilepx/tilepx.h"
#define TILEPX_VERSION TILEPX_VERSION_STRING

enum {
	MAX_DIMS = 8,    /* buffer rank */
	MAX_ITERS = 48,  /* iters in one layout (parse limit is lower) */
	MAX_REPS = 8,    /* replica iters in one layout */
	PARSE_ITERS = 24,
	MAX_TERMS = 8,   /* variables in one affine expression */
	MAX_ERRORS = 20, /* diagnostics reported per file */
	MAX_REPEAT_DEPTH = 16,
	MAX_UNROLL = 64,          /* repeat ... unroll F: F, and a fully unrolled count */
	MAX_UNROLL_COPIES = 1024, /* product of the unroll factors of nested repeats */
};

/* ---- arena: one per compilation, freed at once ---- */
typedef struct Arena Arena;
Arena *arena_new(void); /* NULL when out of memory */
void arena_free(Arena *a);
/* a failed allocation longjmps there instead of aborting (set by the API) */
void arena_on_oom(Arena *a, jmp_buf *jb);
void *arena_alloc(Arena *a, size_t n); /* zeroed */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_str(Arena *a, size_t n); /* text: neither zeroed nor aligned */
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *arena_grow(Arena *a, void *old, size_t old_n, size_t new_n);
size_t arena_bytes(const Arena *a); /* bytes in use (allocations, rounded to 16) */

/* push x onto an arena array p with count n and capacity cap */
#define APUSH(ar, p, n, cap, x)                                                    \
	do {                                                                       \
		if ((n) == (cap)) {                                                \
			size_t nc_ = (cap) ? (size_t)(cap) * 2 : 8;                \
			(p) = arena_grow((ar), (p), sizeof(*(p)) * (size_t)(cap),  \
			                 sizeof(*(p)) * nc_);                      \
			(cap) = nc_;                                               \
		}                                                                  \
		(p)[(n)++] = (x);                                                  \
	} while (0)

/* ---- text buffer ---- */
typedef struct Str {
	char *s;
	size_t n, cap;
	bool failed; /* an append ran out of memory; the text is incomplete */
} Str;
void str_putc(Str *b, char c);
void str_puts(Str *b, const char *s);
void str_putn(Str *b, const char *s, size_t n);
void str_printf(Str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void str_free(Str *b);

/* ---- diagnostics ---- */
typedef struct Loc {
	int line, col; /* 1-based; line 0 = no location */
} Loc;

typedef struct Diag {
	bool is_error;
	bool werror; /* a warning made an error by -Werror */
	Loc loc;
	char *msg;
	char **notes; /* note: lines that explain it */
	size_t nnotes, notecap;
} Diag;

/* the command line's say over diagnostics (zero: the defaults) */
typedef struct DiagOptions {
	bool werror;      /* -Werror: a warning is an error */
	bool no_warnings; /* -w: warnings are not reported */
	bool color;       /* --color: ANSI colours as gcc's */
	int max_errors;   /* --max-errors: 0 the default (MAX_ERRORS), < 0 no limit */
	bool json;        /* --diagnostics-format=json: gcc's JSON array instead of text */
} DiagOptions;

typedef struct Diags {
	DiagOptions opt;
	const char *file;
	const char *src;
	size_t len;
	Diag *items;
	size_t n, cap;
	int errors, warnings;
	bool truncated;
	int not_shown; /* errors past the limit (--max-errors) */
	/* warnings come from analyses that assume a program without errors: once
	 * there is an error they are dropped (held and new), so errors come first
	 * and nothing is said from premises that failed; their notes with them */
	int warnings_dropped;
	bool last_dropped;
} Diags;

/* a pass's records of statements, kept beside them (src/base/stmtmap.c) */
typedef struct StmtMap StmtMap;
typedef struct Stmt Stmt;
void *stmtmap_get(const StmtMap *t, const Stmt *s);
void stmtmap_put(Arena *a, StmtMap **t, const Stmt *s, void *v);

typedef struct Ctx {
	Arena *arena;
	Diags diags;
	StmtMap *sel;    /* the select pass's decisions (src/dispatch/select.c) */
	StmtMap *parity; /* the async pass's phase parity of each mbarrier.wait (Affine *) */
	StmtMap *tx_bytes; /* the async pass's bytes of each mbarrier.expect_tx without a byte count (int64_t *) */
	StmtMap *swizzle;  /* the swizzle-auto pass's choice of each 'swizzle auto' buffer (SwizzleChoice *),
	                      keyed by the Buffer; read through buffer_swizzle */
	StmtMap *tmap_swizzle; /* ... and the swizzle it gives the tensor maps of those buffers' TMA copies (int *),
	                          keyed by the param Buffer; read through tensor_map_swizzle */
	StmtMap *run_time_phase; /* the roles' proof: mbarrier arrays whose parity the threads track at run time
	                            (keyed by the Mbar); read through mbar_run_time_phase */
	StmtMap *parent; /* each statement's enclosing block, built per kernel on the first ask (stmt_parent) */
	StmtMap *plans;  /* the statements pass's plan of each set and reduce statement (plan_keep, plan_kept):
	                    emission reads it instead of enumerating the elements again */
	/* -lineinfo: .file 1 "lineinfo_file" (NULL: the module's path) and .loc
	 * lines, for Nsight Compute's source view and cuda-gdb */
	bool lineinfo;
	const char *lineinfo_file;
	/* -D NAME=VALUE: a scalar param NAME is pinned to VALUE where it is
	 * declared (src/parse_decl.c), as the facts '>= VALUE' and '<= VALUE' */
	const char *const *defines;
	int ndefines;
} Ctx;
/* the bytes mbarrier.expect_tx s expects: its operand, else what the async
 * pass computed; false when neither (src/base/stmtmap.c) */
bool expect_tx_bytes(const Ctx *cx, const Stmt *s, int64_t *bytes);
void expect_tx_set_bytes(Ctx *cx, const Stmt *s, int64_t bytes);
/* the block (repeat or when) directly around statement s of kernel k, NULL
 * at the top; false when s is not in k. Constant time after one walk of the
 * kernel (a search from the top per statement made explain quadratic) */
typedef struct Kernel Kernel;
/* the plan the statements pass made of set or reduce statement s of kernel k
 * (SetPlan, RedPlan), for its emission; NULL when none was kept */
void plan_keep(Ctx *cx, const Kernel *k, const Stmt *s, const void *plan);
const void *plan_kept(const Ctx *cx, const Kernel *k, const Stmt *s);
bool stmt_parent(Ctx *cx, const Kernel *k, const Stmt *s, const Stmt **parent);

void diag_error(Ctx *cx, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(Ctx *cx, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(Ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_print(const Diags *d, FILE *out);
/* the summaries the printers add as notes (errors past --max-errors, warnings
 * dropped after an error): how many of msgs are filled */
int diag_summaries(const Diags *d, char msgs[2][200]);
/* d as tilepx_compile_ex's list (src/api/diag_list.c); false when out of memory */
struct tilepx_diagnostics;
bool diag_list_make(const Diags *d, struct tilepx_diagnostics *out);
void diag_drop_warnings_since(Ctx *cx, size_t n);
void diag_promote_warnings(Ctx *cx);
void diag_suggest(Ctx *cx, const char *typed, const char *const *names, size_t n);

/* ---- checked integer arithmetic (shapes, strides, expressions) ---- */
bool mul_ok(int64_t a, int64_t b, int64_t *r);
bool add_ok(int64_t a, int64_t b, int64_t *r);

/* ---- dtypes and targets ---- */
typedef enum DType {
	DT_I8, DT_U8, DT_E4M3, DT_E5M2,
	DT_I16, DT_U16, DT_F16, DT_BF16,
	DT_I32, DT_U32, DT_F32, DT_TF32,
	DT_I64, DT_U64, DT_F64,
	DT_COUNT
} DType;
int dtype_bytes(DType t);
/* f32, f16, bf16: the dtypes of float scalar params */
bool dtype_is_float_scalar(DType t);
const char *dtype_name(DType t);
bool dtype_parse(const char *s, DType *out);

/* capability a PTX form or a program feature needs (ptx_templates/caps.def) */
typedef enum Cap {
#define CAPABILITY(tpl, id, targets) id,
#include "../ptx_templates/caps.def"
#undef CAPABILITY
	CAP_COUNT
} Cap;

typedef struct Target {
	const char *name; /* "sm_90a" */
	int sm;           /* 90 */
	char suffix;      /* 0, 'a' or 'f' */
	int min_ptx;      /* lowest .version, times 10 (7.8 -> 78) */
} Target;
const Target *target_find(const char *name);
bool target_has(const Target *t, Cap c);
int64_t target_max_shared(const Target *t); /* dynamic shared memory per CTA, bytes */
const char *cap_name(Cap c);
const char *target_list(void); /* for messages */

/* ---- axes ---- */
typedef enum Axis {
	AX_M,         /* plain memory / register offset */
	AX_LANEID, AX_WARPID, AX_WID_IN_WG, AX_TID_IN_WG, AX_WGID, AX_TX,
	AX_TLANE, AX_TCOL,
	AX_COUNT
} Axis;
const char *axis_name(Axis a);
bool axis_parse(const char *s, Axis *out);
bool axis_is_thread(Axis a);

/* execution / ownership scopes, ordered by rank */
typedef enum Scope { SC_THREAD, SC_WARP, SC_WARPGROUP, SC_CTA, SC_COUNT } Scope;
const char *scope_name(Scope s);

/* ---- layout algebra (src/layout/) ---- */
typedef struct Iter {
	int64_t ext, stride;
	Axis axis;
} Iter;

typedef struct Swizzle {
	bool on;
	int p, w, a; /* per_element, swizzle_len, atom_len (inner form) */
} Swizzle;

/* shard iters it[0..n) place each logical element; replica iters
 * rep[0..nrep) (thread axes only, '+ R[...]') enumerate further threads that
 * hold the same element in the same register (TIRx's replica) */
typedef struct Layout {
	int n;
	Iter it[MAX_ITERS];
	Swizzle sw;
	int nrep;
	Iter rep[MAX_REPS];
} Layout;

/* affine integer expression over kernel variables */
enum { VAR_CTAID, VAR_WARPID, VAR_WGID, VAR_CTAIDY, VAR_CRANK /* cluster_ctarank */, VAR_REPEAT0 };
enum { VAR_RUNNING = -2 };
typedef struct Affine {
	int64_t c;
	int n;
	struct { int var; int64_t k; } t[MAX_TERMS];
} Affine;

/* a layout sliced by a region: iters over the region's logical shape plus
 * per-axis offsets that may depend on kernel variables */
typedef struct View {
	Layout L;
	Affine off[AX_COUNT];
	/* a region of a param with runtime extents: vectors may be at most
	 * vec_cap elements (0: any) so that each lies wholly inside or outside */
	int64_t vec_cap;
} View;

int64_t lay_size(const Layout *L);
void lay_compact(Layout *L, const int64_t *shape, int n);
bool lay_group(const Layout *L, const int64_t *shape, int n, Layout *out, int *seps);
void lay_canonicalize(Layout *L);
void lay_fuse_threads(Layout *L, Scope owner);
void lay_drop_units(Layout *L);
void lay_storage(Layout *L); /* drop thread-axis iters */
void lay_permute(const Layout *L, const int *perm, Layout *out);
void lay_apply_flat(const Layout *L, int64_t idx, int64_t *out /* [AX_COUNT] */);
bool lay_slice_group(const Iter *g, int n, int64_t begin, int64_t ext, Iter *out,
                     int *nout, int64_t *off /* [AX_COUNT] */);
int64_t swz_apply(Swizzle sw, int64_t m);
void lay_format(const Layout *L, Str *out);
bool lay_eq(const Layout *a, const Layout *b);
/* split layouts a and b (same logical size) into one common list of pairs:
 * out_a[k], out_b[k] have equal extents; false if the radixes are incompatible */
bool lay_refine_pair(const Layout *a, const Layout *b, Layout *out_a, Layout *out_b);
/* replicas: how many copies of each element (1: none); replica r's
 * per-axis offsets (mixed radix over rep[], first most significant) added
 * to at[]; the index of a thread in its owner instance from per-axis
 * coordinates (laneid + 32 warps + 128 warpgroups, tid_in_wg, tx) */
int64_t lay_replicas(const Layout *L);
void lay_add_replica(const Layout *L, int64_t r, int64_t *at /* [AX_COUNT] */);
int64_t lay_thread_of(const int64_t *at /* [AX_COUNT] */);
/* ownership that knows replicas: does owner-instance thread t hold logical
 * element idx (row-major over the buffer's shape)? *reg: its register */
bool lay_holds(const Layout *L, int64_t idx, int64_t t, int64_t *reg);

int64_t affine_eval(const Affine *e, const int64_t *vars);
bool affine_is_const(const Affine *e);
bool affine_add(Affine *dst, const Affine *src, int64_t scale);

/* ---- the program (AST) ---- */
typedef enum Mem { MEM_GLOBAL, MEM_SHARED, MEM_LOCAL, MEM_TMEM } Mem;
const char *mem_name(Mem m);

typedef struct Buffer {
	const char *name;
	Loc loc, layout_loc;
	Loc rep_loc;       /* the '+ R[...]' of the layout (line 0: none) */
	Mem mem;
	DType dt;
	int ndim;
	int64_t shape[MAX_DIMS];
	Loc dim_loc[MAX_DIMS];
	bool has_layout;
	Layout layout;     /* as written; refines shape exactly */
	int64_t cols;      /* tmem: allocated columns */
	bool cols_given;
	Loc cols_loc;
	int param_index;   /* MEM_GLOBAL */
	bool fill_small;   /* MEM_GLOBAL: harnesses fill small integers (exact sums) */
	bool fill_edges;   /* MEM_GLOBAL: harnesses fill rounding edge cases (converting copies) */
	/* derived by check */
	Scope owner;       /* MEM_LOCAL: which group holds one instance */
	int64_t regs;      /* MEM_LOCAL: elements per thread */
	int64_t storage;   /* elements of storage (param/shared) */
	int64_t storage_given; /* 'storage N' (0: the shape's size) */
	Loc storage_loc;
	/* 'tma': the kernel also takes a tensor map of this param (src/variants/tma.c) */
	bool tma;
	Loc tma_loc;
	int tma_index;       /* which tensor-map param, in declaration order */
	/* set by check from the copies that use the tensor map: one box, one swizzle */
	bool tma_used;
	int64_t tma_box[MAX_DIMS]; /* outermost first, as the shape */
	int tma_swizzle;     /* bytes: 0 (none), 32, 64 or 128 */
	Loc tma_box_loc;     /* the copy that fixed them */
	int64_t shared_offset; /* MEM_SHARED: byte offset in the kernel's shared memory (check) */
	bool tma_shared;     /* MEM_SHARED: a TMA copy reads or writes it (128-byte aligned) */
	/* runtime extents (params only): dim d is scalar dyn_dim[d]-1's value
	 * (0: a constant). A dynamic param is row-major; in its layout, shape[d]
	 * of a runtime dim is a capacity and the stride of dim 0 (rank 2) is a
	 * stand-in, dyn_proxy, with the 2-adic valuation the facts guarantee (so
	 * alignment decisions hold for every value) and larger than any tile
	 * offset (so tile offsets decode exactly into rows and columns). */
	int dyn_dim[MAX_DIMS];
	int ld_scalar;       /* 'ld S' (rank 2): the row stride is scalar ld_scalar-1's value, not d1 */
	bool colmajor;       /* 'colmajor' (rank 2): dim 0 is contiguous, dim 1 strided */
	Loc colmajor_loc;
	Loc ld_loc;
	bool dynamic;
	int64_t dyn_proxy;   /* 0: dim 0's stride is a constant */
	/* 'swizzle auto' (shared): check picks layout.sw from the candidates
	 * (src/proof/swizzle.c); until then the buffer is aligned for the widest */
	bool sw_auto;
	Loc sw_auto_loc;
	int64_t max_off;     /* MEM_SHARED: the largest element offset the layout reaches (check) */
} Buffer;

/* the swizzle-auto pass's decision for one buffer, kept beside it (Ctx.swizzle) */
typedef struct SwCand {
	Swizzle sw;
	bool legal;
	const char *why;  /* not legal: the reason */
	int64_t wavefronts, ideal;
} SwCand;
typedef struct SwizzleChoice {
	Swizzle sw;        /* the chosen one (the candidate being tried while the pass searches) */
	int ncand;
	SwCand cand[16];
} SwizzleChoice;
/* the swizzle of shared buffer b: the swizzle-auto pass's choice for a
 * 'swizzle auto' buffer, else its layout's (src/base/stmtmap.c). Every reader of
 * a buffer's swizzle after the declaration checks reads it here. */
Swizzle buffer_swizzle(const Ctx *cx, const Buffer *b);
/* the pass's record of b (NULL: none); _new makes it */
const SwizzleChoice *swizzle_choice(const Ctx *cx, const Buffer *b);
SwizzleChoice *swizzle_choice_new(Ctx *cx, const Buffer *b);
/* the swizzle in bytes (0, 32, 64, 128; -1: none TMA writes) of param g's
 * tensor map: the swizzle-auto pass's where it chose one, else what the
 * TMA statements' check fixed (Buffer.tma_swizzle) */
int tensor_map_swizzle(const Ctx *cx, const Buffer *g);
void tensor_map_swizzle_set(Ctx *cx, const Buffer *g, int bytes);

/* param NAME u32|i32|u64|i64: a kernel argument, a variable of region
 * expressions and a runtime extent of params; its facts (assume) bound it */
typedef struct Scalar {
	const char *name;
	Loc loc;
	DType dt;
	int var;            /* kernel variable id; its range is [0, hi] */
	int64_t lo, hi;     /* lo <= value <= hi */
	int64_t mult;       /* value % mult == 0: the lcm of the % facts (2^31: only 0) */
	Loc lo_loc, hi_loc, mult_loc; /* the facts that give lo, hi; the first % fact */
	/* every fact as written: they are a conjunction, and the runners check
	 * a value against each one (kernel_bind) */
	struct Fact {
		char op; /* '>' (>=), '<' (<=), '%' (% v == 0) */
		int64_t v;
		Loc loc;
	} *facts;
	size_t nfacts, factcap;
} Scalar;
enum { SCALAR_MAX = 0x7fffffff, DYN_TILE_MAX = 1 << 20 };

/* mbarrier NAME [N]: N 64-bit barriers in shared memory */
typedef struct Mbar {
	const char *name;
	Loc loc;
	int64_t n;
	int64_t shared_offset; /* in dynamic shared memory (check) */
	bool dyn_phase;        /* touched in a runtime-count repeat: parity tracked at run time (check;
	                          read through mbar_run_time_phase, which adds the roles' proof's) */
} Mbar;
/* whether the threads track mbarrier array mb's phase parity at run time
 * (phase bits): a runtime-count repeat touches it (Mbar.dyn_phase, check),
 * or the roles' proof asked for it (_set) */
bool mbar_run_time_phase(const Ctx *cx, const Mbar *mb);
void mbar_run_time_phase_set(Ctx *cx, const Mbar *mb);

typedef struct Region {
	const char *name;
	Loc loc;
	Buffer *buf;
	bool whole;
	int ndim;
	Affine *begin, *end; /* [ndim], arena (NULL when whole); region_dup copies them */
	bool all[MAX_DIMS], single[MAX_DIMS];
	Loc dim_loc[MAX_DIMS];
	int64_t ext[MAX_DIMS]; /* set by check */
	uint64_t warps;        /* check: the warps whose statement names it (a when block), 0 every warp */
} Region;
/* a copy whose begin/end may be changed without touching r's */
Region *region_dup(Arena *a, const Region *r);

/* statement kinds: src/stmt.def is the one list */
typedef enum StmtKind {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) ST_##kind,
#include "stmt.def"
	ST_COUNT
} StmtKind;

enum { SF_SCOPED = 1, SF_COPY = 2, SF_BLOCK = 4, SF_PHASED = 8 };
/* the semantic columns of stmt.def (what each value means is said there) */
typedef enum BarKind { BAR_NONE, BAR_SYNC, BAR_ARRIVE, BAR_WAIT } BarKind;
typedef enum AsyncIssue { AI_NONE, AI_COPY, AI_CPA_COMMIT, AI_BULK_COMMIT, AI_MBAR_INIT, AI_MBAR_ARRIVE, AI_MBAR_TX } AsyncIssue;
typedef enum AsyncWait { AW_NONE, AW_CPA, AW_BULK, AW_BULK_READ, AW_MBAR, AW_TC_LD, AW_TC_ST, AW_PROXY } AsyncWait;
enum { SH_NONE, SH_REGIONS, SH_MBAR };
typedef struct StmtInfo {
	const char *keyword; /* as written, dotted */
	unsigned flags;
	Cap cap;
	BarKind bar, cbar; /* how it orders the CTA's threads, the cluster's */
	AsyncIssue issue;
	AsyncWait wait;
	int shared;        /* SH_* */
} StmtInfo;
extern const StmtInfo stmt_info[ST_COUNT];

/* an inline PTX block (asm): text pieces and placeholders, unrolled over
 * compile-time indices; the optional mma clause is its reference meaning */
enum { ASM_TEXT, ASM_REGS, ASM_ADDR, ASM_VALUE, MAX_ASM_UNROLL = 4 };
enum { MAX_ASM_INSTANCES = 65536 }; /* copies of one asm block: the product of its index counts */
/* instances x (text bytes + register elements of the placeholders) of one asm block */
#define MAX_ASM_EXPANSION ((int64_t)1 << 24)
typedef struct AsmPiece {
	int kind;         /* ASM_* */
	const char *text; /* ASM_TEXT */
	Region *r;        /* ASM_REGS, ASM_ADDR */
	Affine val;       /* ASM_VALUE */
	Loc loc;
	int line;         /* line of the block the piece is on (0-based) */
} AsmPiece;
typedef struct AsmBlock {
	AsmPiece *p;
	size_t n, cap;
	int nunroll;
	int uvar[MAX_ASM_UNROLL];   /* kernel variable ids, constant per instance */
	int64_t uext[MAX_ASM_UNROLL];
	Region *mma[3];             /* C, A, B of the reference meaning, or NULL */
	Loc mma_loc;
	bool copied;                /* an enclosing repeat ... unroll emits it more than once */
} AsmBlock;

/* one term of a when condition: VAR OP VALUE, VAR warpid or wgid */
typedef struct WhenCond {
	int var;
	char op; /* '<' '>' '=' '!' and 'l' (<=), 'g' (>=) */
	int64_t value;
	Loc loc;
} WhenCond;

/* set DST[i, j] = EXPR (docs/language.md, "Compute on tiles: set"): an
 * expression tree evaluated in f32 per element. Value nodes, then the
 * condition nodes (a predicate) */
typedef enum SetOp {
	SX_LOAD,   /* an operand element: buf[idx[0], ...] */
	SX_SCALAR, /* a scalar param (a float one, or an integer one exact in f32) */
	SX_CONST,  /* an f32 literal: bits */
	SX_NEG, SX_ABS, SX_EXP2, SX_LOG2, SX_RCP, SX_RSQRT, SX_SQRT, SX_TANH, SX_EXP2_FTZ, /* a[0] */
	SX_ADD, SX_SUB, SX_MUL, SX_DIV, SX_MAX, SX_MIN,                         /* a[0], a[1] */
	SX_FMA,    /* a[0] * a[1] + a[2], one rounding */
	SX_SELECT, /* a[0] (a condition) ? a[1] : a[2] */
	SX_FCMP,   /* a[0] CMP a[1] as f32 (IEEE: NaN compares false but for !=) */
	SX_ICMP,   /* diff CMP 0 as integers (a mask over coordinates) */
	SX_AND, SX_OR, SX_NOT,
	SX_COUNT
} SetOp;
typedef enum SetCmp { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE } SetCmp;
typedef struct SetNode {
	SetOp op;
	Loc loc;
	struct SetNode *a[3];
	SetCmp cmp;          /* SX_FCMP, SX_ICMP */
	Buffer *buf;         /* SX_LOAD */
	Affine *idx;         /* SX_LOAD: [buf->ndim], over the bound index names and constants */
	uint32_t bits;       /* SX_CONST */
	int scalar;          /* SX_SCALAR: index in Kernel.scalars */
	Affine diff;         /* SX_ICMP: left minus right */
	int id;              /* its place in the statement's node list (SetExpr.nodes) */
} SetNode;
typedef struct SetExpr {
	Buffer *dst;
	Loc dst_loc;
	Affine dst_idx[MAX_DIMS]; /* a fixed coordinate, or the bound index name's variable */
	int idx_var[MAX_DIMS];    /* the variable of dimension d's index name, -1: a fixed coordinate */
	const char *idx_name[MAX_DIMS];
	Loc idx_loc[MAX_DIMS];
	SetNode *root;
	SetNode **nodes;          /* every node, children before parents */
	int nnodes, nodecap;
	Region **reads;           /* a whole region of each local buffer read (the wgmma proof's view) */
	int nreads, readcap;
} SetExpr;
enum { SET_MAX_RANK = 4, SET_MAX_NODES = 256 };

/* a repeat count computed at the loop head (docs/language.md, "Loop counts
 * from the tile index"): affine terms over ctaid, ctaid_y, scalars and
 * enclosing repeat indices, cdiv by a constant, min, max, sums and
 * differences of them; a count below 0 runs no trip */
/* TE_MUL: only a linear tile walk's count, X * Y (its tiles' rows and columns) */
typedef enum TripOp { TE_AFFINE, TE_CDIV, TE_MIN, TE_MAX, TE_ADD, TE_SUB, TE_MUL } TripOp;
typedef struct TripExpr {
	TripOp op;
	Affine a;                  /* TE_AFFINE */
	int64_t d;                 /* TE_CDIV: the divisor (>= 1) */
	const struct TripExpr *x, *y; /* TE_CDIV: x; the others: x and y */
} TripExpr;
int64_t trip_expr_eval(const TripExpr *e, const int64_t *vals);
bool trip_expr_eq(const TripExpr *a, const TripExpr *b);
/* whether e uses variable var */
bool trip_expr_uses(const TripExpr *e, int var);

typedef struct Stmt Stmt;
struct Stmt {
	StmtKind kind;
	Loc loc;
	Scope scope;
	Region *dst, *src; /* copy and dump operands, allocated only for those */
	const char *dispatch;
	Loc dispatch_loc;
	int64_t n;        /* cp_async.wait N, repeat N, init VALUE */
	AsmBlock *asm_blk; /* asm */
	int var;          /* repeat index variable id */
	const char *var_name;
	/* mbarrier operand (mbarrier.* statements; copy_async ... mbarrier B[i]) */
	const char *mbar_name;
	int mbar;         /* 1 + index into the kernel's mbars (check); 0: none */
	Affine *mbar_idx;
	Loc mbar_loc;
	bool has_value;   /* an explicit count/bytes/parity operand (in n) */
	Loc value_loc;
	int64_t mcast;    /* copy_async ... multicast MASK: the CTA mask (0: not a multicast) */
	bool to_cluster;  /* mbarrier.arrive ... cluster: on the barrier in every CTA of the cluster */
	Loc cluster_arrive_loc;
	Loc mcast_loc;
	/* repeat cdiv(S, D): the trip count is ceil(S / D) at launch; n is the
	 * largest the facts allow (the index's range for the proofs) */
	int trips_scalar;  /* 1 + index into the kernel's scalars; 0: n trips */
	int64_t trips_div;
	/* repeat EXPR, any other count computed at the loop head (trips_scalar
	 * 0; n is the largest the facts allow, trips_lo the least, check) */
	const TripExpr *trips_expr;
	int64_t trips_lo;
	/* repeat ... across ctaid|ctaid_y: the trips are dealt out to the CTAs
	 * along that grid axis (a persistent loop): CTA c runs the indices c,
	 * c + nctaid, ... below the count */
	int across;        /* 0 none, 1 + VAR_CTAID or VAR_CTAIDY */
	Loc across_loc;
	/* repeat X * Y as t across ctaid tiles TM, TN [group G]: a linear walk
	 * over the X * Y tiles (trips_expr is TE_MUL of X and Y); tile_m and
	 * tile_n are the variables of trip t's tile row and column, walked in
	 * bands of G rows column by column (tile_of); 0: not a walk */
	int tile_m, tile_n;
	const char *tile_m_name, *tile_n_name;
	int64_t tile_group;
	Loc tiles_loc;
	/* repeat ... running G: G counts this loop's trips in the thread over
	 * the whole kernel (not reset when the loop is entered again) */
	int running;       /* the variable G (0: none) */
	const char *running_name;
	Loc running_loc;
	bool nounroll;     /* repeat ... nounroll: ptxas may not unroll the loop */
	int64_t unroll;    /* repeat ... unroll [F]: body copies per emitted trip (0: one, a plain loop) */
	/* warpgroup mma D, A, B [scale_d N]: D is dst, A src, B mma_b; n is
	 * scale-d (0: the first instruction overwrites D); wg is check's plan */
	Region *mma_b;
	bool mma_b_kn;  /* warpgroup mma ... b_kn: B's region is [K, N] (D = A * B), not [N, K] */
	struct WgmmaPlan *wg;
	/* when COND { ... } [else { ... }]: the warps that run the body; an else
	 * is a second when whose warps are the rest of its enclosing set */
	struct WhenCond *cond;
	int ncond;
	const Stmt *else_of;  /* an else: the when it completes */
	uint64_t warps;       /* check: the warps (bit w: warp w) that execute this statement */
	uint64_t body_warps;  /* when: the warps that run its block (check) */
	Scope per;            /* mbarrier.arrive ... per UNIT (SC_COUNT: one thread of those that run it) */
	Loc per_loc;
	int64_t count;        /* bar.sync/bar.arrive ID, COUNT: threads (n is the ID) */
	const Affine *bar_id; /* bar.sync/bar.arrive: an ID computed from wgid (n 0), NULL: the constant n */
	bool has_count;
	struct SetExpr *set;  /* set: its expression tree (dst is a whole region of its destination) */
	/* reduce over warps (check): RED_BAR_CTA meets at bar.sync 0 (a CTA-owned
	 * tile), RED_BAR_WG at the warpgroup's barrier 12 + wgid; 0 within warps */
	signed char red_bar;
	bool red_tree;        /* reduce.max|min ... tree: a thread's registers paired as a tree, not chained */
	Stmt **body;
	size_t nbody, cap;
};

typedef struct Kernel {
	const char *name;
	Loc loc;
	int64_t threads, grid, grid_y;
	Loc threads_loc, grid_loc;
	/* grid ... reversed: ctaid (ctaid_y) counts down, nctaid - 1 - %ctaid, so
	 * the hardware starts the last index first; the set of values is the same */
	bool grid_reversed[2];
	Loc grid_rev_loc;
	/* cluster X[, Y]: CTAs per thread-block cluster (0: no cluster declared) */
	int64_t cluster_x, cluster_y;
	Loc cluster_loc;
	bool uses_crank;           /* cluster_ctarank appears in an expression */
	Loc crank_loc;             /* its first use */
	bool has_threads;
	Buffer **bufs;
	size_t nbufs, bufcap;
	Stmt **body;
	size_t nbody, cap;
	int nvars;                 /* VAR_REPEAT0 + repeats */
	int64_t *var_ext;          /* [nvars]: range of each variable is [0, ext) */
	const char **var_names;
	/* a stage index 'i % C' of a repeat index i: a variable of its own,
	 * var_base[v] = i and var_mod[v] = C (var_base -1: not derived) */
	int *var_base;
	int64_t *var_mod;
	int64_t *var_off;          /* '(i + c) % C': c (0 for 'i % C') */
	/* var_base VAR_RUNNING: a repeat's running trip count (used only as
	 * '(G + c) % C') */
	size_t var_cap;
	int nparams;
	/* device functions (func NAME): .visible .func with the ABI of docs/language.md */
	bool is_func;
	int *arg_vars;             /* arg NAME N: runtime u32 variables, in order */
	int nargs, argcap;
	bool is_extern;            /* extern: the body is PTX linked from elsewhere */
	Loc extern_loc;
	Affine *zero_bounds;       /* [MAX_DIMS] zeros: begin/end of whole regions (never written) */
	Mbar *mbars;
	size_t nmbars, mbcap;
	int ntmaps;                /* tensor-map params (Buffer.tma) */
	/* shared memory beyond the static limit: every shared buffer and mbarrier
	 * lives in one dynamic array (check decides; the launcher passes the size) */
	int64_t dyn_shared;        /* bytes, 0: static shared memory */
	/* reductions over warps (src/reduce.c): one f32 word per thread and
	 * result, shared by every such reduce (each brackets its use with
	 * barriers); placed by allocate_kernel after the mbarriers */
	int64_t red_scratch;       /* bytes, 0: none */
	int64_t red_scratch_offset;
	int64_t shared_end;        /* bytes of buffers and mbarriers (allocate_kernel) */
	int64_t dyn_align;
	Scalar *scalars;           /* scalar params, after the pointers in the PTX entry */
	size_t nscalars, sccap;
	/* grid cdiv(S, D): grid_var is S's variable (-1: constant); grid and
	 * grid_y hold the largest grid the facts allow */
	int grid_var[2];
	int64_t grid_div[2];
	/* [nvars] or NULL: a repeat index's count cdiv(S, D) (check): scalar 1 +
	 * S's index (0: not such an index) and D; D * index <= S - 1 */
	struct VarTrips { int scalar; int64_t div; } *var_trips;
	/* [nvars] or NULL: the linear tile walk whose index is the variable
	 * (check), which sets the walk's tile row and column with it */
	const struct Stmt **var_walk;
	const int64_t *bound_vals; /* kernel_bind: the scalars' values (NULL: unbound) */
	bool has_roles;            /* a when block (check): roles.c proves its barriers */
	bool cluster_arrivals;     /* an mbarrier.arrive ... cluster (check; roles.c proves it) */
	uint64_t check_warps;      /* check: the warps that run the statements being checked */
	int64_t maxnreg;           /* registers per thread at launch when setmaxnreg is used (.maxnreg), else 0 */
} Kernel;
/* the scalar whose variable is var, or NULL */
const Scalar *kernel_scalar_of_var(const Kernel *k, int var);
/* fix every runtime value of k in place (vals[i]: scalar i): the grid and
 * the dynamic params' shapes and storage become constants, their layouts
 * plain row-major. False with a message in why[n] when a value breaks its
 * facts. The runners bind after emitting the PTX and before running. */
/* the facts that decide a scalar's values, as a note (src/front/parse.c) */
const char *facts_text(Arena *a, const Scalar *sc);
bool kernel_bind(Kernel *k, const int64_t *vals, char *why, size_t n);
/* NAME's value among "NAME=V" strings (decimal; NULL entries skipped): false
 * when none names it; *bad when the value is not a decimal int64 */
bool kernel_set_value(const char *const *sets, int n, const char *name, int64_t *v, bool *bad);
/* the same for a float scalar of dtype dt: its bits (f32, or f16/bf16 rounded
 * to nearest even from the f32 value); *bad when V is not a float */
bool kernel_set_float(const char *const *sets, int n, const char *name, DType dt, int64_t *bits, bool *bad);
/* whether set is well-formed "NAME=V": an identifier, '=', a decimal integer
 * in 0..SCALAR_MAX (the values a scalar can have) with nothing around it;
 * false with why[n] if not */
bool kernel_set_check(const char *set, char *why, size_t n);
/* kernel_set_check of each of sets[0..n), and no name twice */
bool kernel_sets_check(const char *const *sets, int n, char *why, size_t len);

/* the cuTensorMapEncodeTiled arguments of one tensor-map param (CUDA driver
 * enum values; dims and boxes innermost first; strides in bytes of dims
 * 1..rank-1). The runners encode it; explain --json prints it. */
typedef struct TensorMapArgs {
	const Buffer *buf;
	int dtype;        /* CUtensorMapDataType */
	int rank;
	uint64_t dims[5];
	uint64_t strides[4];
	uint32_t box[5];
	uint32_t elem_strides[5];
	int interleave, swizzle, l2_promotion, oob_fill; /* CUtensorMap* enums */
	int64_t box_bytes;
} TensorMapArgs;
/* the tensor maps kernel k takes, in parameter order (after the declared
 * params); returns how many (at most max are written) */
int kernel_tensor_maps(const Ctx *cx, const Kernel *k, TensorMapArgs *out, int max);

typedef struct Module {
	const char *file;
	const Target *target;
	Loc target_loc;
	int ptx_version; /* forced, times 10; 0 = automatic */
	Loc ptx_loc;
	Kernel **kernels;
	size_t nkernels, cap;
	const char **consts; /* the names of its compile-time constants ('define'), for -D's check */
	size_t nconsts, constcap;
} Module;

/* call fn on every statement of a body, depth first (repeat bodies too) */
void stmt_walk(Stmt **body, size_t n, void (*fn)(void *ctx, const Stmt *s), void *ctx);
/* call fn on every region statement s names (its operands, an asm block's
 * placeholders and mma clause), write: s may write it. The one query for
 * what a statement touches: a new operand field belongs here */
void stmt_regions(const Stmt *s, void (*fn)(void *ctx, const Region *r, bool write), void *ctx);

/* tilepx --batch and ptxemu --batch (src/base/batch.c): run(argc, argv) per
 * line of standard input, its arguments split as a shell would (quotes,
 * backslashes), then "END STATUS" on stdout; 1 if one did not exit 0 */
int batch_loop(const char *tool, int (*run)(int argc, char **argv));
/* the same, with state the invocations share (ptxemu: the program compiled last) */
int batch_loop_ctx(const char *tool, int (*run)(void *ctx, int argc, char **argv), void *ctx);

/* each of defs[0..n) is NAME=VALUE (an identifier, '=', a value not
 * empty) and no NAME is given twice; else why says which (src/front/define.c) */
bool defines_check(const char *const *defs, int n, char *why, size_t len);

/* front end */
Module *parse_module(Ctx *cx, const char *file, const char *src, size_t len);
/* the passes through "races" (src/api/driver.c): what the tools and tests call
 * a checked module */
bool check_module(Ctx *cx, Module *m);
/* the check passes (src/front/check.c, src/front/alloc.c), in the driver's order */
bool check_module_header(Ctx *cx, Module *m);
bool check_kernel(Ctx *cx, const Module *m, size_t i, int64_t *shared_bytes);
bool allocate_kernel(Ctx *cx, const Module *m, Kernel *k, int64_t shared_bytes);
bool allocate_reduce_scratch(Ctx *cx, const Module *m, Kernel *k); /* after the statements */
bool check_kernel_stmts(Ctx *cx, const Module *m, Kernel *k);
/* a buffer's layout (src/layout/legal.c), errors at its declaration */
void check_layout(Ctx *cx, Kernel *k, Buffer *b);
/* static shared bytes before the dynamic array; a thread's local bytes; the
 * most elements a layout proof enumerates */
enum { SHARED_STATIC_LIMIT = 0xC000, LOCAL_BYTES_LIMIT = 1020, ENUM_LIMIT = 1 << 22 };
/* an mbarrier's largest arrival count and a phase's largest transaction bytes */
enum { TX_LIMIT = (1 << 20) - 1 };
Buffer *kernel_find_buffer(const Kernel *k, const char *name);
int64_t kernel_var_extent(const Kernel *k, int var);
/* the region's view: slice of its buffer's layout; false + message if not affine */
bool region_view(Ctx *cx, const Kernel *k, const Region *r, View *out, const char **why);
/* the byte hull of a shared region: repeat indices at vals, the other
 * variables over their ranges (warpid/wgid over warps when nonzero), whole
 * swizzle spans */
bool region_bytes(Ctx *cx, const Kernel *k, const Region *r, const int64_t *vals, uint64_t warps, int rank,
                  int64_t *lo, int64_t *hi);
/* the same from the region's view (region_view's result, which depends on
 * the region and kernel only: a proof that asks often keeps it) */
void view_bytes(const Kernel *k, const Region *r, const View *v, const int64_t *vals, uint64_t warps, int rank,
                int64_t *lo, int64_t *hi);
/* dimension d of a region of a param with runtime extents may reach past the
 * extent's smallest value: its accesses need a guard */
bool region_guarded(const Kernel *k, const Region *r, int d);
/* the largest power of two (at most 64) dividing every value of dimension d */
int64_t dim_pow2(const Kernel *k, const Buffer *b, int d);
/* the same for the row stride of a 2-D param with runtime extents ('ld', or
 * the contiguous dimension's extent) */
int64_t row_pow2(const Kernel *k, const Buffer *b);
int64_t dyn_row_proxy(const Kernel *k, const Buffer *b); /* a 2-D runtime param's row stride in its layout */
/* a param with runtime extents: its contiguous dimension (the last, or 0
 * for colmajor) and, rank 2, the strided one */
int dyn_inner(const Buffer *b);
int dyn_outer(const Buffer *b);
/* local buffer registers: thread index inside the owner group for a fused axis */
Axis scope_thread_axis(Scope s);
/* alignment of a shared buffer's base: 16 bytes, or its swizzle span (<= 1024) */
int64_t shared_align(const Buffer *b);
int64_t scope_threads(Scope s, int64_t cta_threads);
/* CTAs in the kernel's cluster (1 without a cluster declaration) */
int64_t kernel_cluster_size(const Kernel *k);
/* the bytes of a kernel's .param space as the entry declares it (pointers,
 * scalars, 64-aligned tensor maps): above PARAM_BYTES_OLD ptxas wants PTX
 * 8.1, above PARAM_BYTES_MAX it refuses (ptxas 13: 0x1100 and 0x7ffc) */
enum { PARAM_BYTES_OLD = 4352, PARAM_BYTES_MAX = 32764, PARAM_BYTES_PTX = 81 };
int64_t kernel_param_bytes(const Kernel *k);

/* ---- PTX builder (src/ptx/) ---- */
typedef enum RegClass {
	RC_P, RC_RS, RC_SPECIAL, RC_R, RC_F, RC_RD, RC_RQ, RC_COUNT
} RegClass;

typedef struct RegClassInfo {
	RegClass id;
	const char *name;
	int bits;
	const char *decl_type; /* ".pred" ... or "INTERNAL" */
	const char *prefix;    /* "%p" ... or "INTERNAL" */
	unsigned sub_mask, super_mask;
	bool declared;         /* printed by the declaration printer */
	const char *note;
} RegClassInfo;
const RegClassInfo *regclass_info(RegClass c);
const char *reg_class_type(RegClass c);
const char *reg_class_prefix(RegClass c);
/* operand prefix for a value type: %f/%fd views for floats (model only) */
const char *regclass_operand_prefix(RegClass storage, bool is_float);
void regclass_print_table(FILE *out);

#include "ptx_forms.h" /* generated from ptx_templates/ */

typedef struct PtxForm {
	const char *name;
	const char *family; /* the .tpl file it comes from */
	int min_ptx; /* times 10 */
	Cap cap;
	const char *text; /* with $0..$9 operand holes */
	FormFam fam;      /* FAM_NONE: a plain form, named only as FORM_NAME */
	FormKey key;      /* typed parameters; form_find(fam, &key) finds this form */
	int regs;         /* 32-bit registers per thread in the register operand (0: not given) */
	/* per operand hole $0..$9: its class ("r32", "a32", "r32/imm": one of
	 * several), "" when the text has no such hole; b_ins checks each operand */
	const char *holes[10];
} PtxForm;
extern const PtxForm ptx_forms[FORM_COUNT];

typedef struct Reg {
	RegClass cls;
	int id;
} Reg;

typedef struct Builder {
	Arena *arena;
	const Target *target;
	Str body;
	int nregs[RC_COUNT]; /* highest id used per class */
	int labels;
	int min_ptx;
	Cap caps_used[CAP_COUNT];
	bool used_form[FORM_COUNT];
	const char *indent;
	const char *missing_form; /* the first typed lookup that found no form (a tilepx bug) */
	const char *internal;     /* the first other tilepx bug the emitter caught (reported, no output) */
	const char *guard;        /* non-NULL: b_ins predicates its instruction with @guard */
	/* where each form was first used and what raised min_ptx last, for
	 * target and version errors at the statement (at: the statement being
	 * emitted, else the kernel) */
	Loc at;
	Loc form_at[FORM_COUNT];
	Loc min_ptx_at;
	const char *min_ptx_what; /* the instruction that raised it; NULL: the target's own minimum */
	/* -lineinfo: a '.loc 1 LINE COL' before an instruction whose statement
	 * (at) differs from the last one written into body; b_loc_reset after
	 * body is swapped for another buffer (hoisted code, a loop's body) */
	bool lineinfo;
	Loc loc_written;
} Builder;

void b_init(Builder *b, Arena *a, const Target *t);
/* a form used at b->at (b_ins and the forms an asm block names) */
void b_use_form(Builder *b, FormId f);
/* an instruction (opcode what) at b->at that needs .version v */
void b_need_ptx(Builder *b, int v, const char *what);
Reg b_reg(Builder *b, RegClass c);
const char *b_name(Builder *b, Reg r);
int b_label(Builder *b);
const char *b_label_name(Builder *b, int label);
void b_place_label(Builder *b, int label);
void b_comment(Builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* -lineinfo: the .loc of b->at into body if it is not the last written there */
void b_loc(Builder *b);
void b_loc_reset(Builder *b);
/* emit one instruction from a form; operands fill $0.. in order */
void b_ins(Builder *b, FormId f, ...); /* const char* operands, NULL-terminated */
/* the typed form (fam, *k); a miss is recorded in missing_form, reported by
 * the emitter as an internal error, and b_ins then emits nothing */
FormId b_form(Builder *b, FormFam fam, const FormKey *k);
const char *b_imm(Builder *b, int64_t v);
const char *b_addr(Builder *b, Reg base, int64_t off);
const char *b_vec(Builder *b, const Reg *regs, int n);
void b_raw_decl(Builder *b, const char *text);
/* convenience on top of forms */
Reg b_const32(Builder *b, int64_t v);
Reg b_add32_imm(Builder *b, Reg x, int64_t v);
void b_print_decls(const Builder *b, Str *out);

/* ---- dispatch (src/dispatch/) ---- */
typedef struct Emit Emit; /* per-kernel emission state, src/emit/emit.c */

typedef struct CopyOp {
	Ctx *cx;
	const Module *mod;
	const Kernel *k;
	const Stmt *st;
	View dst, src;         /* views of the regions */
	const Buffer *dbuf, *sbuf;
	int64_t elems;         /* logical elements copied per scope instance */
	int64_t scope_threads; /* threads in one scope instance */
	DType dt;              /* the memory side's element type (both sides' unless converting) */
	DType rdt;             /* the register side's (a converting copy: f32 against f16/bf16) */
} CopyOp;

typedef struct Plan Plan; /* the end of this file: it holds a variant's own plan */

/* one shared-memory access of a copy, for the race check and the bank model
 * (src/proof/races.c, banks.c): CTA thread `thread` performs warp instruction `k` of the
 * statement (the lanes of a warp with equal k form one instruction), at the
 * buffer's element offset `elem` before its swizzle, `bytes` long */
typedef struct Access {
	const Buffer *buf;
	int64_t thread, k, elem;
	int bytes;
	bool write;
} Access;
typedef void (*TraceFn)(void *ctx, const Access *a);

typedef struct Variant {
	const char *name;
	StmtKind op;
	int priority;
	/* NULL when the variant accepts, else the reason it does not */
	const char *(*accepts)(const CopyOp *op);
	/* decide; NULL on success, else the reason it declines */
	const char *(*plan)(const CopyOp *op, Plan *p);
	void (*emit)(const CopyOp *op, const Plan *p, Emit *e);
	bool ragged; /* guards accesses to params with runtime extents */
	bool converts; /* lowers copies whose two dtypes differ (docs/language.md, converting copies) */
	bool converts_into_shared; /* ... only those that store into shared memory (stmatrix) */
	bool collective; /* one warp-wide instruction (.sync.aligned): its lanes' accesses are the warp's */
	/* optional: every shared-memory access the emitted code makes, for every
	 * thread of the CTA, with the kernel variables in vals (ctaid, repeat
	 * indices; the trace sets warpid and wgid per scope instance). The same
	 * decisions as emit, computed from the plan (no PTX). NULL: the variant
	 * touches no shared memory through threads (TMA, bulk, tcgen05). */
	void (*trace)(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx);
} Variant;

typedef struct Candidate {
	const Variant *v;
	int state; /* 1 accepted, 0 rejected, -1 not tried */
	int depth; /* how far it got: 0 a blanket check (conversion, runtime extents), 1 its accepts, 2 its plan */
	const char *reason;
} Candidate;

typedef struct Decision Decision; /* the end of this file */

int dispatch_variants(StmtKind op, const Variant **out, int max);

/* ---- hazards and bank conflicts from the access traces (src/proof/races.c, banks.c, swizzle.c) ---- */
/* per buffer and direction of a copy: warp instructions, shared wavefronts
 * and the ideal, over one CTA's executions of the statement */
typedef struct BankStat {
	const Buffer *buf;
	bool write;
	int64_t instructions, wavefronts, ideal;
} BankStat;
/* how many stats (at most 2) were written; 0 when the copy has no traced
 * shared access or too many to count */
int copy_banks(const CopyOp *op, const Decision *d, BankStat *out);
/* warnings for shared bytes one warp writes and another reads or writes with
 * no sync between (after check_module's own checks) */
void check_races(Ctx *cx, const Module *m, Kernel *k);
/* 'swizzle auto' buffers: every legal candidate's wavefronts over the
 * kernel's copies, the fewest chosen (ties: none, then the smallest) */
void resolve_auto_swizzle(Ctx *cx, const Module *m, Kernel *k);
/* check_copy_tma's swizzle of a shared buffer for TMA, in bytes (0 none, -1 not one) */
int tma_swizzle_bytes(Swizzle sw, DType dt);
bool copy_op_init(Ctx *cx, const Module *m, const Kernel *k, const Stmt *st, CopyOp *op);
/* false (with an error reported at the statement) when nothing accepts */
bool dispatch_copy(const CopyOp *op, Decision *d, bool report);
/* the error dispatch_copy reports when nothing accepts */
void dispatch_report(const CopyOp *op, const Decision *d);
/* the select pass (src/dispatch/select.c): copy s's views and decision, the
 * decision computed once per compilation and kept in cx; false when its
 * regions do not slice (reported once); d->chosen NULL when no variant
 * lowers it (dispatch_report says why) */
bool select_copy(Ctx *cx, const Module *m, const Kernel *k, const Stmt *s, CopyOp *op, Decision *d);
bool select_kernel(Ctx *cx, const Module *m, const Kernel *k);

#define VARIANT(name) extern const Variant variant_##name;
#include "variants/variants.def"

/* ---- emission helpers shared by variants (src/emit/emit.c) ---- */
Builder *emit_builder(Emit *e);
Reg emit_tid(Emit *e);                    /* %tid.x */
Reg emit_scope_tid(Emit *e, Scope s);     /* thread index inside the scope instance */
Reg emit_affine(Emit *e, const Affine *a);/* u32 value of an affine expression */
Reg emit_global_base(Emit *e, const Buffer *b); /* %rd global address of a param */
Reg emit_shared_base(Emit *e, const Buffer *b); /* %r shared address of a buffer */
Reg *emit_local_regs(Emit *e, const Buffer *b); /* the .b32 words of a local buffer */
Reg emit_tmem_addr(Emit *e, const Buffer *b);   /* allocated tensor-memory address */
/* element offset register -> address register (swizzle applied for shared) */
Reg emit_address(Emit *e, const Buffer *b, Reg elem_off);
/* memory <-> packed local words; bytes in {1,2,4,8,16}; addr is an operand
 * string from b_addr; byte_off is the offset inside the thread's registers */
void emit_mem_to_local(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes);
void emit_local_to_mem(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes);
/* a 1-, 2- or 4-byte load into a whole 32-bit register (zero-extended) */
void emit_mem_load_word(Emit *e, const Buffer *mb, const char *addr, Reg word, int bytes);
/* memory -> memory through temporaries */
void emit_mem_copy(Emit *e, const Buffer *db, const char *daddr, const Buffer *sb, const char *saddr, int bytes);
/* the same with the load under predicate load_guard and the store under
 * store_guard (NULL: none): a guarded load leaves zeros, a guarded store
 * writes nothing */
void emit_mem_copy_guarded(Emit *e, const Buffer *db, const char *daddr, const Buffer *sb, const char *saddr, int bytes,
                           const char *load_guard, const char *store_guard);
void emit_mem_to_local_guarded(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes,
                               const char *guard);
void emit_local_to_mem_guarded(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes,
                               const char *guard);
/* hoisting: emission between begin and end goes to the kernel's hoisted
 * section (after the prologue, before the statements); use it only for
 * values computed from prologue registers (emit_is_invariant) and
 * non-repeat variables (emit_var_invariant). Memo: a value by content key. */
void emit_hoist_begin(Emit *e);
void emit_hoist_end(Emit *e);
bool emit_is_invariant(Emit *e, Reg r);
bool emit_var_invariant(int var);
bool emit_memo_find(Emit *e, const int64_t *key, int n, Reg *out);
void emit_memo_put(Emit *e, const int64_t *key, int n, Reg r);
Reg emit_var_reg(Emit *e, int var);
/* thread digits: value of (t / div) % mod, with shifts when powers of two;
 * hoisted and shared when t is a prologue register */
Reg emit_digit(Emit *e, Reg t, int64_t div, int64_t mod);
/* counted PTX loop: returns the counter; close with emit_loop_end */
typedef struct Loop { int top, end; Reg counter; int64_t n; bool runtime; Reg bound; int64_t step; /* 0: 1 */ } Loop;
Loop emit_loop_begin(Emit *e, int64_t n);
/* a loop of `bound` trips (a register, possibly 0) */
Loop emit_loop_begin_runtime(Emit *e, Reg bound);
void emit_loop_end(Emit *e, Loop *l);

const Kernel *emit_kernel_of(Emit *e);
Ctx *emit_ctx(Emit *e);

#include "hooks.h" /* the stmt.def hooks of asm, set, reduce, red, mbarriers and wgmma */

/* ---- the pipeline (src/api/driver.c) ---- */
typedef struct EmitOptions {
	const Target *target_override;
} EmitOptions;
/* the module printer (src/emit/emit.c): for a module that passed every analysis */
bool emit_checked_module(Ctx *cx, Module *m, Str *out);
/* explain's records (src/api/explain.c), for a module that passed the analyses */
void explain_module(Ctx *cx, const Module *m, bool json, Str *out);
/* the pass list to emit */
bool emit_module(Ctx *cx, Module *m, const EmitOptions *o, Str *out);
/* the commands' pass lists; dump_after names a pass whose state is printed
 * to *dump after it (NULL: none; an unknown name is a usage error) */
typedef enum { CMD_ANALYSE, CMD_CHECK, CMD_EXPLAIN, CMD_EXPLAIN_JSON, CMD_EMIT } Command;
bool run_passes(Ctx *cx, Module *m, Command cmd, const char *dump_after, Str *out, Str *dump);
bool run_tail_passes(Ctx *cx, Module *m, Command cmd, Str *out);
/* tilepx_compile with --dump-after's state before the diagnostics (src/api/api.c) */
/* the command line's say over a compilation beyond its diagnostics (zero: the defaults) */
typedef struct CompileOptions {
	bool lineinfo;              /* -lineinfo, -g: .file and .loc lines (Ctx.lineinfo) */
	const char *lineinfo_file;  /* the path .file names (NULL: the input's) */
	const char *const *defines; /* -D NAME=VALUE: scalar params bound at compile time (src/layout/bind.c) */
	int ndefines;
} CompileOptions;
int compile_dump(const char *path, const char *src, size_t len, const char *target, int mode, const char *dump_after,
                 const DiagOptions *dopt, const CompileOptions *copt, struct tilepx_result *out);
/* one analysis of a file for several commands' outputs (tilepx --batch;
 * src/api/api.c): analysis_result gives compile_dump's result for a mode
 * (and copt's -lineinfo) without --dump-after, running only the passes
 * after the shared ones; analysis_is says whether the arguments are the
 * analysed ones (path, bytes, target, diagnostics options, -D's) */
typedef struct Analysis Analysis;
Analysis *analysis_new(const char *path, const char *src, size_t len, const char *target, const DiagOptions *dopt,
                       const CompileOptions *copt);
bool analysis_is(const Analysis *a, const char *path, const char *src, size_t len, const char *target,
                 const DiagOptions *dopt, const CompileOptions *copt);
int analysis_result(Analysis *a, int mode, const CompileOptions *copt, struct tilepx_result *out);
void analysis_free(Analysis *a);
/* kernel k's launch record (include/tilepx/tilepx.h's tilepx_launch), as
 * tilepx_launches gives it: bound values when k is bound (src/api/api.c) */
struct tilepx_launch;
void launch_record(Ctx *cx, const Kernel *k, struct tilepx_launch *l);
/* the pass names, one line, for a usage message; false if name is not one */
const char *pass_names(void);
bool pass_known(const char *name);

/* ---- CPU reference of the program semantics (src/ref/) ---- */
/* thread `thread`'s copy of element coord of local buffer b, or NULL when
 * it holds none; *err its error bound (NULL: none kept, exact), made when
 * make is true */
typedef unsigned char *(*RefElemFn)(void *ctx, const Buffer *b, const int64_t *coord, int64_t thread, float **err,
                                    bool make);
/* the row-major indices of the elements of local buffer b that thread
 * `thread` holds, increasing, *n of them; NULL: not known (every element is
 * asked) */
typedef const int64_t *(*RefHeldFn)(void *ctx, const Buffer *b, int64_t thread, int64_t *n);
/* set's meaning (src/ref/set.c) in one CTA: vars the kernel variables (the
 * index names are set here), warps the warps that run it; held (may be NULL)
 * spares asking each thread about the elements it does not hold */
bool ref_set_run(const Kernel *k, const Stmt *s, int64_t *vars, uint64_t warps, RefElemFn elem, RefHeldFn held,
                 void *ctx);
/* ref_run_kernel keeping per-element error bounds: errs[i] (allocated
 * here, NULL when every element of param i is exact) the bound of each
 * element of param i; the caller frees them */
bool ref_run_kernel_tol(Ctx *cx, const Kernel *k, unsigned char **params, float **errs, int64_t *bytes_moved);
/* run every CTA of kernel k on host memory: params[i] is param i's storage */
bool ref_run_kernel(Ctx *cx, const Kernel *k, unsigned char **params, int64_t *bytes_moved);
bool ref_coord_of(const Buffer *b, int64_t elem, int64_t *coord);
void ref_fill_pattern(unsigned char *p, int64_t n, int es, int which);
/* a param's input: ref_fill_pattern, or small integers for 'fill small' */
void ref_fill_param(const Buffer *b, unsigned char *p, int which);
/* src/ref/convert.c: the reference's element conversions and 'fill edges' */
uint16_t ref_f32_to_half(uint32_t u, bool bf16);
uint32_t ref_half_to_f32(uint16_t h, bool bf16);
uint8_t ref_f32_to_f8(uint32_t u, bool e5m2); /* cvt.rn.satfinite.{e4m3,e5m2}x2.f32 */
void ref_fill_edges(unsigned char *p, int64_t n, DType dt, int which);
/* element bits of integer v in dtype dt (for init and fill; src/base/target.c) */
uint64_t dtype_int_bits(DType dt, int64_t v);
/* the same; false if v is not exact in dt */
bool dtype_int_value(DType dt, int64_t v, uint64_t *out);
/* affine with the given variables replaced by constants */
Affine affine_subst(const Affine *a, const int *vars, const int64_t *vals, int n);

/* ---- matrix-copy selector (the NVVM selector model) ---- */
int nvvm_select_main(int argc, char **argv);
size_t nvvm_nrows(void);
FormId nvvm_row_form(size_t i); /* the ptxas-valid form of selector row i, FORM_COUNT if it has none */

/* ---- a copy's decision: the variants' plans (src/variants/plans.h, from
 * variants.def), after every type their headers name ---- */
#include "variants/plans.h"

struct Plan {
	char params[256];  /* JSON object for explain */
	char summary[128]; /* for the PTX comment */
	VariantPlan u;     /* the chosen variant's own decisions: its member */
};

struct Decision {
	Candidate cand[16];
	int ncand;
	const Variant *chosen;
	Plan plan;
};

#endif
