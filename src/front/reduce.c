/* reduce.max|min|sum DST, SRC (docs/language.md, "Reductions"): the
 * dimensions where DST has extent 1 and SRC not are reduced, in f32. The
 * lowering comes from the two layouts, decided exactly by enumerating the
 * owner group's threads and registers: each thread chains the registers that
 * hold one DST element (increasing register index), then the lanes combine
 * with shfl.sync.bfly over the thread-index bits the reduced dimensions
 * occupy (lowest bit first), then the warps through shared memory: every
 * thread writes its partials, a barrier, every thread reads its partner
 * warps' and combines them by warp bit (lowest first), a barrier. Every copy
 * of DST must land in a thread that holds the whole result, and every such
 * thread must hold a copy. The parse and check hooks; emit_reduce is
 * src/emit/reduce_emit.c. */
#include "lower.h"
#include "parse.h"
#include "reduce_plan.h"

#include <stdlib.h>
#include <string.h>

bool parse_reduce(Parser *p, Stmt *s)
{
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	s->src = arena_alloc(p->cx->arena, sizeof(Region));
	if (!parse_region(p, s->dst) || !expect_punct(p, ',', "between the destination and the source") ||
	    !parse_region(p, s->src))
		return false;
	if (is_ident(p, "tree")) { /* a schedule choice: max and min give the same result in any order */
		if (s->kind == ST_REDUCE_SUM) {
			p->line_failed = true;
			diag_error(p->cx, p->tok.loc, "'tree' is an order of reduce.max and reduce.min; a sum is "
			                              "always a chain (its order is its meaning)");
			return false;
		}
		s->red_tree = true;
		next(p);
	}
	return true;
}

/* the enumeration behind a plan: for owner-group thread t and SRC register
 * r, the DST element (kept coordinates) and the reduced coordinates of the
 * SRC element it holds (-1: none); DST registers per thread and element */
typedef struct RedScan {
	int64_t T, RS, nk, nj;
	int64_t *kof, *jof; /* [T * RS] */
	int64_t *dof;       /* [T * nk] */
	uint64_t *cover;    /* [T * nslot * words]: reduced coordinates a slot has combined */
	int64_t words;
} RedScan;

static void scan_free(RedScan *sc)
{
	free(sc->kof);
	free(sc->jof);
	free(sc->dof);
	free(sc->cover);
}

/* the buffer index of region element x (row-major over the region's
 * extents) and its coordinates relative to the region's start */
static int64_t region_flat(const Region *r, int64_t x, int64_t *rel)
{
	const Buffer *b = r->buf;
	for (int d = r->ndim - 1; d >= 0; d--) {
		rel[d] = x % r->ext[d];
		x /= r->ext[d];
	}
	int64_t flat = 0;
	for (int d = 0; d < b->ndim; d++)
		flat = flat * b->shape[d] + (r->whole || r->all[d] ? 0 : r->begin[d].c) + rel[d];
	return flat;
}

static int64_t elems_of(const Region *r)
{
	int64_t n = 1;
	for (int d = 0; d < r->ndim; d++)
		n *= r->ext[d];
	return n;
}

/* DST region element kx as the buffer's coordinates, "M[3, 0]" */
static const char *elem_name(Arena *ar, const Region *d, int64_t kx)
{
	int64_t rel[MAX_DIMS];
	region_flat(d, kx, rel);
	Str s = {0};
	str_printf(&s, "%s[", d->buf->name);
	for (int q = 0; q < d->ndim; q++)
		str_printf(&s, "%s%lld", q ? ", " : "", (long long)((d->whole || d->all[q] ? 0 : d->begin[q].c) + rel[q]));
	str_putc(&s, ']');
	const char *r = arena_strndup(ar, s.s ? s.s : "", s.n);
	str_free(&s);
	return r;
}

static void fmt_layout_note(Ctx *cx, const Buffer *b)
{
	Str s = {0};
	lay_format(&b->layout, &s);
	diag_note(cx, "'%s' has layout %s (owned per %s)", b->name, s.s ? s.s : "", scope_name(b->owner));
	str_free(&s);
}

/* the operands: local buffers, DST f32 and not SRC, SRC f32/f16/bf16 and
 * not replicated, one owner, constant starts, the same rank and extents
 * except reduced dimensions (DST 1, SRC more); *reduced marks them */
