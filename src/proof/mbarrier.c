/* mbarriers, the bulk async-group and TMA's compile-time facts.
 *
 * A TMA load completes on an mbarrier phase: the phase ends when its arrival
 * count is reached and the transaction bytes it expects have arrived. What
 * users of inline asm discover as hangs (a count that never completes),
 * early completions (bytes expected != bytes loaded) and wrong data (a wait
 * on the wrong parity, a read before the wait, a store from memory threads
 * wrote without a proxy fence) is decided here, before any PTX exists, by
 * executing the kernel's barrier statements once, loops unrolled, with the
 * barrier indices evaluated exactly: every CTA runs the same sequence. */
#include "tilepx.h"
#include "walk.h"

#include <string.h>

enum { SIM_LIMIT = 1 << 22 };

/* ---- the phase analysis ---- */

typedef struct Bar {
	bool init;
	int64_t count, arrivals, expect, loaded, phase;
	const Stmt *first;          /* first event of the open phase */
	const Stmt *deferred;       /* expect_tx without bytes in the open phase */
	int ndeferred;
	const Stmt *lag;            /* the last wait, while threads may still be in it (no sync since) */
	const Stmt *clag;           /* the same for peer CTAs of the cluster (no cluster.sync since) */
	bool csync;                 /* a cluster.sync followed the init: peers may signal it */
	/* at the pending cluster.arrive: what its cluster.wait will cover */
	bool pend_csync;
	const Stmt *pend_clag, *pend_lag;
} Bar;

/* byte interval of a shared buffer that a region may touch */
typedef struct Span {
	const Buffer *buf;
	int64_t lo, hi;
	const Stmt *s;
	int bar;                    /* in-flight loads: the barrier instance */
	int64_t group;              /* store sources: the bulk group, -1 uncommitted */
	uint64_t ranks;             /* the CTA ranks of the cluster whose memory it is in (a multicast's mask) */
} Span;

typedef struct Sim {
	Ctx *cx;
	Kernel *k;
	Bar *bars;                  /* [instance * nranks + CTA rank in the cluster] */
	int64_t nbars_total;
	int nranks;                 /* CTAs in the cluster (1: no cluster) */
	bool mc;                    /* the kernel has multicast loads */
	Span *ctouch; size_t nctouch, ctouchcap; /* shared accesses since the last cluster.sync (mc) */
	const Stmt *last_mc;        /* a multicast not yet followed by cluster.sync */
	const Stmt *carrive;        /* a cluster.arrive not yet waited for */
	size_t ctouch_at;           /* cluster accesses before it */
	const Stmt *mc_at;          /* last_mc at it */
	int64_t *base;              /* first instance of each mbarrier array */
	int64_t *vals;              /* current value of each kernel variable */
	bool failed;
	/* per-wait parity fit: parity = (c + sum k_v * j_v) mod 2 */
	struct Fit { const Stmt *s; int c; bool has_c; int8_t *k; } *fits;
	size_t nfits, fitcap;
	Span *loads; size_t nloads, loadcap;   /* TMA loads in flight */
	Span *stores; size_t nstores, storecap; /* TMA store sources */
	int64_t groups, read_upto, written_upto; /* groups committed; first not yet read / written */
	int64_t seen_upto;                     /* first group whose read not every thread knows of (no sync since) */
	Span *dirty; size_t ndirty, dirtycap;  /* thread writes not yet fenced (bar < 0) or synced */
	Span *cpa; size_t ncpa, cpacap;        /* cp.async copies not yet waited for (group -1: uncommitted) */
	int64_t cpa_groups;                    /* cp.async groups committed so far */
	bool warned_cpa;                       /* one cp.async warning per kernel: the first race explains the rest */
	bool tma;                              /* the kernel has TMA or bulk copies or groups (thread writes are then tracked) */
	bool zero_trips;                       /* runtime-count repeats run no trip (a launch value of 0) */
	/* runtime-count repeats holding barrier or bulk statements: each class
	 * of trip count (scalar, divisor) runs one count per simulation */
	struct TripClass *tc;
	int ntc;
	int64_t bulk_cap, cpa_cap;  /* 1 + the largest N of bulk.wait[_read] N and cp_async.wait N */
} Sim;

/* the counts of one class of runtime repeats: a simulation runs `choice`
 * trips; every count >= `need` behaves as a smaller one (a loop head state
 * repeated), so the counts [lo, min(hi, need - 1)] are all there is to run */
typedef struct TripClass {
	int scalar;
	int64_t div, lo, hi, choice, need;
	const Stmt *first;
} TripClass;

#define FAIL(S, ...) ((S)->failed = true, diag_error((S)->cx, __VA_ARGS__))

static int bar_of(Sim *S, const Stmt *s)
{
	return (int)(S->base[s->mbar - 1] + affine_eval(s->mbar_idx, S->vals));
}

static Bar *bar_at(Sim *S, int bi, int rank) { return &S->bars[(int64_t)bi * S->nranks + rank]; }

/* NAME[i], and the CTA's rank when the kernel has a cluster */
static void bar_name_r(Sim *S, const Stmt *s, int rank, char *out, size_t n)
{
	if (S->nranks > 1)
		snprintf(out, n, "%s[%lld] of CTA rank %d", s->mbar_name, (long long)affine_eval(s->mbar_idx, S->vals), rank);
	else
		snprintf(out, n, "%s[%lld]", s->mbar_name, (long long)affine_eval(s->mbar_idx, S->vals));
}

static void bar_name(Sim *S, const Stmt *s, char *out, size_t n) { bar_name_r(S, s, 0, out, n); }

/* the bytes of a shared region, hull over thread and CTA indices, widened
 * to whole swizzle spans (a swizzle permutes inside them) */
static bool region_span(Sim *S, const Region *r, Span *out)
{
	int64_t lo, hi;
	if (!region_bytes(S->cx, S->k, r, S->vals, 0, -1, &lo, &hi))
		return false;
	*out = (Span){r->buf, lo, hi, NULL, -1, -1, ((uint64_t)1 << S->nranks) - 1}; /* every CTA runs the statement */
	return true;
}

static const Span *overlap(const Span *list, size_t n, const Span *x)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].buf == x->buf && list[i].lo <= x->hi && x->lo <= list[i].hi && (list[i].ranks & x->ranks))
			return &list[i];
	return NULL;
}

