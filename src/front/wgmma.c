/* Hopper's warpgroup MMA: 'warpgroup mma D, A, B [scale_d 0]'.
 *
 * check_wgmma decides everything before any PTX exists: the instruction
 * shape and types, the accumulator's registers (D's layout must put every
 * element of the m64nN fragment in the thread the PTX ISA gives it, in the
 * same register of every thread), and each shared operand's descriptor
 * (src/wgmma_desc.c: derived from the buffer's layout and swizzle, proved
 * canonical for every k-step). emit_wgmma builds the descriptors from the
 * buffers' runtime shared addresses and issues one wgmma.mma_async per
 * k-step. check_wgmma_async executes the statements of each wgmma issuer
 * (every warpgroup alike, or with roles each warpgroup on its own), loops
 * unrolled, and proves the asynchronous rules (docs/language.md). */
#include "tilepx.h"
#include "walk.h"

#include <string.h>

typedef struct WgOperand {
	const Buffer *buf;
	WgDesc d;
	Affine start; /* bytes from the buffer's base to the region's first element */
} WgOperand;

typedef struct WgmmaPlan {
	int n, kinst;
	DType at, bt, acc;
	FormId form;
	WgOperand a, b;
	int nwords;  /* accumulator words per thread */
	int *words;  /* word j of the fragment -> D's register word */
	int64_t dbox[MAX_DIMS][2]; /* D's region, logical [begin, end) per dim */
	bool rs;                   /* A from registers: its fragment words per k-step */
	int awords[WG_MAX_KSTEPS][4];
	int64_t abox[MAX_DIMS][2];
} WgmmaPlan;

static int log2i(int64_t v)
{
	int e = 0;
	while (((int64_t)1 << e) < v)
		e++;
	return e;
}

/* the two non-unit dimensions of a region (rows, then columns) */
static bool two_dims(const Region *r, int *d0, int *d1)
{
	int n = 0, d[2] = {-1, -1};
	for (int i = 0; i < r->ndim; i++)
		if (r->ext[i] != 1) {
			if (n == 2)
				return false;
			d[n++] = i;
		}
	if (n != 2)
		return false;
	*d0 = d[0];
	*d1 = d[1];
	return true;
}

static int64_t thread_weight(Axis a)
{
	switch (a) {
	case AX_WARPID: case AX_WID_IN_WG: return 32;
	case AX_WGID: return 128;
	default: return 1;
	}
}

/* the layout's place of the logical coordinate c of buffer b */
static void place_of(const Buffer *b, const int64_t *c, int64_t *at)
{
	int64_t flat = 0;
	for (int d = 0; d < b->ndim; d++)
		flat = flat * b->shape[d] + c[d];
	lay_apply_flat(&b->layout, flat, at);
}

static const char *acc_layout_text(Arena *ar, int n)
{
	return arena_printf(ar, "S[(4, 2, 8, %d, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]", n / 8);
}

/* D's registers: thread t of the warpgroup holds fragment element i at
 * row 16 (t / 32) + (t % 32) / 4 + 8 ((i % 4) / 2), column 8 (i / 4) +
 * 2 (t % 4) + i % 2 (PTX ISA, "Register fragment for accumulator D of
 * wgmma .m64nNk*"); two f16 elements share a word, the even one low */
static bool acc_words(Ctx *cx, Kernel *k, const Stmt *s, WgmmaPlan *p, int dr, int dc)
{
	const Region *r = s->dst;
	const Buffer *b = r->buf;
	int es = dtype_bytes(b->dt), per = 4 / es;
	p->nwords = p->n / 2 / per;
	p->words = arena_alloc(cx->arena, sizeof(int) * (size_t)p->nwords);
	for (int j = 0; j < p->nwords; j++)
		p->words[j] = -1;
	int64_t base[MAX_DIMS];
	for (int d = 0; d < b->ndim; d++)
		base[d] = r->all[d] || r->whole ? 0 : r->begin[d].c;
	for (int t = 0; t < 128; t++)
		for (int i = 0; i < p->n / 2; i++) {
			int row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
			int64_t c[MAX_DIMS], at[AX_COUNT];
			memcpy(c, base, sizeof c);
			c[dr] += row;
			c[dc] += col;
			place_of(b, c, at);
			int64_t owner = 0;
			for (int a = AX_LANEID; a <= AX_TX; a++)
				owner += at[a] * thread_weight((Axis)a);
			int64_t word = at[AX_M] * es / 4, half = at[AX_M] * es % 4;
			int j = i / per;
			if (owner != t || half != (i % per) * es || (p->words[j] >= 0 && p->words[j] != word)) {
				diag_error(cx, r->loc, "the layout of '%s' is not the m64n%d accumulator fragment: element (%d, %d) %s",
				           b->name, p->n, row, col,
				           owner != t ? arena_printf(cx->arena, "is thread %lld's, wgmma writes it in thread %d",
				                                     (long long)owner, t)
				           : half != (i % per) * es ? "is not in the half of its register the fragment gives it"
				                                    : "is in another register than in thread 0");
				diag_note(cx, "the fragment of m64n%d: local %s %s [64, %d] layout %s", p->n, b->name,
				          dtype_name(b->dt), p->n, acc_layout_text(cx->arena, p->n));
				return false;
			}
			p->words[j] = (int)word;
		}
	(void)k;
	return true;
}

/* the A fragment of one k-step (PTX ISA, "Register fragment for matrix A"
 * of wgmma, the RS form): thread t (warp w = t / 32, g = (t % 32) / 4,
 * q = t % 4) holds element i of its four words at
 *   16-bit: row 16w + g + 8 ((i / 2) % 2), column 2q + i % 2 + 8 (i / 4)  (two per word)
 *   tf32:   row 16w + g + 8 (i % 2),       column q + 4 (i / 2)          (one per word)
 *   8-bit:  row 16w + g + 8 ((i / 4) % 2), column 4q + i % 4 + 16 (i / 8) (four per word) */
static void a_frag(int es, int t, int i, int *row, int *col)
{
	int w = t / 32, g = (t % 32) / 4, q = t % 4;
	if (es == 2) {
		*row = 16 * w + g + 8 * ((i / 2) % 2);
		*col = 2 * q + i % 2 + 8 * (i / 4);
	} else if (es == 4) {
		*row = 16 * w + g + 8 * (i % 2);
		*col = q + 4 * (i / 2);
	} else {
		*row = 16 * w + g + 8 * ((i / 4) % 2);
		*col = 4 * q + i % 4 + 16 * (i / 8);
	}
}

