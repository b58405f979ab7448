/* Views: a buffer's layout sliced by a region whose starts are affine in
 * kernel variables. The sliced iters must not depend on the variables and
 * the offsets must be affine in them. Both are decided exactly: proved from
 * the iters' place values (proven_affine), else checked at every point of
 * the variables' box when it is small, else the region is rejected. */
#include "../tilepx.h"

#include <string.h>

int64_t kernel_var_extent(const Kernel *k, int var)
{
	switch (var) {
	case VAR_CTAID: return k->grid;
	case VAR_CTAIDY: return k->grid_y;
	case VAR_CRANK: return kernel_cluster_size(k);
	/* a partial last warp or warpgroup still has its own index */
	case VAR_WARPID: return (k->threads + 31) / 32 > 0 ? (k->threads + 31) / 32 : 1;
	case VAR_WGID: return (k->threads + 127) / 128 > 0 ? (k->threads + 127) / 128 : 1;
	default:
		if (k->var_base && k->var_base[var] >= 0) { /* i % C: at most C values, and no more than i has */
			int64_t b = kernel_var_extent(k, k->var_base[var]);
			return b < k->var_mod[var] && !k->var_off[var] ? b : k->var_mod[var];
		}
		return k->var_ext[var];
	}
}

/* the largest power of two, at most 64, that divides v */
static int64_t pow2_of(int64_t v)
{
	int64_t p = 1;
	while (p < 64 && v % (2 * p) == 0)
		p *= 2;
	return p;
}

int64_t dim_pow2(const Kernel *k, const Buffer *b, int d)
{
	return pow2_of(b->dyn_dim[d] ? k->scalars[b->dyn_dim[d] - 1].mult : b->shape[d]);
}

int dyn_inner(const Buffer *b) { return b->colmajor ? 0 : b->ndim - 1; }
int dyn_outer(const Buffer *b) { return b->colmajor ? 1 : b->ndim >= 2 ? b->ndim - 2 : 0; }

int64_t row_pow2(const Kernel *k, const Buffer *b)
{
	return b->ld_scalar ? pow2_of(k->scalars[b->ld_scalar - 1].mult) : dim_pow2(k, b, dyn_inner(b));
}

/* 2^a * (2^21 + 1): the stride's guaranteed power of two, and larger than
 * any column offset inside a tile (< 2^20) */
int64_t dyn_row_proxy(const Kernel *k, const Buffer *b) { return row_pow2(k, b) * (((int64_t)1 << 21) + 1); }

/* D when var counts up to cdiv(sc, D) - 1: ctaid (ctaid_y) under a grid of
 * cdiv(sc, D) CTAs in x (y), or the index of 'repeat cdiv(sc, D)'; else 0 */
static int64_t grid_div_of(const Kernel *k, int var, const Scalar *sc)
{
	int g = var == VAR_CTAID ? 0 : var == VAR_CTAIDY ? 1 : -1;
	if (g >= 0)
		return k->grid_var[g] == sc->var ? k->grid_div[g] : 0;
	if (var >= 0 && var < k->nvars && k->var_trips && k->var_trips[var].scalar &&
	    k->scalars[k->var_trips[var].scalar - 1].var == sc->var)
		return k->var_trips[var].div;
	return 0;
}

