/* The async statements' own checks (the "statements" pass): an mbarrier
 * operand names a declared barrier with an index in range, counts and
 * transaction bytes in their limits; a TMA copy's box, tensor map, swizzle
 * and multicast. The phase proof is roles.c's (check_role_phases). */
#include "tilepx.h"

#include <string.h>

/* s->mbar from its name; the index may use repeat indices and constants only */
static bool resolve_mbar(Ctx *cx, Kernel *k, Stmt *s)
{
	size_t i = 0;
	while (i < k->nmbars && strcmp(k->mbars[i].name, s->mbar_name))
		i++;
	if (i == k->nmbars) {
		diag_error(cx, s->mbar_loc, "unknown mbarrier '%s' in kernel '%s'", s->mbar_name, k->name);
		diag_note(cx, "declare it with 'mbarrier %s [N]'", s->mbar_name);
		return false;
	}
	s->mbar = (int)i + 1;
	const Affine *a = s->mbar_idx;
	int64_t lo = a->c, hi = a->c;
	for (int t = 0; t < a->n; t++) {
		/* the phase proof evaluates repeat indices exactly (it runs each trip
		 * with the index's value); every other variable it holds at one
		 * value: built-in indices, scalar params and a func's args are refused */
		bool arg = false;
		for (int i = 0; i < k->nargs; i++)
			arg |= k->arg_vars[i] == a->t[t].var;
		if (a->t[t].var < VAR_REPEAT0 || kernel_scalar_of_var(k, a->t[t].var) || arg) {
			diag_error(cx, s->mbar_loc, "the index of mbarrier '%s' uses '%s': it may use repeat indices and "
			           "constants only", s->mbar_name, k->var_names[a->t[t].var]);
			if (kernel_scalar_of_var(k, a->t[t].var))
				diag_note(cx, "'%s' is a scalar param: mbarrier phases are proved at compile time, for each barrier "
				          "a statement may name", k->var_names[a->t[t].var]);
			else if (arg)
				diag_note(cx, "'%s' is an arg of func '%s': mbarrier phases are proved at compile time, for each "
				          "barrier a statement may name", k->var_names[a->t[t].var], k->name);
			else
				diag_note(cx, "every thread of the CTA must name the same barrier");
			return false;
		}
		int64_t span;
		if (!mul_ok(a->t[t].k, kernel_var_extent(k, a->t[t].var) - 1, &span) || !add_ok(lo, span < 0 ? span : 0, &lo) ||
		    !add_ok(hi, span > 0 ? span : 0, &hi)) {
			diag_error(cx, s->mbar_loc, "mbarrier index overflows");
			return false;
		}
	}
	if (lo < 0 || hi >= k->mbars[i].n) {
		diag_error(cx, s->mbar_loc, "the index of mbarrier '%s' ranges over %lld..%lld, outside 0..%lld", s->mbar_name,
		           (long long)lo, (long long)hi, (long long)k->mbars[i].n - 1);
		return false;
	}
	return true;
}

void check_mbar(Ctx *cx, const Module *m, Kernel *k, Stmt *s)
{
	(void)m;
	if (!resolve_mbar(cx, k, s))
		return;
	if (s->kind == ST_MBAR_INIT && !s->has_value)
		s->n = 1;
	if (s->kind == ST_MBAR_SKIP) /* it flips a thread's phase bit: the array's parities are tracked at run time */
		k->mbars[s->mbar - 1].dyn_phase = true;
	if (s->kind == ST_MBAR_INIT && (s->n < 1 || s->n > TX_LIMIT))
		diag_error(cx, s->value_loc, "an mbarrier's arrival count is 1..%d (got %lld)", TX_LIMIT, (long long)s->n);
	if (s->kind == ST_MBAR_EXPECT_TX && s->has_value && s->n > TX_LIMIT)
		diag_error(cx, s->value_loc, "a phase expects at most %d transaction bytes (got %lld)", TX_LIMIT,
		           (long long)s->n);
	if (s->kind == ST_MBAR_WAIT && s->has_value && s->n != 0 && s->n != 1)
		diag_error(cx, s->value_loc, "a phase parity is 0 or 1 (got %lld)", (long long)s->n);
	if (s->to_cluster && k->cluster_x * (k->cluster_y ? k->cluster_y : 1) < 2)
		diag_error(cx, s->cluster_arrive_loc, "mbarrier.arrive ... cluster needs a cluster of 2 or more CTAs "
		           "(kernel '%s' has none)", k->name);
	else if (s->to_cluster)
		k->cluster_arrivals = true;
}