static bool a_words(Ctx *cx, const Region *r, WgmmaPlan *p, int ar, int ac)
{
	const Buffer *b = r->buf;
	int es = dtype_bytes(b->dt), per = 4 / es, ksteps = (int)r->ext[ac] / p->kinst;
	int64_t base[MAX_DIMS];
	for (int d = 0; d < b->ndim; d++)
		base[d] = r->all[d] || r->whole ? 0 : r->begin[d].c;
	for (int s = 0; s < ksteps; s++)
		for (int j = 0; j < 4; j++)
			p->awords[s][j] = -1;
	for (int s = 0; s < ksteps; s++)
		for (int t = 0; t < 128; t++)
			for (int i = 0; i < 4 * per; i++) {
				int row, col;
				a_frag(es, t, i, &row, &col);
				col += s * p->kinst;
				int64_t c[MAX_DIMS], at[AX_COUNT];
				memcpy(c, base, sizeof c);
				c[ar] += row;
				c[ac] += col;
				place_of(b, c, at);
				int64_t owner = 0;
				for (int a = AX_LANEID; a <= AX_TX; a++)
					owner += at[a] * thread_weight((Axis)a);
				int64_t word = at[AX_M] * es / 4, part = at[AX_M] * es % 4;
				int j = i / per;
				if (owner != t || part != (i % per) * es || (p->awords[s][j] >= 0 && p->awords[s][j] != word)) {
					diag_error(cx, r->loc, "the layout of '%s' is not the wgmma A fragment: element (%d, %d) %s", b->name,
					           row, col,
					           owner != t ? arena_printf(cx->arena, "is thread %lld's, wgmma reads it from thread %d",
					                                     (long long)owner, t)
					           : part != (i % per) * es ? "is not in the part of its register the fragment gives it"
					                                    : "is in another register than in thread 0");
					diag_note(cx, "per k-step of %d, a thread holds 4 registers: rows 16 w + lane / 4 (+ 8), columns "
					          "from lane %% 4 (the ISA's A fragment table)", p->kinst);
					return false;
				}
				p->awords[s][j] = (int)word;
			}
	return true;
}

/* a shared operand of rows_want x kext (b_kn: kext x rows_want); *dr and
 * *dc: the region's dimensions of the rows and of K */
static bool operand_shape(Ctx *cx, const Region *r, const char *name, int rows_want, int kext, bool kn, int *dr,
                          int *dc)
{
	const Buffer *b = r->buf;
	if (b->mem != MEM_SHARED) {
		diag_error(cx, r->loc, "%s of a wgmma is read from shared memory; '%s' is %s memory", name, b->name,
		           mem_name(b->mem));
		return false;
	}
	bool two = two_dims(r, dr, dc);
	if (two && kn) { /* b_kn: the region is [K, N] */
		int t = *dr;
		*dr = *dc;
		*dc = t;
	}
	if (!two || r->ext[*dr] != rows_want || r->ext[*dc] != kext) {
		if (kn)
			diag_error(cx, r->loc, "%s is [%d, %d] (K x N, b_kn) here, not the region's shape", name, kext, rows_want);
		else
			diag_error(cx, r->loc, "%s is [%d, %d] (%s x K) here, not the region's shape", name, rows_want, kext,
			           name[0] == 'A' ? "M" : "N");
		if (!kn && name[0] == 'B' && two && r->ext[*dr] == kext && r->ext[*dc] == rows_want)
			diag_note(cx, "a B given K by N is written 'warpgroup mma D, A, B b_kn'");
		return false;
	}
	return true;
}

/* an operand's descriptor: the region's byte offsets from the layout, proved canonical */
static bool operand(Ctx *cx, Kernel *k, const Region *r, const char *name, int rows_want, int kext, int kinst,
                    bool may_transpose, bool kn, WgOperand *o)
{
	const Buffer *b = r->buf;
	int dr = 0, dc = 0;
	if (!operand_shape(cx, r, name, rows_want, kext, kn, &dr, &dc))
		return false;
	if (b->sw_auto) {
		diag_error(cx, r->loc, "'%s' is 'swizzle auto'; a wgmma operand needs its swizzle written (none or "
		           "swizzle(%d, 1|2|3, 3))", b->name, 4 - log2i(dtype_bytes(b->dt)));
		return false;
	}
	int swz = tma_swizzle_bytes(buffer_swizzle(cx, b), b->dt);
	if (swz < 0) {
		diag_error(cx, r->loc, "the swizzle of '%s', swizzle(%d, %d, %d), is not one wgmma reads", b->name,
		           b->layout.sw.p, b->layout.sw.w, b->layout.sw.a);
		diag_note(cx, "wgmma swizzles 16-byte chunks: swizzle(%d, W, 3) over %s, W = 1, 2, 3 for 32, 64, 128 bytes",
		          4 - log2i(dtype_bytes(b->dt)), dtype_name(b->dt));
		return false;
	}
	View v;
	const char *why;
	if (!region_view(cx, k, r, &v, &why)) {
		diag_error(cx, r->loc, "%s: %s", name, why);
		return false;
	}
	int es = dtype_bytes(b->dt);
	/* the start in bytes; every value must be on 16 bytes */
	o->buf = b;
	o->start = v.off[AX_M];
	o->start.c *= es;
	for (int t = 0; t < o->start.n; t++)
		o->start.t[t].k *= es;
	bool aligned = o->start.c % 16 == 0;
	for (int t = 0; t < o->start.n; t++)
		aligned &= o->start.t[t].k % 16 == 0;
	if (!aligned) {
		diag_error(cx, r->loc, "%s starts at byte %lld%s of '%s', not on 16 bytes: a descriptor's start address "
		           "counts 16-byte units", name, (long long)o->start.c, o->start.n ? " (plus multiples of its indices)" : "",
		           b->name);
		return false;
	}
	/* stage alignment: the swizzle is the buffer's, applied on absolute
	 * addresses by the hardware; the same when the base is on its repeat */
	int64_t rep = swz ? 8 * swz : 16;
	if (b->shared_offset % rep || shared_align(b) % rep) {
		diag_error(cx, r->loc, "'%s' is not aligned to its swizzle's %lld-byte repeat (offset %lld)", b->name,
		           (long long)rep, (long long)b->shared_offset);
		return false;
	}
	int64_t *off = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)rows_want * (size_t)kext);
	int64_t origin[AX_COUNT];
	int64_t idx[MAX_DIMS] = {0};
	lay_apply_flat(&v.L, 0, origin);
	for (int i = 0; i < rows_want; i++)
		for (int j = 0; j < kext; j++) {
			memset(idx, 0, sizeof idx);
			idx[dr] = i;
			idx[dc] = j;
			int64_t flat = 0;
			for (int d = 0; d < r->ndim; d++)
				flat = flat * r->ext[d] + idx[d];
			int64_t at[AX_COUNT];
			lay_apply_flat(&v.L, flat, at);
			off[(int64_t)i * kext + j] = (at[AX_M] - origin[AX_M]) * es;
		}
	if (off[kext] == es && off[1] != es && !may_transpose) { /* MN-major before it is proved canonical */
		diag_error(cx, r->loc, "%s is %s-major, but %s operands must be K-major: wgmma transposes f16 and bf16 only",
		           name, name[0] == 'A' ? "M" : "N", dtype_name(b->dt));
		diag_note(cx, "store '%s' with K contiguous (its second dimension)", b->name);
		return false;
	}
	char msg[400], note[300];
	if (!wgmma_derive(off, rows_want, kext, es, swz, kinst, name, &o->d, msg, sizeof msg, note, sizeof note)) {
		diag_error(cx, r->loc, "%s", msg);
		if (note[0])
			diag_note(cx, "%s", note);
		return false;
	}
	if (o->d.mn_major && !may_transpose) {
		diag_error(cx, r->loc, "%s is %s-major, but %s operands must be K-major: wgmma transposes f16 and bf16 only",
		           name, name[0] == 'A' ? "M" : "N", dtype_name(b->dt));
		diag_note(cx, "store '%s' with K contiguous (its second dimension)", b->name);
		return false;
	}
	return true;
}

