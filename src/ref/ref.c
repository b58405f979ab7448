/* The CPU reference: the .tile semantics executed on the host, from the
 * program and its layouts only (never the emitters' decisions). For every
 * logical coordinate of a copy, DST[c] = SRC[c], bit for bit; dump writes
 * each thread's registers in layout order. The GPU harness compares a
 * kernel's results with this, byte for byte. */
#include "../tilepx.h"

#include <stdlib.h>
#include <string.h>

typedef struct RefCta {
	const Kernel *k;
	unsigned char **mem;  /* per buffer index: shared, local (threads x regs) or tmem bytes */
	unsigned char **params;
	int64_t *vars;
	int64_t cta;
	int64_t bytes;
	struct RefCta *peers; /* the CTAs of its cluster, by rank (itself among them) */
	int nranks;
} RefCta;

static size_t bidx(const Kernel *k, const Buffer *b)
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
static int64_t eval(const Affine *e, const int64_t *vars)
{
	int64_t v = e->c;
	for (int i = 0; i < e->n; i++)
		v += e->t[i].k * vars[e->t[i].var];
	return v;
}

/* a layout maps the row-major index of a logical coordinate through its
 * iters, outermost first, as mixed-radix digits times strides, per axis;
 * a buffer declared without one is compact row-major */
static void apply_layout(const Buffer *b, int64_t idx, int64_t *at /* [AX_COUNT] */)
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

/* swizzle(P, W, A): x = m >> P; f(x) = x ^ ((x & (((1 << W) - 1) << A)) >> A); low P bits kept */
static int64_t swizzled(const Buffer *b, int64_t m)
{
	const Swizzle *sw = &b->layout.sw;
	if (!sw->on)
		return m;
	int64_t x = m >> sw->p, bits = ((int64_t)1 << sw->w) - 1;
	x ^= (x & (bits << sw->a)) >> sw->a;
	return (x << sw->p) | (m & (((int64_t)1 << sw->p) - 1));
}

/* threads one instance of a local buffer spans, from its thread axes:
 * none: a thread; laneid: a warp; tid_in_wg or wid_in_wg: a warpgroup;
 * tx, warpid or wgid: the CTA */
static int64_t owner_threads(const RefCta *c, const Buffer *b)
{
	int64_t n = 1;
	for (int j = 0; j < b->layout.n; j++)
		switch (b->layout.it[j].axis) {
		case AX_LANEID: n = n > 32 ? n : 32; break;
		case AX_TID_IN_WG: case AX_WID_IN_WG: n = n > 128 ? n : 128; break;
		case AX_TX: case AX_WARPID: case AX_WGID: n = c->k->threads; break;
		default: break;
		}
	return n > c->k->threads ? c->k->threads : n;
}

/* registers per thread: the largest register offset the layout reaches, plus one */
static int64_t regs_per_thread(const Buffer *b)
{
	int64_t r = 0;
	for (int j = 0; j < b->layout.n; j++)
		if (b->layout.it[j].axis == AX_M)
			r += (b->layout.it[j].ext - 1) * b->layout.it[j].stride;
	return r + 1;
}

/* a thread axis' weight in the thread index of the owner instance */
static int64_t thread_weight(Axis a)
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
static unsigned char *place(RefCta *c, const Region *r, int64_t x, int64_t first)
{
	const Buffer *b = r->buf;
	int64_t coord[MAX_DIMS];
	for (int d = r->ndim - 1; d >= 0; d--) {
		coord[d] = x % r->ext[d];
		x /= r->ext[d];
	}
	int64_t idx = 0;
	for (int d = 0; d < b->ndim; d++) {
		int64_t start = r->whole || r->all[d] ? 0 : eval(&r->begin[d], c->vars);
		if (start + coord[d] < 0 || start + coord[d] >= b->shape[d])
			return NULL;
		idx = idx * b->shape[d] + start + coord[d];
	}
	int64_t at[AX_COUNT];
	apply_layout(b, idx, at);
	int es = dtype_bytes(b->dt);
	switch (b->mem) {
	case MEM_GLOBAL:
		return c->params[b->param_index] + at[AX_M] * es;
	case MEM_SHARED:
		return c->mem[bidx(c->k, b)] + swizzled(b, at[AX_M]) * es;
	case MEM_LOCAL: {
		int64_t t = 0;
		for (int a = AX_LANEID; a <= AX_TX; a++)
			t += at[a] * thread_weight((Axis)a);
		return c->mem[bidx(c->k, b)] + ((first + t) * regs_per_thread(b) + at[AX_M]) * es;
	}
	case MEM_TMEM:
		return c->mem[bidx(c->k, b)] + at[AX_TLANE] * b->cols * 4 + at[AX_TCOL] * es;
	}
	return NULL;
}

