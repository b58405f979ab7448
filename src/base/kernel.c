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
