/* Warp roles: the multi-role phase proof of a kernel whose warps run
 * different statements (a producer warpgroup issuing TMA loads into a ring
 * of stages, consumer warpgroups computing on them, ordered by mbarriers).
 * Here is its driver: the roles (warps on the same side of every when
 * block), the runtime trip classes, the counts the proof runs and the
 * notes of a failed run (check_role_phases, below): the one async analysis
 * of every kernel, a kernel without when blocks being one role of every
 * warp (issue 35). Its state and its other files: roles_sim.h; the
 * statements' own checks: src/front/roles_check.c. */
#include "roles_sim.h"

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
			            s->trips_expr ? s->n : class_count(R->k, s->trips_scalar, s->trips_div, true), s, s, NULL, 0};
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

/* per-tile counts (roles_tiles.c): loops whose count uses the index of the
 * runtime repeat directly around them (a persistent walk's, itself inside
 * no repeat, without a running count), one expression in every role; the
 * proof lets each trip of the walk choose any count of the expression's
 * range for every role alike */
struct TileScan {
	Ctx *cx;
	const Kernel *k;
	const Stmt *o, *first;
	const Stmt *loops[64], *walks[64]; /* the loops and the repeats around them */
	int n;
	bool failed;
};

static bool per_tile_shape(const Kernel *k, const Stmt *s, const Stmt *rep, int depth)
{
	return s->kind == ST_REPEAT && s->trips_expr && trip_expr_uses_index(k, s->trips_expr) && rep && depth == 1 &&
	       stmt_runtime_trips(rep) && !walk_outer(rep) && !rep->running &&
	       !(rep->trips_expr && trip_expr_uses_index(k, rep->trips_expr)) && trip_expr_uses(s->trips_expr, rep->var);
}

/* the same terms in any order, variable va of a read as vb */
static int64_t coef_at(const Affine *a, int var, int va, int vb)
{
	int64_t k = 0;
	for (int j = 0; j < a->n; j++)
		k += (a->t[j].var == va ? vb : a->t[j].var) == var ? a->t[j].k : 0;
	return k;
}

static bool affine_same_at(const Affine *a, int va, const Affine *b, int vb)
{
	if (a->c != b->c)
		return false;
	for (int i = 0; i < a->n; i++) {
		int v = a->t[i].var == va ? vb : a->t[i].var;
		if (coef_at(a, v, va, vb) != coef_at(b, v, -1, -1))
			return false;
	}
	for (int i = 0; i < b->n; i++)
		if (coef_at(a, b->t[i].var, va, vb) != coef_at(b, b->t[i].var, -1, -1))
			return false;
	return true;
}

static bool trip_expr_same_at(const TripExpr *a, int va, const TripExpr *b, int vb)
{
	if (!a || !b)
		return a == b;
	if (a->op != b->op || a->d != b->d)
		return false;
	if (a->op == TE_AFFINE)
		return affine_same_at(&a->a, va, &b->a, vb);
	return trip_expr_same_at(a->x, va, b->x, vb) && trip_expr_same_at(a->y, va, b->y, vb);
}

static void scan_tiles(struct TileScan *T, Stmt *const *body, size_t n, const Stmt *rep, int depth)
{
	for (size_t i = 0; i < n && !T->failed; i++) {
		const Stmt *s = body[i];
		if (per_tile_shape(T->k, s, rep, depth)) {
			if (!T->first) {
				T->first = s, T->o = rep;
			} else if (!stmt_trips_same(T->o, rep) || T->o->across != rep->across || T->n == 64 ||
			           !trip_expr_same_at(T->first->trips_expr, T->o->var, s->trips_expr, rep->var)) {
				diag_error(T->cx, s->loc, "this repeat's count and the one at line %d both use the index of a "
				           "runtime repeat, but not as one expression of one index: the roles proof pairs such "
				           "loops trip by trip only when every role's count is the same", T->first->loc.line);
				diag_note(T->cx, "write the same count (the same terms) in every role, inside the same repeat");
				T->failed = true;
				return;
			}
			T->walks[T->n] = rep;
			T->loops[T->n++] = s;
		}
		if (s->nbody)
			scan_tiles(T, s->body, s->nbody, s->kind == ST_REPEAT ? s : rep, depth + (s->kind == ST_REPEAT));
	}
}

static bool per_tile_loop(const struct TileScan *T, const Stmt *s)
{
	for (int i = 0; T && i < T->n; i++)
		if (T->loops[i] == s)
			return true;
	return false;
}

