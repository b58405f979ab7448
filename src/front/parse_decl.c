/* Declarations: the module and kernel headers, facts, launch shape,
 * clusters, buffers and their layouts and swizzles, mbarriers. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
	if (is_ident(p, "auto")) { /* tilepx chooses (check, src/proof/swizzle.c) */
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

/* '+ R[(e...) : (s@axis...)]': replica iters (checked in src/layout/legal.c) */
static bool replicas(Parser *p, Buffer *b)
{
	Layout *L = &b->layout;
	next(p); /* '+' */
	b->rep_loc = p->tok.loc;
	if (!is_ident(p, "R"))
		return fail(p, "expected replicas 'R[(extents) : (strides)]' after '+', found %s", tok_text(p));
	next(p);
	if (!expect_punct(p, '[', "after 'R'"))
		return false;
	int64_t ext[MAX_REPS];
	Loc ext_loc = p->tok.loc;
	int n = int_list(p, ext, MAX_REPS, "replica extent");
	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (ext[i] < 1) {
			p->line_failed = true;
			diag_error(p->cx, ext_loc, "replica extents must be positive");
			return false;
		}
	if (!expect_punct(p, ':', "between replica extents and strides (replicas name their axes)"))
		return false;
	Loc sl = p->tok.loc;
	Iter st[MAX_REPS];
	int ns = stride_list(p, st, MAX_REPS);
	if (ns < 0)
		return false;
	if (ns != n) {
		p->line_failed = true;
		diag_error(p->cx, sl, "replicas have %d extents but %d strides", n, ns);
		return false;
	}
	L->nrep = n;
	for (int i = 0; i < n; i++)
		L->rep[i] = (Iter){ext[i], st[i].stride, st[i].axis};
	return expect_punct(p, ']', "to close 'R['");
}

/* layout := S[...] [+ R[...]] [swizzle(...) | swizzle auto] | swizzle(...) | swizzle auto
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
	if (is_punct(p, '+') && !replicas(p, b))
		return false;
	if (is_ident(p, "swizzle"))
		return swizzle(p, b);
	return true;
}

/* ---- statements ---- */

Kernel *need_kernel(Parser *p, Loc loc, const char *what)
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

void add_stmt(Parser *p, Stmt *s)
{
	if (p->depth > 0) {
		Stmt *r = p->stack[p->depth - 1];
		APUSH(p->cx->arena, r->body, r->nbody, r->cap, s);
	} else {
		APUSH(p->cx->arena, p->k->body, p->k->nbody, p->k->cap, s);
	}
}

/* -D NAME=V (the command line checked V: 0..2^31-1): the scalar is pinned
 * to V where it is declared, as the facts 'NAME >= V' and 'NAME <= V' at its
 * declaration would pin it: shapes, grids, guards, vector widths and proofs
 * see one value, and a launch with another breaks a fact. The param stays a
 * kernel argument (the launch ABI does not depend on -D). */
static void pin_scalar(Parser *p, Kernel *k, Scalar *sc, int64_t v)
{
	APUSH(p->cx->arena, sc->facts, sc->nfacts, sc->factcap, ((struct Fact){'>', v, sc->loc}));
	APUSH(p->cx->arena, sc->facts, sc->nfacts, sc->factcap, ((struct Fact){'<', v, sc->loc}));
	sc->lo = sc->hi = v;
	sc->lo_loc = sc->hi_loc = sc->loc;
	k->var_ext[sc->var] = v + 1;
}

/* after the keyword (at kwloc): NAME DTYPE [SHAPE] [: LAYOUT] ... */
/* param NAME u32|i32|u64|i64|f32|f16|bf16 (after the dtype): a scalar
 * kernel argument; a float one is an operand of set only (no variable of
 * integer expressions: its variable has the single value 0) */
