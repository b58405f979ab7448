/* The statement walker (src/base/walk.c): its repeat policies (every trip, the
 * launch count, two trips for a runtime count, a hook that runs the trips
 * itself), when blocks, the hooks' order and the budget. The analyses that
 * walk with it (races, the async and wgmma simulations) are covered by the
 * suite's programs; this pins the walker's own contract, and that the
 * stepping form (walk_next, on which walk_stmts is built) walks as the
 * recursive walker it replaced did (kept below as the oracle), on random
 * statement trees under every policy, and that cursors interleave. */
#include "unit.h"
#include "walk.h"

typedef struct Log {
	char s[256];
	int n;
} Log;

static void say(Log *l, const char *fmt, int64_t v)
{
	l->n += snprintf(l->s + l->n, sizeof l->s - (size_t)l->n, fmt, (long long)v);
}

static bool on_stmt(Walk *w, const Stmt *s)
{
	Log *l = w->ctx;
	say(l, "s%lld", s->n); /* a sync's n: its name in the log */
	for (int v = VAR_REPEAT0; v < w->k->nvars; v++)
		say(l, ".%lld", w->vals[v]);
	say(l, " ", 0);
	return true;
}

static void on_exit(Walk *w, const Stmt *s) { (void)s, say(w->ctx, "x ", 0); }
static bool on_when(Walk *w, const Stmt *s) { (void)s, say(w->ctx, "w ", 0); return true; }
static void on_over(Walk *w, const Stmt *s) { say(w->ctx, "over%lld ", s->n); }

/* the hook runs trips 0 and 2 itself (an induction would pick its own) */
static int64_t own_trips(Walk *w, const Stmt *s)
{
	walk_trip(w, s, 0);
	walk_trip(w, s, 2);
	return WALK_OWN;
}

static bool stop_at_2(Walk *w, const Stmt *s) { return on_stmt(w, s) && s->n != 2; }

static Stmt mk_stmt(StmtKind kind, int64_t n) { return (Stmt){.kind = kind, .n = n}; }


/* ---- the oracle: the recursive walker as it was before the cursor ---- */
static bool o_spend(Walk *w, const Stmt *s, int64_t cost)
{
	if (!w->budget || (*w->budget -= cost) >= 0)
		return true;
	if (w->over)
		w->over(w, s);
	w->stop = true;
	return false;
}

static void o_stmts(Walk *w, Stmt **body, size_t n);

static void o_trip(Walk *w, const Stmt *s, int64_t j)
{
	kernel_set_var(w->k, w->vals, s->var, j);
	if (w->trip && !w->trip(w, s, j)) {
		w->stop = true;
		return;
	}
	o_stmts(w, s->body, s->nbody);
	if (w->trip_end && !w->stop)
		w->trip_end(w, s, j);
}

static void o_repeat(Walk *w, const Stmt *s)
{
	int64_t n = (w->trips ? w->trips : walk_trips_all)(w, s);
	if (n == WALK_OWN)
		return;
	for (int64_t j = 0; j < n && !w->stop; j++) {
		if (w->trip_cost && !o_spend(w, s, w->trip_cost))
			break;
		o_trip(w, s, j);
	}
	kernel_set_var(w->k, w->vals, s->var, 0);
	if (w->repeat_exit)
		w->repeat_exit(w, s);
}

static void o_stmts(Walk *w, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n && !w->stop; i++) {
		const Stmt *s = body[i];
		w->steps++;
		if (!o_spend(w, s, 1))
			return;
		if (s->kind == ST_WHEN) {
			if (w->when && w->when(w, s)) {
				o_stmts(w, s->body, s->nbody);
				if (w->when_exit)
					w->when_exit(w, s);
			}
		} else if (stmt_info[s->kind].flags & SF_BLOCK) {
			o_repeat(w, s);
		} else if (w->stmt && !w->stmt(w, s)) {
			w->stop = true;
		}
	}
}

/* ---- random trees, and a log of every hook call with the values ---- */
enum { NODES = 400, NVARS = VAR_REPEAT0 + 8 };
typedef struct Tree {
	Stmt node[NODES];
	Stmt *slot[NODES];
	int nnode, nslot, nrep;
	uint32_t seed;
} Tree;

static uint32_t pick(Tree *t, uint32_t m)
{
	t->seed = t->seed * 1103515245u + 12345u;
	return (t->seed >> 8) % m;
}

