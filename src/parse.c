/* Lexer and parser for the .tile language (docs/language.md). Line
 * oriented: a statement that fails to parse is reported and skipped to the
 * end of its line, so every bad line in a file gets its own error. */
#include "tilepx.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TK_EOF, TK_NL, TK_IDENT, TK_INT, TK_PUNCT, TK_BAD } TokKind;

typedef struct Tok {
	TokKind kind;
	Loc loc;
	const char *s; /* start in source */
	size_t len;
	int64_t val;
	char c;
} Tok;

typedef struct Parser {
	Ctx *cx;
	const char *src;
	size_t len, pos;
	int line, col;
	Tok tok;
	bool line_failed;
	Module *m;
	Kernel *k;
	/* open repeat blocks */
	Stmt *stack[MAX_REPEAT_DEPTH + 1];
	int depth;
	int expr_depth; /* parentheses and unary minus nest; bounded, the parser recurses */
	/* compile-time indices of the asm block being read */
	const char *uname[MAX_ASM_UNROLL];
	int uvar[MAX_ASM_UNROLL];
	int nu;
} Parser;

static void advance_char(Parser *p)
{
	if (p->src[p->pos] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->pos++;
}

static void next(Parser *p)
{
	/* skip blanks and comments */
	for (;;) {
		if (p->pos >= p->len)
			break;
		char c = p->src[p->pos];
		if (c == ' ' || c == '\t' || c == '\r') {
			advance_char(p);
		} else if (c == '#') {
			while (p->pos < p->len && p->src[p->pos] != '\n')
				advance_char(p);
		} else {
			break;
		}
	}
	Tok t = {0};
	t.loc = (Loc){p->line, p->col};
	t.s = p->src + p->pos;
	if (p->pos >= p->len) {
		t.kind = TK_EOF;
		p->tok = t;
		return;
	}
	unsigned char c = (unsigned char)p->src[p->pos];
	if (c == '\n') {
		t.kind = TK_NL;
		advance_char(p);
	} else if (isalpha(c) || c == '_') {
		t.kind = TK_IDENT;
		while (p->pos < p->len && (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '_'))
			advance_char(p);
	} else if (isdigit(c)) {
		t.kind = TK_INT;
		int base = 10;
		if (c == '0' && p->pos + 1 < p->len && (p->src[p->pos + 1] == 'x' || p->src[p->pos + 1] == 'X')) {
			base = 16;
			advance_char(p);
			advance_char(p);
		}
		bool overflow = false, any = false;
		uint64_t v = 0;
		while (p->pos < p->len) {
			int d = -1;
			char ch = p->src[p->pos];
			if (isdigit((unsigned char)ch))
				d = ch - '0';
			else if (base == 16 && isxdigit((unsigned char)ch))
				d = (tolower((unsigned char)ch) - 'a') + 10;
			else if (isalnum((unsigned char)ch) || ch == '_')
				d = 99;
			if (d < 0)
				break;
			if (d >= base) {
				t.kind = TK_BAD;
				break;
			}
			any = true;
			if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base)
				overflow = true;
			else
				v = v * (uint64_t)base + (uint64_t)d;
			advance_char(p);
		}
		if (!any && t.kind == TK_INT)
			t.kind = TK_BAD;
		if (t.kind == TK_BAD) {
			while (p->pos < p->len && (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '_'))
				advance_char(p);
		} else if (overflow) {
			t.kind = TK_BAD;
			t.val = -1; /* marks overflow */
		} else {
			t.val = (int64_t)v;
		}
	} else if (strchr("[](){},:@=+-*/%.&<>!", c)) {
		t.kind = TK_PUNCT;
		t.c = (char)c;
		advance_char(p);
	} else {
		t.kind = TK_BAD;
		advance_char(p);
	}
	t.len = (size_t)(p->src + p->pos - t.s);
	p->tok = t;
}

static bool is_ident(Parser *p, const char *s)
{
	return p->tok.kind == TK_IDENT && p->tok.len == strlen(s) && !memcmp(p->tok.s, s, p->tok.len);
}

static bool is_punct(Parser *p, char c) { return p->tok.kind == TK_PUNCT && p->tok.c == c; }

static const char *tok_text(Parser *p)
{
	switch (p->tok.kind) {
	case TK_EOF: return "end of file";
	case TK_NL: return "end of line";
	case TK_BAD:
		if (p->tok.len == 1 && ((unsigned char)p->tok.s[0] < 32 || (unsigned char)p->tok.s[0] > 126))
			return arena_printf(p->cx->arena, "byte 0x%02x", (unsigned char)p->tok.s[0]);
		/* fallthrough */
	default: {
		size_t n = p->tok.len > 40 ? 40 : p->tok.len;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p->tok.s[i] < 32 || (unsigned char)p->tok.s[i] > 126)
				return arena_printf(p->cx->arena, "byte 0x%02x", (unsigned char)p->tok.s[i]);
		return arena_printf(p->cx->arena, "'%.*s'", (int)n, p->tok.s);
	}
	}
}

/* report at the current token, once per line */
static bool fail(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Parser *p, const char *fmt, ...)
{
	if (p->line_failed)
		return false;
	p->line_failed = true;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (p->tok.kind == TK_BAD && p->tok.val == -1 && p->tok.len && isdigit((unsigned char)p->tok.s[0]))
		diag_error(p->cx, p->tok.loc, "integer literal %s is too large (limit 2^63-1)", tok_text(p));
	else if (p->tok.kind == TK_BAD)
		diag_error(p->cx, p->tok.loc, "unexpected %s", tok_text(p));
	else
		diag_error(p->cx, p->tok.loc, "%s", buf);
	return false;
}

static bool expect_punct(Parser *p, char c, const char *what)
{
	if (!is_punct(p, c))
		return fail(p, "expected '%c' %s, found %s", c, what, tok_text(p));
	next(p);
	return true;
}

static const char *take_ident(Parser *p, const char *what)
{
	if (p->tok.kind != TK_IDENT) {
		fail(p, "expected %s, found %s", what, tok_text(p));
		return NULL;
	}
	const char *s = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
	next(p);
	return s;
}

static bool take_int(Parser *p, const char *what, int64_t *out)
{
	if (p->tok.kind != TK_INT) {
		if (is_punct(p, '-'))
			return fail(p, "%s must not be negative", what);
		return fail(p, "expected %s (an integer), found %s", what, tok_text(p));
	}
	*out = p->tok.val;
	next(p);
	return true;
}

static bool end_of_line(Parser *p)
{
	if (p->tok.kind != TK_NL && p->tok.kind != TK_EOF)
		return fail(p, "unexpected %s at end of statement", tok_text(p));
	return true;
}

/* ---- affine expressions ---- */

static bool expr(Parser *p, Affine *out);
static int new_var(Parser *p, int64_t ext, const char *name);

/* index of kernel k's scalar param named nm, or -1 */
static int scalar_index(const Kernel *k, const char *nm)
{
	for (size_t i = 0; i < k->nscalars; i++)
		if (!strcmp(k->scalars[i].name, nm))
			return (int)i;
	return -1;
}

static int lookup_var(Parser *p, const char *name)
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

static bool factor(Parser *p, Affine *out)
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
		if (v < 0) {
			if (!p->line_failed) {
				p->line_failed = true;
				diag_error(p->cx, loc,
				           "unknown variable '%s' (expressions use constants, ctaid, ctaid_y, cluster_ctarank, "
				           "warpid, wgid, scalar params and repeat indices)",
				           name);
			}
			return false;
		}
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

static bool expr(Parser *p, Affine *out)
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

/* ---- layouts ---- */

static bool stride(Parser *p, Iter *it)
{
	if (p->tok.kind == TK_IDENT) { /* a bare axis: stride 1 on it */
		Axis a;
		char *name = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
		if (!axis_parse(name, &a))
			return fail(p, "unknown axis '%s'", name);
		it->stride = 1;
		it->axis = a;
		next(p);
		return true;
	}
	if (!take_int(p, "stride", &it->stride))
		return false;
	it->axis = AX_M;
	if (is_punct(p, '@')) {
		next(p);
		if (p->tok.kind != TK_IDENT)
			return fail(p, "expected an axis after '@', found %s", tok_text(p));
		char *name = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
		Axis a;
		if (!axis_parse(name, &a))
			return fail(p, "unknown axis '%s' (axes: laneid warpid wid_in_wg tid_in_wg wgid tx TLane TCol)", name);
		it->axis = a;
		next(p);
	}
	return true;
}

/* a list "(a, b, c)" or a single element; calls fn for each */
static int int_list(Parser *p, int64_t *out, int max, const char *what)
{
	int n = 0;
	bool paren = is_punct(p, '(');
	if (paren)
		next(p);
	for (;;) {
		if (n == max) {
			fail(p, "too many %ss (at most %d)", what, max);
			return -1;
		}
		if (!take_int(p, what, &out[n]))
			return -1;
		n++;
		if (!paren || !is_punct(p, ','))
			break;
		next(p);
	}
	if (paren && !expect_punct(p, ')', "to close the list"))
		return -1;
	return n;
}

