/* Shared-memory races between threads (warps, and lanes of one warp), from the copies' access traces
 * (Variant.trace): every thread's shared accesses, computed from the layouts
 * and the chosen variant's partition, not from PTX.
 *
 * Races: each kernel's statements run once for one CTA, loops unrolled
 * (every index value), with a shadow byte per shared byte: the statement and
 * the warps that last wrote it, the warps that read it, and the barrier
 * epoch. Statements order the CTA's threads as their `bar` column in
 * stmt.def says: a barrier (`sync`, `cluster.sync`, `mbarrier.init`) orders
 * every epoch so far before the next; a split one (`cluster.arrive` ...
 * `cluster.wait`) orders the epochs before the arrive once the wait is
 * passed. A read of a byte another warp wrote, or a write of a byte another
 * warp read or wrote, from another statement, with neither ordered before
 * the other, is a race: one warning per kernel. Lanes of one warp are
 * threads too: the writing thread and one unordered reading thread per byte
 * decide races between the lanes of a warp (ldmatrix/stmatrix, one
 * instruction of the warp, are the warp's). A kernel with roles runs
 * once per role (the when blocks it runs, its
 * statements and warps only, its bar.sync a barrier of its warps); two
 * roles' accesses are the roles proof's (roles.c). */
#include "tilepx.h"
#include "walk.h"

#include <stdlib.h>
#include <string.h>

enum { RACE_BUDGET = 1 << 24, WARP_WIDE = -3 };


typedef struct Sh {
	const Stmt *w;        /* last writing statement (NULL: none) */
	uint32_t wepoch, wmask; /* its epoch and warps */
	uint32_t repoch, rmask; /* the readers' epoch and warps */
	const Stmt *r[2];     /* the last two readers from distinct warps */
	int32_t rw[2];
	/* lanes of one warp are threads too: the writing thread (-2: several,
	 * WARP_WIDE: a warp-wide instruction), the one unordered reading thread
	 * (-1: none, -2: several or a warp-wide instruction) */
	int32_t wthr, rthr;
} Sh;

typedef struct Race {
	Ctx *cx;
	const Module *m;
	Kernel *k;
	const Buffer **bufs;
	Sh **sh;
	int64_t *bytes;
	size_t nb;
	uint32_t epoch;
	uint32_t ordered; /* accesses of epochs up to this one are ordered before now */
	uint32_t arrived; /* the last epoch before a pending split barrier's arrive (0: none) */
	int64_t budget;
	bool done; /* a warning was given, or the budget ran out */
	bool stopped;  /* the budget ran out: the check is incomplete */
	const Stmt *stop_at; /* the statement it ran out at (NULL: between runs) */
	const Stmt *s; /* the statement being traced */
	int64_t *vals;
	bool runtime;  /* scalar values are set: runtime trip counts follow them */
	int nsc;       /* scalars that move shared regions or count repeats (warn names their values) */
	int sc[32];
	/* the exact decision over one scalar that only moves regions: each
	 * (statement, side)'s byte hulls at the first two values and its bytes
	 * per unit of the scalar (a key per side) */
	struct Key { const Stmt *s; bool write; size_t buf; int64_t lo, hi, lo2, hi2, c; } *keys;
	size_t nkeys, keycap;
	bool many_keys;      /* more sides than race_exact takes */
	int rec;             /* recording the hulls of the first (1) or second (2) value; 0: not */
	long kw, kr;         /* the traced statement's keys, -1: none */
	const Stmt **twice;  /* repeats that run at most two trips (repeat_runs_twice) */
	size_t ntwice, twicecap;
	int xvar;            /* the scalar's variable, -1: none */
	uint64_t role;       /* the warps checked against each other: a role's (every warp without roles) */
	bool roles;          /* the kernel has roles (the notes say which one) */
	bool collective;     /* the traced statement is one warp-wide instruction (ldmatrix, stmatrix) */
	/* the first race between lanes of one warp, said only when the run finds
	 * none between warps (the clearer one, and the one ptxemu reports) */
	struct LaneRace { bool found, write; const Stmt *s, *o; const Buffer *buf; int64_t thread, byte, other; const char *what; } lane;
} Race;

static void out_of_budget(Race *R, const Stmt *at)
{
	R->done = R->stopped = true;
	R->stop_at = at;
}

/* "M=1000 K=64": the launch values of the scalars the check runs value by
 * value, for the notes that say where a warning or a stop happened */
static void scalar_values(const Race *R, char *buf, size_t cap)
{
	int n = 0;
	buf[0] = 0;
	for (int i = 0; i < R->nsc && n < (int)cap - 64; i++) {
		const Scalar *sc = &R->k->scalars[R->sc[i]];
		n += snprintf(buf + n, cap - (size_t)n, "%s%s=%lld", i ? " " : "", sc->name, (long long)R->vals[sc->var]);
	}
}

