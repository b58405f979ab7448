/* The "allocate" pass (src/driver.c): after check_buffer gave each shared
 * buffer its offset, tensor-memory columns, the mbarrier words and the
 * switch to dynamic shared memory. Moved from check.c. */
#include "tilepx.h"

#include <string.h>

/* the "allocate" pass: tensor-memory columns, mbarrier words after the
 * buffers, the switch to dynamic shared memory past the static limit */
bool allocate_kernel(Ctx *cx, const Module *m, Kernel *k, int64_t shared_bytes)
{
	int before = cx->diags.errors;
	/* tensor memory: one CTA allocates at most 512 columns in all */
	int64_t tmem_cols = 0;
	for (size_t b = 0; b < k->nbufs && cx->diags.errors == before; b++)
		if (k->bufs[b]->mem == MEM_TMEM && (tmem_cols += k->bufs[b]->cols) > 512) {
			diag_error(cx, k->bufs[b]->loc,
			           "tensor memory of kernel '%s' reaches %lld columns with '%s' (a CTA can allocate "
			           "at most 512)", k->name, (long long)tmem_cols, k->bufs[b]->name);
			break;
		}
	/* mbarriers after the buffers, 8-byte aligned; past the static limit
	 * everything moves to one dynamic array (the launcher passes its size) */
	for (size_t i = 0; i < k->nmbars && cx->diags.errors == before; i++) {
		Mbar *mb = &k->mbars[i];
		for (size_t j = 0; j < k->nbufs; j++)
			if (!strcmp(k->bufs[j]->name, mb->name))
				diag_error(cx, mb->loc, "'%s' is already declared in kernel '%s' (line %d)", mb->name, k->name,
				           k->bufs[j]->loc.line);
		for (size_t j = 0; j < k->nscalars; j++)
			if (!strcmp(k->scalars[j].name, mb->name))
				diag_error(cx, mb->loc, "'%s' is already declared in kernel '%s' (line %d)", mb->name, k->name,
				           k->scalars[j].loc.line);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(k->mbars[j].name, mb->name))
				diag_error(cx, mb->loc, "mbarrier '%s' is already declared (line %d)", mb->name,
				           k->mbars[j].loc.line);
		shared_bytes = (shared_bytes + 7) / 8 * 8;
		mb->shared_offset = shared_bytes;
		shared_bytes += 8 * mb->n;
	}
	if (shared_bytes > SHARED_STATIC_LIMIT && !k->is_func && cx->diags.errors == before) {
		if (shared_bytes > target_max_shared(m->target)) {
			diag_error(cx, k->loc, "shared memory of kernel '%s' reaches %lld bytes (limit %lld on %s)", k->name,
			           (long long)shared_bytes, (long long)target_max_shared(m->target), m->target->name);
		} else {
			k->dyn_shared = shared_bytes;
			k->dyn_align = 16;
			for (size_t j = 0; j < k->nbufs; j++)
				if (k->bufs[j]->mem == MEM_SHARED && shared_align(k->bufs[j]) > k->dyn_align)
					k->dyn_align = shared_align(k->bufs[j]);
		}
	}
	return cx->diags.errors == before;
}
