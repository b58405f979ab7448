/* The multi-role phase proof's state, shared by its files (src/proof/roles*.c):
 * roles.c the counts the proof runs and the diagnostics of a failed one,
 * roles_search.c the runs and the loop invariant, roles_step.c one
 * statement of a role, roles_bars.c the barriers, roles_access.c the
 * shared accesses. */
#ifndef TILEPX_PROOF_ROLES_SIM_H
#define TILEPX_PROOF_ROLES_SIM_H

#include "tilepx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the multi-role phase proof ----
 *
 * Warps that take the same side of every when block form a role; each role
 * runs as its own program (a stack of frames) and the simulation schedules
 * them deterministically, each until it blocks on a barrier. One schedule
 * shows one interleaving; what makes the proof hold for all of them is a
 * vector clock per role: an arrival, a wait and a shared access are each
 * required to be ordered (happens-before, through the barriers) with the
 * events they must follow, not merely to follow them in this schedule:
 *   - an arrival (and TMA bytes) on a barrier happens after the barrier's
 *     last phase completed, so it cannot count toward that phase;
 *   - a role passes its wait for phase p before phase p + 1 completes
 *     (otherwise a slow role sees the parity come round again: a hang);
 *   - a write to a stage happens after every read of the stage (wgmma in
 *     flight until wgmma.wait), a read after the TMA load's phase completed.
 * Runtime trip counts: the round-by-round states of a run whose loops never
 * end repeat (clocks compared by their order, loop indices relative to the
 * slowest role); a count past the repeat behaves as one a period earlier,
 * so the counts below it are all there is to run. */

/* clock components: one per role, then one per barrier instance (its phase
 * completions are events of their own, which only the roles that wait for
 * them, directly or through others, come to know) */
/* named-barrier slots per CTA: ids 0..15, then one per warpgroup (the meeting of
 * roles that split it, at its .aligned instructions) */
enum { NB_WARPGROUP = 16, NB_PER_CTA = 32 };

enum { MAX_ROLES = 32, MAX_CLOCKS = 96, ROLE_STEPS = 1 << 22, ROLE_ROUNDS = 4096, MAX_RANKS = 8, PT_WIN = 64 };

typedef struct RFrame {
	Stmt **body;
	size_t n, i;
	const Stmt *blk;
	int64_t j, trips;
} RFrame;

/* a clock value counts statement instances or phase completions of one
 * run, at most ROLE_STEPS + 1: 32 bits (half the memory a run copies and a
 * round keeps of 64) */
typedef int32_t Tick;
typedef struct VC { Tick t[MAX_CLOCKS]; } VC;

/* a wgmma statement in flight in a role: its newest instance's group (-1:
 * uncommitted) */
typedef struct WgFlight { const Stmt *s; int64_t group; } WgFlight;

enum { MAX_WG_REGS = 16, MAX_WG_FLIGHT = 16 };

typedef struct Role {
	uint64_t warps;
	RFrame fr[MAX_REPEAT_DEPTH + 2];
	int depth;
	int64_t *vals;
	VC clock;
	int64_t *waits, *pass_t; /* per barrier instance: waits passed, own time of the last pass */
	bool done, lag_all, lag_wg;
	const Stmt *lag_at;
	int64_t met_t;           /* own time when its threads last met: a wait passed after it may still hold lanes */
	const Stmt *deferred;    /* an expect_tx without bytes: its phase's TMA loads, known once they are issued */
	int defer_bar;
	int64_t wg_groups;
	int64_t bulk_groups;     /* bulk groups committed (TMA stores), and those bulk.wait completed */
	int64_t bulk_done;
	int nb_id;               /* blocked in bar.sync / sync / cluster.sync: its slot in nb, generation */
	int64_t nb_gen;
	bool in_nb;
	int64_t entries[2];      /* per runtime trip class: the role's loops of it entered so far */
	int rank;                /* its CTA in the cluster */
	int64_t cpa_groups;      /* cp.async groups its threads committed (each thread its own, alike) */
	const Stmt *carrive;     /* a cluster.arrive not yet waited for: the cluster barrier's generation it */
	int64_t carrive_gen;     /* joined, and the role's own time at it */
	int64_t carrive_t;
	const Stmt *last_mc;     /* a multicast it issued that no cluster barrier has followed yet, at own */
	int64_t last_mc_t;       /* time last_mc_t */
	/* wgmma (roles_wgmma.c): a wgmma.fence run yet; the wgmma.commit since the last fence; per wgmma
	 * register buffer (RSim.wgregs) the last statement that touched it since the last fence; the wgmma
	 * statements in flight */
	bool wg_fence;
	const Stmt *wg_commit;
	const Stmt *wg_touch[MAX_WG_REGS];
	int nwgf;
	WgFlight wgf[MAX_WG_FLIGHT];
} Role;