static void warn(Race *R, const Access *a, int64_t byte, const char *what, int other, const Stmt *o)
{
	R->done = true;
	Loc at = a->write ? R->s->dst->loc : R->s->src->loc;
	diag_warning(R->cx, at, "warp %lld %s '%s' at byte %lld, which warp %d %s at line %d, with no sync between",
	             (long long)(a->thread / 32), a->write ? "writes" : "reads", a->buf->name, (long long)byte, other, what,
	             o->loc.line);
	if (o == R->s || o->loc.line > R->s->loc.line || (o->loc.line == R->s->loc.line && o->loc.col >= R->s->loc.col))
		diag_note(R->cx, "the %s is in an earlier iteration of the enclosing repeat: sync at the end (or the start) "
		          "of its body", a->write && !strcmp(what, "read") ? "read" : "write");
	else if (a->write && !strcmp(what, "read"))
		diag_note(R->cx, "only a 'sync' (bar.sync) between them orders another warp's read before this write");
	else
		diag_note(R->cx, "shared memory one warp writes is seen by the other warps only after a 'sync' (bar.sync)");
	if (R->roles) {
		int lo = __builtin_ctzll(R->role), hi = 63 - __builtin_clzll(R->role), n = __builtin_popcountll(R->role);
		diag_note(R->cx, "both warps are in the role of warps %d..%d: inside a when block, 'bar.sync ID, %d' (every "
		          "thread of the role) orders them", lo, hi, 32 * n);
	}
	if (R->vals[VAR_CTAID] || R->vals[VAR_CTAIDY])
		diag_note(R->cx, "in CTA (%lld, %lld): the shared regions move with ctaid, and each CTA is checked",
		          (long long)R->vals[VAR_CTAID], (long long)R->vals[VAR_CTAIDY]);
	if (R->nsc) {
		char buf[512];
		scalar_values(R, buf, sizeof buf);
		diag_note(R->cx, "with %s at launch: scalars that move shared regions or count repeats are checked value "
		          "by value", buf);
	}
}

/* two lanes of one warp: the PTX memory model orders them only through a
 * barrier, as two warps (and ptxas may move a thread's load above its store
 * to another lane's address) */
static void note_lanes(Race *R, const Access *a, int64_t byte, const char *what, int64_t other, const Stmt *o)
{
	if (!R->lane.found)
		R->lane = (struct LaneRace){true, a->write, R->s, o, a->buf, a->thread, byte, other, what};
}

static void warn_lanes(Race *R)
{
	const struct LaneRace *l = &R->lane;
	R->done = true;
	Loc at = l->write ? l->s->dst->loc : l->s->src->loc;
	diag_warning(R->cx, at, "thread %lld %s '%s' at byte %lld, which thread %lld of the same warp %s at line %d, with no "
	             "sync between", (long long)l->thread, l->write ? "writes" : "reads", l->buf->name, (long long)l->byte,
	             (long long)l->other, l->what, l->o->loc.line);
	diag_note(R->cx, "the lanes of a warp are threads: only a barrier orders one lane's shared accesses before "
	          "another's ('sync', or inside a when block 'bar.sync ID, COUNT' of the role's threads)");
}

/* a race between lanes of the thread's own warp at shadow byte h: noted */
static void lane_race(Race *R, const Access *a, const Sh *h, int64_t i, bool wlive, uint32_t bit)
{
	int32_t t = (int32_t)a->thread;
	if (R->collective || R->lane.found)
		return; /* the warp's one instruction: ordered after the lanes' earlier ones, before their later */
	if (wlive && (h->wmask & bit) && h->wthr != t && h->wthr != WARP_WIDE) {
		note_lanes(R, a, i, "wrote", h->wthr >= 0 ? h->wthr : a->thread ^ 1, h->w);
		return;
	}
	if (a->write && h->repoch > R->ordered && h->rthr >= 0 && h->rthr != t && h->rthr / 32 == t / 32) { /* one lane read it */
		const Stmt *r = h->rw[0] == t / 32 ? h->r[0] : h->r[1];
		if (r && r != R->s)
			note_lanes(R, a, i, "read", h->rthr, r);
	}
}

static int low_bit(uint32_t m)
{
	int i = 0;
	while (!(m & 1u)) {
		m >>= 1;
		i++;
	}
	return i;
}