bool region_guarded(const Kernel *k, const Region *r, int d)
{
	const Buffer *b = r->buf;
	if (!b->dynamic || !b->dyn_dim[d])
		return false;
	/* the largest value of end - extent over the variables' ranges (the
	 * extent's own scalar in the end cancels: A[M-64 : M] never passes M) */
	const Affine *e = &r->end[d];
	const Scalar *ext = &k->scalars[b->dyn_dim[d] - 1];
	int64_t hi = e->c, kext = -1; /* kext: the extent's coefficient in end - extent */
	for (int i = 0; i < e->n; i++) {
		const Scalar *sc = kernel_scalar_of_var(k, e->t[i].var);
		int64_t top = sc ? sc->hi : kernel_var_extent(k, e->t[i].var) - 1, kk = e->t[i].k, div;
		if (sc == ext) {
			kext += kk;
			continue;
		}
		/* a grid of cdiv(extent, D) CTAs: D * ctaid <= extent - 1, so a
		 * term k * ctaid with D | k is at most (k / D) * (extent - 1) */
		if (kk > 0 && (div = grid_div_of(k, e->t[i].var, ext)) && kk % div == 0) {
			kext += kk / div;
			hi -= kk / div;
			continue;
		}
		if (kk > 0)
			hi += kk * top;
		else if (sc)
			hi += kk * sc->lo;
	}
	hi += kext * (kext > 0 ? ext->hi : ext->lo);
	return hi > 0;
}