/* counts the proof follows: one per CTA (ctaid, ctaid_y, scalars: a trip
 * class), or over enclosing indices only (evaluated as the roles run) */
struct CountCheck { Ctx *cx; const Kernel *k; bool failed; const struct TileScan *tiles; };
static void check_role_count(void *ctx, const Stmt *s)
{
	struct CountCheck *c = ctx;
	const TripExpr *e = s->kind == ST_REPEAT ? s->trips_expr : NULL;
	if (c->failed || !e)
		return;
	bool launch = trip_expr_uses(e, VAR_CTAID) || trip_expr_uses(e, VAR_CTAIDY);
	for (size_t i = 0; i < c->k->nscalars; i++)
		launch |= trip_expr_uses(e, c->k->scalars[i].var);
	if (launch && trip_expr_uses_index(c->k, e) && !per_tile_loop(c->tiles, s)) {
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
static bool role_loops_ok(Ctx *cx, const Kernel *k, struct TileScan *T)
{
	struct WalkCheck wc = {cx, k, false};
	stmt_walk(k->body, k->nbody, check_walk, &wc);
	scan_tiles(T, k->body, k->nbody, NULL, 0);
	struct CountCheck cc = {cx, k, wc.failed || T->failed, T};
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
static bool role_limits(Ctx *cx, Kernel *k, int nr, struct TileScan *T)
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
	return role_loops_ok(cx, k, T);
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
	*(bool *)ctx |= s->mbar > 0 || s->kind == ST_BULK_COMMIT || s->kind == ST_BULK_WAIT || s->kind == ST_WG_MMA ||
	                s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT ||
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

/* the loops of class c (of cls) that warps run, one after another */
static int walks_run(Stmt *const *body, size_t n, const Stmt *parent, const TClass *cls, uint64_t warps)
{
	int m = 0;
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		if (s->kind == ST_WHEN && !(warps & s->body_warps))
			continue;
		m += class_of(cls, 1, s, parent) == 0;
		if (s->nbody)
			m += walks_run(s->body, s->nbody, s, cls, warps);
	}
	return m;
}

/* per-tile counts: the walk (the only other runtime count, entered once
 * per role: a trip's count is the trip's in every walk) and the loops
 * inside it, proved by roles_tiles.c */
static void prove_per_tile(Ctx *cx, Kernel *k, const uint64_t *roles, int nr, const struct RtScan *rt,
                           const struct TileScan *T, int before)
{
	bool one = rt->n == 1;
	for (int i = 0; i < T->n && one; i++)
		one = class_of(rt->cls, 1, T->walks[i], NULL) == 0;
	for (int x = 0; x < nr && one; x++)
		one = walks_run(k->body, k->nbody, NULL, rt->cls, roles[x]) <= 1;
	if (!one) {
		diag_error(cx, T->first->loc, "this repeat's count uses the index of the runtime repeat at line %d: the "
		           "roles proof takes it with no other runtime count in the kernel, and that repeat's loops entered "
		           "once per role (not yet)", T->o->loc.line);
		return;
	}
	TClass cls[2];
	cls[0] = rt->cls[0];
	cls[1] = (TClass){0, 0, 0, 0, 0, 0, T->first->trips_lo, T->first->n, T->first, T->first, T->loops, T->n};
	ViewCache views = {0};
	bool warned = false;
	Fits fits = {0};
	prove_tiles(cx, k, roles, nr, cls, 0, 1, &views, &warned, k->has_roles ? NULL : &fits);
	if (cx->diags.errors == before)
		store_fits(cx, k, &fits);
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
	struct TileScan T = {.cx = cx, .k = k};
	if (cx->diags.errors != before || !role_partition(cx, k, roles, &nr) || !role_limits(cx, k, nr, &T))
		return;
	struct RtScan rt = {.k = k};
	scan_runtime(&rt, k->body, k->nbody, NULL);
	if (T.first) {
		prove_per_tile(cx, k, roles, nr, &rt, &T, before);
		return;
	}
	Proof P = {cx, k, roles, nr, {{0}}, rt.n > 2 ? 2 : rt.n, 0, -1, {0}, NULL, NULL, {0}, 0, false, NULL};
	memcpy(P.cls, rt.cls, sizeof P.cls);
	Fits fits = {0};
	prove_roles(&P, &rt, k->has_roles ? NULL : &fits);
	if (cx->diags.errors == before)
		store_fits(cx, k, &fits);
}