static Stmt **gen_body(Tree *t, int depth, size_t *n)
{
	*n = pick(t, 4);
	Stmt **b = &t->slot[t->nslot];
	t->nslot += (int)*n;
	for (size_t i = 0; i < *n; i++) {
		Stmt *s = &t->node[t->nnode++];
		*s = (Stmt){.kind = ST_SYNC, .n = t->nnode};
		b[i] = s;
		uint32_t r = pick(t, 8);
		if (depth < 3 && r < 2 && t->nrep < 6) {
			s->kind = ST_REPEAT, s->n = 1 + pick(t, 3), s->var = VAR_REPEAT0 + t->nrep++;
			if (pick(t, 2))
				s->trips_scalar = 1, s->trips_div = 1 + pick(t, 2), s->n = 4;
			s->body = gen_body(t, depth + 1, &s->nbody);
		} else if (depth < 3 && r == 2) {
			s->kind = ST_WHEN;
			s->body = gen_body(t, depth + 1, &s->nbody);
		}
	}
	return b;
}

typedef struct Run {
	char log[1 << 16];
	size_t n;
	int stmts, stop_at, trips_left; /* the stmt hook says stop at its stop_at-th call; the trip hook after trips_left */
	void (*trip_fn)(Walk *, const Stmt *, int64_t); /* walk_trip, or the oracle's */
} Run;

static void rlog(Walk *w, const char *what, const Stmt *s, int64_t j)
{
	Run *r = w->ctx;
	if (r->n + 64 >= sizeof r->log)
		return;
	r->n += (size_t)snprintf(r->log + r->n, sizeof r->log - r->n, "%s%d.%lld", what, (int)s->n,
	                         (long long)j);
	for (int v = VAR_REPEAT0; v < w->k->nvars; v++)
		r->n += (size_t)snprintf(r->log + r->n, sizeof r->log - r->n, ",%lld", (long long)w->vals[v]);
	r->log[r->n++] = ' ';
	r->log[r->n] = 0;
}

static bool r_stmt(Walk *w, const Stmt *s)
{
	Run *r = w->ctx;
	rlog(w, "s", s, w->steps);
	return ++r->stmts != r->stop_at;
}
static bool r_trip(Walk *w, const Stmt *s, int64_t j)
{
	Run *r = w->ctx;
	rlog(w, "t", s, j);
	return r->trips_left-- != 0;
}
static void r_trip_end(Walk *w, const Stmt *s, int64_t j) { rlog(w, "e", s, j); }
static void r_exit(Walk *w, const Stmt *s) { rlog(w, "x", s, 0); }
static bool r_when(Walk *w, const Stmt *s) { rlog(w, "w", s, 0); return s->n % 3 != 0; }
static void r_when_exit(Walk *w, const Stmt *s) { rlog(w, "y", s, 0); }
static void r_over(Walk *w, const Stmt *s) { rlog(w, "o", s, 0); }
/* an induction's stand-in: trips 0 and the last, run by the hook (a runtime count), else every trip */
static int64_t r_own(Walk *w, const Stmt *s)
{
	Run *r = w->ctx;
	if (!s->trips_scalar)
		return walk_trips_all(w, s);
	int64_t n = walk_trips_launch(w, s);
	rlog(w, "own", s, n);
	for (int64_t j = 0; j < n && !w->stop; j += n > 1 ? n - 1 : 1)
		r->trip_fn(w, s, j);
	kernel_set_var(w->k, w->vals, s->var, 0);
	return WALK_OWN;
}

static int64_t (*const policies[])(Walk *, const Stmt *) = {NULL, walk_trips_all, walk_trips_launch, walk_trips_two,
                                                           r_own};

/* a walk under variant v (policy, hooks, budget, stop) by the oracle or the cursor */
static void setup(Walk *w, Run *r, const Kernel *k, int64_t *vals, int64_t *budget, int v, bool oracle)
{
	*r = (Run){.stop_at = v & 8 ? 7 : -1, .trips_left = v & 16 ? 5 : -1, .trip_fn = oracle ? o_trip : walk_trip};
	*budget = v & 32 ? 25 : 1 << 30;
	*w = (Walk){.k = k, .vals = vals, .budget = v & 64 ? NULL : budget, .trip_cost = v & 128 ? 1 : 0, .ctx = r,
	            .stmt = r_stmt, .trips = policies[v % 5], .trip = v & 16 ? r_trip : NULL,
	            .trip_end = r_trip_end, .repeat_exit = r_exit, .when = v & 256 ? NULL : r_when,
	            .when_exit = r_when_exit, .over = r_over};
}

