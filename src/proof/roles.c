/* Warp roles: when blocks, named barriers, register budgets, and the proof
 * of a kernel whose warps run different statements (a producer warpgroup
 * issuing TMA loads into a ring of stages, consumer warpgroups computing on
 * them, ordered by mbarriers).
 *
 * The statements' own checks run as everywhere; here is what a role adds:
 * which statements a subset of the CTA's warps may run, and the multi-role
 * phase proof (check_role_phases, below): the one async analysis of every
 * kernel, a kernel without when blocks being one role of every warp (issue
 * 35). */
#include "tilepx.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* warp 4g of every warpgroup g */
#define WG_FIRST_WARPS 0x1111111111111111ull

static int popcount64(uint64_t v) { return __builtin_popcountll(v); }

/* every warpgroup is in the set entirely or not at all */
static bool whole_warpgroups(uint64_t warps)
{
	for (int g = 0; g < 16; g++) {
		uint64_t m = (uint64_t)0xf << (4 * g);
		if ((warps & m) && (warps & m) != m)
			return false;
	}
	return true;
}

static void fmt_warps(char *out, size_t n, uint64_t warps)
{
	size_t at = 0;
	out[0] = 0;
	for (int w = 0; w < 64 && at + 8 < n; w++)
		if (warps >> w & 1) {
			int e = w;
			while (e + 1 < 64 && (warps >> (e + 1) & 1))
				e++;
			at += (size_t)snprintf(out + at, n - at, at ? ", %d" : "%d", w);
			if (e > w)
				at += (size_t)snprintf(out + at, n - at, "..%d", e);
			w = e;
		}
}

void check_in_role(Ctx *cx, Kernel *k, const Stmt *s)
{
	char ws[96];
	fmt_warps(ws, sizeof ws, s->warps);
	const StmtInfo *si = &stmt_info[s->kind];
	if (s->kind == ST_SYNC || s->kind == ST_MBAR_INIT || si->cbar) {
		diag_error(cx, s->loc, "%s inside a when block: every thread of the %s must reach it, but only warps %s do",
		           si->keyword, si->cbar ? "cluster" : "CTA", ws);
		diag_note(cx, s->kind == ST_SYNC ? "the other warps never arrive (a hang): 'bar.sync ID, COUNT' orders the "
		                                   "warps of the roles that take part"
		                                 : "do it before the when blocks, where every warp runs");
		return;
	}
	bool wg = s->scope == SC_WARPGROUP && (si->flags & SF_SCOPED);
	wg |= s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT;
	wg |= s->kind == ST_SETMAXNREG_INC || s->kind == ST_SETMAXNREG_DEC;
	wg |= s->kind == ST_MBAR_ARRIVE && s->per == SC_WARPGROUP;
	if (wg && !whole_warpgroups(s->warps)) {
		diag_error(cx, s->per == SC_WARPGROUP && s->kind == ST_MBAR_ARRIVE ? s->per_loc : s->loc,
		           "%s is warpgroup-wide, but the warps that run it (%s) are not whole warpgroups", si->keyword, ws);
		diag_note(cx, "a warpgroup is warps 4g..4g+3: select roles by wgid");
		return;
	}
	if ((si->flags & SF_COPY) && s->scope == SC_CTA && !stmt_is_tma_load(s) && !stmt_is_tma_store(s) &&
	    !stmt_is_bulk_store(s)) {
		diag_error(cx, s->loc, "a cta copy inside a when block: the copy divides among every thread of the CTA, "
		           "but only warps %s run it", ws);
		diag_note(cx, "use warp or warpgroup scope here; a TMA or bulk copy (issued by one thread) may be cta");
		return;
	}
	if (s->kind == ST_DUMP) {
		diag_error(cx, s->loc, "dump inside a when block: every thread of the CTA writes its slot");
		return;
	}
	(void)k;
}

/* the warps of s that use barrier id (an id from wgid: each warpgroup its own) */
static uint64_t nbar_warps(const Stmt *s, int64_t id)
{
	uint64_t m = 0;
	for (int w = 0; w < 64; w++)
		if ((s->warps >> w & 1) && nbar_id_at(s, w) == id)
			m |= (uint64_t)1 << w;
	return m;
}

/* an id from wgid: 1..15 in every warpgroup that runs it; the most threads of one id */
static bool check_bar_ids(Ctx *cx, const Stmt *s, int64_t *here)
{
	for (int w = 0; w < 64; w++)
		if (s->warps >> w & 1) {
			int64_t id = nbar_id_at(s, w), n = 32 * (int64_t)popcount64(nbar_warps(s, id));
			if (id < 1 || id > 15) {
				diag_error(cx, s->value_loc, "this barrier id is %lld in warpgroup %d; a named barrier id is 1..15",
				           (long long)id, w / 4);
				return false;
			}
			*here = n > *here ? n : *here;
		}
	return true;
}

/* bar.sync ID [, COUNT], bar.arrive ID, COUNT */
void check_named_bar(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	int64_t here = s->bar_id ? 0 : 32 * (int64_t)popcount64(s->warps);
	if (s->bar_id && !check_bar_ids(cx, s, &here))
		return;
	k->has_roles |= s->bar_id != NULL; /* each warpgroup meets at its own barrier: roles (the roles proof) */
	if (k->is_func) {
		diag_error(cx, s->loc, "%s in a func: named barriers belong to the kernel's roles", stmt_info[s->kind].keyword);
		return;
	}
	if (!s->has_count)
		s->count = here;
	const char *id = s->bar_id ? "(its id from wgid)" : arena_printf(cx->arena, "%lld", (long long)s->n);
	if (s->count < here) {
		diag_error(cx, s->value_loc, "%s %s counts %lld threads, but the %lld threads of warps that run it all "
		           "arrive", stmt_info[s->kind].keyword, id, (long long)s->count, (long long)here);
		return;
	}
	if (s->count > k->threads) {
		diag_error(cx, s->value_loc, "%s %s counts %lld threads; kernel '%s' has %lld", stmt_info[s->kind].keyword,
		           id, (long long)s->count, k->name, (long long)k->threads);
		return;
	}
	if (!s->bar_id && s->warps == kernel_all_warps(k) && s->count != k->threads) {
		diag_error(cx, s->value_loc, "every thread runs this %s, so its count must be %lld (got %lld)",
		           stmt_info[s->kind].keyword, (long long)k->threads, (long long)s->count);
		return;
	}
	if (!s->bar_id && s->kind == ST_NBAR_ARRIVE && s->warps == kernel_all_warps(k)) {
		diag_error(cx, s->loc, "bar.arrive outside a when block: no thread is left to bar.sync on it");
		return;
	}
}

void check_setmaxnreg(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (s->n < 24 || s->n > 256 || s->n % 8) {
		diag_error(cx, s->loc, "%s %lld: the register count is a multiple of 8 in 24..256", stmt_info[s->kind].keyword,
		           (long long)s->n);
		return;
	}
	if (k->is_func)
		diag_error(cx, s->loc, "%s in a func: register budgets belong to the kernel's roles",
		           stmt_info[s->kind].keyword);
}

struct Budget { Ctx *cx; Kernel *k; const Stmt *last[16]; };

static void note_budget(void *ctx, const Stmt *s)
{
	struct Budget *B = ctx;
	if (s->kind != ST_SETMAXNREG_INC && s->kind != ST_SETMAXNREG_DEC)
		return;
	for (int g = 0; g < 16; g++)
		if (s->warps >> (4 * g) & 0xf) {
			if (B->last[g] && B->last[g]->n != s->n)
				diag_error(B->cx, s->loc, "warpgroup %d sets its register budget to %lld here and to %lld at line %d",
				           g, (long long)s->n, (long long)B->last[g]->n, B->last[g]->loc.line);
			B->last[g] = s;
		}
}

/* registers: a CTA launches with .maxnreg R per thread (the largest
 * multiple of 8 that lets the CTA fit the 64K-register file); each
 * setmaxnreg moves its warpgroup to its count, and the counts together
 * must fit the file (one CTA per SM) */
void check_role_budgets(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	struct Budget B = {cx, k, {0}};
	int before = cx->diags.errors;
	stmt_walk(k->body, k->nbody, note_budget, &B);
	int nwg = (int)((k->threads + 127) / 128);
	bool any = false;
	for (int g = 0; g < nwg; g++)
		any |= B.last[g] != NULL;
	if (!any || cx->diags.errors != before)
		return;
	if (k->threads % 128) {
		diag_error(cx, k->threads_loc, "setmaxnreg needs whole warpgroups: kernel '%s' has %lld threads", k->name,
		           (long long)k->threads);
		return;
	}
	int64_t r = 65536 / k->threads / 8 * 8;
	if (r > 256)
		r = 256;
	k->maxnreg = r;
	int64_t total = 0;
	for (int g = 0; g < nwg; g++) {
		const Stmt *s = B.last[g];
		if (s && s->kind == ST_SETMAXNREG_INC && s->n < r) {
			diag_error(cx, s->loc, "setmaxnreg.inc %lld lowers warpgroup %d's budget: it starts at %lld registers",
			           (long long)s->n, g, (long long)r);
			diag_note(cx, "the CTA launches with .maxnreg %lld (64K registers / %lld threads); use setmaxnreg.dec",
			          (long long)r, (long long)k->threads);
			return;
		}
		if (s && s->kind == ST_SETMAXNREG_DEC && s->n > r) {
			diag_error(cx, s->loc, "setmaxnreg.dec %lld raises warpgroup %d's budget: it starts at %lld registers",
			           (long long)s->n, g, (long long)r);
			diag_note(cx, "the CTA launches with .maxnreg %lld (64K registers / %lld threads); use setmaxnreg.inc",
			          (long long)r, (long long)k->threads);
			return;
		}
		total += 128 * (s ? s->n : r);
	}
	if (total > 65536) {
		const Stmt *inc = NULL;
		for (int g = 0; g < nwg && !inc; g++)
			if (B.last[g] && B.last[g]->kind == ST_SETMAXNREG_INC)
				inc = B.last[g];
		diag_error(cx, inc ? inc->loc : k->loc, "the register budgets of kernel '%s' need %lld registers; an SM has "
		           "65536", k->name, (long long)total);
		for (int g = 0; g < nwg; g++)
			diag_note(cx, "warpgroup %d: %lld x 128%s", g, (long long)(B.last[g] ? B.last[g]->n : r),
			          B.last[g] ? "" : " (its launch budget, .maxnreg)");
	}
}

/* the uses of each named barrier id, in program order */
struct NbarUses { Arena *arena; const Stmt **s; size_t n, cap; };

static void note_nbar(void *ctx, const Stmt *s)
{
	struct NbarUses *u = ctx;
	if (s->kind == ST_NBAR_SYNC || s->kind == ST_NBAR_ARRIVE)
		APUSH(u->arena, u->s, u->n, u->cap, s);
}

/* One named barrier id is one hardware barrier: it completes at any COUNT
 * arrivals. The warps that use an id, over every use, must be COUNT
 * threads: fewer never complete it (a hang), more are two hand-offs on one
 * barrier, whose arrivals can complete each other's phases. */
void check_named_bar_uses(Ctx *cx, Kernel *k)
{
	struct NbarUses u = {cx->arena, NULL, 0, 0};
	stmt_walk(k->body, k->nbody, note_nbar, &u);
	for (int id = 1; id < 16; id++) {
		uint64_t all = 0;
		const Stmt *first = NULL;
		for (size_t i = 0; i < u.n; i++) {
			const Stmt *s = u.s[i];
			uint64_t mine = nbar_warps(s, id);
			if (!mine)
				continue;
			if (!first)
				first = s;
			all |= mine;
			if (32 * popcount64(all) > s->count) {
				char ws[96], fs[96];
				fmt_warps(ws, sizeof ws, mine);
				fmt_warps(fs, sizeof fs, nbar_warps(first, id));
				diag_error(cx, s->loc, "barrier %d is used here (warps %s) and at line %d (warps %s): %lld threads "
				           "in all, but any %lld arrivals complete it", id, ws, first->loc.line, fs,
				           (long long)(32 * popcount64(all)), (long long)s->count);
				diag_note(cx, "two hand-offs on one barrier id can complete each other's phases (a reader passes "
				          "before its writer): give each its own id");
				return;
			}
		}
		for (size_t i = 0; i < u.n; i++) {
			const Stmt *s = u.s[i];
			if (!nbar_warps(s, id) || 32 * popcount64(all) >= s->count)
				continue;
			char ws[96];
			fmt_warps(ws, sizeof ws, all);
			diag_error(cx, s->loc, "only %lld threads reach this barrier, COUNT is %lld: barrier %d never completes "
			           "(a hang)", (long long)(32 * popcount64(all)), (long long)s->count, id);
			diag_note(cx, "warps %s use barrier %d; COUNT is the threads of every bar.sync and bar.arrive on the id "
			          "together", ws, id);
			return;
		}
	}
}

void emit_named_bar(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	if (s->bar_id) /* each warpgroup's id, from its wgid */
		b_ins(b, s->kind == ST_NBAR_SYNC ? FORM_BAR_SYNC_R : FORM_BAR_ARRIVE_R, b_name(b, emit_affine(e, s->bar_id)),
		      b_imm(b, s->count), NULL);
	else
		b_ins(b, s->kind == ST_NBAR_SYNC ? FORM_BAR_SYNC_N : FORM_BAR_ARRIVE_N, b_imm(b, s->n), b_imm(b, s->count),
		      NULL);
}

void emit_setmaxnreg(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	b_ins(b, s->kind == ST_SETMAXNREG_INC ? FORM_SETMAXNREG_INC : FORM_SETMAXNREG_DEC, b_imm(b, s->n), NULL);
}

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

enum { MAX_ROLES = 32, MAX_CLOCKS = 96, ROLE_STEPS = 1 << 22, ROLE_ROUNDS = 4096, MAX_RANKS = 8 };

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
} Role;

typedef struct RBar {
	bool init;
	int64_t count, arrivals, expect, loaded, completed;
	int ndeferred;
	VC acc, done;
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
} TClass;

/* a run's scratch lives on the heap, freed after the run (the proof makes
 * hundreds of runs; the arena would keep them all); out of memory aborts,
 * as the arena does */
static void *xcalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

#define RFAIL(S, ...) ((S)->failed = true, diag_error((S)->cx, __VA_ARGS__))

/* the clock operations run over the run's components only (roles and
 * barrier instances; the rest stay 0) */
static void vc_join(const RSim *S, VC *a, const VC *b)
{
	for (int i = 0; i < S->nclk; i++)
		if (b->t[i] > a->t[i])
			a->t[i] = b->t[i];
}

/* a copy, and zero, over the components in use (a VC is 96 of them; the
 * rest stay 0 where they were, unread where a record's slot is fresh) */
static void vc_copy(const RSim *S, VC *a, const VC *b) { memcpy(a->t, b->t, sizeof(Tick) * (size_t)S->nclk); }

static void vc_zero(const RSim *S, VC *a) { memset(a->t, 0, sizeof(Tick) * (size_t)S->nclk); }

static bool vc_le(const RSim *S, const VC *a, const VC *b)
{
	for (int i = 0; i < S->nclk; i++)
		if (a->t[i] > b->t[i])
			return false;
	return true;
}

static int role_of(const RSim *S, const Role *r) { return (int)(r - S->r); }

static void set_var(RSim *S, Role *r, int var, int64_t v) { kernel_set_var(S->k, r->vals, var, v); }

/* the barrier instance s names, in the CTA of rank `rank` */
static int rbar_at(RSim *S, Role *r, const Stmt *s, int rank)
{
	return (int)(rank * S->cta_bars + S->base[s->mbar - 1] + affine_eval(s->mbar_idx, r->vals));
}

static int rbar_of(RSim *S, Role *r, const Stmt *s) { return rbar_at(S, r, s, r->rank); }

static void rbar_name(RSim *S, Role *r, const Stmt *s, char *out, size_t n)
{
	int at = snprintf(out, n, "%s[%lld]", s->mbar_name, (long long)affine_eval(s->mbar_idx, r->vals));
	if (S->nranks > 1 && at > 0 && (size_t)at < n)
		snprintf(out + at, n - (size_t)at, " of CTA rank %d", r->rank);
}

/* the first warp of the statement's warps is the one-thread statements' leader */
static bool leads(const Role *r, const Stmt *s)
{
	return s->warps && (r->warps >> __builtin_ctzll(s->warps) & 1);
}

static void role_desc(const RSim *S, const Role *r, char *out, size_t n)
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
static const char *role_paren(const RSim *S, const Role *r)
{
	if (!S->k->has_roles && S->nranks == 1)
		return "";
	char who[160];
	role_desc(S, r, who, sizeof who);
	return arena_printf(S->cx->arena, " (%s)", who);
}

/* the byte span of a shared region for the role's current indices (hull
 * over the other variables, whole swizzle spans) */
static bool rspan(RSim *S, Role *r, const Region *reg, int64_t *lo, int64_t *hi)
{
	ViewCache *c = S->views;
	if (!c)
		return region_bytes(S->cx, S->k, reg, r->vals, r->warps, r->rank, lo, hi);
	size_t i = 0;
	while (i < c->n && c->at[i].reg != reg)
		i++;
	if (i == c->n) {
		if (c->n == c->cap) {
			struct CachedView *at = arena_alloc(S->cx->arena, sizeof *at * (c->cap ? 2 * c->cap : 8));
			if (c->n)
				memcpy(at, c->at, sizeof *at * c->n);
			c->at = at;
			c->cap = c->cap ? 2 * c->cap : 8;
		}
		const char *why;
		c->at[i].reg = reg;
		c->at[i].ok = region_view(S->cx, S->k, reg, &c->at[i].v, &why);
		c->n++;
	}
	if (c->at[i].ok)
		view_bytes(S->k, reg, &c->at[i].v, r->vals, r->warps, r->rank, lo, hi);
	return c->at[i].ok;
}