static bool check_operands(Ctx *cx, const Stmt *s, bool *reduced)
{
	const Region *d = s->dst, *r = s->src;
	const Buffer *db = d->buf, *sb = r->buf;
	const char *kw = stmt_info[s->kind].keyword;
	for (int i = 0; i < 2; i++) {
		const Region *x = i ? r : d;
		if (x->buf->mem != MEM_LOCAL) {
			diag_error(cx, x->loc, "%s reduces registers; '%s' is %s, not local", kw, x->buf->name,
			           x->buf->mem == MEM_GLOBAL ? "a param" : mem_name(x->buf->mem));
			return false;
		}
		for (int k = 0; k < x->ndim; k++)
			if (!x->whole && !x->all[k] && !affine_is_const(&x->begin[k])) {
				diag_error(cx, x->dim_loc[k], "%s takes constant regions (registers are named at compile time)", kw);
				return false;
			}
	}
	if (db == sb) {
		diag_error(cx, d->loc, "%s writes '%s' while reading it; reduce into another buffer", kw, db->name);
		return false;
	}
	if (db->dt != DT_F32) {
		diag_error(cx, d->loc, "%s produces f32; '%s' is %s (convert it afterwards)", kw, db->name, dtype_name(db->dt));
		return false;
	}
	if (sb->dt != DT_F32 && sb->dt != DT_F16 && sb->dt != DT_BF16) {
		diag_error(cx, r->loc, "%s reads f32, f16 or bf16; '%s' is %s", kw, sb->name, dtype_name(sb->dt));
		return false;
	}
	if (sb->layout.nrep) {
		diag_error(cx, r->loc, "the source of %s is replicated ('+ R[...]'); reduce a tile whose elements each live "
		           "in one thread", kw);
		return false;
	}
	if (db->owner != sb->owner) {
		diag_error(cx, d->loc, "'%s' is owned per %s but '%s' per %s; %s needs one owner group", db->name,
		           scope_name(db->owner), sb->name, scope_name(sb->owner), kw);
		return false;
	}
	if (d->ndim != r->ndim) {
		diag_error(cx, d->loc, "%s needs DST of SRC's rank (%d), '%s' has %d", kw, r->ndim, db->name, d->ndim);
		return false;
	}
	bool any = false;
	for (int k = 0; k < d->ndim; k++) {
		reduced[k] = d->ext[k] == 1 && r->ext[k] != 1;
		any |= reduced[k];
		if (!reduced[k] && d->ext[k] != r->ext[k]) {
			diag_error(cx, d->dim_loc[k].line ? d->dim_loc[k] : d->loc,
			           "shape mismatch in dimension %d: DST has %lld, SRC %lld (a kept dimension matches; a reduced "
			           "one has extent 1 in DST)", k, (long long)d->ext[k], (long long)r->ext[k]);
			return false;
		}
	}
	if (!any) {
		diag_error(cx, d->loc, "%s: no dimension to reduce (DST's extent 1 where SRC's is not marks one)", kw);
		return false;
	}
	return true;
}

/* SRC's elements per (thread, register): kept index over DST's extents and
 * reduced index over the reduced extents; DST's registers per (thread, kept
 * index), every replica */
static bool scan_elements(const Kernel *k, const Stmt *s, const bool *reduced, RedScan *sc)
{
	const Region *d = s->dst, *r = s->src;
	sc->T = scope_threads(r->buf->owner, k->threads);
	sc->RS = r->buf->regs;
	sc->nk = elems_of(d);
	sc->nj = elems_of(r) / sc->nk;
	if (sc->T * sc->RS > ENUM_LIMIT || sc->T * sc->nk > ENUM_LIMIT)
		return false;
	sc->kof = malloc(sizeof(int64_t) * (size_t)(sc->T * sc->RS));
	sc->jof = malloc(sizeof(int64_t) * (size_t)(sc->T * sc->RS));
	sc->dof = malloc(sizeof(int64_t) * (size_t)(sc->T * sc->nk));
	if (!sc->kof || !sc->jof || !sc->dof)
		return false;
	memset(sc->kof, 0xff, sizeof(int64_t) * (size_t)(sc->T * sc->RS));
	memset(sc->dof, 0xff, sizeof(int64_t) * (size_t)(sc->T * sc->nk));
	for (int64_t x = 0; x < elems_of(r); x++) {
		int64_t rel[MAX_DIMS], at[AX_COUNT], kx = 0, jx = 0;
		lay_apply_flat(&r->buf->layout, region_flat(r, x, rel), at);
		for (int q = 0; q < r->ndim; q++) {
			kx = kx * d->ext[q] + (reduced[q] ? 0 : rel[q]);
			jx = jx * (reduced[q] ? r->ext[q] : 1) + (reduced[q] ? rel[q] : 0);
		}
		int64_t t = lay_thread_of(at);
		if (t >= sc->T || at[AX_M] >= sc->RS)
			return false;
		sc->kof[t * sc->RS + at[AX_M]] = kx;
		sc->jof[t * sc->RS + at[AX_M]] = jx;
	}
	for (int64_t x = 0; x < sc->nk; x++) {
		int64_t rel[MAX_DIMS], at0[AX_COUNT];
		lay_apply_flat(&d->buf->layout, region_flat(d, x, rel), at0);
		for (int64_t rep = 0; rep < lay_replicas(&d->buf->layout); rep++) {
			int64_t at[AX_COUNT];
			memcpy(at, at0, sizeof at);
			lay_add_replica(&d->buf->layout, rep, at);
			if (lay_thread_of(at) >= sc->T)
				return false;
			sc->dof[lay_thread_of(at) * sc->nk + x] = at[AX_M];
		}
	}
	return true;
}