static void same_as_oracle(void)
{
	static Tree t;
	static Run a, b, c2;
	int differ = 0, walks = 0, deep = 0;
	int var_base[NVARS];
	int64_t var_mod[NVARS], var_off[NVARS];
	for (int v = 0; v < NVARS; v++)
		var_base[v] = -1, var_mod[v] = 1, var_off[v] = 0;
	var_base[VAR_REPEAT0 + 6] = VAR_REPEAT0, var_mod[VAR_REPEAT0 + 6] = 2, var_off[VAR_REPEAT0 + 6] = 1; /* (i + 1) % 2 */
	Scalar sc = {.name = "N", .var = VAR_REPEAT0 + 7};
	Kernel k = {.nvars = NVARS, .scalars = &sc, .nscalars = 1, .var_base = var_base, .var_mod = var_mod,
	            .var_off = var_off};
	for (uint32_t seed = 1; seed <= 300; seed++) {
		t = (Tree){.seed = seed};
		size_t n;
		Stmt **body = gen_body(&t, 0, &n);
		for (int v = 0; v < 512; v += 1 + (int)(seed % 3)) {
			int64_t va[NVARS] = {0}, vb[NVARS] = {0}, ba, bb;
			va[sc.var] = vb[sc.var] = seed % 6;
			Walk wa, wb;
			setup(&wa, &a, &k, va, &ba, v, true);
			setup(&wb, &b, &k, vb, &bb, v, false);
			o_stmts(&wa, body, n);
			walk_stmts(&wb, body, n);
			walks++;
			deep += a.n > 200;
			if (strcmp(a.log, b.log) || wa.steps != wb.steps || wa.stop != wb.stop || ba != bb ||
			    memcmp(va, vb, sizeof va)) {
				if (!differ++)
					fprintf(stderr, "seed %u variant %d:\n oracle %s\n cursor %s\n", seed, v, a.log, b.log);
			}
		}
		/* two cursors over the tree, stepped in turn (one of them twice as often): each walks as it does alone */
		for (int v = 0; v < 512; v += 37) {
			int64_t va[NVARS] = {0}, vb[NVARS] = {0}, vc[NVARS] = {0}, ba, bb, bc;
			va[sc.var] = vb[sc.var] = vc[sc.var] = seed % 6;
			Walk wa, wb, wc;
			setup(&wa, &a, &k, va, &ba, v, true);
			o_stmts(&wa, body, n);
			setup(&wb, &b, &k, vb, &bb, v, false);
			setup(&wc, &c2, &k, vc, &bc, (v + 37 * 3) % 512, false);
			WalkCursor cb, cc;
			walk_begin(&cb, &wb, body, n);
			walk_begin(&cc, &wc, body, n);
			bool more_b = true, more_c = true;
			while (more_b || more_c) {
				for (int i = 0; i < 2 && more_b; i++) {
					const Stmt *s = walk_next(&cb);
					if (!(more_b = s != NULL))
						break;
					if (!wb.stmt(&wb, s))
						wb.stop = true;
				}
				if (more_c) {
					const Stmt *s = walk_next(&cc);
					if ((more_c = s != NULL) && !wc.stmt(&wc, s))
						wc.stop = true;
				}
			}
			walks++;
			if (strcmp(a.log, b.log) || memcmp(va, vb, sizeof va)) {
				if (!differ++)
					fprintf(stderr, "interleaved, seed %u variant %d:\n alone %s\n interleaved %s\n", seed, v, a.log,
					        b.log);
			}
		}
	}
	CHECK(!differ, "%d of %d walks differ from the recursive oracle", differ, walks);
	CHECK(deep > walks / 8, "the random trees are too small to mean much: %d of %d logs over 200 bytes", deep, walks);
}