typedef struct RBar {
	bool init;
	int64_t count, arrivals, expect, loaded, completed;
	int ndeferred;
	VC acc, done;
	VC done_prev;            /* the completion before `done` (a wait after mbarrier.skip needs it) */
	const Stmt *first, *init_at;
	VC init_vc;              /* the initializing role's clock at the init */
	VC racc;                 /* signals from roles of other CTAs (remote arrivals, multicast bytes) */
	const Stmt *rlast;       /* the last of them */
} RBar;

typedef struct Rec {
	const Buffer *buf;
	int64_t lo, hi;
	const Stmt *s;
	int role;
	bool write, complete;
	bool dead;               /* superseded: skipped, removed from the array when dead ones pile up */
	int rank;                /* the CTA whose shared memory it touches */
	int bar;                 /* a TMA load: the barrier instance and phase it completes on */
	int64_t phase;
	int64_t group;           /* a wgmma read or a TMA store's read of its source: its group, -1
	                          * uncommitted; a store's: -2 once the issuing thread's bulk.wait_read
	                          * retired it, complete when the role's threads next meet */
	int proxy;               /* a threads' write, for a TMA store's read (the async proxy): PROXY_* */
	int32_t next;            /* the next record of its bucket (same buffer and CTA), in order; -1: none */
	int bkt;                 /* its bucket, -1: none */
	int one;                 /* complete: vc's only nonzero component (a role's own access), -1: any */
	int32_t trip[4];         /* the trips of the blocks around s when it ran, outermost first (ntrip of */
	int ntrip;               /* them; -1: deeper), which tell its instance (instance_of) */
	const Stmt *tblk;        /* the innermost of those blocks */
	bool unmet;              /* a write of the role's threads, its threads not met since (bar.sync) */
	const Stmt *hid_by;      /* an unmet write behind a one-thread arrival of its role: vc holds HIDDEN
	                          * until the role's threads meet or all of them arrive */
	int8_t at_arrive;        /* AT_*: what held at its role's pending cluster.arrive, which the
	                          * cluster.wait makes known to the role's threads */
	VC vc;                   /* complete: the event every later conflicting access must follow (last: a
	                          * record moves with the components in use only) */
} Rec;

/* the records of one buffer in one CTA's shared memory, chained in order:
 * only they can conflict with or be superseded by an access to it */
typedef struct RBucket {
	const Buffer *buf;
	int rank;
	int32_t head, tail;
} RBucket;

enum { MAX_BUCKETS = 32 };

typedef struct NBar {
	int64_t arrived, count, gen;
	VC acc, release;
	const Stmt *first;
} NBar;

