/* set's plan (src/tilepx.h, SetPlan): for each register of the
 * destination, whether the statement writes it, the register each operand
 * is read from, each integer condition's value where it is constant, and
 * the coordinates as a register's base plus the thread's part. Computed by
 * enumerating every element of the destination and every thread that holds
 * it (exact, never sampled); check reports what fails, emission follows it. */
#include "tilepx.h"

#include <string.h>

typedef struct PlanRun {
	Ctx *cx; /* NULL: no diagnostics */
	const Kernel *k;
	const SetExpr *x;
	SetPlan *pl;
	int64_t *blo, *bhi; /* [nnodes]: an SX_ICMP's other variables' range */
	bool failed;
} PlanRun;

/* thread axis a as (tid / div) % mod of the CTA thread index (mod 0: none) */
static void axis_digits(Axis a, int64_t *div, int64_t *mod)
{
	switch (a) {
	case AX_LANEID: *div = 1, *mod = 32; break;
	case AX_WARPID: *div = 32, *mod = 0; break;
	case AX_WID_IN_WG: *div = 32, *mod = 4; break;
	case AX_TID_IN_WG: *div = 1, *mod = 128; break;
	case AX_WGID: *div = 128, *mod = 0; break;
	default: *div = 1, *mod = 0; break;
	}
}

/* the thread part of each coordinate from the layout's thread iters, each
 * a digit of the thread index; false when an iter straddles dimensions or
 * is not a digit (validated against the enumeration anyway) */
static bool thread_terms(const Buffer *b, SetPlan *pl)
{
	int d = b->ndim - 1;
	int64_t prod = 1;
	memset(pl->nterm, 0, sizeof pl->nterm);
	for (int i = b->layout.n - 1; i >= 0; i--) {
		const Iter *it = &b->layout.it[i];
		while (d >= 0 && prod == b->shape[d] && it->ext > 1)
			d--, prod = 1;
		if (d < 0 || (prod * it->ext > b->shape[d] && it->ext > 1))
			return false;
		if (it->axis != AX_M && it->ext > 1) {
			int64_t div, mod;
			axis_digits(it->axis, &div, &mod);
			if (mod && mod % (it->stride * it->ext))
				return false;
			pl->term[d][pl->nterm[d]++] = (SetTerm){div * it->stride, it->ext, prod};
		}
		prod *= it->ext;
	}
	return true;
}

static int64_t thread_part(const SetPlan *pl, int d, int64_t tid)
{
	int64_t v = 0;
	for (int i = 0; i < pl->nterm[d]; i++)
		v += (tid / pl->term[d][i].div) % pl->term[d][i].mod * pl->term[d][i].w;
	return v;
}

/* e at the coordinates (index names), warpid and wgid of thread tid; the
 * other variables left out (their range is added by the caller) */
static int64_t eval_at(const SetExpr *x, int ndim, const Affine *e, const int64_t *coord, int64_t tid)
{
	int64_t v = e->c;
	for (int i = 0; i < e->n; i++) {
		int var = e->t[i].var;
		for (int d = 0; d < ndim; d++)
			if (x->idx_var[d] == var)
				v += e->t[i].k * coord[d];
		if (var == VAR_WARPID)
			v += e->t[i].k * (tid / 32);
		if (var == VAR_WGID)
			v += e->t[i].k * (tid / 128);
	}
	return v;
}

/* e without the index names, warpid and wgid: what varies apart from the thread and register */
static Affine others_of(const SetExpr *x, int ndim, const Affine *e)
{
	Affine o = {.c = 0};
	for (int i = 0; i < e->n; i++) {
		bool own = e->t[i].var == VAR_WARPID || e->t[i].var == VAR_WGID;
		for (int d = 0; d < ndim; d++)
			own |= x->idx_var[d] == e->t[i].var;
		if (!own)
			o.t[o.n++] = e->t[i];
	}
	return o;
}

/* the comparison v CMP 0 over v in [lo, hi]: 1, 0, or -1 (depends) */
static int decide(SetCmp c, int64_t lo, int64_t hi)
{
	switch (c) {
	case CMP_LT: return hi < 0 ? 1 : lo >= 0 ? 0 : -1;
	case CMP_LE: return hi <= 0 ? 1 : lo > 0 ? 0 : -1;
	case CMP_GT: return lo > 0 ? 1 : hi <= 0 ? 0 : -1;
	case CMP_GE: return lo >= 0 ? 1 : hi < 0 ? 0 : -1;
	case CMP_EQ: return lo == 0 && hi == 0 ? 1 : lo > 0 || hi < 0 ? 0 : -1;
	case CMP_NE: return lo == 0 && hi == 0 ? 0 : lo > 0 || hi < 0 ? 1 : -1;
	}
	return -1;
}

