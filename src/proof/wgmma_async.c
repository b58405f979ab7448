/* The wgmma async proofs (check_wgmma_async: the asynchronous rules of
 * docs/language.md). One execution of the statements of one wgmma issuer, loops unrolled (a
 * runtime count: two trips, and its fewest when the facts allow fewer),
 * regions widened over the warps that run each statement and over CTA
 * indices. Without roles every warpgroup runs every statement: one
 * execution stands for all. With roles each warpgroup runs its own walk:
 * the when blocks some of its warps run (wgmma statements need whole
 * warpgroups, so a block a part of it runs holds only its register and
 * memory accesses), since wgmma groups, commits, waits and fences are the
 * warpgroup's. State: the wgmmas in flight (uncommitted, or in a group no
 * wait has covered) with their accumulator box and operand bytes; the last
 * wgmma.fence; per local buffer the last statement that touched its
 * registers; TMA loads in flight (until an mbarrier.wait on their
 * barrier); shared bytes threads wrote since the last fence.proxy_async +
 * sync (or bar.sync, which orders the threads that take part as sync). */
#include "tilepx.h"
#include "walk.h"
#include "wgmma_plan.h"

#include <string.h>

enum { WG_SIM_LIMIT = 1 << 22 };

typedef struct WSpan {
	const Buffer *buf;
	int64_t lo, hi;
	const Stmt *s;
	int64_t bar;     /* TMA loads: barrier index; thread writes: 0 unfenced, 1 fenced */
	int64_t group;   /* in-flight wgmma: -1 uncommitted */
} WSpan;

typedef struct WSim {
	Ctx *cx;
	Kernel *k;
	int64_t *vals;
	int64_t steps, fence_step, commit_step;
	const Stmt *committer;
	bool failed;
	WSpan *fl; size_t nfl, flcap;    /* wgmma in flight: A and B spans (two entries per wgmma) */
	WSpan *ld; size_t nld, ldcap;    /* TMA loads in flight */
	WSpan *dirty; size_t ndirty, dcap;
	int64_t groups;
	int64_t *touch;                  /* per buffer: step of the last register access by threads */
	const Stmt **toucher;
	const Stmt *cur;                 /* the statement whose regions stmt_regions is listing */
	uint64_t issuer;                 /* the warpgroup's warps (roles); 0: every warpgroup alike */
	const Stmt **low;                /* runtime repeats that may run fewer than two trips: their keys */
	int nlow;
	unsigned low_on;                 /* this run: key i's repeats run their fewest trips */
	int64_t *runs;                   /* per variable: a running count's trips so far */
} WSim;

#define WFAIL(S, ...) ((S)->failed = true, diag_error((S)->cx, __VA_ARGS__))

static size_t buf_index(const Kernel *k, const Buffer *b)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i] == b)
			return i;
	return 0;
}

/* the bytes of a shared region: repeat indices at their values, every other
 * variable over its range, widened to whole swizzle repeats */
static bool span_of(WSim *S, const Stmt *s, const Region *r, WSpan *out)
{
	int64_t lo, hi;
	if (!region_bytes(S->cx, S->k, r, S->vals, S->issuer ? s->warps : 0, -1, &lo, &hi))
		return false;
	*out = (WSpan){r->buf, lo, hi, NULL, 0, -1};
	return true;
}

static const WSpan *hit(const WSpan *list, size_t n, const WSpan *x)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].buf == x->buf && list[i].lo <= x->hi && x->lo <= list[i].hi)
			return &list[i];
	return NULL;
}

/* a wgmma in flight whose accumulator overlaps the local region r */
static const Stmt *acc_in_flight(WSim *S, const Region *r)
{
	for (size_t i = 0; i < S->nfl; i += 2) {
		const Stmt *m = S->fl[i].s;
		for (int which = 0; which < 2; which++) {
			if (which ? !(m->wg->rs && m->src->buf == r->buf) : m->dst->buf != r->buf)
				continue;
			int64_t (*box)[2] = which ? m->wg->abox : m->wg->dbox;
			bool meet = true;
			for (int d = 0; d < r->ndim && meet; d++) {
				int64_t lo = 0, hi = r->buf->shape[d];
				if (!r->whole && !r->all[d] && affine_is_const(&r->begin[d])) {
					lo = r->begin[d].c;
					hi = lo + r->ext[d];
				}
				meet = lo < box[d][1] && box[d][0] < hi;
			}
			if (meet)
				return m;
		}
	}
	return NULL;
}