/* a threads' write seen by a TMA store: after fence.proxy_async (FENCED)
 * and a meeting of the role's threads (VISIBLE) */
enum { PROXY_VISIBLE, PROXY_FENCED, PROXY_UNFENCED };

static bool is_store(const Stmt *s) { return stmt_is_tma_store(s) || stmt_is_bulk_store(s); }

/* cp.async (ldgsts): each thread of the role copies its part, reading the
 * global source and writing the shared stage until its own cp_async.wait
 * retires the group (what the thread's threads know of it then: a write of
 * theirs, which sync or bar.sync shows the others) */
static bool is_cpa(const Stmt *s)
{
	return s->kind == ST_COPY_ASYNC && !stmt_is_tma_load(s) && s->dst->buf && s->src->buf &&
	       s->dst->buf->mem == MEM_SHARED && s->src->buf->mem == MEM_GLOBAL;
}

static bool cpa_in_flight(const Rec *x) { return !x->complete && is_cpa(x->s); }

static const char *rec_what(const Rec *x)
{
	if (x->s->kind == ST_WG_MMA)
		return "the wgmma";
	if (stmt_is_tma_load(x->s))
		return "the TMA load";
	if (is_store(x->s))
		return "the TMA store";
	if (is_cpa(x->s))
		return "the cp.async";
	return x->write ? "the write" : "the read";
}

/* an access the caller completes later (a TMA load on barrier instance bar
 * in its phase, a wgmma read with bar -1): its record waits, clock 0 */
typedef struct Pending { int bar; int64_t phase; } Pending;

/* an access that meets a cp.async in flight: a warning, the proof's first
 * only (cp.async completion is the program's business, and ptxemu shows
 * the race); the access goes on */
static void cpa_warn(RSim *S, const Region *reg, bool write, const Rec *x)
{
	if (!S->cpa_warned || *S->cpa_warned)
		return;
	if (S->cx == S->loud)
		*S->cpa_warned = true;
	if (x->buf->mem == MEM_GLOBAL) { /* the copy's source: only a write races with its read */
		diag_warning(S->cx, reg->loc, "writes '%s' while the cp.async at line %d may still be reading it",
		             x->buf->name, x->s->loc.line);
		diag_note(S->cx, "cp_async.wait must leave its group complete (and a sync must follow) before the source "
		          "is overwritten");
		return;
	}
	diag_warning(S->cx, reg->loc, "%s '%s' while the cp.async at line %d into it may still be in flight",
	             write ? "writes" : "reads", x->buf->name, x->s->loc.line);
	diag_note(S->cx, x->group < 0 ? "its group is not committed: cp_async.commit, then cp_async.wait N (and sync) "
	                                "before touching the data"
	                              : "cp_async.wait must leave its group complete (and a sync must follow) before "
	                                "touching the data");
	for (int c = 0; c < S->ncls && S->free < 0; c++) /* a count run: the counts that show it */
		diag_note(S->cx, "when the repeat at line %d runs %lld trip%s%s", S->cls[c].first->loc.line,
		          (long long)S->cnt[c], S->cnt[c] == 1 ? "" : "s", S->cnt[c] ? "" : ": wait outside the loop too");
}

/* an access that may race with record x: the failure */
static void access_conflict(RSim *S, const Region *reg, bool write, const Rec *x, int rank)
{
	RFAIL(S, reg->loc, "%s '%s'%s while %s at line %d%s may still %s it", write ? "writes" : "reads",
	      reg->buf->name, S->nranks > 1 ? arena_printf(S->cx->arena, " of CTA rank %d", rank) : "",
	      rec_what(x), x->s->loc.line, role_paren(S, &S->r[x->role]), x->write ? "write" : "read");
	if (stmt_is_tma_load(x->s))
		diag_note(S->cx, "wait on the load's barrier (%s) before touching the stage", x->s->mbar_name);
	else if (x->s->kind == ST_WG_MMA)
		diag_note(S->cx, "wgmma reads its operands until wgmma.wait retires its group; release the stage after "
		          "that wait");
	else if (is_cpa(x->s) && x->complete)
		diag_note(S->cx, "a cp.async's data is its threads' write once their cp_async.wait retires its group: hand "
		          "the stage off (mbarrier.arrive) after that wait");
	else if (x->hid_by) {
		diag_note(S->cx, "the write is handed off by the %s at line %d, which one thread per %s makes: it orders "
		          "that thread's own writes only, not its %s's other threads'", stmt_info[x->hid_by->kind].keyword,
		          x->hid_by->loc.line, x->hid_by->per == SC_WARP ? "warp" : x->hid_by->per == SC_WARPGROUP ?
		          "warpgroup" : "role", x->hid_by->per == SC_WARP ? "warp" : "role");
		diag_note(S->cx, "arrive 'per thread', or let the role's threads meet (bar.sync ID, COUNT with COUNT the "
		          "role's %d threads) between the write and the arrival", 32 * __builtin_popcountll(S->r[x->role].warps));
	} else if (is_store(x->s))
		diag_note(S->cx, x->group == -2 ? "bulk.wait_read retired the store's group in the issuing thread only: "
		          "the role's threads meet (bar.sync) after it, before they rewrite the source"
		          : "a TMA store reads its source until a bulk.wait_read of the issuing role retires its group "
		          "(bulk.commit, bulk.wait_read N), then the role's threads meet (bar.sync)");
	else
		diag_note(S->cx, "nothing orders the two: a barrier the second waits on must complete after the first "
		          "(mbarrier.arrive after it, then mbarrier.wait before the second)");
}

/* the bucket of a buffer in CTA `rank`'s shared memory (made on first
 * use), -1 past MAX_BUCKETS */
static int bucket_of(RSim *S, const Buffer *buf, int rank)
{
	for (int b = 0; b < S->nbk; b++)
		if (S->bk[b].buf == buf && S->bk[b].rank == rank)
			return b;
	if (S->nbk == MAX_BUCKETS)
		return -1;
	S->bk[S->nbk] = (RBucket){buf, rank, -1, -1};
	return S->nbk++;
}

/* record i at the end of its bucket's chain */
static void bucket_append(RSim *S, size_t i)
{
	Rec *x = &S->recs[i];
	x->next = -1;
	int b = x->bkt;
	if (b < 0)
		return;
	if (S->bk[b].tail >= 0)
		S->recs[S->bk[b].tail].next = (int32_t)i;
	else
		S->bk[b].head = (int32_t)i;
	S->bk[b].tail = (int32_t)i;
}

/* the live records moved down over the dead ones, in order (a record is
 * large: the components in use move) */
static void recs_compact(RSim *S)
{
	size_t k = 0;
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].dead && k++ != i)
			memmove(&S->recs[k - 1], &S->recs[i], offsetof(Rec, vc) + sizeof(Tick) * (size_t)S->nclk);
	S->nrecs = k;
	S->ndead = 0;
	for (int b = 0; b < S->nbk; b++) /* the chains again, over the records' new places */
		S->bk[b].head = S->bk[b].tail = -1;
	for (size_t i = 0; i < k; i++)
		bucket_append(S, i);
}

/* a store whose group the issuing thread's bulk.wait_read retired is done
 * for that thread: its own later TMA (or bulk) load may refill the source */
static bool retired_for(const Rec *x, int me, const Stmt *s)
{
	return x->group == -2 && x->role == me && stmt_is_tma_load(s) && x->s->warps && s->warps &&
	       __builtin_ctzll(x->s->warps) == __builtin_ctzll(s->warps);
}

/* the instance of the statement role r runs: the trips of its blocks (at
 * most 4 deep; -1: not told) */
static int instance_of(const Role *r, int32_t trip[4])
{
	if (r->depth > 4)
		return -1;
	for (int d = 0; d < r->depth; d++)
		trip[d] = (int32_t)r->fr[d].j;
	return r->depth;
}

/* one instance of one statement, run by several roles (a cta copy outside
 * the when blocks, a warp copy of a when that holds two roles): its
 * threads' parts are the statement's, not a race (as the race check counts
 * them) */
static bool same_instance(const Rec *x, const Stmt *s, int n, const int32_t trip[4])
{
	if (x->s != s || n < 0 || x->ntrip != n)
		return false;
	for (int d = 0; d < n; d++)
		if (x->trip[d] != trip[d])
			return false;
	return true;
}

/* a shared access by role r to the shared memory of CTA `rank` (its own,
 * or a multicast's destination): ordered after every conflicting one */

static void access(RSim *S, Role *r, const Stmt *s, const Region *reg, bool write, const Pending *out, int rank)
{
	int64_t lo, hi;
	bool global = reg && reg->buf && reg->buf->mem == MEM_GLOBAL && S->cpa; /* against cp.async sources */
	if (!reg || !reg->buf || (reg->buf->mem != MEM_SHARED && !global) || !rspan(S, r, reg, &lo, &hi))
		return;
	int me = role_of(S, r);
	int32_t trip[4];
	int ntrip = out ? -1 : instance_of(r, trip);
	/* one pass: the first conflicting record (in order), and what the new access supersedes (marked dead:
	 * a record is large, and moving every later one at each access cost more than the rest of the run);
	 * only records of the same buffer and CTA can be either: its bucket's chain, in order */
	int b = bucket_of(S, reg->buf, rank);
	bool twin = false; /* an uncommitted cp.async of this role on the same bytes: this one adds nothing */
	for (int64_t i = b >= 0 ? S->bk[b].head : 0; b >= 0 ? i >= 0 : (size_t)i < S->nrecs;
	     i = b >= 0 ? S->recs[i].next : i + 1) {
		Rec *x = &S->recs[i];
		if (x->dead || x->buf != reg->buf || x->rank != rank)
			continue;
		twin |= out && !x->complete && x->group == -1 && x->role == me && x->write == write && x->lo == lo &&
		        x->hi == hi && x->bar == out->bar && x->phase == out->phase && is_cpa(x->s) && is_cpa(s);
		if (!(x->hi < lo || hi < x->lo) && (x->write || write) && !retired_for(x, me, s) &&
		    !(x->complete && (x->one >= 0 ? x->one == me || x->vc.t[x->one] <= r->clock.t[x->one]
		                                  : vc_le(S, &x->vc, &r->clock))) &&
		    !(x->complete && x->one >= 0 && same_instance(x, s, ntrip, trip))) {
			if (cpa_in_flight(x)) { /* a warning, as without roles: the thread's own wait completes it */
				if (x->s != s)
					cpa_warn(S, reg, write, x);
				continue;
			}
			access_conflict(S, reg, write, x, rank);
			return;
		}
		bool same = x->lo == lo && x->hi == hi && x->role == me && x->write == write && x->s == s && x->complete;
		bool covered = write && lo <= x->lo && x->hi <= hi && x->complete;
		if (same || covered)
			x->dead = true, S->ndead++;
	}
	if (S->ndead && 2 * S->ndead >= S->nrecs) /* after as many removals as there are live records */
		recs_compact(S);
	if ((global && !(out && is_cpa(s))) || twin) /* global memory: only cp.async sources are recorded */
		return;
	if (S->nrecs == S->reccap) { /* a run's scratch is the heap's: the proof makes hundreds of runs */
		S->reccap = S->reccap ? 2 * S->reccap : 16;
		S->recs = xrealloc(S->recs, sizeof(Rec) * S->reccap);
	}
	Rec *n = &S->recs[S->nrecs++];
	n->dead = false;
	vc_zero(S, &n->vc);
	if (out)
		n->complete = false, n->bar = out->bar, n->phase = out->phase, n->group = -1, n->one = -1;
	else
		n->complete = true, n->bar = -1, n->phase = 0, n->group = -1, n->vc.t[me] = r->clock.t[me], n->one = me;
	/* the threads write through the generic proxy; a TMA load writes, and wgmma and stores read, through the async one */
	n->proxy = write && !out && !stmt_is_tma_load(s) ? PROXY_UNFENCED : PROXY_VISIBLE;
	n->unmet = n->proxy == PROXY_UNFENCED;
	n->ntrip = ntrip;
	n->tblk = ntrip > 0 ? r->fr[ntrip - 1].blk : NULL;
	if (ntrip > 0)
		memcpy(n->trip, trip, sizeof(int32_t) * (size_t)ntrip);
	n->hid_by = NULL;
	n->at_arrive = 0;
	n->buf = reg->buf, n->lo = lo, n->hi = hi, n->s = s, n->role = me, n->write = write, n->rank = rank;
	n->bkt = b;
	bucket_append(S, S->nrecs - 1);
}

static void bar_label(const RSim *S, int bi, char *out, size_t n);

/* role r passed a wait on barrier bi since its threads last met */
static bool lag_on(const Role *r, int64_t bi)
{
	return r->waits[bi] > 0 && r->pass_t[bi] > r->met_t;
}

static void threads_met(RSim *S, Role *r)
{
	r->lag_all = false;
	r->met_t = r->clock.t[role_of(S, r)];
}

/* an arrival, expect_tx or TMA bytes on barrier bi by role r */
static bool signal_ok(RSim *S, Role *r, const Stmt *s, int bi, bool one_thread)
{
	RBar *b = &S->bars[bi];
	char name[96]; /* only a failure names it */
	if (!b->init && bi / S->cta_bars != r->rank) { /* a peer's, in this schedule not yet initialized */
		bar_label(S, bi, name, sizeof name);
		RFAIL(S, stmt_is_tma_load(s) && s->mcast ? s->mcast_loc : s->loc, "this %s signals %s, but nothing orders "
		      "that CTA's mbarrier.init before it: the peer CTA may not have initialized it yet",
		      stmt_is_tma_load(s) ? "multicast" : stmt_info[s->kind].keyword, name);
		diag_note(S->cx, "mbarrier.init, then cluster.sync (or cluster.arrive ... cluster.wait), before the first "
		          "signal on a peer's barrier");
		return false;
	}
	if (!b->init) {
		bar_label(S, bi, name, sizeof name);
		RFAIL(S, s->mbar_loc, "%s signals %s before mbarrier.init", stmt_info[s->kind].keyword, name);
		return false;
	}
	if (b->completed > 0 && !vc_le(S, &b->done, &r->clock)) {
		char who[160];
		role_desc(S, r, who, sizeof who);
		bar_label(S, bi, name, sizeof name);
		RFAIL(S, s->loc, "this %s on %s may count toward phase %lld, which completes without %s having waited for it",
		      stmt_is_tma_load(s) ? "TMA load" : stmt_info[s->kind].keyword, name, (long long)b->completed - 1, who);
		diag_note(S->cx, "an arrival for phase %lld must follow the completion of phase %lld (a wait on %s, or on a "
		          "barrier signalled after it)", (long long)b->completed, (long long)b->completed - 1, name);
		return false;
	}
	/* a role of one warp: its lanes lag only in waits on this barrier (a lane
	 * spinning there would miss the phase this signal starts); lanes spinning
	 * on another barrier are the ring's hand-off, released only through the
	 * consumers' wait on this one */
	bool multi = __builtin_popcountll(r->warps) > 1;
	bool lag = one_thread ? r->lag_all && (multi || lag_on(r, bi)) : r->lag_wg;
	bool per_warp = s->kind == ST_MBAR_ARRIVE && s->per == SC_WARP; /* lane 0 of each warp: the same */
	if (per_warp)
		lag = r->lag_all && lag_on(r, bi);
	if (lag && (one_thread || per_warp || s->per == SC_WARPGROUP)) {
		bar_label(S, bi, name, sizeof name);
		if (!S->k->has_roles && r->lag_at->mbar == s->mbar) /* said as before the one prover */
			RFAIL(S, s->loc, "%s starts phase %lld of %s while threads may still wait for phase %lld at line %d",
			      stmt_is_tma_load(s) ? "this TMA load" : stmt_info[s->kind].keyword, (long long)b->completed, name,
			      (long long)b->completed - 1, r->lag_at->loc.line);
		else
			RFAIL(S, s->loc, "%s signals %s while threads of its %s may still wait at line %d",
			      stmt_is_tma_load(s) ? "this TMA load" : stmt_info[s->kind].keyword, name,
			      one_thread ? "role" : per_warp ? "warp" : "warpgroup", r->lag_at->loc.line);
		diag_note(S->cx, "a thread still spinning in that wait would see the next phase's parity and hang: the threads "
		          "must meet first (bar.sync ID among the role, or a warpgroup-wide instruction such as wgmma.wait)");
		return false;
	}
	if (bi / S->cta_bars != r->rank) { /* a peer's barrier: initialized before, and its CTA alive after */
		if (!vc_le(S, &b->init_vc, &r->clock)) {
			bar_label(S, bi, name, sizeof name);
			RFAIL(S, s->loc, "%s signals %s, whose mbarrier.init (line %d) is not ordered before it",
			      stmt_is_tma_load(s) ? "this multicast" : stmt_info[s->kind].keyword, name, b->init_at->loc.line);
			diag_note(S->cx, "a cluster.sync after the inits, before the roles, orders every CTA's inits before "
			          "the peers' signals");
			return false;
		}
		vc_join(S, &b->racc, &r->clock);
		b->rlast = s;
	}
	if (!b->first)
		b->first = s;
	vc_join(S, &b->acc, &r->clock);
	return true;
}

static void bar_label(const RSim *S, int bi, char *out, size_t n)
{
	int rank = (int)(bi / S->cta_bars);
	bi -= rank * S->cta_bars;
	size_t a = 0;
	while (a + 1 < S->k->nmbars && S->base[a + 1] <= bi)
		a++;
	int at = snprintf(out, n, "%s[%lld]", S->k->mbars[a].name, (long long)(bi - S->base[a]));
	if (S->nranks > 1 && at > 0 && (size_t)at < n)
		snprintf(out + at, n - (size_t)at, " of CTA rank %d", rank);
}