static int wait_parity(Sim *S, const Stmt *s, int parity)
{
	struct Fit *f = NULL;
	for (size_t i = 0; i < S->nfits && !f; i++)
		if (S->fits[i].s == s)
			f = &S->fits[i];
	if (!f) {
		struct Fit nf = {s, 0, false, arena_alloc(S->cx->arena, (size_t)S->k->nvars)};
		APUSH(S->cx->arena, S->fits, S->nfits, S->fitcap, nf);
		f = &S->fits[S->nfits - 1];
	}
	int nz = 0, one = -1;
	for (int v = VAR_REPEAT0; v < S->k->nvars; v++)
		if (S->vals[v]) {
			nz++;
			one = S->vals[v] == 1 ? v : one;
		}
	if (nz == 0) {
		f->c = parity;
		f->has_c = true;
	} else if (nz == 1 && one >= 0) {
		f->k[one] = (int8_t)((parity ^ f->c) & 1);
	}
	int want = f->c;
	for (int v = VAR_REPEAT0; v < S->k->nvars; v++)
		want ^= f->k[v] & (int)(S->vals[v] & 1);
	return want;
}

static void sim_wait_rank(Sim *S, const Stmt *s, int bi, int rank)
{
	Bar *b = bar_at(S, bi, rank);
	char name[128];
	bar_name_r(S, s, rank, name, sizeof name);
	if (!b->init) {
		FAIL(S, s->mbar_loc, "mbarrier.wait on %s before mbarrier.init", name);
		return;
	}
	if (!b->first) {
		FAIL(S, s->loc, "mbarrier.wait on %s waits for phase %lld, which nothing signals: it never completes", name,
		     (long long)b->phase);
		diag_note(S->cx, "a phase completes when its arrivals (mbarrier.expect_tx, mbarrier.arrive) reach the init "
		          "count and the TMA loads bring the bytes it expects");
		return;
	}
	if (b->ndeferred > 1) {
		FAIL(S, b->deferred->loc, "%s has %d mbarrier.expect_tx without a byte count in phase %lld: give the bytes", name,
		     b->ndeferred, (long long)b->phase);
		return;
	}
	if (b->ndeferred == 1) {
		const Stmt *d = b->deferred;
		int64_t need = b->loaded - b->expect, had;
		if (need < 0 || need > TX_LIMIT) {
			FAIL(S, d->loc, "mbarrier.expect_tx on %s would need %lld bytes (the loads of phase %lld bring %lld)", name,
			     (long long)need, (long long)b->phase, (long long)b->loaded);
			return;
		}
		if (expect_tx_bytes(S->cx, d, &had) && had != need) {
			FAIL(S, d->loc, "mbarrier.expect_tx on %s needs %lld bytes here but %lld in another iteration%s", name,
			     (long long)need, (long long)had, S->nranks > 1 ? " or CTA of the cluster" : "");
			diag_note(S->cx, "one statement expects one byte count: give it explicitly or split the statement");
			return;
		}
		expect_tx_set_bytes(S->cx, d, need);
		b->expect += need;
	}
	if (b->arrivals != b->count) {
		FAIL(S, s->loc, "mbarrier.wait on %s: phase %lld gets %lld arrivals, but the barrier's count is %lld", name,
		     (long long)b->phase, (long long)b->arrivals, (long long)b->count);
		diag_note(S->cx, b->arrivals < b->count ? "the phase never completes: the wait hangs"
		                                         : "an extra arrival completes the phase early or counts toward the "
		                                           "next one");
		return;
	}
	if (b->expect != b->loaded) {
		FAIL(S, s->loc, "mbarrier.wait on %s: phase %lld expects %lld transaction bytes but its TMA loads bring %lld",
		     name, (long long)b->phase, (long long)b->expect, (long long)b->loaded);
		diag_note(S->cx, b->expect > b->loaded ? "the phase never completes: the wait hangs"
		                                        : "the phase completes before every load has landed");
		return;
	}
	int parity = (int)(b->phase & 1);
	if (rank > 0) { /* every wait completes one phase on every CTA: the parities agree */
		b->phase++;
		b->arrivals = b->expect = b->loaded = 0;
		b->first = b->deferred = NULL;
		b->ndeferred = 0;
		b->lag = S->k->threads > 1 ? s : NULL;
		b->clag = s;
		return;
	}
	int want = wait_parity(S, s, parity);
	if (want != parity) {
		FAIL(S, s->loc, "the phase parity of %s at this wait is %d in this iteration, but %d follows from the earlier ones",
		     name, parity, want);
		diag_note(S->cx, "each iteration of a repeat must complete the same number of phases of a barrier");
		return;
	}
	if (s->has_value && s->n != parity) {
		FAIL(S, s->value_loc, "mbarrier.wait on %s names parity %lld, but the phase completing here (phase %lld) has "
		     "parity %d", name, (long long)s->n, (long long)b->phase, parity);
		diag_note(S->cx, "omit the parity and tilepx computes it");
		return;
	}
	b->phase++;
	b->arrivals = b->expect = b->loaded = 0;
	b->first = b->deferred = NULL;
	b->ndeferred = 0;
	b->lag = S->k->threads > 1 ? s : NULL;
	b->clag = S->nranks > 1 ? s : NULL;
}

static void sim_wait(Sim *S, const Stmt *s)
{
	int bi = bar_of(S, s);
	for (int r = 0; r < S->nranks && !S->failed; r++)
		sim_wait_rank(S, s, bi, r);
	if (S->failed)
		return;
	size_t k = 0;
	for (size_t i = 0; i < S->nloads; i++)
		if (S->loads[i].bar != bi)
			S->loads[k++] = S->loads[i];
	S->nloads = k;
}

/* arming the next phase while a thread may still wait for the last one: that
 * thread then waits for a parity that has come and gone, and hangs */
static bool lagging(Sim *S, Bar *b, const Stmt *s, const char *name)
{
	if (!b->lag)
		return false;
	FAIL(S, s->loc, "%s starts phase %lld of %s while threads may still wait for phase %lld at line %d",
	     stmt_info[s->kind].issue == AI_COPY ? "this TMA load" : stmt_info[s->kind].keyword, (long long)b->phase, name,
	     (long long)b->phase - 1, b->lag->loc.line);
	diag_note(S->cx, "a thread that has not yet seen phase %lld complete would wait for its parity forever: sync "
	          "after the mbarrier.wait", (long long)b->phase - 1);
	return true;
}