/* slots from thread 0's registers (grouped by DST element, ordered by their
 * lowest register), then every thread must group its registers the same */
static bool plan_slots(Ctx *cx, const Stmt *s, RedScan *sc, RedPlan *rp, Arena *ar)
{
	int64_t RS = sc->RS, n = 0;
	int *slot_of = arena_alloc(ar, sizeof(int) * (size_t)(RS + 1));
	int64_t *key = arena_alloc(ar, sizeof(int64_t) * (size_t)(RS + 1));
	rp->first = arena_alloc(ar, sizeof(int) * (size_t)(RS + 1));
	rp->count = arena_alloc(ar, sizeof(int) * (size_t)(RS + 1));
	rp->regs = arena_alloc(ar, sizeof(int64_t) * (size_t)(RS + 1));
	rp->nslot = 0;
	for (int64_t r = 0; r < RS; r++) {
		if (sc->kof[r] < 0)
			continue;
		int g = 0;
		while (g < rp->nslot && key[g] != sc->kof[r])
			g++;
		if (g == rp->nslot)
			key[rp->nslot++] = sc->kof[r];
		slot_of[r] = g;
		rp->count[g]++;
		n++;
	}
	for (int g = 0, at = 0; g < rp->nslot; at += rp->count[g++])
		rp->first[g] = at;
	int *fill = arena_alloc(ar, sizeof(int) * (size_t)(rp->nslot + 1));
	for (int64_t r = 0; r < RS; r++)
		if (sc->kof[r] >= 0)
			rp->regs[rp->first[slot_of[r]] + fill[slot_of[r]]++] = r;
	bool ok = n > 0;
	for (int64_t t = 1; t < sc->T && ok; t++)
		for (int64_t r = 0; r < RS && ok; r++) {
			int64_t k0 = sc->kof[t * RS + r];
			ok = (k0 < 0) == (sc->kof[r] < 0);
			for (int64_t q = 0; q < r && ok; q++) /* same DST element exactly when thread 0's are */
				if (sc->kof[q] >= 0 && k0 >= 0)
					ok = (sc->kof[t * RS + q] == k0) == (slot_of[q] == slot_of[r]);
			if (!ok && cx) {
				diag_error(cx, s->src->loc, "threads 0 and %lld group the elements of '%s' into DST elements "
				           "differently (register %lld); %s needs every thread of the %s to hold its rows alike",
				           (long long)t, s->src->buf->name, (long long)r, stmt_info[s->kind].keyword,
				           scope_name(s->src->buf->owner));
				fmt_layout_note(cx, s->src->buf);
			}
		}
	if (n == 0 && cx)
		diag_error(cx, s->src->loc, "thread 0 holds none of the elements of '%s'", s->src->buf->name);
	return ok;
}

static uint64_t *cover_of(RedScan *sc, int nslot, int64_t t, int g)
{
	return sc->cover + (t * nslot + g) * sc->words;
}

/* does thread-index bit b combine slot g of every thread with its partner's
 * (same DST element, disjoint reduced coordinates)? */
static bool is_butterfly(RedScan *sc, const RedPlan *rp, int b)
{
	for (int64_t t = 0; t < sc->T; t++) {
		int64_t p = t ^ ((int64_t)1 << b);
		if (p >= sc->T)
			return false;
		for (int g = 0; g < rp->nslot; g++) {
			int64_t r0 = rp->regs[rp->first[g]];
			if (sc->kof[t * sc->RS + r0] != sc->kof[p * sc->RS + r0])
				return false;
			const uint64_t *a = cover_of(sc, rp->nslot, t, g), *c = cover_of(sc, rp->nslot, p, g);
			for (int64_t w = 0; w < sc->words; w++)
				if (a[w] & c[w])
					return false;
		}
	}
	return true;
}