static int stride_list(Parser *p, Iter *out, int max)
{
	int n = 0;
	bool paren = is_punct(p, '(');
	if (paren)
		next(p);
	for (;;) {
		if (n == max) {
			fail(p, "too many strides (at most %d)", max);
			return -1;
		}
		if (!stride(p, &out[n]))
			return -1;
		n++;
		if (!paren || !is_punct(p, ','))
			break;
		next(p);
	}
	if (paren && !expect_punct(p, ')', "to close the stride list"))
		return -1;
	return n;
}

static bool swizzle(Parser *p, Buffer *b)
{
	Swizzle *sw = &b->layout.sw;
	Loc loc = p->tok.loc;
	next(p); /* 'swizzle' */
	if (is_ident(p, "auto")) { /* tilepx chooses (check, src/hazard.c) */
		next(p);
		b->sw_auto = true;
		b->sw_auto_loc = loc;
		return true;
	}
	int64_t v[3];
	if (!expect_punct(p, '(', "after 'swizzle'"))
		return false;
	for (int i = 0; i < 3; i++) {
		if (!take_int(p, "swizzle parameter", &v[i]))
			return false;
		if (i < 2 && !expect_punct(p, ',', "between swizzle parameters"))
			return false;
	}
	if (!expect_punct(p, ')', "to close 'swizzle('"))
		return false;
	if (v[0] > 16 || v[1] > 16 || v[2] > 16 || v[1] < 1) {
		p->line_failed = true;
		diag_error(p->cx, loc, "swizzle(%lld, %lld, %lld): parameters must be small (P, A <= 16, 1 <= W <= 16)",
		           (long long)v[0], (long long)v[1], (long long)v[2]);
		return false;
	}
	if (v[2] < v[1]) {
		p->line_failed = true;
		diag_error(p->cx, loc, "swizzle(%lld, %lld, %lld) is not well formed: the atom length A must be >= W",
		           (long long)v[0], (long long)v[1], (long long)v[2]);
		return false;
	}
	*sw = (Swizzle){true, (int)v[0], (int)v[1], (int)v[2]};
	return true;
}

/* layout := S[...] [swizzle(...) | swizzle auto] | swizzle(...) | swizzle auto
 * ; has_iters=false for a bare swizzle */
static bool layout(Parser *p, Buffer *b)
{
	Layout *L = &b->layout;
	memset(L, 0, sizeof *L);
	b->layout_loc = p->tok.loc;
	if (is_ident(p, "swizzle")) {
		b->has_layout = false; /* compact row-major, filled in by check */
		return swizzle(p, b);
	}
	if (!is_ident(p, "S"))
		return fail(p, "expected a layout 'S[...]' or 'swizzle(P, W, A)', found %s", tok_text(p));
	next(p);
	if (!expect_punct(p, '[', "after 'S'"))
		return false;
	int64_t ext[PARSE_ITERS];
	Loc ext_loc = p->tok.loc;
	int n = int_list(p, ext, PARSE_ITERS, "extent");
	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (ext[i] == 0) {
			p->line_failed = true;
			diag_error(p->cx, ext_loc, "layout extents must be positive");
			return false;
		}
	L->n = n;
	for (int i = 0; i < n; i++)
		L->it[i] = (Iter){ext[i], 0, AX_M};
	if (is_punct(p, ':')) {
		next(p);
		Loc sl = p->tok.loc;
		Iter st[PARSE_ITERS];
		int ns = stride_list(p, st, PARSE_ITERS);
		if (ns < 0)
			return false;
		if (ns != n) {
			p->line_failed = true;
			diag_error(p->cx, sl, "layout has %d extents but %d strides", n, ns);
			return false;
		}
		for (int i = 0; i < n; i++) {
			L->it[i].stride = st[i].stride;
			L->it[i].axis = st[i].axis;
		}
	} else {
		lay_compact(L, ext, n);
	}
	if (!expect_punct(p, ']', "to close 'S['"))
		return false;
	b->has_layout = true;
	if (is_ident(p, "swizzle"))
		return swizzle(p, b);
	return true;
}

/* ---- statements ---- */

static Kernel *need_kernel(Parser *p, Loc loc, const char *what)
{
	if (!p->k) {
		if (!p->line_failed) {
			p->line_failed = true;
			diag_error(p->cx, loc, "'%s' outside a kernel (start one with 'kernel NAME')", what);
		}
		return NULL;
	}
	return p->k;
}

static void add_stmt(Parser *p, Stmt *s)
{
	if (p->depth > 0) {
		Stmt *r = p->stack[p->depth - 1];
		APUSH(p->cx->arena, r->body, r->nbody, r->cap, s);
	} else {
		APUSH(p->cx->arena, p->k->body, p->k->nbody, p->k->cap, s);
	}
}

/* after the keyword (at kwloc): NAME DTYPE [SHAPE] [: LAYOUT] ... */
/* param NAME u32|i32|u64|i64 (after the dtype): a scalar kernel argument */
static bool parse_scalar(Parser *p, Kernel *k, Buffer *b)
{
	if (b->dt != DT_U32 && b->dt != DT_I32 && b->dt != DT_U64 && b->dt != DT_I64)
		return fail(p, "expected '[' and the shape of param '%s', found %s (a scalar param is u32, i32, u64 or i64)",
		            b->name, tok_text(p));
	if (k->is_func)
		return fail(p, "a func takes scalars as 'arg NAME N', not as params");
	if (lookup_var(p, b->name) >= 0)
		return fail(p, "scalar '%s' shadows a variable already in scope", b->name);
	if (k->nscalars == 32)
		return fail(p, "a kernel takes at most 32 scalar params");
	if (!end_of_line(p))
		return false;
	for (size_t i = 0; i < k->nbufs; i++)
		if (!strcmp(k->bufs[i]->name, b->name)) {
			diag_error(p->cx, b->loc, "'%s' is already declared in kernel '%s' (line %d)", b->name, k->name,
			           k->bufs[i]->loc.line);
			return false;
		}
	Scalar sc = {.name = b->name, .loc = b->loc, .dt = b->dt, .lo = 0, .hi = SCALAR_MAX, .mult = 1};
	sc.var = new_var(p, (int64_t)SCALAR_MAX + 1, b->name);
	APUSH(p->cx->arena, k->scalars, k->nscalars, k->sccap, sc);
	return true;
}

