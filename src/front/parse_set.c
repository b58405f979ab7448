/* set DST[i, j] = EXPR: the parse hook (docs/language.md, "Compute on
 * tiles: set"). The destination's indices bind fresh index names (a whole
 * dimension) or are fixed coordinates; the expression is read into a tree
 * (SetNode, src/tilepx.h) whose integer parts stay affine expressions until
 * they meet a float (a literal, or a scalar read as f32) or a comparison (an
 * integer condition: a mask over coordinates). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a parsed subexpression: a node (value or condition), or an integer affine
 * expression not yet given a meaning */
typedef struct Val {
	SetNode *n;
	bool is_int, is_cond;
	Affine aff;
	Loc loc;
} Val;

typedef struct SetParse {
	Parser *p;
	SetExpr *x;
} SetParse;

static bool sp_or(SetParse *sp, Val *v);

static bool set_fail(SetParse *sp, Loc at, const char *what, const char *name)
{
	Parser *p = sp->p;
	if (!p->line_failed) {
		p->line_failed = true;
		diag_error(p->cx, at, what, name);
	}
	return false;
}

static SetNode *node_new(SetParse *sp, SetOp op, Loc loc)
{
	SetExpr *x = sp->x;
	if (x->nnodes >= SET_MAX_NODES) {
		set_fail(sp, loc, "set expression has too many terms (at most %s)", "256");
		return NULL;
	}
	SetNode *n = arena_alloc(sp->p->cx->arena, sizeof *n);
	n->op = op;
	n->loc = loc;
	n->id = x->nnodes;
	APUSH(sp->p->cx->arena, x->nodes, x->nnodes, x->nodecap, n);
	return n;
}

/* the raw character right after the current token (two-character operators) */
static char after_tok(const Parser *p) { return p->pos < p->len ? p->src[p->pos] : 0; }

static bool tok_is(const Parser *p, char c)
{
	return (p->tok.kind == TK_PUNCT || p->tok.kind == TK_BAD) && p->tok.len == 1 && p->tok.s[0] == c;
}

/* the operator c1 c2 written without a blank: consumed when present */
static bool take2(Parser *p, char c1, char c2)
{
	if (!tok_is(p, c1) || after_tok(p) != c2)
		return false;
	next(p);
	next(p);
	return true;
}

/* v as an f32 value node: a condition is not one; an integer affine
 * expression is one when it is a constant exact in f32 or an integer scalar */
static SetNode *as_value(SetParse *sp, Val *v)
{
	if (v->is_cond) {
		set_fail(sp, v->loc, "a condition is not a value%s (use select(COND, a, b))", "");
		return NULL;
	}
	if (!v->is_int)
		return v->n;
	if (affine_is_const(&v->aff)) {
		float f = (float)v->aff.c;
		if ((double)f != (double)v->aff.c || fabs((double)v->aff.c) > 16777216.0) {
			set_fail(sp, v->loc, "integer %s is not exact in f32 (write it as a float literal to round it)",
			         arena_printf(sp->p->cx->arena, "%lld", (long long)v->aff.c));
			return NULL;
		}
		SetNode *n = node_new(sp, SX_CONST, v->loc);
		if (n)
			memcpy(&n->bits, &f, 4);
		return n;
	}
	const Kernel *k = sp->p->k;
	const Scalar *sc = v->aff.n == 1 && v->aff.c == 0 && v->aff.t[0].k == 1 ? kernel_scalar_of_var(k, v->aff.t[0].var)
	                                                                        : NULL;
	if (!sc) {
		set_fail(sp, v->loc, "an integer expression of indices is not a value of set%s (compare it in a select's "
		         "condition, or read a buffer)", "");
		return NULL;
	}
	SetNode *n = node_new(sp, SX_SCALAR, v->loc);
	if (n)
		n->scalar = (int)(sc - k->scalars);
	return n;
}

static bool want_value(SetParse *sp, Val *v, SetNode **out) { return (*out = as_value(sp, v)) != NULL; }

static bool want_cond(SetParse *sp, Val *v, SetNode **out)
{
	if (!v->is_cond)
		return set_fail(sp, v->loc, "select takes a condition (a comparison), not a %s", v->is_int ? "integer" : "value");
	*out = v->n;
	return true;
}

