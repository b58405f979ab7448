/* Semantic checks: every rule of docs/language.md, reported with locations. */
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>

static bool check_tma_param(Ctx *cx, const Module *m, const Kernel *k, Buffer *b);

/* the largest power of two (up to 64) that divides every value dimension d
 * of a param can take: from the constant, or from the scalar's facts */

/* a param with runtime extents: row-major, rank 1 or 2; its layout for the
 * proofs (see Buffer.dyn_proxy) */
static bool check_dynamic_param(Ctx *cx, const Kernel *k, Buffer *b)
{
	if (b->ndim > 5) {
		diag_error(cx, b->loc, "param '%s' has runtime extents and %d dimensions; such a param has 1 to 5 "
		                       "(fold outer dimensions together)", b->name, b->ndim);
		return false;
	}
	if (b->has_layout || b->storage_given) {
		diag_error(cx, b->has_layout ? b->layout_loc : b->storage_loc,
		           "param '%s' has runtime extents, so it is row-major: it cannot have its own %s", b->name,
		           b->has_layout ? "layout" : "storage");
		return false;
	}
	for (int d = 0; d < b->ndim; d++)
		if (b->dyn_dim[d])
			b->shape[d] = (int64_t)1 << 31; /* a capacity: coordinates stay below 2^31 */
		else if (b->shape[d] > SCALAR_MAX) {
			diag_error(cx, b->dim_loc[d], "a dimension of a param with runtime extents is below 2^31");
			return false;
		}
	if ((b->ld_scalar || b->colmajor) && b->ndim != 2) {
		diag_error(cx, b->ld_scalar ? b->ld_loc : b->colmajor_loc, "'%s' applies to a 2-D param; '%s' has %d dimensions",
		           b->ld_scalar ? "ld" : "colmajor", b->name, b->ndim);
		return false;
	}
	if (b->colmajor && b->tma) {
		diag_error(cx, b->tma_loc, "a tensor map is row-major: '%s' is colmajor (declare the transposed row-major "
		           "param and swap the region's dimensions)", b->name);
		return false;
	}
	b->layout.n = b->ndim;
	b->layout.it[dyn_inner(b)] = (Iter){b->shape[dyn_inner(b)], 1, AX_M};
	/* rank 3..5: the dimensions before the last two are point-indexed
	 * (region.c), so a region is one [rows, cols] slab of the tensor; in the
	 * proofs' layout they take no place (stride 0), and the emitters add the
	 * slab's start (emit_dyn_slab) */
	for (int d = 0; d + 2 < b->ndim; d++)
		b->layout.it[d] = (Iter){b->shape[d], 0, AX_M};
	if (b->ndim >= 2) {
		b->dyn_proxy = dyn_row_proxy(k, b);
		b->layout.it[dyn_outer(b)] = (Iter){b->shape[dyn_outer(b)], b->dyn_proxy, AX_M};
	}
	return true;
}

static void check_buffer(Ctx *cx, const Module *m, Kernel *k, Buffer *b, int64_t *shared_bytes)
{
	for (size_t i = 0; i < k->nbufs && k->bufs[i] != b; i++)
		if (!strcmp(k->bufs[i]->name, b->name)) {
			diag_error(cx, b->loc, "buffer '%s' is already declared in kernel '%s' (line %d)", b->name, k->name,
			           k->bufs[i]->loc.line);
			return;
		}
	if (b->dynamic && !check_dynamic_param(cx, k, b))
		return;
	int64_t size = 1, bytes;
	for (int d = 0; d < b->ndim && !b->dynamic; d++)
		if (!mul_ok(size, b->shape[d], &size) || size > ((int64_t)1 << 40)) {
			diag_error(cx, b->dim_loc[d], "buffer '%s' is too large (more than 2^40 elements)", b->name);
			return;
		}
	bytes = size * dtype_bytes(b->dt);
	if (b->mem == MEM_GLOBAL && size > ((int64_t)1 << 32) && !b->dynamic) {
		diag_error(cx, b->loc, "param '%s' has more than 2^32 elements; tilepx addresses params with 32-bit "
		                       "element offsets", b->name);
		return;
	}
	if (b->mem == MEM_TMEM && !target_has(m->target, CAP_TCGEN05)) {
		diag_error(cx, b->loc, "tmem buffers need target %s (target is %s)", cap_name(CAP_TCGEN05), m->target->name);
		return;
	}
	if ((b->layout.sw.on || b->sw_auto) && b->mem != MEM_SHARED) {
		diag_error(cx, b->layout_loc, "swizzle applies to shared buffers only");
		return;
	}
	if (b->dynamic) {
		if (b->tma && !check_tma_param(cx, m, k, b))
			return;
		b->storage = 0; /* known at launch */
		return;
	}
	if (!b->has_layout) {
		Swizzle sw = b->layout.sw;
		lay_compact(&b->layout, b->shape, b->ndim);
		b->layout.sw = sw;
	}
	if (b->tma && !check_tma_param(cx, m, k, b))
		return;
	int before = cx->diags.errors;
	check_layout(cx, k, b);
	if (b->mem == MEM_SHARED && cx->diags.errors == before) {
		/* as the emitter lays them out: each buffer at its alignment, padding counted */
		int64_t align = shared_align(b);
		(void)bytes;
		*shared_bytes = (*shared_bytes + align - 1) / align * align;
		b->shared_offset = *shared_bytes;
		*shared_bytes += b->storage * dtype_bytes(b->dt);
		int64_t limit = k->is_func ? SHARED_STATIC_LIMIT : target_max_shared(m->target);
		if (*shared_bytes > limit) {
			diag_error(cx, b->loc, "shared memory of kernel '%s' reaches %lld bytes with alignment padding (limit %lld %s)",
			           k->name, (long long)*shared_bytes, (long long)limit,
			           k->is_func ? "for a func's static shared memory" : m->target->name);
			return;
		}
	}
}