static bool parse_scalar(Parser *p, Kernel *k, Buffer *b)
{
	if (b->dt != DT_U32 && b->dt != DT_I32 && b->dt != DT_U64 && b->dt != DT_I64 && !dtype_is_float_scalar(b->dt))
		return fail(p,
		            "expected '[' and the shape of param '%s', found %s (a scalar param is u32, i32, u64, i64, f32, "
		            "f16 or bf16)",
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
	bool fl = dtype_is_float_scalar(b->dt);
	Scalar sc = {.name = b->name, .loc = b->loc, .dt = b->dt, .lo = 0, .hi = fl ? 0 : SCALAR_MAX, .mult = 1};
	sc.var = new_var(p, fl ? 1 : (int64_t)SCALAR_MAX + 1, b->name);
	APUSH(p->cx->arena, k->scalars, k->nscalars, k->sccap, sc);
	int64_t v;
	bool bad;
	if (kernel_set_value(p->cx->defines, p->cx->ndefines, b->name, &v, &bad)) {
		if (fl) {
			diag_error(p->cx, b->loc, "-D %s: '%s' is a float scalar param (-D pins integer scalar params)", b->name,
			           b->name);
			return false;
		}
		if (bad || v < 0 || v > SCALAR_MAX) {
			diag_error(p->cx, b->loc, "-D %s: a scalar param is pinned to a decimal in 0..%d",
			           define_of(p->cx, b->name), SCALAR_MAX);
			return false;
		}
		pin_scalar(p, k, &k->scalars[k->nscalars - 1], v);
	}
	return true;
}

/* a buffer's shape: [N, M, ...], a param's dimensions may be scalars */
static bool parse_shape(Parser *p, Kernel *k, Buffer *b, Mem mem, const char *kw)
{
	if (!expect_punct(p, '[', "to start the buffer shape"))
		return false;
	for (;;) {
		if (b->ndim == MAX_DIMS)
			return fail(p, "too many dimensions (at most %d)", MAX_DIMS);
		b->dim_loc[b->ndim] = p->tok.loc;
		if (p->tok.kind == TK_IDENT) { /* a runtime extent: a scalar param */
			const char *nm = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
			int si = scalar_index(k, nm);
			if (si < 0) {
				bool first = !p->line_failed && !p->tok.from;
				fail(p, "unknown scalar '%s' as a dimension (declare 'param %s u32' before it)", nm, nm);
				if (first)
					diag_note(p->cx, "or, for a size known when compiling, 'define %s VALUE' (-D %s=VALUE sets it)",
					          nm, nm);
				return false;
			}
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
	return true;
}

/* what may follow a buffer's layout: storage, colmajor, ld, cols, fill small, tma */
static bool parse_buffer_options(Parser *p, Kernel *k, Buffer *b, Mem mem)
{
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
	if (!parse_shape(p, k, b, mem, kw))
		return false;
	if (is_ident(p, "layout")) {
		next(p);
		if (!layout(p, b))
			return false;
	} else if (mem == MEM_LOCAL || mem == MEM_TMEM) {
		return fail(p, "a %s buffer needs 'layout L', found %s", kw, tok_text(p));
	}
	if (!parse_buffer_options(p, k, b, mem))
		return false;
	if (!end_of_line(p))
		return false;
	if (mem == MEM_GLOBAL)
		b->param_index = k->nparams++;
	if (b->tma)
		b->tma_index = k->ntmaps++;
	APUSH(p->cx->arena, k->bufs, k->nbufs, k->bufcap, b);
	return true;
}

/* ---- declarations: module header, kernel header, buffers ---- */

/* after 'kernel' (at loc): NAME */
void start_kernel(Parser *p, Loc loc)
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

/* target sm_XX */
void decl_target(Parser *p, Loc loc)
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
void decl_ptx(Parser *p, Loc loc)
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

void decl_kernel(Parser *p, Loc loc) { start_kernel(p, loc); }

/* func NAME: a device function (no grid; shared buffers and args are passed in) */
void decl_func(Parser *p, Loc loc)
{
	start_kernel(p, loc);
	if (p->k)
		p->k->is_func = true;
}

/* arg NAME N: a u32 argument of a func, a variable in [0, N) */
void decl_arg(Parser *p, Loc loc)
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
void decl_extern(Parser *p, Loc loc)
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
	if (p->tok.kind == TK_IDENT && !is_ident(p, "cdiv")) { /* a bare scalar S: cdiv(S, 1) */
		Loc nl = p->tok.loc;
		const char *nm = take_ident(p, "a scalar param");
		int si = scalar_index(k, nm);
		if (si < 0) {
			p->line_failed = true;
			diag_error(p->cx, nl, "unknown scalar '%s' as a grid size (declare 'param %s u32' before the grid)",
			           nm, nm);
			return false;
		}
		k->grid_var[d] = k->scalars[si].var;
		k->grid_div[d] = 1;
		return true;
	}
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
void decl_assume(Parser *p, Loc loc)
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
			if (p->tok.kind == TK_IDENT) { /* cdiv(S, D) or a bare scalar */
				if (!grid_cdiv(p, k, d))
					return;
			} else if (!take_int(p, d ? "grid size in y" : "grid size", d ? &k->grid_y : &k->grid)) {
				return;
			}
			if (is_ident(p, "reversed")) { /* the last tile first (a causal kernel's longest) */
				k->grid_reversed[d] = true;
				k->grid_rev_loc = p->tok.loc;
				next(p);
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
void decl_cluster(Parser *p, Loc loc)
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

void decl_threads(Parser *p, Loc loc) { decl_launch(p, loc, true); }
void decl_grid(Parser *p, Loc loc) { decl_launch(p, loc, false); }

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
void decl_mbarrier(Parser *p, Loc loc)
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

void decl_param(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_GLOBAL, "param"); }
void decl_shared(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_SHARED, "shared"); }
void decl_local(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_LOCAL, "local"); }
void decl_tmem(Parser *p, Loc loc) { decl_buffer(p, loc, MEM_TMEM, "tmem"); }
