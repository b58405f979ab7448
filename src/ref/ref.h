/* What the CPU reference's interpreter (ref.c) and its roles scheduler
 * (roles.c) share; nothing outside src/ref/ includes it. */
#ifndef TILEPX_REF_H
#define TILEPX_REF_H
#include "../tilepx.h"
#include "../walk.h"

typedef struct RefCta {
	const Kernel *k;
	const Ctx *cx;        /* the analyses' side tables: a 'swizzle auto' buffer's swizzle */
	unsigned char **mem;  /* per buffer index: shared, local (threads x regs) or tmem bytes */
	unsigned char **params;
	int64_t *vars;
	int64_t cta;
	int64_t bytes;
	struct RefCta *peers; /* the CTAs of its cluster, by rank (itself among them) */
	int nranks;
	uint64_t warps;       /* the warps running the statement (a role's; every bit without roles) */
	/* error bounds (set's approximate functions): per buffer index (local,
	 * shared) and per param, one float per element, NULL while all exact */
	float **err, **perr;
	struct RedAcc **racc; /* per param: red.add's terms so far (src/ref/red.c, ref_red), NULL until one lands */
	struct RefOwnMap **own; /* per buffer index: which thread holds each element (set_elem), NULL until asked */
	struct RefOwnMap *own_last; /* the one asked last */
} RefCta;
void ref_own_free(RefCta *c);
/* ref.c's layout definitions, for the ownership map (own.c) */
size_t bidx(const Kernel *k, const Buffer *b);
void apply_layout(const Buffer *b, int64_t idx, int64_t *at /* [AX_COUNT] */);
int64_t replica_count(const Buffer *b);
void add_replica(const Buffer *b, int64_t rep, int64_t *at);
int64_t thread_weight(Axis a);

/* one statement of one CTA (its stmt.def ref hook); false: an error was reported */
typedef bool (*RefHook)(Ctx *cx, RefCta *c, const Stmt *s);
extern const RefHook ref_hook[ST_COUNT];
extern const char *const ref_keyword[ST_COUNT];

int64_t ref_eval(const Affine *e, const int64_t *vars);
int64_t ref_region_elems(const Region *r);
bool ref_copy(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_red(Ctx *cx, RefCta *c, const Stmt *s); /* red.c */
/* the other statements' hooks (ref.c), the table's (hooks.c) */
bool ref_asm(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_dump(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_init(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_reduce(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_repeat(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_set(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_wgmma(Ctx *cx, RefCta *c, const Stmt *s);
bool ref_when(Ctx *cx, RefCta *c, const Stmt *s);
/* the threads of one instance of b's owner, and whether the running warps hold instance first */
int64_t ref_owner_threads(const RefCta *c, const Buffer *b);
bool ref_runs_instance(const RefCta *c, int64_t first, int64_t n);
void ref_enter_instance(RefCta *c, int64_t first);
/* element x of region r in the instance that starts at thread first (NULL: outside) */
unsigned char *ref_place(RefCta *c, const Region *r, int64_t x, int64_t first);
/* the error bound slot of the element at p of b (make: allocate the table) */
float *ref_err_slot(RefCta *c, const Buffer *b, const unsigned char *p, bool make);
/* a repeat's index at trip it (its stage indices with it), and back at 0 after the last */
void ref_trip_begin(const Kernel *k, int64_t *vars, const Stmt *s, int64_t it);
void ref_trip_end(int64_t *vars, const Stmt *s);
/* registers per thread of a local buffer */
int64_t ref_regs_per_thread(const Buffer *b);
/* vars[var] = v, and the stage indices with it */
void ref_set_var(const Kernel *k, int64_t *vars, int v, int64_t val);
/* a repeat's trips for the walker (walk.c) */
int64_t ref_trips(Walk *w, const Stmt *s);
/* the statements hold a when block (the kernel runs as roles) */
bool ref_has_when(Stmt *const *body, size_t n);
/* the CTAs of a cluster with when blocks, each role a coroutine (roles.c) */
bool ref_run_roles(Ctx *cx, RefCta *cl, int nranks);

#endif