/* a param with a tensor map: what cuTensorMapEncodeTiled accepts (CUDA driver
 * API): rank 1..5, row-major, global strides multiples of 16 bytes below 2^40 */
static bool check_tma_param(Ctx *cx, const Module *m, const Kernel *k, Buffer *b)
{
	if (k->is_func) { /* a tensor map is a kernel param (.param space); a func has no way to receive one */
		diag_error(cx, b->tma_loc, "a func cannot take a 'tma' param: its tensor map is a kernel param, and a func "
		           "receives only pointers");
		diag_note(cx, "copy with TMA in the kernel, or drop 'tma' and let the func copy with plain loads and stores");
		return false;
	}
	if (!target_has(m->target, CAP_SM90)) {
		diag_error(cx, b->tma_loc, "tensor maps (TMA) need target %s (target is %s)", cap_name(CAP_SM90),
		           m->target->name);
		return false;
	}
	if (b->has_layout || b->storage_given) {
		diag_error(cx, b->tma_loc, "a tma param is a row-major tensor: '%s' has its own %s", b->name,
		           b->has_layout ? "layout" : "storage");
		return false;
	}
	if (b->ndim > 5) {
		diag_error(cx, b->tma_loc, "a tensor map has rank 1..5; '%s' has %d dimensions", b->name, b->ndim);
		return false;
	}
	int64_t stride = dtype_bytes(b->dt);
	/* dimension d-1's stride is the product of dimensions d.. times the
	 * element size: aligned when the powers of two the facts guarantee are */
	int64_t align = dtype_bytes(b->dt);
	for (int d = b->ndim - 1; d > 0 && b->dynamic; d--) {
		int64_t inner = align;
		align *= b->ld_scalar ? row_pow2(k, b) : dim_pow2(k, b, d);
		align = align < 16 ? align : 16;
		if (align % 16) {
			const Scalar *sc = b->ld_scalar ? &k->scalars[b->ld_scalar - 1]
			                   : b->dyn_dim[d] ? &k->scalars[b->dyn_dim[d] - 1] : NULL;
			diag_error(cx, b->dim_loc[d], "dimension %d of '%s' may give a stride that is not a multiple of 16 "
			           "bytes, which a tensor map's strides must be", d - 1, b->name);
			if (sc)
				diag_note(cx, "declare 'assume %s %% %lld == 0'", sc->name, (long long)(16 / inner));
			return false;
		}
	}
	for (int d = b->ndim - 1; d > 0 && !b->dynamic; d--) {
		stride *= b->shape[d];
		if (stride % 16 || stride >= ((int64_t)1 << 40)) {
			diag_error(cx, b->dim_loc[d], "dimension %d of '%s' has a stride of %lld bytes; a tensor map's strides "
			           "are multiples of 16 bytes below 2^40", d - 1, b->name, (long long)stride);
			diag_note(cx, "pad the inner dimension to a multiple of %d elements", 16 / dtype_bytes(b->dt));
			return false;
		}
	}
	for (int d = 0; d < b->ndim && !b->dynamic; d++)
		if (b->shape[d] > ((int64_t)1 << 32)) {
			diag_error(cx, b->dim_loc[d], "a tensor map dimension is at most 2^32 elements");
			return false;
		}
	return true;
}

