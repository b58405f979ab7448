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
} RefCta;

static size_t bidx(const Kernel *k, const Buffer *b)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i] == b)
			return i;
	return 0;
}

static int64_t thread_scale(Axis a)
{
	switch (a) {
	case AX_WARPID: case AX_WID_IN_WG: return 32;
	case AX_WGID: return 128;
	default: return 1;
	}
}

/* the bytes of logical element x of a view, for the instance starting at thread `first` */
static unsigned char *place(RefCta *c, const Buffer *b, const View *v, int64_t x, int64_t first)
{
	int64_t at[AX_COUNT];
	lay_apply_flat(&v->L, x, at);
	for (int a = 0; a < AX_COUNT; a++)
		at[a] += affine_eval(&v->off[a], c->vars);
	int es = dtype_bytes(b->dt);
	switch (b->mem) {
	case MEM_GLOBAL:
		return c->params[b->param_index] + at[AX_M] * es;
	case MEM_SHARED:
		return c->mem[bidx(c->k, b)] + swz_apply(b->layout.sw, at[AX_M]) * es;
	case MEM_LOCAL: {
		int64_t t = 0;
		for (int a = AX_LANEID; a <= AX_TX; a++)
			t += at[a] * thread_scale((Axis)a);
		return c->mem[bidx(c->k, b)] + ((first + t) * b->regs + at[AX_M]) * es;
	}
	case MEM_TMEM:
		return c->mem[bidx(c->k, b)] + at[AX_TLANE] * b->cols * 4 + at[AX_TCOL] * es;
	}
	return NULL;
}

static bool run_copy(Ctx *cx, RefCta *c, const Stmt *s)
{
	View dv, sv;
	const char *why;
	if (!region_view(cx, c->k, s->dst, &dv, &why) || !region_view(cx, c->k, s->src, &sv, &why))
		return false;
	const Buffer *db = s->dst->buf, *sb = s->src->buf;
	int64_t elems = 1;
	for (int d = 0; d < s->src->ndim; d++)
		elems *= s->src->ext[d];
	/* instances: every owner group of a register operand, else every scope instance */
	int64_t inst = scope_threads(s->scope, c->k->threads);
	if (db->mem == MEM_LOCAL)
		inst = scope_threads(db->owner, c->k->threads);
	if (sb->mem == MEM_LOCAL)
		inst = scope_threads(sb->owner, c->k->threads);
	int es = dtype_bytes(db->dt);
	for (int64_t first = 0; first < c->k->threads; first += inst) {
		c->vars[VAR_WARPID] = first / 32;
		c->vars[VAR_WGID] = first / 128;
		for (int64_t x = 0; x < elems; x++)
			memcpy(place(c, db, &dv, x, first), place(c, sb, &sv, x, first), (size_t)es);
		c->bytes += elems * es;
	}
	return true;
}

static bool ref_copy(Ctx *cx, RefCta *c, const Stmt *s) { return run_copy(cx, c, s); }

/* dump: thread t's registers, in layout order, at element (cta*threads + t)*regs */
static bool ref_dump(Ctx *cx, RefCta *c, const Stmt *s)
{
	(void)cx;
	const Kernel *k = c->k;
	const Buffer *l = s->src->buf, *p = s->dst->buf;
	int es = dtype_bytes(l->dt);
	size_t row = (size_t)(l->regs * es);
	for (int64_t t = 0; t < k->threads; t++)
		memcpy(c->params[p->param_index] + ((c->cta * k->threads + t) * l->regs) * es,
		       c->mem[bidx(k, l)] + t * l->regs * es, row);
	c->bytes += k->threads * l->regs * es;
	return true;
}

static bool run_stmts(Ctx *cx, RefCta *c, Stmt **body, size_t n);

/* the logical elements of a constant local region, for each owner instance */
static int64_t owner_threads(const RefCta *c, const Buffer *b) { return scope_threads(b->owner, c->k->threads); }