static void fmt_box(Str *s, const int64_t *box, int n)
{
	str_putc(s, '[');
	for (int d = 0; d < n; d++)
		str_printf(s, "%s%lld", d ? ", " : "", (long long)box[d]);
	str_putc(s, ']');
}

/* every CTA of the cluster issues a multicast into every CTA of its mask:
 * the issuers' boxes must land in disjoint places. The shared region is one
 * run of `n` elements (the tma variant requires it) starting at an affine
 * offset; two issuers of one cluster differ only in cluster_ctarank, ctaid
 * and ctaid_y (by their ranks' x and y digits), so the distance between
 * their runs is exact. */
static bool mcast_disjoint(Ctx *cx, Kernel *k, Stmt *s, const int64_t *box)
{
	View v;
	const char *why;
	if (!region_view(cx, k, s->dst, &v, &why))
		return true; /* reported by check_copy */
	int64_t n = 1, kr = 0, kx = 0, ky = 0, cx_ = k->cluster_x, N = kernel_cluster_size(k);
	for (int d = 0; d < s->src->buf->ndim; d++)
		n *= box[d];
	const Affine *o = &v.off[AX_M];
	for (int t = 0; t < o->n; t++) {
		kr += o->t[t].var == VAR_CRANK ? o->t[t].k : 0;
		kx += o->t[t].var == VAR_CTAID ? o->t[t].k : 0;
		ky += o->t[t].var == VAR_CTAIDY ? o->t[t].k : 0;
	}
	for (int64_t a = 0; a < N; a++)
		for (int64_t b = a + 1; b < N; b++) {
			int64_t dist = kr * (b - a) + kx * (b % cx_ - a % cx_) + ky * (b / cx_ - a / cx_);
			if (dist < n && dist > -n) {
				diag_error(cx, s->dst->loc, "the multicasts of CTA ranks %lld and %lld write the same elements of "
				           "'%s' (their regions start %lld elements apart and are %lld long)", (long long)a,
				           (long long)b, s->dst->buf->name, (long long)(dist < 0 ? -dist : dist), (long long)n);
				diag_note(cx, "every CTA of the cluster issues the copy into every CTA of the mask: give each issuer "
				          "its own part of the buffer (offset the region by cluster_ctarank)");
				return false;
			}
		}
	return true;
}