static FormId find_form(const WgmmaPlan *p)
{
	char shape[32];
	snprintf(shape, sizeof shape, "m64n%dk%d", p->n, p->kinst);
	FormKey key = {0};
	for (int i = 1; i < SHAPE_COUNT; i++)
		if (!strcmp(form_shape_names[i], shape))
			key.shape = (FormShape)i;
	for (int i = 1; i < ATYPE_COUNT; i++) {
		if (!strcmp(form_atype_names[i], dtype_name(p->at)))
			key.atype = (FormAtype)i;
	}
	for (int i = 1; i < BTYPE_COUNT; i++)
		if (!strcmp(form_btype_names[i], dtype_name(p->bt)))
			key.btype = (FormBtype)i;
	for (int i = 1; i < DTYPE_COUNT; i++)
		if (!strcmp(form_dtype_names[i], dtype_name(p->acc)))
			key.dtype = (FormDtype)i;
	key.areg = p->rs;
	if (!key.shape || !key.atype || !key.btype || !key.dtype)
		return FORM_COUNT;
	return form_find(FAM_WGMMA, &key);
}

/* the operands' memories and types: D in registers, A and B in shared
 * memory (A may be registers), a pair of types wgmma multiplies */
static bool wg_types(Ctx *cx, const Stmt *s, const Buffer *D, const Buffer *A, WgmmaPlan *p)
{
	if (D->mem != MEM_LOCAL) {
		diag_error(cx, s->dst->loc, "the accumulator of a wgmma is a local buffer (registers); '%s' is %s memory",
		           D->name, mem_name(D->mem));
		return false;
	}
	const Region *ops[2] = {s->src, s->mma_b};
	p->rs = A->mem == MEM_LOCAL;
	for (int i = p->rs; i < 2; i++)
		if (ops[i]->buf->mem != MEM_SHARED) {
			diag_error(cx, ops[i]->loc, "%s of a wgmma is read from shared memory; '%s' is %s memory", i ? "B" : "A",
			           ops[i]->buf->name, mem_name(ops[i]->buf->mem));
			return false;
		}
	bool f8a = p->at == DT_E4M3 || p->at == DT_E5M2, f8b = p->bt == DT_E4M3 || p->bt == DT_E5M2;
	bool types = (p->at == p->bt && (p->at == DT_F16 || p->at == DT_BF16 || p->at == DT_TF32)) || (f8a && f8b);
	if (!types) {
		diag_error(cx, s->src->loc, "wgmma multiplies f16 x f16, bf16 x bf16, tf32 x tf32 or e4m3/e5m2 x e4m3/e5m2, "
		           "not %s x %s", dtype_name(p->at), dtype_name(p->bt));
		return false;
	}
	if (!(p->acc == DT_F32 || (p->acc == DT_F16 && (p->at == DT_F16 || f8a)))) {
		diag_error(cx, s->dst->loc, "a %s wgmma accumulates in f32%s, not %s", dtype_name(p->at),
		           p->at == DT_F16 || f8a ? " or f16" : "", dtype_name(p->acc));
		return false;
	}
	p->kinst = 32 / dtype_bytes(p->at);
	if (D->mem != MEM_LOCAL) {
		diag_error(cx, s->dst->loc, "the accumulator of a wgmma is a local buffer (registers); '%s' is %s memory",
		           D->name, mem_name(D->mem));
		return false;
	}
	return true;
}

/* the accumulator: a constant [64, N] region of one warpgroup's registers */
static bool wg_accumulator(Ctx *cx, const Stmt *s, const Buffer *D, WgmmaPlan *p, int *dr_out, int *dc_out)
{
	int dr, dc;
	if (!two_dims(s->dst, &dr, &dc) || s->dst->ext[dr] != 64) {
		diag_error(cx, s->dst->loc, "the accumulator of a wgmma is [64, N]");
		return false;
	}
	p->n = (int)s->dst->ext[dc];
	if (s->dst->ext[dc] % 8 || s->dst->ext[dc] > 256) {
		diag_error(cx, s->dst->loc, "N = %lld is not a wgmma shape for %s: N is a multiple of 8 in 8..256",
		           (long long)s->dst->ext[dc], dtype_name(p->at));
		return false;
	}
	for (int d = 0; d < s->dst->ndim; d++)
		if (!s->dst->all[d] && !s->dst->whole && !affine_is_const(&s->dst->begin[d])) {
			diag_error(cx, s->dst->dim_loc[d], "the accumulator's region is constant (registers are named at compile "
			           "time)");
			return false;
		}
	if (D->owner != SC_WARPGROUP) {
		diag_error(cx, s->dst->loc, "the accumulator '%s' belongs to a %s; a wgmma's belongs to one warpgroup "
		           "(thread axes laneid with wid_in_wg, or tid_in_wg)", D->name, scope_name(D->owner));
		diag_note(cx, "the fragment of m64n%d: layout %s", p->n, acc_layout_text(cx->arena, p->n));
		return false;
	}
	*dr_out = dr;
	*dc_out = dc;
	return true;
}