typedef struct RSim {
	Ctx *cx;
	Kernel *k;
	Role *r;
	int nr;
	RBar *bars;
	int64_t nbars, *base;
	Rec *recs;
	size_t nrecs, reccap;
	size_t ndead;            /* records of recs marked dead (in order, the live ones are the record list) */
	RBucket bk[MAX_BUCKETS]; /* in a run's state (copied with it) */
	int nbk;                 /* buckets in use; a buffer past MAX_BUCKETS has none (its accesses scan every
	                          * record) */
	NBar *nb;                /* 0: cluster.sync; then per CTA, by id (0: sync): NB_PER_CTA * nranks + 1 (a run's
	                          * scratch, zeroed at each run: only the CTAs there are) */
	int nnb;                 /* named barriers 0..nnb-1 used so far */
	int nranks;              /* CTAs in the cluster: each runs every role */
	int64_t cta_bars;        /* barrier instances per CTA (rank r's are r * cta_bars + ...) */
	int nclk;                /* clock components in use: nr + nbars */
	bool failed;
	int64_t steps;
	/* runtime trip classes (loops with the same count at every launch):
	 * each has its count in this run, cnt; the free class (-1: none) runs
	 * cnt trips in its first free_entry - 1 entries of a role and then
	 * without end (the invariant search; cap, the largest count the facts
	 * allow, bounds it) */
	const struct TClass *cls;
	int ncls, free;
	int64_t cnt[2], free_entry, cap;
	bool capped;             /* a role left an endless loop after cap trips: no larger count to search */
	bool abs_parity;         /* a wait names its parity: the phases' parities, not only their distances, matter */
	struct ViewCache *views; /* the shared regions' views, the proof's (not the run's) */
	/* a run shared by the counts of class `share` (-1: none; outer_counts):
	 * every count <= reach would have left one of its loops by now, or not
	 * entered it (0); unshareable: a loop of it ran other than cnt trips */
	int share;
	int64_t reach;
	bool unshareable;
	bool cpa;                /* the kernel has cp.async: global accesses are checked against their sources */
	bool mc;                 /* the kernel has multicast loads */
	bool *cpa_warned;        /* the proof's one cp.async warning is out (set by a run reporting to loud) */
	struct Fits *fits;       /* a kernel without roles: the waits' fitted parities (NULL: every parity is
	                          * tracked at run time) */
	const Ctx *loud;
	const Buffer *wgregs[MAX_WG_REGS]; /* the local buffers wgmma accumulates into or reads A from */
	int nwgregs;
	bool wg_over;
	bool wg;                 /* the kernel has wgmma statements */
	/* per-tile counts (roles_tiles.c): the loops of class pt (a count over the index of class pto's loop,
	 * the walk) run tc[j % PT_WIN] trips in the walk's trip j, known for the trips below tknown (the
	 * last one's without end when pt_endless); the walk ends at trip oend (-1: not chosen). A role
	 * reaching a later trip blocks with choose set: pt_mode 1 ends the round (ROUND_CHOOSE), 2 waits */
	int pt, pto, pt_mode;
	bool choose, pt_endless;
	int64_t tknown, oend;
	int64_t tc[PT_WIN];
} RSim;

/* a region's view depends on the region and the kernel only: the proof
 * computes it once per region, not at each of its accesses in each run */
typedef struct ViewCache {
	size_t n, cap;
	struct CachedView { const Region *reg; bool ok; View v; } *at;
} ViewCache;

typedef struct TClass {
	int scalar;              /* 1 + scalar index */
	int64_t div;
	int across;
	int oscalar;             /* a 2-D walk's inner loop: its outer loop's count (0: none) */
	int64_t odiv;
	int oacross;
	int64_t lo, hi;          /* the counts the facts allow */
	const Stmt *first;
	const Stmt *rep;         /* a loop of the class (its count: stmt_trips_same) */
	const Stmt *const *members; /* per-tile counts: the class's loops, nmembers of them (each over its own */
	int nmembers;               /* walk's index: their expressions differ in that variable only) */
} TClass;

/* a run's scratch lives on the heap, freed after the run (the proof makes
 * hundreds of runs; the arena would keep them all); out of memory aborts,
 * as the arena does */
static inline void *xcalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* the records of buf in CTA rank's shared memory, in order (roles_access.c):
 * for (i = rec_first(S, buf, rank, &b); i >= 0; i = rec_next(S, b, i)) */
int64_t rec_first(const RSim *S, const Buffer *buf, int rank, int *bkt);
int64_t rec_next(const RSim *S, int bkt, int64_t i);

#define RFAIL(S, ...) ((S)->failed = true, diag_error((S)->cx, __VA_ARGS__))

/* the clock operations run over the run's components only (roles and
 * barrier instances; the rest stay 0) */
static inline void vc_join(const RSim *S, VC *a, const VC *b)
{
	for (int i = 0; i < S->nclk; i++)
		if (b->t[i] > a->t[i])
			a->t[i] = b->t[i];
}

/* a copy, and zero, over the components in use (a VC is 96 of them; the
 * rest stay 0 where they were, unread where a record's slot is fresh) */
static inline void vc_copy(const RSim *S, VC *a, const VC *b) { memcpy(a->t, b->t, sizeof(Tick) * (size_t)S->nclk); }

static inline void vc_zero(const RSim *S, VC *a) { memset(a->t, 0, sizeof(Tick) * (size_t)S->nclk); }