/* a phase that has its arrivals and bytes completes */
static void try_complete(RSim *S, int bi, const Stmt *at)
{
	RBar *b = &S->bars[bi];
	char bl[96]; /* only a failure names it */
	if (b->arrivals > b->count) {
		bar_label(S, bi, bl, sizeof bl);
		RFAIL(S, at->loc, "phase %lld of %s gets %lld arrivals, but its count is %lld (line %d)",
		      (long long)b->completed, bl, (long long)b->arrivals, (long long)b->count, b->init_at->loc.line);
		diag_note(S->cx, "an extra arrival completes the phase early or counts toward the next one");
		return;
	}
	if (b->arrivals < b->count || b->ndeferred || b->loaded != b->expect)
		return;
	int64_t p = b->completed;
	vc_copy(S, &b->done, &b->acc);
	b->done.t[S->nr + bi] = (Tick)(p + 1); /* the completion itself */
	for (int x = 0; x < S->nr; x++) { /* waiters of phase p - 1 must have passed it before this completes */
		Role *w = &S->r[x];
		if (p >= 1 && w->waits[bi] == p && w->pass_t[bi] > b->done.t[x]) {
			char who[160];
			role_desc(S, w, who, sizeof who);
			bar_label(S, bi, bl, sizeof bl);
			RFAIL(S, at->loc, "phase %lld of %s may complete before %s has passed its wait for phase %lld",
			      (long long)p, bl, who, (long long)p - 1);
			diag_note(S->cx, "that role would then wait for a parity that has come round again (a hang): the "
			          "arrivals of phase %lld must follow its wait", (long long)p);
			return;
		}
	}
	b->completed++;
	b->arrivals = b->expect = b->loaded = 0;
	b->first = NULL;
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].complete && S->recs[i].bar == bi && S->recs[i].phase == p) {
			S->recs[i].complete = true;
			vc_copy(S, &S->recs[i].vc, &b->done);
			S->recs[i].one = -1;
		}
}

/* an expect_tx without bytes gets its phase's missing bytes: those of the
 * TMA loads on the barrier in that phase (before or after it, any role's)
 * less the bytes other expect_tx give, as without roles. It is settled when
 * no role can go on without it (every role blocked or done, the phase held
 * open by it) or the role defers another: by then every load the phase can
 * get before it completes is issued */
static void resolve_deferred(RSim *S, Role *r)
{
	if (!r->deferred)
		return;
	const Stmt *d = r->deferred;
	RBar *b = &S->bars[r->defer_bar];
	int64_t need = b->loaded - b->expect, had;
	char name[96];
	bar_label(S, r->defer_bar, name, sizeof name);
	if (expect_tx_bytes(S->cx, d, &had) && had != need) {
		RFAIL(S, d->loc, "mbarrier.expect_tx on %s needs %lld bytes here but %lld in another iteration%s", name,
		      (long long)need, (long long)had, S->nranks > 1 ? " or CTA of the cluster" : "");
		diag_note(S->cx, "one statement expects one byte count: give it explicitly or split the statement");
		return;
	}
	if (need < 1 || need > (1 << 20) - 1) {
		RFAIL(S, d->loc, "mbarrier.expect_tx on %s would expect %lld bytes (the TMA loads of phase %lld bring "
		      "%lld)", name, (long long)need, (long long)b->completed, (long long)b->loaded);
		diag_note(S->cx, "without a byte count it expects the bytes of the TMA loads that complete on the same "
		          "phase of the barrier");
		return;
	}
	expect_tx_set_bytes(S->cx, d, need);
	b->expect += need;
	b->ndeferred--;
	r->deferred = NULL;
	try_complete(S, r->defer_bar, d);
}

static int64_t tma_bytes(const Stmt *s)
{
	int64_t bytes = dtype_bytes(s->dst->buf->dt);
	for (int i = 0; i < s->src->buf->ndim; i++)
		bytes *= s->src->whole ? s->src->buf->shape[i] : s->src->ext[i];
	return bytes;
}

/* a barrier of threads: sync (id 0, every thread) or bar.sync/bar.arrive;
 * true once the role may go on */
/* the role's threads meet: what one of them learned (a store's group
 * retired by its bulk.wait_read) and what each did (fenced its writes) holds
 * for all of them */
static void role_met(RSim *S, Role *r)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->role != me)
			continue;
		if (x->proxy == PROXY_FENCED)
			x->proxy = PROXY_VISIBLE;
		if (x->group == -2 && !x->complete) {
			x->complete = true;
			vc_zero(S, &x->vc);
			x->vc.t[me] = r->clock.t[me];
			x->one = me;
		}
	}
}

static void role_synced(RSim *S, Role *r);

static bool named_barrier(RSim *S, Role *r, const Stmt *s, int id, int64_t count, bool wait)
{
	int slot = id < 0 ? 0 : 1 + r->rank * NB_PER_CTA + id; /* id -1: cluster.sync */
	NBar *nb = &S->nb[slot];
	S->nnb = slot + 1 > S->nnb ? slot + 1 : S->nnb;
	if (r->in_nb) { /* blocked here: released once its generation completed */
		if (nb->gen == r->nb_gen)
			return false;
		r->in_nb = false;
		if (slot == 0) /* cluster.sync: no peer writes into this CTA after it */
			r->last_mc = NULL;
		vc_join(S, &r->clock, &nb->release);
		r->lag_wg = false;
		threads_met(S, r);
		role_met(S, r);
		role_synced(S, r);
		return true;
	}
	if (nb->arrived && nb->count != count) {
		RFAIL(S, s->loc, "barrier %d counts %lld threads here but %lld at line %d", id, (long long)count,
		      (long long)nb->count, nb->first->loc.line);
		return false;
	}
	if (!nb->arrived) {
		nb->count = count;
		nb->first = s;
		vc_zero(S, &nb->acc);
	}
	nb->arrived += 32 * (int64_t)__builtin_popcountll(r->warps & s->warps);
	vc_join(S, &nb->acc, &r->clock);
	if (nb->arrived > count) {
		RFAIL(S, s->loc, "barrier %d gets %lld threads, but its count is %lld", id, (long long)nb->arrived,
		      (long long)count);
		diag_note(S->cx, "the threads of every bar.sync and bar.arrive on one id add up to its count per use");
		return false;
	}
	int64_t gen = nb->gen;
	if (nb->arrived == count) {
		vc_copy(S, &nb->release, &nb->acc);
		nb->arrived = 0;
		nb->gen++;
	}
	if (!wait)
		return true;
	r->in_nb = true;
	r->nb_id = slot;
	r->nb_gen = gen;
	return named_barrier(S, r, s, id, count, wait);
}

enum { STEP_RAN, STEP_BLOCKED, STEP_DONE, STEP_YIELD };

/* a 2-D persistent walk: a runtime across loop whose only statement is
 * another; the proof runs it as one loop of the product's trips (the tiles
 * of the CTA), its indices being used only in global regions */
static bool walk_outer(const Stmt *s)
{
	return s && s->kind == ST_REPEAT && s->across && s->trips_scalar && !s->running && s->nbody == 1 &&
	       s->body[0]->kind == ST_REPEAT && s->body[0]->across && s->body[0]->trips_scalar;
}

/* s's trip class, parent the statement whose body holds s (NULL: the
 * kernel's); -1 for constant loops and the outer loop of a walk */
static int class_of(const TClass *cls, int ncls, const Stmt *s, const Stmt *parent)
{
	/* a count that uses an enclosing index is no class's (scan_runtime): it runs as evaluated */
	if (s->kind != ST_REPEAT || !stmt_runtime_trips(s) || walk_outer(s))
		return -1;
	const Stmt *o = walk_outer(parent) ? parent : NULL;
	for (int c = 0; c < ncls; c++)
		if (stmt_trips_same(cls[c].rep, s) && cls[c].across == s->across &&
		    cls[c].oscalar == (o ? o->trips_scalar : 0) && cls[c].odiv == (o ? o->trips_div : 0) &&
		    cls[c].oacross == (o ? o->across : 0))
			return c;
	return -1;
}

/* a role enters repeat s (in parent's body): its trips in this run */
static int64_t enter_trips(RSim *S, Role *r, const Stmt *s, const Stmt *parent)
{
	if (walk_outer(s)) /* the inner loop runs the walk's tiles */
		return 1;
	int c = class_of(S->cls, S->ncls, s, parent);
	if (c < 0) /* a constant, or a count over enclosing indices only (check_role_counts) */
		return s->trips_expr ? stmt_trips_at(S->k, s, r->vals) : s->n;
	r->entries[c]++;
	if (c == S->free && r->entries[c] >= S->free_entry)
		return S->cap;
	return S->cnt[c];
}

/* a trip begins: the index and the running count's stages (the count
 * advances at the trip's end) */
static void trip_begin(RSim *S, Role *r, const Stmt *s, int64_t j)
{
	set_var(S, r, s->var, j);
	if (s->running)
		set_var(S, r, s->running, r->vals[s->running]);
}

/* frame d of role r runs a loop of the class without end */
static bool free_frame(const RSim *S, const Role *r, int d)
{
	const RFrame *f = &r->fr[d];
	return f->blk && S->free >= 0 && class_of(S->cls, S->ncls, f->blk, d ? r->fr[d - 1].blk : NULL) == S->free;
}

/* the statement handlers of step(): STEP_RAN when the statement is done
 * (the role goes on), STEP_BLOCKED or STEP_DONE (a failure) */

/* sync, mbarrier.init (every thread meets after it), cluster.sync, bar.* */
static bool cluster_unwaited(RSim *S, Role *r, const Stmt *s);

static int on_barrier(RSim *S, Role *r, const Stmt *s)
{
	if (s->kind == ST_CLUSTER_SYNC && !r->in_nb && cluster_unwaited(S, r, s))
		return STEP_DONE;
	if (s->kind == ST_MBAR_INIT && !r->in_nb && leads(r, s)) {
		RBar *b = &S->bars[rbar_of(S, r, s)];
		if (b->init) {
			char name[96];
			rbar_name(S, r, s, name, sizeof name);
			RFAIL(S, s->loc, "%s is initialized twice", name);
			return STEP_DONE;
		}
		b->init = true;
		b->count = s->n;
		b->init_at = s;
		vc_copy(S, &b->init_vc, &r->clock);
	}
	bool ok;
	if (s->kind == ST_CLUSTER_SYNC) /* every thread of every CTA of the cluster */
		ok = named_barrier(S, r, s, -1, S->k->threads * S->nranks, true);
	else if (s->kind == ST_NBAR_SYNC || s->kind == ST_NBAR_ARRIVE)
		ok = named_barrier(S, r, s, (int)nbar_id_at(s, __builtin_ctzll(r->warps)), s->count, s->kind == ST_NBAR_SYNC);
	else
		ok = named_barrier(S, r, s, 0, S->k->threads, true);
	return ok ? STEP_RAN : S->failed ? STEP_DONE : STEP_BLOCKED;
}

/* an arrival of every thread of role r releases all their writes; one
 * thread's (per warp, per warpgroup, one per role, expect_tx) releases its
 * own only: the role's writes since its threads last met are hidden
 * (HIDDEN: no clock is ordered after them) until they meet or all arrive.
 * Writes only: the hand-off a reader waits for (issue 35, item 2) */
enum { HIDDEN = INT32_MAX };

static void hand_off(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	bool all = s->kind == ST_MBAR_ARRIVE && s->per == SC_THREAD;
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->dead || x->role != me || !x->unmet || !x->complete || x->one != me)
			continue;
		if (all) {
			x->unmet = false;
			x->hid_by = NULL;
			x->vc.t[me] = r->clock.t[me];
		} else if (!x->hid_by) {
			x->hid_by = s;
			x->vc.t[me] = HIDDEN;
		}
	}
}

/* the role's threads met (a bar.sync they all take part in): their writes
 * are ordered before what any of them does next */
static void role_synced(RSim *S, Role *r)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->role != me || !x->unmet)
			continue;
		x->unmet = false;
		if (x->hid_by)
			x->hid_by = NULL, x->vc.t[me] = r->clock.t[me];
	}
}

/* mbarrier.arrive and mbarrier.expect_tx: arrivals per unit of the role */
static int on_signal(RSim *S, Role *r, const Stmt *s)
{
	int64_t units = 0;
	int w = __builtin_popcountll(r->warps & s->warps);
	if (s->kind == ST_MBAR_ARRIVE && s->per == SC_THREAD)
		units = 32 * (int64_t)w;
	else if (s->kind == ST_MBAR_ARRIVE && s->per == SC_WARP)
		units = w;
	else if (s->kind == ST_MBAR_ARRIVE && s->per == SC_WARPGROUP) /* each warpgroup's first thread: the role */
		units = __builtin_popcountll(r->warps & s->warps & WG_FIRST_WARPS); /* holding its first warp */
	else
		units = leads(r, s);
	if (!units)
		return STEP_RAN;
	if (s->kind == ST_MBAR_EXPECT_TX && !s->has_value) {
		if (S->mc && r->deferred) { /* the peers' multicasts may still add to the open one: settled when no */
			r->clock.t[role_of(S, r)]--; /* role can go on (resolve_all) */
			return STEP_BLOCKED;
		}
		resolve_deferred(S, r); /* one open at a time per role */
		if (S->failed)
			return STEP_DONE;
	}
	if (s->to_cluster) { /* the barrier in every CTA of the cluster */
		for (int d = 0; d < S->nranks && !S->failed; d++) {
			int bi = rbar_at(S, r, s, d);
			if (!signal_ok(S, r, s, bi, s->per == SC_COUNT))
				return STEP_DONE;
			S->bars[bi].arrivals += units;
			try_complete(S, bi, s);
		}
		hand_off(S, r, s);
		return STEP_RAN;
	}
	int bi = rbar_of(S, r, s);
	if (!signal_ok(S, r, s, bi, s->kind == ST_MBAR_EXPECT_TX || s->per == SC_COUNT))
		return STEP_DONE;
	RBar *b = &S->bars[bi];
	b->arrivals += units;
	hand_off(S, r, s);
	if (s->kind == ST_MBAR_EXPECT_TX) {
		if (s->has_value) {
			b->expect += s->n;
		} else {
			b->ndeferred++;
			r->deferred = s;
			r->defer_bar = bi;
		}
	}
	try_complete(S, bi, s);
	return STEP_RAN;
}

/* A kernel without roles keeps, for each wait on a barrier no runtime loop
 * touches, a parity fitted at compile time: (c + sum k_v j_v) & 1 over the
 * repeat indices, emitted as an and with 1 (mbar_emit). The instance with
 * every index 0 gives c, the one with only j_v = 1 gives k_v (loop order
 * runs both before any instance that needs them), and every instance is
 * checked against the fit. Such a barrier is waited on alike in every run. */
typedef struct Fit { const Stmt *s; int c; int8_t *k; } Fit;
typedef struct Fits { Fit *at; size_t n, cap; } Fits;

static bool fit_parity(RSim *S, Role *r, const Stmt *s, int parity)
{
	Fits *F = S->fits;
	Fit *f = NULL;
	for (size_t i = 0; i < F->n && !f; i++)
		if (F->at[i].s == s)
			f = &F->at[i];
	if (!f) {
		Fit nf = {s, 0, arena_alloc(S->cx->arena, (size_t)S->k->nvars)};
		APUSH(S->cx->arena, F->at, F->n, F->cap, nf);
		f = &F->at[F->n - 1];
	}
	int nz = 0, one = -1;
	for (int v = VAR_REPEAT0; v < S->k->nvars; v++)
		if (r->vals[v]) {
			nz++;
			one = r->vals[v] == 1 ? v : one;
		}
	if (nz == 0)
		f->c = parity;
	else if (nz == 1 && one >= 0)
		f->k[one] = (int8_t)((parity ^ f->c) & 1);
	int want = f->c;
	for (int v = VAR_REPEAT0; v < S->k->nvars; v++)
		want ^= f->k[v] & (int)(r->vals[v] & 1);
	if (want == parity)
		return true;
	char name[96];
	rbar_name(S, r, s, name, sizeof name);
	RFAIL(S, s->loc, "the phase parity of %s at this wait is %d in this iteration, but %d follows from the earlier ones",
	      name, parity, want);
	diag_note(S->cx, "each iteration of a repeat must complete the same number of phases of a barrier");
	return false;
}

/* the fitted parities, beside their waits (cx->parity) */
static void store_fits(Ctx *cx, const Kernel *k, const Fits *F)
{
	for (size_t f = 0; f < F->n; f++) {
		Affine *a = arena_alloc(cx->arena, sizeof *a);
		a->c = F->at[f].c;
		for (int v = VAR_REPEAT0; v < k->nvars; v++)
			if (F->at[f].k[v] && a->n < MAX_TERMS)
				a->t[a->n++].var = v, a->t[a->n - 1].k = 1;
		stmtmap_put(cx->arena, &cx->parity, F->at[f].s, a);
	}
}

