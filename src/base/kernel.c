/* Queries of a kernel and its statements that every layer asks: what a
 * statement is (TMA load or store, bulk store), the TMA swizzle a buffer's
 * swizzle is. Below the analyses and the emitter, above nothing but the
 * statement table. */
#include "tilepx.h"

#include <string.h>

bool stmt_is_tma_load(const Stmt *s) { return stmt_info[s->kind].issue == AI_COPY && s->mbar_name; }

bool stmt_is_tma_store(const Stmt *s)
{
	return stmt_info[s->kind].issue == AI_COPY && !s->mbar_name && s->dst->buf && s->src->buf && s->dst->buf->tma &&
	       s->src->buf->mem == MEM_SHARED;
}

/* shared -> a param without a tensor map: a non-tensor bulk store (variant bulk) */
bool stmt_is_bulk_store(const Stmt *s)
{
	return stmt_info[s->kind].issue == AI_COPY && !s->mbar_name && s->dst->buf && s->src->buf && !s->dst->buf->tma &&
	       s->dst->buf->mem == MEM_GLOBAL && s->src->buf->mem == MEM_SHARED;
}

/* the TMA swizzle (bytes) that swizzle(P, W, A) over dt is, 0: none, -1: not one */
int tma_swizzle_bytes(Swizzle sw, DType dt)
{
	if (!sw.on)
		return 0;
	int e = 0;
	while ((1 << e) < dtype_bytes(dt))
		e++;
	/* TMA's modes XOR the 16-byte chunk index (address bits 4..) with bits 7.. */
	if (sw.a == 3 && sw.p == 4 - e && sw.w >= 1 && sw.w <= 3)
		return 16 << sw.w;
	return -1;
}

Buffer *kernel_find_buffer(const Kernel *k, const char *name)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (!strcmp(k->bufs[i]->name, name))
			return k->bufs[i];
	return NULL;
}

const Scalar *kernel_scalar_of_var(const Kernel *k, int var)
{
	for (size_t i = 0; i < k->nscalars; i++)
		if (k->scalars[i].var == var)
			return &k->scalars[i];
	return NULL;
}

int64_t kernel_param_bytes(const Kernel *k)
{
	int64_t n = 8 * (int64_t)k->nparams; /* .u64 pointers first */
	for (size_t i = 0; i < k->nscalars; i++) {
		int64_t sz = dtype_bytes(k->scalars[i].dt);
		n = (n + sz - 1) / sz * sz + sz;
	}
	if (k->ntmaps)
		n = (n + 63) / 64 * 64 + 128 * (int64_t)k->ntmaps;
	return n;
}