/* the shuffle bits: simulate the combination exactly (which reduced
 * coordinates each slot of each thread holds), lane bits lowest first; a
 * bit that would combine across warps is an error, and every slot must end
 * with all of its row */
static bool plan_bits(Ctx *cx, const Stmt *s, RedScan *sc, RedPlan *rp)
{
	sc->words = (sc->nj + 63) / 64;
	if (sc->T * rp->nslot > ENUM_LIMIT / sc->words)
		return false;
	sc->cover = calloc((size_t)(sc->T * rp->nslot * sc->words), sizeof(uint64_t));
	if (!sc->cover)
		return false;
	for (int64_t t = 0; t < sc->T; t++)
		for (int g = 0; g < rp->nslot; g++)
			for (int i = 0; i < rp->count[g]; i++) {
				int64_t j = sc->jof[t * sc->RS + rp->regs[rp->first[g] + i]];
				cover_of(sc, rp->nslot, t, g)[j / 64] |= (uint64_t)1 << (j % 64);
			}
	rp->nbits = rp->nwbits = 0;
	for (int b = 0; ((int64_t)1 << b) < sc->T; b++) {
		if (!is_butterfly(sc, rp, b))
			continue;
		for (int64_t t = 0; t < sc->T; t++) /* t < partner: both become the union */
			for (int g = 0; g < rp->nslot && !(t >> b & 1); g++) {
				uint64_t *a = cover_of(sc, rp->nslot, t, g), *c = cover_of(sc, rp->nslot, t | (1 << b), g);
				for (int64_t w = 0; w < sc->words; w++)
					a[w] = c[w] = a[w] | c[w];
			}
		if (b < 5)
			rp->bits[rp->nbits++] = 1 << b;
		else
			rp->wbits[rp->nwbits++] = b;
	}
	for (int64_t t = 0; t < sc->T; t++)
		for (int g = 0; g < rp->nslot; g++) {
			int64_t have = 0;
			for (int64_t w = 0; w < sc->words; w++)
				have += __builtin_popcountll(cover_of(sc, rp->nslot, t, g)[w]);
			if (have != sc->nj) {
				if (cx) {
					diag_error(cx, s->src->loc, "thread %lld ends with %lld of the %lld elements its row reduces: "
					           "'%s' spreads a row over threads that no butterfly of lanes combines",
					           (long long)t, (long long)have, (long long)sc->nj, s->src->buf->name);
					fmt_layout_note(cx, s->src->buf);
				}
				return false;
			}
		}
	return true;
}

/* DST: every copy in a thread that ends with its row, every such thread
 * holding a copy, in one register per slot for all threads */
static bool plan_dst(Ctx *cx, const Stmt *s, RedScan *sc, RedPlan *rp, Arena *ar)
{
	const Buffer *db = s->dst->buf;
	rp->dst = arena_alloc(ar, sizeof(int64_t) * (size_t)(rp->nslot + 1));
	for (int64_t t = 0; t < sc->T; t++) {
		for (int g = 0; g < rp->nslot; g++) {
			int64_t kx = sc->kof[t * sc->RS + rp->regs[rp->first[g]]], reg = sc->dof[t * sc->nk + kx];
			if (reg < 0 || (t > 0 && reg != rp->dst[g])) {
				if (cx) {
					diag_error(cx, s->dst->loc, reg < 0 ? "thread %lld ends with the reduction into %s but holds no "
					           "copy of it (replicate '%s' over the threads of its row)"
					           : "thread %lld holds %s in another register than thread 0 holds its row's result (in "
					           "'%s')", (long long)t, elem_name(cx->arena, s->dst, kx), db->name);
					fmt_layout_note(cx, db);
					fmt_layout_note(cx, s->src->buf);
				}
				return false;
			}
			rp->dst[g] = reg;
		}
		for (int64_t kx = 0; kx < sc->nk; kx++) {
			bool held = sc->dof[t * sc->nk + kx] < 0;
			for (int g = 0; g < rp->nslot && !held; g++)
				held = sc->kof[t * sc->RS + rp->regs[rp->first[g]]] == kx;
			if (!held) {
				if (cx) {
					diag_error(cx, s->dst->loc, "a copy of %s is in thread %lld, which holds none of the elements "
					           "it reduces (DST is not colocated with SRC's rows)", elem_name(cx->arena, s->dst, kx),
					           (long long)t);
					fmt_layout_note(cx, db);
					fmt_layout_note(cx, s->src->buf);
				}
				return false;
			}
		}
	}
	return true;
}

