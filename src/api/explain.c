/* tilepx explain: the dispatch decision of every copy, as JSON lines
 * (docs/language.md) or as a table. */
#include "tilepx.h"
#include "abi.h"

#include <stdlib.h>
#include <string.h>

static void json_str(Str *o, const char *s)
{
	str_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			str_printf(o, "\\%c", c);
		else if (c < 32)
			str_printf(o, "\\u%04x", c);
		else
			str_putc(o, (char)c);
	}
	str_putc(o, '"');
}

/* an index expression as written: 2*i + 16 */
static void fmt_affine(Str *o, const Kernel *k, const Affine *a)
{
	bool any = false;
	for (int i = 0; i < a->n; i++) {
		int64_t c = a->t[i].k;
		const char *v = k->var_names[a->t[i].var];
		if (any)
			str_puts(o, c < 0 ? " - " : " + ");
		else if (c < 0)
			str_putc(o, '-');
		int64_t m = c < 0 ? -c : c;
		if (m != 1)
			str_printf(o, "%lld*", (long long)m);
		str_puts(o, v);
		any = true;
	}
	if (!any)
		str_printf(o, "%lld", (long long)a->c);
	else if (a->c)
		str_printf(o, " %c %lld", a->c < 0 ? '-' : '+', (long long)(a->c < 0 ? -a->c : a->c));
}

/* a region as written: A[0:8, i*16:i*16 + 16], or A for the whole buffer */
static void fmt_region(Str *o, const Kernel *k, const Region *r)
{
	str_puts(o, r->name);
	if (r->whole)
		return;
	str_putc(o, '[');
	for (int d = 0; d < r->ndim; d++) {
		if (d)
			str_puts(o, ", ");
		if (r->all[d]) {
			str_putc(o, ':');
			continue;
		}
		fmt_affine(o, k, &r->begin[d]);
		if (!r->single[d]) {
			str_putc(o, ':');
			fmt_affine(o, k, &r->end[d]);
		}
	}
	str_putc(o, ']');
}

/* the grid dimension (0: x, 1: y) of cdiv(sc, D) CTAs whose ctaid the
 * expression holds, which bounds it by sc (region_guarded); -1: none */
static int grid_bounded(const Kernel *k, const Affine *e, const Scalar *sc)
{
	for (int i = 0; i < e->n; i++)
		for (int g = 0; g < 2; g++)
			if (e->t[i].var == (g ? VAR_CTAIDY : VAR_CTAID) && k->grid_var[g] == sc->var)
				return g;
	return -1;
}

/* 1 + the variable of a 'repeat cdiv(sc, D)' index the expression holds
 * (region_guarded); 0: none */
static int trips_bounded(const Kernel *k, const Affine *e, const Scalar *sc)
{
	for (int i = 0; i < e->n && k->var_trips; i++) {
		int v = e->t[i].var;
		if (v >= 0 && v < k->nvars && k->var_trips[v].scalar && k->scalars[k->var_trips[v].scalar - 1].var == sc->var)
			return v + 1;
	}
	return 0;
}

/* the guards of a copy's operands that are params with runtime extents:
 * per runtime dimension, whether its accesses are predicated and why */