/* statement s reads or writes the registers of local region r */
static void reg_access(WSim *S, const Stmt *s, const Region *r, bool write)
{
	if (!r || !r->buf || r->buf->mem != MEM_LOCAL || S->failed)
		return;
	const Stmt *m = acc_in_flight(S, r);
	if (m) {
		WFAIL(S, s->loc, "'%s' %s %s '%s' while the wgmma at line %d is in flight", stmt_info[s->kind].keyword,
		      write ? "writes" : "reads", r->buf == m->dst->buf ? "the accumulator" : "the A fragment", r->buf->name,
		      m->loc.line);
		diag_note(S->cx, "wgmma.commit, then wgmma.wait N covering it, before its registers are touched");
		return;
	}
	size_t bi = buf_index(S->k, r->buf);
	S->touch[bi] = S->steps;
	S->toucher[bi] = s;
}

static void shared_write(WSim *S, const Stmt *s, const Region *r, bool tma)
{
	if (!r || !r->buf || r->buf->mem != MEM_SHARED || S->failed)
		return;
	WSpan x;
	if (!span_of(S, s, r, &x))
		return;
	const WSpan *f = hit(S->fl, S->nfl, &x);
	if (f) {
		WFAIL(S, s->loc, "this copy writes '%s' (bytes %lld..%lld), which the wgmma at line %d still reads", r->buf->name,
		      (long long)x.lo, (long long)x.hi, f->s->loc.line);
		diag_note(S->cx, "the operands of a wgmma are read until the wgmma.wait that covers its group: commit it "
		          "and wait first");
		return;
	}
	x.s = s;
	if (tma) {
		x.bar = s->mbar_idx ? affine_eval(s->mbar_idx, S->vals) + 1000000 * (s->mbar - 1) : 0;
		APUSH(S->cx->arena, S->ld, S->nld, S->ldcap, x);
	} else {
		x.bar = 0;
		APUSH(S->cx->arena, S->dirty, S->ndirty, S->dcap, x);
	}
}

static void sim_mma(WSim *S, const Stmt *s)
{
	const Buffer *D = s->dst->buf;
	size_t bi = buf_index(S->k, D);
	if (S->fence_step < 0) {
		WFAIL(S, s->loc, "no wgmma.fence before the first wgmma");
		diag_note(S->cx, "wgmma.fence orders the warpgroup's register accesses before the wgmma reads them");
		return;
	}
	if (S->commit_step > S->fence_step) {
		WFAIL(S, s->loc, "no wgmma.fence between the wgmma.commit at line %d and this wgmma", S->committer->loc.line);
		diag_note(S->cx, "each chain is wgmma.fence, its wgmmas, wgmma.commit: ptxas serialises (C7515) or patches "
		          "(C7519) the wgmmas of a chain it cannot see whole");
		return;
	}
	size_t ai = s->wg->rs ? buf_index(S->k, s->src->buf) : bi;
	if (s->wg->rs && S->touch[ai] > S->fence_step) { /* the A fragment's registers, RS */
		bi = ai;
		D = s->src->buf;
	}
	if (S->touch[bi] > S->fence_step) {
		WFAIL(S, s->loc, "no wgmma.fence between the access of '%s' at line %d and this wgmma", D->name,
		      S->toucher[bi]->loc.line);
		diag_note(S->cx, "a wgmma that reads or writes registers a thread accessed needs a wgmma.fence between them");
		return;
	}
	const Region *ops[2] = {s->src, s->mma_b};
	WSpan sp[2];
	for (int i = 0; i < 2; i++) {
		if (ops[i]->buf->mem != MEM_SHARED) { /* RS: A is registers; a span that meets nothing */
			sp[i] = (WSpan){NULL, 0, -1, s, 0, -1};
			APUSH(S->cx->arena, S->fl, S->nfl, S->flcap, sp[i]);
			continue;
		}
		if (!span_of(S, s, ops[i], &sp[i]))
			return;
		const WSpan *l = hit(S->ld, S->nld, &sp[i]);
		if (l) {
			WFAIL(S, s->loc, "the wgmma reads '%s' while the TMA load at line %d may still fill it", ops[i]->buf->name,
			      l->s->loc.line);
			diag_note(S->cx, "wait on the load's mbarrier (mbarrier.wait) before the wgmma");
			return;
		}
		const WSpan *w = hit(S->dirty, S->ndirty, &sp[i]);
		if (w) {
			WFAIL(S, s->loc, "the wgmma reads '%s', which threads wrote at line %d, without %s", ops[i]->buf->name,
			      w->s->loc.line, w->bar ? "a sync after the fence" : "fence.proxy_async and sync");
			diag_note(S->cx, "wgmma reads shared memory through the async proxy: thread writes need "
			          "fence.proxy_async, then sync, before it");
			return;
		}
		sp[i].s = s;
		sp[i].group = -1;
		APUSH(S->cx->arena, S->fl, S->nfl, S->flcap, sp[i]);
	}
}