static void sim_event_rank(Sim *S, const Stmt *s, int bi, int rank)
{
	Bar *b = bar_at(S, bi, rank);
	char name[128];
	bar_name_r(S, s, rank, name, sizeof name);
	if (!b->init) {
		FAIL(S, s->mbar_loc, "%s signals %s before mbarrier.init", stmt_info[s->kind].keyword, name);
		return;
	}
	if (lagging(S, b, s, name))
		return;
	if (!b->first)
		b->first = s;
	if (stmt_info[s->kind].issue == AI_MBAR_TX) {
		b->arrivals++;
		if (s->has_value) {
			b->expect += s->n;
		} else {
			b->deferred = s;
			b->ndeferred++;
		}
	} else if (stmt_info[s->kind].issue == AI_MBAR_ARRIVE) {
		b->arrivals++;
	}
}

static void sim_event(Sim *S, const Stmt *s)
{
	int bi = bar_of(S, s);
	for (int r = 0; r < S->nranks && !S->failed; r++)
		sim_event_rank(S, s, bi, r);
}

/* a multicast load delivers into every CTA of its mask: their barriers must
 * be initialized and visible (cluster.sync after init), done with the last
 * phase (cluster.sync after the wait), and their shared memory no longer in
 * use by their threads (cluster.sync after the accesses) */
static bool mcast_ready(Sim *S, const Stmt *s, int bi, const Span *d)
{
	for (int r = 0; r < S->nranks; r++) {
		if (!(s->mcast >> r & 1))
			continue;
		Bar *b = bar_at(S, bi, r);
		char name[128];
		bar_name_r(S, s, r, name, sizeof name);
		if (b->init && !b->csync) {
			FAIL(S, s->mcast_loc, "this multicast signals %s, but no cluster.sync follows its mbarrier.init: the "
			     "peer CTA may not have initialized it yet", name);
			diag_note(S->cx, "mbarrier.init, then cluster.sync (or cluster.arrive ... cluster.wait), before the first "
			          "multicast load");
			return false;
		}
		if (b->clag) {
			FAIL(S, s->mcast_loc, "this multicast starts phase %lld of %s while that CTA may still wait for phase "
			     "%lld at line %d", (long long)b->phase, name, (long long)b->phase - 1, b->clag->loc.line);
			diag_note(S->cx, "the bytes would count toward the phase it is still waiting for: cluster.sync (or "
			          "cluster.arrive ... cluster.wait) after the mbarrier.wait");
			return false;
		}
	}
	const Span *o = overlap(S->ctouch, S->nctouch, d);
	if (o) {
		FAIL(S, s->dst->loc, "this multicast writes '%s' in the cluster's CTAs, which may still access it at line %d",
		     d->buf->name, o->s->loc.line);
		diag_note(S->cx, "a peer's multicast lands whenever the peer issues it: cluster.sync between the accesses and "
		          "the next multicast");
		return false;
	}
	return true;
}

/* a shared access that races with a cp.async in flight (a warning: cp.async
 * completion is the program's business, and the emulator shows the race) */
static void cpa_race(Sim *S, const Span *x, const Region *at, bool write)
{
	if (S->warned_cpa) /* checked first: the scan is linear in the copies in flight */
		return;
	const Span *o = overlap(S->cpa, S->ncpa, x);
	if (!o || o->s == x->s)
		return;
	S->warned_cpa = true;
	if (x->buf->mem == MEM_GLOBAL) { /* the copy's source: only a write races with its read */
		diag_warning(S->cx, at->loc, "writes '%s' while the cp.async at line %d may still be reading it",
		             x->buf->name, o->s->loc.line);
		diag_note(S->cx, "cp_async.wait must leave its group complete (and a sync must follow) before the source "
		          "is overwritten");
		return;
	}
	diag_warning(S->cx, at->loc, "%s '%s' while the cp.async at line %d into it may still be in flight",
	             write ? "writes" : "reads", x->buf->name, o->s->loc.line);
	diag_note(S->cx, o->group < 0 ? "its group is not committed: cp_async.commit, then cp_async.wait N (and sync) "
	                                "before touching the data"
	                              : "cp_async.wait must leave its group complete (and a sync must follow) before "
	                                "touching the data");
}

/* a shared access since the last cluster.sync (a loop's repeated spans once) */
static void touch(Sim *S, const Span *x)
{
	size_t from = S->nctouch > 8 ? S->nctouch - 8 : 0;
	if (S->carrive && from < S->ctouch_at) /* an access after a pending arrive is not one before it */
		from = S->ctouch_at;
	for (size_t i = from; i < S->nctouch; i++)
		if (S->ctouch[i].buf == x->buf && S->ctouch[i].lo == x->lo && S->ctouch[i].hi == x->hi)
			return;
	APUSH(S->cx->arena, S->ctouch, S->nctouch, S->ctouchcap, *x);
}

/* a copy's shared accesses against the TMA loads in flight into them and
 * the TMA stores still reading them; false after an error */
static bool copy_in_flight(Sim *S, const Stmt *s, const Span *r, const Span *d, bool rsh, bool dsh)
{
	if (rsh) { /* reading shared memory a load is still filling */
		const Span *o = overlap(S->loads, S->nloads, r);
		if (o) {
			S->failed = true;
			diag_error(S->cx, s->src->loc, "reads '%s' while the TMA load at line %d into it is in flight",
			           r->buf->name, o->s->loc.line);
			diag_note(S->cx, "wait on %s first (mbarrier.wait)", o->s->mbar_name);
			return false;
		}
	}
	if (dsh) { /* writing shared memory a load fills or a store still reads */
		const Span *o = overlap(S->loads, S->nloads, d);
		if (o && o->s != s) {
			S->failed = true;
			diag_error(S->cx, s->dst->loc, "writes '%s' while the TMA load at line %d into it is in flight",
			           d->buf->name, o->s->loc.line);
			if (s->mcast || o->s->mcast) {
				uint64_t both = d->ranks & o->ranks;
				int r = 0;
				while (!(both >> r & 1))
					r++;
				diag_note(S->cx, "both land in CTA rank %d (a multicast lands only in the CTAs of its mask)", r);
			}
			return false;
		}
		/* thread 0 waited for the reads: its own loads may refill at once, the others after a sync */
		int64_t upto = stmt_is_tma_load(s) ? S->read_upto : S->seen_upto;
		for (size_t i = 0; i < S->nstores; i++)
			if (S->stores[i].group < 0 || S->stores[i].group >= upto) {
				const Span *x = &S->stores[i];
				if (x->buf == d->buf && x->lo <= d->hi && d->lo <= x->hi) {
					S->failed = true;
					bool read = x->group >= 0 && x->group < S->read_upto;
					diag_error(S->cx, s->dst->loc, "writes '%s' while the TMA store at line %d %s",
					           d->buf->name, x->s->loc.line,
					           read ? "has read it in thread 0's view only" : "still reads it");
					diag_note(S->cx, read ? "bulk.wait_read retired the store's group in thread 0, which issued it: "
					                        "a sync after it tells the other threads"
					                      : "bulk.commit, then bulk.wait_read N (and sync) before reusing the buffer");
					return false;
				}
			}
	}
	return true;
}