static void merge(signed char *slot, int v) { *slot = *slot == 2 ? (signed char)v : *slot == v ? *slot : -1; }

static void not_colocated(PlanRun *R, const SetNode *n, const int64_t *coord, const int64_t *oc, int64_t tid, int64_t r)
{
	R->failed = true;
	if (!R->cx)
		return;
	Ctx *cx = R->cx;
	const Buffer *d = R->x->dst, *o = n->buf;
	const char *de = elem_text_of(cx->arena, d, coord), *oe = elem_text_of(cx->arena, o, oc);
	diag_error(cx, n->loc, "'%s' is not colocated with '%s': thread %lld computes %s but does not hold %s", o->name,
	           d->name, (long long)tid, de, oe);
	diag_note(cx, "%s's layout %s puts %s in register %lld of thread %lld (and every %lld threads after)", d->name,
	          layout_text_of(cx->arena, d), de, (long long)r, (long long)(tid % local_owner_threads(R->k, d)),
	          (long long)local_owner_threads(R->k, d));
	diag_note(cx, "%s's layout %s puts %s in thread %lld of each group of %lld; set moves no data between threads",
	          o->name, layout_text_of(cx->arena, o), oe, (long long)local_thread_of(R->k, o, oc),
	          (long long)local_owner_threads(R->k, o));
}

static void register_differs(PlanRun *R, const SetNode *n, int64_t r, int64_t was, int64_t now)
{
	R->failed = true;
	if (!R->cx)
		return;
	diag_error(R->cx, n->loc, "'%s' is read from register %lld in some threads and %lld in others for register %lld "
	           "of '%s'", n->buf->name, (long long)was, (long long)now, (long long)r, R->x->dst->name);
	diag_note(R->cx, "every thread runs the same code: the two layouts must agree register by register (%s: %s; %s: %s)",
	          R->x->dst->name, layout_text_of(R->cx->arena, R->x->dst), n->buf->name,
	          layout_text_of(R->cx->arena, n->buf));
}

/* one thread tid holding destination element coord at register r */
static void plan_holder(PlanRun *R, const int64_t *coord, int64_t r, int64_t tid)
{
	const SetExpr *x = R->x;
	SetPlan *pl = R->pl;
	int nd = x->dst->ndim;
	for (int d = 0; d < nd && pl->thread_terms; d++) {
		int64_t *b = &pl->base[r * nd + d], want = coord[d] - thread_part(pl, d, tid);
		if (*b == INT64_MIN)
			*b = want;
		pl->thread_terms = *b == want;
	}
	for (int i = 0; i < x->nnodes && !R->failed; i++) {
		const SetNode *n = x->nodes[i];
		if (n->op == SX_LOAD) {
			int64_t oc[MAX_DIMS];
			for (int d = 0; d < n->buf->ndim; d++)
				oc[d] = eval_at(x, nd, &n->idx[d], coord, tid);
			int64_t ro = local_reg_of(R->k, n->buf, oc, tid), *slot = &pl->opreg[(int64_t)i * pl->regs + r];
			if (ro < 0)
				not_colocated(R, n, coord, oc, tid, r);
			else if (*slot >= 0 && *slot != ro)
				register_differs(R, n, r, *slot, ro);
			else
				*slot = ro;
		} else if (n->op == SX_ICMP) {
			int64_t a = eval_at(x, nd, &n->diff, coord, tid);
			merge(&pl->fold[(int64_t)i * pl->regs + r], decide(n->cmp, a + R->blo[i], a + R->bhi[i]));
		}
	}
}

