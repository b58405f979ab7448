/* A buffer's layout is legal: it refines the shape, its thread axes name an
 * owner the buffer's memory allows, every index stays in range, distinct
 * elements never share storage (decided structurally or by enumeration),
 * and its storage extent. Moved from check.c (check_buffer calls it). */
#include "../tilepx.h"

#include <stdlib.h>
#include <string.h>

static void fmt_extents(Str *s, const Layout *L)
{
	str_putc(s, '(');
	for (int i = 0; i < L->n; i++)
		str_printf(s, "%s%lld", i ? ", " : "", (long long)L->it[i].ext);
	str_putc(s, ')');
}

static void fmt_shape(Str *s, const int64_t *shape, int n)
{
	str_putc(s, '[');
	for (int i = 0; i < n; i++)
		str_printf(s, "%s%lld", i ? ", " : "", (long long)shape[i]);
	str_putc(s, ']');
}

/* extents, read left to right, multiply to each dimension in order */
static bool refines(const Layout *L, const int64_t *shape, int n)
{
	int i = 0;
	for (int d = 0; d < n; d++) {
		int64_t prod = 1;
		while (prod < shape[d] && i < L->n) {
			if (!mul_ok(prod, L->it[i].ext, &prod))
				return false;
			i++;
		}
		if (prod != shape[d])
			return false;
		while (i < L->n && L->it[i].ext == 1 && d == n - 1)
			i++;
	}
	for (; i < L->n; i++)
		if (L->it[i].ext != 1)
			return false;
	return true;
}

/* owner scope from the set of thread axes; false if they do not chain */
static bool owner_of(unsigned set, Scope *out)
{
#define B(a) (1u << (a))
	static const struct { unsigned set; Scope s; } chains[] = {
		{0, SC_THREAD},
		{B(AX_LANEID), SC_WARP},
		{B(AX_TID_IN_WG), SC_WARPGROUP},
		{B(AX_LANEID) | B(AX_WID_IN_WG), SC_WARPGROUP},
		{B(AX_TX), SC_CTA},
		{B(AX_LANEID) | B(AX_WARPID), SC_CTA},
		{B(AX_TID_IN_WG) | B(AX_WGID), SC_CTA},
		{B(AX_LANEID) | B(AX_WID_IN_WG) | B(AX_WGID), SC_CTA},
	};
#undef B
	for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++)
		if (chains[i].set == set) {
			*out = chains[i].s;
			return true;
		}
	return false;
}

static int64_t axis_range(Axis a, int64_t threads)
{
	switch (a) {
	case AX_LANEID: return 32;
	case AX_WARPID: return threads / 32;
	case AX_WID_IN_WG: return 4;
	case AX_TID_IN_WG: return 128;
	case AX_WGID: return threads / 128;
	case AX_TX: return threads;
	case AX_TLANE: return 128;
	default: return INT64_MAX;
	}
}

static bool add_span(const Iter *it, int64_t *mx)
{
	int64_t t;
	return mul_ok(it->ext - 1, it->stride, &t) && add_ok(mx[it->axis], t, &mx[it->axis]);
}

/* largest value each axis reaches, replicas included (strides are non-negative) */
static bool axis_max(const Layout *L, int64_t *mx)
{
	for (int a = 0; a < AX_COUNT; a++)
		mx[a] = 0;
	for (int i = 0; i < L->n; i++)
		if (!add_span(&L->it[i], mx))
			return false;
	for (int i = 0; i < L->nrep; i++)
		if (!add_span(&L->rep[i], mx))
			return false;
	return true;
}

static int cmp_stride(const void *a, const void *b)
{
	const Iter *x = a, *y = b;
	return x->stride < y->stride ? -1 : x->stride > y->stride;
}

/* structural proof: per axis, sorted by stride, each stride clears the span below it */
static bool injective_structural(const Layout *L)
{
	for (int a = 0; a < AX_COUNT; a++) {
		Iter it[MAX_ITERS];
		int n = 0;
		for (int i = 0; i < L->n; i++)
			if (L->it[i].axis == (Axis)a && L->it[i].ext > 1)
				it[n++] = L->it[i];
		qsort(it, (size_t)n, sizeof(Iter), cmp_stride);
		int64_t span = 0; /* largest offset reached by the iters so far */
		for (int i = 0; i < n; i++) {
			if (it[i].stride <= span)
				return false;
			span += (it[i].ext - 1) * it[i].stride;
		}
	}
	return true;
}

