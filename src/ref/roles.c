/* Warp roles in the reference: a kernel with when blocks runs as roles:
 * the warps that run the same blocks form a role, and each role is a coroutine (a cursor of walk.c) that
 * runs until it blocks, then the next role runs; deterministic. What blocks
 * is this file's own model of the barriers (never src/proof/'s):
 * an mbarrier phase completes when its arrivals reach the init count and
 * its transaction bytes (expect_tx) have arrived; a named barrier releases
 * when its count of threads has arrived. Data moves at issue (a TMA load
 * lands when issued; the race proof and the emulator cover the timing). */
#include "../tilepx.h"
#include "../walk.h"
#include "ref.h"

#include <stdlib.h>
#include <string.h>

enum { NBARS = 16 };

typedef struct RefMbar {
	int64_t count, pending, tx; /* init count, arrivals still missing, bytes expected minus arrived */
	int64_t phase;              /* phases completed */
	bool live;                  /* initialized */
} RefMbar;

typedef struct RefNbar {
	int64_t arrived, gen; /* threads arrived; releases so far */
} RefNbar;

typedef struct Role {
	RefCta *c;
	uint64_t warps;
	int64_t *vars;  /* its own indices (repeats run per role) */
	int64_t *waits; /* per mbarrier instance of its CTA: the phases it has waited for */
	Walk w;         /* its walk of the kernel (walk.c), a cursor: the scheduler steps it */
	WalkCursor cur;
	const Stmt *at; /* the statement it stands on (NULL: the next one is the cursor's) */
	bool arrived;   /* it has arrived at the barrier of the statement it stands on */
	int64_t gen;    /* ... in that barrier's generation gen */
	bool cl_arrived;
	int64_t cl_gen; /* cluster.arrive: the cluster barrier's generation it arrived in */
	bool done;
} Role;

typedef struct Sched {
	Ctx *cx;
	const Kernel *k;
	RefCta *cl;
	int nranks;
	Role *roles;
	int nroles;
	int64_t nmb, *mb_base; /* mbarrier instances per CTA; the first of each declaration */
	RefMbar *mb;           /* [rank * nmb + instance] */
	RefNbar *nb;           /* [rank * NBARS + id], id 0 is sync */
	RefNbar cluster;
} Sched;