static void fmt_region_extents(Str *s, const Region *r)
{
	bool first = true;
	str_putc(s, '[');
	for (int d = 0; d < r->ndim; d++)
		if (r->ext[d] != 1) {
			str_printf(s, "%s%lld", first ? "" : ", ", (long long)r->ext[d]);
			first = false;
		}
	str_putc(s, ']');
}

/* a TMA copy's coordinates are signed 32-bit (cp.async.bulk.tensor's
 * .s32 operands): every coordinate the box covers, for every launch, must
 * be below 2^31; a larger one would be emitted as a negative number */
static bool check_tma_coords(Ctx *cx, const Kernel *k, const Stmt *s)
{
	const Region *g = stmt_is_tma_store(s) ? s->dst : stmt_is_tma_load(s) && s->src->buf->tma ? s->src : NULL;
	if (!g)
		return true;
	for (int d = 0; d < g->ndim; d++) {
		int64_t lo, end = g->buf->shape[d];
		bool sliced = !g->whole && !g->all[d];
		if (sliced && !check_affine_range(k, &g->end[d], &lo, &end))
			end = INT64_MAX;
		if (end > ((int64_t)1 << 31)) {
			diag_error(cx, sliced ? g->dim_loc[d] : g->loc, "TMA coordinates are signed 32-bit: the box of '%s' may "
			           "reach coordinate %lld of dimension %d (at most 2^31 - 1)", g->buf->name, (long long)(end - 1), d);
			return false;
		}
	}
	return true;
}

static bool scope_fits(Ctx *cx, const Kernel *k, const Stmt *s)
{
	int64_t need = s->scope == SC_WARP ? 32 : s->scope == SC_WARPGROUP ? 128 : 1;
	if (k->threads % need) {
		diag_error(cx, s->loc, "%s scope needs a multiple of %lld threads, but kernel '%s' has %lld",
		           scope_name(s->scope), (long long)need, k->name, (long long)k->threads);
		return false;
	}
	return true;
}

/* the converting copies (docs/language.md, "Converting copies"): f32
 * registers rounded into f16/bf16 memory or registers, or into e4m3/e5m2
 * registers; f16/bf16 memory widened into f32 registers; synchronous copies
 * only */
static bool converting_copy_ok(const Stmt *s)
{
	const Buffer *d = s->dst->buf, *r = s->src->buf;
	bool d_mem = d->mem == MEM_GLOBAL || d->mem == MEM_SHARED, r_mem = r->mem == MEM_GLOBAL || r->mem == MEM_SHARED;
	bool d_half = d->dt == DT_F16 || d->dt == DT_BF16, r_half = r->dt == DT_F16 || r->dt == DT_BF16;
	if (s->kind != ST_COPY)
		return false;
	bool d_reg = d->mem == MEM_LOCAL, d_f8 = d->dt == DT_E4M3 || d->dt == DT_E5M2;
	return (r->mem == MEM_LOCAL && r->dt == DT_F32 && ((d_mem && d_half) || (d_reg && (d_half || d_f8)))) ||
	       (r_mem && r_half && d_reg && d->dt == DT_F32);
}