int64_t kernel_cluster_size(const Kernel *k)
{
	int64_t n; /* check refuses more than 8; before that, saturate */
	return !k->cluster_x ? 1 : mul_ok(k->cluster_x, k->cluster_y, &n) ? n : INT64_MAX;
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
		if (a->it[i].ext != b->it[i].ext || a->it[i].stride != b->it[i].stride || a->it[i].axis != b->it[i].axis)
			return false; /* field by field: Iter has padding bytes */
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

static bool check_point(const Iter *g, int n, const Affine *b, int64_t ext, const int64_t *vals, const int64_t *lo,
                        const DimSlice *base, const int64_t (*delta)[AX_COUNT])
{
	DimSlice s;
	if (!slice_at(g, n, begin_of(b, vals), ext, &s) || !same_iters(&s, base))
		return false;
	for (int a = 0; a < AX_COUNT; a++) {
		int64_t want = base->off[a];
		for (int i = 0; i < b->n; i++)
			want += (vals[i] - lo[i]) * delta[i][a];
		if (s.off[a] != want)
			return false;
	}
	return true;
}

/* floor division and modulo for a positive divisor */
static int64_t fdiv(int64_t a, int64_t p) { return a / p - (a % p < 0); }
static int64_t fmod_pos(int64_t a, int64_t p) { return a - fdiv(a, p) * p; }

/* Proof that slicing [u, u+ext) of one dimension's iters g[0..n) (outermost
 * first) gives the same iters for every start u = b(v), v in the variables'
 * box, with offsets affine in v. With place values P_k (P_{n-1} = 1) and
 * digit_k(u) = floor(u/P_k) - ext_k*floor(u/P_{k-1}), the offset on axis a is
 *   F_a(u) = sum_k floor(u/P_k) * (S_ka - ext_{k+1} S_{k+1,a})
 * (S_ka: iter k's stride if it lies on axis a). F bends only at multiples of
 * the P_k whose coefficient is non-zero. At such a bend, split b = q*P + r +
 * sum k_i v_i into the variables whose k_i is a multiple of P (they move
 * floor(u/P) linearly) and the rest, whose part w = r + sum k_i v_i must stay
 * in [0, P - ext]: then floor(u/P) is affine in v and no slice straddles the
 * bend. Proved at every bend, the view is affine; otherwise *why says which
 * bend failed (the caller may still check small boxes point by point). */
static bool proven_affine(const Kernel *k, const Iter *g, int n, const Affine *b, int64_t ext, int64_t *bend)
{
	int64_t P[MAX_ITERS], total = 1;
	for (int j = n - 1; j >= 0; j--) {
		P[j] = total;
		if (!mul_ok(total, g[j].ext, &total))
			return false;
	}
	for (int j = 0; j + 1 < n; j++) {
		int64_t c[AX_COUNT] = {0}, t;
		c[g[j].axis] += g[j].stride;
		if (!mul_ok(g[j + 1].ext, g[j + 1].stride, &t))
			return false;
		c[g[j + 1].axis] -= t;
		bool bends = false;
		for (int a = 0; a < AX_COUNT; a++)
			bends |= c[a] != 0;
		if (!bends || g[j].ext == 1)
			continue;
		int64_t p = P[j];
		int64_t wmin = fmod_pos(b->c, p), wmax = wmin;
		for (int i = 0; i < b->n; i++) {
			int64_t e = kernel_var_extent(k, b->t[i].var), ki = b->t[i].k, span;
			if (e < 2 || fmod_pos(ki, p) == 0)
				continue;
			if (!mul_ok(ki, e - 1, &span) || !add_ok(ki < 0 ? wmin : wmax, span, ki < 0 ? &wmin : &wmax))
				return *bend = p, false;
		}
		int64_t last;
		if (wmin < 0 || !add_ok(wmax, ext - 1, &last) || last >= p) {
			*bend = p;
			return false;
		}
	}
	return true;
}

enum { CHECK_BUDGET = 1 << 16 };

static bool slice_dim(const Kernel *k, const Iter *g, int n, const Affine *b, int64_t ext, DimSlice *out,
                      Affine *off, const char **why, uint64_t warps)
{
	/* the variables' smallest values: 0, or a scalar's '>=' fact (a start
	 * like M - 64 with 'assume M >= 64' is a slice from M = 64 on); warpid
	 * and wgid in a when block: the first warp that runs it */
	int64_t lo[MAX_TERMS] = {0};
	for (int i = 0; i < b->n; i++) {
		const Scalar *sc = kernel_scalar_of_var(k, b->t[i].var);
		lo[i] = sc ? sc->lo : 0;
		if (warps && (b->t[i].var == VAR_WARPID || b->t[i].var == VAR_WGID))
			lo[i] = b->t[i].var == VAR_WARPID ? __builtin_ctzll(warps) : __builtin_ctzll(warps) / 4;
	}
	*why = "the region is not a slice of the layout (a start must fall on the layout's iter boundaries)";
	if (!slice_at(g, n, begin_of(b, lo), ext, out))
		return false;
	*why = "the region is not a slice of the layout that stays the same shape for every value of its "
	       "variables (a start must fall on the layout's iter boundaries)";
	int64_t delta[MAX_TERMS][AX_COUNT];
	memset(delta, 0, sizeof delta);
	for (int i = 0; i < b->n; i++) {
		if (kernel_var_extent(k, b->t[i].var) - lo[i] < 2)
			continue;
		int64_t vals[MAX_TERMS];
		memcpy(vals, lo, sizeof vals);
		vals[i] = lo[i] + 1;
		DimSlice s;
		if (!slice_at(g, n, begin_of(b, vals), ext, &s) || !same_iters(&s, out))
			return false;
		for (int a = 0; a < AX_COUNT; a++)
			delta[i][a] = s.off[a] - out->off[a];
	}
	int64_t bend = 0;
	if (n > 1 && b->n > 0 && !proven_affine(k, g, n, b, ext, &bend)) {
		/* not provable from the place values: decide at every point, or reject */
		int64_t combos = 1;
		for (int i = 0; i < b->n && combos <= CHECK_BUDGET; i++)
			combos *= kernel_var_extent(k, b->t[i].var) - lo[i];
		if (combos > CHECK_BUDGET) {
			*why = "its start is not provably affine over the variables' whole range: it does not move in "
			       "whole steps of the layout's place value where the layout bends, nor stay inside one "
			       "such step (use a start that is a multiple of that place value, or a layout that is "
			       "linear there)";
			return false;
		}
		int64_t vals[MAX_TERMS] = {0};
		for (int64_t c = 0; c < combos; c++) {
			int64_t r = c;
			for (int i = b->n - 1; i >= 0; i--) {
				int64_t e = kernel_var_extent(k, b->t[i].var) - lo[i];
				vals[i] = lo[i] + r % e;
				r /= e;
			}
			if (!check_point(g, n, b, ext, vals, lo, out, (const int64_t(*)[AX_COUNT])delta))
				return false;
		}
	}
	for (int a = 0; a < AX_COUNT; a++) {
		memset(&off[a], 0, sizeof(Affine));
		off[a].c = out->off[a];
		for (int i = 0; i < b->n; i++) {
			off[a].c -= lo[i] * delta[i][a]; /* out is the slice at the smallest values */
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
	const Buffer *b = r->buf;
	Layout grouped;
	int seps[MAX_DIMS + 1];
	memset(out, 0, sizeof *out);
	if (!lay_group(&b->layout, b->shape, b->ndim, &grouped, seps)) {
		*why = "the layout does not refine the buffer shape";
		return false;
	}
	out->L.sw = buffer_swizzle(cx, b);
	out->L.nrep = b->layout.nrep; /* a slice keeps every replica */
	memcpy(out->L.rep, b->layout.rep, sizeof out->L.rep);
	for (int d = 0; d < b->ndim; d++) {
		Affine begin = {0};
		if (!r->whole && !r->all[d])
			begin = r->begin[d];
		int64_t ext = r->whole ? b->shape[d] : r->ext[d];
		DimSlice s;
		Affine off[AX_COUNT];
		if (!slice_dim(k, grouped.it + seps[d], seps[d + 1] - seps[d], &begin, ext, &s, off, why, r->warps))
			return false;
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
	if (b->dynamic && region_guarded(k, r, dyn_inner(b)))
		out->vec_cap = dim_pow2(k, b, dyn_inner(b));
	return true;
}

/* the bytes of a shared region the statement may touch: repeat indices at
 * vals, cluster_ctarank at rank (>= 0), every other variable over its range
 * (warpid and wgid over warps, when nonzero), widened to whole swizzle spans (a swizzle permutes inside
 * them); for the async proofs' overlap tests */
bool region_bytes(Ctx *cx, const Kernel *k, const Region *r, const int64_t *vals, uint64_t warps, int rank,
                  int64_t *lo, int64_t *hi)
{
	View v;
	const char *why;
	if (!region_view(cx, k, r, &v, &why))
		return false;
	view_bytes(k, r, &v, vals, warps, rank, lo, hi);
	return true;
}

void view_bytes(const Kernel *k, const Region *r, const View *v, const int64_t *vals, uint64_t warps, int rank,
                int64_t *lo, int64_t *hi)
{
	const Affine *o = &v->off[AX_M];
	*lo = *hi = o->c;
	for (int t = 0; t < o->n; t++) {
		int var = o->t[t].var;
		if (var >= VAR_REPEAT0 && !kernel_scalar_of_var(k, var)) { /* a repeat index: its current value */
			*lo += o->t[t].k * vals[var];
			*hi += o->t[t].k * vals[var];
			continue;
		}
		int64_t vlo = 0, vhi = kernel_var_extent(k, var) - 1;
		if (rank >= 0 && var == VAR_CRANK)
			vlo = vhi = rank;
		if (warps && (var == VAR_WARPID || var == VAR_WGID)) {
			int f = __builtin_ctzll(warps), l = 63 - __builtin_clzll(warps);
			vlo = var == VAR_WARPID ? f : f / 4;
			vhi = var == VAR_WARPID ? l : l / 4;
		}
		int64_t a = o->t[t].k * vlo, b = o->t[t].k * vhi;
		*lo += a < b ? a : b;
		*hi += a < b ? b : a;
	}
	for (int i = 0; i < v->L.n; i++)
		if (v->L.it[i].axis == AX_M) {
			int64_t span = (v->L.it[i].ext - 1) * v->L.it[i].stride;
			*lo += span < 0 ? span : 0;
			*hi += span > 0 ? span : 0;
		}
	int64_t es = dtype_bytes(r->buf->dt);
	*lo *= es;
	*hi = *hi * es + es - 1;
	Swizzle sw = v->L.sw; /* region_view's: the buffer's swizzle, as chosen (buffer_swizzle) */
	if (sw.on) {
		int64_t span = ((int64_t)1 << (sw.p + sw.w + sw.a)) * es;
		*lo = *lo / span * span;
		*hi = (*hi / span + 1) * span - 1;
	}
}