static inline bool vc_le(const RSim *S, const VC *a, const VC *b)
{
	for (int i = 0; i < S->nclk; i++)
		if (a->t[i] > b->t[i])
			return false;
	return true;
}

static inline int role_of(const RSim *S, const Role *r) { return (int)(r - S->r); }

static inline void set_var(RSim *S, Role *r, int var, int64_t v) { kernel_set_var(S->k, r->vals, var, v); }

/* the barrier instance s names, in the CTA of rank `rank` */
static inline int rbar_at(RSim *S, Role *r, const Stmt *s, int rank)
{
	return (int)(rank * S->cta_bars + S->base[s->mbar - 1] + affine_eval(s->mbar_idx, r->vals));
}

static inline int rbar_of(RSim *S, Role *r, const Stmt *s) { return rbar_at(S, r, s, r->rank); }

static inline void rbar_name(RSim *S, Role *r, const Stmt *s, char *out, size_t n)
{
	int at = snprintf(out, n, "%s[%lld]", s->mbar_name, (long long)affine_eval(s->mbar_idx, r->vals));
	if (S->nranks > 1 && at > 0 && (size_t)at < n)
		snprintf(out + at, n - (size_t)at, " of CTA rank %d", r->rank);
}

/* the first warp of the statement's warps is the one-thread statements' leader */
static inline bool leads(const Role *r, const Stmt *s)
{
	return s->warps && (r->warps >> __builtin_ctzll(s->warps) & 1);
}

static inline void role_desc(const RSim *S, const Role *r, char *out, size_t n)
{
	char ws[80];
	fmt_warps(ws, sizeof ws, r->warps);
	int at = S->k->has_roles ? snprintf(out, n, "the role of warp%s %s", __builtin_popcountll(r->warps) > 1 ? "s" : "",
	                                    ws)
	                         : snprintf(out, n, "every thread"); /* without roles: one role of every warp */
	if (S->nranks > 1 && at > 0 && (size_t)at < n)
		snprintf(out + at, n - (size_t)at, "%s CTA rank %d", S->k->has_roles ? " in" : " of", r->rank);
}

/* " (the role of ...)" after a statement's line; nothing in a kernel of
 * one role and one CTA */
static inline const char *role_paren(const RSim *S, const Role *r)
{
	if (!S->k->has_roles && S->nranks == 1)
		return "";
	char who[160];
	role_desc(S, r, who, sizeof who);
	return arena_printf(S->cx->arena, " (%s)", who);
}

/* a threads' write seen by a TMA store: after fence.proxy_async (FENCED)
 * and a meeting of the role's threads (VISIBLE) */
enum { PROXY_VISIBLE, PROXY_FENCED, PROXY_UNFENCED };

static inline bool is_store(const Stmt *s) { return stmt_is_tma_store(s) || stmt_is_bulk_store(s); }

/* cp.async (ldgsts): each thread of the role copies its part, reading the
 * global source and writing the shared stage until its own cp_async.wait
 * retires the group (what the thread's threads know of it then: a write of
 * theirs, which sync or bar.sync shows the others) */
static inline bool is_cpa(const Stmt *s)
{
	return s->kind == ST_COPY_ASYNC && !stmt_is_tma_load(s) && s->dst->buf && s->src->buf &&
	       s->dst->buf->mem == MEM_SHARED && s->src->buf->mem == MEM_GLOBAL;
}

static inline bool cpa_in_flight(const Rec *x) { return !x->complete && is_cpa(x->s); }

/* an access the caller completes later (a TMA load on barrier instance bar
 * in its phase, a wgmma read with bar -1): its record waits, clock 0 */
typedef struct Pending { int bar; int64_t phase; } Pending;

enum { STEP_RAN, STEP_BLOCKED, STEP_DONE, STEP_YIELD };

/* a kernel without roles: the waits' fitted parities (roles_step.c, fit_parity) */
typedef struct Fit { const Stmt *s; int c; int8_t *k; } Fit;
typedef struct Fits { Fit *at; size_t n, cap; } Fits;

/* the clocks of a round state, raw: per component, every stored value of
 * it (roles' clocks and own pass times, barriers, records, thread
 * barriers), after a header of the record and thread barrier counts that
 * fix the components' lengths. Two rounds' clocks are equal when every
 * value has the same rank among its component's (equal orders, equal
 * futures); ranking costs a sort per component, so it is done only for
 * the rounds whose other parts match (clocks_rank) */