static void explain_guards(const Kernel *k, const Stmt *s, bool json, Str *o)
{
	const Region *rs[2] = {s->dst, s->src};
	bool any = false;
	for (int i = 0; i < 2; i++) {
		const Region *r = rs[i];
		const Buffer *b = r->buf;
		if (!b->dynamic || (i == 1 && r->buf == rs[0]->buf && r == rs[0]))
			continue;
		for (int d = 0; d < b->ndim; d++) {
			if (!b->dyn_dim[d])
				continue;
			const Scalar *sc = &k->scalars[b->dyn_dim[d] - 1];
			bool g = region_guarded(k, r, d);
			Str end = {0};
			fmt_affine(&end, k, &r->end[d]);
			char why[256];
			if (g)
				snprintf(why, sizeof why, "the slice ends at %s, which may pass %s (%s >= %lld)", end.s, sc->name,
				         sc->name, (long long)sc->lo);
			else if (trips_bounded(k, &r->end[d], sc))
				snprintf(why, sizeof why, "the slice ends at %s, never past %s: the index counts the trips of "
				         "'repeat cdiv(%s, %lld)'", end.s, sc->name, sc->name,
				         (long long)k->var_trips[trips_bounded(k, &r->end[d], sc) - 1].div);
			else if (grid_bounded(k, &r->end[d], sc) >= 0)
				snprintf(why, sizeof why, "the slice ends at %s, never past %s: the grid has cdiv(%s, %lld) CTAs "
				         "in %c", end.s, sc->name, sc->name, (long long)k->grid_div[grid_bounded(k, &r->end[d], sc)],
				         "xy"[grid_bounded(k, &r->end[d], sc)]);
			else
				snprintf(why, sizeof why, "the slice ends at %s, never past %s >= %lld", end.s, sc->name,
				         (long long)sc->lo);
			str_free(&end);
			if (json) {
				str_printf(o, "%s{\"param\": ", any ? ", " : ", \"guards\": [");
				json_str(o, b->name);
				str_printf(o, ", \"dim\": %d, \"extent\": ", d);
				json_str(o, sc->name);
				str_printf(o, ", \"guarded\": %s, \"why\": ", g ? "true" : "false");
				json_str(o, why);
				str_putc(o, '}');
			} else {
				str_printf(o, "  %s %s dim %d (%s): %s\n", g ? "guarded" : "unguarded", b->name, d, sc->name, why);
			}
			any = true;
		}
	}
	if (json && any)
		str_putc(o, ']');
}

/* the repeats with a count set at launch around s (outermost first): the
 * bank counts take each at the most trips the facts allow */
static bool runtime_repeats(Stmt **body, size_t n, const Stmt *s, const Stmt **out, int *nout)
{
	for (size_t i = 0; i < n; i++) {
		if (body[i] == s)
			return true;
		if (!(stmt_info[body[i]->kind].flags & SF_BLOCK))
			continue;
		bool rt = body[i]->kind == ST_REPEAT && stmt_runtime_trips(body[i]) && *nout < 16;
		if (rt)
			out[(*nout)++] = body[i];
		if (runtime_repeats(body[i]->body, body[i]->nbody, s, out, nout))
			return true;
		*nout -= rt;
	}
	return false;
}

/* per what the bank counts are: the CTA, over every trip, runtime counts at their most */
static void bank_trips(const Kernel *k, const Stmt *s, bool json, Str *o)
{
	const Stmt *rep[16];
	int nrep = 0;
	if (!runtime_repeats(k->body, k->nbody, s, rep, &nrep) || !nrep)
		return;
	if (json)
		str_puts(o, ", \"bank_trips\": [");
	else
		str_puts(o, "  banks are per CTA over every trip, counted at the most trips the facts allow:");
	for (int i = 0; i < nrep; i++) {
		long long trips = (long long)kernel_var_extent(k, rep[i]->var);
		if (json)
			str_printf(o, "%s{\"line\": %d, \"trips\": %lld}", i ? ", " : "", rep[i]->loc.line, trips);
		else
			str_printf(o, "%s %lld trips of the repeat at line %d", i ? "," : "", trips, rep[i]->loc.line);
	}
	str_puts(o, json ? "]" : " (for one trip, divide by the trips)\n");
}

static int plan_vec_bits(const Decision *d)
{
	const char *v = d->chosen ? strstr(d->plan.params, "\"vec_bits\": ") : NULL;
	return v ? atoi(v + strlen("\"vec_bits\": ")) : 0;
}

/* region r on a copy of its buffer laid out under kernel kc's facts (a
 * runtime row's stride, as src/check.c lays it out) */
static Region *refact_region(Ctx *cx, const Kernel *kc, const Region *r)
{
	Region *c = arena_alloc(cx->arena, sizeof *c);
	*c = *r;
	if (!r->buf->dynamic || r->buf->ndim < 2)
		return c;
	Buffer *b = arena_alloc(cx->arena, sizeof *b);
	*b = *r->buf;
	b->dyn_proxy = dyn_row_proxy(kc, b);
	b->layout.it[dyn_outer(b)].stride = b->dyn_proxy;
	c->buf = b;
	return c;
}

