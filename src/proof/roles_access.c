/* The phase proof's shared accesses (roles.c): each access's byte span,
 * its records (per buffer and CTA, in order), and the check that it is
 * ordered after every conflicting record (a race otherwise). */
#include "roles_sim.h"

/* the byte span of a shared region for the role's current indices (hull
 * over the other variables, whole swizzle spans) */
bool rspan(RSim *S, Role *r, const Region *reg, int64_t *lo, int64_t *hi)
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

/* the first record that may touch buf in CTA rank's shared memory, -1:
 * none; with rec_next, its bucket's chain in order, or every record in
 * order when it has no bucket (a record's bucket is made with it: only a
 * buffer past MAX_BUCKETS has none) */
int64_t rec_first(const RSim *S, const Buffer *buf, int rank, int *bkt)
{
	for (int b = 0; b < S->nbk; b++)
		if (S->bk[b].buf == buf && S->bk[b].rank == rank)
			return *bkt = b, S->bk[b].head;
	*bkt = -1;
	return S->nrecs ? 0 : -1;
}

int64_t rec_next(const RSim *S, int bkt, int64_t i)
{
	if (bkt >= 0)
		return S->recs[i].next;
	return (size_t)i + 1 < S->nrecs ? i + 1 : -1;
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

void shared_access(RSim *S, Role *r, const Stmt *s, const Region *reg, bool write, const Pending *out, int rank)
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