/* a TMA load: it fills its barrier's phase (each masked CTA's for a
 * multicast) and is in flight until the wait */
static void sim_tma_load(Sim *S, const Stmt *s, const Span *dp)
{
	Span d = *dp;
	Span x = d;
	x.bar = bar_of(S, s);
	int64_t bytes = dtype_bytes(s->dst->buf->dt);
	for (int i = 0; i < s->src->buf->ndim; i++)
		bytes *= s->src->whole ? s->src->buf->shape[i] : s->src->ext[i];
	if (s->mcast && !mcast_ready(S, s, x.bar, &d))
		return;
	/* every CTA issues the copy: a plain load fills its own barrier, a
	 * multicast each masked CTA's, once per issuer */
	for (int rk = 0; rk < S->nranks; rk++) {
		if (s->mcast && !(s->mcast >> rk & 1))
			continue;
		Bar *b = bar_at(S, x.bar, rk);
		char name[128];
		bar_name_r(S, s, rk, name, sizeof name);
		if (!b->init) {
			FAIL(S, s->mbar_loc, "the TMA load signals %s before mbarrier.init", name);
			return;
		}
		if (lagging(S, b, s, name))
			return;
		if (!b->first)
			b->first = s;
		b->loaded += s->mcast ? bytes * S->nranks : bytes;
	}
	if (s->mcast)
		S->last_mc = s;
	APUSH(S->cx->arena, S->loads, S->nloads, S->loadcap, x);
}

static void sim_copy(Sim *S, const Stmt *s)
{
	bool load = stmt_is_tma_load(s), store = stmt_is_tma_store(s) || stmt_is_bulk_store(s);
	Span d = {0}, r = {0};
	bool dsh = s->dst->buf->mem == MEM_SHARED, rsh = s->src->buf->mem == MEM_SHARED;
	bool cpa_copy = stmt_info[s->kind].issue == AI_COPY && !load && !store;
	/* nothing to track or check: no TMA in the kernel, and no cp.async in flight
	 * (or already reported) unless this copy is one (keeps check linear and cheap) */
	if (!S->tma && (S->warned_cpa || (!S->ncpa && !cpa_copy)))
		return;
	if ((dsh && !region_span(S, s->dst, &d)) || (rsh && !region_span(S, s->src, &r)))
		return;
	d.s = r.s = s;
	if (load && s->mcast) /* it lands in the masked CTAs only: decided per CTA */
		d.ranks = (uint64_t)s->mcast;
	if (S->mc && !load) { /* accesses a peer's later multicast must not overtake */
		if (rsh)
			touch(S, &r);
		if (dsh)
			touch(S, &d);
	}
	if (rsh)
		cpa_race(S, &r, s->src, false);
	if (dsh)
		cpa_race(S, &d, s->dst, true);
	if (s->dst->buf->mem == MEM_GLOBAL && S->ncpa && !S->warned_cpa) {
		Span g;
		if (region_span(S, s->dst, &g)) {
			g.s = s;
			cpa_race(S, &g, s->dst, true);
		}
	}
	if (!copy_in_flight(S, s, &r, &d, rsh, dsh))
		return;
	if (cpa_copy && dsh && s->src->buf->mem == MEM_GLOBAL) {
		/* cp.async (ldgsts): a thread write like any other (checked against
		 * TMA loads and stores above), in flight until its group is waited for */
		if (S->tma) {
			Span w = d;
			w.bar = -1;
			APUSH(S->cx->arena, S->dirty, S->ndirty, S->dirtycap, w);
		}
		d.group = -1;
		Span g;
		if (!S->warned_cpa) {
			APUSH(S->cx->arena, S->cpa, S->ncpa, S->cpacap, d);
			if (region_span(S, s->src, &g)) { /* and its global source, until then */
				g.s = s;
				APUSH(S->cx->arena, S->cpa, S->ncpa, S->cpacap, g);
			}
		}
		return;
	}
	if (load) {
		sim_tma_load(S, s, &d);
	} else if (store) {
		for (size_t i = 0; i < S->ndirty; i++) {
			const Span *w = &S->dirty[i];
			if (w->buf == r.buf && w->lo <= r.hi && r.lo <= w->hi) {
				S->failed = true;
				diag_error(S->cx, s->src->loc, "the TMA store reads '%s', which threads wrote at line %d %s",
				           r.buf->name, w->s->loc.line,
				           w->bar < 0 ? "without a proxy fence" : "without a sync after the fence");
				diag_note(S->cx, "threads write through the generic proxy, TMA reads through the async proxy: "
				          "fence.proxy_async, then sync, then the store");
				return;
			}
		}
		APUSH(S->cx->arena, S->stores, S->nstores, S->storecap, r);
	} else if (dsh && S->tma) { /* thread writes: a later TMA store needs a fence and a sync */
		d.bar = -1;
		APUSH(S->cx->arena, S->dirty, S->ndirty, S->dirtycap, d);
	}
}

/* cluster.arrive: every thread of the cluster arrives (release); what came
 * before it is covered once the matching cluster.wait returns */
static void cl_arrive(Sim *S, const Stmt *s)
{
	if (S->carrive) {
		FAIL(S, s->loc, "%s while the cluster.arrive at line %d has not been waited for", stmt_info[s->kind].keyword,
		     S->carrive->loc.line);
		diag_note(S->cx, "each thread alternates cluster.arrive and cluster.wait");
		return;
	}
	S->carrive = s;
	for (int64_t i = 0; i < S->nbars_total * S->nranks; i++) {
		Bar *b = &S->bars[i];
		b->pend_csync = b->init;
		b->pend_clag = b->clag;
		b->pend_lag = b->lag;
	}
	S->ctouch_at = S->nctouch;
	S->mc_at = S->last_mc;
	for (size_t d = 0; d < S->ndirty; d++)
		if (S->dirty[d].bar == 0)
			S->dirty[d].bar = 1; /* fenced before the arrive */
}