/* a fact that would widen the copy's accesses: a runtime extent's scalar
 * with a larger '%' fact (the smallest that gives the widest), tried by
 * dispatching the copy again with it; false when none would */
static bool widening_fact(const CopyOp *op, const Decision *d, int *scalar, int64_t *mult, int *bits)
{
	int now = plan_vec_bits(d);
	*bits = now;
	if (!now || !(op->dbuf->dynamic || op->sbuf->dynamic))
		return false;
	const Kernel *k = op->k;
	for (size_t i = 0; i < k->nscalars; i++) {
		for (int64_t m = 2 * k->scalars[i].mult; m <= 64 * k->scalars[i].mult && m <= k->scalars[i].hi; m *= 2) {
			Kernel kc = *k;
			Scalar *sc = arena_alloc(op->cx->arena, sizeof *sc * k->nscalars);
			memcpy(sc, k->scalars, sizeof *sc * k->nscalars);
			sc[i].mult = m;
			kc.scalars = sc;
			CopyOp o; /* the views again: a guarded dimension's vector cap and a row's stride come from the facts */
			Decision w;
			int errors = op->cx->diags.errors;
			Stmt st = *op->st;
			st.dst = refact_region(op->cx, &kc, st.dst);
			st.src = refact_region(op->cx, &kc, st.src);
			bool ok = copy_op_init(op->cx, op->mod, &kc, &st, &o);
			if (op->cx->diags.errors != errors || !ok)
				return false; /* cannot happen: the same regions sliced before */
			if (dispatch_copy(&o, &w, false) && w.chosen == d->chosen && plan_vec_bits(&w) > *bits)
				*scalar = (int)i, *mult = m, *bits = plan_vec_bits(&w);
		}
	}
	return *bits > now;
}

static void explain_widening(const CopyOp *op, const Decision *d, bool json, Str *o)
{
	int sc, bits;
	int64_t m;
	if (!widening_fact(op, d, &sc, &m, &bits))
		return;
	const char *name = op->k->scalars[sc].name;
	if (json)
		str_printf(o, ", \"widen\": {\"assume\": \"%s %% %lld == 0\", \"vec_bits\": %d}", name, (long long)m,
		           bits);
	else
		str_printf(o, "  narrowed by the facts: 'assume %s %% %lld == 0' would give %d-bit accesses (now %d)\n",
		           name, (long long)m, bits, plan_vec_bits(d));
}

