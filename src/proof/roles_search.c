/* The phase proof's runs and loop invariant (roles.c): a run's state at
 * each round as a signature, runs copied and resumed, the rounds of a
 * run until its end or the round its state repeats, and the checks at
 * the end of a run (a hang, a TMA load or a signal left over). */
#include "roles_sim.h"

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
	size_t w = (size_t)S->nclk, rows = (size_t)(S->nr + 3 * S->nbars) + live + 2 * nbs;
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
		ROW(S->bars[b].done_prev);
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
		/* a committed group's distance from the role's newest decides which wait retires it; once the
		 * record is complete nothing reads its group again (commit and wait skip complete records; a
		 * complete store's is -2): a constant, or a wgmma read of Q that no write supersedes would
		 * count every later group into the state and no round would repeat (the attention kernels) */
		int64_t group = x->group < 0 ? x->group : x->complete ? -3 : groups - x->group;
		int64_t v[] = {x->lo, x->hi, x->role, x->write, x->complete, x->bar,
		               x->bar >= 0 ? S->bars[x->bar].completed - x->phase : 0, group, x->proxy};
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

/* role r's wgmma state (roles_wgmma.c) by what decides its future: the
 * flags and statements since the last fence, each wgmma in flight with its
 * group's distance from the newest */
static void sig_wgmma(const RSim *S, const Role *r, char **at)
{
	if (!S->nwgregs)
		return;
	sig_put(at, r->wg_fence);
	sig_ptr(at, r->wg_commit);
	for (int b = 0; b < S->nwgregs; b++)
		sig_ptr(at, r->wg_touch[b]);
	sig_put(at, r->nwgf);
	for (int i = 0; i < r->nwgf; i++) {
		sig_ptr(at, r->wgf[i].s);
		sig_put(at, r->wgf[i].group < 0 ? -1 : r->wg_groups - r->wgf[i].group);
	}
}

/* the joint state at a round boundary: equal strings, equal futures (clock
 * values by their order per component, runtime loop indices relative to
 * the slowest role and by their residue); the clocks go to their own
 * array, compared by same_round */
/* per-tile counts: the least trip of the walk a role is in (its first
 * unknown trip when none is) */
static int64_t pt_walk_min(const RSim *S)
{
	int64_t m = S->tknown;
	for (int x = 0; S->pt >= 0 && x < S->nr; x++)
		for (int d = 0; d < S->r[x].depth; d++)
			if (pt_walk_frame(S, &S->r[x], d) && S->r[x].fr[d].j < m)
				m = S->r[x].fr[d].j;
	return m;
}

/* per-tile counts: the walk's slowest trip by its residue, the counts
 * chosen since, its end */
static void sig_tiles(const RSim *S, char **sp, int64_t ojmin, int64_t L)
{
	if (S->pt < 0)
		return;
	sig_put(sp, ojmin % L);
	sig_put(sp, S->tknown - ojmin);
	sig_put(sp, S->oend >= 0 ? S->oend - ojmin : -1);
	sig_put(sp, S->pt_endless);
	for (int64_t j = ojmin; j < S->tknown && j - ojmin < PT_WIN; j++)
		sig_put(sp, S->tc[j % PT_WIN]);
}

void round_sig(RSim *S, Str *o, Clocks *clocks, int64_t *jmin_out, int64_t *jmax_out)
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
	int64_t ojmin = pt_walk_min(S);
	*jmin_out = jmin;
	*jmax_out = jmax;
	/* the values below: 3 + 2 per thread barrier; per role 14, 3 per frame, its running counts and 3 per
	 * barrier; per barrier 8; per record 19 */
	size_t need = 10 * (size_t)(8 + PT_WIN + S->nr * (15 + 4 * (MAX_REPEAT_DEPTH + 2) + S->k->nvars + 3 * S->nbars +
	                                         3 + MAX_WG_REGS + 2 * MAX_WG_FLIGHT) +
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
			sig_put(&sp, S->pt >= 0 && pt_walk_frame(S, r, d) ? f->j - ojmin : rt ? f->j - jmin : f->j);
			if (S->pt >= 0) /* per-tile counts: a frame's count (a searched loop's trips left, unless endless) */
				sig_put(&sp, !rt ? f->trips : f->trips != S->cap ? f->trips - f->j : -1);
		}
		for (int v = VAR_REPEAT0; v < S->k->nvars; v++) /* running counts matter by their residues */
			if (S->k->var_base[v] == VAR_RUNNING)
				sig_put(&sp, r->vals[v] % L);
		if (S->free >= 0) /* entries of the free class's loops: before the endless one, or it */
			sig_put(&sp, r->entries[S->free] < S->free_entry ? r->entries[S->free] : S->free_entry);
		sig_wgmma(S, r, &sp);
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
	sig_tiles(S, &sp, ojmin, L);
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

void scan_cpa(void *ctx, const Stmt *s) { *(bool *)ctx |= is_cpa(s); }

static void scan_mc(void *ctx, const Stmt *s) { *(bool *)ctx |= stmt_info[s->kind].issue == AI_COPY && s->mcast; }

RSim *rsim_new(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const TClass *cls, int ncls)
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
	S->pt = S->pto = -1;
	S->oend = -1;
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
	wg_scan(S);
	return S;
}

void rsim_free(RSim *S)
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
RSim *rsim_copy(RSim *C, const RSim *S)
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
		vc_copy(S, &d->acc, &f->acc), vc_copy(S, &d->done, &f->done), vc_copy(S, &d->done_prev, &f->done_prev);
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

void rounds_free(Rounds *R)
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

bool rsim_run(RSim *S, Rounds *own, int64_t *trans, int64_t *period)
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
	return wg_end(S) && end_multicast(S);
}

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

int rsim_round(RSim *S)
{
	bool progress = false, live = false;
	for (int x = 0; x < S->nr && !S->failed; x++) {
		Role *r = &S->r[x];
		int st;
		while ((st = role_step(S, r)) == STEP_RAN)
			progress = true;
		progress |= st == STEP_YIELD;
		live |= st == STEP_BLOCKED || st == STEP_YIELD;
	}
	if (!S->failed && (!live || !progress) && resolve_all(S)) /* a phase held open by an expect_tx without bytes */
		return S->failed ? ROUND_FAILED : ROUND_ON;
	if (S->failed)
		return ROUND_FAILED;
	if (S->choose && S->pt_mode == 1) /* a role at a walk trip whose count is not chosen yet */
		return ROUND_CHOOSE;
	S->choose = false;
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

int round_check(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t round, int64_t *trans,
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

bool rsim_rounds(RSim *S, Rounds *own, Rounds *pre, int64_t npre, int64_t start, int64_t *trans,
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

bool rsim_end_checks(RSim *S) { return end_checks(S); }