/* A from registers: a constant [64, K] region of one warpgroup, its words */
static bool wg_a_registers(Ctx *cx, const Stmt *s, const Buffer *A, WgmmaPlan *p, int64_t K, int ar, int ac)
{
	for (int d = 0; d < s->src->ndim; d++)
		if (!s->src->all[d] && !s->src->whole && !affine_is_const(&s->src->begin[d])) {
			diag_error(cx, s->src->dim_loc[d], "A's region is constant (registers are named at compile time)");
			return false;
		}
	if (A->owner != SC_WARPGROUP || s->src->ext[ar] != 64) {
		diag_error(cx, s->src->loc, "A from registers is a [64, K] region of a local buffer of one warpgroup");
		return false;
	}
	if (!a_words(cx, s->src, p, ar, ac))
		return false;
	p->a.d.ksteps = (int)(K / p->kinst);
	p->a.buf = A;
	for (int d = 0; d < s->src->ndim; d++) {
		p->abox[d][0] = s->src->all[d] || s->src->whole ? 0 : s->src->begin[d].c;
		p->abox[d][1] = p->abox[d][0] + s->src->ext[d];
	}
	return true;
}

void check_wgmma(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (s->scope != SC_WARPGROUP) {
		diag_error(cx, s->loc, "mma is a warpgroup statement ('warpgroup mma D, A, B'), not %s scope",
		           scope_name(s->scope));
		return;
	}
	if (k->threads % 128) {
		diag_error(cx, s->loc, "warpgroup mma needs a multiple of 128 threads, but kernel '%s' has %lld", k->name,
		           (long long)k->threads);
		return;
	}
	bool ok = check_region_of(cx, k, s->dst);
	ok &= check_region_of(cx, k, s->src);
	ok &= check_region_of(cx, k, s->mma_b);
	if (!ok)
		return;
	const Buffer *D = s->dst->buf, *A = s->src->buf, *B = s->mma_b->buf;
	WgmmaPlan *p = arena_alloc(cx->arena, sizeof *p);
	p->at = A->dt;
	p->bt = B->dt;
	p->acc = D->dt;
	if (!wg_types(cx, s, D, A, p))
		return;
	int dr, dc;
	if (!wg_accumulator(cx, s, D, p, &dr, &dc))
		return;
	int ar, ac;
	if (!two_dims(s->src, &ar, &ac)) {
		diag_error(cx, s->src->loc, "A of a wgmma is [64, K]");
		return;
	}
	int64_t K = s->src->ext[ac];
	if (K % p->kinst || K / p->kinst > WG_MAX_KSTEPS) {
		diag_error(cx, s->src->loc, "K = %lld is not a multiple of %d (one %s wgmma) up to %d of them", (long long)K,
		           p->kinst, dtype_name(p->at), WG_MAX_KSTEPS);
		return;
	}
	bool tr = p->at == DT_F16 || p->at == DT_BF16;
	if (p->rs) {
		if (!wg_a_registers(cx, s, A, p, K, ar, ac))
			return;
	} else if (!operand(cx, k, s->src, "A", 64, (int)K, p->kinst, tr, false, &p->a)) {
		return;
	}
	if (!operand(cx, k, s->mma_b, "B", p->n, (int)K, p->kinst, tr, s->mma_b_kn, &p->b))
		return;
	if (!acc_words(cx, k, s, p, dr, dc))
		return;
	for (int d = 0; d < s->dst->ndim; d++) {
		p->dbox[d][0] = s->dst->all[d] || s->dst->whole ? 0 : s->dst->begin[d].c;
		p->dbox[d][1] = p->dbox[d][0] + s->dst->ext[d];
	}
	p->form = find_form(p);
	if (p->form == FORM_COUNT) {
		diag_error(cx, s->loc, "no wgmma form for m64n%dk%d %s x %s -> %s", p->n, p->kinst, dtype_name(p->at),
		           dtype_name(p->bt), dtype_name(p->acc));
		return;
	}
	s->wg = p;
}

/* ---- explain ---- */

static void explain_operand(const Kernel *k, Str *out, const char *name, const WgOperand *o, int es)
{
	const WgDesc *d = &o->d;
	str_printf(out, "  %s '%s': %s-major, %s (layout type %d)\n", name, o->buf->name, d->mn_major ? "MN" : "K",
	           d->swz ? (d->swz == 128 ? "128-byte swizzle" : d->swz == 64 ? "64-byte swizzle" : "32-byte swizzle")
	                  : "no swizzle", d->mode);
	str_printf(out, "    start: (shared address of '%s'", o->buf->name);
	if (o->start.c)
		str_printf(out, " + %lld", (long long)o->start.c);
	for (int t = 0; t < o->start.n; t++)
		str_printf(out, " + %lld*%s", (long long)o->start.t[t].k, k->var_names[o->start.t[t].var]);
	str_printf(out, ") >> 4, from the runtime address (never an assumed base); k-steps add");
	for (int s = 0; s < d->ksteps; s++)
		str_printf(out, " %lld", (long long)d->step_off[s]);
	str_printf(out, " bytes (start field +%lld per step)\n", d->ksteps > 1 ? (long long)(d->step_off[1] >> 4) : 0LL);
	int rowb = d->swz ? d->swz : 16;
	if (!d->mn_major) {
		str_printf(out, "    core matrix: 8 rows x 16 bytes (%d elements), rows %d bytes apart%s\n", 16 / es, rowb,
		           d->swz ? " (one swizzle row each)" : " (128 contiguous bytes)");
		str_printf(out, "    leading byte offset: %lld (%s)\n", (long long)d->lbo,
		           d->lbo_used ? "the next 16 bytes of K" : "not read: K chunks are adjacent in a swizzle row");
		str_printf(out, "    stride byte offset: %lld (%s)\n", (long long)d->sbo,
		           d->sbo_used ? "the next 8 rows" : "not read: 8 rows");
	} else {
		int W = rowb / 16;
		str_printf(out, "    core matrix: %d %s elements x 8 K rows, K rows %d bytes apart\n", 16 / es * W,
		           name[0] == 'A' ? "M" : "N", rowb);
		str_printf(out, "    leading byte offset: %lld (%s)\n", (long long)d->lbo,
		           d->lbo_used ? (d->swz ? "the next swizzle atom along M/N" : "the next 8 K rows")
		                       : "not read");
		str_printf(out, "    stride byte offset: %lld (%s)\n", (long long)d->sbo,
		           d->sbo_used ? (d->swz ? "the next 8 K rows" : "the next 16 bytes along M/N") : "not read");
	}
	str_printf(out, "    base offset: 0 (the buffer is aligned to its swizzle's repeat; the hardware swizzles the final "
	           "address)\n    descriptor bits: 0x%016llx | (start >> 4)\n",
	           (unsigned long long)wgmma_desc_encode(0, d));
}

