/* A region of a buffer is legal: its bounds stay inside the buffer for every
 * value of its index expressions (their ranges from the kernel's variables,
 * scalars' facts and the warps that run the statement). Moved from check.c. */
#include "tilepx.h"

#include <string.h>

/* range of an affine expression over the kernel's variables */
static bool affine_range(const Kernel *k, const Affine *e, int64_t *lo, int64_t *hi)
{
	*lo = *hi = e->c;
	for (int i = 0; i < e->n; i++) {
		/* a variable ranges over 0..extent-1, a scalar over its facts; warpid
		 * and wgid over the warps that run the statement (a when block) */
		const Scalar *sc = kernel_scalar_of_var(k, e->t[i].var);
		int64_t a, b, vlo = sc ? sc->lo : 0, vhi = kernel_var_extent(k, e->t[i].var) - 1;
		int var = e->t[i].var;
		if ((var == VAR_WARPID || var == VAR_WGID) && k->check_warps && k->check_warps != kernel_all_warps(k)) {
			int first = __builtin_ctzll(k->check_warps), last = 63 - __builtin_clzll(k->check_warps);
			vlo = var == VAR_WARPID ? first : first / 4;
			vhi = var == VAR_WARPID ? last : last / 4;
		}
		if (!mul_ok(e->t[i].k, vlo, &a) || !mul_ok(e->t[i].k, vhi, &b))
			return false;
		if (!add_ok(*lo, a < b ? a : b, lo) || !add_ok(*hi, a < b ? b : a, hi))
			return false;
	}
	return true;
}

/* a param with runtime extents of rank 3..5: a region is one [rows, cols]
 * slab, its outer dimensions indexed by a point ('Q[bh, a:a+64, :]') that
 * stays inside the tensor for every launch the facts allow (a TMA box would
 * clip an index past the edge to nothing, a guarded copy skip it: either
 * way a bug the proof can name) */
static bool check_outer_points(Ctx *cx, const Kernel *k, const Region *r)
{
	const Buffer *b = r->buf;
	for (int d = 0; b->dynamic && d + 2 < b->ndim; d++) {
		if (r->whole || r->ext[d] != 1) {
			diag_error(cx, r->whole ? r->loc : r->dim_loc[d], "dimension %d of '%s' is an outer dimension of a "
			           "param with runtime extents: index it by a single value ('%s[i, ...]'), one slab of its "
			           "last two dimensions at a time", d, b->name, b->name);
			return false;
		}
		if (region_guarded(k, r, d)) {
			const Scalar *sc = &k->scalars[b->dyn_dim[d] - 1];
			diag_error(cx, r->dim_loc[d], "the index of dimension %d of '%s' may reach %s or more: an outer index "
			           "must stay below its extent for every launch", d, b->name, sc->name);
			diag_note(cx, "index it by a grid dimension of %s CTAs ('grid ..., %s' and ctaid_y), or bound it "
			          "with the facts", sc->name, sc->name);
			return false;
		}
	}
	return true;
}

static bool check_region(Ctx *cx, Kernel *k, Region *r)
{
	if (k->check_warps != kernel_all_warps(k))
		r->warps = k->check_warps;
	r->buf = kernel_find_buffer(k, r->name);
	if (!r->buf) {
		diag_error(cx, r->loc, "unknown buffer '%s' in kernel '%s'", r->name, k->name);
		const char **names = arena_alloc(cx->arena, (k->nbufs + 1) * sizeof *names);
		for (size_t i = 0; i < k->nbufs; i++)
			names[i] = k->bufs[i]->name;
		diag_suggest(cx, r->name, names, k->nbufs);
		return false;
	}
	Buffer *b = r->buf;
	if (b->dynamic && (r->whole || r->ndim == b->ndim))
		for (int d = 0; d < b->ndim; d++)
			if (b->dyn_dim[d] && (r->whole || r->all[d])) {
				diag_error(cx, r->whole ? r->loc : r->dim_loc[d], "dimension %d of '%s' is a runtime extent; slice "
				           "it with a constant extent ('a:a+N')", d, b->name);
				return false;
			}
	if (r->whole) {
		for (int d = 0; d < b->ndim; d++)
			r->ext[d] = b->shape[d];
		r->ndim = b->ndim;
		if (!r->begin && b->ndim) { /* zero starts, as code indexing begin[d] expects; read-only, shared */
			if (!k->zero_bounds)
				k->zero_bounds = arena_alloc(cx->arena, sizeof(Affine) * MAX_DIMS);
			r->begin = r->end = k->zero_bounds;
		}
		return true;
	}
	if (r->ndim != b->ndim) {
		diag_error(cx, r->loc, "region of '%s' has %d dimensions but the buffer has %d", b->name, r->ndim, b->ndim);
		return false;
	}
	for (int d = 0; d < b->ndim; d++) {
		if (r->all[d]) {
			r->ext[d] = b->shape[d];
			continue;
		}
		Affine diff = r->end[d];
		if (!affine_add(&diff, &r->begin[d], -1)) {
			diag_error(cx, r->dim_loc[d], "integer overflow in region");
			return false;
		}
		if (!affine_is_const(&diff)) {
			diag_error(cx, r->dim_loc[d], "slice extent must be a constant (end - start depends on %s)",
			           k->var_names[diff.t[0].var]);
			return false;
		}
		if (diff.c < 1) {
			diag_error(cx, r->dim_loc[d], "empty slice: end must be greater than start");
			return false;
		}
		r->ext[d] = diff.c;
		int64_t lo, hi, elo, ehi;
		if (!affine_range(k, &r->begin[d], &lo, &hi) || !affine_range(k, &r->end[d], &elo, &ehi)) {
			diag_error(cx, r->dim_loc[d], "integer overflow in region bounds");
			return false;
		}
		if (lo < 0) {
			diag_error(cx, r->dim_loc[d], "slice of '%s' starts at %lld, below 0", b->name, (long long)lo);
			return false;
		}
		if (b->dynamic && diff.c > DYN_TILE_MAX) {
			diag_error(cx, r->dim_loc[d], "a slice of a param with runtime extents spans at most %d elements per "
			           "dimension", DYN_TILE_MAX);
			return false;
		}
		if (ehi > b->shape[d] && b->dyn_dim[d]) {
			diag_error(cx, r->dim_loc[d], "slice of '%s' may reach %lld; coordinates of a runtime dimension stay "
			           "below 2^31", b->name, (long long)ehi);
			return false;
		}
		if (ehi > b->shape[d]) {
			diag_error(cx, r->dim_loc[d], "slice of '%s' reaches %lld, past dimension %d of extent %lld", b->name,
			           (long long)ehi, d, (long long)b->shape[d]);
			return false;
		}
	}
	return check_outer_points(cx, k, r);
}

bool check_region_of(Ctx *cx, Kernel *k, Region *r) { return check_region(cx, k, r); }
bool check_affine_range(const Kernel *k, const Affine *e, int64_t *lo, int64_t *hi) { return affine_range(k, e, lo, hi); }