/* mbarrier.wait: the role's next phase of the barrier */
static int on_wait(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	int bi = rbar_of(S, r, s);
	RBar *b = &S->bars[bi];
	char name[96]; /* only a failure names it */
	if (!b->init) {
		rbar_name(S, r, s, name, sizeof name);
		RFAIL(S, s->mbar_loc, "mbarrier.wait on %s before mbarrier.init", name);
		return STEP_DONE;
	}
	int64_t want = r->waits[bi];
	if (b->completed <= want) {
		r->clock.t[me]--; /* not run yet */
		return STEP_BLOCKED;
	}
	if (b->completed >= want + 2) {
		rbar_name(S, r, s, name, sizeof name);
		RFAIL(S, s->loc, "this wait on %s is for phase %lld, but phase %lld has completed too: the parity has come "
		      "round again", name, (long long)want, (long long)want + 1);
		diag_note(S->cx, "the role would wait for a phase that already passed (a hang): the arrivals of phase %lld "
		          "must follow this wait", (long long)want + 1);
		return STEP_DONE;
	}
	if (s->has_value && s->n != (want & 1)) {
		rbar_name(S, r, s, name, sizeof name);
		if (S->k->has_roles)
			RFAIL(S, s->value_loc, "mbarrier.wait on %s names parity %lld, but this role's wait is for phase %lld "
			      "(parity %lld)", name, (long long)s->n, (long long)want, (long long)(want & 1));
		else
			RFAIL(S, s->value_loc, "mbarrier.wait on %s names parity %lld, but the phase completing here (phase "
			      "%lld) has parity %lld", name, (long long)s->n, (long long)want, (long long)(want & 1));
		diag_note(S->cx, "omit the parity and tilepx tracks it");
		return STEP_DONE;
	}
	if (S->fits && r->rank == 0 && !mbar_run_time_phase(S->cx, &S->k->mbars[s->mbar - 1]) &&
	    !fit_parity(S, r, s, (int)(want & 1)))
		return STEP_DONE;
	vc_join(S, &r->clock, &b->done);
	r->waits[bi]++;
	r->pass_t[bi] = r->clock.t[me];
	r->lag_all = r->lag_wg = true;
	r->lag_at = s;
	return STEP_RAN;
}

/* a TMA load: its bytes on the barrier, its write in the stage, in this CTA
 * or (multicast) in every CTA of the mask, at the same offsets */
/* a TMA load is one thread's: it may overwrite what its own role's other
 * warps accessed only once they have met that thread since (sync, bar.sync
 * among the role, a warpgroup-wide instruction): the records of other roles
 * are access()'s; false after the failure */
static bool refill_met(RSim *S, Role *r, const Stmt *s)
{
	int64_t lo, hi;
	int me = role_of(S, r);
	if (!rspan(S, r, s->dst, &lo, &hi))
		return true;
	for (size_t i = 0; i < S->nrecs; i++) {
		const Rec *x = &S->recs[i];
		if (x->dead || x->role != me || x->rank != r->rank || x->buf != s->dst->buf || x->hi < lo || hi < x->lo ||
		    !x->complete || x->one != me || x->vc.t[me] <= r->met_t || !x->s->warps ||
		    __builtin_popcountll(x->s->warps & r->warps) < 2)
			continue;
		RFAIL(S, s->dst->loc, "this TMA load writes '%s', which other warps of %s may still %s at line %d: its "
		      "threads have not met since", s->dst->buf->name, S->k->has_roles ? "its role" : "the CTA",
		      x->write ? "write" : "read", x->s->loc.line);
		diag_note(S->cx, "one thread issues the load and knows only of its own warp's accesses: %s between the last "
		          "access and the load", S->k->has_roles ? "bar.sync ID, COUNT among the role" : "sync");
		return false;
	}
	return true;
}

static int on_tma_load(RSim *S, Role *r, const Stmt *s)
{
	if (!leads(r, s))
		return STEP_RAN;
	if (!refill_met(S, r, s))
		return STEP_DONE;
	if (s->mcast)
		r->last_mc = s, r->last_mc_t = r->clock.t[role_of(S, r)];
	for (int d = 0; d < S->nranks && !S->failed; d++) {
		if (s->mcast ? !(s->mcast >> d & 1) : d != r->rank)
			continue;
		int bi = rbar_at(S, r, s, d);
		if (!signal_ok(S, r, s, bi, true))
			return STEP_DONE;
		RBar *b = &S->bars[bi];
		int64_t bytes = tma_bytes(s);
		b->loaded += bytes;
		Pending x = {bi, b->completed};
		access(S, r, s, s->dst, true, &x, d);
		if (!S->failed)
			try_complete(S, bi, s);
	}
	return STEP_RAN;
}

/* a TMA (or bulk) store, issued by the leading role's first thread: it
 * reads its shared source through the async proxy until a bulk.wait_read of
 * that role retires its group, and it sees the threads' writes only after
 * their fence.proxy_async and a meeting of the writers with the issuer */
static int on_store(RSim *S, Role *r, const Stmt *s)
{
	int64_t lo, hi;
	if (!leads(r, s) || !rspan(S, r, s->src, &lo, &hi))
		return STEP_RAN;
	for (size_t i = 0; i < S->nrecs; i++) {
		const Rec *x = &S->recs[i];
		if (x->dead || x->buf != s->src->buf || x->rank != r->rank || x->hi < lo || hi < x->lo ||
		    x->proxy == PROXY_VISIBLE)
			continue;
		RFAIL(S, s->loc, "this TMA store reads '%s' written at line %d%s %s", s->src->buf->name, x->s->loc.line,
		      role_paren(S, &S->r[x->role]), x->proxy == PROXY_UNFENCED ? "without a fence.proxy_async after the write"
		                                      : "after a fence.proxy_async, but before its threads met the issuing "
		                                        "thread");
		diag_note(S->cx, "threads write shared memory through the generic proxy and TMA reads it through the async "
		          "one: every writing thread runs fence.proxy_async, then the threads meet (bar.sync ID, COUNT) "
		          "before the store");
		return STEP_DONE;
	}
	Pending x = {-1, 0};
	access(S, r, s, s->src, false, &x, r->rank);
	return S->failed ? STEP_DONE : STEP_RAN;
}

/* bulk.commit, bulk.wait N, bulk.wait_read N: the leading role's first
 * thread (the one that issues its stores) */
static int on_bulk(RSim *S, Role *r, const Stmt *s)
{
	if (!leads(r, s))
		return STEP_RAN;
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->role != me || !is_store(x->s) || x->complete)
			continue;
		if (s->kind == ST_BULK_COMMIT && x->group == -1)
			x->group = r->bulk_groups;
		else if (s->kind != ST_BULK_COMMIT && x->group >= 0 && x->group < r->bulk_groups - s->n)
			x->group = -2;
	}
	if (s->kind == ST_BULK_COMMIT)
		r->bulk_groups++;
	else if (s->kind == ST_BULK_WAIT && r->bulk_done < r->bulk_groups - s->n)
		r->bulk_done = r->bulk_groups - s->n;
	return STEP_RAN;
}

/* a cp.async: its source read and its stage written, in flight (group -1:
 * uncommitted) until the role's cp_async.wait retires the group */
static int on_cpa(RSim *S, Role *r, const Stmt *s)
{
	Pending x = {-1, 0};
	access(S, r, s, s->src, false, &x, r->rank);
	if (!S->failed)
		access(S, r, s, s->dst, true, &x, r->rank);
	return S->failed ? STEP_DONE : STEP_RAN;
}

/* a landed cp.async: its stage holds the threads' write (unfenced, their
 * threads not met), its source is free */
static void cpa_landed(RSim *S, Role *r, Rec *x)
{
	int me = role_of(S, r);
	if (x->buf->mem != MEM_SHARED) {
		x->dead = true;
		S->ndead++;
		return;
	}
	x->complete = true;
	vc_zero(S, &x->vc);
	x->vc.t[me] = r->clock.t[me];
	x->one = me;
	x->proxy = PROXY_UNFENCED;
	x->unmet = true;
}

/* cp_async.commit closes the role's threads' open copies into a group;
 * cp_async.wait N lands every group but the newest N (each thread its own:
 * the role's threads run the same statements) */
static int on_cpa_group(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->dead || x->role != me || !cpa_in_flight(x))
			continue;
		if (s->kind == ST_CPA_COMMIT && x->group == -1)
			x->group = r->cpa_groups;
		else if (s->kind == ST_CPA_WAIT && x->group >= 0 && x->group < r->cpa_groups - s->n)
			cpa_landed(S, r, x);
	}
	if (s->kind == ST_CPA_COMMIT)
		r->cpa_groups++;
	return STEP_RAN;
}

/* the end of a run with a cp.async in flight: a warning, as every access
 * that meets one is */
static void cpa_end_warning(RSim *S)
{
	if (S->k->is_func) /* its caller waits for its groups */
		return;
	for (size_t i = 0; i < S->nrecs && S->cpa_warned && !*S->cpa_warned; i++) {
		const Rec *x = &S->recs[i];
		if (x->dead || !cpa_in_flight(x) || x->buf->mem != MEM_SHARED)
			continue;
		if (S->cx == S->loud)
			*S->cpa_warned = true;
		diag_warning(S->cx, x->s->loc, "this cp.async is %s before the kernel ends",
		             x->group < 0 ? "never committed, nor waited for" : "never waited for");
		diag_note(S->cx, "cp_async.commit, then cp_async.wait 0: a CTA that exits with copies in flight loses them");
		return;
	}
}

/* cluster.arrive and cluster.wait, cluster.sync's halves (outside the when
 * blocks: every role runs them). The arrive joins the role's clock into the
 * cluster barrier's generation and goes on; the wait blocks until that
 * generation is complete (every thread of the cluster arrived), then takes
 * what the arrivals released. What held for the role's threads at their
 * arrive (its fences, the stores its bulk.wait_read retired, its writes) is
 * known to all of them after the wait, as after a meeting at the arrive */
enum { AT_FENCED = 1, AT_RETIRED = 2, AT_UNMET = 4 };

/* a cluster.arrive or cluster.sync while the role's last cluster.arrive
 * is not waited for: the failure */
static bool cluster_unwaited(RSim *S, Role *r, const Stmt *s)
{
	if (!r->carrive)
		return false;
	RFAIL(S, s->loc, "%s while the cluster.arrive at line %d has not been waited for", stmt_info[s->kind].keyword,
	      r->carrive->loc.line);
	diag_note(S->cx, "each thread alternates cluster.arrive and cluster.wait");
	return true;
}

static int on_cluster_arrive(RSim *S, Role *r, const Stmt *s)
{
	if (cluster_unwaited(S, r, s))
		return STEP_DONE;
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->dead || x->role != me)
			continue;
		x->at_arrive = (int8_t)((x->proxy == PROXY_FENCED ? AT_FENCED : 0) |
		                        (x->group == -2 && !x->complete ? AT_RETIRED : 0) | (x->unmet ? AT_UNMET : 0));
	}
	r->carrive = s;
	r->carrive_gen = S->nb[0].gen;
	r->carrive_t = r->clock.t[me];
	named_barrier(S, r, s, -1, S->k->threads * S->nranks, false);
	return S->failed ? STEP_DONE : STEP_RAN;
}

static int on_cluster_wait(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	if (!r->carrive) {
		RFAIL(S, s->loc, "cluster.wait without a cluster.arrive before it");
		diag_note(S->cx, "cluster.wait completes the cluster barrier that the thread's last cluster.arrive joined");
		return STEP_DONE;
	}
	if (S->nb[0].gen == r->carrive_gen) {
		r->clock.t[me]--; /* not run yet */
		return STEP_BLOCKED;
	}
	vc_join(S, &r->clock, &S->nb[0].release); /* the generation's: r has not arrived at the next one */
	if (r->last_mc && r->last_mc_t <= r->carrive_t)
		r->last_mc = NULL;
	bool lag = false; /* a wait passed after the arrive may still hold lanes */
	for (int64_t b = 0; b < S->nbars; b++)
		lag |= r->waits[b] > 0 && r->pass_t[b] > r->carrive_t;
	r->lag_all = r->lag_wg = lag;
	if (r->met_t < r->carrive_t)
		r->met_t = r->carrive_t;
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->dead || x->role != me || !x->at_arrive)
			continue;
		if ((x->at_arrive & AT_FENCED) && x->proxy == PROXY_FENCED)
			x->proxy = PROXY_VISIBLE;
		if ((x->at_arrive & AT_RETIRED) && x->group == -2 && !x->complete) {
			x->complete = true;
			vc_zero(S, &x->vc);
			x->vc.t[me] = (Tick)r->carrive_t;
			x->one = me;
		}
		if ((x->at_arrive & AT_UNMET) && x->unmet) {
			x->unmet = false;
			if (x->hid_by)
				x->hid_by = NULL, x->vc.t[me] = (Tick)r->carrive_t;
		}
		x->at_arrive = 0;
	}
	r->carrive = NULL;
	return STEP_RAN;
}

/* fence.proxy_async: the role's threads' writes become visible to the
 * async proxy once they meet */
static int on_fence(RSim *S, Role *r)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++)
		if (S->recs[i].role == me && S->recs[i].proxy == PROXY_UNFENCED)
			S->recs[i].proxy = PROXY_FENCED;
	return STEP_RAN;
}

static int on_copy(RSim *S, Role *r, const Stmt *s)
{
	if (stmt_is_tma_load(s))
		return on_tma_load(S, r, s);
	if (is_store(s))
		return on_store(S, r, s);
	if (is_cpa(s))
		return on_cpa(S, r, s);
	access(S, r, s, s->src, false, NULL, r->rank);
	if (!S->failed)
		access(S, r, s, s->dst, true, NULL, r->rank);
	return STEP_RAN;
}

/* wgmma and the other warpgroup-wide statements: the warpgroup's threads meet
 * (and a one-warpgroup role's); wgmma reads its operands until its group is
 * retired by a wgmma.wait */
static void wg_effects(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	if (s->kind == ST_WG_MMA) {
		Pending x = {-1, 0};
		access(S, r, s, s->src, false, &x, r->rank);
		if (!S->failed)
			access(S, r, s, s->mma_b, false, &x, r->rank);
	} else if (s->kind == ST_WG_COMMIT) {
		for (size_t i = 0; i < S->nrecs; i++)
			if (S->recs[i].role == me && S->recs[i].s->kind == ST_WG_MMA && S->recs[i].group < 0 &&
			    !S->recs[i].complete)
				S->recs[i].group = r->wg_groups;
		r->wg_groups++;
	} else if (s->kind == ST_WG_WAIT) {
		for (size_t i = 0; i < S->nrecs; i++) {
			Rec *x = &S->recs[i];
			if (x->role == me && x->s->kind == ST_WG_MMA && !x->complete && x->group >= 0 &&
			    x->group < r->wg_groups - s->n) {
				x->complete = true;
				vc_zero(S, &x->vc);
				x->vc.t[me] = r->clock.t[me];
				x->one = me;
			}
		}
	}
	r->lag_wg = false;
	if (__builtin_popcountll(r->warps) <= 4) {
		threads_met(S, r);
		role_met(S, r);
	}
}

/* a warpgroup instruction (.sync.aligned: the warpgroup's threads execute it
 * together); where `when warpid` splits a warpgroup among roles, it is a
 * meeting of those roles, after each one's own effects (a wgmma.wait retires
 * the role's reads, then its clock reaches the others) */
static int on_warpgroup(RSim *S, Role *r, const Stmt *s)
{
	uint64_t mine = r->warps & s->warps, groups = 0;
	if (!r->in_nb)
		wg_effects(S, r, s);
	if (S->failed || whole_warpgroups(mine))
		return S->failed ? STEP_DONE : STEP_RAN;
	for (int g = 0; g < 16; g++)
		groups += (mine >> (4 * g) & 0xf) != 0;
	int first = __builtin_ctzll(mine) / 4;
	bool ok = named_barrier(S, r, s, NB_WARPGROUP + first, 128 * (int64_t)groups, true);
	return ok ? STEP_RAN : S->failed ? STEP_DONE : STEP_BLOCKED;
}

static int on_other(RSim *S, Role *r, const Stmt *s)
{
	(void)r;
	const StmtInfo *si = &stmt_info[s->kind];
	/* an asm block is opaque: the proofs assume it neither synchronises, nor signals or waits for barriers,
	 * nor starts or waits for async copies (docs/language.md, "Inline PTX blocks") */
	bool inert = s->kind == ST_INIT || s->kind == ST_DUMP || s->kind == ST_TC_WAIT_LD || s->kind == ST_TC_WAIT_ST ||
	             s->kind == ST_ASM;
	if (!inert && (si->issue || si->wait || si->cbar)) {
		RFAIL(S, s->loc, "%s is not yet supported by the phase proof", si->keyword);
		return STEP_DONE;
	}
	return STEP_RAN;
}

static int on_stmt(RSim *S, Role *r, const Stmt *s)
{
	switch (s->kind) {
	case ST_SYNC: case ST_MBAR_INIT: case ST_CLUSTER_SYNC: case ST_NBAR_SYNC: case ST_NBAR_ARRIVE:
		return on_barrier(S, r, s);
	case ST_MBAR_ARRIVE: case ST_MBAR_EXPECT_TX:
		return on_signal(S, r, s);
	case ST_MBAR_WAIT:
		return on_wait(S, r, s);
	case ST_COPY: case ST_COPY_ASYNC:
		return on_copy(S, r, s);
	case ST_BULK_COMMIT: case ST_BULK_WAIT: case ST_BULK_WAIT_READ:
		return on_bulk(S, r, s);
	case ST_FENCE_ASYNC:
		return on_fence(S, r);
	case ST_CPA_COMMIT: case ST_CPA_WAIT:
		return on_cpa_group(S, r, s);
	case ST_CLUSTER_ARRIVE:
		return on_cluster_arrive(S, r, s);
	case ST_CLUSTER_WAIT:
		return on_cluster_wait(S, r, s);
	case ST_WG_MMA: case ST_WG_COMMIT: case ST_WG_WAIT: case ST_WG_FENCE: case ST_SETMAXNREG_INC:
	case ST_SETMAXNREG_DEC:
		return on_warpgroup(S, r, s);
	default:
		return on_other(S, r, s);
	}
}