static bool parse_buffer(Parser *p, Loc kwloc, Mem mem, const char *kw)
{
	Kernel *k = need_kernel(p, kwloc, kw);
	if (!k)
		return false;
	Buffer *b = arena_alloc(p->cx->arena, sizeof *b);
	b->mem = mem;
	b->loc = p->tok.loc;
	if (!(b->name = take_ident(p, "a buffer name")))
		return false;
	if (p->tok.kind != TK_IDENT)
		return fail(p, "expected a dtype (i8 u8 e4m3 e5m2 i16 u16 f16 bf16 i32 u32 f32 tf32 i64 u64 f64), found %s",
		            tok_text(p));
	char *dt = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
	if (!dtype_parse(dt, &b->dt))
		return fail(p, "unknown dtype '%s' (i8 u8 e4m3 e5m2 i16 u16 f16 bf16 i32 u32 f32 tf32 i64 u64 f64)", dt);
	next(p);
	if (mem == MEM_GLOBAL && !is_punct(p, '['))
		return parse_scalar(p, k, b);
	if (!expect_punct(p, '[', "to start the buffer shape"))
		return false;
	for (;;) {
		if (b->ndim == MAX_DIMS)
			return fail(p, "too many dimensions (at most %d)", MAX_DIMS);
		b->dim_loc[b->ndim] = p->tok.loc;
		if (p->tok.kind == TK_IDENT) { /* a runtime extent: a scalar param */
			const char *nm = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
			int si = scalar_index(k, nm);
			if (si < 0)
				return fail(p, "unknown scalar '%s' as a dimension (declare 'param %s u32' before it)", nm, nm);
			if (mem != MEM_GLOBAL)
				return fail(p, "only params have runtime extents ('%s' is a %s buffer)", b->name, kw);
			b->dyn_dim[b->ndim] = si + 1;
			b->dynamic = true;
			b->shape[b->ndim++] = k->scalars[si].hi;
			next(p);
			if (!is_punct(p, ','))
				break;
			next(p);
			continue;
		}
		if (!take_int(p, "dimension", &b->shape[b->ndim]))
			return false;
		if (b->shape[b->ndim] == 0) {
			p->line_failed = true;
			diag_error(p->cx, b->dim_loc[b->ndim], "dimension must be positive");
			return false;
		}
		b->ndim++;
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	if (!expect_punct(p, ']', "to close the buffer shape"))
		return false;
	if (is_ident(p, "layout")) {
		next(p);
		if (!layout(p, b))
			return false;
	} else if (mem == MEM_LOCAL || mem == MEM_TMEM) {
		return fail(p, "a %s buffer needs 'layout L', found %s", kw, tok_text(p));
	}
	if ((mem == MEM_GLOBAL || mem == MEM_SHARED) && is_ident(p, "storage")) {
		/* padded layouts: the elements the layout's codomain spans, beyond the shape */
		next(p);
		b->storage_loc = p->tok.loc;
		if (!take_int(p, "storage element count", &b->storage_given))
			return false;
		if (b->storage_given < 1 || b->storage_given > ((int64_t)1 << 40)) { /* as a shape: its bytes fit 64 bits */
			p->line_failed = true;
			diag_error(p->cx, b->storage_loc, b->storage_given < 1 ? "storage must be at least 1 element"
			                                                       : "storage must be at most 2^40 elements");
			return false;
		}
	}
	/* colmajor and ld S, in either order */
	for (int opt = 0; opt < 2 && mem == MEM_GLOBAL; opt++) {
		if (is_ident(p, "colmajor") && !b->colmajor) { /* dim 0 contiguous */
			b->colmajor_loc = p->tok.loc;
			next(p);
			b->colmajor = true;
			b->dynamic = true;
		}
		if (is_ident(p, "ld") && !b->ld_scalar) { /* a leading dimension: the row stride, a scalar */
			b->ld_loc = p->tok.loc;
			next(p);
			Loc sl = p->tok.loc;
			const char *nm = take_ident(p, "a scalar param (the row stride in elements)");
			if (!nm)
				return false;
			int si = scalar_index(k, nm);
			if (si < 0) {
				p->line_failed = true;
				diag_error(p->cx, sl, "unknown scalar '%s' as a leading dimension (declare 'param %s u32' before it)", nm,
				           nm);
				return false;
			}
			b->ld_scalar = si + 1;
			b->dynamic = true;
		}
	}
	if (mem == MEM_TMEM && is_ident(p, "cols")) {
		next(p);
		b->cols_loc = p->tok.loc;
		if (!take_int(p, "column count", &b->cols))
			return false;
		b->cols_given = true;
	}
	if (mem == MEM_GLOBAL && is_ident(p, "fill")) {
		next(p);
		if (!is_ident(p, "small") && !is_ident(p, "edges"))
			return fail(p, "expected 'small' or 'edges' after 'fill', found %s", tok_text(p));
		b->fill_small = is_ident(p, "small");
		b->fill_edges = !b->fill_small;
		next(p);
	}
	if (mem == MEM_GLOBAL && is_ident(p, "tma")) {
		b->tma_loc = p->tok.loc;
		next(p);
		b->tma = true;
	}
	if (!end_of_line(p))
		return false;
	if (mem == MEM_GLOBAL)
		b->param_index = k->nparams++;
	if (b->tma)
		b->tma_index = k->ntmaps++;
	APUSH(p->cx->arena, k->bufs, k->nbufs, k->bufcap, b);
	return true;
}

static bool parse_region_dims(Parser *p, Region *r, Affine *begin, Affine *end);

/* begin/end are parsed into MAX_DIMS-long temporaries and kept for the
 * region's dimensions only (a copy statement's operands are most of a
 * program's memory) */
static bool parse_region(Parser *p, Region *r)
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

/* ---- statements: the hooks of stmt.def's parse column ---- */
static bool parse_mbar_ref(Parser *p, Stmt *s);

/* SCOPE copy|copy_async DST, SRC [dispatch=NAME] */
static bool parse_copy(Parser *p, Stmt *s)
{
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	s->src = arena_alloc(p->cx->arena, sizeof(Region));
	if (!parse_region(p, s->dst) || !expect_punct(p, ',', "between destination and source") ||
	    !parse_region(p, s->src))
		return false;
	for (;;) {
		if (is_ident(p, "dispatch") && !s->dispatch) {
			next(p);
			if (!expect_punct(p, '=', "after 'dispatch'"))
				return false;
			s->dispatch_loc = p->tok.loc;
			if (!(s->dispatch = take_ident(p, "a variant name")))
				return false;
		} else if (is_ident(p, "mbarrier") && !s->mbar_name && s->kind == ST_COPY_ASYNC) {
			next(p); /* a TMA load completes on this barrier */
			if (!parse_mbar_ref(p, s))
				return false;
		} else if (is_ident(p, "multicast") && !s->mcast && s->kind == ST_COPY_ASYNC) {
			next(p); /* a TMA load into the shared memory of the CTAs of a cluster mask */
			s->mcast_loc = p->tok.loc;
			if (!take_int(p, "CTA mask", &s->mcast))
				return false;
			if (s->mcast < 1 || s->mcast > 0xffff) {
				p->line_failed = true;
				diag_error(p->cx, s->mcast_loc, "a multicast CTA mask is 1..0xffff (got %lld)", (long long)s->mcast);
				return false;
			}
		} else {
			return true;
		}
	}
}

/* NAME or NAME[expr]: an mbarrier */
static bool parse_mbar_ref(Parser *p, Stmt *s)
{
	s->mbar_loc = p->tok.loc;
	if (!(s->mbar_name = take_ident(p, "an mbarrier name")))
		return false;
	s->mbar_idx = arena_alloc(p->cx->arena, sizeof(Affine));
	if (!is_punct(p, '['))
		return true;
	next(p);
	if (!expr(p, s->mbar_idx))
		return false;
	return expect_punct(p, ']', "to close the mbarrier index");
}

/* mbarrier.STMT NAME[i] [, VALUE]: the init count, the expected bytes, the
 * parity; mbarrier.arrive NAME[i] [per thread|warp|warpgroup] */
static bool parse_mbar(Parser *p, Stmt *s)
{
	s->per = SC_COUNT;
	if (!parse_mbar_ref(p, s))
		return false;
	if (s->kind == ST_MBAR_ARRIVE && is_ident(p, "per")) {
		next(p);
		s->per_loc = p->tok.loc;
		static const char *units[] = {"thread", "warp", "warpgroup"};
		for (int u = 0; u < 3 && s->per == SC_COUNT; u++)
			if (is_ident(p, units[u]))
				s->per = (Scope)u;
		if (s->per == SC_COUNT)
			return fail(p, "expected 'thread', 'warp' or 'warpgroup' after 'per', found %s", tok_text(p));
		next(p);
		return true;
	}
	if (!is_punct(p, ',') || s->kind == ST_MBAR_ARRIVE)
		return true;
	next(p);
	s->value_loc = p->tok.loc;
	s->has_value = true;
	return take_int(p, s->kind == ST_MBAR_INIT ? "arrival count" : s->kind == ST_MBAR_WAIT ? "parity" : "byte count",
	                &s->n);
}

/* bar.sync ID [, COUNT], bar.arrive ID, COUNT: a named barrier of the CTA */
static bool parse_named_bar(Parser *p, Stmt *s)
{
	s->value_loc = p->tok.loc;
	if (!take_int(p, "barrier id", &s->n))
		return false;
	if (s->n < 1 || s->n > 15) {
		p->line_failed = true;
		diag_error(p->cx, s->value_loc, "a named barrier id is 1..15 (0 is 'sync', every thread of the CTA)");
		return false;
	}
	if (!is_punct(p, ',')) {
		if (s->kind == ST_NBAR_ARRIVE)
			return fail(p, "bar.arrive needs a thread count: 'bar.arrive ID, COUNT' (the threads of every "
			            "bar.sync and bar.arrive on ID together)");
		return true;
	}
	next(p);
	Loc cl = p->tok.loc;
	if (!take_int(p, "thread count", &s->count))
		return false;
	s->has_count = true;
	if (s->count < 32 || s->count > 1024 || s->count % 32) {
		p->line_failed = true;
		diag_error(p->cx, cl, "a named barrier's thread count is a multiple of 32 in 32..1024 (got %lld)",
		           (long long)s->count);
		return false;
	}
	return true;
}

/* when COND [and COND]... {: COND is warpid|wgid OP CONSTANT */
static bool parse_when(Parser *p, Stmt *s)
{
	for (;;) {
		WhenCond c = {.loc = p->tok.loc};
		if (is_ident(p, "warpid"))
			c.var = VAR_WARPID;
		else if (is_ident(p, "wgid"))
			c.var = VAR_WGID;
		else
			return fail(p, "a when condition compares warpid or wgid with a constant, found %s", tok_text(p));
		next(p);
		char two[3] = {0};
		if (p->tok.kind == TK_PUNCT && strchr("<>=!", p->tok.c)) {
			two[0] = p->tok.c;
			next(p);
			if (is_punct(p, '=')) {
				two[1] = '=';
				next(p);
			}
		}
		if (!strcmp(two, "<")) c.op = '<';
		else if (!strcmp(two, ">")) c.op = '>';
		else if (!strcmp(two, "<=")) c.op = 'l';
		else if (!strcmp(two, ">=")) c.op = 'g';
		else if (!strcmp(two, "==")) c.op = '=';
		else if (!strcmp(two, "!=")) c.op = '!';
		else
			return fail(p, "expected ==, !=, <, <=, > or >= in the when condition, found %s", tok_text(p));
		if (!take_int(p, "a constant", &c.value))
			return false;
		struct WhenCond *nc = arena_alloc(p->cx->arena, sizeof(WhenCond) * (size_t)(s->ncond + 1));
		if (s->ncond)
			memcpy(nc, s->cond, sizeof(WhenCond) * (size_t)s->ncond);
		nc[s->ncond++] = c;
		s->cond = nc;
		if (!is_ident(p, "and"))
			break;
		next(p);
	}
	if (!expect_punct(p, '{', "to open the when block"))
		return false;
	if (p->depth == MAX_REPEAT_DEPTH) {
		p->line_failed = true;
		diag_error(p->cx, s->loc, "blocks nest too deep (at most %d)", MAX_REPEAT_DEPTH);
		return false;
	}
	return true;
}

/* cp_async.wait N */
static bool parse_count(Parser *p, Stmt *s)
{
	Loc nl = p->tok.loc;
	if (!take_int(p, "group count", &s->n))
		return false;
	if (s->n > 1000000) {
		p->line_failed = true;
		diag_error(p->cx, nl, "%s count %lld is too large", stmt_info[s->kind].keyword, (long long)s->n);
		return false;
	}
	return true;
}

/* warpgroup mma D, A, B [b_kn] [scale_d 0|1] (src/wgmma.c) */
static bool parse_wgmma(Parser *p, Stmt *s)
{
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	s->src = arena_alloc(p->cx->arena, sizeof(Region));
	s->mma_b = arena_alloc(p->cx->arena, sizeof(Region));
	if (!parse_region(p, s->dst) || !expect_punct(p, ',', "between the accumulator and A") ||
	    !parse_region(p, s->src) || !expect_punct(p, ',', "between A and B") || !parse_region(p, s->mma_b))
		return false;
	s->n = 1; /* scale-d: accumulate */
	if (is_ident(p, "b_kn")) {
		next(p);
		s->mma_b_kn = true;
	}
	if (!is_ident(p, "scale_d"))
		return true;
	next(p);
	s->value_loc = p->tok.loc;
	s->has_value = true;
	if (!take_int(p, "scale-d (0 or 1)", &s->n))
		return false;
	if (s->n != 0 && s->n != 1) {
		p->line_failed = true;
		diag_error(p->cx, s->value_loc, "scale_d is 0 (D = A*B) or 1 (D += A*B), got %lld", (long long)s->n);
		return false;
	}
	return true;
}

/* dump LOCAL, PARAM */
static bool parse_dump(Parser *p, Stmt *s)
{
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	s->src = arena_alloc(p->cx->arena, sizeof(Region));
	if (!parse_region(p, s->src) || !expect_punct(p, ',', "between the local buffer and the param") ||
	    !parse_region(p, s->dst))
		return false;
	if (!s->src->whole || !s->dst->whole) {
		p->line_failed = true;
		diag_error(p->cx, s->src->whole ? s->dst->loc : s->src->loc, "dump takes whole buffers, not regions");
		return false;
	}
	return true;
}

/* a new kernel variable ranging over [0, ext) */
static int new_var(Parser *p, int64_t ext, const char *name)
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

/* unroll [F]: tilepx copies the body F times per emitted trip (ptxas has no
 * unroll pragma: it warns "Pragma 'unroll 8' unsupported"); alone, a constant
 * count unrolls completely. The statement tree stays as written. */
static bool parse_unroll(Parser *p, Stmt *s)
{
	Loc ul = p->tok.loc;
	next(p);
	if (s->nounroll) {
		p->line_failed = true;
		diag_error(p->cx, ul, "'unroll' and 'nounroll' exclude each other");
		return false;
	}
	if (p->tok.kind == TK_INT) {
		Loc fl = p->tok.loc;
		if (!take_int(p, "unroll factor", &s->unroll))
			return false;
		if (s->unroll < 2 || s->unroll > MAX_UNROLL) {
			p->line_failed = true;
			diag_error(p->cx, fl, "unroll factor must be in 2..%d", MAX_UNROLL);
			return false;
		}
	} else if (s->trips_scalar) {
		p->line_failed = true;
		diag_error(p->cx, ul, "'unroll' without a factor needs a constant trip count (this one is set at launch)");
		diag_note(p->cx, "'unroll F' unrolls a runtime count F times, with a loop for the remaining trips");
		return false;
	} else if (s->n > MAX_UNROLL) {
		p->line_failed = true;
		diag_error(p->cx, ul, "a repeat unrolls completely up to %d trips (this one has %lld)", MAX_UNROLL,
		           (long long)s->n);
		diag_note(p->cx, "'unroll F' unrolls it F times, in a loop");
		return false;
	} else {
		s->unroll = s->n;
	}
	/* copies of the innermost body: the factors of the enclosing unrolled repeats multiply */
	int64_t copies = !s->trips_scalar && s->n < s->unroll ? s->n : s->unroll;
	for (int i = p->depth - 1; i >= 0; i--) {
		const Stmt *o = p->stack[i];
		if (o->unroll)
			copies *= !o->trips_scalar && o->n < o->unroll ? o->n : o->unroll;
		if (copies > MAX_UNROLL_COPIES) {
			p->line_failed = true;
			diag_error(p->cx, ul, "nested unrolled repeats copy a body more than %d times", MAX_UNROLL_COPIES);
			diag_note(p->cx, "the repeat at line %d unrolls %lld times", o->loc.line, (long long)o->unroll);
			return false;
		}
	}
	return true;
}

/* repeat N [as NAME] [nounroll | unroll [F]] { */
static bool parse_repeat(Parser *p, Stmt *s)
{
	Loc nl = p->tok.loc;
	if (p->tok.kind == TK_IDENT && !is_ident(p, "as")) { /* a trip count from a scalar: S or cdiv(S, D) */
		bool cd = is_ident(p, "cdiv");
		if (cd) {
			next(p);
			if (!expect_punct(p, '(', "after cdiv"))
				return false;
		}
		Loc sl = p->tok.loc;
		const char *nm = take_ident(p, "a scalar param");
		if (!nm)
			return false;
		int si = scalar_index(p->k, nm);
		if (si < 0) {
			p->line_failed = true;
			diag_error(p->cx, sl, "unknown scalar '%s' as a repeat count (a count is a constant, a scalar param or "
			           "cdiv(SCALAR, N))", nm);
			return false;
		}
		s->trips_div = 1;
		if (cd) {
			if (!expect_punct(p, ',', "between the scalar and the tile size"))
				return false;
			Loc dl = p->tok.loc;
			if (!take_int(p, "tile size", &s->trips_div))
				return false;
			if (s->trips_div < 1 || s->trips_div > DYN_TILE_MAX) {
				p->line_failed = true;
				diag_error(p->cx, dl, "cdiv's tile size must be in 1..%d", DYN_TILE_MAX);
				return false;
			}
			if (!expect_punct(p, ')', "to close cdiv"))
				return false;
		}
		s->trips_scalar = si + 1;
		s->n = SCALAR_MAX; /* until check applies the facts */
	} else if (!take_int(p, "repeat count", &s->n)) {
		return false;
	}
	if (s->n < 1 || s->n > 0x7fffffff) {
		p->line_failed = true;
		diag_error(p->cx, nl, "repeat count must be in 1..2147483647");
		return false;
	}
	if (is_ident(p, "as")) {
		next(p);
		Loc vl = p->tok.loc;
		if (!(s->var_name = take_ident(p, "an index name")))
			return false;
		if (lookup_var(p, s->var_name) >= 0) {
			p->line_failed = true;
			diag_error(p->cx, vl, "index '%s' shadows a variable already in scope", s->var_name);
			return false;
		}
	}
	if (is_ident(p, "nounroll")) { /* ptxas keeps the loop (.pragma "nounroll") */
		next(p);
		s->nounroll = true;
	}
	if (is_ident(p, "unroll") && !parse_unroll(p, s))
		return false;
	if (s->unroll && is_ident(p, "nounroll")) {
		p->line_failed = true;
		diag_error(p->cx, p->tok.loc, "'unroll' and 'nounroll' exclude each other");
		return false;
	}
	if (!expect_punct(p, '{', "to open the repeat block"))
		return false;
	if (p->depth == MAX_REPEAT_DEPTH) {
		p->line_failed = true;
		diag_error(p->cx, s->loc, "repeat blocks nest too deep (at most %d)", MAX_REPEAT_DEPTH);
		return false;
	}
	s->var = new_var(p, s->n, s->var_name ? s->var_name : "(unnamed)");
	return true;
}

/* init LOCAL[region], INT: every element of the region set to the integer */
static bool parse_init(Parser *p, Stmt *s)
{
	s->dst = arena_alloc(p->cx->arena, sizeof(Region));
	if (!parse_region(p, s->dst) || !expect_punct(p, ',', "between the buffer and the value"))
		return false;
	bool neg = is_punct(p, '-');
	if (neg)
		next(p);
	if (!take_int(p, "initial value", &s->n))
		return false;
	if (neg)
		s->n = -s->n;
	return true;
}

/* one placeholder after '%{': &REGION, BUFFER[REGION], tid, laneid or an
 * affine expression; leaves the parser on the closing '}' */
static bool asm_placeholder(Parser *p, AsmPiece *pc)
{
	pc->loc = p->tok.loc;
	if (is_punct(p, '&')) {
		next(p);
		pc->kind = ASM_ADDR;
		pc->r = arena_alloc(p->cx->arena, sizeof(Region));
		return parse_region(p, pc->r);
	}
	if (is_ident(p, "tid") || is_ident(p, "laneid")) {
		pc->kind = ASM_VALUE;
		pc->text = is_ident(p, "tid") ? "tid" : "laneid";
		next(p);
		return true;
	}
	if (p->tok.kind == TK_IDENT) {
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(p->tok.len < 127 ? p->tok.len : 127), p->tok.s);
		bool buf = false;
		for (size_t i = 0; i < p->k->nbufs; i++)
			buf |= !strcmp(p->k->bufs[i]->name, name);
		if (buf) {
			pc->kind = ASM_REGS;
			pc->r = arena_alloc(p->cx->arena, sizeof(Region));
			return parse_region(p, pc->r);
		}
		if (lookup_var(p, name) < 0) {
			p->line_failed = true;
			diag_error(p->cx, p->tok.loc,
			           "unknown name '%s' in placeholder (a buffer, tid, laneid, ctaid, ctaid_y, cluster_ctarank, "
			           "warpid, wgid, "
			           "a repeat index or an asm index)",
			           name);
			return false;
		}
	}
	pc->kind = ASM_VALUE;
	return expr(p, &pc->val);
}