static void make_node(Val *v, SetNode *n)
{
	v->n = n;
	v->is_int = v->is_cond = false;
}

/* a float literal at the current token (1.0, 0.5e-3, 0x1p-3): consumed into
 * *v when it is one; false with *ok false on a malformed one */
static bool float_literal(SetParse *sp, Val *v, bool *ok)
{
	Parser *p = sp->p;
	const char *s = p->tok.s;
	*ok = true;
	if (!(p->tok.kind == TK_INT || p->tok.kind == TK_BAD) || !isdigit((unsigned char)s[0]))
		return false;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	size_t n = 0;
	while (s + n < p->src + p->len && (isalnum((unsigned char)s[n]) || s[n] == '.' ||
	                                   ((s[n] == '-' || s[n] == '+') && strchr(hex ? "pP" : "eE", s[n - 1]))))
		n++;
	if (!memchr(s, '.', n) && !memchr(s, hex ? 'p' : 'e', n) && !memchr(s, hex ? 'P' : 'E', n))
		return false; /* an integer */
	char *text = arena_strndup(p->cx->arena, s, n), *end;
	errno = 0;
	float f = strtof(text, &end);
	if (*end || (hex && !strpbrk(text, "pP"))) {
		*ok = set_fail(sp, p->tok.loc, "malformed float literal '%s'", text);
		return false;
	}
	if (isinf(f) || (f == 0 && strpbrk(text, "123456789") && strcspn(text, "123456789") < strcspn(text, "eEpP"))) {
		*ok = set_fail(sp, p->tok.loc, isinf(f) ? "float literal '%s' is out of the range of f32" :
		                                          "float literal '%s' rounds to zero in f32", text);
		return false;
	}
	SetNode *nd = node_new(sp, SX_CONST, p->tok.loc);
	if (!nd)
		return !(*ok = false);
	memcpy(&nd->bits, &f, 4);
	make_node(v, nd);
	p->pos = (size_t)(s - p->src) + n; /* past the whole literal, then the next token */
	p->col = p->tok.loc.col + (int)n;
	next(p);
	return true;
}

static const struct { const char *name; SetOp op; int nargs; } set_calls[] = {
	{"fma", SX_FMA, 3},     {"max", SX_MAX, 2},     {"min", SX_MIN, 2},   {"abs", SX_ABS, 1},
	{"exp2", SX_EXP2, 1},   {"log2", SX_LOG2, 1},   {"rcp", SX_RCP, 1},   {"rsqrt", SX_RSQRT, 1},
	{"sqrt", SX_SQRT, 1},   {"tanh", SX_TANH, 1},   {"select", SX_SELECT, 3}, {"exp2_ftz", SX_EXP2_FTZ, 1},
};

/* NAME(args): one of set_calls */
static bool call(SetParse *sp, const char *name, Loc at, Val *v)
{
	Parser *p = sp->p;
	size_t c = 0;
	while (c < sizeof set_calls / sizeof *set_calls && strcmp(set_calls[c].name, name))
		c++;
	if (c == sizeof set_calls / sizeof *set_calls)
		return set_fail(sp, at, "unknown function '%s' (set has fma, max, min, abs, exp2, exp2_ftz, log2, rcp, rsqrt, sqrt, "
		                "tanh and select)", name);
	next(p); /* '(' */
	SetNode *args[3] = {0};
	for (int i = 0; i < set_calls[c].nargs; i++) {
		Val a;
		if (i && !expect_punct(p, ',', "between the arguments"))
			return false;
		if (!sp_or(sp, &a))
			return false;
		if (!(i == 0 && set_calls[c].op == SX_SELECT ? want_cond(sp, &a, &args[i]) : want_value(sp, &a, &args[i])))
			return false;
	}
	if (!expect_punct(p, ')', "to close the arguments"))
		return false;
	SetNode *n = node_new(sp, set_calls[c].op, at); /* after its arguments: children before parents */
	if (!n)
		return false;
	memcpy(n->a, args, sizeof args);
	make_node(v, n);
	return true;
}

