/* Affine index expressions and regions (BUF[begin:end, ...]). */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- affine expressions ---- */


/* index of kernel k's integer scalar param named nm, or -1 (a float
 * scalar is no variable of integer expressions) */
int scalar_index(const Kernel *k, const char *nm)
{
	int i = any_scalar_index(k, nm);
	return i >= 0 && dtype_is_float_scalar(k->scalars[i].dt) ? -1 : i;
}

/* index of kernel k's scalar param named nm, integer or float, or -1 */
int any_scalar_index(const Kernel *k, const char *nm)
{
	for (size_t i = 0; i < k->nscalars; i++)
		if (!strcmp(k->scalars[i].name, nm))
			return (int)i;
	return -1;
}

int lookup_var(Parser *p, const char *name)
{
	if (!strcmp(name, "ctaid"))
		return VAR_CTAID;
	if (!strcmp(name, "warpid"))
		return VAR_WARPID;
	if (!strcmp(name, "wgid"))
		return VAR_WGID;
	if (!strcmp(name, "ctaid_y"))
		return VAR_CTAIDY;
	if (!strcmp(name, "cluster_ctarank"))
		return VAR_CRANK;
	if (p->k && scalar_index(p->k, name) >= 0)
		return p->k->scalars[scalar_index(p->k, name)].var;
	if (p->k)
		for (int i = 0; i < p->k->nargs; i++)
			if (!strcmp(p->k->var_names[p->k->arg_vars[i]], name))
				return p->k->arg_vars[i];
	for (int i = 0; i < p->nu; i++)
		if (!strcmp(p->uname[i], name))
			return p->uvar[i];
	for (int i = p->depth - 1; i >= 0; i--)
		if (p->stack[i]->var_name && !strcmp(p->stack[i]->var_name, name))
			return p->stack[i]->var;
		else if (p->stack[i]->running_name && !strcmp(p->stack[i]->running_name, name))
			return p->stack[i]->running;
		else if (p->stack[i]->tile_m_name && !strcmp(p->stack[i]->tile_m_name, name))
			return p->stack[i]->tile_m;
		else if (p->stack[i]->tile_n_name && !strcmp(p->stack[i]->tile_n_name, name))
			return p->stack[i]->tile_n;
	return -1;
}

static bool affine_scale(Affine *a, int64_t k)
{
	if (!mul_ok(a->c, k, &a->c))
		return false;
	for (int i = 0; i < a->n; i++)
		if (!mul_ok(a->t[i].k, k, &a->t[i].k))
			return false;
	return true;
}

enum { MAX_EXPR_DEPTH = 64 };

static bool factor_inner(Parser *p, Affine *out);

bool factor(Parser *p, Affine *out)
{
	if (p->expr_depth >= MAX_EXPR_DEPTH)
		return fail(p, "expression nests too deep (at most %d levels)", MAX_EXPR_DEPTH);
	p->expr_depth++;
	bool ok = factor_inner(p, out);
	p->expr_depth--;
	return ok;
}

static bool factor_inner(Parser *p, Affine *out)
{
	memset(out, 0, sizeof *out);
	if (is_punct(p, '-')) {
		next(p);
		if (!factor(p, out))
			return false;
		if (!affine_scale(out, -1))
			return fail(p, "integer overflow in expression");
		return true;
	}
	if (is_punct(p, '(')) {
		next(p);
		if (!expr(p, out))
			return false;
		return expect_punct(p, ')', "to close '('");
	}
	if (p->tok.kind == TK_INT) {
		out->c = p->tok.val;
		next(p);
		return true;
	}
	if (p->tok.kind == TK_IDENT) {
		Loc loc = p->tok.loc;
		const char *name = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
		int v = lookup_var(p, name);
		if (v == VAR_CRANK && p->k && !p->k->uses_crank) { /* the first use: check needs sm_90 and a kernel */
			p->k->uses_crank = true;
			p->k->crank_loc = loc;
		}
		if (v < 0 && p->k && any_scalar_index(p->k, name) >= 0) {
			if (!p->line_failed) {
				p->line_failed = true;
				diag_error(p->cx, loc, "'%s' is a float scalar param: integer expressions take u32, i32, u64 and i64 "
				           "scalars (a float one is an operand of set)", name);
			}
			return false;
		}
		if (v < 0) /* (fail adds a note when the name is a constant's value) */
			return fail(p,
			            "unknown variable '%s' (expressions use numbers, constants, ctaid, ctaid_y, cluster_ctarank, "
			            "warpid, wgid, scalar params and repeat indices)",
			            name);
		next(p);
		out->n = 1;
		out->t[0].var = v;
		out->t[0].k = 1;
		return true;
	}
	return fail(p, "expected an expression, found %s", tok_text(p));
}