static void check_copy(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	/* both regions are checked so that both report their errors */
	bool dst_ok = check_region_of(cx, k, s->dst), src_ok = check_region_of(cx, k, s->src);
	if (!dst_ok || !src_ok)
		return;
	if (!scope_fits(cx, k, s))
		return;
	Region *d = s->dst, *r = s->src;
	if (d->buf->dt != r->buf->dt && !converting_copy_ok(s)) {
		diag_error(cx, r->loc, "dtype mismatch: '%s' is %s but '%s' is %s", d->buf->name, dtype_name(d->buf->dt),
		           r->buf->name, dtype_name(r->buf->dt));
		diag_note(cx, "no converting %s %s -> %s from %s to %s: a copy converts f32 registers (local) to f16 or bf16 "
		          "in global or shared memory or registers, f32 registers to e4m3 or e5m2 registers, and f16 or "
		          "bf16 in global or shared memory to f32 registers",
		          stmt_info[s->kind].keyword, dtype_name(r->buf->dt), dtype_name(d->buf->dt), mem_name(r->buf->mem),
		          mem_name(d->buf->mem));
		return;
	}
	bool to_f8 = d->buf->dt == DT_E4M3 || d->buf->dt == DT_E5M2;
	if (d->buf->dt != r->buf->dt && to_f8 && !target_has(m->target, CAP_SM90)) {
		diag_error(cx, r->loc, "a converting copy f32 -> %s needs target %s (cvt.rn.satfinite.%sx2.f32; target is %s)",
		           dtype_name(d->buf->dt), cap_name(CAP_SM90), dtype_name(d->buf->dt), m->target->name);
		return;
	}
	if (d->buf->dt != r->buf->dt && r->buf->dt == DT_F32 && !target_has(m->target, CAP_SM80)) {
		diag_error(cx, r->loc, "a converting copy f32 -> %s needs target %s (cvt.rn.%sx2.f32; target is %s)",
		           dtype_name(d->buf->dt), cap_name(CAP_SM80), dtype_name(d->buf->dt), m->target->name);
		return;
	}
	int64_t de[MAX_DIMS], re[MAX_DIMS];
	int nd = 0, nr = 0;
	for (int i = 0; i < d->ndim; i++)
		if (d->ext[i] != 1)
			de[nd++] = d->ext[i];
	for (int i = 0; i < r->ndim; i++)
		if (r->ext[i] != 1)
			re[nr++] = r->ext[i];
	if (nd != nr || memcmp(de, re, sizeof(int64_t) * (size_t)nd)) {
		Str a = {0}, b = {0};
		fmt_region_extents(&a, d);
		fmt_region_extents(&b, r);
		diag_error(cx, r->loc, "extent mismatch: destination is %s but source is %s (unit dimensions dropped)", a.s,
		           b.s);
		str_free(&a);
		str_free(&b);
		return;
	}
	if (d->buf->mem == MEM_GLOBAL && r->buf->mem == MEM_GLOBAL) {
		/* allowed: fallback handles it */
	}
	for (int side = 0; side < 2; side++) {
		Region *g = side ? r : d;
		View v;
		const char *why;
		if (!region_view(cx, k, g, &v, &why)) {
			diag_error(cx, g->loc, "region of '%s': %s", g->buf->name, why);
			return;
		}
	}
	if (s->mcast && !target_has(m->target, CAP_MULTICAST)) {
		diag_error(cx, s->mcast_loc, "multicast TMA loads need target %s (target is %s)", cap_name(CAP_MULTICAST),
		           m->target->name);
		diag_note(cx, "ptxas accepts .multicast::cluster elsewhere only with an advisory that it may be much slower "
		          "on future GPUs");
		return;
	}
	if (!check_tma_coords(cx, k, s))
		return;
	check_copy_tma(cx, k, s);
	if (s->dispatch) {
		const Variant *vs[16];
		int n = dispatch_variants(s->kind, vs, 16);
		bool found = false;
		Str names = {0};
		for (int i = 0; i < n; i++) {
			found |= !strcmp(vs[i]->name, s->dispatch);
			str_printf(&names, "%s%s", i ? ", " : "", vs[i]->name);
		}
		if (!found)
			diag_error(cx, s->dispatch_loc, "no variant named '%s' is registered for %s (variants: %s)", s->dispatch,
			           stmt_info[s->kind].keyword, names.s ? names.s : "none");
		str_free(&names);
	}
	(void)m;
}

static void check_dump(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	bool src_ok = check_region_of(cx, k, s->src), dst_ok = check_region_of(cx, k, s->dst);
	if (!src_ok || !dst_ok)
		return;
	Buffer *l = s->src->buf, *p = s->dst->buf;
	if (l->mem != MEM_LOCAL) {
		diag_error(cx, s->src->loc, "dump reads a local buffer; '%s' is %s", l->name, mem_name(l->mem));
		return;
	}
	if (p->mem != MEM_GLOBAL) {
		diag_error(cx, s->dst->loc, "dump writes a param buffer; '%s' is %s", p->name, mem_name(p->mem));
		return;
	}
	if (l->dt != p->dt) {
		diag_error(cx, s->dst->loc, "dtype mismatch: '%s' is %s but '%s' is %s", l->name, dtype_name(l->dt),
		           p->name, dtype_name(p->dt));
		return;
	}
	if (k->grid_y > 1) {
		diag_error(cx, s->loc, "dump needs a 1-D grid (kernel '%s' has grid %lld, %lld)", k->name, (long long)k->grid,
		           (long long)k->grid_y);
		return;
	}
	int64_t need = k->grid * k->threads * l->regs;
	if (l->regs && p->storage < need)
		diag_error(cx, s->dst->loc, "'%s' holds %lld elements; dump needs grid*threads*%lld = %lld", p->name,
		           (long long)p->storage, (long long)l->regs, (long long)need);
}