static void fmt_coord(Str *s, int64_t idx, const int64_t *shape, int n)
{
	int64_t c[MAX_DIMS];
	for (int d = n - 1; d >= 0; d--) {
		c[d] = idx % shape[d];
		idx /= shape[d];
	}
	fmt_shape(s, c, n);
}

/* the layout's extents refine the buffer's shape */
static bool check_layout_refines(Ctx *cx, Buffer *b, Loc at)
{
	Layout *L = &b->layout;
	Str s = {0};
	if (!refines(L, b->shape, b->ndim)) {
		fmt_extents(&s, L);
		str_puts(&s, " do not refine the buffer shape ");
		fmt_shape(&s, b->shape, b->ndim);
		diag_error(cx, at, "layout extents %s (consecutive extents must multiply to each dimension)", s.s);
		str_free(&s);
		return false;
	}
	return true;
}

/* replicas: in local buffers only, on thread axes only, strides not negative */
static bool check_replica_axes(Ctx *cx, Kernel *k, Buffer *b, unsigned *threads_set)
{
	Layout *L = &b->layout;
	if (L->nrep && b->mem != MEM_LOCAL) {
		diag_error(cx, b->rep_loc, "replicas '+ R[...]' are for local buffers; '%s' is %s", b->name,
		           b->mem == MEM_GLOBAL ? "a param" : mem_name(b->mem));
		diag_note(cx, "a replica is a further thread holding the same register; memory has one place per element");
		return false;
	}
	for (int i = 0; i < L->nrep; i++) {
		Axis a = L->rep[i].axis;
		if (!axis_is_thread(a)) {
			diag_error(cx, b->rep_loc, "replica %d of '%s' is on the memory axis '%s'; replicas live on thread axes only",
			           i, b->name, a == AX_M ? "m (a plain stride)" : axis_name(a));
			diag_note(cx, "write the stride as N@laneid, N@wid_in_wg, N@tid_in_wg, N@warpid, N@wgid or N@tx");
			return false;
		}
		if (L->rep[i].stride < 0) {
			diag_error(cx, b->rep_loc, "replica strides must not be negative");
			return false;
		}
		int64_t need = (a == AX_LANEID || a == AX_WARPID) ? 32 : a == AX_TX ? 1 : 128;
		if (k->threads % need) {
			diag_error(cx, b->rep_loc, "axis '%s' needs a multiple of %lld threads, but kernel '%s' has %lld",
			           axis_name(a), (long long)need, k->name, (long long)k->threads);
			return false;
		}
		*threads_set |= 1u << a;
	}
	return true;
}

/* every iter's axis is one its memory may use, its stride is not negative,
 * the thread count suits its thread axes, and a local buffer's thread axes
 * form one chain (which sets its owner group) */
static bool check_layout_axes(Ctx *cx, Kernel *k, Buffer *b, Loc at)
{
	Layout *L = &b->layout;
	unsigned threads_set = 0;
	for (int i = 0; i < L->n; i++) {
		Axis a = L->it[i].axis;
		bool ok = b->mem == MEM_LOCAL ? (a == AX_M || axis_is_thread(a))
		        : b->mem == MEM_TMEM ? (a == AX_TLANE || a == AX_TCOL)
		                             : a == AX_M;
		if (!ok) {
			const char *what = b->mem == MEM_TMEM ? "tmem layouts use only TLane and TCol strides"
			                 : b->mem == MEM_LOCAL ? "local layouts use plain and thread-axis strides"
			                                       : "only plain strides address memory";
			diag_error(cx, at, "axis '%s' is not valid in a %s buffer layout (%s)", axis_name(a),
			           b->mem == MEM_GLOBAL ? "param" : mem_name(b->mem), what);
			return false;
		}
		if (L->it[i].stride < 0) {
			diag_error(cx, at, "layout strides must not be negative");
			return false;
		}
		if (axis_is_thread(a)) {
			threads_set |= 1u << a;
			int64_t need = (a == AX_LANEID || a == AX_WARPID) ? 32 : a == AX_TX ? 1 : 128;
			if (k->threads % need) {
				diag_error(cx, at, "axis '%s' needs a multiple of %lld threads, but kernel '%s' has %lld",
				           axis_name(a), (long long)need, k->name, (long long)k->threads);
				return false;
			}
		}
	}
	if (!check_replica_axes(cx, k, b, &threads_set))
		return false;
	if (b->mem == MEM_LOCAL && !owner_of(threads_set, &b->owner)) {
		diag_error(cx, at,
		           "the thread axes of this layout do not form one chain from threads upward (use laneid; "
		           "tid_in_wg or laneid+wid_in_wg; tx, laneid+warpid, tid_in_wg+wgid or laneid+wid_in_wg+wgid)");
		return false;
	}
	return true;
}