/* cluster.wait: every thread of the cluster has arrived (acquire): barrier
 * inits, waits and accesses before the arrive are done in every CTA; it is
 * a sync of each CTA for them too */
static void cl_wait(Sim *S, const Stmt *s)
{
	if (!S->carrive) {
		FAIL(S, s->loc, "cluster.wait without a cluster.arrive before it");
		diag_note(S->cx, "cluster.wait completes the cluster barrier that the thread's last cluster.arrive joined");
		return;
	}
	for (int64_t i = 0; i < S->nbars_total * S->nranks; i++) {
		Bar *b = &S->bars[i];
		b->csync |= b->pend_csync;
		if (b->clag == b->pend_clag)
			b->clag = NULL;
		if (b->lag == b->pend_lag)
			b->lag = NULL;
	}
	if (S->ctouch_at) { /* the list is NULL while nothing was touched */
		memmove(S->ctouch, S->ctouch + S->ctouch_at, sizeof(Span) * (S->nctouch - S->ctouch_at));
		S->nctouch -= S->ctouch_at;
	}
	if (S->last_mc == S->mc_at)
		S->last_mc = NULL;
	size_t k = 0;
	for (size_t d = 0; d < S->ndirty; d++)
		if (S->dirty[d].bar != 1)
			S->dirty[k++] = S->dirty[d];
	S->ndirty = k;
	S->carrive = NULL;
}

static void sim_stmts(Sim *S, Stmt **body, size_t n);

/* ---- loops of runtime trip count: a proof for every count ----
 *
 * The state the phase proof tracks (barriers, loads and stores in flight,
 * unfenced writes, cp.async and bulk groups) is finite and the loop body
 * acts on it the same way in every trip, unless a shared region or barrier
 * index moves with the trip index. So the states at the loop head form a
 * lasso: once the head state after j trips equals the one after t < j, every
 * later trip repeats trips t..j-1 and every count >= j ends as a count
 * below j did. Running each count up to the first repeated head state
 * checks every count the facts allow, at a cost independent of the counts. */

static void sig_int(Str *o, int64_t v) { str_putn(o, (const char *)&v, sizeof v); }
static void sig_ptr(Str *o, const void *p) { str_putn(o, (const char *)&p, sizeof p); }

static bool same_span(const Span *a, const Span *b)
{
	return a->buf == b->buf && a->lo == b->lo && a->hi == b->hi && a->s == b->s && a->bar == b->bar &&
	       a->group == b->group && a->ranks == b->ranks;
}

static void sig_span(Str *o, const Span *x, int64_t group)
{
	sig_ptr(o, x->buf);
	sig_ptr(o, x->s);
	sig_int(o, x->lo);
	sig_int(o, x->hi);
	sig_int(o, x->bar);
	sig_int(o, group);
	sig_int(o, (int64_t)x->ranks);
}

/* a list's distinct spans (a repeated access adds nothing to what it checks) */
static void sig_spans(Str *o, const Span *list, size_t n)
{
	sig_int(o, -1);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same_span(&list[j], &list[i]);
		if (!seen)
			sig_span(o, &list[i], list[i].group);
	}
}

/* groups committed since: past the deepest wait's N, every count acts alike */
static int64_t clamp_rel(int64_t rel, int64_t cap) { return rel < cap ? rel : cap; }

/* the head state, with group counters relative to their progress and
 * phases as parities: equal strings mean equal futures */
static void head_sig(Sim *S, Str *o, int64_t j)
{
	sig_int(o, j);
	for (int64_t i = 0; i < S->nbars_total * S->nranks; i++) {
		const Bar *b = &S->bars[i];
		int64_t v[] = {b->init, b->count, b->arrivals, b->expect, b->loaded, b->phase & 1, b->ndeferred, b->csync,
		               b->pend_csync};
		for (size_t x = 0; x < sizeof v / sizeof *v; x++)
			sig_int(o, v[x]);
		const Stmt *p[] = {b->first, b->deferred, b->lag, b->clag, b->pend_clag, b->pend_lag};
		for (size_t x = 0; x < sizeof p / sizeof *p; x++)
			sig_ptr(o, p[x]);
	}
	sig_spans(o, S->loads, S->nloads);
	sig_spans(o, S->dirty, S->ndirty);
	sig_spans(o, S->ctouch, S->nctouch);
	sig_int(o, -2);
	for (size_t i = 0; i < S->nstores; i++) {
		const Span *x = &S->stores[i];
		bool read = x->group >= 0 && x->group < S->read_upto;
		if (read && x->group < S->written_upto)
			continue; /* done: read and written */
		bool seen = false; /* read, still writing: only that it is pending matters */
		for (size_t j = 0; j < i && read && !seen; j++)
			seen = S->stores[j].group >= 0 && S->stores[j].group < S->read_upto &&
			       S->stores[j].group >= S->written_upto && S->stores[j].buf == x->buf && S->stores[j].s == x->s &&
			       S->stores[j].lo == x->lo && S->stores[j].hi == x->hi && S->stores[j].ranks == x->ranks;
		if (!seen)
			sig_span(o, x, read ? -2 : x->group >= 0 ? clamp_rel(S->groups - x->group, S->bulk_cap) : -1);
	}
	sig_int(o, -3);
	for (size_t i = 0; i < S->ncpa; i++)
		sig_span(o, &S->cpa[i], S->cpa[i].group >= 0 ? clamp_rel(S->cpa_groups - S->cpa[i].group, S->cpa_cap) : -1);
	int64_t rel[] = {clamp_rel(S->groups - S->read_upto, S->bulk_cap),
	                 clamp_rel(S->groups - S->written_upto, S->bulk_cap), (int64_t)S->ctouch_at,
	                 S->warned_cpa, S->failed};
	for (size_t x = 0; x < sizeof rel / sizeof *rel; x++)
		sig_int(o, rel[x]);
	sig_ptr(o, S->last_mc);
	sig_ptr(o, S->carrive);
	sig_ptr(o, S->mc_at);
}

static bool affine_uses(const Affine *a, int var)
{
	for (int t = 0; a && t < a->n; t++)
		if (a->t[t].var == var)
			return true;
	return false;
}

