/* red.add | red.max DST, SRC (docs/language.md, "Global reductions: red"):
 * every element of a local tile combined into a global region with
 * red.global atomics. The checks: a local f32 source, a global f32
 * destination, matching extents, and no other access to the destination's
 * param in the kernel (other CTAs' atomics land at any time during the
 * launch: a plain read or write of the same param races with them, and
 * there is no grid-wide barrier to order it). Lowering: src/variants/red.c. */
#include "tilepx.h"

#include <string.h>

static bool red_scope_fits(Ctx *cx, const Kernel *k, const Stmt *s)
{
	int64_t need = s->scope == SC_WARP ? 32 : s->scope == SC_WARPGROUP ? 128 : 1;
	if (k->threads % need == 0)
		return true;
	diag_error(cx, s->loc, "%s scope needs a multiple of %lld threads, but kernel '%s' has %lld",
	           scope_name(s->scope), (long long)need, k->name, (long long)k->threads);
	return false;
}

/* the extents once unit dimensions are dropped */
static int kept_extents(const Region *r, int64_t *e)
{
	int n = 0;
	for (int i = 0; i < r->ndim; i++)
		if (r->ext[i] != 1)
			e[n++] = r->ext[i];
	return n;
}

static bool red_operands_ok(Ctx *cx, const Module *m, const Stmt *s)
{
	const char *kw = stmt_info[s->kind].keyword;
	const Buffer *d = s->dst->buf, *r = s->src->buf;
	if (d->mem != MEM_GLOBAL) {
		diag_error(cx, s->dst->loc, "%s accumulates into global memory (a param); '%s' is %s", kw, d->name,
		           mem_name(d->mem));
		diag_note(cx, "within a CTA, combine in registers (reduce.sum, reduce.max) or through shared memory "
		          "with copies and sync");
		return false;
	}
	if (r->mem != MEM_LOCAL) {
		diag_error(cx, s->src->loc, "%s reads a local (register) tile; '%s' is %s", kw, r->name, mem_name(r->mem));
		diag_note(cx, "copy the tile into a local buffer first");
		return false;
	}
	bool half = s->kind == ST_RED_ADD && (d->dt == DT_F16 || d->dt == DT_BF16);
	if ((d->dt != DT_F32 && !half) || r->dt != DT_F32) {
		const Buffer *w = d->dt != DT_F32 && !half ? d : r;
		diag_error(cx, w == d ? s->dst->loc : s->src->loc, "%s of %s has no atomic form here: '%s' is %s", kw,
		           dtype_name(w->dt), w->name, dtype_name(w->dt));
		diag_note(cx, "red.add and red.max combine an f32 local tile into an f32 param (red.global.add.f32, "
		          "red.global.max.s32 / min.u32 on the bit pattern); red.add also into an f16 or bf16 param "
		          "(red.global.add.noftz.f16x2 / bf16x2)");
		return false;
	}
	if (d->dt == DT_BF16 && !target_has(m->target, CAP_SM90)) {
		diag_error(cx, s->dst->loc, "red.add into bf16 needs target %s (red.global.add.noftz.bf16x2; target is %s)",
		           cap_name(CAP_SM90), m->target->name);
		return false;
	}
	int64_t de[MAX_DIMS], re[MAX_DIMS];
	int nd = kept_extents(s->dst, de), nr = kept_extents(s->src, re);
	if (nd && (nd != nr || memcmp(de, re, sizeof(int64_t) * (size_t)nd))) {
		diag_error(cx, s->src->loc, "extent mismatch: the %s destination and source differ (unit dimensions dropped)",
		           kw);
		diag_note(cx, "the destination has the source's extents (element for element) or is one element (every "
		          "source element combined into it)");
		return false;
	}
	return true;
}

/* the first statement other than a red of the same op that names buffer
 * b (asm blocks are the program's own: unchecked, as everywhere) */
typedef struct RedUse {
	const Buffer *b;
	StmtKind kind;
	const Stmt *hit, *cur, *first_red; /* the first red into b: the one that reports */
} RedUse;

static void use_region(void *ctx, const Region *r, bool write)
{
	(void)write;
	RedUse *u = ctx;
	if (!u->hit && r->name && !strcmp(r->name, u->b->name)) /* by name: later statements are not resolved yet */
		u->hit = u->cur;
}

static void find_use(void *ctx, const Stmt *s)
{
	RedUse *u = ctx;
	bool red = s->kind == ST_RED_ADD || s->kind == ST_RED_MAX;
	if (red && !u->first_red && s->dst->name && !strcmp(s->dst->name, u->b->name))
		u->first_red = s;
	if (u->hit || s->kind == u->kind || s->asm_blk)
		return;
	u->cur = s;
	stmt_regions(s, use_region, u);
}

void check_red(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	bool dst_ok = check_region_of(cx, k, s->dst), src_ok = check_region_of(cx, k, s->src);
	if (!dst_ok || !src_ok || !red_scope_fits(cx, k, s) || !red_operands_ok(cx, m, s))
		return;
	for (int side = 0; side < 2; side++) {
		View v;
		const char *why;
		Region *g = side ? s->src : s->dst;
		if (!region_view(cx, k, g, &v, &why)) {
			diag_error(cx, g->loc, "region of '%s': %s", g->buf->name, why);
			return;
		}
	}
	RedUse u = {.b = s->dst->buf, .kind = s->kind};
	stmt_walk(k->body, k->nbody, find_use, &u);
	if (!u.hit || u.first_red != s)
		return;
	bool other_red = u.hit->kind == ST_RED_ADD || u.hit->kind == ST_RED_MAX;
	diag_error(cx, u.hit->loc, "'%s' is the destination of the %s at line %d: %s", s->dst->buf->name,
	           stmt_info[s->kind].keyword, s->loc.line,
	           other_red ? "two reduction ops on one param do not commute"
	                     : "this access races with the atomics of other threads and CTAs");
	diag_note(cx, "a reduction's param is written only by reductions of one op during the launch (no grid-wide "
	          "barrier orders a plain access after them); read it in a later launch");
}