static void json_operand(Str *out, const char *name, const WgOperand *o)
{
	const WgDesc *d = &o->d;
	str_printf(out, ", \"%s\": {\"buffer\": \"%s\", \"major\": \"%s\", \"swizzle\": %d, \"layout_type\": %d, "
	           "\"start_offset\": %lld, \"lbo\": %lld, \"lbo_used\": %s, \"sbo\": %lld, \"sbo_used\": %s, "
	           "\"base_offset\": 0, \"k_steps\": [", name, o->buf->name, d->mn_major ? "MN" : "K", d->swz, d->mode,
	           (long long)o->start.c, (long long)d->lbo, d->lbo_used ? "true" : "false", (long long)d->sbo,
	           d->sbo_used ? "true" : "false");
	for (int s = 0; s < d->ksteps; s++)
		str_printf(out, "%s%lld", s ? ", " : "", (long long)d->step_off[s]);
	str_printf(out, "], \"desc_fixed\": \"0x%016llx\"}", (unsigned long long)wgmma_desc_encode(0, d));
}

void explain_wgmma(const Kernel *k, const Stmt *s, bool json, Str *out)
{
	const WgmmaPlan *p = s->wg;
	if (!p)
		return;
	if (json) {
		str_printf(out, "{\"kernel\": \"%s\", \"line\": %d, \"op\": \"wgmma\", \"form\": \"%s\", \"instructions\": %d, "
		           "\"shape\": \"m64n%dk%d\", \"scale_d\": %lld", k->name, s->loc.line, ptx_forms[p->form].name,
		           p->a.d.ksteps, p->n, p->kinst, (long long)s->n);
		if (p->rs)
			str_printf(out, ", \"a\": {\"buffer\": \"%s\", \"registers\": true}", s->src->buf->name);
		else
			json_operand(out, "a", &p->a);
		json_operand(out, "b", &p->b);
		str_printf(out, ", \"d_registers\": [");
		for (int j = 0; j < p->nwords; j++)
			str_printf(out, "%s%d", j ? ", " : "", p->words[j]);
		str_printf(out, "]}\n");
		return;
	}
	str_printf(out, "%s:%d: warpgroup mma %s, %s, %s\n  %s: %d x m64n%dk%d %s x %s -> %s, scale-d %lld on the first\n",
	           k->name, s->loc.line, s->dst->name, s->src->name, s->mma_b->name, ptx_forms[p->form].name, p->a.d.ksteps,
	           p->n, p->kinst, dtype_name(p->at), dtype_name(p->bt), dtype_name(p->acc), (long long)s->n);
	if (p->rs)
		str_printf(out, "  A '%s': from registers, the A fragment (4 registers per thread per k-step)\n", s->src->buf->name);
	else
		explain_operand(k, out, "A", &p->a, dtype_bytes(p->at));
	explain_operand(k, out, "B", &p->b, dtype_bytes(p->bt));
	str_printf(out, "  D '%s': %d registers per thread in fragment order:", s->dst->buf->name, p->nwords);
	for (int j = 0; j < p->nwords && j < 16; j++)
		str_printf(out, " %d", p->words[j]);
	str_printf(out, "%s\n", p->nwords > 16 ? " ..." : "");
}

/* ---- emission ---- */

static Reg desc_reg(Emit *e, const WgOperand *o)
{
	Builder *b = emit_builder(e);
	Reg addr = emit_shared_base(e, o->buf);
	if (o->start.n) {
		Reg v = emit_affine(e, &o->start);
		Reg a = b_reg(b, RC_R);
		b_ins(b, FORM_ADD_U32, b_name(b, a), b_name(b, addr), b_name(b, v), NULL);
		addr = a;
	} else if (o->start.c) {
		addr = b_add32_imm(b, addr, o->start.c);
	}
	/* the descriptor holds bits 4..17 of the CTA's shared offset: in a
	 * cluster a shared::cta address also carries the CTA's rank above them
	 * (on the H100), which unmasked would spill into the leading byte
	 * offset (bits 16..29, read for MN-major operands); every k-step's
	 * start added below stays in the 14-bit field */
	Reg lo = b_reg(b, RC_R), sh = b_reg(b, RC_R), wide = b_reg(b, RC_RD), d = b_reg(b, RC_RD);
	b_ins(b, FORM_AND_B32, b_name(b, lo), b_name(b, addr), b_imm(b, 0x3FFFF), NULL);
	b_ins(b, FORM_SHR_U32, b_name(b, sh), b_name(b, lo), b_imm(b, 4), NULL);
	b_ins(b, FORM_CVT_U64_U32, b_name(b, wide), b_name(b, sh), NULL);
	b_ins(b, FORM_OR_B64, b_name(b, d), b_name(b, wide), b_imm(b, (int64_t)wgmma_desc_encode(0, &o->d)), NULL);
	return d;
}

static Reg step_desc(Builder *b, Reg d, const WgDesc *w, int s)
{
	int64_t add = (w->step_off[s] - w->step_off[0]) >> 4;
	if (!add)
		return d;
	Reg r = b_reg(b, RC_RD);
	b_ins(b, FORM_ADD_U64, b_name(b, r), b_name(b, d), b_imm(b, add), NULL);
	return r;
}

void emit_wgmma(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const WgmmaPlan *p = s->wg;
	char adesc[32];
	snprintf(adesc, sizeof adesc, "%s-major %dB", p->a.d.mn_major ? "MN" : "K", p->a.d.swz);
	b_comment(b, "line %d: warpgroup mma %s, %s, %s: %d x m64n%dk%d, A %s, B %s-major %dB", s->loc.line,
	          s->dst->name, s->src->name, s->mma_b->name, p->a.d.ksteps, p->n, p->kinst,
	          p->rs ? "from registers" : adesc, p->b.d.mn_major ? "MN" : "K", p->b.d.swz);
	Reg *words = emit_local_regs(e, s->dst->buf);
	Reg regs[128];
	for (int j = 0; j < p->nwords; j++)
		regs[j] = words[p->words[j]];
	const char *dvec = b_vec(b, regs, p->nwords);
	Reg da = {0}, db;
	if (!p->rs)
		da = desc_reg(e, &p->a);
	db = desc_reg(e, &p->b);
	bool tr = p->at == DT_F16 || p->at == DT_BF16;
	for (int k = 0; k < p->a.d.ksteps; k++) {
		Reg ak = p->rs ? da : step_desc(b, da, &p->a.d, k), bk = step_desc(b, db, &p->b.d, k);
		const char *scale = b_imm(b, k == 0 ? s->n : 1);
		if (p->rs) {
			Reg *aw = emit_local_regs(e, s->src->buf), ar[4];
			for (int j = 0; j < 4; j++)
				ar[j] = aw[p->awords[k][j]];
			if (tr)
				b_ins(b, p->form, dvec, b_vec(b, ar, 4), b_name(b, bk), scale, b_imm(b, p->b.d.mn_major), NULL);
			else
				b_ins(b, p->form, dvec, b_vec(b, ar, 4), b_name(b, bk), scale, NULL);
			continue;
		}
		if (tr)
			b_ins(b, p->form, dvec, b_name(b, ak), b_name(b, bk), scale, b_imm(b, p->a.d.mn_major),
			      b_imm(b, p->b.d.mn_major), NULL);
		else
			b_ins(b, p->form, dvec, b_name(b, ak), b_name(b, bk), scale, NULL);
	}
}

