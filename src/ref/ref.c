/* The CPU reference: the .tile semantics executed on the host, from the
 * program and its layouts only (never the emitters' decisions). For every
 * logical coordinate of a copy, DST[c] = SRC[c], bit for bit; dump writes
 * each thread's registers in layout order. The GPU harness compares a
 * kernel's results with this, byte for byte. Kernels with roles run in
 * roles.c. */
#include "../tilepx.h"
#include "../walk.h"
#include "fmath.h"
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t bidx(const Kernel *k, const Buffer *b)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i] == b)
			return i;
	return 0;
}

/* ---- the language's meaning, evaluated directly ----
 * Nothing here uses src/layout/ or the variants (views, slicing, grouping,
 * partitions): a region element's place is computed from the definitions
 * in docs/language.md, so that a bug in the emitter's layout algebra shows
 * up as a difference instead of being shared. */

/* an index expression at the current values of the kernel variables */
int64_t ref_eval(const Affine *e, const int64_t *vars)
{
	int64_t v = e->c;
	for (int i = 0; i < e->n; i++)
		v += e->t[i].k * vars[e->t[i].var];
	return v;
}

/* a layout maps the row-major index of a logical coordinate through its
 * iters, outermost first, as mixed-radix digits times strides, per axis;
 * a buffer declared without one is compact row-major */
void apply_layout(const Buffer *b, int64_t idx, int64_t *at /* [AX_COUNT] */)
{
	memset(at, 0, sizeof(int64_t) * AX_COUNT);
	if (!b->has_layout) {
		at[AX_M] = idx;
		return;
	}
	for (int j = b->layout.n - 1; j >= 0; j--) {
		const Iter *it = &b->layout.it[j];
		at[it->axis] += (idx % it->ext) * it->stride;
		idx /= it->ext;
	}
}

/* the copies of a local element: replica iters enumerate further threads
 * (mixed radix, first iter most significant) holding the same register */
int64_t replica_count(const Buffer *b)
{
	int64_t n = 1;
	for (int j = 0; j < b->layout.nrep; j++)
		n *= b->layout.rep[j].ext;
	return n;
}

void add_replica(const Buffer *b, int64_t rep, int64_t *at)
{
	for (int j = b->layout.nrep - 1; j >= 0; j--) {
		const Iter *it = &b->layout.rep[j];
		at[it->axis] += (rep % it->ext) * it->stride;
		rep /= it->ext;
	}
}

/* swizzle(P, W, A): x = m >> P; f(x) = x ^ ((x & (((1 << W) - 1) << A)) >> A); low P bits kept */
static int64_t swizzled(const RefCta *c, const Buffer *b, int64_t m)
{
	Swizzle sw = buffer_swizzle(c->cx, b);
	if (!sw.on)
		return m;
	int64_t x = m >> sw.p, bits = ((int64_t)1 << sw.w) - 1;
	x ^= (x & (bits << sw.a)) >> sw.a;
	return (x << sw.p) | (m & (((int64_t)1 << sw.p) - 1));
}

/* threads one instance of a local buffer spans, from its thread axes:
 * none: a thread; laneid: a warp; tid_in_wg or wid_in_wg: a warpgroup;
 * tx, warpid or wgid: the CTA */
int64_t ref_owner_threads(const RefCta *c, const Buffer *b)
{
	int64_t n = 1;
	for (int j = 0; j < b->layout.n + b->layout.nrep; j++)
		switch (j < b->layout.n ? b->layout.it[j].axis : b->layout.rep[j - b->layout.n].axis) {
		case AX_LANEID: n = n > 32 ? n : 32; break;
		case AX_TID_IN_WG: case AX_WID_IN_WG: n = n > 128 ? n : 128; break;
		case AX_TX: case AX_WARPID: case AX_WGID: n = c->k->threads; break;
		default: break;
		}
	return n > c->k->threads ? c->k->threads : n;
}

/* registers per thread: the largest register offset the layout reaches, plus one */
int64_t ref_regs_per_thread(const Buffer *b)
{
	int64_t r = 0;
	for (int j = 0; j < b->layout.n; j++)
		if (b->layout.it[j].axis == AX_M)
			r += (b->layout.it[j].ext - 1) * b->layout.it[j].stride;
	return r + 1;
}

/* a thread axis' weight in the thread index of the owner instance */
int64_t thread_weight(Axis a)
{
	switch (a) {
	case AX_WARPID: case AX_WID_IN_WG: return 32;
	case AX_WGID: return 128;
	default: return 1;
	}
}

/* the bytes of logical element x (row-major over the region's extents) of
 * region r, in the instance whose first thread is `first`; NULL when the
 * element lies outside its tensor (a param whose extents are runtime values:
 * a load of it reads zero, a store to it writes nothing) */