/* init: every element of the region, in every owner instance */
static bool ref_init(Ctx *cx, RefCta *c, const Stmt *s)
{
	View v;
	const char *why;
	if (!region_view(cx, c->k, s->dst, &v, &why))
		return false;
	const Buffer *b = s->dst->buf;
	int es = dtype_bytes(b->dt);
	uint64_t bits = dtype_int_bits(b->dt, s->n);
	int64_t elems = 1;
	for (int d = 0; d < s->dst->ndim; d++)
		elems *= s->dst->ext[d];
	for (int64_t first = 0; first < c->k->threads; first += owner_threads(c, b))
		for (int64_t x = 0; x < elems; x++)
			memcpy(place(c, b, &v, x, first), &bits, (size_t)es);
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
static bool ref_asm(Ctx *cx, RefCta *c, const Stmt *s)
{
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
		View v[3];
		int64_t dims[3][2];
		for (int i = 0; i < 3; i++) {
			r[i] = *a->mma[i];
			r[i].begin = rb[i];
			r[i].end = re[i];
			for (int d = 0; d < r[i].ndim; d++) {
				rb[i][d] = affine_subst(&a->mma[i]->begin[d], a->uvar, vals, a->nunroll);
				re[i][d] = affine_subst(&a->mma[i]->end[d], a->uvar, vals, a->nunroll);
			}
			const char *why;
			if (!region_view(cx, c->k, &r[i], &v[i], &why))
				return false;
			int n = 0;
			dims[i][0] = dims[i][1] = 1;
			for (int d = 0; d < r[i].ndim; d++)
				if (r[i].ext[d] != 1)
					dims[i][n++] = r[i].ext[d];
		}
		const Buffer *C = a->mma[0]->buf, *A = a->mma[1]->buf, *B = a->mma[2]->buf;
		bool bf = A->dt == DT_BF16;
		int64_t M = dims[0][0], N = dims[0][1], K = dims[1][1];
		for (int64_t first = 0; first < c->k->threads; first += owner_threads(c, C))
			for (int64_t m = 0; m < M; m++)
				for (int64_t n = 0; n < N; n++) {
					float acc;
					unsigned char *cp = place(c, C, &v[0], m * N + n, first);
					memcpy(&acc, cp, 4);
					for (int64_t k = 0; k < K; k++) {
						uint16_t x, y;
						memcpy(&x, place(c, A, &v[1], m * K + k, first), 2);
						memcpy(&y, place(c, B, &v[2], k * N + n, first), 2);
						acc += half_to_float(x, bf) * half_to_float(y, bf);
					}
					memcpy(cp, &acc, 4);
				}
	}
	return true;
}

static bool ref_repeat(Ctx *cx, RefCta *c, const Stmt *s)
{
	for (int64_t it = 0; it < s->n; it++) {
		c->vars[s->var] = it;
		if (!run_stmts(cx, c, s->body, s->nbody))
			return false;
	}
	return true;
}

typedef bool (*RefHook)(Ctx *cx, RefCta *c, const Stmt *s);
static const RefHook ref_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref) [ST_##kind] = ref,
#include "../stmt.def"
};

/* barriers and waits have no hook: the reference is sequential */
static bool run_stmts(Ctx *cx, RefCta *c, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ref_hook[body[i]->kind] && !ref_hook[body[i]->kind](cx, c, body[i]))
			return false;
	return true;
}

bool ref_run_kernel(Ctx *cx, const Kernel *k, unsigned char **params, int64_t *bytes_moved)
{
	RefCta c = {0};
	c.k = k;
	c.params = params;
	c.mem = calloc(k->nbufs ? k->nbufs : 1, sizeof(unsigned char *));
	c.vars = calloc((size_t)k->nvars + 1, sizeof(int64_t));
	bool ok = true;
	for (int64_t cta = 0; ok && cta < k->grid * k->grid_y; cta++) {
		c.vars[VAR_CTAID] = cta % k->grid;
		c.vars[VAR_CTAIDY] = cta / k->grid;
		c.cta = cta;
		for (size_t i = 0; i < k->nbufs; i++) {
			const Buffer *b = k->bufs[i];
			size_t n = 0;
			int es = dtype_bytes(b->dt);
			if (b->mem == MEM_SHARED)
				n = (size_t)(b->storage * es);
			else if (b->mem == MEM_LOCAL)
				n = (size_t)(k->threads * b->regs * es);
			else if (b->mem == MEM_TMEM)
				n = (size_t)(128 * b->cols * 4);
			free(c.mem[i]);
			c.mem[i] = n ? calloc(n, 1) : NULL;
		}
		ok = run_stmts(cx, &c, k->body, k->nbody);
	}
	for (size_t i = 0; i < k->nbufs; i++)
		free(c.mem[i]);
	free(c.mem);
	free(c.vars);
	if (bytes_moved)
		*bytes_moved = c.bytes;
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

bool ref_gemm(const Buffer *C, const Buffer *A, const Buffer *B, unsigned char *c, const unsigned char *a,
              const unsigned char *b)
{
	if (C->ndim != 2 || A->ndim != 2 || B->ndim != 2 || C->dt != DT_F32 || A->dt != B->dt ||
	    (A->dt != DT_F16 && A->dt != DT_BF16) || A->shape[0] != C->shape[0] || B->shape[1] != C->shape[1] ||
	    A->shape[1] != B->shape[0] || C->has_layout || A->has_layout || B->has_layout)
		return false;
	int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
	bool bf = A->dt == DT_BF16;
	for (int64_t i = 0; i < M; i++)
		for (int64_t j = 0; j < N; j++) {
			float acc = 0;
			for (int64_t k = 0; k < K; k++) {
				uint16_t x, y;
				memcpy(&x, a + 2 * (i * K + k), 2);
				memcpy(&y, b + 2 * (k * N + j), 2);
				acc += half_to_float(x, bf) * half_to_float(y, bf);
			}
			memcpy(c + 4 * (i * N + j), &acc, 4);
		}
	return true;
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
		lay_apply_flat(&b->layout, x, at);
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
