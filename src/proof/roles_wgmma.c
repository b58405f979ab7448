/* wgmma's register and proxy rules in the phase proof (roles.c), the one
 * async analysis: each role (every warpgroup of a role runs the same
 * statements, so one state stands for each of them; a warpgroup split
 * among roles runs its wgmma statements in every one of them) keeps the
 * wgmma statements in flight with their group, whether its threads touched
 * an accumulator or RS A fragment since the last wgmma.fence, and whether a
 * wgmma.commit came since. The shared operands are records of the proof
 * (roles_access.c): read until a wgmma.wait retires their group. All of it
 * is in the round state by what decides the future (a flag, a statement, a
 * group's distance from the newest), so the invariant search stays exact. */
#include "roles_sim.h"
#include "wgmma_plan.h"

static void scan_wgregs(void *ctx, const Stmt *s)
{
	RSim *S = ctx;
	S->wg |= s->kind == ST_WG_MMA || s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT;
	if (s->kind != ST_WG_MMA)
		return;
	const Buffer *regs[2] = {s->dst->buf, s->wg->rs ? s->src->buf : NULL};
	for (int i = 0; i < 2 && !S->wg_over; i++) {
		bool seen = !regs[i];
		for (int b = 0; b < S->nwgregs && !seen; b++)
			seen = S->wgregs[b] == regs[i];
		if (seen)
			continue;
		if (S->nwgregs == MAX_WG_REGS) {
			S->wg_over = true;
			RFAIL(S, s->loc, "more than %d register buffers that wgmma accumulates into or reads A from", MAX_WG_REGS);
			return;
		}
		S->wgregs[S->nwgregs++] = regs[i];
	}
}

/* the kernel's wgmma registers (accumulators and RS A fragments) */
void wg_scan(RSim *S)
{
	stmt_walk(S->k->body, S->k->nbody, scan_wgregs, S);
}

static int wgreg_of(const RSim *S, const Buffer *b)
{
	for (int i = 0; i < S->nwgregs; i++)
		if (S->wgregs[i] == b)
			return i;
	return -1;
}

/* a wgmma in flight in role r whose accumulator (or RS A fragment) overlaps
 * the local region reg */
static const Stmt *acc_in_flight(const Role *r, const Region *reg)
{
	for (int i = 0; i < r->nwgf; i++) {
		const Stmt *m = r->wgf[i].s;
		for (int which = 0; which < 2; which++) {
			if (which ? !(m->wg->rs && m->src->buf == reg->buf) : m->dst->buf != reg->buf)
				continue;
			const int64_t(*box)[2] = which ? m->wg->abox : m->wg->dbox;
			bool meet = true;
			for (int d = 0; d < reg->ndim && meet; d++) {
				int64_t lo = 0, hi = reg->buf->shape[d];
				if (!reg->whole && !reg->all[d] && affine_is_const(&reg->begin[d])) {
					lo = reg->begin[d].c;
					hi = lo + reg->ext[d];
				}
				meet = lo < box[d][1] && box[d][0] < hi;
			}
			if (meet)
				return m;
		}
	}
	return NULL;
}

struct RegVisit { RSim *S; Role *r; const Stmt *s; };

static void reg_visit(void *ctx, const Region *reg, bool write)
{
	struct RegVisit *V = ctx;
	RSim *S = V->S;
	int b;
	if (S->failed || !reg || !reg->buf || reg->buf->mem != MEM_LOCAL || (b = wgreg_of(S, reg->buf)) < 0)
		return;
	const Stmt *m = acc_in_flight(V->r, reg);
	if (m) {
		RFAIL(S, V->s->loc, "'%s' %s %s '%s' while the wgmma at line %d is in flight%s",
		      stmt_info[V->s->kind].keyword, write ? "writes" : "reads",
		      reg->buf == m->dst->buf ? "the accumulator" : "the A fragment", reg->buf->name, m->loc.line,
		      role_paren(S, V->r));
		diag_note(S->cx, "wgmma.commit, then wgmma.wait N covering it, before its registers are touched");
		return;
	}
	V->r->wg_touch[b] = V->s;
}

/* statement s of role r (not a wgmma statement) touches registers: none of
 * an in-flight wgmma's, and a later wgmma needs a wgmma.fence after it */
void wg_registers(RSim *S, Role *r, const Stmt *s)
{
	if (!S->nwgregs || s->kind == ST_WG_MMA || s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT ||
	    s->kind == ST_WG_WAIT)
		return;
	struct RegVisit V = {S, r, s};
	stmt_regions(s, reg_visit, &V);
}

/* threads' writes the async proxy cannot see yet: a wgmma operand needs
 * fence.proxy_async after them and then a sync or bar.sync of the writers
 * (a warpgroup instruction is no meeting here: it orders nothing in memory) */