/* a whole region of b among the buffers the statement reads (the wgmma proof's view) */
static void note_read(SetParse *sp, Buffer *b, const char *name, Loc at)
{
	SetExpr *x = sp->x;
	for (int i = 0; i < x->nreads; i++)
		if (x->reads[i]->buf == b)
			return;
	Region *r = arena_alloc(sp->p->cx->arena, sizeof *r);
	*r = (Region){.name = name, .loc = at, .buf = b, .whole = true};
	APUSH(sp->p->cx->arena, x->reads, x->nreads, x->readcap, r);
}

/* NAME[e0, e1, ...]: an operand element */
static bool operand(SetParse *sp, const char *name, Loc at, Val *v)
{
	Parser *p = sp->p;
	Buffer *b = kernel_find_buffer(p->k, name);
	if (!b)
		return set_fail(sp, at, "unknown buffer '%s'", name);
	next(p); /* '[' */
	Affine idx[MAX_DIMS];
	int n = 0;
	for (;;) {
		if (n == MAX_DIMS)
			return fail(p, "too many indices (at most %d)", MAX_DIMS);
		if (!expr(p, &idx[n++]))
			return false;
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	if (!expect_punct(p, ']', "to close the indices"))
		return false;
	if (n != b->ndim)
		return set_fail(sp, at, "'%s' takes one index per dimension", name);
	SetNode *nd = node_new(sp, SX_LOAD, at);
	if (!nd)
		return false;
	nd->buf = b;
	nd->idx = arena_alloc(p->cx->arena, sizeof(Affine) * (size_t)n);
	memcpy(nd->idx, idx, sizeof(Affine) * (size_t)n);
	note_read(sp, b, name, at);
	make_node(v, nd);
	return true;
}

/* a name: a call, an operand, inf/nan, a float scalar, or an integer variable */
static bool name_primary(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	Loc at = p->tok.loc;
	const char *name = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
	next(p);
	if (is_punct(p, '('))
		return call(sp, name, at, v);
	if (is_punct(p, '['))
		return operand(sp, name, at, v);
	int si = any_scalar_index(p->k, name);
	if (si >= 0 && dtype_is_float_scalar(p->k->scalars[si].dt)) {
		SetNode *n = node_new(sp, SX_SCALAR, at);
		if (!n)
			return false;
		n->scalar = si;
		make_node(v, n);
		return true;
	}
	int var = lookup_var(p, name);
	if (var >= 0) {
		memset(&v->aff, 0, sizeof v->aff);
		v->aff.n = 1;
		v->aff.t[0].var = var;
		v->aff.t[0].k = 1;
		v->is_int = true;
		return true;
	}
	if (!strcmp(name, "inf") || !strcmp(name, "nan")) {
		SetNode *n = node_new(sp, SX_CONST, at);
		if (!n)
			return false;
		n->bits = name[0] == 'i' ? 0x7f800000u : 0x7fffffffu;
		make_node(v, n);
		return true;
	}
	return set_fail(sp, at, "unknown name '%s' in set (operands are local buffers NAME[...], scalar params, "
	                "literals, index names, repeat indices, ctaid, ctaid_y, warpid and wgid)", name);
}

static bool primary(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	memset(v, 0, sizeof *v);
	v->loc = p->tok.loc;
	if (p->expr_depth >= 64)
		return fail(p, "expression nests too deep (at most 64 levels)");
	if (is_punct(p, '(')) {
		next(p);
		p->expr_depth++;
		bool ok = sp_or(sp, v);
		p->expr_depth--;
		v->loc = v->loc.line ? v->loc : p->tok.loc;
		return ok && expect_punct(p, ')', "to close '('");
	}
	bool ok;
	if (float_literal(sp, v, &ok) || !ok)
		return ok;
	if (p->tok.kind == TK_INT) {
		v->is_int = true;
		v->aff.c = p->tok.val;
		next(p);
		return true;
	}
	if (p->tok.kind == TK_IDENT)
		return name_primary(sp, v);
	return fail(p, "expected a value, found %s", tok_text(p));
}

static bool unary(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	if (!is_punct(p, '-'))
		return primary(sp, v);
	Loc at = p->tok.loc;
	next(p);
	p->expr_depth++;
	bool ok = p->expr_depth < 64 ? unary(sp, v) : fail(p, "expression nests too deep (at most 64 levels)");
	p->expr_depth--;
	if (!ok)
		return false;
	v->loc = at;
	if (v->is_int) {
		Affine z = {0};
		return affine_add(&z, &v->aff, -1) ? (v->aff = z, true) : fail(p, "integer overflow in expression");
	}
	SetNode *a;
	if (!want_value(sp, v, &a))
		return false;
	if (a->op == SX_CONST) { /* a negative literal: the sign bit */
		a->bits ^= 0x80000000u;
		return true;
	}
	SetNode *n = node_new(sp, SX_NEG, at);
	if (!n)
		return false;
	n->a[0] = a;
	make_node(v, n);
	return true;
}

/* l OP r: integer affine when both are and OP keeps it affine, else a node */
static bool combine(SetParse *sp, Val *l, Val *r, char op, Loc at)
{
	if (l->is_int && r->is_int && (op == '+' || op == '-')) {
		if (!affine_add(&l->aff, &r->aff, op == '-' ? -1 : 1))
			return fail(sp->p, "integer overflow in expression");
		return true;
	}
	if (l->is_int && r->is_int && op == '*' && (affine_is_const(&l->aff) || affine_is_const(&r->aff))) {
		Affine z = {0}, *v = affine_is_const(&l->aff) ? &r->aff : &l->aff;
		int64_t c = affine_is_const(&l->aff) ? l->aff.c : r->aff.c;
		if (!affine_add(&z, v, c))
			return fail(sp->p, "integer overflow in expression");
		l->aff = z;
		return true;
	}
	SetNode *a, *b;
	if (!want_value(sp, l, &a) || !want_value(sp, r, &b))
		return false;
	SetNode *n = node_new(sp, op == '+' ? SX_ADD : op == '-' ? SX_SUB : op == '*' ? SX_MUL : SX_DIV, at);
	if (!n)
		return false;
	n->a[0] = a;
	n->a[1] = b;
	make_node(l, n);
	return true;
}

static bool term(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	if (!unary(sp, v))
		return false;
	while (is_punct(p, '*') || is_punct(p, '/')) {
		char op = p->tok.c;
		Loc at = p->tok.loc;
		Val r;
		next(p);
		if (!unary(sp, &r) || !combine(sp, v, &r, op, at))
			return false;
	}
	return true;
}

static bool sum(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	if (!term(sp, v))
		return false;
	while (is_punct(p, '+') || is_punct(p, '-')) {
		char op = p->tok.c;
		Loc at = p->tok.loc;
		Val r;
		next(p);
		if (!term(sp, &r) || !combine(sp, v, &r, op, at))
			return false;
	}
	return true;
}

/* the comparison operator at the current token, consumed; -1 if none */
static int comparison_op(Parser *p)
{
	if (take2(p, '<', '='))
		return CMP_LE;
	if (take2(p, '>', '='))
		return CMP_GE;
	if (take2(p, '=', '='))
		return CMP_EQ;
	if (take2(p, '!', '='))
		return CMP_NE;
	if (is_punct(p, '<') || is_punct(p, '>')) {
		int c = is_punct(p, '<') ? CMP_LT : CMP_GT;
		next(p);
		return c;
	}
	return -1;
}

static bool compare(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	if (!sum(sp, v))
		return false;
	Loc at = p->tok.loc;
	int c = comparison_op(p);
	if (c < 0)
		return true;
	Val r;
	if (!sum(sp, &r))
		return false;
	if (v->is_cond || r.is_cond)
		return set_fail(sp, at, "a comparison compares values, not conditions%s", "");
	SetNode *n;
	if (v->is_int && r.is_int) {
		if (!(n = node_new(sp, SX_ICMP, at)))
			return false;
		n->diff = v->aff;
		if (!affine_add(&n->diff, &r.aff, -1))
			return fail(p, "integer overflow in expression");
	} else {
		SetNode *a, *b;
		if (!want_value(sp, v, &a) || !want_value(sp, &r, &b) || !(n = node_new(sp, SX_FCMP, at)))
			return false;
		n->a[0] = a;
		n->a[1] = b;
	}
	n->cmp = (SetCmp)c;
	make_node(v, n);
	v->is_cond = true;
	return true;
}

static bool logic_not(SetParse *sp, Val *v)
{
	Parser *p = sp->p;
	if (!is_punct(p, '!') || after_tok(p) == '=')
		return compare(sp, v);
	Loc at = p->tok.loc;
	next(p);
	SetNode *a, *n;
	if (!logic_not(sp, v) || !want_cond(sp, v, &a) || !(n = node_new(sp, SX_NOT, at)))
		return false;
	n->a[0] = a;
	make_node(v, n);
	v->is_cond = true;
	return true;
}

static bool logic(SetParse *sp, Val *v, char c, bool (*inner)(SetParse *, Val *))
{
	Parser *p = sp->p;
	if (!inner(sp, v))
		return false;
	for (;;) {
		Loc at = p->tok.loc;
		if (!take2(p, c, c))
			return true;
		Val r;
		SetNode *a, *b, *n;
		if (!want_cond(sp, v, &a) || !inner(sp, &r) || !want_cond(sp, &r, &b) ||
		    !(n = node_new(sp, c == '&' ? SX_AND : SX_OR, at)))
			return false;
		n->a[0] = a;
		n->a[1] = b;
		make_node(v, n);
		v->is_cond = true;
	}
}

static bool sp_and(SetParse *sp, Val *v) { return logic(sp, v, '&', logic_not); }
static bool sp_or(SetParse *sp, Val *v) { return logic(sp, v, '|', sp_and); }

/* the destination's index d: a fresh index name (followed by ',' or ']'
 * and naming no variable) or a fixed coordinate */
static bool dst_index(SetParse *sp, int d)
{
	Parser *p = sp->p;
	SetExpr *x = sp->x;
	x->idx_var[d] = -1;
	x->idx_loc[d] = p->tok.loc;
	if (p->tok.kind == TK_IDENT) {
		size_t q = p->pos;
		while (q < p->len && (p->src[q] == ' ' || p->src[q] == '\t'))
			q++;
		const char *name = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
		for (int e = 0; e < d; e++)
			if (x->idx_name[e] && !strcmp(x->idx_name[e], name))
				return set_fail(sp, p->tok.loc, "index name '%s' is bound twice (each names one dimension)", name);
		if (q < p->len && (p->src[q] == ',' || p->src[q] == ']') && lookup_var(p, name) < 0 &&
		    any_scalar_index(p->k, name) < 0) {
			x->idx_name[d] = name;
			x->idx_var[d] = new_var(p, x->dst->shape[d], name);
			p->uname[p->nu] = name;
			p->uvar[p->nu++] = x->idx_var[d];
			x->dst_idx[d].n = 1;
			x->dst_idx[d].t[0].var = x->idx_var[d];
			x->dst_idx[d].t[0].k = 1;
			next(p);
			return true;
		}
	}
	return expr(p, &x->dst_idx[d]);
}

static bool set_dst(SetParse *sp, Stmt *s)
{
	Parser *p = sp->p;
	SetExpr *x = sp->x;
	x->dst_loc = p->tok.loc;
	const char *name = take_ident(p, "the destination buffer");
	if (!name)
		return false;
	if (!(x->dst = kernel_find_buffer(p->k, name)))
		return set_fail(sp, x->dst_loc, "unknown buffer '%s'", name);
	if (x->dst->ndim > SET_MAX_RANK)
		return set_fail(sp, x->dst_loc, "set writes buffers of rank at most 4; '%s' has more", name);
	if (!expect_punct(p, '[', "and the destination's indices"))
		return false;
	for (int d = 0; d < x->dst->ndim; d++) {
		if (d && !expect_punct(p, ',', "between the indices"))
			return false;
		if (!dst_index(sp, d))
			return false;
	}
	if (!expect_punct(p, ']', "after one index per dimension of the destination"))
		return false;
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	*s->dst = (Region){.name = name, .loc = x->dst_loc, .buf = x->dst, .whole = true};
	return true;
}

bool parse_set(Parser *p, Stmt *s)
{
	if (!p->k)
		return fail(p, "set outside a kernel");
	SetParse sp = {p, arena_alloc(p->cx->arena, sizeof(SetExpr))};
	s->set = sp.x;
	int nu = p->nu;
	bool ok = set_dst(&sp, s) && expect_punct(p, '=', "after the destination");
	Val v;
	ok = ok && sp_or(&sp, &v) && want_value(&sp, &v, &sp.x->root);
	p->nu = nu; /* the index names end with the statement */
	return ok;
}
