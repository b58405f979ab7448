/* swizzle auto: each shared buffer declared 'swizzle auto' gets, of the
 * candidate swizzles under which every copy of it still slices and finds a
 * variant, the one whose copies take the fewest wavefronts (copy_banks): a
 * search over the dispatch's decisions. */
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>

typedef struct Uses {
	const Buffer *b;
	const Stmt **s;
	size_t n, cap;
	Arena *arena;
} Uses;

static void collect_uses(void *ctx, const Stmt *s)
{
	Uses *u = ctx;
	if ((stmt_info[s->kind].flags & SF_COPY) && (s->dst->buf == u->b || s->src->buf == u->b))
		APUSH(u->arena, u->s, u->n, u->cap, s);
}

/* a TMA copy of param g with a shared buffer other than b whose TMA swizzle is not swz */
static const Stmt *tma_other(const Ctx *cx, Stmt **body, size_t n, const Buffer *g, const Buffer *b, int swz)
{
	for (size_t i = 0; i < n; i++) {
		const Stmt *s = body[i];
		if (stmt_info[s->kind].flags & SF_BLOCK) {
			const Stmt *o = tma_other(cx, s->body, s->nbody, g, b, swz);
			if (o)
				return o;
		}
		if (!stmt_is_tma_load(s) && !stmt_is_tma_store(s))
			continue;
		const Region *gr = stmt_is_tma_load(s) ? s->src : s->dst, *sr = stmt_is_tma_load(s) ? s->dst : s->src;
		if (gr->buf == g && sr->buf != b && tma_swizzle_bytes(buffer_swizzle(cx, sr->buf), sr->buf->dt) != swz)
			return s;
	}
	return NULL;
}

/* is candidate c legal for b, and its wavefronts over every copy of b: the
 * copies are lowered with c in b's record (ch), the buffer unchanged */
static void try_swizzle(Ctx *cx, const Module *m, Kernel *k, const Buffer *b, const Uses *u, SwizzleChoice *ch,
                        SwCand *c)
{
	c->legal = true;
	c->wavefronts = c->ideal = 0;
	if (c->sw.on) {
		int64_t block = (int64_t)1 << (c->sw.p + c->sw.w);
		if ((b->max_off + block) / block * block > b->storage) {
			c->legal = false;
			c->why = arena_printf(cx->arena, "its blocks of %lld elements pass the storage of %lld", (long long)block,
			                      (long long)b->storage);
			return;
		}
	}
	ch->sw = c->sw;
	for (size_t i = 0; i < u->n; i++) {
		const Stmt *s = u->s[i];
		if (stmt_is_tma_load(s) || stmt_is_tma_store(s)) {
			const Region *g = stmt_is_tma_load(s) ? s->src : s->dst;
			int64_t inner = dtype_bytes(g->buf->dt) * (g->whole ? g->buf->shape[g->buf->ndim - 1]
			                                                     : g->ext[g->buf->ndim - 1]);
			int swz = tma_swizzle_bytes(c->sw, b->dt);
			if (swz > 0 && inner != swz) {
				c->legal = false;
				c->why = arena_printf(cx->arena, "the TMA copy at line %d moves rows of %lld bytes, not %d",
				                      s->loc.line, (long long)inner, swz);
				return;
			}
			const Stmt *o = tma_other(cx, k->body, k->nbody, g->buf, b, swz);
			if (o) { /* one tensor map, one swizzle */
				c->legal = false;
				c->why = arena_printf(cx->arena, "tensor map '%s' is also used at line %d with another swizzle",
				                      g->buf->name, o->loc.line);
				return;
			}
		}
		CopyOp op;
		Decision d;
		int before = cx->diags.errors;
		if (!copy_op_init(cx, m, k, s, &op) || cx->diags.errors != before) {
			c->legal = false;
			c->why = "a region does not slice";
			return;
		}
		if (!dispatch_copy(&op, &d, false)) {
			c->legal = false;
			c->why = arena_printf(cx->arena, "no variant lowers the copy at line %d", s->loc.line);
			return;
		}
		BankStat bs[2];
		int n = copy_banks(&op, &d, bs);
		for (int j = 0; j < n; j++)
			if (bs[j].buf == b) {
				c->wavefronts += bs[j].wavefronts;
				c->ideal += bs[j].ideal;
			}
	}
}

void resolve_auto_swizzle(Ctx *cx, const Module *m, Kernel *k)
{
	for (size_t i = 0; i < k->nbufs; i++) {
		Buffer *b = k->bufs[i];
		if (!b->sw_auto || b->mem != MEM_SHARED)
			continue;
		Uses u = {.b = b, .arena = cx->arena};
		stmt_walk(k->body, k->nbody, collect_uses, &u);
		/* none, then the 32-, 64- and 128-byte swizzles of 16-byte chunks
		 * (TMA's: chunk bits [4, 4+W) XOR address bits [7, 7+W)) */
		int e = 0;
		while ((1 << e) < dtype_bytes(b->dt))
			e++;
		SwizzleChoice *ch = swizzle_choice_new(cx, b);
		ch->ncand = 4;
		ch->cand[0] = (SwCand){.sw = {false, 0, 0, 0}};
		for (int w = 1; w <= 3; w++)
			ch->cand[w] = (SwCand){.sw = {true, 4 - e, w, 3}};
		/* a buffer no TMA copy touches may also XOR with other row bits
		 * (A != 3: a staging buffer whose rows are 256 bytes wants A = 4) */
		bool tma = false;
		for (size_t s = 0; s < u.n; s++)
			tma = tma || stmt_is_tma_load(u.s[s]) || stmt_is_tma_store(u.s[s]);
		for (int w = 1; w <= 3 && !tma; w++)
			for (int a = w; a <= 5; a++)
				if (a != 3)
					ch->cand[ch->ncand++] = (SwCand){.sw = {true, 4 - e, w, a}};
		int best = -1;
		for (int c = 0; c < ch->ncand; c++) {
			try_swizzle(cx, m, k, b, &u, ch, &ch->cand[c]);
			if (ch->cand[c].legal && (best < 0 || ch->cand[c].wavefronts < ch->cand[best].wavefronts))
				best = c;
		}
		ch->sw = ch->cand[best < 0 ? 0 : best].sw;
		/* a TMA copy's tensor map takes the chosen swizzle */
		int swz = tma_swizzle_bytes(ch->sw, b->dt);
		for (size_t s = 0; s < u.n; s++)
			if (stmt_is_tma_load(u.s[s]) || stmt_is_tma_store(u.s[s])) {
				const Buffer *g = stmt_is_tma_load(u.s[s]) ? u.s[s]->src->buf : u.s[s]->dst->buf;
				tensor_map_swizzle_set(cx, g, swz);
			}
	}
}