static void check_stmts(Ctx *cx, const Module *m, Kernel *k, Stmt **body, size_t n);

/* the barriers a runtime-count loop touches: their phase parity at a wait
 * depends on the trip count, so it is tracked at run time (a register of
 * phase bits, flipped at each wait) and the phase proof runs every trip
 * count up to a loop invariant (src/proof/roles.c) */
static void mark_dyn_phase(void *ctx, const Stmt *s)
{
	Kernel *k = ctx;
	if (s->mbar > 0)
		k->mbars[s->mbar - 1].dyn_phase = true;
}

/* the values e can take, over every variable's range (a scalar between its
 * facts, ctaid over the largest grid, a repeat index below its largest
 * count): interval arithmetic, so [lo, hi] holds every value (false: a value
 * may leave 32 bits) */
static bool trip_range(const Kernel *k, const TripExpr *e, int64_t *lo, int64_t *hi)
{
	const int64_t LIM = (int64_t)1 << 31;
	if (e->op == TE_AFFINE) {
		*lo = *hi = e->a.c;
		for (int i = 0; i < e->a.n; i++) {
			const Scalar *sc = kernel_scalar_of_var(k, e->a.t[i].var);
			int64_t vl = sc ? sc->lo : 0, vh = sc ? sc->hi : kernel_var_extent(k, e->a.t[i].var) - 1;
			int64_t c = e->a.t[i].k, a = c * vl, b = c * vh; /* |c| < 2^31 and values < 2^31 (below): no overflow */
			if (c <= -LIM || c >= LIM || vh >= LIM)
				return false;
			*lo += a < b ? a : b;
			*hi += a < b ? b : a;
			if (*lo <= -LIM || *hi >= LIM)
				return false;
		}
		return *lo > -LIM && *hi < LIM;
	}
	int64_t xl, xh, yl = 0, yh = 0;
	if (!trip_range(k, e->x, &xl, &xh) || (e->y && !trip_range(k, e->y, &yl, &yh)))
		return false;
	if (e->op == TE_CDIV) {
		*lo = xl <= 0 ? 0 : (xl + e->d - 1) / e->d;
		*hi = xh <= 0 ? 0 : (xh + e->d - 1) / e->d;
	} else if (e->op == TE_ADD || e->op == TE_SUB) {
		*lo = e->op == TE_ADD ? xl + yl : xl - yh;
		*hi = e->op == TE_ADD ? xh + yh : xh - yl;
		return *lo > -LIM && *hi < LIM;
	} else if (e->op == TE_MIN) {
		*lo = xl < yl ? xl : yl, *hi = xh < yh ? xh : yh;
	} else if (e->op == TE_MUL) { /* a tile walk's factors: counts, at least 0 */
		*lo = xl * yl, *hi = xh * yh;
		return xl >= 0 && yl >= 0 && xh < LIM && yh < LIM && *hi < LIM;
	} else {
		*lo = xl > yl ? xl : yl, *hi = xh > yh ? xh : yh;
	}
	return true;
}

static void check_repeat(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	if (s->trips_expr) { /* the most and the least trips the facts allow */
		int64_t lo, hi;
		if (!trip_range(k, s->trips_expr, &lo, &hi)) {
			diag_error(cx, s->loc, "this repeat count may leave 32 bits (the values the facts allow reach 2^31)");
			diag_note(cx, "bound the scalars it uses (assume S <= N)");
			return;
		}
		s->trips_lo = lo > 0 && !s->across ? lo : 0; /* a CTA past a walk's tiles runs none */
		s->n = hi > 0 ? hi : 1;
		k->var_ext[s->var] = s->n;
		if (s->tile_m)
			check_tiles(cx, k, s);
	}
	if (s->trips_scalar) { /* the largest count the facts allow: the index's range */
		const Scalar *sc = &k->scalars[s->trips_scalar - 1];
		int64_t most = (sc->hi + s->trips_div - 1) / s->trips_div;
		s->n = most > 0 ? most : 1;
		k->var_ext[s->var] = s->n;
		if (!k->var_trips)
			k->var_trips = arena_alloc(cx->arena, sizeof *k->var_trips * (size_t)k->nvars);
		k->var_trips[s->var] = (struct VarTrips){s->trips_scalar, s->trips_div};
	}
	check_stmts(cx, m, k, s->body, s->nbody);
	if (s->tile_m && k->var_walk)
		check_tile_uses(cx, k, s);
	if (stmt_runtime_trips(s))
		stmt_walk(s->body, s->nbody, mark_dyn_phase, k);
}