/* element x of the destination (row-major): its register, written or not, and every thread that holds it */
static void plan_elem(PlanRun *R, int64_t x)
{
	const SetExpr *e = R->x;
	const Buffer *b = e->dst;
	SetPlan *pl = R->pl;
	int64_t coord[MAX_DIMS];
	bool in = true;
	for (int d = b->ndim - 1; d >= 0; d--) {
		coord[d] = x % b->shape[d];
		x /= b->shape[d];
		in &= e->idx_var[d] >= 0 || coord[d] == e->dst_idx[d].c;
	}
	int64_t t = local_thread_of(R->k, b, coord), r = local_reg_of(R->k, b, coord, t);
	if (pl->written[r] != 2 && pl->written[r] != in) {
		R->failed = true;
		if (R->cx) {
			diag_error(R->cx, e->dst_loc, "register %lld of '%s' holds elements the statement writes in some threads and "
			           "others in others", (long long)r, b->name);
			diag_note(R->cx, "registers are per thread: a fixed coordinate must select whole registers of the layout "
			          "%s (or write the dimension whole)", layout_text_of(R->cx->arena, b));
		}
		return;
	}
	pl->written[r] = in;
	if (!in)
		return;
	for (int64_t rep = 0; rep < local_replicas(b); rep++) /* every copy of a replicated destination */
		for (int64_t tid = local_thread_of_rep(R->k, b, coord, rep); tid < R->k->threads && !R->failed;
		     tid += local_owner_threads(R->k, b))
			plan_holder(R, coord, r, tid);
}

static void plan_alloc(Arena *a, const SetExpr *x, SetPlan *pl)
{
	int64_t n = (int64_t)x->nnodes * pl->regs, nd = x->dst->ndim;
	pl->written = arena_alloc(a, (size_t)pl->regs);
	pl->opreg = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
	pl->fold = arena_alloc(a, (size_t)(n ? n : 1));
	pl->base = arena_alloc(a, sizeof(int64_t) * (size_t)(pl->regs * nd));
	memset(pl->written, 2, (size_t)pl->regs);
	memset(pl->fold, 2, (size_t)(n ? n : 1));
	for (int64_t i = 0; i < n; i++)
		pl->opreg[i] = -1;
	for (int64_t i = 0; i < pl->regs * nd; i++)
		pl->base[i] = INT64_MIN;
}

bool set_plan(Ctx *cx, Arena *a, const Kernel *k, const Stmt *s, SetPlan *pl)
{
	const SetExpr *x = s->set;
	memset(pl, 0, sizeof *pl);
	pl->regs = x->dst->regs;
	plan_alloc(a, x, pl);
	pl->thread_terms = thread_terms(x->dst, pl);
	PlanRun R = {cx, k, x, pl, arena_alloc(a, sizeof(int64_t) * (size_t)x->nnodes),
	             arena_alloc(a, sizeof(int64_t) * (size_t)x->nnodes), false};
	for (int i = 0; i < x->nnodes; i++)
		if (x->nodes[i]->op == SX_ICMP) {
			Affine o = others_of(x, x->dst->ndim, &x->nodes[i]->diff);
			check_affine_range(k, &o, &R.blo[i], &R.bhi[i]);
		}
	int64_t size = 1;
	for (int d = 0; d < x->dst->ndim; d++)
		size *= x->dst->shape[d];
	for (int64_t e = 0; e < size && !R.failed; e++)
		plan_elem(&R, e);
	bool runtime_mask = false;
	for (int64_t i = 0; i < (int64_t)x->nnodes * pl->regs; i++)
		runtime_mask |= pl->fold[i] == -1 && pl->written[i % pl->regs] == 1;
	if (!R.failed && runtime_mask && !pl->thread_terms) {
		R.failed = true;
		if (cx) {
			diag_error(cx, x->dst_loc, "a condition of this set depends on the thread, and the coordinates of '%s' are "
			           "not digits of the thread index in its layout", x->dst->name);
			diag_note(cx, "layout %s; a mask is computed from the thread's coordinates", layout_text_of(a, x->dst));
		}
	}
	for (int64_t r = 0; r < pl->regs; r++)
		pl->written[r] = pl->written[r] == 1;
	return !R.failed;
}

const char *elem_text_of(Arena *a, const Buffer *b, const int64_t *c)
{
	Str s = {0};
	str_printf(&s, "%s[", b->name);
	for (int d = 0; d < b->ndim; d++)
		str_printf(&s, "%s%lld", d ? ", " : "", (long long)c[d]);
	str_putc(&s, ']');
	char *r = arena_strndup(a, s.s ? s.s : "", s.n);
	str_free(&s);
	return r;
}

const char *layout_text_of(Arena *a, const Buffer *b)
{
	Str s = {0};
	lay_format(&b->layout, &s);
	char *r = arena_strndup(a, s.s ? s.s : "", s.n);
	str_free(&s);
	return r;
}