static void race_fn(void *ctx, const Access *a)
{
	Race *R = ctx;
	if (R->done)
		return;
	uint64_t runs = R->role & (R->s->warps ? R->s->warps : ~(uint64_t)0);
	if (a->thread / 32 < 64 && !(runs >> (a->thread / 32) & 1))
		return; /* another role's warp (the roles proof orders the roles), or one that does not run it */
	size_t b = 0;
	while (b < R->nb && R->bufs[b] != a->buf)
		b++;
	if (b == R->nb)
		return;
	int64_t es = dtype_bytes(a->buf->dt), at = swz_apply(buffer_swizzle(R->cx, a->buf), a->elem) * es;
	if (at < 0 || at + a->bytes > R->bytes[b])
		return;
	if ((R->budget -= a->bytes) < 0) {
		out_of_budget(R, R->s);
		return;
	}
	long ki = a->write ? R->kw : R->kr;
	if (ki >= 0) {
		struct Key *key = &R->keys[ki]; /* the hull before the swizzle (widened to its spans later) */
		int64_t lo = a->elem * es, hi = lo + a->bytes - 1, *klo = R->rec == 1 ? &key->lo : &key->lo2,
		        *khi = R->rec == 1 ? &key->hi : &key->hi2;
		*klo = *klo < lo ? *klo : lo;
		*khi = *khi > hi ? *khi : hi;
	}
	int warp = (int)(a->thread / 32);
	uint32_t bit = 1u << (warp & 31);
	for (int64_t i = at; i < at + a->bytes; i++) {
		Sh *h = &R->sh[b][i];
		bool wlive = h->w && h->wepoch > R->ordered && h->w != R->s;
		lane_race(R, a, h, i, wlive, bit);
		if (a->write) {
			if (wlive && (h->wmask & ~bit)) {
				warn(R, a, i, "wrote", low_bit(h->wmask & ~bit), h->w);
				return;
			}
			if (h->repoch > R->ordered && (h->rmask & ~bit)) {
				int r = h->rw[0] != warp ? 0 : 1;
				if (h->r[r] && h->r[r] != R->s) {
					warn(R, a, i, "read", h->rw[r], h->r[r]);
					return;
				}
			}
			if (h->w == R->s && h->wepoch == R->epoch) {
				h->wmask |= bit;
				h->wthr = h->wthr == (int32_t)a->thread ? h->wthr : -2;
			} else {
				h->w = R->s;
				h->wepoch = R->epoch;
				h->wmask = bit;
				h->wthr = (int32_t)a->thread;
			}
			if (R->collective)
				h->wthr = WARP_WIDE;
		} else {
			if (wlive && !(h->wmask & bit)) {
				warn(R, a, i, "wrote", low_bit(h->wmask), h->w);
				return;
			}
			if (h->repoch <= R->ordered) { /* the readers so far are ordered before now */
				h->rmask = 0;
				h->r[0] = h->r[1] = NULL;
				h->rw[0] = h->rw[1] = -1;
				h->rthr = -1;
			}
			h->rthr = R->collective ? -2 : h->rthr == -1 || h->rthr == (int32_t)a->thread ? (int32_t)a->thread : -2;
			h->repoch = R->epoch; /* unordered readers of an earlier epoch stay (a split barrier's) */
			h->rmask |= bit;
			if (h->rw[0] == warp) {
				h->r[0] = R->s;
			} else {
				h->r[1] = h->r[0], h->rw[1] = h->rw[0];
				h->r[0] = R->s, h->rw[0] = warp;
			}
		}
	}
}

/* the statement's views and decision, from the select pass */
static const Decision *decide(Race *R, const Stmt *s, CopyOp *op, Decision *tmp)
{
	int before = R->cx->diags.errors;
	if (!select_copy(R->cx, R->m, R->k, s, op, tmp) || !tmp->chosen || R->cx->diags.errors != before)
		return NULL;
	return tmp;
}

static bool asm_syncs(const AsmBlock *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->p[i].kind == ASM_TEXT && b->p[i].text &&
		    (strstr(b->p[i].text, "bar.sync") || strstr(b->p[i].text, "barrier.sync")))
			return true;
	return false;
}

/* the key of s's write (dst) or read (src) side; start: its region's start
 * in elements, whose coefficient of the scalar gives the bytes per unit */
static long key_of(Race *R, const Stmt *s, bool write, const Affine *start)
{
	for (size_t i = 0; i < R->nkeys; i++)
		if (R->keys[i].s == s && R->keys[i].write == write)
			return (long)i;
	if (R->nkeys >= 4096) { /* the pairs would cost more than running the values */
		R->many_keys = true;
		return -1;
	}
	const Region *r = write ? s->dst : s->src;
	size_t b = 0;
	while (b < R->nb && R->bufs[b] != r->buf)
		b++;
	int64_t k = 0, c = 0;
	for (int t = 0; t < start->n; t++)
		k += start->t[t].var == R->xvar ? start->t[t].k : 0;
	if (!mul_ok(k, dtype_bytes(r->buf->dt), &c))
		c = INT64_MAX; /* no exact decision (check_races) */
	struct Key key = {s, write, b, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, c};
	APUSH(R->cx->arena, R->keys, R->nkeys, R->keycap, key);
	return (long)R->nkeys - 1;
}