/* false when no variant lowers the copy */
static bool explain_copy(Ctx *cx, const Module *m, const Kernel *k, const Stmt *s, bool json, Str *o)
{
	CopyOp op;
	Decision d;
	/* a copy nothing lowers is shown with every reason, not reported as an error */
	if (!select_copy(cx, m, k, s, &op, &d))
		return true;
	const char *opname = stmt_info[s->kind].keyword;
	BankStat bs[2];
	int nbs = d.chosen ? copy_banks(&op, &d, bs) : 0;
	if (json) {
		str_puts(o, "{\"kernel\": ");
		json_str(o, k->name);
		str_printf(o, ", \"line\": %d, \"op\": \"%s\", \"scope\": \"%s\", \"dst\": ", s->loc.line, opname,
		           scope_name(s->scope));
		json_str(o, s->dst->name);
		str_puts(o, ", \"src\": ");
		json_str(o, s->src->name);
		str_puts(o, ", \"candidates\": [");
		for (int i = 0; i < d.ncand; i++) {
			const Candidate *c = &d.cand[i];
			str_printf(o, "%s{\"variant\": \"%s\", \"priority\": %d, \"accepted\": %s, \"reason\": ", i ? ", " : "",
			           c->v->name, c->v->priority, c->state == 1 ? "true" : c->state == 0 ? "false" : "null");
			if (c->state == 1)
				str_puts(o, "null");
			else
				json_str(o, c->reason);
			str_putc(o, '}');
		}
		str_puts(o, "], \"chosen\": ");
		if (d.chosen)
			json_str(o, d.chosen->name);
		else
			str_puts(o, "null");
		str_printf(o, ", \"params\": %s, \"file\": ", d.chosen ? d.plan.params : "null");
		json_str(o, m->file ? m->file : "");
		str_printf(o, ", \"col\": %d, \"dst_region\": ", s->loc.col);
		Str rg = {0};
		fmt_region(&rg, k, s->dst);
		json_str(o, rg.s);
		rg.n = 0;
		str_puts(o, ", \"src_region\": ");
		fmt_region(&rg, k, s->src);
		json_str(o, rg.s);
		str_free(&rg);
		if (nbs) {
			str_puts(o, ", \"banks\": [");
			for (int i = 0; i < nbs; i++) {
				str_printf(o, "%s{\"buffer\": ", i ? ", " : "");
				json_str(o, bs[i].buf->name);
				str_printf(o, ", \"access\": \"%s\", \"instructions\": %lld, \"wavefronts\": %lld, \"ideal\": %lld}",
				           bs[i].write ? "write" : "read", (long long)bs[i].instructions, (long long)bs[i].wavefronts,
				           (long long)bs[i].ideal);
			}
			str_putc(o, ']');
			bank_trips(k, s, true, o);
		}
		explain_guards(k, s, true, o);
		explain_widening(&op, &d, true, o);
		str_puts(o, "}\n");
	} else {
		str_printf(o, "%s:%d: %s %s %s, %s\n", k->name, s->loc.line, scope_name(s->scope), opname, s->dst->name,
		           s->src->name);
		for (int i = 0; i < d.ncand; i++) {
			const Candidate *c = &d.cand[i];
			str_printf(o, "  %-13s prio %-3d %-9s %s\n", c->v->name, c->v->priority,
			           c->state == 1 ? "CHOSEN" : c->state == 0 ? "rejected" : "-",
			           c->state == 1 ? d.plan.params : c->reason);
		}
		for (int i = 0; i < nbs; i++)
			str_printf(o, "  banks: %s %s, %lld warp instructions per CTA: %lld wavefronts (%.2f each), ideal %lld%s\n",
			           bs[i].buf->name, bs[i].write ? "write" : "read", (long long)bs[i].instructions,
			           (long long)bs[i].wavefronts, (double)bs[i].wavefronts / (double)bs[i].instructions,
			           (long long)bs[i].ideal, bs[i].wavefronts > bs[i].ideal ? " (bank conflicts)" : "");
		if (nbs)
			bank_trips(k, s, false, o);
		explain_guards(k, s, false, o);
		explain_widening(&op, &d, false, o);
	}
	return d.chosen != NULL;
}

typedef struct Walk {
	Ctx *cx;
	const Module *m;
	const Kernel *k;
	bool json;
	Str *o;
} Walk;

/* every copy statement and warpgroup mma: explain it */
static void visit(void *ctx, const Stmt *s)
{
	Walk *w = ctx;
	if (s->kind == ST_WG_MMA) { /* its descriptors and why (src/wgmma.c) */
		explain_wgmma(w->k, s, w->json, w->o);
		return;
	}
	if (!(stmt_info[s->kind].flags & SF_COPY))
		return;
	/* explain shows every copy; one that nothing lowers is then also an error (exit 1) */
	if (explain_copy(w->cx, w->m, w->k, s, w->json, w->o))
		return;
	CopyOp op;
	Decision d;
	if (select_copy(w->cx, w->m, w->k, s, &op, &d) && !d.chosen)
		dispatch_report(&op, &d);
}