typedef struct Clocks {
	int32_t *v;              /* nrecs, nnb, then every holder's clock (a row of nclk), then the roles' pass times */
	size_t n, cap, rows;
	int32_t *rank[MAX_CLOCKS]; /* per component (a column, and a role's pass times): the values' ranks */
	size_t rankcap[MAX_CLOCKS];
	bool ranked[MAX_CLOCKS];
} Clocks;

/* an invariant search's rounds: signatures, raw clocks and loop index
 * bounds, kept by the proof: slots grow with the longest search (their
 * buffers serve every search that reaches them) */
typedef struct Round {
	Str sig;
	Clocks clk;
	int64_t jmin, jmax;
} Round;

typedef struct Rounds {
	Round *at;
	size_t n;
	Str scratch;             /* a signature is written here (room for its upper bound), then kept at its size */
} Rounds;

enum { ROUND_ON, ROUND_END, ROUND_FAILED, ROUND_CHOOSE };

/* shared accesses (roles_access.c) */
bool rspan(RSim *S, Role *r, const Region *reg, int64_t *lo, int64_t *hi);
void shared_access(RSim *S, Role *r, const Stmt *s, const Region *reg, bool write, const Pending *out, int rank);

/* barriers (roles_bars.c) */
bool lag_on(const Role *r, int64_t bi);
void threads_met(RSim *S, Role *r);
bool signal_ok(RSim *S, Role *r, const Stmt *s, int bi, bool one_thread);
void bar_label(const RSim *S, int bi, char *out, size_t n);
void try_complete(RSim *S, int bi, const Stmt *at);
void resolve_deferred(RSim *S, Role *r);
int64_t tma_bytes(const Stmt *s);
void role_met(RSim *S, Role *r);
void role_retired(RSim *S, Role *r);
void hand_off(RSim *S, Role *r, const Stmt *s);
bool named_barrier(RSim *S, Role *r, const Stmt *s, int id, int64_t count, bool wait);

/* one statement of a role (roles_step.c) */
bool walk_outer(const Stmt *s);
int class_of(const TClass *cls, int ncls, const Stmt *s, const Stmt *parent);
bool free_frame(const RSim *S, const Role *r, int d);
void store_fits(Ctx *cx, const Kernel *k, const Fits *F);
void cpa_end_warning(RSim *S);
int role_step(RSim *S, Role *r);

/* wgmma's registers and operands (roles_wgmma.c) */
void wg_scan(RSim *S);
void wg_registers(RSim *S, Role *r, const Stmt *s);
bool wg_mma(RSim *S, Role *r, const Stmt *s);
void wg_sync(RSim *S, Role *r, const Stmt *s);
bool wg_end(RSim *S);

/* runs and the loop invariant (roles_search.c) */
void round_sig(RSim *S, Str *o, Clocks *clocks, int64_t *jmin_out, int64_t *jmax_out);
void scan_cpa(void *ctx, const Stmt *s);
RSim *rsim_new(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const TClass *cls, int ncls);
void rsim_free(RSim *S);
RSim *rsim_copy(RSim *C, const RSim *S);
void rounds_free(Rounds *R);
bool rsim_run(RSim *S, Rounds *own, int64_t *trans, int64_t *period);
int rsim_round(RSim *S);
int round_check(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t round, int64_t *trans,
                int64_t *period);
/* run to the end (or, own given, for rounds while looking for the
 * invariant: a round state equal to an earlier one, after *trans trips of
 * the free class's endless loop, repeats every *period trips). Rounds
 * before npre are pre's: another run's, whose states up to there were this
 * run's (inner_searches); the run starts at round `start` */
bool rsim_rounds(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t start, int64_t *trans,
                 int64_t *period);
/* the checks at a run's end (ROUND_END): TMA loads, wgmma, multicast, cp.async */
bool rsim_end_checks(RSim *S);
/* per-tile counts (roles_tiles.c): frame d of r runs the walk (class pto) */
bool pt_walk_frame(const RSim *S, const Role *r, int d);
/* every sequence of per-tile counts of class pt inside class pto's loop */
struct ViewCache;
void prove_tiles(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const TClass *cls, int pto, int pt,
                 struct ViewCache *views, bool *cpa_warned, struct Fits *fits);

#endif