static void asm_text(Parser *p, AsmBlock *a, const char *s, size_t n, int line)
{
	if (!n)
		return;
	/* called with the parser just past the text: its first byte's column */
	AsmPiece pc = {.kind = ASM_TEXT, .text = arena_strndup(p->cx->arena, s, n), .line = line,
	               .loc = {p->line, p->col - (int)n}};
	APUSH(p->cx->arena, a->p, a->n, a->cap, pc);
}

/* after an error inside an asm block: skip to its closing '}' line, so that
 * the rest of the PTX is not read as statements (one error per block) */
static void asm_skip_block(Parser *p)
{
	p->nu = 0;
	while (p->pos < p->len && p->src[p->pos] != '\n')
		advance_char(p);
	while (p->pos < p->len) {
		advance_char(p); /* the '\n' */
		size_t t = p->pos;
		while (t < p->len && (p->src[t] == ' ' || p->src[t] == '\t'))
			t++;
		size_t e = t;
		while (e < p->len && p->src[e] != '\n')
			e++;
		size_t te = e;
		while (te > t && (p->src[te - 1] == ' ' || p->src[te - 1] == '\t' || p->src[te - 1] == '\r'))
			te--;
		while (p->pos < e)
			advance_char(p);
		if (te == t + 1 && p->src[t] == '}')
			break;
	}
	next(p);
}