static bool region_uses(const Region *r, int var)
{
	if (!r || r->whole || !r->buf || r->buf->mem != MEM_SHARED)
		return false;
	for (int d = 0; d < r->ndim; d++)
		if (affine_uses(&r->begin[d], var) || affine_uses(&r->end[d], var))
			return true;
	return false;
}

struct MovesCtx { int var; bool moves; };
static void moves_with(void *ctx, const Stmt *s)
{
	struct MovesCtx *m = ctx;
	m->moves |= affine_uses(s->mbar_idx, m->var) || region_uses(s->dst, m->var) || region_uses(s->src, m->var);
}

static TripClass *trip_class(Sim *S, const Stmt *s)
{
	for (int c = 0; c < S->ntc; c++)
		if (stmt_trips_same(S->tc[c].first, s))
			return &S->tc[c];
	return NULL;
}

static void sim_runtime_repeat(Walk *w, Sim *S, const Stmt *s)
{
	TripClass *c = trip_class(S, s);
	int64_t n = c->choice;
	struct MovesCtx mv = {s->var, false};
	stmt_walk(s->body, s->nbody, moves_with, &mv);
	Str *heads = arena_alloc(S->cx->arena, sizeof(Str) * (size_t)(n + 1));
	for (int64_t j = 0; !S->failed; j++) {
		Str *h = &heads[j];
		head_sig(S, h, mv.moves ? j : 0);
		for (int d = VAR_REPEAT0; d < S->k->nvars; d++) /* a stage index's value: part of the future */
			if (S->k->var_base[d] == s->var)
				sig_int(h, (j + S->k->var_off[d]) % S->k->var_mod[d]);
		for (int64_t t = 0; t < j; t++)
			if (heads[t].n == h->n && !memcmp(heads[t].s, h->s, h->n)) {
				if (j > c->need)
					c->need = j; /* counts >= j end as counts in [t, j) do */
				goto done;
			}
		if (j == n) {
			if (n + 2 > c->need)
				c->need = n + 2; /* no repeated head yet: the next count must run */
			break;
		}
		walk_trip(w, s, j);
	}
done:
	for (int64_t j = 0; j <= n; j++)
		str_free(&heads[j]);
	kernel_set_var(S->k, S->vals, s->var, 0);
}

/* a statement's effect on the simulation, from its columns in stmt.def;
 * false once a diagnostic is out */
static bool sim_stmt(Walk *w, const Stmt *s)
{
	Sim *S = w->ctx;
	const StmtInfo *si = &stmt_info[s->kind];
	if (si->flags & SF_COPY)
		sim_copy(S, s);
	switch (si->issue) {
	case AI_MBAR_INIT: {
		Bar *b = bar_at(S, bar_of(S, s), 0);
		if (b->init) {
			char name[96];
			bar_name(S, s, name, sizeof name);
			FAIL(S, s->loc, "%s is initialized twice", name);
			break;
		}
		for (int r = 0; r < S->nranks; r++) {
			b = bar_at(S, bar_of(S, s), r);
			b->init = true;
			b->count = s->n;
		}
		break;
	}
	case AI_MBAR_ARRIVE: case AI_MBAR_TX: sim_event(S, s); break;
	case AI_CPA_COMMIT:
		for (size_t c = 0; c < S->ncpa; c++)
			if (S->cpa[c].group < 0)
				S->cpa[c].group = S->cpa_groups;
		S->cpa_groups++;
		break;
	case AI_BULK_COMMIT:
		for (size_t t = 0; t < S->nstores; t++)
			if (S->stores[t].group < 0)
				S->stores[t].group = S->groups;
		S->groups++;
		break;
	default: break;
	}
	switch (si->wait) {
	case AW_MBAR: sim_wait(S, s); break;
	case AW_PROXY:
		for (size_t d = 0; d < S->ndirty; d++)
			S->dirty[d].bar = 0; /* fenced; a sync makes it visible to the issuing thread */
		break;
	case AW_CPA: {
		size_t k = 0;
		for (size_t c = 0; c < S->ncpa; c++)
			if (S->cpa[c].group < 0 || S->cpa[c].group >= S->cpa_groups - s->n)
				S->cpa[k++] = S->cpa[c];
		S->ncpa = k;
		break;
	}
	case AW_BULK: case AW_BULK_READ: {
		int64_t upto = S->groups - s->n > 0 ? S->groups - s->n : 0;
		if (upto > S->read_upto)
			S->read_upto = upto;
		if (si->wait == AW_BULK && upto > S->written_upto)
			S->written_upto = upto;
		break;
	}
	default: break;
	}
	if (S->failed)
		return false;
	if (si->cbar == BAR_SYNC || si->cbar == BAR_ARRIVE) /* cluster.sync: arrive, then wait */
		cl_arrive(S, s);
	if (!S->failed && (si->cbar == BAR_SYNC || si->cbar == BAR_WAIT))
		cl_wait(S, s);
	if (si->bar == BAR_SYNC) { /* a sync of the CTA (cluster.sync and mbarrier.init's bar.sync too) */
		S->seen_upto = S->read_upto;
		for (int64_t i = 0; i < S->nbars_total * S->nranks; i++)
			S->bars[i].lag = NULL;
		size_t k = 0;
		for (size_t d = 0; d < S->ndirty; d++)
			if (S->dirty[d].bar < 0)
				S->dirty[k++] = S->dirty[d];
		S->ndirty = k;
	}
	return !S->failed;
}

/* a repeat's trips: a runtime count of a counted class runs the class's
 * choice up to a repeated loop head (sim_runtime_repeat); another runtime
 * count (no barriers or bulk groups inside, check_repeat) two trips, which
 * show what one trip leaves for the next, or none (zero_trips) */
static int64_t sim_trips(Walk *w, const Stmt *s)
{
	Sim *S = w->ctx;
	if (S->ntc && stmt_runtime_trips(s) && s->nbody && trip_class(S, s)) {
		sim_runtime_repeat(w, S, s);
		return WALK_OWN;
	}
	if (stmt_runtime_trips(s) && S->zero_trips)
		return 0;
	return walk_trips_two(w, s);
}

static void sim_over(Walk *w, const Stmt *s)
{
	FAIL((Sim *)w->ctx, s->loc, "more than %d statement instances: too many to check the kernel's barrier phases",
	     SIM_LIMIT);
}

/* one run of the kernel's statements (walk.c walks them): each statement
 * instance, blocks included, costs one of SIM_LIMIT */