/* the whole plan; cx NULL: no diagnostics (emission, after check passed) */
bool reduce_plan(Ctx *cx, Arena *ar, const Kernel *k, const Stmt *s, RedPlan *rp)
{
	bool reduced[MAX_DIMS];
	if (cx && !check_operands(cx, s, reduced))
		return false;
	for (int q = 0; q < s->dst->ndim; q++)
		reduced[q] = s->dst->ext[q] == 1 && s->src->ext[q] != 1;
	RedScan sc = {0};
	int before = cx ? cx->diags.errors : 0;
	bool ok = scan_elements(k, s, reduced, &sc) && plan_slots(cx, s, &sc, rp, ar) && plan_bits(cx, s, &sc, rp) &&
	          plan_dst(cx, s, &sc, rp, ar);
	scan_free(&sc);
	if (!ok && cx && cx->diags.errors == before) /* every refusal is reported */
		diag_error(cx, s->loc, "%s: the owner group's threads x registers are too many to plan exactly (or out "
		           "of memory)", stmt_info[s->kind].keyword);
	return ok;
}

/* in a when block, the warps that run it must be whole owner instances
 * (each instance's result comes from all of its threads) */
static bool whole_owners(Ctx *cx, const Kernel *k, const Stmt *s)
{
	Scope o = s->src->buf->owner;
	int per = o == SC_WARPGROUP ? 4 : o == SC_CTA ? 64 : 1;
	uint64_t all = kernel_all_warps(k), w = s->warps ? s->warps : all;
	for (int g = 0; per > 1 && g < 64; g += per) {
		uint64_t inst = (per == 64 ? all : (uint64_t)0xf << g) & all;
		if ((w & inst) && (w & inst) != inst) {
			diag_error(cx, s->loc, "%s runs in only some warps of a %s, but '%s' is owned per %s: the warps that "
			           "run it must hold whole instances", stmt_info[s->kind].keyword, scope_name(o),
			           s->src->buf->name, scope_name(o));
			return false;
		}
	}
	return true;
}

/* a named barrier of the program in 12..15 in some warp that runs it (an
 * id from wgid too), the ids a warpgroup's reduce over warps takes */
static void find_high_bar(void *ctx, const Stmt *s)
{
	const Stmt **found = ctx;
	if (*found || (s->kind != ST_NBAR_SYNC && s->kind != ST_NBAR_ARRIVE))
		return;
	for (int w = 0; w < 64; w++)
		if ((s->warps >> w & 1) && nbar_id_at(s, w) >= RED_BAR_ID) {
			*found = s;
			return;
		}
}

/* the largest id a named barrier statement takes in the warps that run it */
static int64_t max_bar_id(const Stmt *s)
{
	int64_t id = 0;
	for (int w = 0; w < 64; w++)
		if ((s->warps >> w & 1) && nbar_id_at(s, w) > id)
			id = nbar_id_at(s, w);
	return id;
}

/* a reduce over warps: its barrier, and the scratch words it needs */
static void check_over_warps(Ctx *cx, Kernel *k, Stmt *s, const RedPlan *rp)
{
	const char *kw = stmt_info[s->kind].keyword;
	Scope o = s->src->buf->owner;
	if (k->is_func) {
		diag_error(cx, s->loc, "%s combines warps here (thread-index bit %d), which takes shared memory and a "
		           "barrier; a func has neither of its own", kw, rp->wbits[0]);
		return;
	}
	if (o == SC_WARPGROUP) {
		const Stmt *bar = NULL;
		stmt_walk(k->body, k->nbody, find_high_bar, &bar);
		if (bar) {
			diag_error(cx, bar->loc, "named barrier %lld is one that %s over a warpgroup's warps uses (barriers "
			           "%d..15, one per warpgroup): take an id below %d", (long long)max_bar_id(bar), kw,
			           RED_BAR_ID, RED_BAR_ID);
			diag_note(cx, "the %s at line %d combines the warps of each warpgroup", kw, s->loc.line);
			return;
		}
	}
	s->red_bar = o == SC_CTA ? RED_BAR_CTA : RED_BAR_WG;
	int64_t bytes = 4 * k->threads * rp->nslot;
	if (bytes > k->red_scratch)
		k->red_scratch = bytes;
}

void check_reduce(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (!check_region_of(cx, k, s->dst) || !check_region_of(cx, k, s->src))
		return;
	if (s->src->buf->mem == MEM_LOCAL && !whole_owners(cx, k, s))
		return;
	RedPlan *rp = arena_alloc(cx->arena, sizeof *rp);
	if (!reduce_plan(cx, cx->arena, k, s, rp))
		return;
	plan_keep(cx, k, s, rp); /* kept for emission (emit_reduce) */
	if (rp->nwbits)
		check_over_warps(cx, k, s, rp);
}