/* does the rest of the current line end with '{' (comments aside)? */
static bool header_opens_block(const Parser *p)
{
	size_t e = p->pos, last = p->pos;
	while (e < p->len && p->src[e] != '\n' && p->src[e] != '#') {
		if (p->src[e] != ' ' && p->src[e] != '\t' && p->src[e] != '\r')
			last = e;
		e++;
	}
	return last < p->len && p->src[last] == '{';
}

/* asm [for I N, ...] [mma C, A, B] {   then PTX lines, then '}' alone */
static bool parse_asm(Parser *p, Stmt *s)
{
	AsmBlock *a = arena_alloc(p->cx->arena, sizeof *a);
	s->asm_blk = a;
	p->nu = 0;
	if (is_ident(p, "for")) {
		next(p);
		for (;;) {
			if (a->nunroll == MAX_ASM_UNROLL)
				return fail(p, "an asm block unrolls over at most %d indices", MAX_ASM_UNROLL);
			Loc vl = p->tok.loc;
			const char *nm = take_ident(p, "an index name");
			if (!nm)
				return false;
			if (lookup_var(p, nm) >= 0 || !strcmp(nm, "tid") || !strcmp(nm, "laneid")) {
				p->line_failed = true;
				diag_error(p->cx, vl, "index '%s' shadows a variable already in scope", nm);
				return false;
			}
			int64_t n;
			Loc nl = p->tok.loc;
			if (!take_int(p, "index count", &n))
				return false;
			if (n < 1 || n > 4096) {
				p->line_failed = true;
				diag_error(p->cx, nl, "asm index count must be in 1..4096");
				return false;
			}
			/* the block is copied once per instance: bounded, like every expansion */
			int64_t inst = n;
			for (int v = 0; v < a->nunroll; v++)
				inst *= a->uext[v];
			if (inst > MAX_ASM_INSTANCES) {
				p->line_failed = true;
				diag_error(p->cx, nl, "asm block expands to %lld instances; at most %d", (long long)inst,
				           MAX_ASM_INSTANCES);
				diag_note(p->cx, "the indices' counts multiply: split the block or use a repeat loop");
				if (header_opens_block(p))
					asm_skip_block(p); /* its PTX is not statements */
				return false;
			}
			int u = a->nunroll++;
			a->uext[u] = n;
			a->uvar[u] = new_var(p, n, nm);
			p->uname[p->nu] = nm;
			p->uvar[p->nu++] = a->uvar[u];
			if (!is_punct(p, ','))
				break;
			next(p);
		}
	}
	bool ok = true;
	if (is_ident(p, "mma")) {
		a->mma_loc = p->tok.loc;
		next(p);
		for (int i = 0; ok && i < 3; i++) {
			a->mma[i] = arena_alloc(p->cx->arena, sizeof(Region));
			ok = parse_region(p, a->mma[i]) && (i == 2 || expect_punct(p, ',', "between mma operands"));
		}
	}
	if (ok && !is_punct(p, '{'))
		ok = fail(p, "expected '{' to open the asm block, found %s", tok_text(p));
	if (!ok) {
		p->nu = 0;
		return false;
	}
	/* the rest of the '{' line must be blank or a comment */
	Loc open = p->tok.loc;
	size_t q = p->pos;
	while (q < p->len && (p->src[q] == ' ' || p->src[q] == '\t' || p->src[q] == '\r'))
		q++;
	if (q < p->len && p->src[q] != '\n' && p->src[q] != '#') {
		next(p);
		p->nu = 0;
		return fail(p, "'{' ends the line of an asm block");
	}
	while (p->pos < p->len && p->src[p->pos] != '\n')
		advance_char(p);
	int depth = 0, line = 0;
	Loc brace = open;
	for (;;) {
		if (p->pos >= p->len) {
			p->nu = 0;
			p->line_failed = true;
			diag_error(p->cx, depth ? brace : open, depth ? "'{' in the asm block is not closed"
			                                                 : "asm block is not closed with '}'");
			return false;
		}
		advance_char(p); /* the '\n' */
		size_t b = p->pos;
		size_t e = b;
		while (e < p->len && p->src[e] != '\n')
			e++;
		size_t t = b;
		while (t < e && (p->src[t] == ' ' || p->src[t] == '\t'))
			t++;
		size_t te = e;
		while (te > t && (p->src[te - 1] == ' ' || p->src[te - 1] == '\t' || p->src[te - 1] == '\r'))
			te--;
		if (depth == 0 && te == t + 1 && p->src[t] == '}') {
			while (p->pos < t)
				advance_char(p);
			advance_char(p);
			next(p); /* the end of line */
			p->nu = 0;
			if (!a->n) {
				p->line_failed = true;
				diag_error(p->cx, open, "empty asm block");
				return false;
			}
			for (int i = 0; i < p->depth; i++) /* labels then repeat (check_asm) */
				a->copied |= p->stack[i]->unroll && (p->stack[i]->trips_scalar || p->stack[i]->n > 1);
			return true;
		}
		/* one PTX line: text, placeholders, '//' comments dropped */
		size_t run = p->pos;
		while (p->pos < e) {
			char c = p->src[p->pos];
			unsigned char uc = (unsigned char)c;
			if ((uc < 32 && c != '\t' && c != '\r') || uc >= 127) { /* ptxas reads ASCII text */
				p->nu = 0;
				p->line_failed = true;
				diag_error(p->cx, (Loc){p->line, p->col}, "byte 0x%02x in an asm block: PTX is printable ASCII text", uc);
				asm_skip_block(p);
				return false;
			}
			if (c == '/' && p->pos + 1 < e && p->src[p->pos + 1] == '/') {
				asm_text(p, a, p->src + run, p->pos - run, line);
				while (p->pos < e)
					advance_char(p);
				run = p->pos;
				break;
			}
			if (c == '%' && p->pos + 1 < e && p->src[p->pos + 1] == '{') {
				asm_text(p, a, p->src + run, p->pos - run, line);
				advance_char(p);
				advance_char(p);
				next(p);
				AsmPiece pc = {0};
				p->line_failed = false;
				bool pok = asm_placeholder(p, &pc);
				if (pok && !is_punct(p, '}'))
					pok = fail(p, "expected '}' to close the placeholder, found %s", tok_text(p));
				if (!pok) {
					asm_skip_block(p);
					return false;
				}
				pc.line = line;
				APUSH(p->cx->arena, a->p, a->n, a->cap, pc);
				run = p->pos;
				continue;
			}
			if (c == '{') {
				if (depth++ == 0)
					brace = (Loc){p->line, p->col};
			} else if (c == '}') {
				if (depth == 0) {
					p->nu = 0;
					p->line_failed = true;
					diag_error(p->cx, (Loc){p->line, p->col}, "'}' without a matching '{' in the asm block");
					asm_skip_block(p);
					return false;
				}
				depth--;
			}
			advance_char(p);
		}
		asm_text(p, a, p->src + run, p->pos - run, line);
		line++;
	}
}