static void sim_stmts(Sim *S, Stmt **body, size_t n)
{
	int64_t budget = SIM_LIMIT;
	Walk w = {.k = S->k, .vals = S->vals, .budget = &budget, .ctx = S, .stmt = sim_stmt, .trips = sim_trips,
	          .over = sim_over};
	walk_stmts(&w, body, n);
}

static void has_copy_async(void *ctx, const Stmt *s) { *(bool *)ctx |= stmt_info[s->kind].issue == AI_COPY; }
static void first_runtime_repeat(void *ctx, const Stmt *s)
{
	if ((stmt_info[s->kind].flags & SF_BLOCK) && s->trips_scalar && !*(const Stmt **)ctx) /* named by its scalar */
		*(const Stmt **)ctx = s;
}
static void has_mcast(void *ctx, const Stmt *s) { *(bool *)ctx |= stmt_info[s->kind].issue == AI_COPY && s->mcast; }
static void has_cluster_barrier(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= stmt_info[s->kind].cbar != BAR_NONE;
}

/* what must hold when the kernel ends: nothing in flight */
static bool end_checks(Sim *S)
{
	Ctx *cx = S->cx;
	if (S->last_mc) {
		diag_error(cx, S->last_mc->loc, "no cluster.sync follows this multicast load before the kernel ends");
		diag_note(cx, "a CTA must not exit while the cluster's multicasts may still write into its peers' shared "
		          "memory: cluster.sync before the end");
		return false;
	}
	for (int64_t i = 0; i < S->nbars_total * S->nranks; i++)
		if (S->bars[i].first) {
			const Stmt *f = S->bars[i].first;
			diag_error(cx, f->loc, "%s signals %s, but no mbarrier.wait follows: the CTA may exit with it in flight",
			           stmt_info[f->kind].keyword, f->mbar_name);
			return false;
		}
	for (size_t t = 0; t < S->nstores; t++) {
		if (S->stores[t].group < 0) {
			diag_error(cx, S->stores[t].s->loc, "this TMA store is never committed: bulk.commit, then bulk.wait 0 "
			           "before the kernel ends");
			return false;
		}
		if (S->stores[t].group >= S->written_upto) {
			diag_error(cx, S->stores[t].s->loc, "the kernel may end before this TMA store has written global memory");
			diag_note(cx, "bulk.wait 0 after the last bulk.commit (bulk.wait_read only frees the shared source)");
			return false;
		}
	}
	return true;
}

static void cpa_end_warning(Sim *S)
{
	if (S->ncpa && !S->warned_cpa) {
		const Span *c = &S->cpa[0];
		diag_warning(S->cx, c->s->loc, "this cp.async is %s before the kernel ends",
		             c->group < 0 ? "never committed, nor waited for" : "never waited for");
		diag_note(S->cx, "cp_async.commit, then cp_async.wait 0: a CTA that exits with copies in flight loses them");
		S->warned_cpa = true;
	}
}

/* statements whose completion the phase proof counts */
static void has_counted(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= s->mbar > 0 || s->kind == ST_BULK_COMMIT || s->kind == ST_BULK_WAIT ||
	                s->kind == ST_BULK_WAIT_READ || stmt_is_tma_store(s) || stmt_is_bulk_store(s);
}

static void wait_depths(void *ctx, const Stmt *s)
{
	Sim *S = ctx;
	if ((s->kind == ST_BULK_WAIT || s->kind == ST_BULK_WAIT_READ) && s->n + 1 > S->bulk_cap)
		S->bulk_cap = s->n + 1;
	if (s->kind == ST_CPA_WAIT && s->n + 1 > S->cpa_cap)
		S->cpa_cap = s->n + 1;
}

/* runtime repeats whose body holds statements the phase proof counts */
static void find_counted_loop(void *ctx, const Stmt *s)
{
	Sim *S = ctx;
	if (s->kind != ST_REPEAT || !stmt_runtime_trips(s) || trip_class(S, s) || S->failed)
		return;
	bool counted = false;
	stmt_walk(s->body, s->nbody, has_counted, &counted);
	if (!counted)
		return;
	int64_t lo = s->trips_lo, hi = s->n;
	if (s->trips_scalar) {
		const Scalar *sc = &S->k->scalars[s->trips_scalar - 1];
		lo = sc->lo > 0 ? (sc->lo + s->trips_div - 1) / s->trips_div : 0;
		hi = sc->hi > 0 ? (sc->hi + s->trips_div - 1) / s->trips_div : 0;
	} else if (trip_expr_uses_index(S->k, s->trips_expr)) {
		FAIL(S, s->loc, "this repeat's count changes with an enclosing repeat's index: the barrier phase proof of a "
		     "kernel without roles takes a count per CTA (not yet one per trip)");
		return;
	}
	TripClass c = {s->trips_scalar, s->trips_div, lo, hi, lo, lo + 1, s};
	size_t n = (size_t)S->ntc, cap = n;
	APUSH(S->cx->arena, S->tc, n, cap, c);
	S->ntc = (int)n;
}