static int64_t region_elems(const Region *r)
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

/* the index variables of the instance starting at thread `first` */
static void enter_instance(RefCta *c, int64_t first)
{
	c->vars[VAR_WARPID] = first / 32;
	c->vars[VAR_WGID] = first / 128;
}

/* DST[c] = SRC[c] for every logical coordinate, in every instance: every
 * owner group of a register operand, else every scope instance */
static bool run_copy(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	int64_t elems = region_elems(s->src);
	int64_t inst = scope_size(c, s->scope);
	if (db->mem == MEM_LOCAL)
		inst = owner_threads(c, db);
	if (sb->mem == MEM_LOCAL)
		inst = owner_threads(c, sb);
	int es = dtype_bytes(db->dt);
	for (int64_t first = 0; first < c->k->threads; first += inst) {
		enter_instance(c, first);
		for (int64_t x = 0; x < elems; x++) {
			unsigned char *d = place(c, s->dst, x, first), *from = place(c, s->src, x, first);
			if (d && from)
				memcpy(d, from, (size_t)es);
			else if (d)
				memset(d, 0, (size_t)es);
		}
		c->bytes += elems * es;
	}
	return true;
}

/* a multicast load: every CTA of the mask receives the region, at the same
 * place of its own shared buffer */
static bool ref_copy(Ctx *cx, RefCta *c, const Stmt *s)
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
static bool ref_dump(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Kernel *k = c->k;
	const Buffer *l = s->src->buf, *p = s->dst->buf;
	int es = dtype_bytes(l->dt);
	int64_t regs = regs_per_thread(l);
	for (int64_t t = 0; t < k->threads; t++)
		memcpy(c->params[p->param_index] + ((c->cta * k->threads + t) * regs) * es,
		       c->mem[bidx(k, l)] + t * regs * es, (size_t)(regs * es));
	c->bytes += k->threads * regs * es;
	return true;
}

static bool run_stmts(Ctx *cx, RefCta *cl, int nranks, Stmt **body, size_t n);

/* init: every element of the region, in every owner instance */
static bool ref_init(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Buffer *b = s->dst->buf;
	int es = dtype_bytes(b->dt);
	uint64_t bits = dtype_int_bits(b->dt, s->n);
	int64_t elems = region_elems(s->dst);
	for (int64_t first = 0; first < c->k->threads; first += owner_threads(c, b)) {
		enter_instance(c, first);
		for (int64_t x = 0; x < elems; x++)
			memcpy(place(c, s->dst, x, first), &bits, (size_t)es);
	}
	return true;
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

static bool ref_asm(Ctx *cx, RefCta *c, const Stmt *s)
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
		bool bf = A->dt == DT_BF16;
		int64_t M = dims[0][0], N = dims[0][1], K = dims[1][1];
		for (int64_t first = 0; first < c->k->threads; first += owner_threads(c, C)) {
			enter_instance(c, first);
			for (int64_t m = 0; m < M; m++)
				for (int64_t n = 0; n < N; n++) {
					float acc;
					unsigned char *cp = place(c, &r[0], m * N + n, first);
					memcpy(&acc, cp, 4);
					for (int64_t k = 0; k < K; k++) {
						uint16_t x, y;
						memcpy(&x, place(c, &r[1], m * K + k, first), 2);
						memcpy(&y, place(c, &r[2], k * N + n, first), 2);
						acc += half_to_float(x, bf) * half_to_float(y, bf);
					}
					memcpy(cp, &acc, 4);
				}
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

static bool ref_wgmma(Ctx *cx, RefCta *c, const Stmt *s)
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
		enter_instance(c, first);
		for (int64_t m = 0; m < 64; m++)
			for (int64_t n = 0; n < N; n++) {
				unsigned char *dp = place(c, s->dst, m * N + n, first);
				float acc = 0;
				if (s->n)
					acc = elem_to_float(dp, D->dt);
				for (int64_t k = 0; k < K; k++)
					acc += elem_to_float(place(c, s->src, m * K + k, first), at) *
					       elem_to_float(place(c, s->mma_b, n * K + k, first), bt);
				if (D->dt == DT_F16) {
					uint16_t h = float_to_half(acc);
					memcpy(dp, &h, 2);
				} else {
					memcpy(dp, &acc, 4);
				}
			}
	}
	return true;
}

/* a repeat runs for the whole cluster at once (c is its first CTA): the
 * CTAs of a cluster execute each statement in turn, in lockstep */
