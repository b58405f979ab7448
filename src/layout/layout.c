/* The layout algebra: one module for every variant (docs/design.md).
 * A layout is a list of iters (extent, stride, axis); a logical index is
 * split mixed-radix across the extents, first iter most significant. */
#include "../tilepx.h"

#include <string.h>

int64_t lay_size(const Layout *L)
{
	int64_t n = 1;
	for (int i = 0; i < L->n; i++)
		if (!mul_ok(n, L->it[i].ext, &n))
			return -1;
	return n;
}

void lay_compact(Layout *L, const int64_t *shape, int n)
{
	int64_t s = 1;
	L->n = n;
	for (int i = n - 1; i >= 0; i--) {
		L->it[i] = (Iter){shape[i], s, AX_M};
		if (!mul_ok(s, shape[i], &s))
			s = INT64_MAX; /* the caller's size check reports it */
	}
}

static bool push(Layout *out, Iter it)
{
	if (out->n == MAX_ITERS)
		return false;
	out->it[out->n++] = it;
	return true;
}

/* Regroup so that consecutive runs of iters multiply to shape[0], shape[1], ...
 * An iter is split (high part first, stride scaled) where a boundary falls
 * inside it. seps[d]..seps[d+1] are the iters of group d. */
bool lay_group(const Layout *L, const int64_t *shape, int n, Layout *out, int *seps)
{
	Iter q[MAX_ITERS];
	int nq = L->n, qi = 0;
	memcpy(q, L->it, sizeof(Iter) * (size_t)nq);
	Layout o = {0};
	o.sw = L->sw;
	o.nrep = L->nrep;
	memcpy(o.rep, L->rep, sizeof o.rep);
	for (int d = 0; d < n; d++) {
		seps[d] = o.n;
		int64_t need = shape[d];
		while (need > 1) {
			if (qi == nq)
				return false;
			Iter it = q[qi];
			if (it.ext <= need && need % it.ext == 0) {
				if (it.ext > 1 && !push(&o, it))
					return false;
				need /= it.ext;
				qi++;
			} else if (it.ext > need && it.ext % need == 0) {
				int64_t lo = it.ext / need;
				if (!push(&o, (Iter){need, it.stride * lo, it.axis}))
					return false;
				q[qi].ext = lo;
				need = 1;
			} else {
				return false;
			}
		}
	}
	while (qi < nq)
		if (q[qi++].ext != 1)
			return false;
	seps[n] = o.n;
	*out = o;
	return true;
}

void lay_drop_units(Layout *L)
{
	int k = 0;
	for (int i = 0; i < L->n; i++)
		if (L->it[i].ext != 1)
			L->it[k++] = L->it[i];
	L->n = k;
}

/* Drop unit iters, then fuse adjacent iters of one axis that are contiguous:
 * (e1, s1), (e2, s2) with e2 * s2 == s1 become (e1 * e2, s2). */
void lay_canonicalize(Layout *L)
{
	lay_drop_units(L);
	int k = 0;
	for (int i = 0; i < L->n; i++) {
		Iter it = L->it[i];
		if (k > 0) {
			Iter *prev = &L->it[k - 1];
			if (prev->axis == it.axis && it.ext * it.stride == prev->stride) {
				prev->ext *= it.ext;
				prev->stride = it.stride;
				continue;
			}
		}
		L->it[k++] = it;
	}
	L->n = k;
}

/* Rewrite thread iters onto the owner scope's own axis (TIRx FuseAxesByScope):
 * warpgroup: laneid, wid_in_wg -> tid_in_wg; cta: everything -> tx. */
static void fuse_iters(Iter *its, int n, Scope owner)
{
	for (int i = 0; i < n; i++) {
		Iter *it = &its[i];
		if (!axis_is_thread(it->axis))
			continue;
		int64_t scale = 1;
		switch (it->axis) {
		case AX_WID_IN_WG: case AX_WARPID: scale = 32; break;
		case AX_WGID: scale = 128; break;
		default: break;
		}
		if (owner == SC_WARPGROUP && (it->axis == AX_LANEID || it->axis == AX_WID_IN_WG)) {
			it->stride *= scale;
			it->axis = AX_TID_IN_WG;
		} else if (owner == SC_CTA) {
			it->stride *= scale;
			it->axis = AX_TX;
		}
	}
}

void lay_fuse_threads(Layout *L, Scope owner)
{
	fuse_iters(L->it, L->n, owner);
	fuse_iters(L->rep, L->nrep, owner);
}