static void json_u64s(Str *o, const char *key, const uint64_t *v, int n)
{
	str_printf(o, ", \"%s\": [", key);
	for (int i = 0; i < n; i++)
		str_printf(o, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	str_putc(o, ']');
}

/* the launch record as text: dynamic shared memory, cluster, scalars, grid
 * by scalars, tensor maps */
static void launch_text(const Kernel *k, const KernelAbi *abi, const TensorMapArgs *a, int n, Str *o)
{
	str_printf(o, "%s: launch with %lld bytes of dynamic shared memory (aligned to %lld)", k->name,
	           (long long)k->dyn_shared, (long long)(k->dyn_shared ? k->dyn_align : 0));
	if (k->cluster_x)
		str_printf(o, ", in clusters of %lld x %lld CTAs", (long long)k->cluster_x, (long long)k->cluster_y);
	str_putc(o, '\n');
	for (size_t i = 0; i < k->nscalars; i++)
		if (dtype_is_float_scalar(k->scalars[i].dt)) /* a value of set, no facts */
			str_printf(o, "  scalar %s (%s, kernel param %d): a float value\n", k->scalars[i].name,
			           dtype_name(k->scalars[i].dt), abi_position(abi, ABI_SCALAR, (int)i));
		else
			str_printf(o, "  scalar %s (%s, kernel param %d): %lld..%lld, a multiple of %lld\n", k->scalars[i].name,
			           dtype_name(k->scalars[i].dt), abi_position(abi, ABI_SCALAR, (int)i),
			           (long long)k->scalars[i].lo, (long long)k->scalars[i].hi, (long long)k->scalars[i].mult);
	for (int d = 0; d < 2; d++)
		if (k->grid_var[d] >= 0)
			str_printf(o, "  grid %c: cdiv(%s, %lld)\n", "xy"[d], k->var_names[k->grid_var[d]],
			           (long long)k->grid_div[d]);
	for (int i = 0; i < n && i < 16; i++) { /* swizzle: CU_TENSOR_MAP_SWIZZLE_32B..128B are 1..3 */
		str_printf(o, "  tensor map %s$tmap_%d for param %s: rank %d, box %llu x %llu", k->name, i,
		           a[i].buf->name, a[i].rank, (unsigned long long)a[i].box[0],
		           (unsigned long long)(a[i].rank > 1 ? a[i].box[1] : 1));
		for (int d = 2; d < a[i].rank; d++) /* innermost first, as cuTensorMapEncodeTiled takes it */
			str_printf(o, " x %llu", (unsigned long long)a[i].box[d]);
		str_printf(o, ", swizzle %d B\n", a[i].swizzle ? 16 << a[i].swizzle : 0);
	}
}

/* a runtime-extent tensor map's global dims and strides: the scalars by
 * name (strides in bytes: "K*2"), numbers where the extent is static */
static void json_dynamic_dims(const Kernel *k, const TensorMapArgs *a, Str *o)
{
	const Buffer *b = a->buf;
	str_puts(o, ", \"global_dims\": [");
	for (int d = 0; d < a->rank; d++) {
		int src = a->rank - 1 - d;
		if (b->dyn_dim[src])
			str_printf(o, "%s\"%s\"", d ? ", " : "", k->scalars[b->dyn_dim[src] - 1].name);
		else
			str_printf(o, "%s%lld", d ? ", " : "", (long long)b->shape[src]);
	}
	str_puts(o, "], \"global_strides\": [");
	for (int d = 1; d < a->rank; d++) { /* the dimensions inside this stride: rank-d .. rank-1 */
		Str names = {0};
		int64_t c = dtype_bytes(b->dt);
		for (int src = a->rank - d; src < a->rank; src++) {
			int sc = b->ld_scalar && src == a->rank - 1 ? b->ld_scalar : b->dyn_dim[src];
			if (sc)
				str_printf(&names, "%s*", k->scalars[sc - 1].name);
			else
				c *= b->shape[src];
		}
		if (names.s)
			str_printf(o, "%s\"%s%lld\"", d > 1 ? ", " : "", names.s, (long long)c);
		else
			str_printf(o, "%s%lld", d > 1 ? ", " : "", (long long)c);
		str_free(&names);
	}
	str_putc(o, ']');
}

/* tensor map i of kernel k: the cuTensorMapEncodeTiled arguments */
static void json_tensor_map(const Kernel *k, const KernelAbi *abi, const TensorMapArgs *a, int i, Str *o)
{
	uint64_t box[5], es[5];
	for (int d = 0; d < a->rank; d++) {
		box[d] = a->box[d];
		es[d] = a->elem_strides[d];
	}
	str_printf(o, "%s{\"param\": ", i ? ", " : "");
	json_str(o, a->buf->name);
	/* the kernel param: its name and place from the launch ABI (src/abi.h) */
	str_printf(o, ", \"kernel_param\": \"%s\", \"kernel_param_index\": %d, \"global_address\": "
	           "\"param %d\", \"data_type\": %d, \"rank\": %d", abi_param(abi, ABI_TENSOR_MAP, i)->name,
	           abi_position(abi, ABI_TENSOR_MAP, i), a->buf->param_index, a->dtype, a->rank);
	if (a->buf->dynamic) { /* runtime extents: the scalars, then bytes */
		json_dynamic_dims(k, a, o);
	} else {
		json_u64s(o, "global_dims", a->dims, a->rank);
		json_u64s(o, "global_strides", a->strides, a->rank - 1);
	}
	json_u64s(o, "box_dims", box, a->rank);
	json_u64s(o, "element_strides", es, a->rank);
	str_printf(o, ", \"interleave\": %d, \"swizzle\": %d, \"l2_promotion\": %d, \"oob_fill\": %d}", a->interleave,
	           a->swizzle, a->l2_promotion, a->oob_fill);
}

/* the launch-time scalars (name, type, param index, range, multiple) and
 * the grid dimensions they give (cdiv by a tile; null where static) */
static void json_scalars(const Kernel *k, const KernelAbi *abi, Str *o)
{
	str_puts(o, ", \"scalars\": [");
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		str_printf(o, "%s{\"name\": ", i ? ", " : "");
		json_str(o, sc->name);
		str_printf(o, ", \"type\": \"%s\", \"kernel_param_index\": %d, \"min\": %lld, \"max\": %lld, "
		           "\"multiple_of\": %lld}", dtype_name(sc->dt), abi_position(abi, ABI_SCALAR, (int)i), (long long)sc->lo,
		           (long long)sc->hi, (long long)sc->mult);
	}
	str_puts(o, "], \"grid_cdiv\": [");
	for (int d = 0; d < 2; d++) {
		if (k->grid_var[d] >= 0) {
			str_printf(o, "%s{\"scalar\": ", d ? ", " : "");
			json_str(o, k->var_names[k->grid_var[d]]);
			str_printf(o, ", \"tile\": %lld}", (long long)k->grid_div[d]);
		} else {
			str_printf(o, "%snull", d ? ", " : "");
		}
	}
	str_putc(o, ']');
}