static bool proxy_ok(RSim *S, Role *r, const Stmt *s, const Region *reg)
{
	int64_t lo, hi;
	if (!reg || !reg->buf || reg->buf->mem != MEM_SHARED || !rspan(S, r, reg, &lo, &hi))
		return true;
	int b;
	for (int64_t i = rec_first(S, reg->buf, r->rank, &b); i >= 0; i = rec_next(S, b, i)) {
		const Rec *x = &S->recs[i];
		if (x->dead || x->buf != reg->buf || x->rank != r->rank || x->hi < lo || hi < x->lo || !x->write ||
		    x->proxy == PROXY_VISIBLE)
			continue;
		RFAIL(S, s->loc, "the wgmma reads '%s', which threads wrote at line %d%s, without %s", reg->buf->name,
		      x->s->loc.line, role_paren(S, &S->r[x->role]),
		      x->proxy == PROXY_UNFENCED ? "fence.proxy_async and sync" : "a sync after the fence");
		diag_note(S->cx, "wgmma reads shared memory through the async proxy: thread writes need fence.proxy_async, "
		          "then sync (or bar.sync among the writers), before it");
		return false;
	}
	return true;
}

/* a wgmma of role r: the fence rules, its registers, its operands' proxy */
bool wg_mma(RSim *S, Role *r, const Stmt *s)
{
	if (!r->wg_fence) {
		RFAIL(S, s->loc, "no wgmma.fence before the first wgmma%s", role_paren(S, r));
		diag_note(S->cx, "wgmma.fence orders the warpgroup's register accesses before the wgmma reads them");
		return false;
	}
	if (r->wg_commit) {
		RFAIL(S, s->loc, "no wgmma.fence between the wgmma.commit at line %d and this wgmma%s", r->wg_commit->loc.line,
		      role_paren(S, r));
		diag_note(S->cx, "each chain is wgmma.fence, its wgmmas, wgmma.commit: ptxas serialises (C7515) or patches "
		          "(C7519) the wgmmas of a chain it cannot see whole");
		return false;
	}
	int d = wgreg_of(S, s->dst->buf), a = s->wg->rs ? wgreg_of(S, s->src->buf) : -1;
	int b = a >= 0 && r->wg_touch[a] ? a : d;
	if (b >= 0 && r->wg_touch[b]) {
		RFAIL(S, s->loc, "no wgmma.fence between the access of '%s' at line %d and this wgmma%s", S->wgregs[b]->name,
		      r->wg_touch[b]->loc.line, role_paren(S, r));
		diag_note(S->cx, "a wgmma that reads or writes registers a thread accessed needs a wgmma.fence between them");
		return false;
	}
	if (!proxy_ok(S, r, s, s->src) || !proxy_ok(S, r, s, s->mma_b))
		return false;
	for (int i = 0; i < r->nwgf; i++)
		if (r->wgf[i].s == s) { /* its newer instance: in flight as long as any older one */
			r->wgf[i].group = -1;
			return true;
		}
	if (r->nwgf == MAX_WG_FLIGHT) {
		RFAIL(S, s->loc, "more than %d wgmma statements in flight in one warpgroup", MAX_WG_FLIGHT);
		return false;
	}
	r->wgf[r->nwgf++] = (WgFlight){s, -1};
	return true;
}

/* wgmma.fence, wgmma.commit, wgmma.wait N of role r (its wg_groups counts
 * the commits before this one) */
void wg_sync(RSim *S, Role *r, const Stmt *s)
{
	if (s->kind == ST_WG_FENCE) {
		r->wg_fence = true;
		r->wg_commit = NULL;
		memset(r->wg_touch, 0, sizeof r->wg_touch);
	} else if (s->kind == ST_WG_COMMIT) {
		r->wg_commit = s;
		for (int i = 0; i < r->nwgf; i++)
			if (r->wgf[i].group < 0)
				r->wgf[i].group = r->wg_groups;
	} else if (s->kind == ST_WG_WAIT) {
		int k = 0;
		for (int i = 0; i < r->nwgf; i++)
			if (r->wgf[i].group < 0 || r->wgf[i].group >= r->wg_groups - s->n)
				r->wgf[k++] = r->wgf[i];
		r->nwgf = k;
	}
	(void)S;
}

/* the end of a run: no wgmma of any role in flight */
bool wg_end(RSim *S)
{
	for (int x = 0; x < S->nr; x++) {
		const Role *r = &S->r[x];
		if (!r->nwgf)
			continue;
		const WgFlight *f = &r->wgf[0];
		if (f->group < 0)
			RFAIL(S, f->s->loc, "the wgmma is never committed: the kernel ends with it in flight%s", role_paren(S, r));
		else
			RFAIL(S, f->s->loc, "the kernel ends while this wgmma may be in flight: no wgmma.wait covers its group%s",
			      role_paren(S, r));
		diag_note(S->cx, "after the last chain: wgmma.commit, then wgmma.wait 0");
		return false;
	}
	return true;
}
