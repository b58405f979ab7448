/* The phase proof's frames (roles.c): a role's statements one at a time,
 * each kind's handler, the frames of its repeats and walks, and the
 * parities fitted to the waits of a kernel without roles. */
#include "roles_sim.h"

/* warp 4g of every warpgroup g */
#define WG_FIRST_WARPS 0x1111111111111111ull

/* a 2-D persistent walk: a runtime across loop whose only statement is
 * another; the proof runs it as one loop of the product's trips (the tiles
 * of the CTA), its indices being used only in global regions */
bool walk_outer(const Stmt *s)
{
	return s && s->kind == ST_REPEAT && s->across && s->trips_scalar && !s->running && s->nbody == 1 &&
	       s->body[0]->kind == ST_REPEAT && s->body[0]->across && s->body[0]->trips_scalar;
}

/* s's trip class, parent the statement whose body holds s (NULL: the
 * kernel's); -1 for constant loops and the outer loop of a walk */
int class_of(const TClass *cls, int ncls, const Stmt *s, const Stmt *parent)
{
	/* a count that uses an enclosing index is no class's (scan_runtime): it runs as evaluated */
	if (s->kind != ST_REPEAT || !stmt_runtime_trips(s) || walk_outer(s))
		return -1;
	const Stmt *o = walk_outer(parent) ? parent : NULL;
	for (int c = 0; c < ncls; c++)
		for (int i = 0; i < cls[c].nmembers; i++)
			if (cls[c].members[i] == s)
				return c;
	for (int c = 0; c < ncls; c++)
		if (!cls[c].nmembers && stmt_trips_same(cls[c].rep, s) && cls[c].across == s->across &&
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
	if (c == S->pto) /* per-tile counts: the walk ends where oend says (pt_next_trip) */
		return S->oend == 0 ? 0 : INT64_MAX;
	if (c == S->pt) { /* per-tile counts: the count chosen for the walk's trip */
		int64_t j = 0;
		for (int d = r->depth - 1; d >= 0; d--)
			if (pt_walk_frame(S, r, d)) {
				j = r->fr[d].j;
				break;
			}
		r->entries[c]++;
		return S->pt_endless && j == S->tknown - 1 ? S->cap : S->tc[j % PT_WIN];
	}
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

/* frame d of role r runs the walk whose trips choose per-tile counts */
bool pt_walk_frame(const RSim *S, const Role *r, int d)
{
	const RFrame *f = &r->fr[d];
	return f->blk && S->pto >= 0 && class_of(S->cls, S->ncls, f->blk, d ? r->fr[d - 1].blk : NULL) == S->pto;
}

/* per-tile counts: a role at the walk's next trip (f: its frame) ends the
 * walk at oend, or waits for the trip's count to be chosen (STEP_BLOCKED);
 * STEP_RAN: it goes on */
static int pt_next_trip(RSim *S, RFrame *f)
{
	int64_t nj = f->j + 1;
	if (S->oend >= 0 && nj >= S->oend)
		f->trips = nj;
	else if (nj >= S->tknown)
		return S->choose = true, STEP_BLOCKED;
	return STEP_RAN;
}

/* frame d of role r runs a loop of the class without end */
bool free_frame(const RSim *S, const Role *r, int d)
{
	const RFrame *f = &r->fr[d];
	return f->blk && S->free >= 0 && class_of(S->cls, S->ncls, f->blk, d ? r->fr[d - 1].blk : NULL) == S->free;
}

/* the statement handlers of role_step(): STEP_RAN when the statement is done
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
void store_fits(Ctx *cx, const Kernel *k, const Fits *F)
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

/* a wait after mbarrier.skip: try_wait.parity tells phase `want` from the
 * skipped phase before it only once that one has completed, so its
 * completion must happen before the wait (a role that waited for it itself
 * has that); else the wait could pass at once, on the old phase */
static int skipped_phase_open(RSim *S, Role *r, const Stmt *s, int64_t want)
{
	char name[96];
	rbar_name(S, r, s, name, sizeof name);
	RFAIL(S, s->loc, "this wait on %s is for phase %lld, but phase %lld, which this role skipped, may not have "
	      "completed before it: the wait's parity would match the phase before and pass at once", name,
	      (long long)want, (long long)want - 1);
	diag_note(S->cx, "order the wait after a role that waited for phase %lld (a named barrier between them)",
	          (long long)want - 1);
	return STEP_DONE;
}

/* mbarrier.skip: the role passes the barrier's next phase without waiting
 * for it (another role consumes it); its phase bit flips as at a wait */
static int on_skip(RSim *S, Role *r, const Stmt *s)
{
	int bi = rbar_of(S, r, s);
	if (!S->bars[bi].init) {
		char name[96];
		rbar_name(S, r, s, name, sizeof name);
		RFAIL(S, s->mbar_loc, "mbarrier.skip on %s before mbarrier.init", name);
		return STEP_DONE;
	}
	r->waits[bi]++;
	return STEP_RAN;
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
	if (want > b->completed ||
	    (want >= 1 && b->completed <= want + 1 && !vc_le(S, b->completed == want ? &b->done : &b->done_prev, &r->clock)))
		return skipped_phase_open(S, r, s, want);
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
 * are shared_access()'s; false after the failure */
static bool refill_met(RSim *S, Role *r, const Stmt *s)
{
	int64_t lo, hi;
	int me = role_of(S, r);
	if (!rspan(S, r, s->dst, &lo, &hi))
		return true;
	int b;
	for (int64_t i = rec_first(S, s->dst->buf, r->rank, &b); i >= 0; i = rec_next(S, b, i)) {
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
		shared_access(S, r, s, s->dst, true, &x, d);
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
	int b;
	for (int64_t i = rec_first(S, s->src->buf, r->rank, &b); i >= 0; i = rec_next(S, b, i)) {
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
	shared_access(S, r, s, s->src, false, &x, r->rank);
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
	shared_access(S, r, s, s->src, false, &x, r->rank);
	if (!S->failed)
		shared_access(S, r, s, s->dst, true, &x, r->rank);
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
void cpa_end_warning(RSim *S)
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
	shared_access(S, r, s, s->src, false, NULL, r->rank);
	if (!S->failed)
		shared_access(S, r, s, s->dst, true, NULL, r->rank);
	return STEP_RAN;
}

/* wgmma and the other warpgroup-wide statements: the warpgroup's threads meet
 * (and a one-warpgroup role's); wgmma reads its operands until its group is
 * retired by a wgmma.wait */
static void wg_effects(RSim *S, Role *r, const Stmt *s)
{
	int me = role_of(S, r);
	wg_sync(S, r, s);
	if (s->kind == ST_WG_MMA) {
		Pending x = {-1, 0};
		if (!wg_mma(S, r, s))
			return;
		shared_access(S, r, s, s->src, false, &x, r->rank);
		if (!S->failed)
			shared_access(S, r, s, s->mma_b, false, &x, r->rank);
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
		role_retired(S, r); /* not a fence's visibility: the instruction orders no memory */
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
	case ST_MBAR_SKIP:
		return on_skip(S, r, s);
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
		if (S->pt >= 0 && pt_walk_frame(S, r, r->depth - 1) && pt_next_trip(S, f) != STEP_RAN)
			return STEP_BLOCKED;
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
int role_step(RSim *S, Role *r)
{
	int st = next_frame(S, r);
	if (st != STEP_RAN)
		return st;
	RFrame *f = &r->fr[r->depth - 1];
	Stmt *s = f->body[f->i];
	if (S->pt >= 0 && S->tknown == 0 && S->oend != 0 && s->kind == ST_REPEAT &&
	    class_of(S->cls, S->ncls, s, f->blk) == S->pto) /* the walk's first trip: its count not chosen yet */
		return S->choose = true, STEP_BLOCKED;
	if (++S->steps > ROLE_STEPS) {
		RFAIL(S, s->loc, "more than %d statement instances: too many to %s", ROLE_STEPS,
		      S->k->has_roles ? "prove the kernel's roles" : S->wg && !S->k->nmbars ? "check the kernel's wgmma"
		                                                                            : "check the kernel's barrier phases");
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
	if (!S->failed)
		wg_registers(S, r, s);
	if (S->failed)
		return STEP_DONE;
	f->i++;
	return STEP_RAN;
}