static unsigned char *place_rep(RefCta *c, const Region *r, int64_t x, int64_t first, int64_t rep)
{
	const Buffer *b = r->buf;
	int64_t coord[MAX_DIMS];
	for (int d = r->ndim - 1; d >= 0; d--) {
		coord[d] = x % r->ext[d];
		x /= r->ext[d];
	}
	int64_t idx = 0;
	for (int d = 0; d < b->ndim; d++) {
		int64_t start = r->whole || r->all[d] ? 0 : ref_eval(&r->begin[d], c->vars);
		if (start + coord[d] < 0 || start + coord[d] >= b->shape[d])
			return NULL;
		idx = idx * b->shape[d] + start + coord[d];
	}
	int64_t at[AX_COUNT];
	apply_layout(b, idx, at);
	add_replica(b, rep, at);
	int es = dtype_bytes(b->dt);
	switch (b->mem) {
	case MEM_GLOBAL:
		return c->params[b->param_index] + at[AX_M] * es;
	case MEM_SHARED:
		return c->mem[bidx(c->k, b)] + swizzled(c, b, at[AX_M]) * es;
	case MEM_LOCAL: {
		int64_t t = 0;
		for (int a = AX_LANEID; a <= AX_TX; a++)
			t += at[a] * thread_weight((Axis)a);
		return c->mem[bidx(c->k, b)] + ((first + t) * ref_regs_per_thread(b) + at[AX_M]) * es;
	}
	case MEM_TMEM:
		return c->mem[bidx(c->k, b)] + at[AX_TLANE] * b->cols * 4 + at[AX_TCOL] * es;
	}
	return NULL;
}

/* an element's first copy: the one a read takes (every copy holds the same value) */
unsigned char *ref_place(RefCta *c, const Region *r, int64_t x, int64_t first)
{
	return place_rep(c, r, x, first, 0);
}

int64_t ref_region_elems(const Region *r)
{
	int64_t n = 1;
	for (int d = 0; d < r->ndim; d++)
		n *= r->ext[d];
	return n;
}

/* threads in one instance of a scope */
static int64_t scope_size(const RefCta *c, Scope s)
{
	return s == SC_THREAD ? 1 : s == SC_WARP ? 32 : s == SC_WARPGROUP ? 128 : c->k->threads;
}

/* an instance of threads [first, first + n) runs the statement when one of
 * its warps does (a when block runs in its warps only); a warpgroup split
 * among roles (when warpid) runs its warpgroup statements once, in the role
 * of its first warp */
bool ref_runs_instance(const RefCta *c, int64_t first, int64_t n)
{
	if (n == 128)
		return c->warps >> (first / 32) & 1;
	for (int64_t w = first / 32; w <= (first + n - 1) / 32 && w < 64; w++)
		if (c->warps >> w & 1)
			return true;
	return false;
}

/* the index variables of the instance starting at thread `first` */
void ref_enter_instance(RefCta *c, int64_t first)
{
	c->vars[VAR_WARPID] = first / 32;
	c->vars[VAR_WGID] = first / 128;
}

/* the bytes and element count of a buffer's memory in this CTA (params: shared by all CTAs) */
static unsigned char *mem_of(RefCta *c, const Buffer *b, int64_t *n, float ***errs)
{
	if (b->mem == MEM_GLOBAL) {
		*n = b->storage;
		*errs = &c->perr[b->param_index];
		return c->params[b->param_index];
	}
	size_t i = bidx(c->k, b);
	*n = b->mem == MEM_LOCAL ? c->k->threads * ref_regs_per_thread(b) : b->mem == MEM_SHARED ? b->storage : 0;
	*errs = &c->err[i];
	return c->mem[i];
}

/* the error bound of the element at p of buffer b; NULL when none is kept
 * (the element is exact), unless make */
float *ref_err_slot(RefCta *c, const Buffer *b, const unsigned char *p, bool make)
{
	int64_t n;
	float **errs;
	unsigned char *base = mem_of(c, b, &n, &errs);
	if (!c->err || !base || b->mem == MEM_TMEM || (!*errs && !make))
		return NULL;
	if (!*errs && !(*errs = calloc((size_t)(n ? n : 1), sizeof(float))))
		return NULL;
	int64_t i = (p - base) / dtype_bytes(b->dt);
	return i >= 0 && i < n ? &(*errs)[i] : NULL;
}

/* a copied element's bound, its source's being se (0: exact): se, plus a
 * rounding step when the copy narrows f32 (s: the source's f32 bits) */
static void copy_err_of(RefCta *c, const Buffer *db, unsigned char *d, const Buffer *sb, const unsigned char *s,
                        float se)
{
	float *de = ref_err_slot(c, db, d, se > 0);
	if (de)
		*de = se;
	if (de && *de > 0 && dtype_bytes(db->dt) < dtype_bytes(sb->dt)) {
		float v;
		memcpy(&v, s, 4);
		int e;
		rm_frexp(fabs((double)v) + *de, &e);
		/* the destination's mantissa bits and lowest normal exponent */
		int man = db->dt == DT_BF16 ? 7 : db->dt == DT_E4M3 ? 3 : db->dt == DT_E5M2 ? 2 : 10;
		int emin = db->dt == DT_E4M3 ? -6 : -14;
		*de += (float)rm_ldexp(1.0, (e - 1 < emin ? emin : e - 1) - man);
	}
}

static void copy_err(RefCta *c, const Buffer *db, unsigned char *d, const Buffer *sb, const unsigned char *s)
{
	float *se = ref_err_slot(c, sb, s, false);
	copy_err_of(c, db, d, sb, s, se ? *se : 0);
}

/* a converting copy's element: f32 -> f16/bf16/e4m3/e5m2 rounded, f16/bf16 -> f32 exact */
static void convert_elem(unsigned char *d, DType dt, const unsigned char *s, DType st)
{
	if (st == DT_F32 && (dt == DT_E4M3 || dt == DT_E5M2)) {
		uint32_t u;
		memcpy(&u, s, 4);
		*d = ref_f32_to_f8(u, dt == DT_E5M2);
	} else if (st == DT_F32) {
		uint32_t u;
		memcpy(&u, s, 4);
		uint16_t h = ref_f32_to_half(u, dt == DT_BF16);
		memcpy(d, &h, 2);
	} else {
		uint16_t h;
		memcpy(&h, s, 2);
		uint32_t u = ref_half_to_f32(h, st == DT_BF16);
		memcpy(d, &u, 4);
	}
}