void emit_wgmma_fence(Emit *e, const Stmt *s)
{
	b_comment(emit_builder(e), "line %d: wgmma.fence", s->loc.line);
	b_ins(emit_builder(e), FORM_WGMMA_FENCE, NULL);
}

void emit_wgmma_commit(Emit *e, const Stmt *s)
{
	b_comment(emit_builder(e), "line %d: wgmma.commit", s->loc.line);
	b_ins(emit_builder(e), FORM_WGMMA_COMMIT, NULL);
}

void emit_wgmma_wait(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	b_comment(b, "line %d: wgmma.wait %lld", s->loc.line, (long long)s->n);
	b_ins(b, FORM_WGMMA_WAIT, b_imm(b, s->n), NULL);
}

/* ---- the async proofs ----
 * One execution of the statements of one wgmma issuer, loops unrolled (a
 * runtime count: two trips, and its fewest when the facts allow fewer),
 * regions widened over the warps that run each statement and over CTA
 * indices. Without roles every warpgroup runs every statement: one
 * execution stands for all. With roles each warpgroup runs its own walk:
 * the when blocks some of its warps run (wgmma statements need whole
 * warpgroups, so a block a part of it runs holds only its register and
 * memory accesses), since wgmma groups, commits, waits and fences are the
 * warpgroup's. State: the wgmmas in flight (uncommitted, or in a group no
 * wait has covered) with their accumulator box and operand bytes; the last
 * wgmma.fence; per local buffer the last statement that touched its
 * registers; TMA loads in flight (until an mbarrier.wait on their
 * barrier); shared bytes threads wrote since the last fence.proxy_async +
 * sync (or bar.sync, which orders the threads that take part as sync). */

enum { WG_SIM_LIMIT = 1 << 22 };

typedef struct WSpan {
	const Buffer *buf;
	int64_t lo, hi;
	const Stmt *s;
	int64_t bar;     /* TMA loads: barrier index; thread writes: 0 unfenced, 1 fenced */
	int64_t group;   /* in-flight wgmma: -1 uncommitted */
} WSpan;

typedef struct WSim {
	Ctx *cx;
	Kernel *k;
	int64_t *vals;
	int64_t steps, fence_step, commit_step;
	const Stmt *committer;
	bool failed;
	WSpan *fl; size_t nfl, flcap;    /* wgmma in flight: A and B spans (two entries per wgmma) */
	WSpan *ld; size_t nld, ldcap;    /* TMA loads in flight */
	WSpan *dirty; size_t ndirty, dcap;
	int64_t groups;
	int64_t *touch;                  /* per buffer: step of the last register access by threads */
	const Stmt **toucher;
	const Stmt *cur;                 /* the statement whose regions stmt_regions is listing */
	uint64_t issuer;                 /* the warpgroup's warps (roles); 0: every warpgroup alike */
	const Stmt **low;                /* runtime repeats that may run fewer than two trips: their keys */
	int nlow;
	unsigned low_on;                 /* this run: key i's repeats run their fewest trips */
	int64_t *runs;                   /* per variable: a running count's trips so far */
} WSim;

#define WFAIL(S, ...) ((S)->failed = true, diag_error((S)->cx, __VA_ARGS__))

static size_t buf_index(const Kernel *k, const Buffer *b)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i] == b)
			return i;
	return 0;
}

/* the bytes of a shared region: repeat indices at their values, every other
 * variable over its range, widened to whole swizzle repeats */
static bool span_of(WSim *S, const Stmt *s, const Region *r, WSpan *out)
{
	int64_t lo, hi;
	if (!region_bytes(S->cx, S->k, r, S->vals, S->issuer ? s->warps : 0, -1, &lo, &hi))
		return false;
	*out = (WSpan){r->buf, lo, hi, NULL, 0, -1};
	return true;
}

static const WSpan *hit(const WSpan *list, size_t n, const WSpan *x)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].buf == x->buf && list[i].lo <= x->hi && x->lo <= list[i].hi)
			return &list[i];
	return NULL;
}

/* a wgmma in flight whose accumulator overlaps the local region r */
static const Stmt *acc_in_flight(WSim *S, const Region *r)
{
	for (size_t i = 0; i < S->nfl; i += 2) {
		const Stmt *m = S->fl[i].s;
		for (int which = 0; which < 2; which++) {
			if (which ? !(m->wg->rs && m->src->buf == r->buf) : m->dst->buf != r->buf)
				continue;
			int64_t (*box)[2] = which ? m->wg->abox : m->wg->dbox;
			bool meet = true;
			for (int d = 0; d < r->ndim && meet; d++) {
				int64_t lo = 0, hi = r->buf->shape[d];
				if (!r->whole && !r->all[d] && affine_is_const(&r->begin[d])) {
					lo = r->begin[d].c;
					hi = lo + r->ext[d];
				}
				meet = lo < box[d][1] && box[d][0] < hi;
			}
			if (meet)
				return m;
		}
	}
	return NULL;
}

/* statement s reads or writes the registers of local region r */
static void reg_access(WSim *S, const Stmt *s, const Region *r, bool write)
{
	if (!r || !r->buf || r->buf->mem != MEM_LOCAL || S->failed)
		return;
	const Stmt *m = acc_in_flight(S, r);
	if (m) {
		WFAIL(S, s->loc, "'%s' %s %s '%s' while the wgmma at line %d is in flight", stmt_info[s->kind].keyword,
		      write ? "writes" : "reads", r->buf == m->dst->buf ? "the accumulator" : "the A fragment", r->buf->name,
		      m->loc.line);
		diag_note(S->cx, "wgmma.commit, then wgmma.wait N covering it, before its registers are touched");
		return;
	}
	size_t bi = buf_index(S->k, r->buf);
	S->touch[bi] = S->steps;
	S->toucher[bi] = s;
}