/* a region statement s reads or writes (stmt_regions): registers and shared memory */
static void wsim_region(void *ctx, const Region *r, bool write)
{
	WSim *S = ctx;
	reg_access(S, S->cur, r, write);
	if (write && stmt_info[S->cur->kind].shared == SH_REGIONS)
		shared_write(S, S->cur, r, stmt_is_tma_load(S->cur));
}

static void wsim_drop_dirty(WSim *S)
{
	size_t k = 0;
	for (size_t i = 0; i < S->ndirty; i++)
		if (!S->dirty[i].bar)
			S->dirty[k++] = S->dirty[i];
	S->ndirty = k;
}

static void wsim_stmt(WSim *S, const Stmt *s)
{
	switch (s->kind) {
	case ST_WG_MMA: sim_mma(S, s); return;
	case ST_WG_FENCE: S->fence_step = S->steps; return;
	case ST_WG_COMMIT:
		S->commit_step = S->steps;
		S->committer = s;
		for (size_t i = 0; i < S->nfl; i++)
			if (S->fl[i].group < 0)
				S->fl[i].group = S->groups;
		S->groups++;
		return;
	case ST_WG_WAIT: {
		size_t k = 0;
		for (size_t i = 0; i < S->nfl; i++)
			if (S->fl[i].group < 0 || S->fl[i].group >= S->groups - s->n)
				S->fl[k++] = S->fl[i];
		S->nfl = k;
		return;
	}
	case ST_MBAR_WAIT: {
		int64_t bar = affine_eval(s->mbar_idx, S->vals) + 1000000 * (s->mbar - 1);
		size_t k = 0;
		for (size_t i = 0; i < S->nld; i++)
			if (S->ld[i].bar != bar)
				S->ld[k++] = S->ld[i];
		S->nld = k;
		return;
	}
	case ST_FENCE_ASYNC:
		for (size_t i = 0; i < S->ndirty; i++)
			S->dirty[i].bar = 1;
		return;
	case ST_SYNC: case ST_MBAR_INIT: case ST_CLUSTER_SYNC: case ST_CLUSTER_WAIT: case ST_NBAR_SYNC:
		wsim_drop_dirty(S);
		return;
	default: /* every other statement: the regions it names (registers, shared writes) */
		S->cur = s;
		stmt_regions(s, wsim_region, S);
		return;
	}
}

/* the walker's hooks (walk.c): a repeat with a runtime count runs two trips
 * (or its fewest, in a run that says so), a when block is entered when a
 * warp of the issuer runs it, each statement instance, blocks included,
 * costs one of WG_SIM_LIMIT */
static bool wsim_hook(Walk *w, const Stmt *s)
{
	WSim *S = w->ctx;
	S->steps = w->steps;
	wsim_stmt(S, s);
	return !S->failed;
}

static void wsim_over(Walk *w, const Stmt *s)
{
	WFAIL((WSim *)w->ctx, s->loc, "more than %d statement instances: too many to check the kernel's wgmma",
	      WG_SIM_LIMIT);
}

static bool wsim_when(Walk *w, const Stmt *s) { return (s->body_warps & ((WSim *)w->ctx)->issuer) != 0; }

/* a runtime count's fewest trips the facts allow (a CTA of a persistent loop may run none) */
static int64_t fewest_trips(const Kernel *k, const Stmt *s)
{
	if (s->trips_expr)
		return s->trips_lo;
	int64_t lo = k->scalars[s->trips_scalar - 1].lo;
	return s->across || lo <= 0 ? 0 : (lo + s->trips_div - 1) / s->trips_div;
}

/* the repeats of one key run the same number of trips: the same scalar, dealt out or not */
static bool same_key(const Stmt *a, const Stmt *b)
{
	if (a->trips_expr || b->trips_expr)
		return trip_expr_eq(a->trips_expr, b->trips_expr);
	return a->trips_scalar == b->trips_scalar && !a->across == !b->across;
}

static int64_t wsim_trips(Walk *w, const Stmt *s)
{
	WSim *S = w->ctx;
	int64_t two = walk_trips_two(w, s);
	if (!stmt_runtime_trips(s))
		return two;
	for (int i = 0; i < S->nlow; i++)
		if ((S->low_on >> i & 1) && same_key(S->low[i], s)) {
			int64_t f = fewest_trips(S->k, s);
			return f < two ? f : two;
		}
	return two;
}

/* a running count: its trips so far in the thread, over the whole kernel */
static bool wsim_trip(Walk *w, const Stmt *s, int64_t j)
{
	WSim *S = w->ctx;
	(void)j;
	if (s->running)
		kernel_set_var(S->k, S->vals, s->running, S->runs[s->running]++);
	return true;
}