/* registers to registers in the owner group starting at thread `first`:
 * every SRC element is read before any DST element is written (the two may
 * be one buffer) */
static bool copy_registers(RefCta *c, const Stmt *s, int64_t first, int64_t elems)
{
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	int ss = dtype_bytes(sb->dt), ds = dtype_bytes(db->dt);
	unsigned char *tmp = malloc((size_t)(elems * ss));
	if (!tmp)
		return false;
	float *tmp_err = calloc((size_t)elems, sizeof(float)); /* the sources' bounds, taken with them */
	if (!tmp_err) {
		free(tmp);
		return false;
	}
	for (int64_t x = 0; x < elems; x++) {
		const unsigned char *from = ref_place(c, s->src, x, first);
		float *se = ref_err_slot(c, sb, from, false);
		memcpy(tmp + x * ss, from, (size_t)ss);
		tmp_err[x] = se ? *se : 0;
	}
	for (int64_t x = 0; x < elems; x++)
		for (int64_t rep = 0; rep < replica_count(db); rep++) { /* a replicated DST: every copy */
			unsigned char *d = place_rep(c, s->dst, x, first, rep);
			if (db->dt != sb->dt)
				convert_elem(d, db->dt, tmp + x * ss, sb->dt);
			else
				memcpy(d, tmp + x * ss, (size_t)ds);
			copy_err_of(c, db, d, sb, tmp + x * ss, tmp_err[x]);
		}
	free(tmp_err);
	free(tmp);
	return true;
}

/* DST[c] = SRC[c] for every logical coordinate, in every instance: every
 * owner group of a register operand, else every scope instance */
static bool run_copy(Ctx *cx, RefCta *c, const Stmt *s)
{
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	int64_t elems = ref_region_elems(s->src);
	int64_t inst = scope_size(c, s->scope);
	if (db->mem == MEM_LOCAL)
		inst = ref_owner_threads(c, db);
	if (sb->mem == MEM_LOCAL)
		inst = ref_owner_threads(c, sb);
	int es = dtype_bytes(db->dt);
	for (int64_t first = 0; first < c->k->threads; first += inst) {
		if (!ref_runs_instance(c, first, inst))
			continue;
		ref_enter_instance(c, first);
		if (db->mem == MEM_LOCAL && sb->mem == MEM_LOCAL) {
			if (!copy_registers(c, s, first, elems)) {
				diag_error(cx, s->loc, "the reference ran out of memory");
				return false;
			}
			c->bytes += elems * es;
			continue;
		}
		for (int64_t x = 0; x < elems; x++)
			for (int64_t rep = 0; rep < replica_count(db); rep++) { /* a local DST: every copy */
				unsigned char *d = place_rep(c, s->dst, x, first, rep), *from = ref_place(c, s->src, x, first);
				if (d && from && db->dt != sb->dt)
					convert_elem(d, db->dt, from, sb->dt);
				else if (d && from)
					memcpy(d, from, (size_t)es);
				else if (d)
					memset(d, 0, (size_t)es);
				if (d && from)
					copy_err(c, db, d, sb, from);
				else if (d && ref_err_slot(c, db, d, false)) /* a zero read outside a tensor: exact */
					*ref_err_slot(c, db, d, false) = 0;
			}
		c->bytes += elems * es;
	}
	return true;
}

/* a multicast load: every CTA of the mask receives the region, at the same
 * place of its own shared buffer */
bool ref_copy(Ctx *cx, RefCta *c, const Stmt *s)
{
	if (!s->mcast)
		return run_copy(cx, c, s);
	unsigned char **own = c->mem;
	bool ok = true;
	for (int r = 0; r < c->nranks && ok; r++)
		if (s->mcast >> r & 1) {
			c->mem = &c->peers[r] == c ? own : c->peers[r].mem; /* c->mem is c's own while it runs */
			ok = run_copy(cx, c, s);
		}
	c->mem = own;
	return ok;
}

/* dump: thread t's registers, in layout order, at element (cta*threads + t)*regs */
bool ref_dump(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Kernel *k = c->k;
	const Buffer *l = s->src->buf, *p = s->dst->buf;
	int es = dtype_bytes(l->dt);
	int64_t regs = ref_regs_per_thread(l);
	for (int64_t t = 0; t < k->threads; t++)
		if (ref_runs_instance(c, t, 1)) {
			unsigned char *d = c->params[p->param_index] + ((c->cta * k->threads + t) * regs) * es,
			              *from = c->mem[bidx(k, l)] + t * regs * es;
			memcpy(d, from, (size_t)(regs * es));
			for (int64_t r = 0; r < regs; r++)
				copy_err(c, p, d + r * es, l, from + r * es);
			c->bytes += regs * es;
		}
	return true;
}

/* init: every element of the region, in every owner instance */
bool ref_init(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Buffer *b = s->dst->buf;
	int es = dtype_bytes(b->dt);
	uint64_t bits = dtype_int_bits(b->dt, s->n);
	int64_t elems = ref_region_elems(s->dst);
	for (int64_t first = 0; first < c->k->threads; first += ref_owner_threads(c, b)) {
		if (!ref_runs_instance(c, first, ref_owner_threads(c, b)))
			continue;
		ref_enter_instance(c, first);
		for (int64_t x = 0; x < elems; x++)
			for (int64_t rep = 0; rep < replica_count(b); rep++)
				memcpy(place_rep(c, s->dst, x, first, rep), &bits, (size_t)es);
	}
	return true;
}