typedef void (*CheckHook)(Ctx *cx, const Module *m, Kernel *k, Stmt *s);
static const CheckHook check_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) [ST_##kind] = check,
#include "stmt.def"
};

static void check_stmts(Ctx *cx, const Module *m, Kernel *k, Stmt **body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Stmt *s = body[i];
		const StmtInfo *si = &stmt_info[s->kind];
		if (!target_has(m->target, si->cap)) {
			diag_error(cx, s->loc, "%s needs target %s (target is %s)", si->keyword, cap_name(si->cap),
			           m->target->name);
			continue;
		}
		s->warps = k->check_warps;
		int before = cx->diags.errors;
		if (check_hook[s->kind])
			check_hook[s->kind](cx, m, k, s);
		if (s->warps != kernel_all_warps(k) && cx->diags.errors == before)
			check_in_role(cx, k, s);
	}
}

/* when COND { ... }: the block runs in the warps the condition selects among
 * those that reach it (an else block: the others) */
void check_when(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	k->has_roles = true;
	if (k->is_func) {
		diag_error(cx, s->loc, "a when block in a func: roles belong to the kernel");
		return;
	}
	if (k->threads % 32) {
		diag_error(cx, s->loc, "a when block needs whole warps: kernel '%s' has %lld threads", k->name,
		           (long long)k->threads);
		return;
	}
	uint64_t in = 0;
	if (s->else_of) {
		in = s->warps & ~s->else_of->body_warps;
	} else {
		for (int w = 0; w < 64; w++) {
			if (!(s->warps >> w & 1))
				continue;
			bool take = true;
			for (int c = 0; c < s->ncond; c++) {
				const WhenCond *q = &s->cond[c];
				int64_t v = q->var == VAR_WARPID ? w : w / 4;
				switch (q->op) {
				case '<': take &= v < q->value; break;
				case '>': take &= v > q->value; break;
				case 'l': take &= v <= q->value; break;
				case 'g': take &= v >= q->value; break;
				case '=': take &= v == q->value; break;
				default: take &= v != q->value; break;
				}
			}
			if (take)
				in |= (uint64_t)1 << w;
		}
	}
	s->body_warps = in;
	if (!in) {
		diag_error(cx, s->loc, "no warp runs this %s block", s->else_of ? "else" : "when");
		diag_note(cx, "kernel '%s' has warps 0..%lld (warpgroups 0..%lld)%s", k->name, (long long)(k->threads / 32 - 1),
		          (long long)((k->threads + 127) / 128 - 1),
		          s->warps != kernel_all_warps(k) ? ", and only some of them reach this block" : "");
		return;
	}
	uint64_t saved = k->check_warps;
	k->check_warps = in;
	check_stmts(cx, m, k, s->body, s->nbody);
	k->check_warps = saved;
}

/* before the layout of shared memory: buffers a TMA copy may touch get its alignment */
static void mark_tma_shared(void *ctx, const Stmt *s)
{
	const Kernel *k = ctx;
	if (s->kind != ST_COPY_ASYNC)
		return;
	Buffer *d = kernel_find_buffer(k, s->dst->name), *r = kernel_find_buffer(k, s->src->name);
	if (d && r && d->mem == MEM_SHARED && r->tma)
		d->tma_shared = true;
	if (d && r && r->mem == MEM_SHARED && d->tma)
		r->tma_shared = true;
}

/* facts consistent; the grid of cdiv(S, D) at S's largest value */
static bool check_scalars(Ctx *cx, Kernel *k)
{
	for (size_t i = 0; i < k->nscalars; i++) {
		Scalar *sc = &k->scalars[i];
		for (size_t j = 0; j < k->nbufs; j++)
			if (!strcmp(k->bufs[j]->name, sc->name)) {
				diag_error(cx, k->bufs[j]->loc, "'%s' is already declared in kernel '%s' (line %d)", sc->name,
				           k->name, sc->loc.line);
				return false;
			}
		if (sc->lo > sc->hi || sc->hi / sc->mult * sc->mult < sc->lo) {
			diag_error(cx, sc->hi_loc.line ? sc->hi_loc : sc->lo_loc, "the facts about '%s' leave it no value", sc->name);
			diag_note(cx, "%lld <= %s <= %lld and a multiple of %lld", (long long)sc->lo, sc->name, (long long)sc->hi,
			          (long long)sc->mult);
			return false;
		}
	}
	for (int d = 0; d < 2; d++) {
		if (k->grid_var[d] < 0)
			continue;
		const Scalar *sc = kernel_scalar_of_var(k, k->grid_var[d]);
		int64_t g = (sc->hi + k->grid_div[d] - 1) / k->grid_div[d];
		if (d == 1 && g > 65535) {
			diag_error(cx, k->grid_loc, "grid size in y reaches %lld (cdiv(%s, %lld) with %s <= %lld); it is at most "
			           "65535", (long long)g, sc->name, (long long)k->grid_div[d], sc->name, (long long)sc->hi);
			diag_note(cx, "declare 'assume %s <= %lld'", sc->name, (long long)(65535 * k->grid_div[d]));
			return false;
		}
		if (d == 0)
			k->grid = g > 0 ? g : 1;
		else
			k->grid_y = g > 0 ? g : 1;
	}
	return true;
}

