/* Hopper's warpgroup MMA: 'warpgroup mma D, A, B [scale_d 0]'.
 *
 * check_wgmma decides everything before any PTX exists: the instruction
 * shape and types, the accumulator's registers (D's layout must put every
 * element of the m64nN fragment in the thread the PTX ISA gives it, in the
 * same register of every thread), and each shared operand's descriptor
 * (src/ptx/wgmma_desc.c: derived from the buffer's layout and swizzle, proved
 * canonical for every k-step). emit_wgmma builds the descriptors from the
 * buffers' runtime shared addresses and issues one wgmma.mma_async per
 * k-step (src/emit/wgmma_emit.c). The roles proof proves the
 * asynchronous rules (src/proof/roles_wgmma.c). */
#include "tilepx.h"
#include "wgmma_plan.h"

#include <string.h>

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