/* the role's finished frames: the next trip of a repeat, or the frame
 * popped; STEP_RAN once a statement is next */
static int next_frame(RSim *S, Role *r)
{
	for (;;) {
		if (r->depth == 0)
			return r->done = true, STEP_DONE;
		RFrame *f = &r->fr[r->depth - 1];
		if (f->i < f->n)
			return STEP_RAN;
		if (f->blk && f->blk->kind == ST_REPEAT && f->blk->running)
			r->vals[f->blk->running]++;
		if (S->share >= 0 && f->blk && f->blk->kind == ST_REPEAT && f->j + 1 > S->reach &&
		    class_of(S->cls, S->ncls, f->blk, r->depth > 1 ? r->fr[r->depth - 2].blk : NULL) == S->share)
			S->reach = f->j + 1; /* a count <= j + 1 leaves the loop here */
		if (f->blk && f->blk->kind == ST_REPEAT && ++f->j < f->trips) {
			f->i = 0;
			trip_begin(S, r, f->blk, f->j);
			if (free_frame(S, r, r->depth - 1)) /* a round ends at each trip of the endless loop, blocked or not */
				return STEP_YIELD;
			continue;
		}
		if (f->blk && f->blk->kind == ST_REPEAT && f->trips == S->cap && free_frame(S, r, r->depth - 1) &&
		    r->entries[S->free] >= S->free_entry)
			S->capped = true;
		if (f->blk && f->blk->kind == ST_REPEAT)
			set_var(S, r, f->blk->var, 0);
		r->depth--;
	}
}

/* one statement of role r, or its end */
static int step(RSim *S, Role *r)
{
	int st = next_frame(S, r);
	if (st != STEP_RAN)
		return st;
	RFrame *f = &r->fr[r->depth - 1];
	Stmt *s = f->body[f->i];
	if (++S->steps > ROLE_STEPS) {
		RFAIL(S, s->loc, "more than %d statement instances: too many to %s", ROLE_STEPS,
		      S->k->has_roles ? "prove the kernel's roles" : "check the kernel's barrier phases");
		return STEP_DONE;
	}
	r->clock.t[role_of(S, r)]++;
	if (s->kind == ST_WHEN || s->kind == ST_REPEAT) {
		f->i++;
		if (s->kind == ST_WHEN && !(r->warps & s->body_warps))
			return STEP_RAN;
		int64_t trips = s->kind == ST_REPEAT ? enter_trips(S, r, s, f->blk) : 1;
		if (S->share >= 0 && s->kind == ST_REPEAT && class_of(S->cls, S->ncls, s, f->blk) == S->share) {
			S->unshareable |= trips != S->cnt[S->share];
			S->reach = S->reach < 0 ? 0 : S->reach; /* a count of 0 skips the loop here */
		}
		if (!s->nbody || trips == 0)
			return STEP_RAN;
		RFrame *nf = &r->fr[r->depth++];
		*nf = (RFrame){s->body, s->nbody, 0, s, 0, trips};
		if (s->kind == ST_REPEAT)
			trip_begin(S, r, s, 0);
		return STEP_RAN;
	}
	st = on_stmt(S, r, s);
	if (st != STEP_RAN)
		return st;
	if (S->failed)
		return STEP_DONE;
	f->i++;
	return STEP_RAN;
}

/* ---- runs and the loop invariant ---- */

/* a round's signature is hundreds of values: round_sig makes room for all
 * of them first (the text keeps its capacity from search to search), then
 * appends them in place */
static inline void sig_put(char **at, int64_t v)
{
	/* zigzag, then 7 bits a byte (a prefix code: equal strings are equal
	 * value sequences); most values are small, so a round's signature keeps
	 * a fraction of the memory (and page faults) of 8 bytes a value. The
	 * cursor is round_sig's local (a register), not the Str's length, which
	 * a char store may alias */
	uint64_t z = v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
	char *p = *at;
	for (; z >= 0x80; z >>= 7)
		*p++ = (char)(z | 0x80);
	*p++ = (char)z;
	*at = p;
}

/* a pointer in 8 bytes (its varint would take 7 steps): a field's width
 * depends on its place only, so the text still decodes one way */
static inline void sig_ptr(char **at, const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;
	memcpy(*at, &v, sizeof v);
	*at += sizeof v;
}

/* a few hundred values, sorted per clock component at every round: a shell
 * sort inline is several times faster than qsort's calls to a comparator */
static void sort_i64(int64_t *v, size_t n)
{
	static const size_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
	for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++)
		for (size_t i = gaps[g]; i < n; i++) {
			int64_t x = v[i];
			size_t j = i;
			for (; j >= gaps[g] && v[j - gaps[g]] > x; j -= gaps[g])
				v[j] = v[j - gaps[g]];
			v[j] = x;
		}
}