/* the module's own facts: the target against the PTX version, a kernel at all */
bool check_module_header(Ctx *cx, Module *m)
{
	if (!m->target)
		return false;
	if (m->ptx_version && m->ptx_version < m->target->min_ptx)
		diag_error(cx, m->ptx_loc, "PTX %d.%d does not support target %s (needs %d.%d or later)", m->ptx_version / 10,
		           m->ptx_version % 10, m->target->name, m->target->min_ptx / 10, m->target->min_ptx % 10);
	if (m->nkernels == 0)
		diag_error(cx, m->target_loc, "no kernel in this file (add 'kernel NAME')");
	return true;
}

/* thread-block clusters: sm_90+, portable size, dividing the grid */
static bool check_cluster(Ctx *cx, const Module *m, const Kernel *k)
{
	int64_t n;
	if (!mul_ok(k->cluster_x, k->cluster_y, &n)) /* each dimension is only known to be >= 1 */
		n = INT64_MAX;
	if (!target_has(m->target, CAP_SM90)) {
		diag_error(cx, k->cluster_loc, "thread-block clusters need target %s (target is %s)",
		           cap_name(CAP_SM90), m->target->name);
		return false;
	}
	if (k->is_func) {
		diag_error(cx, k->cluster_loc, "a func has no cluster: it runs in its caller's CTAs");
		return false;
	}
	if (n > 8) {
		if (n == INT64_MAX)
			diag_error(cx, k->cluster_loc, "a cluster of %lld x %lld CTAs is larger than the portable "
			           "maximum of 8", (long long)k->cluster_x, (long long)k->cluster_y);
		else
			diag_error(cx, k->cluster_loc, "a cluster of %lld CTAs is larger than the portable maximum of 8",
			           (long long)n);
		diag_note(cx, "16 CTAs need CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED on a GPU that "
		          "supports it; tilepx only emits portable clusters");
		return false;
	}
	if (k->grid % k->cluster_x || k->grid_y % k->cluster_y) {
		diag_error(cx, k->cluster_loc, "the grid (%lld, %lld) is not a multiple of the cluster (%lld, %lld)",
		           (long long)k->grid, (long long)k->grid_y, (long long)k->cluster_x,
		           (long long)k->cluster_y);
		diag_note(cx, "the launch tiles the grid with whole clusters in every dimension");
		return false;
	}
	if (k->grid_reversed[0] || k->grid_reversed[1]) {
		diag_error(cx, k->grid_rev_loc, "a reversed grid dimension cannot be tiled by a cluster");
		diag_note(cx, "a cluster's CTAs are consecutive in %%ctaid and cluster_ctarank counts up with it; "
		              "reversed, ctaid would count down inside the cluster");
		return false;
	}
	return true;
}

/* kernel k's declarations: name, threads, params, grid, cluster; false
 * stops its passes (the later ones assume these facts) */