/* the per-thread storage view: thread-axis iters dropped (TIRx storage()) */
void lay_storage(Layout *L)
{
	int k = 0;
	for (int i = 0; i < L->n; i++)
		if (!axis_is_thread(L->it[i].axis))
			L->it[k++] = L->it[i];
	L->n = k;
	L->nrep = 0; /* replicas live on thread axes only */
}

void lay_permute(const Layout *L, const int *perm, Layout *out)
{
	Layout o = {0};
	o.sw = L->sw;
	o.n = L->n;
	o.nrep = L->nrep;
	memcpy(o.rep, L->rep, sizeof o.rep);
	for (int i = 0; i < L->n; i++)
		o.it[i] = L->it[perm[i]];
	*out = o;
}

void lay_apply_flat(const Layout *L, int64_t idx, int64_t *out)
{
	for (int a = 0; a < AX_COUNT; a++)
		out[a] = 0;
	for (int i = L->n - 1; i >= 0 && idx; i--) { /* (the digits left once idx is 0 are all 0) */
		int64_t e = L->it[i].ext;
		if (idx > 0 && e > 0 && !(e & (e - 1))) { /* a power of two (most extents): no division (set's plan) */
			out[L->it[i].axis] += (idx & (e - 1)) * L->it[i].stride;
			idx >>= __builtin_ctzll((unsigned long long)e);
			continue;
		}
		out[L->it[i].axis] += (idx % e) * L->it[i].stride;
		idx /= e;
	}
}

/* Slice one group (the iters of one buffer dimension) to [begin, begin+ext):
 * peel inner iters the slice covers whole, then one partial iter; the
 * digits of `begin` become offsets. */
bool lay_slice_group(const Iter *g, int n, int64_t begin, int64_t ext, Iter *out, int *nout,
                     int64_t *off)
{
	int64_t total = 1, B[MAX_ITERS], d[MAX_ITERS];
	for (int k = n - 1; k >= 0; k--) {
		B[k] = total;
		total *= g[k].ext;
	}
	if (begin < 0 || ext < 1 || begin + ext > total)
		return false;
	for (int k = 0; k < n; k++)
		d[k] = k == 0 ? begin / B[k] : (begin / B[k]) % g[k].ext;
	Iter rev[MAX_ITERS];
	int nr = 0;
	int64_t rem = ext;
	for (int k = n - 1; k >= 0 && rem > 1; k--) {
		if (g[k].ext == 1)
			continue;
		if (d[k] == 0 && rem % g[k].ext == 0) {
			rev[nr++] = g[k];
			rem /= g[k].ext;
		} else if (d[k] + rem <= g[k].ext) {
			rev[nr++] = (Iter){rem, g[k].stride, g[k].axis};
			rem = 1;
		} else {
			return false;
		}
	}
	if (rem > 1)
		return false;
	for (int a = 0; a < AX_COUNT; a++)
		off[a] = 0;
	for (int k = 0; k < n; k++)
		off[g[k].axis] += d[k] * g[k].stride;
	*nout = nr;
	for (int i = 0; i < nr; i++)
		out[i] = rev[nr - 1 - i];
	return true;
}

int64_t swz_apply(Swizzle sw, int64_t m)
{
	if (!sw.on)
		return m;
	int64_t x = m >> sw.p;
	int64_t mask = ((int64_t)1 << sw.w) - 1;
	int64_t f = x ^ ((x & (mask << sw.a)) >> sw.a);
	return (f << sw.p) | (m & (((int64_t)1 << sw.p) - 1));
}

void lay_format(const Layout *L, Str *out)
{
	str_puts(out, "S[(");
	for (int i = 0; i < L->n; i++)
		str_printf(out, "%s%lld", i ? ", " : "", (long long)L->it[i].ext);
	str_puts(out, "):(");
	for (int i = 0; i < L->n; i++) {
		str_printf(out, "%s%lld", i ? ", " : "", (long long)L->it[i].stride);
		if (L->it[i].axis != AX_M)
			str_printf(out, "@%s", axis_name(L->it[i].axis));
	}
	str_puts(out, ")]");
	if (L->nrep) {
		str_puts(out, " + R[(");
		for (int i = 0; i < L->nrep; i++)
			str_printf(out, "%s%lld", i ? ", " : "", (long long)L->rep[i].ext);
		str_puts(out, "):(");
		for (int i = 0; i < L->nrep; i++)
			str_printf(out, "%s%lld@%s", i ? ", " : "", (long long)L->rep[i].stride, axis_name(L->rep[i].axis));
		str_puts(out, ")]");
	}
	if (L->sw.on)
		str_printf(out, " swizzle(%d, %d, %d)", L->sw.p, L->sw.w, L->sw.a);
}