/* the rank of clock value v of component c among every stored one */
static int64_t rank_of(const int64_t *sorted, size_t n, int64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (sorted[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

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

/* the clocks of a round state, raw: a row per holder of a clock (roles,
 * barriers' arrivals and completions, records, thread barriers), then the
 * roles' pass times (values of the role's own component). Two rounds'
 * clocks are equal when every value has the same rank among its
 * component's (equal orders, equal futures); ranking costs a sort or count
 * per component, so it is done only for the rounds whose other parts match
 * and whose raw values differ (same_round). Stored in 32 bits (a search's
 * rounds keep them all): a clock value counts statement instances or phase
 * completions, at most ROLE_STEPS + 1 */
static void sig_clocks(RSim *S, Clocks *o)
{
	/* a thread barrier no role has reached (count 0, in the string) has
	 * zero clocks: its rows are left out. Exact: both rounds compared leave
	 * out the same rows (their strings are equal), and zeros left out of a
	 * column lower every nonzero value's rank by their number in both */
	size_t live = S->nrecs - S->ndead, nbs = 0;
	for (int i = 0; i < S->nnb; i++)
		nbs += S->nb[i].count != 0;
	size_t w = (size_t)S->nclk, rows = (size_t)(S->nr + 2 * S->nbars) + live + 2 * nbs;
	size_t n = 2 + rows * w + (size_t)S->nr * (size_t)S->nbars;
	if (o->cap < n) { /* the same rounds serve every search of the proof; malloc's: the headroom is not
	                   * touched (its pages are not faulted in) */
		o->cap = n + n / 2;
		free(o->v);
		o->v = xrealloc(NULL, sizeof(int32_t) * o->cap);
	}
	int32_t *v = o->v;
	size_t at = 2;
	v[0] = (int32_t)live, v[1] = S->nnb;
#define ROW(vc) do { memcpy(v + at, (vc).t, sizeof(int32_t) * w); at += w; } while (0)
	for (int x = 0; x < S->nr; x++)
		ROW(S->r[x].clock);
	for (int64_t b = 0; b < S->nbars; b++) {
		ROW(S->bars[b].acc);
		ROW(S->bars[b].done);
	}
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].dead)
			ROW(S->recs[i].vc);
	for (int i = 0; i < S->nnb; i++)
		if (S->nb[i].count) {
			ROW(S->nb[i].acc);
			ROW(S->nb[i].release);
		}
#undef ROW
	for (int x = 0; x < S->nr; x++)
		for (int64_t b = 0; b < S->nbars; b++)
			v[at++] = (int32_t)S->r[x].pass_t[b];
	o->n = at;
	o->rows = rows;
	memset(o->ranked, 0, sizeof o->ranked);
}

/* component c's values: column c of the rows, then role c's pass times */
static size_t clocks_col(const RSim *S, const Clocks *o, int c, int32_t *out)
{
	size_t n = 0, w = (size_t)S->nclk;
	for (size_t h = 0; h < o->rows; h++)
		out[n++] = o->v[2 + h * w + (size_t)c];
	if (c < S->nr)
		for (int64_t b = 0; b < S->nbars; b++)
			out[n++] = o->v[2 + o->rows * w + (size_t)c * (size_t)S->nbars + (size_t)b];
	return n;
}

/* component c's ranks (the number of smaller values of the component, for
 * each value), once: counted when their range is small, else sorted as
 * value-index keys (each rank the position of the first of its equals) */
static const int32_t *clocks_rank(const RSim *S, Clocks *o, int c)
{
	size_t need = o->rows + (size_t)S->nbars;
	if (o->rankcap[c] < need) {
		o->rankcap[c] = need + need / 2;
		free(o->rank[c]);
		o->rank[c] = xrealloc(NULL, sizeof(int32_t) * o->rankcap[c]);
		o->ranked[c] = false;
	}
	int32_t *v = o->rank[c];
	if (o->ranked[c])
		return v;
	o->ranked[c] = true;
	size_t n = clocks_col(S, o, c, v);
	int32_t keys[1024], lo = INT32_MAX, hi = INT32_MIN; /* counts below n <= 1024 */
	for (size_t i = 0; i < n; i++)
		lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
	if (n && n <= sizeof keys / sizeof *keys && (int64_t)hi - lo < (int64_t)(sizeof keys / sizeof *keys)) {
		int32_t range = hi - lo + 1, below = 0;
		memset(keys, 0, sizeof(int32_t) * (size_t)range);
		for (size_t i = 0; i < n; i++)
			keys[v[i] - lo]++;
		for (int32_t x = 0; x < range; x++) {
			int32_t k = keys[x];
			keys[x] = below;
			below += k;
		}
		for (size_t i = 0; i < n; i++)
			v[i] = keys[v[i] - lo];
		return v;
	}
	int64_t *vals = xrealloc(NULL, sizeof(int64_t) * (n + 1));
	for (size_t i = 0; i < n; i++)
		vals[i] = v[i];
	sort_i64(vals, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (int32_t)rank_of(vals, n, v[i]);
	free(vals);
	return v;
}

/* two rounds' states equal: the rest of their signatures, then their
 * clocks: equal raw values, or else equal ranks, component by component */
static bool same_round(const RSim *S, const Str *a, Clocks *ca, const Str *b, Clocks *cb)
{
	if (a->n != b->n || memcmp(a->s, b->s, a->n) || ca->n != cb->n)
		return false;
	if (!memcmp(ca->v, cb->v, sizeof(int32_t) * ca->n))
		return true;
	for (int c = 0; c < S->nclk; c++) {
		size_t n = ca->rows + (c < S->nr ? (size_t)S->nbars : 0), w = (size_t)S->nclk, h = 0;
		for (; h < ca->rows && ca->v[2 + h * w + (size_t)c] == cb->v[2 + h * w + (size_t)c]; h++)
			;
		if (h == ca->rows && (c >= S->nr || !memcmp(ca->v + 2 + ca->rows * w + (size_t)c * (size_t)S->nbars,
		                                            cb->v + 2 + cb->rows * w + (size_t)c * (size_t)S->nbars,
		                                            sizeof(int32_t) * (size_t)S->nbars)))
			continue; /* equal values */
		if (memcmp(clocks_rank(S, ca, c), clocks_rank(S, cb, c), sizeof(int32_t) * n))
			return false;
	}
	return true;
}

/* the live records into a round's signature */
static void sig_recs(const RSim *S, char **at)
{
	for (size_t i = 0; i < S->nrecs; i++) {
		const Rec *x = &S->recs[i];
		if (x->dead || x->buf->mem != MEM_SHARED) /* a cp.async's global source moves with the loop index: */
			continue;                             /* only its warning reads it, not the proof's verdict */
		int64_t groups = is_store(x->s) ? S->r[x->role].bulk_groups
		                 : is_cpa(x->s) ? S->r[x->role].cpa_groups : S->r[x->role].wg_groups;
		int64_t v[] = {x->lo, x->hi, x->role, x->write, x->complete, x->bar,
		               x->bar >= 0 ? S->bars[x->bar].completed - x->phase : 0,
		               x->group >= 0 ? groups - x->group : x->group, x->proxy};
		sig_ptr(at, x->buf);
		sig_ptr(at, x->s);
		for (size_t k = 0; k < sizeof v / sizeof *v; k++)
			sig_put(at, v[k]);
		sig_put(at, x->unmet);
		sig_put(at, x->at_arrive);
		sig_ptr(at, x->hid_by);
		/* a statement of several roles: its instance, by the trips relative to its role's now while the
		 * role is in its block (same_instance; past it, the block's end orders what the record is) */
		const Role *xr = &S->r[x->role];
		bool shared = x->ntrip > 0 && (x->s->warps & ~xr->warps) && x->ntrip <= xr->depth &&
		              xr->fr[x->ntrip - 1].blk == x->tblk;
		sig_put(at, shared ? x->ntrip : -2);
		for (int d = 0; shared && d < x->ntrip; d++)
			sig_put(at, x->trip[d] - xr->fr[d].j);
	}
}

/* the joint state at a round boundary: equal strings, equal futures (clock
 * values by their order per component, runtime loop indices relative to
 * the slowest role and by their residue); the clocks go to their own
 * array, compared by same_round */
static void round_sig(RSim *S, Str *o, Clocks *clocks, int64_t *jmin_out, int64_t *jmax_out)
{
	int64_t jmin = INT64_MAX, jmax = 0, L = 2;
	for (int v = VAR_REPEAT0; v < S->k->nvars; v++) /* the residues that matter: lcm of the moduli and 2 */
		if (S->k->var_base[v] >= 0) {
			int64_t a = L, b = S->k->var_mod[v];
			while (b)
				a %= b, a ^= b, b ^= a, a ^= b;
			if (L / a <= (int64_t)1 << 20)
				L = L / a * S->k->var_mod[v];
		}
	for (int x = 0; x < S->nr; x++)
		for (int d = 0; d < S->r[x].depth; d++) {
			const RFrame *f = &S->r[x].fr[d];
			if (free_frame(S, &S->r[x], d)) {
				jmin = f->j < jmin ? f->j : jmin;
				jmax = f->j > jmax ? f->j : jmax;
			}
		}
	if (jmin == INT64_MAX)
		jmin = 0;
	*jmin_out = jmin;
	*jmax_out = jmax;
	/* the values below: 3 + 2 per thread barrier; per role 14, 3 per frame, its running counts and 3 per
	 * barrier; per barrier 8; per record 19 */
	size_t need = 10 * (size_t)(4 + S->nr * (15 + 3 * (MAX_REPEAT_DEPTH + 2) + S->k->nvars + 3 * S->nbars) +
	                            8 * S->nbars + 19 * (int64_t)S->nrecs + 2 * S->nnb); /* 10 bytes a value at most */
	if (o->n + need + 1 > o->cap) { /* room for all of it (an upper bound, below) */
		o->cap = o->n + need + 1;
		if (o->n) {
			o->s = xrealloc(o->s, o->cap);
		} else { /* nothing to keep: no copy (a copy would fault in the pages of the room above) */
			free(o->s);
			o->s = xrealloc(NULL, o->cap);
		}
	}
	char *sp = o->s + o->n;
	sig_put(&sp, jmin % L);
	if (clocks)
		sig_clocks(S, clocks);
	sig_put(&sp, (int64_t)(S->nrecs - S->ndead));
	for (int x = 0; x < S->nr; x++) {
		const Role *r = &S->r[x];
		int64_t open = r->bulk_groups - r->bulk_done; /* a later bulk.wait N leaves at most N: past 64, alike */
		int64_t v[] = {r->depth, r->done, r->lag_all, r->lag_wg, r->defer_bar, r->in_nb, r->nb_id,
		               open < 64 ? open : 64};
		for (size_t i = 0; i < sizeof v / sizeof *v; i++)
			sig_put(&sp, v[i]);
		sig_ptr(&sp, r->lag_at);
		sig_ptr(&sp, r->deferred);
		sig_ptr(&sp, r->carrive);
		sig_ptr(&sp, r->last_mc);
		for (int d = 0; d < r->depth; d++) {
			const RFrame *f = &r->fr[d];
			bool rt = free_frame(S, r, d);
			sig_ptr(&sp, f->blk);
			sig_put(&sp, (int64_t)f->i);
			sig_put(&sp, rt ? f->j - jmin : f->j);
		}
		for (int v = VAR_REPEAT0; v < S->k->nvars; v++) /* running counts matter by their residues */
			if (S->k->var_base[v] == VAR_RUNNING)
				sig_put(&sp, r->vals[v] % L);
		if (S->free >= 0) /* entries of the free class's loops: before the endless one, or it */
			sig_put(&sp, r->entries[S->free] < S->free_entry ? r->entries[S->free] : S->free_entry);
		for (int64_t b = 0; b < S->nbars; b++)
			/* past 2 ahead, any wait of the role fails alike (a role that never waits) */
			sig_put(&sp, S->bars[b].completed - r->waits[b] < 2 ? S->bars[b].completed - r->waits[b] : 2),
			sig_put(&sp, S->abs_parity ? r->waits[b] & 1 : 0), sig_put(&sp, lag_on(r, b));
	}
	for (int64_t b = 0; b < S->nbars; b++) {
		const RBar *x = &S->bars[b];
		int64_t v[] = {x->init, x->count, x->arrivals, x->expect, x->loaded, S->abs_parity ? x->completed & 1 : 0,
		               x->ndeferred};
		for (size_t i = 0; i < sizeof v / sizeof *v; i++)
			sig_put(&sp, v[i]);
		sig_ptr(&sp, x->first);
	}
	sig_recs(S, &sp);
	sig_put(&sp, S->nnb);
	for (int i = 0; i < S->nnb; i++)
		sig_put(&sp, S->nb[i].arrived), sig_put(&sp, S->nb[i].count);
	o->n = (size_t)(sp - o->s);
	o->s[o->n] = 0;
}

static void scan_parity(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= s->kind == ST_MBAR_WAIT && s->has_value;
}

static void scan_cpa(void *ctx, const Stmt *s) { *(bool *)ctx |= is_cpa(s); }

static void scan_mc(void *ctx, const Stmt *s) { *(bool *)ctx |= stmt_info[s->kind].issue == AI_COPY && s->mcast; }

static RSim *rsim_new(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const TClass *cls, int ncls)
{
	RSim *S = xcalloc(sizeof *S);
	stmt_walk(k->body, k->nbody, scan_parity, &S->abs_parity);
	stmt_walk(k->body, k->nbody, scan_cpa, &S->cpa);
	stmt_walk(k->body, k->nbody, scan_mc, &S->mc);
	S->cx = cx;
	S->loud = cx;
	S->k = k;
	S->nr = nr;
	S->cls = cls;
	S->ncls = ncls;
	S->free = -1;
	S->free_entry = 1;
	S->share = -1;
	S->reach = -1;
	S->nranks = (int)kernel_cluster_size(k);
	S->base = xcalloc(sizeof(int64_t) * (k->nmbars + 1));
	for (size_t i = 0; i < k->nmbars; i++) {
		S->base[i] = S->cta_bars;
		S->cta_bars += k->mbars[i].n;
	}
	S->nbars = S->cta_bars * S->nranks;
	S->bars = xcalloc(sizeof(RBar) * (size_t)(S->nbars + 1));
	S->nb = xcalloc(sizeof(NBar) * (size_t)(NB_PER_CTA * S->nranks + 1));
	S->nr = nr * S->nranks; /* every CTA of the cluster runs every role */
	S->nclk = (int)(S->nr + S->nbars);
	S->r = xcalloc(sizeof(Role) * (size_t)S->nr);
	for (int x = 0; x < S->nr; x++) {
		Role *r = &S->r[x];
		r->warps = roles[x % nr];
		r->rank = x / nr;
		r->vals = xcalloc(sizeof(int64_t) * (size_t)(k->nvars + 1));
		r->vals[VAR_CRANK] = r->rank;
		r->waits = xcalloc(sizeof(int64_t) * (size_t)(S->nbars + 1));
		r->pass_t = xcalloc(sizeof(int64_t) * (size_t)(S->nbars + 1));
		r->fr[0] = (RFrame){k->body, k->nbody, 0, NULL, 0, 1};
		r->depth = 1;
	}
	return S;
}

static void rsim_free(RSim *S)
{
	for (int x = 0; x < S->nr; x++)
		free(S->r[x].vals), free(S->r[x].waits), free(S->r[x].pass_t);
	free(S->r), free(S->bars), free(S->base), free(S->recs), free(S->nb), free(S);
}

/* S copied into C, a copy made earlier of a run of the same kernel (its
 * buffers reused: a run's copies come and go every round, and the heap
 * would give their pages back and fault them in again), or into a new one
 * when C is NULL. Clocks are copied over the components in use (the rest
 * are never read), thread barriers past the used ones zeroed */
static RSim *rsim_copy(RSim *C, const RSim *S)
{
	size_t nnbs = (size_t)(NB_PER_CTA * S->nranks + 1), nv = (size_t)(S->k->nvars + 1), nb1 = (size_t)(S->nbars + 1);
	if (!C) {
		C = xcalloc(sizeof *C);
		C->base = xcalloc(sizeof(int64_t) * (S->k->nmbars + 1));
		C->bars = xcalloc(sizeof(RBar) * nb1);
		C->nb = xcalloc(sizeof(NBar) * nnbs);
		C->r = xcalloc(sizeof(Role) * (size_t)S->nr);
		for (int x = 0; x < S->nr; x++) {
			C->r[x].vals = xcalloc(sizeof(int64_t) * nv);
			C->r[x].waits = xcalloc(sizeof(int64_t) * nb1);
			C->r[x].pass_t = xcalloc(sizeof(int64_t) * nb1);
		}
	}
	RSim keep = *C;
	*C = *S;
	C->base = keep.base, C->bars = keep.bars, C->nb = keep.nb, C->r = keep.r;
	C->recs = keep.recs, C->reccap = keep.reccap;
	memcpy(C->base, S->base, sizeof(int64_t) * (S->k->nmbars + 1));
	for (int64_t b = 0; b < S->nbars; b++) {
		RBar *d = &C->bars[b];
		const RBar *f = &S->bars[b];
		memcpy(d, f, offsetof(RBar, acc));
		vc_copy(S, &d->acc, &f->acc), vc_copy(S, &d->done, &f->done);
		vc_copy(S, &d->init_vc, &f->init_vc), vc_copy(S, &d->racc, &f->racc);
		d->first = f->first, d->init_at = f->init_at, d->rlast = f->rlast;
	}
	for (size_t i = 0; i < nnbs; i++) {
		NBar *d = &C->nb[i];
		if (i < (size_t)S->nnb) {
			const NBar *f = &S->nb[i];
			d->arrived = f->arrived, d->count = f->count, d->gen = f->gen, d->first = f->first;
			vc_copy(S, &d->acc, &f->acc), vc_copy(S, &d->release, &f->release);
		} else {
			d->arrived = d->count = d->gen = 0, d->first = NULL;
			vc_zero(S, &d->acc), vc_zero(S, &d->release);
		}
	}
	if (C->reccap < S->nrecs) {
		C->reccap = S->reccap;
		C->recs = xrealloc(C->recs, sizeof(Rec) * C->reccap);
	}
	for (size_t i = 0; i < S->nrecs; i++)
		memcpy(&C->recs[i], &S->recs[i], offsetof(Rec, vc) + sizeof(Tick) * (size_t)S->nclk);
	for (int x = 0; x < S->nr; x++) {
		Role *r = &C->r[x];
		int64_t *vals = r->vals, *waits = r->waits, *pass_t = r->pass_t;
		*r = S->r[x];
		r->vals = vals, r->waits = waits, r->pass_t = pass_t;
		memcpy(vals, S->r[x].vals, sizeof(int64_t) * nv);
		memcpy(waits, S->r[x].waits, sizeof(int64_t) * nb1);
		memcpy(pass_t, S->r[x].pass_t, sizeof(int64_t) * nb1);
	}
	return C;
}

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

static Round *round_slot(Rounds *R, int64_t u)
{
	if ((size_t)u >= R->n) {
		size_t n = R->n ? 2 * R->n : 16;
		n = n > (size_t)u ? n : (size_t)u + 1;
		R->at = xrealloc(R->at, sizeof(Round) * n);
		memset(R->at + R->n, 0, sizeof(Round) * (n - R->n));
		R->n = n;
	}
	return &R->at[u];
}

static void rounds_free(Rounds *R)
{
	for (size_t i = 0; i < R->n; i++) {
		str_free(&R->at[i].sig);
		free(R->at[i].clk.v);
		for (int c = 0; c < MAX_CLOCKS; c++)
			free(R->at[i].clk.rank[c]);
	}
	free(R->at);
	str_free(&R->scratch);
}

/* run to the end (or, own given, for rounds while looking for the
 * invariant: a round state equal to an earlier one, after *trans trips of
 * the free class's endless loop, repeats every *period trips). Rounds
 * before npre are pre's: another run's, whose states up to there were this
 * run's (inner_searches); the run starts at round `start` */
static bool rsim_rounds(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t start, int64_t *trans,
                        int64_t *period);

static bool rsim_run(RSim *S, Rounds *own, int64_t *trans, int64_t *period)
{
	return rsim_rounds(S, own, NULL, 0, 0, trans, period);
}

/* every role blocked: the hang, located at the wait with partial progress,
 * a note per other blocked role */
static void report_hang(RSim *S)
{
	int pick = -1, best = -1;
	for (int x = 0; x < S->nr; x++) {
		Role *r = &S->r[x];
		if (r->done)
			continue;
		const Stmt *s = r->fr[r->depth - 1].body[r->fr[r->depth - 1].i];
		int score = 0;
		if (s->mbar) {
			const RBar *b = &S->bars[rbar_of(S, r, s)];
			score = b->arrivals > 0 || b->loaded > 0 || b->expect > 0;
		}
		if (score > best)
			best = score, pick = x;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int x = 0; x < S->nr; x++) {
			Role *r = &S->r[x];
			if (r->done || (pass == 0) != (x == pick))
				continue;
			const Stmt *s = r->fr[r->depth - 1].body[r->fr[r->depth - 1].i];
			char who[160], name[96] = "", what[256];
			role_desc(S, r, who, sizeof who);
			if (s->mbar) {
				rbar_name(S, r, s, name, sizeof name);
				const RBar *b = &S->bars[rbar_of(S, r, s)];
				snprintf(what, sizeof what, "phase %lld of %s gets %lld of %lld arrivals and %lld of %lld bytes",
				         (long long)r->waits[rbar_of(S, r, s)], name, (long long)b->arrivals,
				         (long long)b->count, (long long)b->loaded, (long long)b->expect);
			} else if (s->kind == ST_CLUSTER_SYNC) {
				snprintf(what, sizeof what, "the cluster barrier has %lld of %lld threads",
				         (long long)S->nb[r->nb_id].arrived, (long long)S->nb[r->nb_id].count);
			} else if (r->in_nb && (r->nb_id - 1) % NB_PER_CTA >= NB_WARPGROUP) {
				snprintf(what, sizeof what, "this warpgroup instruction has %lld of the %lld threads of the "
				         "warpgroups that its roles split", (long long)S->nb[r->nb_id].arrived,
				         (long long)S->nb[r->nb_id].count);
			} else {
				snprintf(what, sizeof what, "barrier %d has %lld of %lld threads",
				         s->kind == ST_SYNC || s->kind == ST_MBAR_INIT ? 0 : (int)nbar_id_at(s, __builtin_ctzll(r->warps)),
				         (long long)S->nb[r->nb_id].arrived, (long long)S->nb[r->nb_id].count);
			}
			if (pass == 0)
				RFAIL(S, s->loc, "%s waits here forever: %s", who, what);
			else
				diag_note(S->cx, "%s waits too, at line %d: %s", who, s->loc.line, what);
		}
	diag_note(S->cx, "every role is blocked: no statement can signal what they wait for");
	for (int64_t bi = 0; bi < S->nbars; bi++)
		if (S->bars[bi].expect && S->bars[bi].loaded > S->bars[bi].expect) {
			char bl[96];
			bar_label(S, (int)bi, bl, sizeof bl);
			diag_note(S->cx, "%s's phase got %lld bytes where its expect_tx counts %lld: on a GPU it would "
			          "complete early, before every load landed", bl, (long long)S->bars[bi].loaded,
			          (long long)S->bars[bi].expect);
		}
}

/* a multicast writes the peers' shared memory: the cluster's CTAs meet
 * (cluster.sync, or a cluster.arrive after it and its wait) before one
 * exits, as CUTLASS's cluster kernels end */
static bool end_multicast(RSim *S)
{
	for (int x = 0; x < S->nr; x++)
		if (S->r[x].last_mc) {
			RFAIL(S, S->r[x].last_mc->loc, "no cluster.sync follows this multicast load before the kernel ends");
			diag_note(S->cx, "a CTA must not exit while the cluster's multicasts may still write into its peers' "
			          "shared memory: cluster.sync before the end");
			return false;
		}
	return true;
}

/* the end of a run: no TMA load in flight or unwaited, no peer's signal
 * after a CTA may exit, every wgmma waited for */
static bool end_checks(RSim *S)
{
	cpa_end_warning(S);
	for (size_t i = 0; i < S->nrecs; i++) { /* a load whose phase completed but no role waited for */
		const Rec *x = &S->recs[i];
		if (x->dead || !x->complete || !stmt_is_tma_load(x->s))
			continue;
		bool seen = false; /* by a role of the CTA it landed in */
		for (int r = 0; r < S->nr && !seen; r++)
			seen = S->r[r].rank == x->rank && vc_le(S, &x->vc, &S->r[r].clock);
		if (!seen) {
			RFAIL(S, x->s->loc, "nothing waits for this TMA load's phase of %s: the CTA may exit with it in flight",
			      x->s->mbar_name);
			diag_note(S->cx, "a role must wait on the phase the load completes before the kernel ends");
			return false;
		}
	}
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].complete && stmt_is_tma_load(S->recs[i].s)) {
			RFAIL(S, S->recs[i].s->loc, "this TMA load may still be in flight when the kernel ends: nothing waits on "
			      "%s after it", S->recs[i].s->mbar_name);
			return false;
		}
	for (int64_t bi = 0; bi < S->nbars; bi++) { /* a peer's signal must come before this CTA may exit */
		const RBar *b = &S->bars[bi];
		int d = (int)(bi / S->cta_bars);
		if (!b->rlast)
			continue;
		bool before = false;
		for (int r = 0; r < S->nr && !before; r++)
			before = S->r[r].rank == d && vc_le(S, &b->racc, &S->r[r].clock);
		if (!before) {
			char bl[96];
			bar_label(S, (int)bi, bl, sizeof bl);
			RFAIL(S, b->rlast->loc, "this %s on %s may come after that CTA has exited",
			      stmt_is_tma_load(b->rlast) ? "multicast" : stmt_info[b->rlast->kind].keyword, bl);
			diag_note(S->cx, "a CTA must not exit while a peer may still signal its barriers or write its shared "
			          "memory: end the kernel with a cluster.sync");
			return false;
		}
	}
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].complete && is_store(S->recs[i].s) && S->recs[i].group == -1) {
			RFAIL(S, S->recs[i].s->loc, "this TMA store is never committed: bulk.commit after it, %s",
			      S->k->has_roles ? "in the same role" : "then bulk.wait 0 before the kernel ends");
			return false;
		}
	for (int x = 0; x < S->nr; x++)
		if (S->r[x].bulk_done < S->r[x].bulk_groups) {
			const Stmt *last = NULL;
			for (size_t i = 0; i < S->nrecs; i++)
				if (S->recs[i].role == x && is_store(S->recs[i].s))
					last = S->recs[i].s;
			char who[160];
			role_desc(S, &S->r[x], who, sizeof who);
			if (S->k->has_roles)
				RFAIL(S, last ? last->loc : S->k->loc, "the kernel may end before this TMA store of %s has written "
				      "global memory", who);
			else
				RFAIL(S, last ? last->loc : S->k->loc, "the kernel may end before this TMA store has written global "
				      "memory");
			diag_note(S->cx, "end the %s with bulk.wait 0 after its last bulk.commit (bulk.wait_read only frees the "
			          "source)", S->k->has_roles ? "role" : "kernel");
			return false;
		}
	for (size_t i = 0; i < S->nrecs; i++)
		if (!S->recs[i].complete && S->recs[i].s->kind == ST_WG_MMA) {
			RFAIL(S, S->recs[i].s->loc, "this wgmma is never waited for (wgmma.commit, then wgmma.wait 0)");
			return false;
		}
	return end_multicast(S);
}

enum { ROUND_ON, ROUND_END, ROUND_FAILED };

/* one scheduling round: each role runs until it blocks; ROUND_END when no
 * role is left (the end checks still to run) */
/* settles every open expect_tx without bytes; true if there was one */
static bool resolve_all(RSim *S)
{
	bool any = false;
	for (int x = 0; x < S->nr && !S->failed; x++)
		if (S->r[x].deferred) {
			any = true;
			resolve_deferred(S, &S->r[x]);
		}
	return any;
}

static int rsim_round(RSim *S)
{
	bool progress = false, live = false;
	for (int x = 0; x < S->nr && !S->failed; x++) {
		Role *r = &S->r[x];
		int st;
		while ((st = step(S, r)) == STEP_RAN)
			progress = true;
		progress |= st == STEP_YIELD;
		live |= st == STEP_BLOCKED || st == STEP_YIELD;
	}
	if (!S->failed && (!live || !progress) && resolve_all(S)) /* a phase held open by an expect_tx without bytes */
		return S->failed ? ROUND_FAILED : ROUND_ON;
	if (S->failed)
		return ROUND_FAILED;
	if (!live)
		return ROUND_END;
	if (!progress) { /* every role blocked: a hang */
		report_hang(S);
		return ROUND_FAILED;
	}
	return ROUND_ON;
}

/* the state at the start of `round`, recorded in own (at round - npre: a
 * search's own rounds only, so that the memory the rounds keep, and its
 * page faults, do not grow with the shared ones) and compared with every
 * earlier round's (pre's before npre): 1 and the repeat when one is equal,
 * 0 when none is, -1 (a failure) past ROLE_ROUNDS */
/* what kept a search's state from repeating, said at the statement: a
 * loop outside the searched one still counting (its index is in the state),
 * a role running ever further ahead of another (nothing holds it back),
 * shared accesses that nothing supersedes */