/* ---- reduce.max|min|sum: f32 values, in the language's stated order ----
 * For each DST element k: the SRC elements whose kept coordinates are k;
 * within each thread (the owner instance's thread index of the element's
 * place), a chain in increasing register index; then the threads' partial
 * values pair up by thread-index bit, lowest bit first: op(lower thread's,
 * upper thread's). NaN results are the canonical 0x7fffffff; max/min of a
 * NaN and a number is the number; +0 > -0. */
enum { RED_MAX, RED_MIN, RED_SUM };

static bool nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

static uint32_t red_op(int op, uint32_t a, uint32_t b)
{
	float x, y;
	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	if (op == RED_SUM) {
		float r = x + y;
		uint32_t u;
		memcpy(&u, &r, 4);
		return nan_bits(u) ? 0x7fffffffu : u;
	}
	if (nan_bits(a) && nan_bits(b))
		return 0x7fffffffu;
	if (nan_bits(a) || nan_bits(b))
		return nan_bits(a) ? b : a;
	if (x == 0 && y == 0) /* +0 > -0 */
		return op == RED_MAX ? (a & b) : (a | b);
	return (op == RED_MAX ? x > y : x < y) ? a : b;
}

typedef struct RedEnt {
	int64_t k, t, reg;
	uint32_t v;
	float err; /* the value's error bound (approximate functions upstream), 0 when exact */
} RedEnt;

/* op(a, b)'s bound: max and min move by at most the larger input's bound;
 * a sum by both, plus one f32 rounding step at the result's magnitude */
static float red_err(int op, const RedEnt *a, const RedEnt *b, uint32_t v)
{
	if (a->err == 0 && b->err == 0)
		return 0;
	if (op != RED_SUM)
		return a->err > b->err ? a->err : b->err;
	float f;
	memcpy(&f, &v, 4);
	double e = (double)a->err + b->err, mag = fabs((double)f) + e;
	int x;
	rm_frexp(mag, &x);
	e += rm_ldexp(1.0, (x - 1 < -126 ? -126 : x - 1) - 23);
	return isfinite(e) && isfinite(f) ? (float)e : INFINITY;
}

/* a and b combined into a */
static void red_merge(int op, RedEnt *a, const RedEnt *b)
{
	uint32_t v = red_op(op, a->v, b->v);
	a->err = red_err(op, a, b, v);
	a->v = v;
}

static bool ent_before(const RedEnt *a, const RedEnt *b)
{
	if (a->k != b->k)
		return a->k < b->k;
	return a->t != b->t ? a->t < b->t : a->reg < b->reg;
}

/* by (DST element, thread, register): a bottom-up merge sort through tmp */
static void sort_ents(RedEnt *a, RedEnt *tmp, int64_t n)
{
	for (int64_t w = 1; w < n; w *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * w) {
			int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int64_t i = lo, j = mid, o = lo;
			while (i < mid || j < hi)
				tmp[o++] = j >= hi || (i < mid && !ent_before(&a[j], &a[i])) ? a[i++] : a[j++];
		}
		memcpy(a, tmp, sizeof(RedEnt) * (size_t)n);
	}
}

/* SRC region element x: its DST element (kept coordinates over DST's
 * extents), its thread in the instance and register, its value as f32 */
static RedEnt red_entry(RefCta *c, const Stmt *s, int64_t x, int64_t first)
{
	const Region *r = s->src, *d = s->dst;
	const Buffer *b = r->buf;
	RedEnt e = {0};
	int64_t rem = x, rel[MAX_DIMS], idx = 0, at[AX_COUNT];
	for (int q = r->ndim - 1; q >= 0; q--) {
		rel[q] = rem % r->ext[q];
		rem /= r->ext[q];
	}
	for (int q = 0; q < r->ndim; q++) {
		e.k = e.k * d->ext[q] + (d->ext[q] == 1 ? 0 : rel[q]);
		idx = idx * b->shape[q] + (r->whole || r->all[q] ? 0 : ref_eval(&r->begin[q], c->vars)) + rel[q];
	}
	apply_layout(b, idx, at);
	for (int a = AX_LANEID; a <= AX_TX; a++)
		e.t += at[a] * thread_weight((Axis)a);
	e.reg = at[AX_M];
	const unsigned char *p = ref_place(c, r, x, first);
	const float *err = ref_err_slot(c, b, p, false);
	e.err = err ? *err : 0;
	if (b->dt == DT_F32) {
		memcpy(&e.v, p, 4);
	} else {
		uint16_t h;
		memcpy(&h, p, 2);
		e.v = ref_half_to_f32(h, b->dt == DT_BF16);
	}
	return e;
}