static void wsim_stmts(WSim *S, Stmt **body, size_t n)
{
	int64_t budget = WG_SIM_LIMIT;
	Walk w = {.k = S->k, .vals = S->vals, .budget = &budget, .ctx = S, .stmt = wsim_hook, .trips = wsim_trips,
	          .trip = wsim_trip, .over = wsim_over, .when = wsim_when};
	walk_stmts(&w, body, n);
}

static void has_wgmma(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= s->kind == ST_WG_MMA || s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT;
}

/* the repeats with a runtime count that may run fewer than two trips, one per key */
struct LowScan { WSim *S; Arena *ar; size_t cap; };
static void scan_low(void *ctx, const Stmt *s)
{
	struct LowScan *L = ctx;
	WSim *S = L->S;
	if (s->kind != ST_REPEAT || !stmt_runtime_trips(s) || !s->nbody || fewest_trips(S->k, s) >= 2)
		return;
	for (int i = 0; i < S->nlow; i++)
		if (same_key(S->low[i], s))
			return;
	size_t n = (size_t)S->nlow;
	APUSH(L->ar, S->low, n, L->cap, s);
	S->nlow = (int)n;
}

/* one execution of the issuer's statements; false: it failed (reported) */
static bool wsim_run(Ctx *cx, Kernel *k, const WSim *proto)
{
	WSim S = *proto;
	S.fence_step = S.commit_step = -1;
	S.vals = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	S.runs = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	S.touch = arena_alloc(cx->arena, sizeof(int64_t) * (k->nbufs + 1));
	S.toucher = arena_alloc(cx->arena, sizeof(Stmt *) * (k->nbufs + 1));
	for (size_t i = 0; i < k->nbufs; i++)
		S.touch[i] = -1;
	wsim_stmts(&S, k->body, k->nbody);
	if (!S.failed && S.nfl) {
		const Stmt *s = S.fl[0].s;
		S.failed = true;
		if (S.fl[0].group < 0)
			diag_error(cx, s->loc, "the wgmma is never committed: the kernel ends with it in flight");
		else
			diag_error(cx, s->loc, "the kernel ends while this wgmma may be in flight: no wgmma.wait covers its group");
		diag_note(cx, "after the last chain: wgmma.commit, then wgmma.wait 0");
	}
	for (int i = 0; i < S.nlow && S.failed; i++)
		if (S.low_on >> i & 1)
			diag_note(cx, "when the repeat at line %d runs %lld trips (the fewest its count's facts allow%s)",
			          S.low[i]->loc.line, (long long)fewest_trips(k, S.low[i]),
			          S.low[i]->across ? ": a CTA of a persistent loop may run none" : "");
	return !S.failed;
}

/* the warpgroup g's runs: every combination of fewest and two trips */
static bool wsim_issuer(Ctx *cx, Kernel *k, WSim *proto)
{
	for (unsigned c = 0; c < 1u << proto->nlow; c++) {
		proto->low_on = c;
		if (!wsim_run(cx, k, proto))
			return false;
	}
	return true;
}

/* the when blocks the warpgroup's warps run */
struct WhenScan { const Stmt **w; size_t n, cap; Arena *ar; };
static void scan_whens(void *ctx, const Stmt *s)
{
	struct WhenScan *W = ctx;
	if (s->kind == ST_WHEN)
		APUSH(W->ar, W->w, W->n, W->cap, s);
}

static bool same_walk(const struct WhenScan *W, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < W->n; i++)
		if (!(W->w[i]->body_warps & a) != !(W->w[i]->body_warps & b))
			return false;
	return true;
}

enum { WG_MAX_LOW = 6 };

void check_wgmma_async(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	bool any = false;
	stmt_walk(k->body, k->nbody, has_wgmma, &any);
	if (!any)
		return;
	WSim S = {.cx = cx, .k = k};
	struct LowScan L = {&S, cx->arena, 0};
	stmt_walk(k->body, k->nbody, scan_low, &L);
	if (S.nlow > WG_MAX_LOW) {
		diag_error(cx, S.low[WG_MAX_LOW]->loc, "more than %d runtime trip counts that may run fewer than two trips: "
		           "too many to check the kernel's wgmma", WG_MAX_LOW);
		return;
	}
	if (!k->has_roles) {
		wsim_issuer(cx, k, &S);
		return;
	}
	struct WhenScan W = {.ar = cx->arena};
	stmt_walk(k->body, k->nbody, scan_whens, &W);
	uint64_t done[16];
	int ndone = 0;
	for (int64_t g = 0; g < k->threads / 128 && g < 16; g++) {
		uint64_t mask = (uint64_t)0xf << (4 * g);
		bool seen = false;
		for (int i = 0; i < ndone && !seen; i++)
			seen = same_walk(&W, done[i], mask);
		if (seen)
			continue;
		done[ndone++] = mask;
		S.issuer = mask;
		if (!wsim_issuer(cx, k, &S))
			return;
	}
}