static bool runs_twice(const Race *R, const Stmt *s)
{
	for (size_t i = 0; i < R->ntwice; i++)
		if (R->twice[i] == s)
			return true;
	return false;
}

/* the race walk's trips: every trip (a runtime count at this launch value,
 * possibly none), at most two of a repeat that touches the same bytes in
 * every trip (repeat_runs_twice) */
static int64_t race_trips(Walk *w, const Stmt *s)
{
	const Race *R = w->ctx;
	/* a count expression: its largest (the counts of ctaid's other CTAs are not walked) */
	int64_t trips = R->runtime && !s->trips_expr ? walk_trips_launch(w, s) : walk_trips_all(w, s);
	if (trips > 2 && runs_twice(R, s))
		trips = 2;
	return trips;
}

static void race_over(Walk *w, const Stmt *s) { out_of_budget(w->ctx, s); }

static bool race_stmt(Walk *w, const Stmt *s)
{
	Race *R = w->ctx;
	const StmtInfo *si = &stmt_info[s->kind];
	if (s->warps && !(s->warps & R->role))
		return true; /* another role's statement (a bar.sync of other warps orders none of these) */
	BarKind bar = si->bar;
	if ((s->asm_blk && asm_syncs(s->asm_blk)) || s->red_bar == RED_BAR_CTA) /* a CTA's reduce over warps meets at bar.sync 0 */
		bar = BAR_SYNC;
	if (bar == BAR_SYNC) {
		R->ordered = R->epoch++;
	} else if (bar == BAR_ARRIVE) {
		R->arrived = R->epoch++;
	} else if (bar == BAR_WAIT && R->arrived) {
		R->ordered = R->arrived > R->ordered ? R->arrived : R->ordered;
		R->arrived = 0;
	}
	if (!(si->flags & SF_COPY) || si->shared != SH_REGIONS ||
	    (s->dst->buf->mem != MEM_SHARED && s->src->buf->mem != MEM_SHARED))
		return true;
	Decision tmp;
	CopyOp op;
	const Decision *d = decide(R, s, &op, &tmp);
	if (!d) { /* no variant: the program is rejected, nothing to warn about */
		R->done = true;
		return false;
	}
	if (!d->chosen->trace)
		return true;
	R->s = s;
	R->collective = d->chosen->collective;
	R->kw = R->kr = -1;
	if (R->rec) {
		R->kw = s->dst->buf->mem == MEM_SHARED ? key_of(R, s, true, &op.dst.off[AX_M]) : -1;
		R->kr = s->src->buf->mem == MEM_SHARED ? key_of(R, s, false, &op.src.off[AX_M]) : -1;
	}
	d->chosen->trace(&op, &d->plan, R->vals, race_fn, R);
	return !R->done;
}

/* one run of the kernel's statements over the shared shadow: the walker
 * (walk.c) runs the trips; every statement and every trip costs one of the
 * budget that the traced bytes spend too */
/* a when block: walked where the role checked runs it */
static bool race_when(Walk *w, const Stmt *s) { return (s->body_warps & ((Race *)w->ctx)->role) != 0; }

/* a trip of a repeat with a running count: its stages follow the count,
 * which advances at the trip's end (as the roles proof and the reference) */
static bool race_trip(Walk *w, const Stmt *s, int64_t j)
{
	(void)j;
	if (s->running)
		kernel_set_var(w->k, w->vals, s->running, w->vals[s->running]);
	return true;
}

static void race_trip_end(Walk *w, const Stmt *s, int64_t j)
{
	(void)j;
	if (s->running)
		w->vals[s->running]++;
}

static void race_stmts(Race *R, Stmt **body, size_t n)
{
	for (int v = VAR_REPEAT0; R->k->var_base && v < R->k->nvars; v++)
		if (R->k->var_base[v] == VAR_RUNNING) /* every run counts from 0 */
			kernel_set_var(R->k, R->vals, v, 0);
	Walk w = {.k = R->k, .vals = R->vals, .budget = &R->budget, .trip_cost = 1, .stop = R->done, .ctx = R,
	          .stmt = race_stmt, .trips = race_trips, .over = race_over, .when = race_when, .trip = race_trip,
	          .trip_end = race_trip_end};
	walk_stmts(&w, body, n);
}