static int64_t find_thread(const RedEnt *th, int64_t n, int64_t t)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = (lo + hi) / 2;
		if (th[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && th[lo].t == t ? lo : -1;
}

/* the partial values of one DST element's threads (sorted by thread), paired
 * by thread-index bit from the lowest until one is left: at bit B, a thread
 * with B clear takes op(its value, its partner's) and the partner leaves */
static bool red_lanes(int op, RedEnt *th, RedEnt *next, int64_t n, RedEnt *out)
{
	for (int bit = 0; bit < 31 && n > 1; bit++) {
		int64_t m = 0, B = (int64_t)1 << bit;
		for (int64_t i = 0; i < n; i++) {
			if ((th[i].t & B) && find_thread(th, n, th[i].t & ~B) >= 0)
				continue;
			next[m] = th[i];
			int64_t j = th[i].t & B ? -1 : find_thread(th, n, th[i].t | B);
			if (j >= 0)
				red_merge(op, &next[m], &th[j]);
			m++;
		}
		memcpy(th, next, sizeof(RedEnt) * (size_t)m);
		n = m;
	}
	*out = th[0];
	return n == 1;
}

bool ref_reduce(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	int op = s->kind == ST_REDUCE_MAX ? RED_MAX : s->kind == ST_REDUCE_MIN ? RED_MIN : RED_SUM;
	int64_t inst = ref_owner_threads(c, s->src->buf), n = ref_region_elems(s->src);
	size_t bytes = sizeof(RedEnt) * (size_t)(n ? n : 1);
	RedEnt *e = malloc(bytes), *th = malloc(bytes), *next = malloc(bytes);
	bool ok = e && th && next;
	for (int64_t first = 0; ok && first < c->k->threads; first += inst) {
		if (!ref_runs_instance(c, first, inst))
			continue;
		ref_enter_instance(c, first);
		for (int64_t x = 0; x < n; x++)
			e[x] = red_entry(c, s, x, first);
		sort_ents(e, next, n);
		for (int64_t i = 0; ok && i < n;) {
			int64_t nt = 0, j = i;
			for (; j < n && e[j].k == e[i].k; j++) /* chain each thread's registers */
				if (j > i && e[j].t == e[j - 1].t)
					red_merge(op, &th[nt - 1], &e[j]);
				else
					th[nt++] = e[j];
			RedEnt v;
			ok = red_lanes(op, th, next, nt, &v);
			for (int64_t rep = 0; rep < replica_count(s->dst->buf); rep++) {
				unsigned char *d = place_rep(c, s->dst, e[i].k, first, rep);
				memcpy(d, &v.v, 4);
				float *de = ref_err_slot(c, s->dst->buf, d, v.err > 0);
				if (de)
					*de = v.err;
			}
			i = j;
		}
	}
	free(e);
	free(th);
	free(next);
	return ok;
}

static float half_to_float(uint16_t h, bool bf16)
{
	if (bf16) {
		uint32_t u = (uint32_t)h << 16;
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, u;
	if (e == 0) { /* zero and subnormals: m * 2^-24 */
		float f = (float)m / 16777216.0f;
		memcpy(&u, &f, 4);
		u |= sign;
	} else if (e == 31) {
		u = sign | 0x7f800000u | (m << 13);
	} else {
		u = sign | ((e + 112) << 23) | (m << 13);
	}
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* asm: the block's meaning for the reference is its mma clause, per
 * instance of its indices and per owner group: C[M,N] += A[M,K] B[K,N] in
 * the regions' logical coordinates (never the registers the PTX names) */
/* an index expression with the block's own indices replaced by their values */
static Affine with_values(const Affine *e, const int *vars, const int64_t *vals, int n)
{
	Affine r = {.c = e->c};
	for (int i = 0; i < e->n; i++) {
		int j = 0;
		while (j < n && vars[j] != e->t[i].var)
			j++;
		if (j < n)
			r.c += e->t[i].k * vals[j];
		else
			r.t[r.n++] = e->t[i];
	}
	return r;
}

static float elem_to_float(const unsigned char *p, DType dt);

/* an mma operand's n elements' values, read once per instance rather than
 * once per product (the products' values and order are the same); NULL
 * when memory is short or the accumulator is the operand's buffer (its
 * writes would then be read back): operand() reads each element in place */
static float *operand_values(RefCta *c, const Region *r, int64_t n, int64_t first, DType dt, const Buffer *acc)
{
	float *v = r->buf == acc ? NULL : malloc((size_t)n * sizeof *v);
	for (int64_t x = 0; v && x < n; x++)
		v[x] = elem_to_float(ref_place(c, r, x, first), dt);
	return v;
}
static float operand(RefCta *c, const Region *r, int64_t x, int64_t first, DType dt, const float *v)
{
	return v ? v[x] : elem_to_float(ref_place(c, r, x, first), dt);
}

bool ref_asm(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const AsmBlock *a = s->asm_blk;
	if (!a->mma[0])
		return true;
	int64_t ninst = 1;
	for (int u = 0; u < a->nunroll; u++)
		ninst *= a->uext[u];
	for (int64_t in = 0; in < ninst; in++) {
		int64_t vals[MAX_ASM_UNROLL], rem = in;
		for (int u = a->nunroll - 1; u >= 0; u--) {
			vals[u] = rem % a->uext[u];
			rem /= a->uext[u];
		}
		Region r[3];
		Affine rb[3][MAX_DIMS], re[3][MAX_DIMS]; /* the instance's bounds (the clause's stay as parsed) */
		int64_t dims[3][2];
		for (int i = 0; i < 3; i++) {
			r[i] = *a->mma[i];
			r[i].begin = rb[i];
			r[i].end = re[i];
			for (int d = 0; d < r[i].ndim; d++) {
				rb[i][d] = with_values(&a->mma[i]->begin[d], a->uvar, vals, a->nunroll);
				re[i][d] = with_values(&a->mma[i]->end[d], a->uvar, vals, a->nunroll);
			}
			int n = 0;
			dims[i][0] = dims[i][1] = 1;
			for (int d = 0; d < r[i].ndim; d++)
				if (r[i].ext[d] != 1)
					dims[i][n++] = r[i].ext[d];
		}
		const Buffer *C = a->mma[0]->buf, *A = a->mma[1]->buf;
		DType ht = A->dt == DT_BF16 ? DT_BF16 : DT_F16; /* the operands' 2-byte values */
		int64_t M = dims[0][0], N = dims[0][1], K = dims[1][1];
		for (int64_t first = 0; first < c->k->threads; first += ref_owner_threads(c, C)) {
			if (!ref_runs_instance(c, first, ref_owner_threads(c, C)))
				continue;
			ref_enter_instance(c, first);
			float *av = operand_values(c, &r[1], M * K, first, ht, C), *bv = operand_values(c, &r[2], K * N, first, ht, C);
			for (int64_t m = 0; m < M; m++)
				for (int64_t n = 0; n < N; n++) {
					float acc;
					unsigned char *cp = ref_place(c, &r[0], m * N + n, first);
					memcpy(&acc, cp, 4);
					for (int64_t k = 0; k < K; k++)
						acc += operand(c, &r[1], m * K + k, first, ht, av) * operand(c, &r[2], k * N + n, first, ht, bv);
					memcpy(cp, &acc, 4);
				}
			free(av);
			free(bv);
		}
	}
	return true;
}

/* warpgroup mma D, A, B: in every warpgroup, D[m, n] = (scale-d ? D[m, n] : 0)
 * + sum_k A[m, k] * B[n, k] over the regions' logical coordinates (A [64, K],
 * B [N, K], D [64, N], unit dimensions ignored), the products of the
 * operand type's values summed in the accumulator's type (f32; an f16
 * accumulator is rounded once at the end, exact for the small integers the
 * tests use) */
static float elem_to_float(const unsigned char *p, DType dt)
{
	uint32_t u = 0;
	float f;
	switch (dt) {
	case DT_F16: case DT_BF16: {
		uint16_t h;
		memcpy(&h, p, 2);
		return half_to_float(h, dt == DT_BF16);
	}
	case DT_TF32: /* an f32 whose low 13 mantissa bits the tensor core ignores */
		memcpy(&u, p, 4);
		u &= ~0x1fffu;
		memcpy(&f, &u, 4);
		return f;
	case DT_E4M3: case DT_E5M2: { /* sign, exponent (bias 7 / 15), 3 / 2 mantissa bits */
		int mb = dt == DT_E4M3 ? 3 : 2, bias = dt == DT_E4M3 ? 7 : 15;
		unsigned v = p[0], e = (v & 0x7f) >> mb, m = v & ((1u << mb) - 1);
		/* e4m3's S.1111.111 is NaN (no infinities); e5m2's top exponent is IEEE's */
		if (dt == DT_E4M3 ? (v & 0x7f) == 0x7f : e == 31)
			return dt == DT_E5M2 && !m ? (v & 0x80 ? -INFINITY : INFINITY) : NAN;
		float mag = e ? (1.0f + (float)m / (float)(1 << mb)) : (float)m / (float)(1 << mb);
		int ex = (e ? (int)e : 1) - bias;
		while (ex > 0) { mag *= 2.0f; ex--; }
		while (ex < 0) { mag /= 2.0f; ex++; }
		return v & 0x80 ? -mag : mag;
	}
	default:
		memcpy(&f, p, 4);
		return f;
	}
}

static uint16_t float_to_half(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t sign = (u >> 16) & 0x8000;
	int e = (int)((u >> 23) & 0xff) - 127 + 15;
	uint32_t m = u & 0x7fffff;
	if (((u >> 23) & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) { /* subnormal: round to nearest even at 2^-24 */
		if (e < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		int sh = 14 - e;
		uint32_t h = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

/* an mma operand's n elements' error bounds (0: exact), or NULL when every
 * one is exact (operands downstream of set's approximate functions carry
 * them: FlashAttention's P) */
static float *operand_errs(RefCta *c, const Region *r, int64_t n, int64_t first)
{
	float *e = NULL;
	for (int64_t x = 0; x < n; x++) {
		float *se = ref_err_slot(c, r->buf, ref_place(c, r, x, first), false);
		if (!se || *se == 0)
			continue;
		if (!e && !(e = calloc((size_t)n, sizeof *e)))
			return NULL;
		e[x] = *se;
	}
	return e;
}

/* the bound of one wgmma result whose operands carry bounds (ea, eb; NULL:
 * exact) or whose initial D does (ed): the products' moves,
 * |a| eb + |b| ea + ea eb, plus the accumulation's rounding, which the
 * tensor cores do in their own order and precision: at most (K + 1) steps of
 * `step` of the largest partial, bounded by the sum of the magnitudes (2^-23
 * for 16-bit operands; 2^-13 for 8-bit ones, whose accumulator keeps about
 * 14 bits on Hopper, DeepSeek-V3 report section 3.3.2). 0 when
 * every input is exact (the sum is then compared bit for bit, as the tests'
 * small integers make it exact) */
static double wgmma_err(const float *a, const float *b, const float *ea, const float *eb, int64_t K, float d,
                        double ed, double step)
{
	if (!ea && !eb && ed == 0)
		return 0;
	double prop = ed, mag = fabs((double)d) + ed;
	for (int64_t k = 0; k < K; k++) {
		double xa = ea ? ea[k] : 0, xb = eb ? eb[k] : 0, va = fabs((double)a[k]), vb = fabs((double)b[k]);
		prop += va * xb + vb * xa + xa * xb;
		mag += (va + xa) * (vb + xb);
	}
	double e = prop + (double)(K + 1) * step * mag;
	return isfinite(e) ? e : INFINITY;
}

bool ref_wgmma(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	int64_t N = 1, K = 1;
	for (int d = 0; d < s->dst->ndim; d++)
		if (s->dst->ext[d] != 1 && s->dst->ext[d] != 64)
			N = s->dst->ext[d];
	if (N == 1) /* D [64, 64] */
		N = 64;
	for (int d = 0; d < s->src->ndim; d++)
		if (s->src->ext[d] != 1)
			K = s->src->ext[d]; /* the last non-unit dimension of A */
	const Buffer *D = s->dst->buf;
	DType at = s->src->buf->dt, bt = s->mma_b->buf->dt;
	for (int64_t first = 0; first < c->k->threads; first += 128) {
		if (!ref_runs_instance(c, first, 128))
			continue;
		ref_enter_instance(c, first);
		float *av = operand_values(c, s->src, 64 * K, first, at, D), *bv = operand_values(c, s->mma_b, N * K, first, bt, D);
		float *ea = operand_errs(c, s->src, 64 * K, first), *eb = operand_errs(c, s->mma_b, N * K, first);
		float *ra = malloc(4 * (size_t)K * sizeof *ra), *rb = ra + K, *rea = rb + K, *reb = rea + K; /* one result's operands */
		if (!ra) {
			free(ea);
			free(eb);
			free(av);
			free(bv);
			return false;
		}
		for (int64_t m = 0; m < 64; m++)
			for (int64_t n = 0; n < N; n++) {
				unsigned char *dp = ref_place(c, s->dst, m * N + n, first);
				float acc = 0, *de = ref_err_slot(c, D, dp, false);
				double ed = 0;
				if (s->n) {
					acc = elem_to_float(dp, D->dt);
					ed = de ? *de : 0;
				}
				float d0 = acc;
				for (int64_t k = 0; k < K; k++) {
					int64_t bx = s->mma_b_kn ? k * N + n : n * K + k;
					ra[k] = operand(c, s->src, m * K + k, first, at, av);
					rb[k] = operand(c, s->mma_b, bx, first, bt, bv);
					rea[k] = ea ? ea[m * K + k] : 0;
					reb[k] = eb ? eb[bx] : 0;
					acc += ra[k] * rb[k];
				}
				double e = wgmma_err(ra, rb, ea ? rea : NULL, eb ? reb : NULL, K, d0, ed,
				                     dtype_bytes(at) == 1 ? 0x1p-13 : 0x1p-23);
				if (e > 0 && D->dt == DT_F16) /* and the f16 accumulator's own rounding */
					e += 0x1p-10 * (fabs((double)acc) + e) + 0x1p-24;
				if ((de || e > 0) && (de = ref_err_slot(c, D, dp, true)))
					*de = (float)(e * (1 + 0x1p-20)); /* rounded to f32 but not below e */
				if (D->dt == DT_F16) {
					uint16_t h = float_to_half(acc);
					memcpy(dp, &h, 2);
				} else {
					memcpy(dp, &acc, 4);
				}
			}
		free(ra);
		free(ea);
		free(eb);
		free(av);
		free(bv);
	}
	return true;
}

/* a repeat index and the stage indices '(i + c) % C' derived from it (the
 * reference's own: the analyses' kernel_set_var is not shared) */
void ref_set_var(const Kernel *k, int64_t *vars, int v, int64_t val)
{
	vars[v] = val;
	for (int d = VAR_REPEAT0; k->var_base && d < k->nvars; d++)
		if (k->var_base[d] == v)
			vars[d] = (val + (k->var_off ? k->var_off[d] : 0)) % k->var_mod[d];
}

/* a persistent loop deals its trips to the clusters along its axis (to
 * the CTAs without a cluster): their number, and this CTA's cluster's place */
static int64_t across_cluster(const Kernel *k, const Stmt *s)
{
	if (!k->cluster_x)
		return 1;
	return s->across == 1 + VAR_CTAIDY ? k->cluster_y : k->cluster_x;
}

static int64_t across_count(const Kernel *k, const Stmt *s)
{
	return (s->across == 1 + VAR_CTAIDY ? k->grid_y : k->grid) / across_cluster(k, s);
}

static int64_t across_place(const Kernel *k, const Stmt *s, const int64_t *vars)
{
	return vars[s->across - 1] / across_cluster(k, s);
}

/* a count expression's meaning, evaluated here on its own: min, max,
 * cdiv (of a value below 1: 0), sums and differences, and sums of
 * variables times constants */
static int64_t count_value(const TripExpr *e, const int64_t *vars)
{
	int64_t v = e->a.c, x = e->x ? count_value(e->x, vars) : 0, y = e->y ? count_value(e->y, vars) : 0;
	switch (e->op) {
	case TE_AFFINE:
		for (int i = 0; i < e->a.n; i++)
			v += e->a.t[i].k * vars[e->a.t[i].var];
		return v;
	case TE_CDIV: return x > 0 ? (x + e->d - 1) / e->d : 0;
	case TE_MIN: return x < y ? x : y;
	case TE_MAX: return x > y ? x : y;
	case TE_ADD: return x + y;
	case TE_SUB: return x - y;
	case TE_MUL: return x * y;
	}
	return 0;
}

static int64_t trips_of(const Kernel *k, const Stmt *s, const int64_t *vars)
{
	if (!s->trips_scalar && !s->trips_expr)
		return s->n;
	int64_t t; /* a count below 0 runs none; cdiv(S, D): ceil(S / D), S the scalar's value at launch */
	if (s->trips_expr)
		t = count_value(s->trips_expr, vars) > 0 ? count_value(s->trips_expr, vars) : 0;
	else
		t = (vars[k->scalars[s->trips_scalar - 1].var] + s->trips_div - 1) / s->trips_div;
	if (s->across) { /* this CTA runs indices c, c + n, ... below t */
		int64_t c = across_place(k, s, vars), n = across_count(k, s);
		return t > c ? (t - c + n - 1) / n : 0;
	}
	return t;
}

/* trip it of a repeat: its index, and its running count's stages (the
 * count itself advances at the trip's end, trip_end) */
/* a linear walk's tile t, found by walking the bands (G tile rows, the last
 * band what is left, each column by column) until t falls in one */
static void walk_tile(const Stmt *s, int64_t *vars, int64_t t)
{
	int64_t rows_total = count_value(s->trips_expr->x, vars), cols = count_value(s->trips_expr->y, vars);
	int64_t row = 0;
	for (;;) {
		int64_t rows = rows_total - row < s->tile_group ? rows_total - row : s->tile_group;
		if (rows <= 0 || cols <= 0) /* no tile t: the walk runs no such trip */
			return;
		if (t < rows * cols) {
			vars[s->tile_m] = row + t % rows;
			vars[s->tile_n] = t / rows;
			return;
		}
		t -= rows * cols;
		row += rows;
	}
}

void ref_trip_begin(const Kernel *k, int64_t *vars, const Stmt *s, int64_t it)
{
	ref_set_var(k, vars, s->var, s->across ? across_place(k, s, vars) + it * across_count(k, s) : it);
	if (s->tile_m)
		walk_tile(s, vars, vars[s->var]);
	if (s->running)
		ref_set_var(k, vars, s->running, vars[s->running]);
}

void ref_trip_end(int64_t *vars, const Stmt *s)
{
	if (s->running)
		vars[s->running]++;
}

/* the walker (walk.c) runs the blocks: a repeat's trips (trips_of; the
 * index and its stages are set again by ref_trip_begin, the reference's own, at
 * every trip) and a when's block (for a role that runs it); the hooks of
 * stmt.def's blocks are never called */
bool ref_repeat(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx, (void)c, (void)s;
	return false;
}

bool ref_when(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx, (void)c, (void)s;
	return false;
}


/* a repeat's trips at the walk's values (its first CTA's, or a role's) */
int64_t ref_trips(Walk *w, const Stmt *s) { return trips_of(w->k, s, w->vals); }

/* the harnesses' input pattern: element i of buffer `which`; the low 32 bits
 * are an odd multiple of i, so elements stay distinct up to 2^bits */
void ref_fill_pattern(unsigned char *p, int64_t n, int es, int which)
{
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)(which + 1) * 0xC2B2AE3D27D4EB4Full;
		v ^= v >> 29;
		uint64_t low = (uint64_t)i * 0x9E3779B1u + (uint64_t)which * 0x85EBCA77u;
		v = (v & ~0xFFFFFFFFull) | (low & 0xFFFFFFFFull);
		memcpy(p + i * es, &v, (size_t)es);
	}
}

/* 8-bit floats of a random pattern made finite: e4m3's NaN codes
 * (S.1111.111) become 448 (S.1111.110), e5m2's top exponent (infinities and
 * NaNs) the one below, so arithmetic on the pattern means what the hardware
 * computes */
static void fill_finite_f8(unsigned char *p, int64_t n, DType dt)
{
	for (int64_t i = 0; i < n; i++) {
		if (dt == DT_E4M3 && (p[i] & 0x7f) == 0x7f)
			p[i] ^= 0x01;
		if (dt == DT_E5M2 && (p[i] & 0x7c) == 0x7c)
			p[i] ^= 0x04;
	}
}

/* 'fill small': integers in [-2, 2] (products and sums of up to 2^21 terms
 * stay exact in f32), from the same hash; otherwise ref_fill_pattern (8-bit
 * floats made finite) */
void ref_fill_param(const Buffer *b, unsigned char *p, int which)
{
	int es = dtype_bytes(b->dt);
	if (b->fill_edges) { /* the pattern, with the edge classes written over it */
		ref_fill_pattern(p, b->storage, es, which);
		ref_fill_edges(p, b->storage, b->dt, which);
		return;
	}
	if (!b->fill_small) {
		ref_fill_pattern(p, b->storage, es, which);
		fill_finite_f8(p, b->storage, b->dt);
		return;
	}
	for (int64_t i = 0; i < b->storage; i++) {
		uint64_t v = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)(which + 1) * 0xC2B2AE3D27D4EB4Full;
		v ^= v >> 31;
		v *= 0xBF58476D1CE4E5B9ull;
		v ^= v >> 29;
		uint64_t bits = dtype_int_bits(b->dt, (int64_t)(v % 5) - 2);
		memcpy(p + i * es, &bits, (size_t)es);
	}
}

/* logical coordinate of storage element `elem` of a param buffer, or false */
bool ref_coord_of(const Buffer *b, int64_t elem, int64_t *coord)
{
	int64_t size = 1;
	for (int d = 0; d < b->ndim; d++)
		size *= b->shape[d];
	if (size > ((int64_t)1 << 26))
		return false;
	for (int64_t x = 0; x < size; x++) {
		int64_t at[AX_COUNT];
		apply_layout(b, x, at);
		if (at[AX_M] == elem) {
			for (int d = b->ndim - 1; d >= 0; d--) {
				coord[d] = x % b->shape[d];
				x /= b->shape[d];
			}
			return true;
		}
	}
	return false;
}
