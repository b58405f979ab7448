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
	if (!s->trips_scalar)
		return s->n;
	/* ceil(S / D) at this launch value, possibly none */
	return (w->vals[w->k->scalars[s->trips_scalar - 1].var] + s->trips_div - 1) / s->trips_div;
}

int64_t walk_trips_two(Walk *w, const Stmt *s)
{
	(void)w;
	if (!s->nbody) /* an empty body changes nothing, however many trips */
		return 0;
	return s->trips_scalar && s->n > 2 ? 2 : s->n;
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
}

static void walk_repeat(Walk *w, const Stmt *s)
{
	int64_t n = (w->trips ? w->trips : walk_trips_all)(w, s);
	if (n == WALK_OWN)
		return;
	for (int64_t j = 0; j < n && !w->stop; j++) {
		if (w->trip_cost && !spend(w, s, w->trip_cost))
			break;
		walk_trip(w, s, j);
	}
	kernel_set_var(w->k, w->vals, s->var, 0);
	if (w->repeat_exit)
		w->repeat_exit(w, s);
}

void walk_stmts(Walk *w, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n && !w->stop; i++) {
		const Stmt *s = body[i];
		w->steps++;
		if (!spend(w, s, 1))
			return;
		if (s->kind == ST_WHEN) {
			if (w->when && w->when(w, s)) {
				walk_stmts(w, s->body, s->nbody);
				if (w->when_exit)
					w->when_exit(w, s);
			}
		} else if (stmt_info[s->kind].flags & SF_BLOCK) {
			walk_repeat(w, s);
		} else if (w->stmt && !w->stmt(w, s)) {
			w->stop = true;
		}
	}
}
