/* The statement walker (src/walk.c): its repeat policies (every trip, the
 * launch count, two trips for a runtime count, a hook that runs the trips
 * itself), when blocks, the hooks' order and the budget. The analyses that
 * walk with it (races, the async and wgmma simulations) are covered by the
 * suite's programs; this pins the walker's own contract. */
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
	UNIT_END();
}