/* every warp of the kernel's CTA, one bit each (at most 64) */
uint64_t kernel_all_warps(const Kernel *k)
{
	int64_t w = (k->threads + 31) / 32;
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* ---- repeat counts ---- */
/* an affine expression at the variables' values (every layer evaluates them) */
int64_t affine_eval(const Affine *e, const int64_t *vars)
{
	int64_t v = e->c;
	for (int i = 0; i < e->n; i++)
		v += e->t[i].k * vars[e->t[i].var];
	return v;
}

int64_t trip_expr_eval(const TripExpr *e, const int64_t *vals)
{
	switch (e->op) {
	case TE_AFFINE:
		return affine_eval(&e->a, vals);
	case TE_CDIV: {
		int64_t v = trip_expr_eval(e->x, vals);
		return v <= 0 ? 0 : (v + e->d - 1) / e->d;
	}
	case TE_MIN:
	case TE_MAX: {
		int64_t a = trip_expr_eval(e->x, vals), b = trip_expr_eval(e->y, vals);
		return (e->op == TE_MIN) == (a < b) ? a : b;
	}
	case TE_ADD: return trip_expr_eval(e->x, vals) + trip_expr_eval(e->y, vals);
	case TE_SUB: return trip_expr_eval(e->x, vals) - trip_expr_eval(e->y, vals);
	case TE_MUL: return trip_expr_eval(e->x, vals) * trip_expr_eval(e->y, vals);
	}
	return 0;
}

static bool affine_same(const Affine *a, const Affine *b)
{
	if (a->c != b->c || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) { /* terms in any order */
		int64_t k = 0;
		for (int j = 0; j < b->n; j++)
			if (b->t[j].var == a->t[i].var)
				k += b->t[j].k;
		int64_t ka = 0;
		for (int j = 0; j < a->n; j++)
			if (a->t[j].var == a->t[i].var)
				ka += a->t[j].k;
		if (k != ka)
			return false;
	}
	return true;
}

bool trip_expr_eq(const TripExpr *a, const TripExpr *b)
{
	if (!a || !b)
		return a == b;
	if (a->op != b->op || a->d != b->d)
		return false;
	if (a->op == TE_AFFINE)
		return affine_same(&a->a, &b->a);
	return trip_expr_eq(a->x, b->x) && trip_expr_eq(a->y, b->y);
}

bool trip_expr_uses(const TripExpr *e, int var)
{
	if (!e)
		return false;
	if (e->op == TE_AFFINE) {
		for (int i = 0; i < e->a.n; i++)
			if (e->a.t[i].var == var && e->a.t[i].k)
				return true;
		return false;
	}
	return trip_expr_uses(e->x, var) || trip_expr_uses(e->y, var);
}

void tile_of(int64_t t, int64_t tm_count, int64_t tn_count, int64_t g, int64_t *tm, int64_t *tn)
{
	*tm = *tn = 0;
	if (t < 0 || tn_count <= 0 || g <= 0 || t >= tm_count * tn_count)
		return;
	int64_t band = t / (g * tn_count), first = band * g, r = t - band * g * tn_count;
	int64_t rows = tm_count - first < g ? tm_count - first : g;
	*tm = first + r % rows;
	*tn = r / rows;
}

void kernel_set_var(const Kernel *k, int64_t *vals, int var, int64_t v)
{
	vals[var] = v;
	for (int d = VAR_REPEAT0; d < k->nvars; d++)
		if (k->var_base && k->var_base[d] == var)
			vals[d] = (v + k->var_off[d]) % k->var_mod[d];
	const Stmt *w = k->var_walk ? k->var_walk[var] : NULL;
	if (w) /* a linear walk's tile, from its counts at these values */
		tile_of(v, trip_expr_eval(w->trips_expr->x, vals), trip_expr_eval(w->trips_expr->y, vals), w->tile_group,
		        &vals[w->tile_m], &vals[w->tile_n]);
}

int64_t stmt_trips_at(const Kernel *k, const Stmt *s, const int64_t *vals)
{
	if (s->trips_expr) {
		int64_t v = trip_expr_eval(s->trips_expr, vals);
		return v < 0 ? 0 : v;
	}
	if (!s->trips_scalar)
		return s->n;
	return (vals[k->scalars[s->trips_scalar - 1].var] + s->trips_div - 1) / s->trips_div;
}

bool stmt_trips_same(const Stmt *a, const Stmt *b)
{
	if (a->trips_expr || b->trips_expr)
		return trip_expr_eq(a->trips_expr, b->trips_expr);
	return a->trips_scalar == b->trips_scalar && a->trips_div == b->trips_div;
}

bool trip_expr_uses_index(const Kernel *k, const TripExpr *e)
{
	if (!e)
		return false;
	if (e->op != TE_AFFINE)
		return trip_expr_uses_index(k, e->x) || trip_expr_uses_index(k, e->y);
	for (int i = 0; i < e->a.n; i++)
		if (e->a.t[i].var >= VAR_REPEAT0 && e->a.t[i].k && !kernel_scalar_of_var(k, e->a.t[i].var))
			return true;
	return false;
}

int64_t nbar_id_at(const Stmt *s, int w)
{
	if (!s->bar_id)
		return s->n;
	int64_t v = s->bar_id->c;
	for (int i = 0; i < s->bar_id->n; i++) /* wgid only (parse_named_bar) */
		v += s->bar_id->t[i].k * (w / 4);
	return v;
}