/* what a launcher needs beyond the params: the tensor maps (the exact
 * cuTensorMapEncodeTiled arguments, CUDA enum values) and dynamic shared
 * memory; one record per kernel that has either */
static void explain_launch(Ctx *cx, const Module *m, const Kernel *k, bool json, Str *o)
{
	Arena *ar = cx->arena;
	TensorMapArgs a[16];
	int n = kernel_tensor_maps(cx, k, a, 16);
	if (!n && !k->dyn_shared && !k->nscalars && !k->cluster_x)
		return;
	KernelAbi abi = kernel_abi(ar, k); /* kernel params: names and places */
	if (!json) {
		launch_text(k, &abi, a, n, o);
		return;
	}
	str_puts(o, "{\"kernel\": ");
	json_str(o, k->name);
	str_printf(o, ", \"launch\": {\"dynamic_shared_bytes\": %lld, \"dynamic_shared_align\": %lld, \"grid\": [%lld, "
	           "%lld, 1], \"block\": [%lld, 1, 1]", (long long)k->dyn_shared,
	           (long long)(k->dyn_shared ? k->dyn_align : 0), (long long)(k->grid_var[0] >= 0 ? 0 : k->grid),
	           (long long)(k->grid_var[1] >= 0 ? 0 : k->grid_y),
	           (long long)k->threads);
	if (k->cluster_x) /* only with a cluster: the records of other kernels stay as they were */
		str_printf(o, ", \"cluster\": [%lld, %lld, 1]", (long long)k->cluster_x, (long long)k->cluster_y);
	str_puts(o, "}, \"tensor_maps\": [");
	for (int i = 0; i < n && i < 16; i++)
		json_tensor_map(k, &abi, &a[i], i, o);
	str_puts(o, "]");
	if (k->nscalars)
		json_scalars(k, &abi, o);
	str_puts(o, ", \"file\": ");
	json_str(o, m->file ? m->file : "");
	str_puts(o, "}\n");
}