/* (i + c) % C, i a repeat index: the stage of a ring of C buffers, a
 * variable of its own (one per index, c and C) ranging over [0, C) */
static bool stage_index(Parser *p, Affine *a, int64_t c, Loc loc)
{
	Kernel *k = p->k;
	int v = a->n == 1 && a->c >= 0 && a->t[0].k == 1 ? a->t[0].var : -1;
	bool repeat_index = v >= VAR_REPEAT0 && k && !kernel_scalar_of_var(k, v) && k->var_base[v] < 0;
	for (int i = 0; k && i < k->nargs && repeat_index; i++)
		repeat_index = k->arg_vars[i] != v;
	if (!repeat_index) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'%%' takes a repeat index plus a constant and a constant ('i %% C', '(i + 3) %% C'), "
		           "or two constants");
		return false;
	}
	if (c < 1 || c > 0x7fffffff) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'i %% C' needs C in 1..2147483647 (got %lld)", (long long)c);
		return false;
	}
	int64_t off = a->c % c;
	a->c = 0;
	for (int d = VAR_REPEAT0; d < k->nvars; d++)
		if (k->var_base[d] == v && k->var_mod[d] == c && k->var_off[d] == off) {
			a->t[0].var = d;
			return true;
		}
	const char *name = off ? arena_printf(p->cx->arena, "(%s + %lld) %% %lld", k->var_names[v], (long long)off, (long long)c)
	                       : arena_printf(p->cx->arena, "%s %% %lld", k->var_names[v], (long long)c);
	int d = new_var(p, c, name);
	k->var_base[d] = v;
	k->var_mod[d] = c;
	k->var_off[d] = off;
	a->t[0].var = d;
	return true;
}

static bool term(Parser *p, Affine *out)
{
	if (!factor(p, out))
		return false;
	while (is_punct(p, '*') || is_punct(p, '/') || is_punct(p, '%')) {
		char op = p->tok.c;
		Loc loc = p->tok.loc;
		next(p);
		Affine r;
		if (!factor(p, &r))
			return false;
		if (op == '*') {
			if (affine_is_const(&r)) {
				if (!affine_scale(out, r.c))
					return fail(p, "integer overflow in expression");
			} else if (affine_is_const(out)) {
				int64_t k = out->c;
				*out = r;
				if (!affine_scale(out, k))
					return fail(p, "integer overflow in expression");
			} else {
				p->line_failed = true;
				diag_error(p->cx, loc, "expression is not affine: a product of two variables");
				return false;
			}
		} else if (op == '%' && affine_is_const(&r) && !affine_is_const(out)) {
			if (!stage_index(p, out, r.c, loc))
				return false;
		} else {
			if (!affine_is_const(out) || !affine_is_const(&r)) {
				p->line_failed = true;
				diag_error(p->cx, loc, "'%c' is only allowed between constants, or as 'i %% C' of a repeat index i "
				           "(expressions are affine)", op);
				return false;
			}
			if (r.c == 0) {
				p->line_failed = true;
				diag_error(p->cx, loc, "division by zero");
				return false;
			}
			if (r.c == -1) /* INT64_MIN / -1 is the one quotient int64 cannot hold (and traps) */
				out->c = op == '%' ? 0 : out->c == INT64_MIN ? (fail(p, "integer overflow in expression"), 0) : -out->c;
			else
				out->c = op == '/' ? out->c / r.c : out->c % r.c;
			if (p->line_failed)
				return false;
		}
	}
	return true;
}

static bool expr_inner(Parser *p, Affine *out);

/* an expression; a running trip count may appear only as '(G + c) % C'
 * (its value grows without bound; its residues are what a ring of stages
 * and the proofs use) */