static bool affine_uses_ctaid(const Affine *a)
{
	for (int i = 0; i < a->n; i++)
		if ((a->t[i].var == VAR_CTAID || a->t[i].var == VAR_CTAIDY) && a->t[i].k)
			return true;
	return false;
}

/* fn on each start expression of a copy's shared regions */
static void shared_starts(const Stmt *s, void (*fn)(void *ctx, const Affine *start), void *ctx)
{
	if (!(stmt_info[s->kind].flags & SF_COPY) || stmt_is_tma_load(s) || stmt_is_tma_store(s) || stmt_is_bulk_store(s))
		return; /* TMA and bulk copies are not traced: the mbarrier analysis checks them */
	for (int side = 0; side < 2; side++) {
		const Region *r = side ? s->dst : s->src;
		if (r->buf->mem != MEM_SHARED || r->whole)
			continue;
		for (int d = 0; d < r->ndim; d++)
			fn(ctx, &r->begin[d]);
	}
}

static void start_uses_ctaid(void *ctx, const Affine *start)
{
	if (affine_uses_ctaid(start))
		*(bool *)ctx = true;
}

/* a copy region of a shared buffer whose start depends on ctaid */
static void shared_uses_ctaid(void *ctx, const Stmt *s) { shared_starts(s, start_uses_ctaid, ctx); }

struct Moves { const Kernel *k; int var, running; bool moves; };

/* a start that uses the repeat's index, or its running count or a stage
 * of it (a running count goes on across entries of the loop) */
static void start_uses_var(void *ctx, const Affine *start)
{
	struct Moves *m = ctx;
	for (int t = 0; t < start->n; t++) {
		int v = start->t[t].var;
		bool running = m->running && v >= VAR_REPEAT0 && m->k->var_base &&
		               (v == m->running || m->k->var_base[v] == m->running);
		if ((v == m->var || running) && start->t[t].k)
			m->moves = true;
	}
}

static void stmt_moves_with(void *ctx, const Stmt *s) { shared_starts(s, start_uses_var, ctx); }

/* a repeat whose body touches the same shared bytes in every trip (no
 * shared region's start uses its index): its third and later trips repeat
 * the second's accesses after the same barriers, so any race they make the
 * first two make (loop-carried ones included); the race check runs at most
 * two trips of it */
static bool repeat_runs_twice(const Kernel *k, const Stmt *s)
{
	struct Moves m = {k, s->var, s->running, false};
	stmt_walk(s->body, s->nbody, stmt_moves_with, &m);
	return !m.moves;
}

static void collect_twice(void *ctx, const Stmt *s)
{
	Race *R = ctx;
	if ((stmt_info[s->kind].flags & SF_BLOCK) && s->n > 2 && repeat_runs_twice(R->k, s))
		APUSH(R->cx->arena, R->twice, R->ntwice, R->twicecap, s);
}

/* the scalars whose launch value changes the shared bytes a copy touches (a
 * shared region's start) or a repeat's trip count, with the divisors of the
 * repeats they count */
typedef struct ScUse {
	const Kernel *k;
	bool moves[32], counts[32];
	int64_t div[32][8];
	bool twice[32][8]; /* that repeat runs at most two trips (repeat_runs_twice) */
	int ndiv[32];
} ScUse;

/* the scalars a shared region's start moves with */
static void start_moves(void *ctx, const Affine *start)
{
	ScUse *u = ctx;
	for (int t = 0; t < start->n; t++) {
		const Scalar *sc = kernel_scalar_of_var(u->k, start->t[t].var);
		if (sc && start->t[t].k && sc - u->k->scalars < 32)
			u->moves[sc - u->k->scalars] = true;
	}
}

static void scalar_uses(void *ctx, const Stmt *s)
{
	ScUse *u = ctx;
	if ((stmt_info[s->kind].flags & SF_BLOCK) && s->trips_scalar && s->trips_scalar <= 32) {
		int i = s->trips_scalar - 1;
		u->counts[i] = true;
		if (u->ndiv[i] < 8) {
			u->twice[i][u->ndiv[i]] = repeat_runs_twice(u->k, s);
			u->div[i][u->ndiv[i]++] = s->trips_div;
		} else
			u->moves[i] = true; /* too many divisors to skip values: every value */
	}
	shared_starts(s, start_moves, u);
}

/* the next launch value of scalar i after v that can change the accesses:
 * the next multiple for a scalar that moves a region, else the next value
 * that changes a trip count; -1 past the largest */