static void shared_write(WSim *S, const Stmt *s, const Region *r, bool tma)
{
	if (!r || !r->buf || r->buf->mem != MEM_SHARED || S->failed)
		return;
	WSpan x;
	if (!span_of(S, s, r, &x))
		return;
	const WSpan *f = hit(S->fl, S->nfl, &x);
	if (f) {
		WFAIL(S, s->loc, "this copy writes '%s' (bytes %lld..%lld), which the wgmma at line %d still reads", r->buf->name,
		      (long long)x.lo, (long long)x.hi, f->s->loc.line);
		diag_note(S->cx, "the operands of a wgmma are read until the wgmma.wait that covers its group: commit it "
		          "and wait first");
		return;
	}
	x.s = s;
	if (tma) {
		x.bar = s->mbar_idx ? affine_eval(s->mbar_idx, S->vals) + 1000000 * (s->mbar - 1) : 0;
		APUSH(S->cx->arena, S->ld, S->nld, S->ldcap, x);
	} else {
		x.bar = 0;
		APUSH(S->cx->arena, S->dirty, S->ndirty, S->dcap, x);
	}
}

static void sim_mma(WSim *S, const Stmt *s)
{
	const Buffer *D = s->dst->buf;
	size_t bi = buf_index(S->k, D);
	if (S->fence_step < 0) {
		WFAIL(S, s->loc, "no wgmma.fence before the first wgmma");
		diag_note(S->cx, "wgmma.fence orders the warpgroup's register accesses before the wgmma reads them");
		return;
	}
	if (S->commit_step > S->fence_step) {
		WFAIL(S, s->loc, "no wgmma.fence between the wgmma.commit at line %d and this wgmma", S->committer->loc.line);
		diag_note(S->cx, "each chain is wgmma.fence, its wgmmas, wgmma.commit: ptxas serialises (C7515) or patches "
		          "(C7519) the wgmmas of a chain it cannot see whole");
		return;
	}
	size_t ai = s->wg->rs ? buf_index(S->k, s->src->buf) : bi;
	if (s->wg->rs && S->touch[ai] > S->fence_step) { /* the A fragment's registers, RS */
		bi = ai;
		D = s->src->buf;
	}
	if (S->touch[bi] > S->fence_step) {
		WFAIL(S, s->loc, "no wgmma.fence between the access of '%s' at line %d and this wgmma", D->name,
		      S->toucher[bi]->loc.line);
		diag_note(S->cx, "a wgmma that reads or writes registers a thread accessed needs a wgmma.fence between them");
		return;
	}
	const Region *ops[2] = {s->src, s->mma_b};
	WSpan sp[2];
	for (int i = 0; i < 2; i++) {
		if (ops[i]->buf->mem != MEM_SHARED) { /* RS: A is registers; a span that meets nothing */
			sp[i] = (WSpan){NULL, 0, -1, s, 0, -1};
			APUSH(S->cx->arena, S->fl, S->nfl, S->flcap, sp[i]);
			continue;
		}
		if (!span_of(S, s, ops[i], &sp[i]))
			return;
		const WSpan *l = hit(S->ld, S->nld, &sp[i]);
		if (l) {
			WFAIL(S, s->loc, "the wgmma reads '%s' while the TMA load at line %d may still fill it", ops[i]->buf->name,
			      l->s->loc.line);
			diag_note(S->cx, "wait on the load's mbarrier (mbarrier.wait) before the wgmma");
			return;
		}
		const WSpan *w = hit(S->dirty, S->ndirty, &sp[i]);
		if (w) {
			WFAIL(S, s->loc, "the wgmma reads '%s', which threads wrote at line %d, without %s", ops[i]->buf->name,
			      w->s->loc.line, w->bar ? "a sync after the fence" : "fence.proxy_async and sync");
			diag_note(S->cx, "wgmma reads shared memory through the async proxy: thread writes need "
			          "fence.proxy_async, then sync, before it");
			return;
		}
		sp[i].s = s;
		sp[i].group = -1;
		APUSH(S->cx->arena, S->fl, S->nfl, S->flcap, sp[i]);
	}
}

/* a region statement s reads or writes (stmt_regions): registers and shared memory */
static void wsim_region(void *ctx, const Region *r, bool write)
{
	WSim *S = ctx;
	reg_access(S, S->cur, r, write);
	if (write && stmt_info[S->cur->kind].shared == SH_REGIONS)
		shared_write(S, S->cur, r, stmt_is_tma_load(S->cur));
}

static void wsim_drop_dirty(WSim *S)
{
	size_t k = 0;
	for (size_t i = 0; i < S->ndirty; i++)
		if (!S->dirty[i].bar)
			S->dirty[k++] = S->dirty[i];
	S->ndirty = k;
}

static void wsim_stmt(WSim *S, const Stmt *s)
{
	switch (s->kind) {
	case ST_WG_MMA: sim_mma(S, s); return;
	case ST_WG_FENCE: S->fence_step = S->steps; return;
	case ST_WG_COMMIT:
		S->commit_step = S->steps;
		S->committer = s;
		for (size_t i = 0; i < S->nfl; i++)
			if (S->fl[i].group < 0)
				S->fl[i].group = S->groups;
		S->groups++;
		return;
	case ST_WG_WAIT: {
		size_t k = 0;
		for (size_t i = 0; i < S->nfl; i++)
			if (S->fl[i].group < 0 || S->fl[i].group >= S->groups - s->n)
				S->fl[k++] = S->fl[i];
		S->nfl = k;
		return;
	}
	case ST_MBAR_WAIT: {
		int64_t bar = affine_eval(s->mbar_idx, S->vals) + 1000000 * (s->mbar - 1);
		size_t k = 0;
		for (size_t i = 0; i < S->nld; i++)
			if (S->ld[i].bar != bar)
				S->ld[k++] = S->ld[i];
		S->nld = k;
		return;
	}
	case ST_FENCE_ASYNC:
		for (size_t i = 0; i < S->ndirty; i++)
			S->dirty[i].bar = 1;
		return;
	case ST_SYNC: case ST_MBAR_INIT: case ST_CLUSTER_SYNC: case ST_CLUSTER_WAIT: case ST_NBAR_SYNC:
		wsim_drop_dirty(S);
		return;
	default: /* every other statement: the regions it names (registers, shared writes) */
		S->cur = s;
		stmt_regions(s, wsim_region, S);
		return;
	}
}

/* the walker's hooks (walk.c): a repeat with a runtime count runs two trips
 * (or its fewest, in a run that says so), a when block is entered when a
 * warp of the issuer runs it, each statement instance, blocks included,
 * costs one of WG_SIM_LIMIT */
static bool wsim_hook(Walk *w, const Stmt *s)
{
	WSim *S = w->ctx;
	S->steps = w->steps;
	wsim_stmt(S, s);
	return !S->failed;
}

static void wsim_over(Walk *w, const Stmt *s)
{
	WFAIL((WSim *)w->ctx, s->loc, "more than %d statement instances: too many to check the kernel's wgmma",
	      WG_SIM_LIMIT);
}

static bool wsim_when(Walk *w, const Stmt *s) { return (s->body_warps & ((WSim *)w->ctx)->issuer) != 0; }

