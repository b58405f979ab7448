/* Which thread holds which element of a local buffer, and in which
 * register: the one ownership query of set's colocation check and its
 * emission (src/set_check.c, src/set_emit.c). A local layout maps a logical
 * element to a register offset and a thread of its owner group (laneid,
 * warps, warpgroups as the layout's chain says, docs/language.md "Layouts");
 * every owner group of the CTA holds its own instance. A replicated layout
 * puts an element in several threads of a group, the same register in each. */
#include "tilepx.h"

int64_t local_owner_threads(const Kernel *k, const Buffer *b)
{
	int64_t n = scope_threads(b->owner, k->threads);
	return n > k->threads ? k->threads : n;
}

/* a thread axis' weight in the thread index of the owner group */
static int64_t axis_weight(Axis a)
{
	switch (a) {
	case AX_WARPID: case AX_WID_IN_WG: return 32;
	case AX_WGID: return 128;
	default: return 1;
	}
}

/* element coord's place in copy `rep` of its replicas (0: the first copy):
 * its register, and its thread in the owner group (-1: outside the buffer) */
static int64_t place(const Buffer *b, const int64_t *coord, int64_t rep, int64_t *thread)
{
	int64_t idx = 0, at[AX_COUNT], t = 0;
	for (int d = 0; d < b->ndim; d++) {
		if (coord[d] < 0 || coord[d] >= b->shape[d])
			return -1;
		idx = idx * b->shape[d] + coord[d];
	}
	lay_apply_flat(&b->layout, idx, at);
	lay_add_replica(&b->layout, rep, at);
	for (int a = AX_LANEID; a <= AX_TX; a++)
		t += at[a] * axis_weight((Axis)a);
	*thread = t;
	return at[AX_M];
}

int64_t local_copies(const Buffer *b) { return lay_replicas(&b->layout); }

int64_t local_thread_of_copy(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t rep)
{
	(void)k;
	int64_t t;
	return place(b, coord, rep, &t) < 0 ? -1 : t;
}

int64_t local_thread_of(const Kernel *k, const Buffer *b, const int64_t *coord)
{
	return local_thread_of_copy(k, b, coord, 0);
}

/* every copy of a replicated element is in the same register */
int64_t local_reg_of(const Kernel *k, const Buffer *b, const int64_t *coord, int64_t thread)
{
	for (int64_t rep = 0; rep < local_copies(b); rep++) {
		int64_t t, r = place(b, coord, rep, &t);
		if (r >= 0 && thread % local_owner_threads(k, b) == t)
			return r;
	}
	return -1;
}
