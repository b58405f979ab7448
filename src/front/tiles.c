/* Linear tile walks (docs/language.md, "Linear tile walks"):
 * repeat X * Y as t across ctaid tiles tm, tn [group G]. Each CTA runs the
 * tiles t = c, c + n, ... below X * Y; tm and tn are trip t's tile row and
 * column, a quotient and a remainder of t by runtime values. The proofs use
 * their ranges only, 0 <= tm < X and 0 <= tn < Y, which hold by
 * construction for every t < X * Y: so they may place global regions only
 * (TMA coordinates, ragged copies with their guards), never a shared stage,
 * a barrier or a count, whose proofs would need their values. */
#include "tilepx.h"

/* a factor S or cdiv(S, D) (parse_tiles): its scalar and D */
static const Scalar *factor_scalar(const Kernel *k, const TripExpr *e, int64_t *div)
{
	const TripExpr *a = e->op == TE_CDIV ? e->x : e;
	*div = e->op == TE_CDIV ? e->d : 1;
	return kernel_scalar_of_var(k, a->a.t[0].var);
}

/* the tile variable's range from its factor's facts: D * index <= S - 1 */
static void set_tile_range(Ctx *cx, Kernel *k, int var, const TripExpr *factor)
{
	int64_t div;
	const Scalar *sc = factor_scalar(k, factor, &div);
	int64_t most = sc->hi > 0 ? (sc->hi + div - 1) / div : 0;
	k->var_ext[var] = most > 0 ? most : 1;
	if (!k->var_trips)
		k->var_trips = arena_alloc(cx->arena, sizeof *k->var_trips * (size_t)k->nvars);
	k->var_trips[var] = (struct VarTrips){(int)(sc - k->scalars) + 1, div};
}

struct TileUse { const Kernel *k; const Stmt *w; const Stmt *bad; int var; };

/* the walk's variable that e uses (its index, a stage of it, a tile), or -1 */
static int walk_var_in(const struct TileUse *u, const Affine *e)
{
	for (int i = 0; e && i < e->n; i++) {
		int v = e->t[i].var;
		if (!e->t[i].k)
			continue;
		if (v == u->w->var || v == u->w->tile_m || v == u->w->tile_n)
			return v;
		if (v >= VAR_REPEAT0 && v < u->k->nvars && u->k->var_base[v] == u->w->var)
			return v;
	}
	return -1;
}

static int trip_var_in(const struct TileUse *u, const TripExpr *e)
{
	if (!e)
		return -1;
	if (e->op == TE_AFFINE)
		return walk_var_in(u, &e->a);
	int v = trip_var_in(u, e->x);
	return v >= 0 ? v : trip_var_in(u, e->y);
}

static void region_use(void *ctx, const Region *r, bool write)
{
	(void)write;
	struct TileUse *u = ctx;
	if (!r || r->whole || r->buf->mem == MEM_GLOBAL || u->var >= 0)
		return;
	for (int d = 0; d < r->ndim && u->var < 0; d++) {
		u->var = walk_var_in(u, &r->begin[d]);
		if (u->var < 0)
			u->var = walk_var_in(u, &r->end[d]);
	}
}

static void find_misuse(void *ctx, const Stmt *s)
{
	struct TileUse *u = ctx;
	if (u->bad)
		return;
	stmt_regions(s, region_use, u);
	if (u->var < 0 && s->mbar)
		u->var = walk_var_in(u, s->mbar_idx);
	if (u->var < 0 && s->bar_id)
		u->var = walk_var_in(u, s->bar_id);
	if (u->var < 0 && s->kind == ST_REPEAT)
		u->var = trip_var_in(u, s->trips_expr);
	for (size_t j = 0; s->asm_blk && j < s->asm_blk->n && u->var < 0; j++)
		if (s->asm_blk->p[j].kind == ASM_VALUE)
			u->var = walk_var_in(u, &s->asm_blk->p[j].val);
	if (u->var >= 0)
		u->bad = s;
}

/* before the body's check: the tile variables' ranges */
void check_tiles(Ctx *cx, Kernel *k, Stmt *s)
{
	set_tile_range(cx, k, s->tile_m, s->trips_expr->x);
	set_tile_range(cx, k, s->tile_n, s->trips_expr->y);
	if (!k->var_walk)
		k->var_walk = arena_alloc(cx->arena, sizeof *k->var_walk * (size_t)k->nvars);
	k->var_walk[s->var] = s;
}

/* after the body's check (its regions know their buffers) */
void check_tile_uses(Ctx *cx, Kernel *k, Stmt *s)
{
	struct TileUse u = {k, s, NULL, -1};
	stmt_walk(s->body, s->nbody, find_misuse, &u);
	if (!u.bad)
		return;
	diag_error(cx, u.bad->loc, "'%s' belongs to the tile walk at line %d: it may place global regions only",
	           k->var_names[u.var], s->loc.line);
	diag_note(cx, "a tile's row and column are a quotient and a remainder of the tile number by runtime values: the "
	          "proofs know their ranges (0 <= %s < %lld, 0 <= %s < %lld), not their values", s->tile_m_name,
	          (long long)k->var_ext[s->tile_m], s->tile_n_name, (long long)k->var_ext[s->tile_n]);
	diag_note(cx, "index a shared stage or a barrier by a running count ('repeat ... running g', then g %% C)");
}