static void stuck_notes(RSim *S)
{
	bool said = false;
	char who[160], other[160];
	int ahead = -1, behind = -1;
	int64_t hi = -1, lo = INT64_MAX;
	for (int x = 0; x < S->nr; x++)
		for (int d = 0; d < S->r[x].depth; d++) {
			const RFrame *f = &S->r[x].fr[d];
			if (free_frame(S, &S->r[x], d)) {
				if (f->j > hi)
					hi = f->j, ahead = x;
				if (f->j < lo)
					lo = f->j, behind = x;
			} else if (f->blk && f->blk->kind == ST_REPEAT && f->j >= 64 && !said) {
				role_desc(S, &S->r[x], who, sizeof who);
				diag_note(S->cx, "%s is in trip %lld of the repeat at line %d, whose index is in the state: a loop "
				          "outside the runtime loop that was searched keeps it from repeating", who,
				          (long long)f->j, f->blk->loc.line);
				said = true;
			}
		}
	if (ahead >= 0 && behind != ahead && hi - lo >= 64) {
		role_desc(S, &S->r[ahead], who, sizeof who);
		role_desc(S, &S->r[behind], other, sizeof other);
		const RFrame *f = &S->r[ahead].fr[S->r[ahead].depth - 1];
		diag_note(S->cx, "%s runs %lld trips ahead of %s (now at line %d): no barrier holds it back, so the "
		          "roles' distance keeps growing", who, (long long)(hi - lo), other,
		          f->i < f->n ? f->body[f->i]->loc.line : f->blk ? f->blk->loc.line : S->k->loc.line);
		said = true;
	}
	if (S->nrecs - S->ndead > 512) {
		const Rec *x = &S->recs[S->nrecs - 1];
		diag_note(S->cx, "%zu shared accesses are still recorded (the latest: line %d): reads that no later write "
		          "covers pile up", S->nrecs - S->ndead, x->s->loc.line);
		said = true;
	}
	if (!said)
		diag_note(S->cx, "a shared region or barrier that moves with a runtime loop index (not 'i %% C') "
		          "keeps the state from repeating");
}

static int round_check(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t round, int64_t *trans,
                       int64_t *period)
{
	if (round == ROLE_ROUNDS) {
		RFAIL(S, S->k->loc, "no invariant of kernel '%s''s runtime loops within %d rounds of its roles", S->k->name,
		      ROLE_ROUNDS);
		stuck_notes(S);
		return -1;
	}
	Round *h = round_slot(own, round - npre);
	Str *t = &own->scratch;
	t->n = 0;
	round_sig(S, t, &h->clk, &h->jmin, &h->jmax);
	if (h->sig.cap < t->n + 1) { /* the round keeps what the signature takes, not its bound (page faults) */
		free(h->sig.s);
		h->sig.cap = t->n + t->n / 4 + 1;
		h->sig.s = xrealloc(NULL, h->sig.cap);
	}
	memcpy(h->sig.s, t->s, t->n + 1);
	h->sig.n = t->n;
	for (int64_t t = 0; t < round; t++) {
		Round *x = t < npre ? &pre->at[t] : &own->at[t - npre];
		if (same_round(S, &x->sig, &x->clk, &h->sig, &h->clk)) {
			int64_t d = h->jmin - x->jmin;
			*trans = x->jmax + 1;
			*period = d > 0 ? d : 1;
			return 1;
		}
	}
	return 0;
}

static bool rsim_rounds(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t start, int64_t *trans,
                        int64_t *period)
{
	for (int64_t round = start;; round++) {
		if (own && round >= npre) {
			int m = round_check(S, own, pre, npre, round, trans, period);
			if (m)
				return m > 0;
		}
		int st = rsim_round(S);
		if (st == ROUND_ON && own && S->capped) /* the search's loop ran the largest count: the count */
			return true;                        /* runs (every count up to it) cover the rest */
		if (st != ROUND_ON)
			return st == ROUND_END && end_checks(S);
	}
}

/* the warps' roles: warps on the same side of every when block */
struct RoleScan { const Stmt *w[256]; int n; bool over; };
static void scan_when(void *ctx, const Stmt *s)
{
	struct RoleScan *R = ctx;
	if (s->kind != ST_WHEN && !s->bar_id) /* a barrier id from wgid splits roles by warpgroup too */
		return;
	if (R->n == 256)
		R->over = true;
	else
		R->w[R->n++] = s;
}

/* the runtime trip classes: loops whose counts are equal at every launch */
struct RtScan { TClass cls[3]; int n; const Kernel *k; };

static int64_t class_count(const Kernel *k, int scalar, int64_t d, bool hi)
{
	const Scalar *sc = &k->scalars[scalar - 1];
	int64_t v = hi ? sc->hi : sc->lo;
	return v > 0 ? (v + d - 1) / d : 0;
}

static void scan_runtime(struct RtScan *R, Stmt *const *body, size_t n, const Stmt *parent)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		if (s->kind == ST_REPEAT && stmt_runtime_trips(s) && !trip_expr_uses_index(R->k, s->trips_expr) &&
		    !walk_outer(s) && class_of(R->cls, R->n, s, parent) < 0 && R->n < 3) {
			const Stmt *o = walk_outer(parent) ? parent : NULL;
			TClass c = {s->trips_scalar, s->trips_div, s->across, 0, 0, 0,
			            s->trips_expr ? s->trips_lo : class_count(R->k, s->trips_scalar, s->trips_div, false),
			            s->trips_expr ? s->n : class_count(R->k, s->trips_scalar, s->trips_div, true), s, s};
			if (o) { /* a walk: the product of the two counts */
				c.oscalar = o->trips_scalar, c.odiv = o->trips_div, c.oacross = o->across;
				c.hi *= class_count(R->k, o->trips_scalar, o->trips_div, true);
				c.first = o;
			}
			if (s->across) /* a CTA past the count runs none */
				c.lo = 0;
			R->cls[R->n++] = c;
		}
		if (s->nbody)
			scan_runtime(R, s->body, s->nbody, s);
	}
}

/* loops of class inner only inside loops of class outer */
static bool nested_in(Stmt *const *body, size_t n, const Stmt *parent, const TClass *cls, int inner, int outer,
                      bool in_outer)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		int c = class_of(cls, 2, s, parent);
		if (c == inner && !in_outer)
			return false;
		if (c == outer && in_outer) /* an outer loop inside another: entered more than once */
			return false;
		if (s->nbody && !nested_in(s->body, s->nbody, s, cls, inner, outer, in_outer || c == outer))
			return false;
	}
	return true;
}

/* the proof runs a walk's tiles as one loop: its indices may place global
 * regions only (a shared stage or barrier indexed by them would see the
 * inner index run on past its count) */
static bool var_of_walk(const Kernel *k, int v, const Stmt *o)
{
	return v == o->var || v == o->body[0]->var || (v >= 0 && v < k->nvars && k->var_base[v] >= 0 &&
	                                               (k->var_base[v] == o->var || k->var_base[v] == o->body[0]->var));
}

static const Affine *walk_affine_use(const Kernel *k, const Affine *a, const Stmt *o)
{
	for (int t = 0; a && t < a->n; t++)
		if (var_of_walk(k, a->t[t].var, o))
			return a;
	return NULL;
}

static bool walk_region_use(const Kernel *k, const Region *r, const Stmt *o)
{
	if (!r || r->whole || r->buf->mem == MEM_GLOBAL)
		return false;
	for (int d = 0; d < r->ndim; d++)
		if (walk_affine_use(k, &r->begin[d], o) || walk_affine_use(k, &r->end[d], o))
			return true;
	return false;
}

/* the first statement under walk o whose shared region, barrier or asm
 * operand uses the walk's indices (stmt_walk's pre-order) */
struct WalkUse { const Kernel *k; const Stmt *o, *bad; };
static void find_walk_misuse(void *ctx, const Stmt *s)
{
	struct WalkUse *u = ctx;
	if (u->bad)
		return;
	bool bad = walk_region_use(u->k, s->dst, u->o) || walk_region_use(u->k, s->src, u->o) ||
	           (s->mbar && walk_affine_use(u->k, s->mbar_idx, u->o));
	for (size_t j = 0; s->asm_blk && j < s->asm_blk->n && !bad; j++) {
		const AsmPiece *pc = &s->asm_blk->p[j];
		bad = walk_region_use(u->k, pc->r, u->o) || (pc->kind == ASM_VALUE && walk_affine_use(u->k, &pc->val, u->o));
	}
	if (bad)
		u->bad = s;
}

struct WalkCheck { Ctx *cx; const Kernel *k; bool failed; };
static void check_walk(void *ctx, const Stmt *s)
{
	struct WalkCheck *c = ctx;
	if (c->failed || !walk_outer(s))
		return;
	struct WalkUse u = {c->k, s, NULL};
	stmt_walk(s->body[0]->body, s->body[0]->nbody, find_walk_misuse, &u);
	if (!u.bad)
		return;
	diag_error(c->cx, u.bad->loc, "the indices of the 2-D walk at line %d (%s, %s) may place global regions only",
	           s->loc.line, s->var_name ? s->var_name : "?", s->body[0]->var_name ? s->body[0]->var_name : "?");
	diag_note(c->cx, "the roles proof runs the walk's tiles as one loop; index a shared stage or barrier by a "
	          "running count");
	c->failed = true;
}

/* counts the proof follows: one per CTA (ctaid, ctaid_y, scalars: a trip
 * class), or over enclosing indices only (evaluated as the roles run) */
struct CountCheck { Ctx *cx; const Kernel *k; bool failed; };
static void check_role_count(void *ctx, const Stmt *s)
{
	struct CountCheck *c = ctx;
	const TripExpr *e = s->kind == ST_REPEAT ? s->trips_expr : NULL;
	if (c->failed || !e)
		return;
	bool launch = trip_expr_uses(e, VAR_CTAID) || trip_expr_uses(e, VAR_CTAIDY);
	for (size_t i = 0; i < c->k->nscalars; i++)
		launch |= trip_expr_uses(e, c->k->scalars[i].var);
	if (launch && trip_expr_uses_index(c->k, e)) {
		diag_error(c->cx, s->loc, "this repeat's count uses an enclosing repeat's index and ctaid or a scalar: the "
		           "roles proof takes a count per CTA, or one over enclosing indices only (not yet both)");
		c->failed = true;
	} else if (kernel_cluster_size(c->k) > 1 && (trip_expr_uses(e, VAR_CTAID) || trip_expr_uses(e, VAR_CTAIDY))) {
		diag_error(c->cx, s->loc, "this repeat's count uses ctaid in a kernel with a cluster: the CTAs of a cluster "
		           "would run different counts (not yet)");
		c->failed = true;
	}
}

/* the 2-D walks' indices and the count expressions the proof follows */
static bool role_loops_ok(Ctx *cx, const Kernel *k)
{
	struct WalkCheck wc = {cx, k, false};
	stmt_walk(k->body, k->nbody, check_walk, &wc);
	struct CountCheck cc = {cx, k, wc.failed};
	stmt_walk(k->body, k->nbody, check_role_count, &cc);
	return !cc.failed;
}

typedef struct Proof {
	Ctx *cx;
	Kernel *k;
	const uint64_t *roles;
	int nr;
	TClass cls[2];
	int ncls, inner, outer;  /* outer -1: one class */
	ViewCache views;
	Rounds *rounds;          /* the searches' scratch */
	Rounds *prefix;          /* inner_searches' shared run's, allocated by the first */
	/* runs to reuse (a run's state is some 100 KB: allocated and freed per
	 * run, the heap gives the pages back and faults them in again) */
	struct RunPool { RSim *fresh, *free[4]; int n; } pool;
	int64_t fold;            /* the inner class's common period: a count below the facts' lowest stands for
	                          * the counts a multiple of it larger (prove_counts_of); 0: none yet */
	bool cpa_warned;         /* the proof's one cp.async warning is out */
	Fits *fits;              /* a kernel without roles: the fitted parities (NULL: none) */
} Proof;

/* a run at its start, reporting to cx */
static RSim *proof_run(Proof *P, Ctx *cx)
{
	struct RunPool *R = &P->pool;
	if (!R->fresh) {
		R->fresh = rsim_new(P->cx, P->k, P->roles, P->nr, P->cls, P->ncls);
		R->fresh->views = &P->views;
		R->fresh->cpa_warned = &P->cpa_warned;
		R->fresh->fits = P->fits;
	}
	RSim *S = rsim_copy(R->n ? R->free[--R->n] : NULL, R->fresh);
	S->cx = cx;
	return S;
}

static void proof_done(Proof *P, RSim *S)
{
	if (P->pool.n < 4)
		P->pool.free[P->pool.n++] = S;
	else
		rsim_free(S);
}

static const char *trips_text(const Proof *P, int c, int64_t t)
{
	const TClass *x = &P->cls[c];
	if (x->oscalar)
		return arena_printf(P->cx->arena, "the walk at line %d runs %lld tile%s in a CTA", x->first->loc.line,
		                    (long long)t, t == 1 ? "" : "s");
	if (!x->scalar) /* a count expression: no one scalar gives it */
		return arena_printf(P->cx->arena, "the repeat at line %d runs %lld trip%s", x->first->loc.line,
		                    (long long)t, t == 1 ? "" : "s");
	const Scalar *sc = &P->k->scalars[x->scalar - 1];
	if (c == P->inner && t < x->lo && P->fold > 0) /* a count that stands for the facts' (prove_counts_of) */
		t += (x->lo - t + P->fold - 1) / P->fold * P->fold;
	int64_t v = t * x->div > sc->hi ? sc->hi : t * x->div;
	return arena_printf(P->cx->arena, "the repeat at line %d runs %lld trip%s%s (%s = %lld, say)", x->first->loc.line,
	                    (long long)t, t == 1 ? "" : "s", x->across ? " in a CTA" : "", sc->name, (long long)v);
}

/* one run with every runtime loop at its count; *entries: the most loops of
 * the inner class a role entered */
static bool count_finish(Proof *P, RSim *S, const int64_t cnt[2], int64_t *entries);

static bool count_run(Proof *P, const int64_t cnt[2], int64_t *entries)
{
	RSim *S = proof_run(P, P->cx);
	S->cnt[0] = cnt[0], S->cnt[1] = cnt[1];
	bool ok = count_finish(P, S, cnt, entries);
	proof_done(P, S);
	return ok;
}

/* run S (at counts cnt) to its end; the failure's notes name the counts */
static bool count_finish(Proof *P, RSim *S, const int64_t cnt[2], int64_t *entries)
{
	bool ok = rsim_run(S, NULL, NULL, NULL);
	for (int x = 0; x < S->nr && entries; x++)
		*entries = S->r[x].entries[P->inner] > *entries ? S->r[x].entries[P->inner] : *entries;
	if (!ok)
		for (int c = 0; c < P->ncls; c++)
			diag_note(P->cx, "when %s", trips_text(P, c, cnt[c]));
	return ok;
}

static void scan_deferred(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= s->kind == ST_MBAR_EXPECT_TX && !s->has_value;
}

/* the runs of the outer class's counts blo..bhi (the inner's at cnt), in
 * order, as count_run each: they are one run (the outer loops at bhi + 1
 * trips, its messages dropped) up to the round in which a role of the
 * b-trip run leaves an outer loop (or skips it, b = 0); b's run is a copy
 * of the shared one at that round's start with its outer loops at b trips,
 * run on to its end. A count the shared run does not settle that way (it
 * failed, ended first, or a loop of the class ran other than the count)
 * gets a run of its own. Not shared: expect_tx without bytes (a run
 * records the bytes on the statement, and the shared run is ahead of the
 * count runs) */
static bool outer_counts(Proof *P, int64_t cnt[2], int64_t blo, int64_t bhi, int64_t *entries)
{
	int o = P->outer;
	bool deferred = false;
	stmt_walk(P->k->body, P->k->nbody, scan_deferred, &deferred);
	int64_t b = blo;
	if (!deferred && blo <= bhi) {
		Ctx quiet = *P->cx; /* the same side tables (no expect_tx here writes one), its own messages */
		memset(&quiet.diags, 0, sizeof quiet.diags);
		RSim *S = proof_run(P, &quiet);
		S->cnt[0] = cnt[0], S->cnt[1] = cnt[1], S->cnt[o] = bhi + 1;
		S->share = o;
		RSim *at = proof_run(P, P->cx), *C = proof_run(P, P->cx); /* the round's start; a count's run */
		for (int st = ROUND_ON; b <= bhi && st == ROUND_ON && !S->unshareable;) {
			at = rsim_copy(at, S);
			st = rsim_round(S);
			for (; b <= bhi && b <= S->reach && st != ROUND_FAILED && !S->unshareable; b++) {
				C = rsim_copy(C, at);
				C->cx = P->cx, C->share = -1, C->cnt[o] = b;
				for (int x = 0; x < C->nr; x++)
					for (int d = 0; d < C->r[x].depth; d++)
						if (C->r[x].fr[d].blk &&
						    class_of(C->cls, C->ncls, C->r[x].fr[d].blk, d ? C->r[x].fr[d - 1].blk : NULL) == o)
							C->r[x].fr[d].trips = b;
				cnt[o] = b;
				if (!count_finish(P, C, cnt, entries)) {
					proof_done(P, at), proof_done(P, C), proof_done(P, S);
					return false;
				}
			}
		}
		proof_done(P, at), proof_done(P, C), proof_done(P, S);
	}
	for (; b <= bhi; b++) {
		cnt[o] = b;
		if (!count_run(P, cnt, entries))
			return false;
	}
	return true;
}

/* the invariant search of class c: its loops run cnt[c] trips in a role's
 * first entry - 1 entries and then without end */
static void search_notes(Proof *P, RSim *S, int c, int64_t entry, const int64_t cnt[2]);

static bool search(Proof *P, int c, int64_t entry, const int64_t cnt[2], int64_t *trans, int64_t *period,
                   int64_t *entries)
{
	RSim *S = proof_run(P, P->cx);
	S->cnt[0] = cnt[0], S->cnt[1] = cnt[1];
	S->free = c;
	S->free_entry = entry;
	S->cap = P->cls[c].hi;
	*trans = P->cls[c].hi; /* no repeat before the loops end: every count up to hi runs */
	*period = 1;
	bool ok = rsim_run(S, P->rounds, trans, period);
	for (int x = 0; x < S->nr && entries; x++)
		*entries = S->r[x].entries[P->inner] > *entries ? S->r[x].entries[P->inner] : *entries;
	if (!ok)
		search_notes(P, S, c, entry, cnt);
	proof_done(P, S);
	return ok;
}

