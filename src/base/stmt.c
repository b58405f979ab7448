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