/* a runtime count's fewest trips the facts allow (a CTA of a persistent loop may run none) */
static int64_t fewest_trips(const Kernel *k, const Stmt *s)
{
	if (s->trips_expr)
		return s->trips_lo;
	int64_t lo = k->scalars[s->trips_scalar - 1].lo;
	return s->across || lo <= 0 ? 0 : (lo + s->trips_div - 1) / s->trips_div;
}

/* the repeats of one key run the same number of trips: the same scalar, dealt out or not */
static bool same_key(const Stmt *a, const Stmt *b)
{
	if (a->trips_expr || b->trips_expr)
		return trip_expr_eq(a->trips_expr, b->trips_expr);
	return a->trips_scalar == b->trips_scalar && !a->across == !b->across;
}

static int64_t wsim_trips(Walk *w, const Stmt *s)
{
	WSim *S = w->ctx;
	int64_t two = walk_trips_two(w, s);
	if (!stmt_runtime_trips(s))
		return two;
	for (int i = 0; i < S->nlow; i++)
		if ((S->low_on >> i & 1) && same_key(S->low[i], s)) {
			int64_t f = fewest_trips(S->k, s);
			return f < two ? f : two;
		}
	return two;
}

/* a running count: its trips so far in the thread, over the whole kernel */
static bool wsim_trip(Walk *w, const Stmt *s, int64_t j)
{
	WSim *S = w->ctx;
	(void)j;
	if (s->running)
		kernel_set_var(S->k, S->vals, s->running, S->runs[s->running]++);
	return true;
}

static void wsim_stmts(WSim *S, Stmt **body, size_t n)
{
	int64_t budget = WG_SIM_LIMIT;
	Walk w = {.k = S->k, .vals = S->vals, .budget = &budget, .ctx = S, .stmt = wsim_hook, .trips = wsim_trips,
	          .trip = wsim_trip, .over = wsim_over, .when = wsim_when};
	walk_stmts(&w, body, n);
}

static void has_wgmma(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= s->kind == ST_WG_MMA || s->kind == ST_WG_FENCE || s->kind == ST_WG_COMMIT || s->kind == ST_WG_WAIT;
}

/* the repeats with a runtime count that may run fewer than two trips, one per key */
struct LowScan { WSim *S; Arena *ar; size_t cap; };
static void scan_low(void *ctx, const Stmt *s)
{
	struct LowScan *L = ctx;
	WSim *S = L->S;
	if (s->kind != ST_REPEAT || !stmt_runtime_trips(s) || !s->nbody || fewest_trips(S->k, s) >= 2)
		return;
	for (int i = 0; i < S->nlow; i++)
		if (same_key(S->low[i], s))
			return;
	size_t n = (size_t)S->nlow;
	APUSH(L->ar, S->low, n, L->cap, s);
	S->nlow = (int)n;
}

/* one execution of the issuer's statements; false: it failed (reported) */
static bool wsim_run(Ctx *cx, Kernel *k, const WSim *proto)
{
	WSim S = *proto;
	S.fence_step = S.commit_step = -1;
	S.vals = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	S.runs = arena_alloc(cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	S.touch = arena_alloc(cx->arena, sizeof(int64_t) * (k->nbufs + 1));
	S.toucher = arena_alloc(cx->arena, sizeof(Stmt *) * (k->nbufs + 1));
	for (size_t i = 0; i < k->nbufs; i++)
		S.touch[i] = -1;
	wsim_stmts(&S, k->body, k->nbody);
	if (!S.failed && S.nfl) {
		const Stmt *s = S.fl[0].s;
		S.failed = true;
		if (S.fl[0].group < 0)
			diag_error(cx, s->loc, "the wgmma is never committed: the kernel ends with it in flight");
		else
			diag_error(cx, s->loc, "the kernel ends while this wgmma may be in flight: no wgmma.wait covers its group");
		diag_note(cx, "after the last chain: wgmma.commit, then wgmma.wait 0");
	}
	for (int i = 0; i < S.nlow && S.failed; i++)
		if (S.low_on >> i & 1)
			diag_note(cx, "when the repeat at line %d runs %lld trips (the fewest its count's facts allow%s)",
			          S.low[i]->loc.line, (long long)fewest_trips(k, S.low[i]),
			          S.low[i]->across ? ": a CTA of a persistent loop may run none" : "");
	return !S.failed;
}

/* the warpgroup g's runs: every combination of fewest and two trips */
static bool wsim_issuer(Ctx *cx, Kernel *k, WSim *proto)
{
	for (unsigned c = 0; c < 1u << proto->nlow; c++) {
		proto->low_on = c;
		if (!wsim_run(cx, k, proto))
			return false;
	}
	return true;
}

/* the when blocks the warpgroup's warps run */
struct WhenScan { const Stmt **w; size_t n, cap; Arena *ar; };
static void scan_whens(void *ctx, const Stmt *s)
{
	struct WhenScan *W = ctx;
	if (s->kind == ST_WHEN)
		APUSH(W->ar, W->w, W->n, W->cap, s);
}

static bool same_walk(const struct WhenScan *W, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < W->n; i++)
		if (!(W->w[i]->body_warps & a) != !(W->w[i]->body_warps & b))
			return false;
	return true;
}

enum { WG_MAX_LOW = 6 };

void check_wgmma_async(Ctx *cx, const Module *m, Kernel *k)
{
	(void)m;
	bool any = false;
	stmt_walk(k->body, k->nbody, has_wgmma, &any);
	if (!any)
		return;
	WSim S = {.cx = cx, .k = k};
	struct LowScan L = {&S, cx->arena, 0};
	stmt_walk(k->body, k->nbody, scan_low, &L);
	if (S.nlow > WG_MAX_LOW) {
		diag_error(cx, S.low[WG_MAX_LOW]->loc, "more than %d runtime trip counts that may run fewer than two trips: "
		           "too many to check the kernel's wgmma", WG_MAX_LOW);
		return;
	}
	if (!k->has_roles) {
		wsim_issuer(cx, k, &S);
		return;
	}
	struct WhenScan W = {.ar = cx->arena};
	stmt_walk(k->body, k->nbody, scan_whens, &W);
	uint64_t done[16];
	int ndone = 0;
	for (int64_t g = 0; g < k->threads / 128 && g < 16; g++) {
		uint64_t mask = (uint64_t)0xf << (4 * g);
		bool seen = false;
		for (int i = 0; i < ndone && !seen; i++)
			seen = same_walk(&W, done[i], mask);
		if (seen)
			continue;
		done[ndone++] = mask;
		S.issuer = mask;
		if (!wsim_issuer(cx, k, &S))
			return;
	}
}
