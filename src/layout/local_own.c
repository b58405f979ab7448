/* Which thread holds which element of a local buffer, and in which
 * register: the one ownership query of set's colocation check and its
 * emission (src/set_check.c, src/set_emit.c). A local layout maps a logical
 * element to a register offset and a thread of its owner group (laneid,
 * warps, warpgroups as the layout's chain says, docs/language.md "Layouts");
 * every owner group of the CTA holds its own instance; a replicated layout's
 * element lives in every thread its replica iters enumerate. */
#include "tilepx.h"

int64_t local_owner_threads(const Kernel *k, const Buffer *b)
{
	int64_t n = scope_threads(b->owner, k->threads);
	return n > k->threads ? k->threads : n;
}

/* element coord's flat index (row-major over the shape), -1 outside the buffer */
static int64_t flat(const Buffer *b, const int64_t *coord)
{
	int64_t idx = 0;
	for (int d = 0; d < b->ndim; d++) {
		if (coord[d] < 0 || coord[d] >= b->shape[d])
			return -1;
		idx = idx * b->shape[d] + coord[d];
	}
	return idx;
}

int64_t local_replicas(const Buffer *b) { return lay_replicas(&b->layout); }

int64_t local_thread_of_rep(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t rep)
{
	(void)k;
	int64_t idx = flat(b, coord), at[AX_COUNT];
	if (idx < 0)
		return -1;
	lay_apply_flat(&b->layout, idx, at);
	lay_add_replica(&b->layout, rep, at);
	return lay_thread_of(at);
}

int64_t local_thread_of(const Kernel *k, const Buffer *b, const int64_t *coord)
{
	return local_thread_of_rep(k, b, coord, 0);
}

/* any copy of a replicated element answers (every copy holds the same value, in the same register) */
int64_t local_reg_of(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t thread)
{
	int64_t idx = flat(b, coord), r;
	return idx >= 0 && lay_holds(&b->layout, idx, thread % local_owner_threads(k, b), &r) ? r : -1;
}