static bool check_kernel_decls(Ctx *cx, const Module *m, size_t i)
{
	Kernel *k = m->kernels[i];
	if (!k->name)
		return false;
	for (size_t j = 0; j < i; j++)
		if (m->kernels[j]->name && !strcmp(m->kernels[j]->name, k->name)) {
			diag_error(cx, k->loc, "kernel '%s' is already defined (line %d)", k->name, m->kernels[j]->loc.line);
			break;
		}
	/* the entry name is emitted as written: '_' alone is not a PTX identifier
	 * and WARP_SZ is PTX's predefined constant. The names tilepx generates
	 * (K$param_N, B$sm, tilepx$dyn, ...: src/emit/abi.c, src/emit/emit.c) hold a '$',
	 * which a .tile name cannot: they never meet a user's. */
	if (!strcmp(k->name, "_") || !strcmp(k->name, "WARP_SZ")) {
		diag_error(cx, k->loc, "kernel name '%s' cannot be a PTX entry name (%s)", k->name,
		           k->name[0] == '_' ? "'_' alone is not an identifier" : "it is a predefined PTX identifier");
		return false;
	}
	if (!k->has_threads) {
		diag_error(cx, k->loc, "kernel '%s' has no 'threads N' statement", k->name);
		return false;
	}
	if (k->threads < 1 || k->threads > 1024) {
		diag_error(cx, k->threads_loc, "threads must be in 1..1024 (got %lld)", (long long)k->threads);
		return false;
	}
	if (!check_scalars(cx, k))
		return false;
	if (!k->is_func && kernel_param_bytes(k) > PARAM_BYTES_MAX) {
		diag_error(cx, k->loc, "the params of kernel '%s' take %lld bytes; a kernel's parameter space holds at "
		           "most %d", k->name, (long long)kernel_param_bytes(k), PARAM_BYTES_MAX);
		diag_note(cx, "%d pointers (8 bytes each), %zu scalars, %d tensor maps (128 bytes each)", k->nparams,
		          k->nscalars, k->ntmaps);
		return false;
	}
	if (!k->is_func && kernel_param_bytes(k) > PARAM_BYTES_OLD && m->ptx_version &&
	    m->ptx_version < PARAM_BYTES_PTX) {
		diag_error(cx, k->loc, "the params of kernel '%s' take %lld bytes, more than the %d of PTX %d.%d (8.1 "
		           "allows %d)", k->name, (long long)kernel_param_bytes(k), PARAM_BYTES_OLD, m->ptx_version / 10,
		           m->ptx_version % 10, PARAM_BYTES_MAX);
		return false;
	}
	if (k->grid < 1 || k->grid > 0x7fffffff) {
		diag_error(cx, k->grid_loc, "grid must be in 1..2147483647 (got %lld)", (long long)k->grid);
		return false;
	}
	if (k->grid_y < 1 || k->grid_y > 65535) {
		diag_error(cx, k->grid_loc, "grid size in y must be in 1..65535 (got %lld)", (long long)k->grid_y);
		return false;
	}
	if (k->cluster_x && !check_cluster(cx, m, k))
		return false;
	if (k->uses_crank && (k->is_func || !target_has(m->target, CAP_SM90))) {
		diag_error(cx, k->crank_loc, "kernel '%s' uses cluster_ctarank, which %s", k->name,
		           k->is_func ? "a func cannot use (pass the rank as an arg)"
		                      : "needs target sm_90 or newer");
		return false;
	}
	if (k->is_extern && k->nbody) {
		diag_error(cx, k->body[0]->loc, "kernel '%s' is extern (its body is linked PTX) and has no statements",
		           k->name);
		return false;
	}
	if (k->is_func)
		for (size_t b = 0; b < k->nbufs; b++)
			if (k->bufs[b]->mem == MEM_TMEM) {
				diag_error(cx, k->bufs[b]->loc, "a func cannot allocate tensor memory ('%s')", k->bufs[b]->name);
				break;
			}
	return true;
}

/* kernel k's buffers: shapes, layouts, params with tensor maps; each shared
 * buffer gets its offset here, as its limit is checked */
static void check_kernel_buffers(Ctx *cx, const Module *m, Kernel *k, int64_t *shared_bytes)
{
	stmt_walk(k->body, k->nbody, mark_tma_shared, k);
	for (size_t b = 0; b < k->nbufs; b++)
		check_buffer(cx, m, k, k->bufs[b], shared_bytes);
}

/* the "check" pass of kernel i: its declarations and buffers */
bool check_kernel(Ctx *cx, const Module *m, size_t i, int64_t *shared_bytes)
{
	Kernel *k = m->kernels[i];
	if (!check_kernel_decls(cx, m, i))
		return false;
	int before = cx->diags.errors;
	*shared_bytes = 0;
	check_kernel_buffers(cx, m, k, shared_bytes);
	return cx->diags.errors == before;
}

/* the "statements" pass: every statement's own checks (operands, regions,
 * scopes, roles), then the roles' register budgets */
bool check_kernel_stmts(Ctx *cx, const Module *m, Kernel *k)
{
	int before = cx->diags.errors;
	k->check_warps = kernel_all_warps(k);
	check_stmts(cx, m, k, k->body, k->nbody);
	if (cx->diags.errors == before && k->has_roles)
		check_role_budgets(cx, m, k);
	return cx->diags.errors == before;
}