void check_copy_tma(Ctx *cx, Kernel *k, Stmt *s)
{
	bool load = stmt_is_tma_load(s), store = stmt_is_tma_store(s);
	if (load) {
		if (!resolve_mbar(cx, k, s))
			return;
		if (s->src->buf->mem != MEM_GLOBAL || s->dst->buf->mem != MEM_SHARED) {
			diag_error(cx, s->mbar_loc, "'mbarrier' completes a TMA or bulk load, which copies a param to shared "
			           "memory (this copies %s -> %s)", mem_name(s->src->buf->mem), mem_name(s->dst->buf->mem));
			return;
		}
	}
	if (s->mcast) {
		int64_t n = kernel_cluster_size(k);
		if (!load || !s->src->buf->tma) {
			diag_error(cx, s->mcast_loc, "'multicast' delivers a TMA load to several CTAs: the copy needs a tma param "
			           "source and 'mbarrier BAR[i]'");
			return;
		}
		if (!k->cluster_x) {
			diag_error(cx, s->mcast_loc, "a multicast load needs a cluster: declare 'cluster N' in kernel '%s'",
			           k->name);
			return;
		}
		if (s->mcast >> n) {
			int r = 0;
			while (!((s->mcast >> r) >> n & 1))
				r++;
			diag_error(cx, s->mcast_loc, "multicast mask 0x%llx names CTA rank %lld, but the cluster has %lld CTAs",
			           (unsigned long long)s->mcast, (long long)(r + n), (long long)n);
			return;
		}
	}
	bool bulk = (load && !s->src->buf->tma) || stmt_is_bulk_store(s);
	if (!load && !store && !bulk)
		return;
	if (s->scope != SC_CTA) {
		diag_error(cx, s->loc, "a %s copy is issued by one thread for the whole CTA: write 'cta copy_async'",
		           bulk ? "bulk" : "TMA");
		return;
	}
	if (bulk) /* no tensor map: the bulk variant proves contiguity and alignment */
		return;
	Region *g = load ? s->src : s->dst, *sh = load ? s->dst : s->src;
	Buffer *gb = g->buf;
	int64_t box[MAX_DIMS];
	int64_t es = dtype_bytes(gb->dt);
	for (int d = 0; d < gb->ndim; d++) {
		box[d] = g->whole ? gb->shape[d] : g->ext[d];
		if (box[d] < 1 || box[d] > 256) {
			diag_error(cx, g->whole ? g->loc : g->dim_loc[d], "TMA box dimension %d of '%s' is %lld elements; a box "
			           "dimension is 1..256", d, gb->name, (long long)box[d]);
			return;
		}
	}
	int64_t inner = box[gb->ndim - 1] * es;
	if (inner % 16) {
		diag_error(cx, g->loc, "the innermost TMA box dimension of '%s' is %lld bytes; TMA moves multiples of 16 bytes",
		           gb->name, (long long)inner);
		return;
	}
	int swz = tma_swizzle_bytes(buffer_swizzle(cx, sh->buf), sh->buf->dt);
	if (swz > 0 && inner != swz) {
		diag_error(cx, g->loc, "the innermost TMA box dimension of '%s' is %lld bytes; with the %d-byte swizzle of '%s' "
		           "it must be %d bytes", gb->name, (long long)inner, swz, sh->buf->name, swz);
		diag_note(cx, "TMA lays a swizzled box out in rows of the swizzle's span: a narrower row does not match the "
		          "shared layout (on an H100 such a load faults), a wider one is not encodable");
		return;
	}
	if (s->mcast && !mcast_disjoint(cx, k, s, box))
		return;
	if (!gb->tma_used) {
		gb->tma_used = true;
		memcpy(gb->tma_box, box, sizeof box);
		gb->tma_swizzle = swz;
		gb->tma_box_loc = g->loc;
		return;
	}
	if (memcmp(gb->tma_box, box, sizeof(int64_t) * (size_t)gb->ndim) || gb->tma_swizzle != swz) {
		Str a = {0}, b = {0};
		fmt_box(&a, box, gb->ndim);
		fmt_box(&b, gb->tma_box, gb->ndim);
		diag_error(cx, g->loc, "tensor map '%s' is used with box %s and swizzle %d here but box %s and swizzle %d at "
		           "line %d", gb->name, a.s, swz, b.s, gb->tma_swizzle, gb->tma_box_loc.line);
		diag_note(cx, "a param has one tensor map: one box, one swizzle");
		str_free(&a);
		str_free(&b);
	}
}

/* every tensor map a TMA copy uses (before the phase proofs, with roles or
 * without); false after the error */
bool check_tma_maps_used(Ctx *cx, const Kernel *k)
{
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->tma && !k->bufs[i]->tma_used) {
			diag_error(cx, k->bufs[i]->tma_loc, "'%s' has a tensor map, but no TMA copy uses it", k->bufs[i]->name);
			diag_note(cx, "a TMA copy: 'cta copy_async SHARED[...], %s[...] mbarrier BAR[i]' (load) or "
			          "'cta copy_async %s[...], SHARED[...]' (store)", k->bufs[i]->name, k->bufs[i]->name);
			return false;
		}
	return true;
}
