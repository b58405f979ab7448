/* Views: a buffer's layout sliced by a region whose starts are affine in
 * kernel variables. The sliced iters must not depend on the variables and
 * the offsets must be affine in them; both are verified, exhaustively where
 * the variable ranges allow. */
#include "../tilepx.h"

#include <string.h>

int64_t kernel_var_extent(const Kernel *k, int var)
{
	switch (var) {
	case VAR_CTAID: return k->grid;
	case VAR_CTAIDY: return k->grid_y;
	case VAR_WARPID: return k->threads / 32 > 0 ? k->threads / 32 : 1;
	case VAR_WGID: return k->threads / 128 > 0 ? k->threads / 128 : 1;
	default: return k->var_ext[var];
	}
}

typedef struct DimSlice {
	Iter it[MAX_ITERS];
	int n;
	int64_t off[AX_COUNT];
} DimSlice;

static bool slice_at(const Iter *g, int n, int64_t begin, int64_t ext, DimSlice *s)
{
	return lay_slice_group(g, n, begin, ext, s->it, &s->n, s->off);
}

static bool same_iters(const DimSlice *a, const DimSlice *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (memcmp(&a->it[i], &b->it[i], sizeof(Iter)))
			return false;
	return true;
}

/* begin value for an assignment of the expression's own variables */
static int64_t begin_of(const Affine *b, const int64_t *vals)
{
	int64_t v = b->c;
	for (int i = 0; i < b->n; i++)
		v += b->t[i].k * vals[i];
	return v;
}

static bool check_point(const Iter *g, int n, const Affine *b, int64_t ext, const int64_t *vals,
                        const DimSlice *base, const int64_t (*delta)[AX_COUNT])
{
	DimSlice s;
	if (!slice_at(g, n, begin_of(b, vals), ext, &s) || !same_iters(&s, base))
		return false;
	for (int a = 0; a < AX_COUNT; a++) {
		int64_t want = base->off[a];
		for (int i = 0; i < b->n; i++)
			want += vals[i] * delta[i][a];
		if (s.off[a] != want)
			return false;
	}
	return true;
}

enum { CHECK_BUDGET = 1 << 16 };

static bool slice_dim(const Kernel *k, const Iter *g, int n, const Affine *b, int64_t ext, DimSlice *out,
                      Affine *off)
{
	int64_t zero[MAX_TERMS] = {0};
	if (!slice_at(g, n, begin_of(b, zero), ext, out))
		return false;
	int64_t delta[MAX_TERMS][AX_COUNT];
	memset(delta, 0, sizeof delta);
	for (int i = 0; i < b->n; i++) {
		if (kernel_var_extent(k, b->t[i].var) < 2)
			continue;
		int64_t vals[MAX_TERMS] = {0};
		vals[i] = 1;
		DimSlice s;
		if (!slice_at(g, n, begin_of(b, vals), ext, &s) || !same_iters(&s, out))
			return false;
		for (int a = 0; a < AX_COUNT; a++)
			delta[i][a] = s.off[a] - out->off[a];
	}
	/* one iter: offset = begin * stride, linear by construction */
	if (n > 1 && b->n > 0) {
		int64_t combos = 1;
		for (int i = 0; i < b->n && combos <= CHECK_BUDGET; i++)
			combos *= kernel_var_extent(k, b->t[i].var);
		int64_t vals[MAX_TERMS] = {0};
		if (combos <= CHECK_BUDGET) {
			for (int64_t c = 0; c < combos; c++) {
				int64_t r = c;
				for (int i = b->n - 1; i >= 0; i--) {
					int64_t e = kernel_var_extent(k, b->t[i].var);
					vals[i] = r % e;
					r /= e;
				}
				if (!check_point(g, n, b, ext, vals, out, (const int64_t(*)[AX_COUNT])delta))
					return false;
			}
		} else {
			/* each variable over its range (sampled past the budget), others at 0 and at max */
			for (int i = 0; i < b->n; i++) {
				int64_t e = kernel_var_extent(k, b->t[i].var);
				int64_t step = e > CHECK_BUDGET ? e / CHECK_BUDGET : 1;
				for (int corner = 0; corner < 2; corner++)
					for (int64_t v = 0;; v += step) {
						if (v > e - 1)
							v = e - 1;
						for (int j = 0; j < b->n; j++)
							vals[j] = corner ? kernel_var_extent(k, b->t[j].var) - 1 : 0;
						vals[i] = v;
						if (!check_point(g, n, b, ext, vals, out, (const int64_t(*)[AX_COUNT])delta))
							return false;
						if (v == e - 1)
							break;
					}
			}
		}
	}
	for (int a = 0; a < AX_COUNT; a++) {
		memset(&off[a], 0, sizeof(Affine));
		off[a].c = out->off[a];
		for (int i = 0; i < b->n; i++) {
			if (delta[i][a] == 0)
				continue;
			off[a].t[off[a].n].var = b->t[i].var;
			off[a].t[off[a].n++].k = delta[i][a];
		}
	}
	return true;
}

bool region_view(Ctx *cx, const Kernel *k, const Region *r, View *out, const char **why)
{
	(void)cx;
	const Buffer *b = r->buf;
	Layout grouped;
	int seps[MAX_DIMS + 1];
	memset(out, 0, sizeof *out);
	if (!lay_group(&b->layout, b->shape, b->ndim, &grouped, seps)) {
		*why = "the layout does not refine the buffer shape";
		return false;
	}
	out->L.sw = b->layout.sw;
	for (int d = 0; d < b->ndim; d++) {
		Affine begin = {0};
		if (!r->whole && !r->all[d])
			begin = r->begin[d];
		int64_t ext = r->whole ? b->shape[d] : r->ext[d];
		DimSlice s;
		Affine off[AX_COUNT];
		if (!slice_dim(k, grouped.it + seps[d], seps[d + 1] - seps[d], &begin, ext, &s, off)) {
			*why = "the region is not a slice of the layout that stays the same shape for every value of "
			       "its variables (a start must fall on the layout's iter boundaries)";
			return false;
		}
		for (int i = 0; i < s.n; i++) {
			if (out->L.n == MAX_ITERS) {
				*why = "the sliced layout has too many iters";
				return false;
			}
			out->L.it[out->L.n++] = s.it[i];
		}
		for (int a = 0; a < AX_COUNT; a++)
			if (!affine_add(&out->off[a], &off[a], 1)) {
				*why = "region offset overflows";
				return false;
			}
	}
	return true;
}