static bool ref_repeat(Ctx *cx, RefCta *c, const Stmt *s)
{
	int64_t n = s->n;
	if (s->trips_scalar) /* ceil(S / D), S the scalar's value at launch */
		n = (c->vars[c->k->scalars[s->trips_scalar - 1].var] + s->trips_div - 1) / s->trips_div;
	for (int64_t it = 0; it < n; it++) {
		for (int r = 0; r < c->nranks; r++)
			c->peers[r].vars[s->var] = it;
		if (!run_stmts(cx, c->peers, c->nranks, s->body, s->nbody))
			return false;
	}
	return true;
}

typedef bool (*RefHook)(Ctx *cx, RefCta *c, const Stmt *s);
static const RefHook ref_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) [ST_##kind] = ref,
#include "../stmt.def"
};

/* barriers and waits have no hook: the reference is sequential. Each
 * statement runs on every CTA of the cluster (by rank) before the next one,
 * so a multicast has reached every CTA of its mask when the statements
 * after it run; a block statement runs once for the cluster. */
static bool run_stmts(Ctx *cx, RefCta *cl, int nranks, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		RefHook h = ref_hook[body[i]->kind];
		if (!h)
			continue;
		for (int r = 0; r < (body[i]->kind == ST_REPEAT ? 1 : nranks); r++)
			if (!h(cx, &cl[r], body[i]))
				return false;
	}
	return true;
}

/* every cluster of the grid (a CTA alone without a cluster declaration):
 * cluster (i, j) holds the CTAs with ctaid in [i*X, i*X + X) and ctaid_y in
 * [j*Y, j*Y + Y); the CTA's rank is (ctaid % X) + (ctaid_y % Y) * X */
bool ref_run_kernel(Ctx *cx, const Kernel *k, unsigned char **params, int64_t *bytes_moved)
{
	int64_t cx_ = k->cluster_x ? k->cluster_x : 1, cy = k->cluster_x ? k->cluster_y : 1;
	int n = (int)(cx_ * cy);
	RefCta *cl = calloc((size_t)n, sizeof *cl);
	for (int r = 0; r < n; r++) {
		cl[r].k = k;
		cl[r].params = params;
		cl[r].mem = calloc(k->nbufs ? k->nbufs : 1, sizeof(unsigned char *));
		cl[r].vars = calloc((size_t)k->nvars + 1, sizeof(int64_t));
		cl[r].peers = cl;
		cl[r].nranks = n;
		for (size_t i = 0; i < k->nscalars && k->bound_vals; i++)
			cl[r].vars[k->scalars[i].var] = k->bound_vals[i];
	}
	bool ok = true;
	for (int64_t j = 0; ok && j < k->grid_y / cy; j++)
		for (int64_t i = 0; ok && i < k->grid / cx_; i++) {
			for (int r = 0; r < n; r++) {
				RefCta *c = &cl[r];
				c->vars[VAR_CTAID] = i * cx_ + r % cx_;
				c->vars[VAR_CTAIDY] = j * cy + r / cx_;
				c->vars[VAR_CRANK] = r;
				c->cta = c->vars[VAR_CTAIDY] * k->grid + c->vars[VAR_CTAID];
				for (size_t b = 0; b < k->nbufs; b++) {
					const Buffer *bf = k->bufs[b];
					size_t sz = 0;
					int es = dtype_bytes(bf->dt);
					if (bf->mem == MEM_SHARED)
						sz = (size_t)(bf->storage * es);
					else if (bf->mem == MEM_LOCAL)
						sz = (size_t)(k->threads * regs_per_thread(bf) * es);
					else if (bf->mem == MEM_TMEM)
						sz = (size_t)(128 * bf->cols * 4);
					free(c->mem[b]);
					c->mem[b] = sz ? calloc(sz, 1) : NULL;
				}
			}
			ok = run_stmts(cx, cl, n, k->body, k->nbody);
		}
	int64_t moved = 0;
	for (int r = 0; r < n; r++) {
		for (size_t b = 0; b < k->nbufs; b++)
			free(cl[r].mem[b]);
		free(cl[r].mem);
		free(cl[r].vars);
		moved += cl[r].bytes;
	}
	free(cl);
	if (bytes_moved)
		*bytes_moved = moved;
	return ok;
}

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

/* 'fill small': integers in [-2, 2] (products and sums of up to 2^21 terms
 * stay exact in f32), from the same hash; otherwise ref_fill_pattern */
void ref_fill_param(const Buffer *b, unsigned char *p, int which)
{
	int es = dtype_bytes(b->dt);
	if (!b->fill_small) {
		ref_fill_pattern(p, b->storage, es, which);
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
