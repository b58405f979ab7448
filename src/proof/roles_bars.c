/* The phase proof's barriers (roles.c): warp sets, the uses of each named
 * barrier id, mbarrier signals and phases, hand-offs of writes, and the
 * thread barriers (sync, bar.sync, bar.arrive, cluster.sync). */
#include "roles_sim.h"

/* every warpgroup is in the set entirely or not at all */
bool whole_warpgroups(uint64_t warps)
{
	for (int g = 0; g < 16; g++) {
		uint64_t m = (uint64_t)0xf << (4 * g);
		if ((warps & m) && (warps & m) != m)
			return false;
	}
	return true;
}

void fmt_warps(char *out, size_t n, uint64_t warps)
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

/* the warps of s that use barrier id (an id from wgid: each warpgroup its own) */
uint64_t nbar_warps(const Stmt *s, int64_t id)
{
	uint64_t m = 0;
	for (int w = 0; w < 64; w++)
		if ((s->warps >> w & 1) && nbar_id_at(s, w) == id)
			m |= (uint64_t)1 << w;
	return m;
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
			if (32 * __builtin_popcountll(all) > s->count) {
				char ws[96], fs[96];
				fmt_warps(ws, sizeof ws, mine);
				fmt_warps(fs, sizeof fs, nbar_warps(first, id));
				diag_error(cx, s->loc, "barrier %d is used here (warps %s) and at line %d (warps %s): %lld threads "
				           "in all, but any %lld arrivals complete it", id, ws, first->loc.line, fs,
				           (long long)(32 * __builtin_popcountll(all)), (long long)s->count);
				diag_note(cx, "two hand-offs on one barrier id can complete each other's phases (a reader passes "
				          "before its writer): give each its own id");
				return;
			}
		}
		for (size_t i = 0; i < u.n; i++) {
			const Stmt *s = u.s[i];
			if (!nbar_warps(s, id) || 32 * __builtin_popcountll(all) >= s->count)
				continue;
			char ws[96];
			fmt_warps(ws, sizeof ws, all);
			diag_error(cx, s->loc, "only %lld threads reach this barrier, COUNT is %lld: barrier %d never completes "
			           "(a hang)", (long long)(32 * __builtin_popcountll(all)), (long long)s->count, id);
			diag_note(cx, "warps %s use barrier %d; COUNT is the threads of every bar.sync and bar.arrive on the id "
			          "together", ws, id);
			return;
		}
	}
}

/* role r passed a wait on barrier bi since its threads last met */
bool lag_on(const Role *r, int64_t bi)
{
	return r->waits[bi] > 0 && r->pass_t[bi] > r->met_t;
}

void threads_met(RSim *S, Role *r)
{
	r->lag_all = false;
	r->met_t = r->clock.t[role_of(S, r)];
}

/* an arrival, expect_tx or TMA bytes on barrier bi by role r */
bool signal_ok(RSim *S, Role *r, const Stmt *s, int bi, bool one_thread)
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

void bar_label(const RSim *S, int bi, char *out, size_t n)
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
void try_complete(RSim *S, int bi, const Stmt *at)
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
	vc_copy(S, &b->done_prev, &b->done);
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
void resolve_deferred(RSim *S, Role *r)
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

int64_t tma_bytes(const Stmt *s)
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
void role_met(RSim *S, Role *r)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++)
		if (S->recs[i].role == me && S->recs[i].proxy == PROXY_FENCED)
			S->recs[i].proxy = PROXY_VISIBLE;
	role_retired(S, r);
}

/* the role's threads meet at a warpgroup instruction (.sync.aligned): the
 * issuing thread's knowledge is shared, though no memory is ordered */
void role_retired(RSim *S, Role *r)
{
	int me = role_of(S, r);
	for (size_t i = 0; i < S->nrecs; i++) {
		Rec *x = &S->recs[i];
		if (x->role != me)
			continue;
		if (x->group == -2 && !x->complete) {
			x->complete = true;
			vc_zero(S, &x->vc);
			x->vc.t[me] = r->clock.t[me];
			x->one = me;
		}
	}
}

/* an arrival of every thread of role r releases all their writes; one
 * thread's (per warp, per warpgroup, one per role, expect_tx) releases its
 * own only: the role's writes since its threads last met are hidden
 * (HIDDEN: no clock is ordered after them) until they meet or all arrive.
 * Writes only: the hand-off a reader waits for (issue 35, item 2) */
enum { HIDDEN = INT32_MAX };

void hand_off(RSim *S, Role *r, const Stmt *s)
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

bool named_barrier(RSim *S, Role *r, const Stmt *s, int id, int64_t count, bool wait)
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
		if (id >= NB_WARPGROUP) /* a warpgroup instruction's meeting orders no memory: neither for the async */
			role_retired(S, r); /* proxy nor for a one-thread arrival (role_synced), as a whole warpgroup's */
		else
			role_met(S, r), role_synced(S, r);
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