/* the largest coordinate per axis, within each axis' range */
static bool check_layout_ranges(Ctx *cx, Kernel *k, Buffer *b, Loc at, int64_t *mx)
{
	Layout *L = &b->layout;
	if (!axis_max(L, mx)) {
		diag_error(cx, at, "layout offsets overflow 64 bits");
		return false;
	}
	for (int a = AX_LANEID; a < AX_COUNT; a++) {
		int64_t r = axis_range((Axis)a, k->threads);
		if (mx[a] > 0 && mx[a] >= r) {
			diag_error(cx, at, "axis '%s' reaches %lld but its range is 0..%lld", axis_name((Axis)a),
			           (long long)mx[a], (long long)r - 1);
			return false;
		}
	}
	return true;
}

/* no two logical coordinates share a place: a structural proof, else an
 * exhaustive search that names two colliding coordinates, else rejected */
static bool check_layout_injective(Ctx *cx, Buffer *b, Loc at, const int64_t *mx)
{
	Layout *L = &b->layout;
	Str s = {0};
	/* injectivity: structural proof, else exhaustive search for a witness */
	if (!injective_structural(L)) {
		int64_t size = lay_size(L);
		int64_t mult[AX_COUNT], span = 1;
		for (int a = 0; a < AX_COUNT; a++) {
			mult[a] = span;
			if (!mul_ok(span, mx[a] + 1, &span) || span > ENUM_LIMIT)
				break;
		}
		if (size > ENUM_LIMIT || span > ENUM_LIMIT) {
			diag_error(cx, at, "cannot prove this layout injective and it is too large to check exhaustively");
			return false;
		}
		int64_t *seen = calloc((size_t)span, sizeof(int64_t));
		for (int64_t i = 0; i < size; i++) {
			int64_t v[AX_COUNT], key = 0;
			lay_apply_flat(L, i, v);
			for (int a = 0; a < AX_COUNT; a++)
				key += v[a] * mult[a];
			if (seen[key]) {
				str_puts(&s, "coordinates ");
				fmt_coord(&s, seen[key] - 1, b->shape, b->ndim);
				str_puts(&s, " and ");
				fmt_coord(&s, i, b->shape, b->ndim);
				diag_error(cx, at, "layout is not injective: %s map to the same place", s.s);
				str_free(&s);
				free(seen);
				return false;
			}
			seen[key] = i + 1;
		}
		free(seen);
	}
	return true;
}

/* replicas are no collisions, but a replica must not land on a place of the
 * shard (another element, or another replica): the shard plus the replica
 * iters, as one layout, is injective (structurally, else by enumeration) */
static bool check_replicas_injective(Ctx *cx, Buffer *b, const int64_t *mx)
{
	const Layout *L = &b->layout;
	if (!L->nrep)
		return true;
	Layout E = *L;
	for (int i = 0; i < L->nrep; i++)
		E.it[E.n++] = L->rep[i]; /* shard digits, then replica digits (least significant) */
	E.nrep = 0;
	if (injective_structural(&E))
		return true;
	int64_t size = lay_size(&E), mult[AX_COUNT], span = 1;
	for (int a = 0; a < AX_COUNT; a++) {
		mult[a] = span;
		if (!mul_ok(span, mx[a] + 1, &span) || span > ENUM_LIMIT)
			break;
	}
	if (size < 0 || size > ENUM_LIMIT || span > ENUM_LIMIT) {
		diag_error(cx, b->rep_loc, "cannot prove the replicas of '%s' apart from its shard and it is too large to "
		           "check exhaustively", b->name);
		return false;
	}
	int64_t *seen = calloc((size_t)span, sizeof(int64_t)), reps = lay_replicas(L);
	bool ok = true;
	for (int64_t i = 0; i < size && ok; i++) {
		int64_t v[AX_COUNT], key = 0;
		lay_apply_flat(&E, i, v);
		for (int a = 0; a < AX_COUNT; a++)
			key += v[a] * mult[a];
		if (seen[key]) {
			Str s = {0};
			fmt_coord(&s, (seen[key] - 1) / reps, b->shape, b->ndim);
			str_printf(&s, " (replica %lld) and ", (long long)((seen[key] - 1) % reps));
			fmt_coord(&s, i / reps, b->shape, b->ndim);
			str_printf(&s, " (replica %lld)", (long long)(i % reps));
			diag_error(cx, b->rep_loc, "a replica of '%s' collides with its shard: %s are both in thread %lld, "
			           "register %lld", b->name, s.s, (long long)lay_thread_of(v), (long long)v[AX_M]);
			diag_note(cx, "replica strides must use thread-index bits that no shard iter uses");
			str_free(&s);
			ok = false;
		}
		seen[key] = i + 1;
	}
	free(seen);
	return ok;
}

