/* The statement table's shared columns (keyword, flags, capability, and the
 * semantics the analyses read); each pass instantiates its own hook column
 * from stmt.def. */
#include "tilepx.h"

const StmtInfo stmt_info[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, bar, cbar, issue, wait, shared) [ST_##kind] = {kw, flags, cap, bar, cbar, issue, wait, shared},
#include "stmt.def"
};

void stmt_walk(Stmt **body, size_t n, void (*fn)(void *ctx, const Stmt *s), void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		fn(ctx, body[i]);
		if (stmt_info[body[i]->kind].flags & SF_BLOCK)
			stmt_walk(body[i]->body, body[i]->nbody, fn, ctx);
	}
}

void stmt_regions(const Stmt *s, void (*fn)(void *ctx, const Region *r, bool write), void *ctx)
{
	if (s->src)
		fn(ctx, s->src, false);
	if (s->mma_b)
		fn(ctx, s->mma_b, false);
	if (s->set) /* set reads every operand before it writes its destination */
		for (int i = 0; i < s->set->nreads; i++)
			fn(ctx, s->set->reads[i], false);
	if (s->dst)
		fn(ctx, s->dst, true);
	if (!s->asm_blk)
		return;
	for (size_t i = 0; i < s->asm_blk->n; i++) /* a placeholder's direction is the PTX's: taken as a write */
		if (s->asm_blk->p[i].r)
			fn(ctx, s->asm_blk->p[i].r, s->asm_blk->p[i].kind == ASM_REGS);
	for (int i = 0; i < 3; i++)
		if (s->asm_blk->mma[i])
			fn(ctx, s->asm_blk->mma[i], i == 0);
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