static int popcount64(uint64_t v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static int lowest_warp(uint64_t v)
{
	int w = 0;
	while (w < 63 && !(v >> w & 1))
		w++;
	return w;
}

bool ref_has_when(Stmt *const *body, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (body[i]->kind == ST_WHEN || body[i]->bar_id || ref_has_when(body[i]->body, body[i]->nbody))
			return true;
	return false;
}

/* the roles: the classes of warps that run the same when blocks, split by
 * every block's warps (sets of at most 64 warps) */
static void split_roles(Stmt *const *body, size_t n, uint64_t *cls, int *ncls)
{
	for (size_t i = 0; i < n; i++) {
		for (int g = 0; g < 16 && (body[i]->kind == ST_WHEN || body[i]->bar_id); g++) {
			/* a named barrier id from wgid: each warpgroup meets at its own */
			uint64_t in = body[i]->bar_id ? body[i]->warps & (uint64_t)0xf << (4 * g) : body[i]->body_warps;
			for (int j = 0, m = *ncls; j < m && in; j++)
				if ((cls[j] & in) && (cls[j] & ~in)) {
					cls[(*ncls)++] = cls[j] & ~in;
					cls[j] &= in;
				}
			if (!body[i]->bar_id)
				break;
		}
		split_roles(body[i]->body, body[i]->nbody, cls, ncls);
	}
}

static uint64_t all_warps(const Kernel *k)
{
	int64_t w = (k->threads + 31) / 32;
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* the warps that reach the role's current statement: every warp, narrowed
 * by each when block it stands in */
static uint64_t reach_of(const Sched *S, const Role *r)
{
	uint64_t m = all_warps(S->k);
	for (int d = 0; d < r->cur.depth; d++)
		if (r->cur.f[d].blk && r->cur.f[d].blk->kind == ST_WHEN)
			m &= r->cur.f[d].blk->body_warps;
	return m;
}

/* a role's walk: its own trips, and the when blocks that its warps run */
static bool role_trip(Walk *w, const Stmt *s, int64_t it)
{
	ref_trip_begin(w->k, w->vals, s, it);
	return true;
}

static void role_trip_end(Walk *w, const Stmt *s, int64_t it)
{
	(void)it;
	ref_trip_end(w->vals, s);
}

static bool role_when(Walk *w, const Stmt *s) { return ((Role *)w->ctx)->warps & s->body_warps; }

static RefMbar *mbar_of(Sched *S, const Role *r, const Stmt *s, int rank)
{
	int64_t i = ref_eval(s->mbar_idx, r->vars);
	if (s->mbar < 1 || i < 0 || i >= S->k->mbars[s->mbar - 1].n) { /* check proves the index in range */
		diag_error(S->cx, s->mbar_loc, "mbarrier index %lld out of range", (long long)i);
		return NULL;
	}
	return &S->mb[rank * S->nmb + S->mb_base[s->mbar - 1] + i];
}

/* one arrival; a phase completes when no arrival is missing and every
 * expected byte has arrived, and the next one starts at the init count */
static bool mbar_settle(Sched *S, RefMbar *b, const Stmt *s)
{
	if (b->pending < 0) {
		diag_error(S->cx, s->loc, "more arrivals than the mbarrier's count %lld in its phase %lld",
		           (long long)b->count, (long long)b->phase);
		diag_note(S->cx, "in the reference's schedule of kernel '%s' (roles run until they block)", S->k->name);
		return false;
	}
	if (b->pending == 0 && b->tx == 0) {
		b->phase++;
		b->pending = b->count;
	}
	return true;
}

static bool mbar_arrive(Sched *S, RefMbar *b, const Stmt *s, int64_t arrivals)
{
	if (!b->live) {
		diag_error(S->cx, s->loc, "%s on mbarrier '%s' before its mbarrier.init", ref_keyword[s->kind],
		           s->mbar_name);
		return false;
	}
	for (int64_t a = 0; a < arrivals; a++) {
		b->pending--;
		if (!mbar_settle(S, b, s))
			return false;
	}
	return true;
}

/* a barrier of `count` threads: the role's threads arrive (once), and with
 * `sync` it waits for the release. 1: past it, 0: blocked, -1: error */
static int role_bar(Sched *S, Role *r, const Stmt *s, RefNbar *b, int64_t count, bool sync)
{
	if (!r->arrived) {
		b->arrived += 32 * popcount64(r->warps);
		if (b->arrived > count) {
			diag_error(S->cx, s->loc, "%lld threads arrive at a barrier of %lld", (long long)b->arrived,
			           (long long)count);
			diag_note(S->cx, "in the reference's schedule of kernel '%s' (roles run until they block)", S->k->name);
			return -1;
		}
		r->gen = b->gen;
		if (b->arrived == count) {
			b->gen++;
			b->arrived = 0;
		}
		if (!sync)
			return 1;
		r->arrived = true;
	}
	if (b->gen == r->gen)
		return 0;
	r->arrived = false;
	return 1;
}

/* mbarrier.arrive: one arrival, or one per thread, warp or warpgroup of the role */
static int role_mbar_arrive(Sched *S, Role *r, const Stmt *s, int rank, bool lead)
{
	RefMbar *b = mbar_of(S, r, s, rank);
	if (!b)
		return -1;
	int64_t n = lead;
	if (s->per == SC_THREAD)
		n = 32 * popcount64(r->warps);
	else if (s->per == SC_WARP)
		n = popcount64(r->warps);
	else if (s->per == SC_WARPGROUP) /* the first thread of each warpgroup: the role of its first warp */
		for (int w = n = 0; w < 64; w += 4)
			n += (r->warps >> w & 1) != 0;
	if (!s->to_cluster)
		return mbar_arrive(S, b, s, n) ? 1 : -1;
	for (int d = 0; d < S->nranks; d++) /* the barrier in every CTA of the cluster */
		if (!mbar_arrive(S, mbar_of(S, r, s, d), s, n))
			return -1;
	return 1;
}

/* mbarrier.wait: the phase numbered by the role's own count of waits (or a parity) */
static int role_mbar_wait(Sched *S, Role *r, const Stmt *s, int rank)
{
	const Kernel *k = S->k;
	RefMbar *b = mbar_of(S, r, s, rank);
	if (!b)
		return -1;
	int64_t *w = &r->waits[b - &S->mb[rank * S->nmb]];
	if (!b->live) {
		diag_error(S->cx, s->loc, "mbarrier.wait on '%s' before its mbarrier.init", s->mbar_name);
		return -1;
	}
	bool passed = s->has_value ? (b->phase & 1) != (s->n & 1) : b->phase > *w;
	if (!passed)
		return 0;
	if (!s->has_value && b->phase > *w + 1) { /* the parity of phase w is that of phase w + 2 */
		diag_error(S->cx, s->loc, "this wait is for phase %lld of mbarrier '%s', but phase %lld has completed "
		           "too: a parity wait cannot tell them apart", (long long)*w, s->mbar_name,
		           (long long)(b->phase - 1));
		diag_note(S->cx, "in the reference's schedule of kernel '%s' (roles run until they block)", k->name);
		return -1;
	}
	++*w;
	return 1;
}

/* a copy: the data moves when issued; a TMA load's bytes complete its barriers */
static int role_copy(Sched *S, Role *r, const Stmt *s, int rank, bool lead)
{
	RefCta *c = r->c;
	/* a cta copy is the CTA's once (TMA: one thread issues it); a smaller
	 * scope runs in the role's own instances */
	if (s->scope == SC_CTA && !lead)
		return 1;
	if (s->scope == SC_CTA)
		c->warps = ~(uint64_t)0;
	if (!ref_copy(S->cx, c, s))
		return -1;
	if (!s->mbar) /* no transaction bytes */
		return 1;
	int64_t bytes = ref_region_elems(s->src) * dtype_bytes(s->src->buf->dt);
	for (int d = 0; d < S->nranks; d++)
		if (s->mcast ? s->mcast >> d & 1 : d == rank) {
			RefMbar *b = mbar_of(S, r, s, d);
			if (!b)
				return -1;
			if (!b->live) {
				diag_error(S->cx, s->mbar_loc, "a TMA load completes on mbarrier '%s' before its mbarrier.init",
				           s->mbar_name);
				return -1;
			}
			b->tx -= bytes;
			if (!mbar_settle(S, b, s))
				return -1;
		}
	return 1;
}

/* the role's next statement: 1 done, 0 blocked (it stays), -1 error */
static int role_stmt(Sched *S, Role *r, const Stmt *s)
{
	const Kernel *k = S->k;
	RefCta *c = r->c;
	int rank = (int)(c - S->cl);
	uint64_t reach = reach_of(S, r);
	/* a one-thread statement takes effect once: in the role of the first warp that reaches it */
	bool lead = r->warps >> lowest_warp(reach) & 1;
	c->vars = r->vars;
	c->warps = r->warps;
	switch (s->kind) {
	case ST_SYNC:
		return role_bar(S, r, s, &S->nb[rank * NBARS], k->threads, true);
	case ST_MBAR_INIT:
		if (!r->arrived && lead) {
			RefMbar *b = mbar_of(S, r, s, rank);
			if (!b)
				return -1;
			*b = (RefMbar){.count = s->n, .pending = s->n, .live = true};
		}
		return role_bar(S, r, s, &S->nb[rank * NBARS], k->threads, true); /* it ends with bar.sync 0 */
	case ST_NBAR_SYNC: case ST_NBAR_ARRIVE: {
		int64_t id = s->n; /* an id from wgid: the role's warpgroup's (roles split by it) */
		for (int i = 0; s->bar_id && i < s->bar_id->n; i++)
			id = (i ? id : s->bar_id->c) + s->bar_id->t[i].k * (lowest_warp(r->warps) / 4);
		if (id < 1 || id >= NBARS)
			return -1;
		return role_bar(S, r, s, &S->nb[rank * NBARS + id], s->has_count ? s->count : 32 * popcount64(reach),
		                s->kind == ST_NBAR_SYNC);
	}
	case ST_CLUSTER_SYNC:
		return role_bar(S, r, s, &S->cluster, k->threads * S->nranks, true);
	case ST_CLUSTER_ARRIVE:
		if (role_bar(S, r, s, &S->cluster, k->threads * S->nranks, false) < 0)
			return -1;
		r->cl_arrived = true;
		r->cl_gen = r->gen;
		return 1;
	case ST_CLUSTER_WAIT:
		if (!r->cl_arrived) {
			diag_error(S->cx, s->loc, "cluster.wait without a cluster.arrive before it");
			return -1;
		}
		if (S->cluster.gen == r->cl_gen)
			return 0;
		r->cl_arrived = false;
		return 1;
	case ST_MBAR_EXPECT_TX: {
		if (!lead)
			return 1;
		RefMbar *b = mbar_of(S, r, s, rank);
		if (!b)
			return -1;
		int64_t bytes = 0; /* without an operand: the async pass's count */
		expect_tx_bytes(S->cx, s, &bytes);
		b->tx += bytes;
		return mbar_arrive(S, b, s, 1) ? 1 : -1;
	}
	case ST_MBAR_ARRIVE:
		return role_mbar_arrive(S, r, s, rank, lead);
	case ST_MBAR_WAIT:
		return role_mbar_wait(S, r, s, rank);
	case ST_MBAR_SKIP: { /* the role's next wait on it is for the phase after */
		RefMbar *b = mbar_of(S, r, s, rank);
		if (!b)
			return -1;
		r->waits[b - &S->mb[rank * S->nmb]]++;
		return 1;
	}
	case ST_COPY: case ST_COPY_ASYNC:
		return role_copy(S, r, s, rank, lead);
	default: {
		RefHook h = ref_hook[s->kind];
		return !h || h(S->cx, c, s) ? 1 : -1;
	}
	}
}

/* runs role r until it blocks or ends: 1 it moved (a statement, block
 * statements included, ran), 0 it did not, -1 error. A statement that
 * blocks stays the role's (r->at) until it passes. */
static int role_run(Sched *S, Role *r)
{
	int moved = 0;
	for (;;) {
		if (!r->at) {
			int64_t steps = r->w.steps;
			r->at = walk_next(&r->cur);
			if (!r->at) {
				if (r->w.stop) /* blocks nested deeper than the parser allows */
					return -1;
				r->done = true;
				return 1;
			}
			moved |= r->w.steps - steps > 1; /* it entered or passed a block on the way */
		}
		int st = role_stmt(S, r, r->at);
		if (st <= 0)
			return st < 0 ? -1 : moved;
		r->at = NULL;
		moved = 1;
	}
}

static void hang_note(Sched *S, const Role *r)
{
	const Stmt *s = r->at;
	int rank = (int)(r->c - S->cl), lo = lowest_warp(r->warps), hi = 63;
	while (hi > 0 && !(r->warps >> hi & 1))
		hi--;
	if (popcount64(r->warps) != hi - lo + 1) /* not a range: the set's first and last warp, and its mask */
		diag_note(S->cx, "the role below is the warps of mask 0x%llx", (unsigned long long)r->warps);
	if (s->kind == ST_MBAR_WAIT) {
		const RefMbar *b = mbar_of(S, r, s, rank);
		int64_t i = ref_eval(s->mbar_idx, r->vars);
		diag_note(S->cx, "warps %d..%d of CTA %lld wait at line %d: mbarrier.wait %s[%lld] for its phase %lld (%lld "
		          "completed; the current one misses %lld arrivals, and %lld transaction bytes %s)", lo, hi,
		          (long long)r->c->cta, s->loc.line, s->mbar_name, (long long)i,
		          (long long)r->waits[b - &S->mb[rank * S->nmb]], (long long)b->phase, (long long)b->pending,
		          (long long)(b->tx < 0 ? -b->tx : b->tx),
		          b->tx < 0 ? "arrived beyond its expect_tx" : "are still expected");
	} else {
		diag_note(S->cx, "warps %d..%d of CTA %lld wait at line %d: %s", lo, hi, (long long)r->c->cta, s->loc.line,
		          ref_keyword[s->kind]);
	}
}

/* one cluster of a kernel with roles; false (with a located error) on a
 * hang, a barrier misuse or a statement that fails */
bool ref_run_roles(Ctx *cx, RefCta *cl, int nranks)
{
	const Kernel *k = cl[0].k;
	uint64_t cls[64] = {all_warps(k)};
	int ncls = 1;
	split_roles(k->body, k->nbody, cls, &ncls);
	for (int a = 0; a < ncls; a++) /* by first warp */
		for (int b = a + 1; b < ncls; b++)
			if (lowest_warp(cls[b]) < lowest_warp(cls[a])) {
				uint64_t t = cls[a];
				cls[a] = cls[b];
				cls[b] = t;
			}
	Sched S = {.cx = cx, .k = k, .cl = cl, .nranks = nranks, .nroles = ncls * nranks};
	S.mb_base = calloc(k->nmbars + 1, sizeof(int64_t));
	for (size_t i = 0; i < k->nmbars; i++) {
		S.mb_base[i] = S.nmb;
		S.nmb += k->mbars[i].n;
	}
	S.mb = calloc((size_t)(S.nmb * nranks) + 1, sizeof(RefMbar));
	S.nb = calloc((size_t)(NBARS * nranks), sizeof(RefNbar));
	S.roles = calloc((size_t)S.nroles, sizeof(Role));
	int64_t **own = calloc((size_t)nranks, sizeof(int64_t *));
	for (int rk = 0; rk < nranks; rk++)
		own[rk] = cl[rk].vars;
	for (int i = 0; i < S.nroles; i++) {
		Role *r = &S.roles[i];
		r->c = &cl[i / ncls];
		r->warps = cls[i % ncls];
		r->vars = calloc((size_t)k->nvars + 1, sizeof(int64_t));
		memcpy(r->vars, own[i / ncls], sizeof(int64_t) * ((size_t)k->nvars + 1));
		r->waits = calloc((size_t)S.nmb + 1, sizeof(int64_t));
		r->w = (Walk){.k = k, .vals = r->vars, .ctx = r, .trips = ref_trips, .trip = role_trip,
		              .trip_end = role_trip_end, .when = role_when};
		walk_begin(&r->cur, &r->w, k->body, k->nbody);
	}
	bool ok = true;
	for (;;) {
		bool all_done = true, moved = false;
		for (int i = 0; i < S.nroles && ok; i++) {
			Role *r = &S.roles[i];
			if (r->done)
				continue;
			int st = role_run(&S, r);
			ok = st >= 0;
			moved |= st > 0;
			all_done &= r->done;
		}
		if (!ok || all_done)
			break;
		if (!moved) { /* every role that has not ended waits: the program hangs */
			const Role *first = NULL;
			for (int i = 0; i < S.nroles && !first; i++)
				if (!S.roles[i].done)
					first = &S.roles[i];
			diag_error(cx, first->at->loc, "kernel '%s' hangs: every role that has not ended waits", k->name);
			for (int i = 0; i < S.nroles; i++)
				if (!S.roles[i].done)
					hang_note(&S, &S.roles[i]);
			diag_note(cx, "the CPU reference runs each role until it blocks, then the next");
			ok = false;
			break;
		}
	}
	for (int i = 0; i < S.nroles; i++) {
		free(S.roles[i].vars);
		free(S.roles[i].waits);
	}
	for (int rk = 0; rk < nranks; rk++) {
		cl[rk].vars = own[rk];
		cl[rk].warps = ~(uint64_t)0;
	}
	free(own);
	free(S.roles);
	free(S.mb);
	free(S.nb);
	free(S.mb_base);
	return ok;
}
