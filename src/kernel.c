/* Queries of a kernel and its statements that every layer asks: what a
 * statement is (TMA load or store, bulk store), the TMA swizzle a buffer's
 * swizzle is. Below the analyses and the emitter, above nothing but the
 * statement table. */
#include "tilepx.h"

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