static int64_t next_value(const ScUse *u, int i, int64_t v)
{
	const Scalar *sc = &u->k->scalars[i];
	int64_t nv = v + sc->mult;
	if (!u->moves[i]) {
		nv = INT64_MAX;
		for (int j = 0; j < u->ndiv[i]; j++) {
			int64_t d = u->div[i][j], t = (v + d - 1) / d * d + 1; /* one past the next trip's start */
			if (u->twice[i][j] && (v + d - 1) / d >= 2)
				continue; /* past two trips the race check runs two: no new value */
			if (t < nv)
				nv = t;
		}
		if (nv == INT64_MAX)
			return -1;
		nv = (nv + sc->mult - 1) / sc->mult * sc->mult;
		if (nv <= v)
			nv = v + sc->mult;
	}
	return nv > sc->hi ? -1 : nv;
}

static int64_t first_value(const Scalar *sc) { return (sc->lo + sc->mult - 1) / sc->mult * sc->mult; }
static int64_t last_value(const Scalar *sc) { return sc->hi / sc->mult * sc->mult; }

static void race_run(Race *R, bool per_cta)
{
	int64_t ctas = per_cta ? R->k->grid * R->k->grid_y : 1;
	for (int64_t c = 0; c < ctas && !R->done; c++) {
		R->vals[VAR_CTAID] = c % R->k->grid;
		R->vals[VAR_CTAIDY] = c / R->k->grid;
		for (size_t i = 0; i < R->nb; i++) {
			memset(R->sh[i], 0, sizeof(Sh) * (size_t)(R->bytes[i] + 1));
			if (R->runtime && (R->budget -= R->bytes[i] + 1) < 0) /* many runs: each one's reset counts */
				out_of_budget(R, NULL);
		}
		R->epoch = 1;
		R->ordered = R->arrived = 0;
		if (!R->done)
			race_stmts(R, R->k->body, R->k->nbody);
	}
}

/* the check ran out of its budget before it decided every access: a located
 * warning, with where it stopped */