/* the storage the layout needs, per memory: elements (param, shared),
 * registers per thread (local) or tensor-memory columns (tmem) */
static void check_layout_storage(Ctx *cx, Buffer *b, Loc at, const int64_t *mx)
{
	Layout *L = &b->layout;
	int64_t storage;
	int bytes = dtype_bytes(b->dt);
	switch (b->mem) {
	case MEM_GLOBAL:
	case MEM_SHARED: {
		int64_t size = 1;
		for (int d = 0; d < b->ndim; d++)
			mul_ok(size, b->shape[d], &size);
		storage = b->storage_given ? b->storage_given : size;
		if (b->storage_given && b->storage_given < size) {
			diag_error(cx, b->storage_loc, "storage %lld is smaller than the shape's %lld elements",
			           (long long)b->storage_given, (long long)size);
			return;
		}
		b->max_off = mx[AX_M];
		if (mx[AX_M] >= storage) {
			diag_error(cx, at,
			           "layout reaches element %lld, outside the buffer's storage of %lld elements (a padded "
			           "layout declares its storage: 'storage %lld' after the layout)",
			           (long long)mx[AX_M], (long long)storage, (long long)mx[AX_M] + 1);
			return;
		}
		if (L->sw.on) {
			/* the XOR changes bits [P, P+W) of an element offset only, so an offset
			 * stays inside its aligned block of 2^(P+W) elements */
			int64_t block = (int64_t)1 << (L->sw.p + L->sw.w);
			int64_t used = (mx[AX_M] + block) / block * block;
			if (used > storage) {
				diag_error(cx, at,
				           "swizzle(%d, %d, %d) moves elements within blocks of %lld; the layout's last block "
				           "reaches past the storage of %lld elements",
				           L->sw.p, L->sw.w, L->sw.a, (long long)block, (long long)storage);
				return;
			}
		}
		b->storage = storage;
		break;
	}
	case MEM_LOCAL:
		b->regs = mx[AX_M] + 1;
		if (b->regs * bytes > LOCAL_BYTES_LIMIT) {
			diag_error(cx, at, "local buffer needs %lld bytes of registers per thread (limit %d)",
			           (long long)(b->regs * bytes), LOCAL_BYTES_LIMIT);
			return;
		}
		break;
	case MEM_TMEM: {
		/* TCol strides count elements; a column holds 32 bits */
		int per_col = 4 / (bytes > 4 ? 4 : bytes);
		if (bytes > 4) {
			diag_error(cx, b->loc, "tmem holds 32-bit cells; %s elements are not supported", dtype_name(b->dt));
			return;
		}
		int64_t need = mx[AX_TCOL] / per_col + 1, cols = 32;
		while (cols < need && cols < 1024)
			cols *= 2;
		if (b->cols_given) {
			if (b->cols < 32 || b->cols > 512 || (b->cols & (b->cols - 1))) {
				diag_error(cx, b->cols_loc, "cols must be a power of two in 32..512");
				return;
			}
			if (b->cols < need) {
				diag_error(cx, b->cols_loc, "cols %lld does not hold the layout's %lld columns",
				           (long long)b->cols, (long long)need);
				return;
			}
		} else {
			if (need > 512) {
				diag_error(cx, at, "layout needs %lld tensor-memory columns (at most 512)", (long long)need);
				return;
			}
			b->cols = cols;
		}
		break;
	}
	}
}

void check_layout(Ctx *cx, Kernel *k, Buffer *b)
{
	Loc at = b->layout_loc.line ? b->layout_loc : b->loc;
	int64_t mx[AX_COUNT];
	if (!check_layout_refines(cx, b, at) || !check_layout_axes(cx, k, b, at) ||
	    !check_layout_ranges(cx, k, b, at, mx) || !check_layout_injective(cx, b, at, mx) ||
	    !check_replicas_injective(cx, b, mx))
		return;
	check_layout_storage(cx, b, at, mx);
}