/* a failed search's notes: the counts, and the trip it failed in */
static void search_notes(Proof *P, RSim *S, int c, int64_t entry, const int64_t cnt[2])
{
	int64_t jmin, jmax;
	Str tmp = {0};
	round_sig(S, &tmp, NULL, &jmin, &jmax);
	str_free(&tmp);
	if (entry > 1)
		diag_note(P->cx, "when %s the first %lld time%s", trips_text(P, c, cnt[c]), (long long)(entry - 1),
		          entry == 2 ? "" : "s");
	bool walk = P->cls[c].oscalar;
	diag_note(P->cx, "when the %s at line %d runs more than %lld %s%s%s", walk ? "walk" : "repeat",
	          P->cls[c].first->loc.line, (long long)jmax, walk ? "tile" : "trip", jmax == 1 ? "" : "s",
	          entry > 1 ? " the next time" : "");
	if (P->ncls == 2 && c == P->inner)
		diag_note(P->cx, "and the repeat at line %d runs at least %lld trip%s", P->cls[P->outer].first->loc.line,
		          (long long)entry, entry == 1 ? "" : "s");
	if (P->ncls == 2 && c == P->outer)
		diag_note(P->cx, "and %s", trips_text(P, P->inner, cnt[P->inner]));
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b, b = t;
	}
	return a;
}

/* a search's repeat taken into the inner class's need: the longest
 * transient and the common multiple of the periods (false: too long) */
static bool fold_period(Proof *P, int64_t tr, int64_t pe, int64_t *trans_max, int64_t *lcm)
{
	*trans_max = tr > *trans_max ? tr : *trans_max;
	*lcm = *lcm / gcd64(*lcm, pe) * pe;
	if (*lcm > ROLE_ROUNDS) {
		diag_error(P->cx, P->cls[P->inner].first->loc, "the roles' states at this runtime repeat repeat with periods "
		           "whose common multiple passes %d trips", ROLE_ROUNDS);
		return false;
	}
	return true;
}

/* the inner class's searches from entries elo..ehi (the counts cnt), in
 * order, each as search() would run it, folded into *trans_max and *lcm.
 * Search e runs as a run whose loops of the class never run without end,
 * up to the round in which a role enters its e-th loop of the class (the
 * first step where the two differ): so one such run, shared, records the
 * rounds up to there (their states, signatures and comparisons are search
 * e's), and e's search goes on from a copy of that round's start,
 * comparing its rounds with the shared ones before it and its own. A round
 * of the shared run equal to an earlier one is the repeat every search
 * still to come finds there. Where the shared run fails, ends or runs out
 * of rounds, the searches left run on their own (they report). Not shared:
 * expect_tx without bytes (a run records the bytes on the statement, and
 * the shared run is ahead of the searches) */
static bool inner_searches(Proof *P, const int64_t cnt[2], int64_t elo, int64_t ehi, int64_t *trans_max,
                           int64_t *lcm)
{
	int c = P->inner;
	bool deferred = false;
	stmt_walk(P->k->body, P->k->nbody, scan_deferred, &deferred);
	int64_t e = elo, tr, pe;
	if (!deferred && elo <= ehi) {
		Ctx quiet = *P->cx; /* the same side tables (no expect_tx here writes one), its own messages */
		memset(&quiet.diags, 0, sizeof quiet.diags);
		if (!P->prefix)
			P->prefix = arena_alloc(P->cx->arena, sizeof *P->prefix);
		RSim *S = proof_run(P, &quiet);
		S->cnt[0] = cnt[0], S->cnt[1] = cnt[1];
		S->free = c;
		S->free_entry = ehi + 1; /* every search's loops of the class at their count (a count of 0 would
		                          * let a role run every tile in one round) */
		S->cap = P->cls[c].hi;
		RSim *at = proof_run(P, P->cx), *C = proof_run(P, P->cx); /* the round's start; a search */
		bool ok = true;
		for (int64_t u = 0; e <= ehi && ok && u < ROLE_ROUNDS; u++) {
			int m = round_check(S, P->prefix, NULL, 0, u, &tr, &pe);
			if (m) { /* rounds up to u are every search's still to come (none entered its endless loop) */
				for (; e <= ehi && ok; e++)
					ok = fold_period(P, tr, pe, trans_max, lcm);
				break;
			}
			at = rsim_copy(at, S);
			if (rsim_round(S) != ROUND_ON)
				break;
			int64_t reached = 0;
			for (int x = 0; x < S->nr; x++)
				reached = S->r[x].entries[c] > reached ? S->r[x].entries[c] : reached;
			for (; e <= ehi && e <= reached && ok; e++) { /* search e departs in round u */
				C = rsim_copy(C, at);
				C->cx = P->cx, C->free_entry = e;
				tr = P->cls[c].hi, pe = 1; /* no repeat before the loops end: every count up to hi runs */
				if (!rsim_rounds(C, P->rounds, P->prefix, u + 1, u, &tr, &pe)) {
					search_notes(P, C, c, e, cnt);
					ok = false;
				} else {
					ok = fold_period(P, tr, pe, trans_max, lcm);
				}
			}
		}
		proof_done(P, at), proof_done(P, C), proof_done(P, S);
		if (!ok)
			return false;
	}
	for (; e <= ehi; e++)
		if (!search(P, c, e, cnt, &tr, &pe, NULL) || !fold_period(P, tr, pe, trans_max, lcm))
			return false;
	return true;
}

/* every count of the runtime classes: counts of the inner class a up to
 * its need (the longest transient of its invariant searches, from every
 * entry a run reaches, plus a common period: a count past it behaves as
 * one a period earlier in every entry, so the state at each entry's head
 * is one an explored count reaches); for each a, the outer class's counts
 * up to its own invariant with the inner at a */
static void prove_counts_of(Proof *P);

static void prove_counts(Proof *P)
{
	prove_counts_of(P);
	for (int i = 0; i < P->pool.n; i++)
		rsim_free(P->pool.free[i]);
	if (P->pool.fresh)
		rsim_free(P->pool.fresh);
}

/* the count a stands for, past the inner class's repeat (counts above
 * trans + fold + 1, the counts run before folding was, behave as one fold
 * smaller) */
static int64_t fold_count(int64_t a, int64_t trans, int64_t fold)
{
	int64_t top = trans + fold + 1;
	return a <= top ? a : a - (a - top + fold - 1) / fold * fold;
}

/* the next count to run: the least count of lo..hi's folds not run yet
 * (done: the counts run, n of them); -1: none */
static int64_t next_count(const TClass *I, int64_t trans, int64_t fold, const int64_t *done, size_t n)
{
	int64_t best = -1, top = trans + fold + 1;
	int64_t past = I->lo > top ? I->lo : top + 1; /* past top, fold counts in a row give every fold once */
	int64_t below = I->hi < top ? I->hi : top, above = I->hi < past + fold - 1 ? I->hi : past + fold - 1;
	for (int64_t a = I->lo; a <= above; a = a == below ? past : a + 1) {
		if (a > below && a < past)
			a = past;
		if (a > above)
			break;
		int64_t f = fold_count(a, trans, fold);
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = done[i] == f;
		if (!seen && (best < 0 || f < best))
			best = f;
	}
	return best;
}

/* one inner count a: its count runs (and, with an outer class, the outer
 * searches and counts), then its searches from entry 2 on */
static bool prove_count(Proof *P, int64_t a, int64_t *trans_max, int64_t *lcm)
{
	int64_t cnt[2] = {0, 0}, entries = 1;
	cnt[P->inner] = a;
	if (P->outer >= 0) {
		const TClass *O = &P->cls[P->outer];
		int64_t otr, ope;
		if (!search(P, P->outer, 1, cnt, &otr, &ope, &entries))
			return false;
		if (!outer_counts(P, cnt, O->lo, otr + ope + 1 < O->hi ? otr + ope + 1 : O->hi, &entries))
			return false;
		cnt[P->outer] = O->hi;
	} else if (!count_run(P, cnt, &entries)) {
		return false;
	}
	return inner_searches(P, cnt, 2, entries, trans_max, lcm); /* each later entry's head state, a before it */
}

/* the inner class's counts: the search from every role's first entry
 * (which runs no count of the class) gives a transient and period; a count
 * past their sum behaves as one a period smaller, so lo..hi reduce to
 * counts at most trans + period (some below lo, standing for larger ones),
 * whatever the facts' magnitudes. Each count run adds the searches from the
 * entries it reaches, which may lengthen both; the counts grow until every
 * fold of lo..hi is run */
static void prove_counts_of(Proof *P)
{
	const TClass *I = &P->cls[P->inner];
	int64_t trans_max = 0, lcm = 1, tr, pe, cnt[2] = {I->lo, 0};
	if (P->outer >= 0)
		cnt[P->outer] = P->cls[P->outer].hi, cnt[P->inner] = I->lo;
	else
		cnt[0] = I->lo;
	if (!search(P, P->inner, 1, cnt, &tr, &pe, NULL) || !fold_period(P, tr, pe, &trans_max, &lcm))
		return;
	int64_t *done = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		P->fold = lcm;
		int64_t a = next_count(I, trans_max, lcm, done, n);
		if (a < 0)
			break;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			done = xrealloc(done, sizeof *done * cap);
		}
		done[n++] = a;
		if (!prove_count(P, a, &trans_max, &lcm))
			break;
	}
	free(done);
}

/* two classes neither inside the other (a producer's loop and a consumer's
 * with different counts): before the error that refuses them, a launch
 * where their counts differ, run; false once it failed (its report names
 * the statement). The values tried: ctaid 0, 1 and the last, the scalars
 * at their least and largest values */
static bool sibling_witness(Proof *P)
{
	const Kernel *k = P->k;
	int64_t *vals = xcalloc(sizeof(int64_t) * (size_t)(k->nvars + 1));
	bool ok = true;
	for (int pick = 0; pick < 6 && ok; pick++) {
		memset(vals, 0, sizeof(int64_t) * (size_t)(k->nvars + 1));
		int64_t cta[3] = {0, 1, k->grid - 1};
		vals[VAR_CTAID] = cta[pick % 3] < k->grid ? cta[pick % 3] : 0;
		for (size_t i = 0; i < k->nscalars; i++)
			vals[k->scalars[i].var] = pick < 3 ? k->scalars[i].lo : k->scalars[i].hi;
		int64_t cnt[2];
		for (int c = 0; c < 2; c++)
			cnt[c] = P->cls[c].across || P->cls[c].oscalar ? -1 : stmt_trips_at(k, P->cls[c].rep, vals);
		if (cnt[0] >= 0 && cnt[1] >= 0 && cnt[0] != cnt[1] && cnt[0] <= P->cls[0].hi && cnt[1] <= P->cls[1].hi)
			ok = count_run(P, cnt, NULL);
	}
	free(vals);
	for (int i = 0; i < P->pool.n; i++)
		rsim_free(P->pool.free[i]);
	if (P->pool.fresh)
		rsim_free(P->pool.fresh);
	P->pool = (struct RunPool){0};
	return ok;
}

/* the kernel's roles: warps on the same side of every when block (one role
 * of every warp without roles); false after the error */
static bool role_partition(Ctx *cx, const Kernel *k, uint64_t *roles, int *nrp)
{
	struct RoleScan W = {{0}, 0, false};
	stmt_walk(k->body, k->nbody, scan_when, &W);
	uint64_t all = kernel_all_warps(k);
	int nr = 0;
	for (int w = 0; w < 64 && !W.over; w++) {
		if (!(all >> w & 1))
			continue;
		int x = 0;
		for (; x < nr; x++) { /* the same side of every when as the role's first warp */
			int f = __builtin_ctzll(roles[x]);
			bool same = true;
			for (int i = 0; i < W.n && same; i++)
				same = W.w[i]->bar_id ? !(W.w[i]->warps >> w & 1) || nbar_id_at(W.w[i], w) == nbar_id_at(W.w[i], f)
				                     : (W.w[i]->body_warps >> w & 1) == (W.w[i]->body_warps >> f & 1);
			if (same)
				break;
		}
		if (x == nr) {
			if (nr == MAX_ROLES) {
				W.over = true;
				break;
			}
			roles[nr++] = 0;
		}
		roles[x] |= (uint64_t)1 << w;
	}
	*nrp = nr;
	if (W.over)
		diag_error(cx, k->loc, "kernel '%s' has more than %d roles or 256 when blocks", k->name, MAX_ROLES);
	return !W.over;
}

/* the clocks the proof keeps, and the barrier arrays whose parities the
 * threads track at run time (with roles every one: each thread counts its
 * own waits; without, those a runtime loop touches, Mbar.dyn_phase, the
 * others fitted); false after the error */
static bool role_limits(Ctx *cx, Kernel *k, int nr)
{
	int64_t instances = 0;
	for (size_t i = 0; i < k->nmbars; i++)
		instances += k->mbars[i].n;
	int64_t ranks = kernel_cluster_size(k);
	if ((nr + instances) * ranks > MAX_CLOCKS) {
		diag_error(cx, k->loc, "kernel '%s' has %d roles and %lld mbarriers%s: the roles proof handles %d together",
		           k->name, nr, (long long)instances,
		           ranks > 1 ? arena_printf(cx->arena, " in each of %lld CTAs", (long long)ranks) : "", MAX_CLOCKS);
		return false;
	}
	for (size_t i = 0; i < k->nmbars && k->has_roles; i++)
		mbar_run_time_phase_set(cx, &k->mbars[i]);
	for (size_t i = 0; i < k->nmbars; i++)
		if (mbar_run_time_phase(cx, &k->mbars[i]) && k->mbars[i].n > 32) {
			diag_error(cx, k->mbars[i].loc, "mbarrier '%s' has %lld barriers; a %s may use arrays of at most 32",
			           k->mbars[i].name, (long long)k->mbars[i].n,
			           k->has_roles ? "kernel with roles" : "runtime-count repeat");
			diag_note(cx, "each thread keeps its phase parities in one 32-bit register per array");
			return false;
		}
	return role_loops_ok(cx, k);
}

/* the proof's runs: one without runtime repeats, else every count of their
 * one or two classes (prove_counts) */
static void prove_roles(Proof *P, const struct RtScan *rt, Fits *fits)
{
	Ctx *cx = P->cx;
	Kernel *k = P->k;
	if (rt->n > 2) {
		diag_error(cx, rt->cls[2].first->loc, "a kernel with roles may have runtime repeats of two trip counts "
		           "(lines %d and %d), not yet a third", rt->cls[0].first->loc.line, rt->cls[1].first->loc.line);
		return;
	}
	if (rt->n == 0) {
		RSim *S = rsim_new(cx, k, P->roles, P->nr, P->cls, 0);
		S->cpa_warned = &P->cpa_warned;
		S->fits = fits;
		rsim_run(S, NULL, NULL, NULL);
		rsim_free(S);
		return;
	}
	if (rt->n == 2) { /* one inside the other, the outer entered once */
		if (nested_in(k->body, k->nbody, NULL, P->cls, 1, 0, false))
			P->inner = 1, P->outer = 0;
		else if (nested_in(k->body, k->nbody, NULL, P->cls, 0, 1, false))
			P->inner = 0, P->outer = 1;
		else if (!sibling_witness(P)) /* the hang or race two different counts make, said at its statement */
			return;
		else {
			diag_error(cx, rt->cls[1].first->loc, "this runtime repeat and the one at line %d: a kernel with roles "
			           "may have two runtime trip counts only with every loop of one inside a loop of the other, "
			           "entered once (a persistent loop around a K loop)", rt->cls[0].first->loc.line);
			return;
		}
	}
	P->fits = fits;
	P->rounds = arena_alloc(cx->arena, sizeof *P->rounds);
	prove_counts(P);
	rounds_free(P->rounds);
	if (P->prefix)
		rounds_free(P->prefix);
}

/* what the proof has to follow in a kernel without roles: barriers, tensor
 * maps, bulk groups, cluster barriers, a kernel's cp.async (a func's caller
 * waits for its groups) */
static void scan_async(void *ctx, const Stmt *s)
{
	const StmtInfo *si = &stmt_info[s->kind];
	*(bool *)ctx |= s->mbar > 0 || s->kind == ST_BULK_COMMIT || s->kind == ST_BULK_WAIT ||
	                s->kind == ST_BULK_WAIT_READ || stmt_is_tma_store(s) || stmt_is_bulk_store(s) || si->cbar != BAR_NONE;
}

static bool has_async(const Kernel *k)
{
	bool any = k->nmbars > 0, cpa = false;
	for (size_t i = 0; i < k->nbufs; i++)
		any |= k->bufs[i]->tma;
	stmt_walk(k->body, k->nbody, scan_async, &any);
	if (!k->is_func)
		stmt_walk(k->body, k->nbody, scan_cpa, &cpa);
	return any || cpa;
}

void check_role_phases(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	if (!k->has_roles && !has_async(k)) /* nothing to prove: one role of every warp meets only itself */
		return;
	int before = cx->diags.errors;
	check_named_bar_uses(cx, k); /* a hang or a shared id said at the statement, before the runs */
	uint64_t roles[MAX_ROLES];
	int nr = 0;
	if (cx->diags.errors != before || !role_partition(cx, k, roles, &nr) || !role_limits(cx, k, nr))
		return;
	struct RtScan rt = {.k = k};
	scan_runtime(&rt, k->body, k->nbody, NULL);
	Proof P = {cx, k, roles, nr, {{0}}, rt.n > 2 ? 2 : rt.n, 0, -1, {0}, NULL, NULL, {0}, 0, false, NULL};
	memcpy(P.cls, rt.cls, sizeof P.cls);
	Fits fits = {0};
	prove_roles(&P, &rt, k->has_roles ? NULL : &fits);
	if (cx->diags.errors == before)
		store_fits(cx, k, &fits);
}