static void race_incomplete(Race *R, bool per_cta)
{
	Loc at = R->stop_at ? R->stop_at->loc : R->k->loc;
	diag_warning(R->cx, at, "the race check of kernel '%s' stopped here at its budget (2^24 shared-byte accesses, "
	             "unrolled): races past this point are not ruled out", R->k->name);
	if (per_cta)
		diag_note(R->cx, "it stopped in CTA (%lld, %lld): every CTA is checked when a shared region moves with ctaid",
		          (long long)R->vals[VAR_CTAID], (long long)R->vals[VAR_CTAIDY]);
	if (R->nsc) {
		char buf[512];
		scalar_values(R, buf, sizeof buf);
		diag_note(R->cx, "it stopped with %s at launch: the scalars that move shared regions or count repeats are "
		          "checked value by value", buf);
	}
	diag_note(R->cx, "smaller tiles, fewer unrolled trips or tighter facts ('assume') bring the check within its budget");
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

typedef struct Iv { int64_t lo, hi; } Iv;
static int cmp_iv(const void *x, const void *y)
{
	const Iv *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The race check over every launch value of scalar sc, which moves shared
 * regions and counts no repeat, decided exactly: at value N each (statement,
 * side)'s accesses are those at the first value n0 moved by c * (N - n0)
 * bytes (its region's start is affine in N; the statement sequence and the
 * accesses' pattern do not change). Two sides that move alike keep their
 * distance, so what they race at n0 they race at every N; two that move
 * differently can meet only where their hulls overlap, a linear condition
 * on N: d * (N - n0) in [lo_j - hi_i, hi_j - lo_i], d = c_i - c_j. So n0 and
 * the values in those intervals decide every value. The first two values
 * are run with each side's hull recorded: the traced move must be c * m.
 * False when the shape keeps this from holding (a move the traces do not
 * show, a swizzle the move does not keep, too many sides, overflow): the
 * caller then runs the values one by one. */
static bool race_exact(Race *R, bool per_cta, const Scalar *sc)
{
	int64_t n0 = first_value(sc), last = last_value(sc), m = sc->mult;
	R->runtime = true;
	R->xvar = sc->var;
	R->rec = 1;
	R->vals[sc->var] = n0;
	race_run(R, per_cta);
	if (!R->done && n0 < last) { /* the second value: the moves as traced must be the moves computed */
		R->rec = 2;
		R->vals[sc->var] = n0 + m;
		race_run(R, per_cta);
	}
	R->rec = 0;
	R->xvar = -1;
	if (R->done || n0 + m >= last)
		return true;
	if (R->many_keys)
		return false;
	for (size_t i = 0; i < R->nkeys; i++) {
		struct Key *x = &R->keys[i];
		int64_t step;
		if (x->c == INT64_MAX || !mul_ok(x->c, m, &step) || (x->lo <= x->hi) != (x->lo2 <= x->hi2) ||
		    (x->lo <= x->hi && (x->lo2 - x->lo != step || x->hi2 - x->hi != step)))
			return false;
		Swizzle sw = buffer_swizzle(R->cx, R->bufs[x->buf]);
		if (!sw.on || x->lo > x->hi)
			continue;
		int64_t span = ((int64_t)1 << (sw.p + sw.w + sw.a)) * dtype_bytes(R->bufs[x->buf]->dt);
		if (step % span) /* the move changes the swizzle's pattern */
			return false;
		x->lo = x->lo / span * span; /* the swizzle permutes inside its spans */
		x->hi = (x->hi / span + 1) * span - 1;
	}
	Iv *iv = NULL;
	size_t niv = 0, ivcap = 0;
	for (size_t i = 0; i < R->nkeys; i++)
		for (size_t j = i + 1; j < R->nkeys; j++) {
			const struct Key *a = &R->keys[i], *b = &R->keys[j];
			int64_t d;
			if (a->buf != b->buf || a->c == b->c || (!a->write && !b->write) || a->lo > a->hi || b->lo > b->hi)
				continue;
			if (!add_ok(a->c, b->c == INT64_MIN ? INT64_MAX : -b->c, &d) || b->c == INT64_MIN)
				return false;
			int64_t A = b->lo - a->hi, B = b->hi - a->lo; /* d * t in [A, B] */
			int64_t tlo = d > 0 ? ceil_div(A, d) : ceil_div(B, d), thi = d > 0 ? floor_div(B, d) : floor_div(A, d);
			int64_t lo = n0 + (tlo > 0 ? tlo : 0), hi = thi < last - n0 ? n0 + thi : last;
			lo = ceil_div(lo, m) * m; /* the values the facts allow: multiples of m */
			hi = floor_div(hi, m) * m;
			if (lo <= n0)
				lo = n0 + m; /* n0 is done (n0 + m too: next) */
			if (lo <= hi) {
				Iv x = {lo, hi};
				APUSH(R->cx->arena, iv, niv, ivcap, x);
			}
		}
	if (niv)
		qsort(iv, niv, sizeof *iv, cmp_iv);
	int64_t next = n0 + 2 * m; /* the first value not yet run */
	for (size_t i = 0; i < niv && !R->done; i++)
		for (int64_t v = iv[i].lo > next ? iv[i].lo : next; v <= iv[i].hi && !R->done; v += m) {
			R->vals[sc->var] = v;
			race_run(R, per_cta);
			next = v + m;
		}
	return true;
}

struct Touch { uint64_t role; const Buffer *buf; bool found; };

/* a traced copy (not TMA or bulk: the mbarrier analysis checks those) that
 * warps of the role run, with the buffer on a side */
static void touch_of(void *ctx, const Stmt *s)
{
	struct Touch *t = ctx;
	if ((stmt_info[s->kind].flags & SF_COPY) && (!s->warps || (s->warps & t->role)) && !stmt_is_tma_load(s) &&
	    !stmt_is_tma_store(s) && !stmt_is_bulk_store(s) && (s->dst->buf == t->buf || s->src->buf == t->buf))
		t->found = true;
}

/* only the shared buffers the role's traced copies touch get a shadow (the
 * rest of shared memory would be reset at every run for nothing) */
static bool role_touches(const Kernel *k, uint64_t role, const Buffer *buf)
{
	struct Touch t = {role, buf, false};
	stmt_walk(k->body, k->nbody, touch_of, &t);
	return t.found;
}

/* the race check among the warps of `role` (every warp without roles);
 * false once it warned or stopped (one warning per kernel) */
static bool check_role_races(Ctx *cx, const Module *m, Kernel *k, uint64_t role)
{
	Race R = {.cx = cx, .m = m, .k = k, .budget = RACE_BUDGET, .epoch = 1, .kw = -1, .kr = -1, .xvar = -1, /* shadow epochs start at 0 */
	          .role = role, .roles = k->has_roles};
	R.bufs = arena_alloc(cx->arena, sizeof(Buffer *) * (k->nbufs + 1));
	R.sh = arena_alloc(cx->arena, sizeof(Sh *) * (k->nbufs + 1));
	R.bytes = arena_alloc(cx->arena, sizeof(int64_t) * (k->nbufs + 1));
	int64_t total = 0;
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->mem == MEM_SHARED && role_touches(k, role, k->bufs[i])) {
			R.bufs[R.nb] = k->bufs[i];
			R.bytes[R.nb] = k->bufs[i]->storage * dtype_bytes(k->bufs[i]->dt);
			total += R.bytes[R.nb++];
		}
	if (!R.nb || total > RACE_BUDGET)
		return true;
	for (size_t i = 0; i < R.nb; i++) {
		R.sh[i] = calloc((size_t)R.bytes[i] + 1, sizeof(Sh));
		if (!R.sh[i])
			out_of_budget(&R, NULL);
	}
	R.vals = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	/* every CTA runs the same accesses unless a shared region moves with ctaid:
	 * then each CTA is run (within the budget) */
	bool per_cta = false;
	stmt_walk(k->body, k->nbody, shared_uses_ctaid, &per_cta);
	stmt_walk(k->body, k->nbody, collect_twice, &R);
	/* likewise for each launch value of the scalars that move a shared region
	 * or count a repeat (a runtime trip count may be 0, which skips the
	 * loop's syncs): the values in increasing order (only those that change
	 * a region or a trip count), the largest after the first three, within
	 * the budget */
	ScUse *u = arena_alloc(cx->arena, sizeof *u);
	u->k = k;
	stmt_walk(k->body, k->nbody, scalar_uses, u);
	for (size_t i = 0; i < k->nscalars && i < 32; i++)
		if (u->moves[i] || u->counts[i])
			R.sc[R.nsc++] = (int)i;
	/* one scalar that only moves regions: decided exactly (race_exact) */
	bool decided = !R.nsc || (R.nsc == 1 && !u->counts[R.sc[0]] && race_exact(&R, per_cta, &k->scalars[R.sc[0]]));
	if (!R.nsc) {
		race_run(&R, per_cta);
	} else if (!decided) {
		R.budget = RACE_BUDGET; /* race_exact's first run found nothing */
		R.runtime = true;
		for (int i = 0; i < R.nsc; i++)
			R.vals[k->scalars[R.sc[i]].var] = first_value(&k->scalars[R.sc[i]]);
		for (int64_t runs = 0; !R.done && runs < (1 << 12); runs++) {
			if (runs == 3) { /* the largest values (the proofs' trip counts) early: their run may take the budget */
				int64_t saved[32];
				for (int i = 0; i < R.nsc; i++) {
					saved[i] = R.vals[k->scalars[R.sc[i]].var];
					R.vals[k->scalars[R.sc[i]].var] = last_value(&k->scalars[R.sc[i]]);
				}
				race_run(&R, per_cta);
				for (int i = 0; i < R.nsc; i++)
					R.vals[k->scalars[R.sc[i]].var] = saved[i];
				if (R.done)
					break;
			}
			race_run(&R, per_cta);
			int i = R.nsc - 1; /* odometer: the last scalar fastest */
			for (; i >= 0; i--) {
				const Scalar *sc = &k->scalars[R.sc[i]];
				int64_t nv = next_value(u, R.sc[i], R.vals[sc->var]);
				if (nv >= 0) {
					R.vals[sc->var] = nv;
					break;
				}
				R.vals[sc->var] = first_value(sc);
			}
			if (i < 0)
				break;
			if (runs + 1 == (1 << 12))
				out_of_budget(&R, NULL);
		}
	}
	if (!R.done && R.lane.found)
		warn_lanes(&R);
	if (R.stopped && !cx->diags.errors) /* said, never silent: nothing is sampled */
		race_incomplete(&R, per_cta);
	for (size_t i = 0; i < R.nb; i++)
		free(R.sh[i]);
	return !R.done;
}

/* split each role by a when block's warps: the warps that take the same
 * side of every when block (and meet at the same named barriers) form a role */
static void split_roles(void *ctx, const Stmt *s)
{
	uint64_t *roles = ctx; /* roles[0]: how many, then the roles */
	if (s->kind != ST_WHEN && !s->bar_id)
		return;
	for (int g = 0; g < (s->bar_id ? 16 : 1); g++) { /* a barrier id from wgid: each warpgroup apart */
		uint64_t set = s->bar_id ? s->warps & (uint64_t)0xf << (4 * g) : s->body_warps;
		for (uint64_t i = 1, n = roles[0]; i <= n; i++) {
			uint64_t in = roles[i] & set, out = roles[i] & ~set;
			if (in && out && roles[0] < 64) {
				roles[i] = in;
				roles[++roles[0]] = out;
			}
		}
	}
}

/* Races between the warps of one role, in every kernel (one role of every
 * warp without roles): each role's statements run as its own program, its
 * warps ordered by the barriers all of them take part in (sync, bar.sync of
 * the role). Accesses of different roles are the roles proof's (roles.c:
 * its clocks order them through mbarriers and shared named barriers). */
void check_races(Ctx *cx, const Module *m, Kernel *k)
{
	if (k->is_extern)
		return;
	uint64_t roles[65] = {1, kernel_all_warps(k)};
	stmt_walk(k->body, k->nbody, split_roles, roles);
	for (uint64_t i = 1; i <= roles[0]; i++)
		if (!check_role_races(cx, m, k, roles[i])) /* a role of one warp: its lanes */
			return;
}
