/* The statement walker (walk.h): the analyses' one way through a kernel's
 * statements, repeats and when blocks; no layout, region or partition code,
 * so the CPU reference may use it as well as the analyses. */
#include "walk.h"

int64_t walk_trips_all(Walk *w, const Stmt *s)
{
	(void)w;
	return s->n;
}

int64_t walk_trips_launch(Walk *w, const Stmt *s)
{
	/* ceil(S / D) at this launch value, possibly none; an expression at the variables' values */
	return stmt_trips_at(w->k, s, w->vals);
}

int64_t walk_trips_two(Walk *w, const Stmt *s)
{
	(void)w;
	if (!s->nbody) /* an empty body changes nothing, however many trips */
		return 0;
	return stmt_runtime_trips(s) && s->n > 2 ? 2 : s->n;
}

static bool spend(Walk *w, const Stmt *s, int64_t cost)
{
	if (!w->budget || (*w->budget -= cost) >= 0)
		return true;
	if (w->over)
		w->over(w, s);
	w->stop = true;
	return false;
}

void walk_trip(Walk *w, const Stmt *s, int64_t j)
{
	kernel_set_var(w->k, w->vals, s->var, j);
	if (w->trip && !w->trip(w, s, j)) {
		w->stop = true;
		return;
	}
	walk_stmts(w, s->body, s->nbody);
	if (w->trip_end && !w->stop)
		w->trip_end(w, s, j);
}

void walk_begin(WalkCursor *c, Walk *w, Stmt **body, size_t n)
{
	c->w = w;
	c->f[0] = (WalkFrame){.body = body, .n = n, .trips = 1};
	c->depth = 1;
}

/* trip f->trip of the repeat frame f begins (the budget, its index, the
 * trip hook); false: there is none (the count is reached, or a stop) */
static bool trip_begins(Walk *w, WalkFrame *f)
{
	const Stmt *s = f->blk;
	if (f->trip >= f->trips || w->stop)
		return false;
	if (w->trip_cost && !spend(w, s, w->trip_cost))
		return false;
	kernel_set_var(w->k, w->vals, s->var, f->trip);
	if (w->trip && !w->trip(w, s, f->trip)) {
		w->stop = true;
		return false;
	}
	f->i = 0;
	return true;
}

/* leave the innermost frame: a repeat's index back at 0 and its exit hook,
 * a when's exit hook */
static void leave(WalkCursor *c)
{
	Walk *w = c->w;
	const Stmt *s = c->f[--c->depth].blk;
	if (!s)
		return;
	if (s->kind == ST_WHEN) {
		if (w->when_exit)
			w->when_exit(w, s);
		return;
	}
	kernel_set_var(w->k, w->vals, s->var, 0);
	if (w->repeat_exit)
		w->repeat_exit(w, s);
}

static bool enter(WalkCursor *c, const Stmt *s, int64_t trips)
{
	if (c->depth == WALK_DEPTH) { /* deeper than the parser lets blocks nest */
		c->w->stop = true;
		return false;
	}
	c->f[c->depth++] = (WalkFrame){.blk = s, .body = s->body, .n = s->nbody, .trips = trips};
	return true;
}

const Stmt *walk_next(WalkCursor *c)
{
	Walk *w = c->w;
	while (c->depth) {
		WalkFrame *f = &c->f[c->depth - 1];
		if (w->stop) {
			leave(c);
			continue;
		}
		if (f->i == f->n) { /* the block's body has run: a repeat's next trip, or out */
			if (f->blk && f->blk->kind != ST_WHEN) {
				if (w->trip_end)
					w->trip_end(w, f->blk, f->trip);
				f->trip++;
				if (trip_begins(w, f))
					continue;
			}
			leave(c);
			continue;
		}
		const Stmt *s = f->body[f->i++];
		w->steps++;
		if (!spend(w, s, 1))
			continue;
		if (s->kind == ST_WHEN) {
			if (w->when && w->when(w, s))
				enter(c, s, 1);
		} else if (stmt_info[s->kind].flags & SF_BLOCK) {
			int64_t n = (w->trips ? w->trips : walk_trips_all)(w, s);
			if (n != WALK_OWN && enter(c, s, n) && !trip_begins(w, &c->f[c->depth - 1]))
				leave(c);
		} else {
			return s;
		}
	}
	return NULL;
}

void walk_stmts(Walk *w, Stmt **body, size_t n)
{
	WalkCursor c;
	walk_begin(&c, w, body, n);
	for (const Stmt *s; (s = walk_next(&c));)
		if (w->stmt && !w->stmt(w, s))
			w->stop = true;
}