bool expr(Parser *p, Affine *out)
{
	Loc loc = p->tok.loc;
	if (!expr_inner(p, out))
		return false;
	for (int i = 0; p->expr_depth == 0 && p->k && i < out->n; i++)
		if (p->k->var_base[out->t[i].var] == VAR_RUNNING) {
			p->line_failed = true;
			diag_error(p->cx, loc, "'%s' is a running trip count: use it as '%s %% C' or '(%s + c) %% C'",
			           p->k->var_names[out->t[i].var], p->k->var_names[out->t[i].var],
			           p->k->var_names[out->t[i].var]);
			return false;
		}
	return true;
}

static bool expr_inner(Parser *p, Affine *out)
{
	if (!term(p, out))
		return false;
	while (is_punct(p, '+') || is_punct(p, '-')) {
		int sign = p->tok.c == '+' ? 1 : -1;
		next(p);
		Affine r;
		if (!term(p, &r))
			return false;
		if (!affine_add(out, &r, sign))
			return fail(p, "expression too large (overflow, or more than %d variables)", MAX_TERMS);
	}
	return true;
}

static bool parse_region_dims(Parser *p, Region *r, Affine *begin, Affine *end);

/* begin/end are parsed into MAX_DIMS-long temporaries and kept for the
 * region's dimensions only (a copy statement's operands are most of a
 * program's memory) */
bool parse_region(Parser *p, Region *r)
{
	Affine begin[MAX_DIMS], end[MAX_DIMS];
	memset(begin, 0, sizeof begin);
	memset(end, 0, sizeof end);
	bool ok = parse_region_dims(p, r, begin, end);
	if (r->ndim) {
		size_t n = sizeof(Affine) * (size_t)r->ndim;
		r->begin = arena_alloc(p->cx->arena, n);
		r->end = arena_alloc(p->cx->arena, n);
		memcpy(r->begin, begin, n);
		memcpy(r->end, end, n);
	}
	return ok;
}

Region *region_dup(Arena *a, const Region *r)
{
	Region *o = arena_alloc(a, sizeof *o);
	*o = *r;
	if (r->ndim && r->begin) {
		size_t n = sizeof(Affine) * (size_t)r->ndim;
		o->begin = arena_alloc(a, n);
		o->end = arena_alloc(a, n);
		memcpy(o->begin, r->begin, n);
		memcpy(o->end, r->end, n);
	}
	return o;
}