typedef bool (*ParseHook)(Parser *p, Stmt *s);
static const ParseHook parse_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) [ST_##kind] = parse,
#include "stmt.def"
};

/* does keyword kw start with the dotted name buf[0..n) at a component boundary? */
static bool kw_prefix(const char *kw, const char *buf, size_t n)
{
	return !strncmp(kw, buf, n) && (kw[n] == '.' || kw[n] == 0);
}

/* "expected 'commit' or 'wait' after 'cp_async.', found X": the components
 * that may follow the dotted prefix name[0..n) */
static void fail_next_component(Parser *p, const char *name, size_t n)
{
	const char *opt[ST_COUNT];
	size_t optlen[ST_COUNT];
	int nopt = 0;
	for (int k = 0; k < ST_COUNT; k++) {
		const char *kw = stmt_info[k].keyword;
		if (!kw_prefix(kw, name, n) || kw[n] != '.')
			continue;
		const char *c = kw + n + 1, *e = strchr(c, '.');
		size_t cl = e ? (size_t)(e - c) : strlen(c);
		bool dup = false;
		for (int i = 0; i < nopt; i++)
			dup |= optlen[i] == cl && !strncmp(opt[i], c, cl);
		if (!dup) {
			opt[nopt] = c;
			optlen[nopt++] = cl;
		}
	}
	Str msg = {0};
	for (int i = 0; i < nopt; i++)
		str_printf(&msg, "%s'%.*s'", i == 0 ? "" : i == nopt - 1 ? " or " : ", ", (int)optlen[i], opt[i]);
	fail(p, "expected %s after '%.*s.', found %s", msg.s, (int)n, name, tok_text(p));
	str_free(&msg);
}

/* a statement of stmt.def: [SCOPE] dotted.keyword operands; loc is where
 * the statement starts (its scope, if any) */
static void table_statement(Parser *p, Loc loc, Scope sc, bool scoped)
{
	char name[64];
	size_t n = 0;
	StmtKind kind = ST_COUNT;
	for (;;) {
		if (p->tok.kind != TK_IDENT || n + p->tok.len + 2 > sizeof name) {
			if (n)
				fail_next_component(p, name, n - 1);
			else
				fail(p, "expected a statement, found %s", tok_text(p));
			return;
		}
		memcpy(name + n, p->tok.s, p->tok.len);
		n += p->tok.len;
		name[n] = 0;
		bool exact = false, longer = false;
		for (int k = 0; k < ST_COUNT; k++) {
			const char *kw = stmt_info[k].keyword;
			if (kw_prefix(kw, name, n)) {
				exact |= kw[n] == 0;
				longer |= kw[n] == '.';
				if (kw[n] == 0)
					kind = (StmtKind)k;
			}
		}
		if (!exact && !longer) {
			size_t start = n - p->tok.len;
			if (start == 0) {
				if (!strcmp(name, "copy") || !strcmp(name, "copy_async"))
					fail(p, "a copy needs a scope first: thread, warp, warpgroup (wg) or cta");
				else
					fail(p, "unknown statement %s", tok_text(p));
			} else {
				fail_next_component(p, name, start - 1);
			}
			return;
		}
		next(p);
		if (!longer || (exact && !is_punct(p, '.')))
			break;
		if (!is_punct(p, '.')) {
			fail_next_component(p, name, n);
			return;
		}
		next(p);
		name[n++] = '.';
		name[n] = 0;
	}
	unsigned fl = stmt_info[kind].flags;
	if ((fl & SF_SCOPED) && !scoped) {
		p->line_failed = true;
		diag_error(p->cx, loc, "a copy needs a scope first: thread, warp, warpgroup (wg) or cta");
		return;
	}
	if (!(fl & SF_SCOPED) && scoped) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'%s' takes no scope", name);
		return;
	}
	if (!need_kernel(p, loc, name))
		return;
	Stmt *s = arena_alloc(p->cx->arena, sizeof *s);
	s->kind = kind;
	s->loc = loc;
	s->scope = sc;
	if (parse_hook[kind] && !parse_hook[kind](p, s))
		return;
	if (!end_of_line(p))
		return;
	add_stmt(p, s);
	if (fl & SF_BLOCK)
		p->stack[p->depth++] = s;
}

/* after 'kernel' (at loc): NAME */
static void start_kernel(Parser *p, Loc loc)
{
	if (p->depth > 0) {
		diag_error(p->cx, p->stack[p->depth - 1]->loc, "repeat block is not closed before the next kernel");
		p->depth = 0;
	}
	Kernel *k = arena_alloc(p->cx->arena, sizeof *k);
	k->loc = loc;
	k->grid = 1;
	k->grid_y = 1;
	k->grid_var[0] = k->grid_var[1] = -1;
	k->nvars = VAR_REPEAT0;
	k->var_cap = 16;
	k->var_ext = arena_alloc(p->cx->arena, sizeof(int64_t) * 16);
	k->var_names = arena_alloc(p->cx->arena, sizeof(char *) * 16);
	k->var_base = arena_alloc(p->cx->arena, sizeof(int) * 16);
	k->var_mod = arena_alloc(p->cx->arena, sizeof(int64_t) * 16);
	k->var_off = arena_alloc(p->cx->arena, sizeof(int64_t) * 16);
	for (int v = 0; v < 16; v++)
		k->var_base[v] = -1;
	k->var_names[VAR_CTAID] = "ctaid";
	k->var_names[VAR_WARPID] = "warpid";
	k->var_names[VAR_WGID] = "wgid";
	k->var_names[VAR_CTAIDY] = "ctaid_y";
	k->var_names[VAR_CRANK] = "cluster_ctarank";
	APUSH(p->cx->arena, p->m->kernels, p->m->nkernels, p->m->cap, k);
	p->k = k;
	Loc nl = p->tok.loc;
	if (!(k->name = take_ident(p, "a kernel name")))
		return;
	k->loc = nl;
	end_of_line(p);
}

/* ---- declarations: module header, kernel header, buffers ---- */

/* target sm_XX */
static void decl_target(Parser *p, Loc loc)
{
	if (p->k || p->m->target) {
		p->line_failed = true;
		diag_error(p->cx, loc, p->k ? "'target' must come before the first kernel" : "duplicate 'target' statement");
		return;
	}
	Loc tl = p->tok.loc;
	const char *t = take_ident(p, "a target (e.g. sm_90)");
	if (!t)
		return;
	const Target *tg = target_find(t);
	if (!tg) {
		p->line_failed = true;
		diag_error(p->cx, tl, "unknown target '%s' (known: %s)", t, target_list());
		return;
	}
	p->m->target = tg;
	p->m->target_loc = tl;
	end_of_line(p);
}