bool lay_eq(const Layout *a, const Layout *b)
{
	if (a->n != b->n || a->sw.on != b->sw.on || a->nrep != b->nrep)
		return false;
	for (int i = 0; i < a->nrep; i++)
		if (a->rep[i].ext != b->rep[i].ext || a->rep[i].stride != b->rep[i].stride || a->rep[i].axis != b->rep[i].axis)
			return false;
	if (a->sw.on && (a->sw.p != b->sw.p || a->sw.w != b->sw.w || a->sw.a != b->sw.a))
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->it[i].ext != b->it[i].ext || a->it[i].stride != b->it[i].stride || a->it[i].axis != b->it[i].axis)
			return false;
	return true;
}

/* Common refinement of two mixed radixes over the same logical index. */
bool lay_refine_pair(const Layout *a, const Layout *b, Layout *oa, Layout *ob)
{
	Layout A = *a, B = *b;
	lay_drop_units(&A);
	lay_drop_units(&B);
	Layout ra = {0}, rb = {0};
	ra.sw = a->sw;
	rb.sw = b->sw;
	int i = 0, j = 0;
	while (i < A.n && j < B.n) {
		Iter x = A.it[i], y = B.it[j];
		if (x.ext == y.ext) {
			i++, j++;
		} else if (x.ext > y.ext && x.ext % y.ext == 0) {
			int64_t lo = x.ext / y.ext;
			A.it[i].ext = lo;
			x = (Iter){y.ext, x.stride * lo, x.axis};
			j++;
		} else if (y.ext > x.ext && y.ext % x.ext == 0) {
			int64_t lo = y.ext / x.ext;
			B.it[j].ext = lo;
			y = (Iter){x.ext, y.stride * lo, y.axis};
			i++;
		} else {
			return false;
		}
		if (!push(&ra, x) || !push(&rb, y))
			return false;
	}
	if (i != A.n || j != B.n)
		return false;
	*oa = ra;
	*ob = rb;
	return true;
}

int64_t lay_replicas(const Layout *L)
{
	int64_t n = 1;
	for (int i = 0; i < L->nrep; i++)
		n *= L->rep[i].ext;
	return n;
}

void lay_add_replica(const Layout *L, int64_t r, int64_t *at)
{
	for (int i = L->nrep - 1; i >= 0; i--) {
		at[L->rep[i].axis] += (r % L->rep[i].ext) * L->rep[i].stride;
		r /= L->rep[i].ext;
	}
}

int64_t lay_thread_of(const int64_t *at)
{
	return at[AX_LANEID] + at[AX_TID_IN_WG] + at[AX_TX] + 32 * (at[AX_WARPID] + at[AX_WID_IN_WG]) +
	       128 * at[AX_WGID];
}

bool lay_holds(const Layout *L, int64_t idx, int64_t t, int64_t *reg)
{
	int64_t at[AX_COUNT];
	lay_apply_flat(L, idx, at);
	*reg = at[AX_M];
	if (!L->nrep) /* one copy of each element */
		return lay_thread_of(at) == t;
	for (int64_t r = 0, n = lay_replicas(L); r < n; r++) {
		int64_t a[AX_COUNT];
		memcpy(a, at, sizeof a);
		lay_add_replica(L, r, a);
		if (lay_thread_of(a) == t)
			return true;
	}
	return false;
}

/* ---- affine expressions ---- */

bool affine_is_const(const Affine *e) { return e->n == 0; }

bool affine_add(Affine *dst, const Affine *src, int64_t scale)
{
	int64_t t;
	if (!mul_ok(src->c, scale, &t) || !add_ok(dst->c, t, &dst->c))
		return false;
	for (int i = 0; i < src->n; i++) {
		if (!mul_ok(src->t[i].k, scale, &t))
			return false;
		int j;
		for (j = 0; j < dst->n; j++)
			if (dst->t[j].var == src->t[i].var)
				break;
		if (j == dst->n) {
			if (dst->n == MAX_TERMS)
				return false;
			dst->t[dst->n].var = src->t[i].var;
			dst->t[dst->n++].k = 0;
		}
		if (!add_ok(dst->t[j].k, t, &dst->t[j].k))
			return false;
	}
	/* drop zero terms */
	int k = 0;
	for (int j = 0; j < dst->n; j++)
		if (dst->t[j].k != 0)
			dst->t[k++] = dst->t[j];
	dst->n = k;
	return true;
}