/* one simulation of the kernel; false once a diagnostic is out */
static bool sim_run(Sim *S, bool *cpa_warned)
{
	Kernel *k = S->k;
	int64_t total = S->nbars_total;
	S->bars = arena_alloc(S->cx->arena, sizeof(Bar) * (size_t)(total * S->nranks + 1));
	S->vals = arena_alloc(S->cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	sim_stmts(S, k->body, k->nbody);
	if (S->failed)
		return false;
	if (!*cpa_warned) {
		cpa_end_warning(S);
		*cpa_warned = S->warned_cpa;
	}
	return end_checks(S);
}

/* the runtime-loop mode: every class of trip count runs each of its counts
 * up to the first repeated loop head (see sim_runtime_repeat), in every
 * combination with the other classes, until a whole round learns nothing */
static bool sim_counts(Sim *proto)
{
	Sim *S = NULL;
	bool cpa_warned = false;
	int64_t runs = 0;
	for (bool again = true; again;) {
		again = false;
		for (int c = 0; c < proto->ntc; c++)
			proto->tc[c].choice = proto->tc[c].lo;
		for (;;) {
			int64_t before = 0;
			for (int c = 0; c < proto->ntc; c++)
				before += proto->tc[c].need;
			S = arena_alloc(proto->cx->arena, sizeof *S);
			*S = *proto;
			S->warned_cpa = cpa_warned;
			if (++runs > 4096) {
				diag_error(proto->cx, proto->tc[0].first->loc, "more than 4096 combinations of trip counts to prove "
				           "the kernel's barrier phases for");
				return false;
			}
			if (!sim_run(S, &cpa_warned)) {
				for (int c = 0; c < proto->ntc; c++) {
					const TripClass *t = &proto->tc[c];
					if (!t->scalar) {
						diag_note(proto->cx, "when the repeat at line %d runs %lld trip%s", t->first->loc.line,
						          (long long)t->choice, t->choice == 1 ? "" : "s");
						continue;
					}
					const Scalar *sc = &proto->k->scalars[t->scalar - 1];
					int64_t v = t->choice * t->div; /* a launch value that gives this count */
					if (v > sc->hi)
						v = sc->hi;
					diag_note(proto->cx, "when the repeat at line %d runs %lld trip%s (%s = %lld, say)",
					          t->first->loc.line, (long long)t->choice, t->choice == 1 ? "" : "s", sc->name,
					          (long long)v);
				}
				return false;
			}
			int64_t after = 0;
			for (int c = 0; c < proto->ntc; c++)
				after += proto->tc[c].need;
			again |= after != before;
			int c = proto->ntc - 1; /* the next combination: an odometer over [lo, min(hi, need - 1)] */
			for (; c >= 0; c--) {
				TripClass *t = &proto->tc[c];
				if (t->choice + 1 <= t->hi && t->choice + 1 < t->need) {
					t->choice++;
					break;
				}
				t->choice = t->lo;
			}
			if (c < 0)
				break;
		}
	}
	/* parities of the barriers no runtime loop touches: every run fits them alike */
	proto->fits = S->fits;
	proto->nfits = S->nfits;
	return true;
}

void check_mbar_phases(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	bool any = k->nmbars > 0, cpa = false;
	for (size_t i = 0; i < k->nbufs; i++)
		any |= k->bufs[i]->tma;
	stmt_walk(k->body, k->nbody, has_counted, &any); /* bulk stores and groups need neither */
	stmt_walk(k->body, k->nbody, has_copy_async, &cpa);
	bool cl = false; /* cluster.arrive and cluster.wait must alternate */
	stmt_walk(k->body, k->nbody, has_cluster_barrier, &cl);
	if (!any && !cl && !(cpa && !k->is_func)) /* a func's caller waits for its cp.async groups */
		return;
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->tma && !k->bufs[i]->tma_used) {
			diag_error(cx, k->bufs[i]->tma_loc, "'%s' has a tensor map, but no TMA copy uses it", k->bufs[i]->name);
			diag_note(cx, "a TMA copy: 'cta copy_async SHARED[...], %s[...] mbarrier BAR[i]' (load) or "
			          "'cta copy_async %s[...], SHARED[...]' (store)", k->bufs[i]->name, k->bufs[i]->name);
			return;
		}
	for (size_t i = 0; i < k->nmbars; i++)
		if (mbar_run_time_phase(cx, &k->mbars[i]) && k->mbars[i].n > 32) {
			diag_error(cx, k->mbars[i].loc, "mbarrier '%s' has %lld barriers; a runtime-count repeat may use arrays "
			           "of at most 32", k->mbars[i].name, (long long)k->mbars[i].n);
			diag_note(cx, "their phase parities live in one 32-bit register of phase bits");
			return;
		}
	Sim S = {.cx = cx, .k = k, .tma = any, .nranks = (int)kernel_cluster_size(k)};
	stmt_walk(k->body, k->nbody, has_mcast, &S.mc);
	int64_t total = 0;
	S.base = arena_alloc(cx->arena, sizeof(int64_t) * (k->nmbars + 1));
	for (size_t i = 0; i < k->nmbars; i++) {
		S.base[i] = total;
		total += k->mbars[i].n;
	}
	S.nbars_total = total;
	stmt_walk(k->body, k->nbody, find_counted_loop, &S);
	if (S.failed)
		return;
	stmt_walk(k->body, k->nbody, wait_depths, &S);
	if (S.ntc) {
		if (!sim_counts(&S))
			return;
	} else {
		bool cpa_warned = false;
		S.bars = arena_alloc(cx->arena, sizeof(Bar) * (size_t)(total * S.nranks + 1));
		S.vals = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
		sim_stmts(&S, k->body, k->nbody);
		if (S.failed)
			return;
		cpa_end_warning(&S);
		cpa_warned = S.warned_cpa;
		const Stmt *rt = NULL;
		stmt_walk(k->body, k->nbody, first_runtime_repeat, &rt);
		if (rt && cpa && !k->is_func && !any && !cl && !S.ncpa && !cpa_warned) {
			/* a runtime trip count may be 0: the loops' waits may not run (the
			 * two-trip run above shows what one trip leaves for the next) */
			Sim Z = {.cx = cx, .k = k, .nranks = S.nranks, .zero_trips = true, .base = S.base};
			Z.bars = arena_alloc(cx->arena, sizeof(Bar) * (size_t)(total * S.nranks + 1));
			Z.nbars_total = total;
			Z.vals = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
			sim_stmts(&Z, k->body, k->nbody);
			if (!Z.failed && Z.ncpa && !Z.warned_cpa) {
				const Span *c = &Z.cpa[0];
				diag_warning(cx, c->s->loc, "this cp.async is %s before the kernel ends",
				             c->group < 0 ? "never committed, nor waited for" : "never waited for");
				Z.warned_cpa = true;
			}
			if (Z.warned_cpa)
				diag_note(cx, "when the repeat at line %d runs no trip (its count %s is 0 at launch): wait outside "
				          "the loop too", rt->loc.line, k->scalars[rt->trips_scalar - 1].name);
			return;
		}
		if (!end_checks(&S))
			return;
	}
	for (size_t f = 0; f < S.nfits; f++) {
		if (S.fits[f].s->mbar > 0 && mbar_run_time_phase(cx, &k->mbars[S.fits[f].s->mbar - 1]))
			continue; /* tracked at run time */
		Affine *a = arena_alloc(cx->arena, sizeof *a);
		a->c = S.fits[f].c;
		for (int v = VAR_REPEAT0; v < k->nvars; v++)
			if (S.fits[f].k[v] && a->n < MAX_TERMS)
				a->t[a->n++].var = v, a->t[a->n - 1].k = 1;
		stmtmap_put(cx->arena, &cx->parity, S.fits[f].s, a); /* the wait's parity, beside it */
	}
}