/* ptx X.Y */
static void decl_ptx(Parser *p, Loc loc)
{
	if (p->k || p->m->ptx_version) {
		p->line_failed = true;
		diag_error(p->cx, loc, p->k ? "'ptx' must come before the first kernel" : "duplicate 'ptx' statement");
		return;
	}
	Loc vl = p->tok.loc;
	int64_t maj, min;
	if (!take_int(p, "PTX major version", &maj) || !expect_punct(p, '.', "in the PTX version X.Y") ||
	    !take_int(p, "PTX minor version", &min))
		return;
	/* the PTX ISA versions that exist (ptxas 13.0 knows these and no others) */
	static const int known[] = {60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78,
	                            80, 81, 82, 83, 84, 85, 86, 87, 88, 90};
	bool found = false;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		found |= maj <= 9 && min <= 9 && known[i] == maj * 10 + min;
	if (!found) {
		p->line_failed = true;
		diag_error(p->cx, vl,
		           "PTX ISA version %lld.%lld does not exist (known: 6.0-6.5, 7.0-7.8, 8.0-8.8, 9.0)",
		           (long long)maj, (long long)min);
		return;
	}
	p->m->ptx_version = (int)(maj * 10 + min);
	p->m->ptx_loc = vl;
	end_of_line(p);
}

static void decl_kernel(Parser *p, Loc loc) { start_kernel(p, loc); }

/* func NAME: a device function (no grid; shared buffers and args are passed in) */
static void decl_func(Parser *p, Loc loc)
{
	start_kernel(p, loc);
	if (p->k)
		p->k->is_func = true;
}

/* arg NAME N: a u32 argument of a func, a variable in [0, N) */
static void decl_arg(Parser *p, Loc loc)
{
	Kernel *k = need_kernel(p, loc, "arg");
	if (!k)
		return;
	if (!k->is_func || p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, p->depth ? "'arg' inside a repeat block" : "'arg' declares an argument of a func, not of a kernel");
		return;
	}
	Loc vl = p->tok.loc;
	const char *nm = take_ident(p, "an argument name");
	if (!nm)
		return;
	if (lookup_var(p, nm) >= 0) {
		p->line_failed = true;
		diag_error(p->cx, vl, "argument '%s' shadows a variable already in scope", nm);
		return;
	}
	int64_t n;
	Loc nl = p->tok.loc;
	if (!take_int(p, "the argument's bound (values are 0..N-1)", &n))
		return;
	if (n < 1 || n > 0x7fffffff) {
		p->line_failed = true;
		diag_error(p->cx, nl, "argument bound must be in 1..2147483647");
		return;
	}
	int v = new_var(p, n, nm);
	APUSH(p->cx->arena, k->arg_vars, k->nargs, k->argcap, v);
	end_of_line(p);
}

/* extern: the kernel's body is PTX linked from elsewhere (tilepx-run --link) */
static void decl_extern(Parser *p, Loc loc)
{
	Kernel *k = need_kernel(p, loc, "extern");
	if (!k)
		return;
	if (k->is_func || p->depth || k->nbody) {
		p->line_failed = true;
		diag_error(p->cx, loc, k->is_func ? "'extern' marks a kernel, not a func"
		                                  : "'extern' comes before the kernel's statements");
		return;
	}
	k->is_extern = true;
	k->extern_loc = loc;
	end_of_line(p);
}

/* grid dimension d as cdiv(SCALAR, D): ceil(value / D) CTAs, launched with
 * the scalar's value; for proofs the grid is the largest the facts allow */
static bool grid_cdiv(Parser *p, Kernel *k, int d)
{
	if (!is_ident(p, "cdiv"))
		return fail(p, "expected cdiv(SCALAR, N) for grid dimension %d, found %s", d, tok_text(p));
	next(p);
	if (!expect_punct(p, '(', "after cdiv"))
		return false;
	Loc nl = p->tok.loc;
	const char *nm = take_ident(p, "a scalar param");
	if (!nm)
		return false;
	int si = scalar_index(k, nm);
	if (si < 0) {
		p->line_failed = true;
		diag_error(p->cx, nl, "unknown scalar '%s' in cdiv (declare 'param %s u32' before the grid)", nm, nm);
		return false;
	}
	if (!expect_punct(p, ',', "between the scalar and the tile size"))
		return false;
	Loc dl = p->tok.loc;
	int64_t div;
	if (!take_int(p, "tile size", &div))
		return false;
	if (div < 1 || div > DYN_TILE_MAX) {
		p->line_failed = true;
		diag_error(p->cx, dl, "cdiv's tile size must be in 1..%d", DYN_TILE_MAX);
		return false;
	}
	if (!expect_punct(p, ')', "to close cdiv"))
		return false;
	k->grid_var[d] = k->scalars[si].var;
	k->grid_div[d] = div;
	return true;
}

/* the facts that decide a scalar's values, with their lines: the bounds
 * that hold and every % fact */
const char *facts_text(Arena *a, const Scalar *sc)
{
	const char *s = "together, the facts";
	const char *sep = " ";
	for (size_t i = 0; i < sc->nfacts; i++) {
		const struct Fact *f = &sc->facts[i];
		if (f->op == '%' && f->v > 1)
			s = arena_printf(a, "%s%s'%s %% %lld == 0' (line %d)", s, sep, sc->name, (long long)f->v, f->loc.line);
		else if ((f->op == '>' && f->loc.line == sc->lo_loc.line) || (f->op == '<' && f->loc.line == sc->hi_loc.line))
			s = arena_printf(a, "%s%s'%s %c= %lld' (line %d)", s, sep, sc->name, f->op, (long long)f->v, f->loc.line);
		else
			continue;
		sep = ", ";
	}
	if (sc->mult > SCALAR_MAX)
		return arena_printf(a, "%s ask for %s in %lld..%lld, and below 2^31 only 0 is a multiple of every "
		                    "divisor", s, sc->name, (long long)sc->lo, (long long)sc->hi);
	return arena_printf(a, "%s ask for %s in %lld..%lld and a multiple of %lld", s, sc->name,
	                    (long long)sc->lo, (long long)sc->hi, (long long)sc->mult);
}

/* assume S % D == 0 | assume S >= N | assume S <= N: facts about a scalar
 * param that the code may rely on and the launcher must honour */
static void decl_assume(Parser *p, Loc loc)
{
	Kernel *k = need_kernel(p, loc, "assume");
	if (!k)
		return;
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'assume' inside a repeat block");
		return;
	}
	Loc nl = p->tok.loc;
	const char *nm = take_ident(p, "a scalar param");
	if (!nm)
		return;
	int si = scalar_index(k, nm);
	Scalar *sc = si >= 0 ? &k->scalars[si] : NULL;
	if (!sc) {
		p->line_failed = true;
		diag_error(p->cx, nl, "'%s' is not a scalar param of kernel '%s' (facts are about scalar params)", nm,
		           k->name ? k->name : "?");
		return;
	}
	Loc ol = p->tok.loc;
	int64_t v;
	if (is_punct(p, '%')) {
		next(p);
		Loc vl = p->tok.loc;
		if (!take_int(p, "a divisor", &v))
			return;
		if (!expect_punct(p, '=', "in '== 0'") || !expect_punct(p, '=', "in '== 0'"))
			return;
		int64_t z;
		if (!take_int(p, "0", &z))
			return;
		if (z != 0 || v < 1 || v > (1 << 20)) {
			p->line_failed = true;
			diag_error(p->cx, z ? ol : vl, z ? "a divisibility fact reads 'assume S %% D == 0'"
			                                 : "the divisor must be in 1..1048576");
			return;
		}
		APUSH(p->cx->arena, sc->facts, sc->nfacts, sc->factcap, ((struct Fact){'%', v, loc}));
		int64_t g = sc->mult, r = v;
		while (r) { /* gcd */
			int64_t t = g % r;
			g = r;
			r = t;
		}
		/* a multiple of more than 2^31 - 1 is 0, as a multiple of 2^31 is */
		sc->mult = sc->mult / g * v > SCALAR_MAX ? (int64_t)SCALAR_MAX + 1 : sc->mult / g * v;
		if (!sc->mult_loc.line)
			sc->mult_loc = loc;
	} else if (is_punct(p, '>') || is_punct(p, '<')) {
		bool ge = is_punct(p, '>');
		next(p);
		if (!expect_punct(p, '=', ge ? "in '>='" : "in '<='"))
			return;
		Loc vl = p->tok.loc;
		if (!take_int(p, "a bound", &v))
			return;
		if (v < 0 || v > SCALAR_MAX) {
			p->line_failed = true;
			diag_error(p->cx, vl, "a bound must be in 0..%d (scalar values are 31-bit)", SCALAR_MAX);
			return;
		}
		APUSH(p->cx->arena, sc->facts, sc->nfacts, sc->factcap, ((struct Fact){ge ? '>' : '<', v, loc}));
		if (ge && v > sc->lo) { /* facts are a conjunction: the tightest bound holds */
			sc->lo = v;
			sc->lo_loc = loc;
		} else if (!ge && v < sc->hi) {
			sc->hi = v;
			sc->hi_loc = loc;
			k->var_ext[sc->var] = v + 1;
		}
	} else {
		fail(p, "expected '%% D == 0', '>= N' or '<= N' after '%s', found %s", nm, tok_text(p));
		return;
	}
	if (!end_of_line(p))
		return;
	/* {v : lo <= v <= hi, v % mult == 0} is empty exactly when the largest
	 * multiple of mult at most hi is below lo */
	if (sc->hi / sc->mult * sc->mult < sc->lo) {
		p->line_failed = true;
		diag_error(p->cx, loc, "the facts about '%s' leave it no value", nm);
		diag_note(p->cx, "%s", facts_text(p->cx->arena, sc));
	}
}