/* none, swizzle(P, W, A), and with bytes: "(128-byte)" after it */
static void fmt_swizzle(Str *o, Swizzle sw, DType dt, bool bytes)
{
	if (!sw.on)
		str_puts(o, "none");
	else
		str_printf(o, "swizzle(%d, %d, %d)", sw.p, sw.w, sw.a);
	if (sw.on && bytes)
		str_printf(o, " (%lld-byte)", ((long long)1 << (sw.p + sw.w)) * dtype_bytes(dt));
}

static int64_t swizzle_bytes(Swizzle sw, DType dt)
{
	return sw.on ? ((int64_t)1 << (sw.p + sw.w)) * dtype_bytes(dt) : 0;
}

/* 'swizzle auto' buffers: the choice and every candidate's wavefronts */
static void explain_auto_swizzle(const Ctx *cx, const Module *m, const Kernel *k, bool json, Str *o)
{
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *b = k->bufs[i];
		const SwizzleChoice *ch = b->sw_auto ? swizzle_choice(cx, b) : NULL;
		if (!ch || !ch->ncand)
			continue;
		Str sw = {0};
		fmt_swizzle(&sw, ch->sw, b->dt, !json);
		if (json) {
			str_puts(o, "{\"kernel\": ");
			json_str(o, k->name);
			str_puts(o, ", \"buffer\": ");
			json_str(o, b->name);
			str_puts(o, ", \"swizzle_auto\": {\"chosen\": ");
			json_str(o, sw.s);
			str_printf(o, ", \"bytes\": %lld, \"candidates\": [", (long long)swizzle_bytes(ch->sw, b->dt));
		} else {
			str_printf(o, "%s: shared %s swizzle auto: %s\n", k->name, b->name, sw.s);
		}
		for (int c = 0; c < ch->ncand; c++) {
			const SwCand *x = &ch->cand[c];
			sw.n = 0;
			sw.s[0] = 0;
			fmt_swizzle(&sw, x->sw, b->dt, !json);
			if (json) {
				str_printf(o, "%s{\"swizzle\": ", c ? ", " : "");
				json_str(o, sw.s);
				str_printf(o, ", \"bytes\": %lld, \"legal\": %s, ", (long long)swizzle_bytes(x->sw, b->dt),
				           x->legal ? "true" : "false");
				if (x->legal) {
					str_printf(o, "\"wavefronts\": %lld, \"ideal\": %lld}", (long long)x->wavefronts,
					           (long long)x->ideal);
				} else {
					str_puts(o, "\"reason\": ");
					json_str(o, x->why);
					str_putc(o, '}');
				}
			} else if (x->legal) {
				str_printf(o, "  %-28s %lld wavefronts per CTA, ideal %lld\n", sw.s, (long long)x->wavefronts,
				           (long long)x->ideal);
			} else {
				str_printf(o, "  %-28s not legal: %s\n", sw.s, x->why);
			}
		}
		if (json) {
			str_puts(o, "]}, \"file\": ");
			json_str(o, m->file ? m->file : "");
			str_puts(o, "}\n");
		}
		str_free(&sw);
	}
}

/* the "explain" pass: every kernel's copies, wgmma descriptors, 'swizzle
 * auto' choices and launch record, from the analyses' results */
void explain_module(Ctx *cx, const Module *m, bool json, Str *o)
{
	for (size_t i = 0; i < m->nkernels; i++) {
		Walk w = {cx, m, m->kernels[i], json, o};
		stmt_walk(m->kernels[i]->body, m->kernels[i]->nbody, visit, &w);
		explain_auto_swizzle(cx, m, m->kernels[i], json, o);
		explain_launch(cx, m, m->kernels[i], json, o);
	}
}