static bool parse_region_dims(Parser *p, Region *r, Affine *begin, Affine *end)
{
	r->loc = p->tok.loc;
	if (!(r->name = take_ident(p, "a buffer name")))
		return false;
	if (!is_punct(p, '[')) {
		r->whole = true;
		return true;
	}
	next(p);
	for (;;) {
		if (r->ndim == MAX_DIMS)
			return fail(p, "too many dimensions in region (at most %d)", MAX_DIMS);
		int d = r->ndim++;
		r->dim_loc[d] = p->tok.loc;
		if (is_punct(p, ':')) {
			next(p);
			r->all[d] = true;
		} else {
			if (!expr(p, &begin[d]))
				return false;
			if (is_punct(p, ':')) {
				next(p);
				if (!expr(p, &end[d]))
					return false;
			} else {
				r->single[d] = true;
				end[d] = begin[d];
				if (!add_ok(begin[d].c, 1, &end[d].c)) /* A[INT64_MAX] */
					return fail(p, "integer overflow in region");
			}
		}
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	return expect_punct(p, ']', "to close the region");
}

/* a new kernel variable ranging over [0, ext) */
int new_var(Parser *p, int64_t ext, const char *name)
{
	Kernel *k = p->k;
	if ((size_t)k->nvars == k->var_cap) {
		size_t nc = k->var_cap * 2;
		k->var_ext = arena_grow(p->cx->arena, k->var_ext, sizeof(int64_t) * k->var_cap, sizeof(int64_t) * nc);
		k->var_names = arena_grow(p->cx->arena, k->var_names, sizeof(char *) * k->var_cap, sizeof(char *) * nc);
		k->var_base = arena_grow(p->cx->arena, k->var_base, sizeof(int) * k->var_cap, sizeof(int) * nc);
		k->var_mod = arena_grow(p->cx->arena, k->var_mod, sizeof(int64_t) * k->var_cap, sizeof(int64_t) * nc);
		k->var_off = arena_grow(p->cx->arena, k->var_off, sizeof(int64_t) * k->var_cap, sizeof(int64_t) * nc);
		k->var_cap = nc;
	}
	k->var_ext[k->nvars] = ext;
	k->var_names[k->nvars] = name;
	k->var_base[k->nvars] = -1;
	return k->nvars++;
}

/* ---- repeat counts: min, max, cdiv and affine terms (TripExpr) ---- */

static bool trip_call(Parser *p, TripExpr *e)
{
	bool cd = is_ident(p, "cdiv");
	e->op = cd ? TE_CDIV : is_ident(p, "min") ? TE_MIN : TE_MAX;
	next(p);
	if (!expect_punct(p, '(', cd ? "after cdiv" : "after min or max"))
		return false;
	TripExpr *x = arena_alloc(p->cx->arena, sizeof *x);
	if (!trip_expr(p, x) || !expect_punct(p, ',', "between the arguments"))
		return false;
	e->x = x;
	if (cd) {
		Loc dl = p->tok.loc;
		if (!take_int(p, "tile size", &e->d))
			return false;
		if (e->d < 1 || e->d > DYN_TILE_MAX) {
			p->line_failed = true;
			diag_error(p->cx, dl, "cdiv's tile size must be in 1..%d", DYN_TILE_MAX);
			return false;
		}
	} else {
		TripExpr *y = arena_alloc(p->cx->arena, sizeof *y);
		if (!trip_expr(p, y))
			return false;
		e->y = y;
	}
	return expect_punct(p, ')', cd ? "to close cdiv" : "to close min or max");
}

static bool trip_atom(Parser *p, TripExpr *e);

/* atoms joined by + and -: affine ones folded into one affine term */
bool trip_expr(Parser *p, TripExpr *e)
{
	if (!trip_atom(p, e))
		return false;
	while (is_punct(p, '+') || is_punct(p, '-')) {
		int sign = p->tok.c == '+' ? 1 : -1;
		next(p);
		TripExpr r;
		if (!trip_atom(p, &r))
			return false;
		if (e->op == TE_AFFINE && r.op == TE_AFFINE) {
			if (!affine_add(&e->a, &r.a, sign))
				return fail(p, "expression too large (overflow, or more than %d variables)", MAX_TERMS);
			continue;
		}
		TripExpr *x = arena_alloc(p->cx->arena, sizeof *x), *y = arena_alloc(p->cx->arena, sizeof *y);
		*x = *e, *y = r;
		memset(e, 0, sizeof *e);
		e->op = sign > 0 ? TE_ADD : TE_SUB;
		e->x = x, e->y = y;
	}
	return true;
}

/* cdiv(X, N), min(X, Y), max(X, Y), or an affine term (a product) */
static bool trip_atom(Parser *p, TripExpr *e)
{
	memset(e, 0, sizeof *e);
	if (p->expr_depth >= MAX_EXPR_DEPTH)
		return fail(p, "expression nests too deep (at most %d levels)", MAX_EXPR_DEPTH);
	Loc loc = p->tok.loc;
	if (p->tok.kind == TK_IDENT && !is_ident(p, "cdiv") && !is_ident(p, "min") && !is_ident(p, "max")) {
		const char *nm = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
		if (lookup_var(p, nm) < 0 && any_scalar_index(p->k, nm) < 0) {
			p->line_failed = true;
			diag_error(p->cx, loc, "unknown scalar '%s' as a repeat count (a count is a constant, a scalar param, "
			           "ctaid, ctaid_y or an enclosing repeat index, in affine terms, cdiv(X, N), min and max)", nm);
			return false;
		}
	}
	p->expr_depth++;
	bool ok = is_ident(p, "cdiv") || is_ident(p, "min") || is_ident(p, "max") ? trip_call(p, e) : term(p, &e->a);
	p->expr_depth--;
	for (int i = 0; ok && e->op == TE_AFFINE && i < e->a.n; i++) {
		int v = e->a.t[i].var;
		if (v == VAR_WARPID || v == VAR_WGID || v == VAR_CRANK) {
			p->line_failed = true;
			diag_error(p->cx, loc, "a repeat count may not use %s: every thread of the CTA runs the same count "
			           "(counts use constants, ctaid, ctaid_y, scalar params and enclosing repeat indices)",
			           v == VAR_WARPID ? "warpid" : v == VAR_WGID ? "wgid" : "cluster_ctarank");
			return false;
		}
		if (p->k->var_base[v] == VAR_RUNNING) {
			p->line_failed = true;
			diag_error(p->cx, loc, "'%s' is a running trip count: it is no repeat count", p->k->var_names[v]);
			return false;
		}
	}
	return ok;
}