/* threads N | grid N */
static void decl_launch(Parser *p, Loc loc, bool thr)
{
	Kernel *k = need_kernel(p, loc, thr ? "threads" : "grid");
	if (!k)
		return;
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'%s' inside a repeat block", thr ? "threads" : "grid");
		return;
	}
	Loc vl = p->tok.loc;
	int64_t v;
	if (!thr) { /* each dimension a constant or cdiv(S, D) */
		if (k->grid_loc.line) { /* a second grid would silently replace the first */
			p->line_failed = true;
			diag_error(p->cx, loc, "duplicate 'grid' statement (the first is at line %d)", k->grid_loc.line);
			return;
		}
		k->grid_loc = vl;
		for (int d = 0; d < 2; d++) {
			if (d && !is_punct(p, ','))
				break;
			if (d)
				next(p);
			if (is_ident(p, "cdiv")) {
				if (!grid_cdiv(p, k, d))
					return;
			} else if (!take_int(p, d ? "grid size in y" : "grid size", d ? &k->grid_y : &k->grid)) {
				return;
			}
		}
		end_of_line(p);
		return;
	}
	if (!take_int(p, thr ? "thread count" : "grid size", &v))
		return;
	if (thr) {
		if (k->has_threads) {
			p->line_failed = true;
			diag_error(p->cx, loc, "duplicate 'threads' statement");
			return;
		}
		k->threads = v;
		k->threads_loc = vl;
		k->has_threads = true;
	} else {
		k->grid = v;
		k->grid_loc = vl;
		if (is_punct(p, ',')) {
			next(p);
			if (!take_int(p, "grid size in y", &k->grid_y))
				return;
		}
	}
	end_of_line(p);
}

/* cluster X[, Y]: CTAs per thread-block cluster (check validates) */
static void decl_cluster(Parser *p, Loc loc)
{
	Kernel *k = need_kernel(p, loc, "cluster");
	if (!k)
		return;
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'cluster' inside a repeat block");
		return;
	}
	if (k->cluster_x) {
		p->line_failed = true;
		diag_error(p->cx, loc, "duplicate 'cluster' statement");
		return;
	}
	k->cluster_loc = p->tok.loc;
	k->cluster_y = 1;
	if (!take_int(p, "cluster size", &k->cluster_x))
		return;
	if (is_punct(p, ',')) {
		next(p);
		if (!take_int(p, "cluster size in y", &k->cluster_y))
			return;
	}
	if (k->cluster_x < 1 || k->cluster_y < 1) {
		p->line_failed = true;
		diag_error(p->cx, k->cluster_loc, "a cluster dimension is at least 1 (got %lld, %lld)",
		           (long long)k->cluster_x, (long long)k->cluster_y);
		k->cluster_x = 0;
		return;
	}
	end_of_line(p);
}

static void decl_threads(Parser *p, Loc loc) { decl_launch(p, loc, true); }
static void decl_grid(Parser *p, Loc loc) { decl_launch(p, loc, false); }

static void decl_buffer(Parser *p, Loc loc, Mem mem, const char *kw)
{
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "buffer declarations are not allowed inside a repeat block");
		return;
	}
	parse_buffer(p, loc, mem, kw);
}

/* after 'mbarrier' (at loc): NAME [N] */
static void decl_mbarrier(Parser *p, Loc loc)
{
	Kernel *k = need_kernel(p, loc, "mbarrier");
	if (!k)
		return;
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "mbarrier declarations are not allowed inside a repeat block");
		return;
	}
	Mbar mb = {.loc = p->tok.loc, .n = 1};
	if (!(mb.name = take_ident(p, "an mbarrier name")))
		return;
	if (is_punct(p, '[')) {
		next(p);
		Loc nl = p->tok.loc;
		if (!take_int(p, "barrier count", &mb.n))
			return;
		if (mb.n < 1 || mb.n > 1024) {
			p->line_failed = true;
			diag_error(p->cx, nl, "an mbarrier array holds 1..1024 barriers (got %lld)", (long long)mb.n);
			return;
		}
		if (!expect_punct(p, ']', "to close the barrier count"))
			return;
	}
	if (!end_of_line(p))
		return;
	APUSH(p->cx->arena, k->mbars, k->nmbars, k->mbcap, mb);
}

static void decl_param(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_GLOBAL, "param"); }
static void decl_shared(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_SHARED, "shared"); }
static void decl_local(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_LOCAL, "local"); }
static void decl_tmem(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_TMEM, "tmem"); }

/* the declaration keywords; the hook runs after the keyword is consumed */
static const struct {
	const char *kw;
	void (*parse)(Parser *p, Loc loc);
} decls[] = {
	{"target", decl_target}, {"ptx", decl_ptx},       {"kernel", decl_kernel}, {"func", decl_func},
	{"arg", decl_arg},       {"extern", decl_extern}, {"threads", decl_threads},
	{"grid", decl_grid},     {"param", decl_param},   {"shared", decl_shared}, {"local", decl_local},
	{"tmem", decl_tmem},     {"mbarrier", decl_mbarrier}, {"cluster", decl_cluster},
	{"assume", decl_assume},
};

static const struct {
	const char *kw;
	Scope scope;
} scopes[] = {
	{"thread", SC_THREAD}, {"warp", SC_WARP}, {"warpgroup", SC_WARPGROUP}, {"wg", SC_WARPGROUP}, {"cta", SC_CTA},
};

static void close_block(Parser *p, Loc loc)
{
	next(p);
	if (p->depth == 0) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'}' without an open repeat block");
		return;
	}
	p->depth--;
	Stmt *closed = p->stack[p->depth];
	if (is_ident(p, "else")) { /* } else {: the rest of the enclosing warps */
		Loc el = p->tok.loc;
		next(p);
		if (closed->kind != ST_WHEN || closed->else_of) {
			p->line_failed = true;
			diag_error(p->cx, el, "'else' follows a when block only (and once)");
			return;
		}
		if (!expect_punct(p, '{', "to open the else block"))
			return;
		Stmt *s = arena_alloc(p->cx->arena, sizeof *s);
		s->kind = ST_WHEN;
		s->loc = el;
		s->else_of = closed;
		if (!end_of_line(p))
			return;
		add_stmt(p, s);
		p->stack[p->depth++] = s;
		return;
	}
	end_of_line(p);
}

static void statement(Parser *p)
{
	Loc loc = p->tok.loc;
	if (is_punct(p, '}')) {
		close_block(p, loc);
		return;
	}
	if (p->tok.kind != TK_IDENT) {
		fail(p, "expected a statement, found %s", tok_text(p));
		return;
	}
	/* 'mbarrier NAME' declares; 'mbarrier.init ...' is a statement */
	bool dotted = p->tok.s + p->tok.len < p->src + p->len && p->tok.s[p->tok.len] == '.';
	for (size_t i = 0; i < sizeof decls / sizeof decls[0] && !dotted; i++)
		if (is_ident(p, decls[i].kw)) {
			next(p);
			decls[i].parse(p, loc);
			return;
		}
	for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
		if (is_ident(p, scopes[i].kw)) {
			next(p);
			if (!is_ident(p, "copy") && !is_ident(p, "copy_async") && !is_ident(p, "mma")) {
				fail(p, "expected 'copy', 'copy_async' or 'mma' after the scope, found %s", tok_text(p));
				return;
			}
			table_statement(p, loc, scopes[i].scope, true);
			return;
		}
	table_statement(p, loc, SC_THREAD, false);
}

Module *parse_module(Ctx *cx, const char *file, const char *src, size_t len)
{
	Parser p = {.cx = cx, .src = src, .len = len, .line = 1, .col = 1};
	Module *m = arena_alloc(cx->arena, sizeof *m);
	m->file = file;
	p.m = m;
	next(&p);
	while (p.tok.kind != TK_EOF) {
		if (p.tok.kind == TK_NL) {
			next(&p);
			continue;
		}
		p.line_failed = false;
		statement(&p);
		if (p.cx->diags.errors >= MAX_ERRORS * 4)
			break;
		/* skip the rest of the line: recovery after an error */
		while (p.tok.kind != TK_NL && p.tok.kind != TK_EOF)
			next(&p);
	}
	if (p.depth > 0)
		diag_error(cx, p.stack[p.depth - 1]->loc, "repeat block is not closed with '}'");
	if (!m->target && cx->diags.errors == 0)
		diag_error(cx, (Loc){1, 1}, "missing 'target' statement (e.g. 'target sm_90')");
	return m;
}