int main(void)
{
	/* sync#1; repeat 3 (index var A) { sync#2 }; when { sync#3 }; sync#4 */
	Stmt s1 = mk_stmt(ST_SYNC, 1), s2 = mk_stmt(ST_SYNC, 2), s3 = mk_stmt(ST_SYNC, 3), s4 = mk_stmt(ST_SYNC, 4);
	Stmt *rep_body[] = {&s2}, *when_body[] = {&s3};
	Stmt rep = mk_stmt(ST_REPEAT, 3), when = mk_stmt(ST_WHEN, 0);
	rep.var = VAR_REPEAT0, rep.body = rep_body, rep.nbody = 1;
	when.body = when_body, when.nbody = 1;
	Stmt *body[] = {&s1, &rep, &when, &s4};
	Scalar sc = {.name = "N", .var = VAR_REPEAT0 + 1};
	Kernel k = {.nvars = VAR_REPEAT0 + 2, .scalars = &sc, .nscalars = 1};
	int64_t vals[VAR_REPEAT0 + 2] = {0};

	Log l = {0};
	Walk w = {.k = &k, .vals = vals, .ctx = &l, .stmt = on_stmt, .repeat_exit = on_exit};
	walk_stmts(&w, body, 4);
	CHECK(!strcmp(l.s, "s1.0.0 s2.0.0 s2.1.0 s2.2.0 x s4.0.0 "), "every trip, when skipped: %s", l.s);
	CHECK(w.steps == 7 && !w.stop, "steps %lld (4 + 3 trips' sync)", (long long)w.steps);

	l = (Log){0};
	w = (Walk){.k = &k, .vals = vals, .ctx = &l, .stmt = on_stmt, .when = on_when};
	walk_stmts(&w, body, 4);
	CHECK(!strcmp(l.s, "s1.0.0 s2.0.0 s2.1.0 s2.2.0 w s3.0.0 s4.0.0 "), "when entered once: %s", l.s);

	/* a runtime count: cdiv(N, 2) at N = 7 is 4; two trips stand for any count */
	rep.trips_scalar = 1, rep.trips_div = 2, rep.n = 5;
	vals[sc.var] = 7;
	w = (Walk){.k = &k, .vals = vals};
	CHECK(walk_trips_launch(&w, &rep) == 4, "launch count %lld", (long long)walk_trips_launch(&w, &rep));
	CHECK(walk_trips_all(&w, &rep) == 5, "the bound");
	CHECK(walk_trips_two(&w, &rep) == 2, "two trips");
	rep.nbody = 0;
	CHECK(walk_trips_two(&w, &rep) == 0, "an empty body runs no trip");
	rep.nbody = 1;

	/* a hook that runs the trips itself: the walker leaves the index as the hook does */
	l = (Log){0};
	w = (Walk){.k = &k, .vals = vals, .ctx = &l, .stmt = on_stmt, .trips = own_trips, .repeat_exit = on_exit};
	Stmt *only_rep[] = {&rep};
	walk_stmts(&w, only_rep, 1);
	CHECK(!strcmp(l.s, "s2.0.7 s2.2.7 "), "own trips, no exit hook: %s", l.s);
	vals[VAR_REPEAT0] = 0;

	/* the budget: 1 per statement, trip_cost per trip; out: over, stop */
	rep.trips_scalar = 0, rep.n = 3;
	int64_t budget = 4;
	l = (Log){0};
	w = (Walk){.k = &k, .vals = vals, .budget = &budget, .trip_cost = 1, .ctx = &l, .stmt = on_stmt, .over = on_over};
	walk_stmts(&w, body, 4);
	CHECK(!strcmp(l.s, "s1.0.7 s2.0.7 over3 "), "budget: %s", l.s);
	CHECK(w.stop && budget < 0 && vals[VAR_REPEAT0] == 0, "stopped, index reset");

	/* a constant count under walk_trips_two: every trip */
	l = (Log){0};
	w = (Walk){.k = &k, .vals = vals, .ctx = &l, .stmt = on_stmt, .trips = walk_trips_two};
	walk_stmts(&w, body, 4);
	CHECK(!strcmp(l.s, "s1.0.7 s2.0.7 s2.1.7 s2.2.7 s4.0.7 "), "constant count under walk_trips_two: %s", l.s);

	/* a hook's false stops the walk */
	l = (Log){0};
	w = (Walk){.k = &k, .vals = vals, .ctx = &l, .stmt = stop_at_2};
	walk_stmts(&w, body, 4);
	CHECK(!strcmp(l.s, "s1.0.7 s2.0.7 ") && w.stop && vals[VAR_REPEAT0] == 0, "stopped at sync#2: %s", l.s);

	same_as_oracle();
	UNIT_END();
}
