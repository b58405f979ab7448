/* Statements: the hooks of stmt.def's parse column, and the dotted
 * keyword read against the table. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
	}
	if (s->kind == ST_MBAR_ARRIVE && is_ident(p, "cluster")) { /* on the barrier in every CTA of the cluster */
		s->to_cluster = true;
		s->cluster_arrive_loc = p->tok.loc;
		next(p);
	}
	if (!is_punct(p, ',') || s->kind == ST_MBAR_ARRIVE || s->kind == ST_MBAR_SKIP)
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
	Affine id;
	if (!expr(p, &id))
		return false;
	for (int i = 0; i < id.n; i++)
		if (id.t[i].var != VAR_WGID) {
			p->line_failed = true;
			diag_error(p->cx, s->value_loc, "a named barrier id is a constant or an expression of wgid ('2 + wgid')");
			return false;
		}
	if (!affine_is_const(&id)) { /* each warpgroup's id: check_named_bar */
		Affine *a = arena_alloc(p->cx->arena, sizeof *a);
		*a = id;
		s->bar_id = a;
		if (!is_punct(p, ','))
			return fail(p, "a barrier id computed from wgid needs a thread count: 'bar.sync 2 + wgid, 256'");
	}
	s->n = s->bar_id ? 0 : id.c;
	if (!s->bar_id && (s->n < 1 || s->n > 15)) {
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

/* warpgroup mma D, A, B [b_kn] [scale_d 0|1] (src/front/wgmma.c) */
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
	} else if (stmt_runtime_trips(s)) {
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
	int64_t copies = !stmt_runtime_trips(s) && s->n < s->unroll ? s->n : s->unroll;
	for (int i = p->depth - 1; i >= 0; i--) {
		const Stmt *o = p->stack[i];
		if (o->unroll)
			copies *= !stmt_runtime_trips(o) && o->n < o->unroll ? o->n : o->unroll;
		if (copies > MAX_UNROLL_COPIES) {
			p->line_failed = true;
			diag_error(p->cx, ul, "nested unrolled repeats copy a body more than %d times", MAX_UNROLL_COPIES);
			diag_note(p->cx, "the repeat at line %d unrolls %lld times", o->loc.line, (long long)o->unroll);
			return false;
		}
	}
	return true;
}

/* a tile walk's name for its row or column: a new name */
static const char *tile_name(Parser *p, const Stmt *s, const char *what)
{
	Loc l = p->tok.loc;
	const char *nm = take_ident(p, what);
	if (!nm)
		return NULL;
	if (lookup_var(p, nm) >= 0 || (s->var_name && !strcmp(s->var_name, nm)) ||
	    (s->tile_m_name && !strcmp(s->tile_m_name, nm))) {
		p->line_failed = true;
		diag_error(p->cx, l, "'%s' shadows a variable already in scope", nm);
		return NULL;
	}
	return nm;
}

/* a factor of a tile walk's count: S or cdiv(S, D) (one value in every CTA) */
static bool tile_factor_ok(const Parser *p, const TripExpr *e)
{
	const TripExpr *a = e->op == TE_CDIV ? e->x : e;
	return (e->op == TE_AFFINE || e->op == TE_CDIV) && a->op == TE_AFFINE && a->a.n == 1 && a->a.c == 0 &&
	       a->a.t[0].k == 1 && kernel_scalar_of_var(p->k, a->a.t[0].var);
}

/* ... across ctaid tiles TM, TN [group G]: the linear walk's tile names */
static bool parse_tiles(Parser *p, Stmt *s)
{
	s->tiles_loc = p->tok.loc;
	next(p);
	if (!s->trips_expr || s->trips_expr->op != TE_MUL || !tile_factor_ok(p, s->trips_expr->x) ||
	    !tile_factor_ok(p, s->trips_expr->y)) {
		p->line_failed = true;
		diag_error(p->cx, s->tiles_loc, "a tile walk's count is the product of its tile rows and columns, each a "
		           "scalar or cdiv(SCALAR, N): 'repeat cdiv(M, 128) * cdiv(N, 256) as t across ctaid tiles tm, tn'");
		return false;
	}
	if (!(s->tile_m_name = tile_name(p, s, "a name for the tile's row")) ||
	    !expect_punct(p, ',', "between the tile's row and column names") ||
	    !(s->tile_n_name = tile_name(p, s, "a name for the tile's column")))
		return false;
	s->tile_group = 1;
	if (!is_ident(p, "group"))
		return true;
	next(p);
	Loc gl = p->tok.loc;
	if (!take_int(p, "the band's tile rows", &s->tile_group))
		return false;
	if (s->tile_group < 1 || s->tile_group > 65535) {
		p->line_failed = true;
		diag_error(p->cx, gl, "a tile walk's group is 1..65535 tile rows (got %lld)", (long long)s->tile_group);
		return false;
	}
	return true;
}

/* repeat N [as NAME] [nounroll | unroll [F]] { */
/* repeat ... [across ctaid|ctaid_y [tiles TM, TN [group G]]] [running G] */
static bool parse_repeat_persistent(Parser *p, Stmt *s)
{
	if (is_ident(p, "across")) { /* a persistent loop: the trips dealt out to the CTAs */
		s->across_loc = p->tok.loc;
		next(p);
		Loc al = p->tok.loc;
		const char *ax = take_ident(p, "ctaid or ctaid_y");
		if (!ax)
			return false;
		if (strcmp(ax, "ctaid") && strcmp(ax, "ctaid_x") && strcmp(ax, "ctaid_y")) {
			p->line_failed = true;
			diag_error(p->cx, al, "'across' takes a grid axis, ctaid or ctaid_y (got '%s')", ax);
			return false;
		}
		bool product = s->trips_expr && s->trips_expr->op == TE_MUL;
		if (!s->trips_scalar && !product) {
			p->line_failed = true;
			diag_error(p->cx, s->across_loc, "'across' deals out a runtime count: write the count as a scalar "
			           "or cdiv(SCALAR, N), or a tile walk's X * Y");
			return false;
		}
		s->across = 1 + (strcmp(ax, "ctaid_y") ? VAR_CTAID : VAR_CTAIDY);
		if (is_ident(p, "tiles") && !parse_tiles(p, s))
			return false;
	}
	if (!s->across && is_ident(p, "tiles")) {
		p->line_failed = true;
		diag_error(p->cx, p->tok.loc, "'tiles' names a walk's tiles after 'across ctaid' (or ctaid_y): the walk "
		           "deals its tiles out to the CTAs");
		return false;
	}
	if (s->trips_expr && s->trips_expr->op == TE_MUL && !s->tile_m_name) {
		p->line_failed = true;
		diag_error(p->cx, s->loc, "a count X * Y is a linear tile walk: deal it out and name its tiles "
		           "('repeat X * Y as t across ctaid tiles TM, TN')");
		return false;
	}
	if (is_ident(p, "running")) { /* a trip count over the whole kernel: the stage of a ring */
		s->running_loc = p->tok.loc;
		next(p);
		Loc vl = p->tok.loc;
		if (!(s->running_name = take_ident(p, "a name for the running count")))
			return false;
		if (lookup_var(p, s->running_name) >= 0 || (s->var_name && !strcmp(s->var_name, s->running_name))) {
			p->line_failed = true;
			diag_error(p->cx, vl, "'%s' shadows a variable already in scope", s->running_name);
			return false;
		}
	}
	return true;
}

/* a count that is a scalar S or cdiv(S, D) keeps that form (trips_scalar,
 * trips_div); a constant is n; any other is an expression (trips_expr) */
static void repeat_count_of(Parser *p, Stmt *s, TripExpr *e)
{
	const TripExpr *a = e->op == TE_CDIV ? e->x : e;
	const Scalar *sc = a->op == TE_AFFINE && a->a.n == 1 && a->a.c == 0 && a->a.t[0].k == 1
	                       ? kernel_scalar_of_var(p->k, a->a.t[0].var) : NULL;
	if (e->op == TE_AFFINE && affine_is_const(&e->a)) {
		s->n = e->a.c;
	} else if (sc && (e->op == TE_AFFINE || e->op == TE_CDIV)) {
		s->trips_scalar = (int)(sc - p->k->scalars) + 1;
		s->trips_div = e->op == TE_CDIV ? e->d : 1;
		s->n = SCALAR_MAX; /* until check applies the facts */
	} else {
		s->trips_expr = e;
		s->n = SCALAR_MAX; /* until check applies the facts */
	}
}

static bool parse_repeat(Parser *p, Stmt *s)
{
	Loc nl = p->tok.loc;
	TripExpr *e = arena_alloc(p->cx->arena, sizeof *e); /* a constant, S, cdiv(S, D), or an expression */
	if (!trip_expr(p, e))
		return false;
	if (is_punct(p, '*')) { /* X * Y: a linear tile walk's count (parse_tiles checks the factors) */
		next(p);
		TripExpr *x = arena_alloc(p->cx->arena, sizeof *x), *y = arena_alloc(p->cx->arena, sizeof *y);
		if (!trip_expr(p, y))
			return false;
		*x = *e;
		memset(e, 0, sizeof *e);
		e->op = TE_MUL, e->x = x, e->y = y;
	}
	repeat_count_of(p, s, e);
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
	if (!parse_repeat_persistent(p, s))
		return false;
	if (is_ident(p, "nounroll")) { /* ptxas keeps the loop (.pragma "nounroll") */
		next(p);
		s->nounroll = true;
	}
	if (is_ident(p, "unroll") && !parse_unroll(p, s))
		return false;
	if (s->unroll && s->tile_m_name) {
		p->line_failed = true;
		diag_error(p->cx, s->loc, "a tile walk is not unrolled (each trip computes its tile)");
		return false;
	}
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
	if (s->tile_m_name) { /* ranges set by check, from the factors' facts */
		s->tile_m = new_var(p, s->n, s->tile_m_name);
		s->tile_n = new_var(p, s->n, s->tile_n_name);
	}
	if (s->running_name) { /* a name an earlier loop declared continues its count (sibling loops, one ring) */
		for (int v = VAR_REPEAT0; v < p->k->nvars && !s->running; v++)
			if (p->k->var_base[v] == VAR_RUNNING && !strcmp(p->k->var_names[v], s->running_name))
				s->running = v;
		if (!s->running) {
			s->running = new_var(p, 0x7fffffff, s->running_name);
			p->k->var_base[s->running] = VAR_RUNNING;
		}
	}
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
/* does the line the parser is on end with '{' (before a comment)? */
static bool line_opens_block(const Parser *p)
{
	size_t at = (size_t)(p->tok.s - p->src), b = at, e = at;
	while (b > 0 && p->src[b - 1] != '\n')
		b--;
	while (e < p->len && p->src[e] != '\n')
		e++;
	const char *hash = memchr(p->src + b, '#', e - b);
	if (hash)
		e = (size_t)(hash - p->src);
	while (e > b && isspace((unsigned char)p->src[e - 1]))
		e--;
	return e > b && p->src[e - 1] == '{';
}

/* a block statement whose header failed: its body is skipped to the
 * matching '}' (an else block with it), so that neither the '}' nor the
 * body's uses of what the header would have declared are errors of their own */
static void skip_failed_block(Parser *p)
{
	if (!line_opens_block(p))
		return;
	while (p->tok.kind != TK_NL && p->tok.kind != TK_EOF)
		next(p);
	for (int depth = 1; depth > 0 && p->tok.kind != TK_EOF;) {
		next(p); /* past the end of the line */
		for (; p->tok.kind != TK_NL && p->tok.kind != TK_EOF; next(p))
			depth += is_punct(p, '{') - is_punct(p, '}');
	}
}

/* a statement keyword that is not one: did the writer mean a near one?
 * (name[0..start) the components read, the current token the rest) */
static void suggest_keyword(Parser *p, const char *name, size_t start)
{
	char typed[96];
	size_t t = start;
	memcpy(typed, name, start);
	for (size_t i = (size_t)(p->tok.s - p->src); i < p->len && t + 1 < sizeof typed; i++) {
		char c = p->src[i];
		if (!isalnum((unsigned char)c) && c != '_' && c != '.')
			break;
		typed[t++] = c;
	}
	typed[t] = 0;
	const char *kws[ST_COUNT];
	for (int k = 0; k < ST_COUNT; k++)
		kws[k] = stmt_info[k].keyword;
	diag_suggest(p->cx, typed, kws, ST_COUNT);
}

void table_statement(Parser *p, Loc loc, Scope sc, bool scoped)
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
			bool fresh = !p->line_failed; /* a note must follow its own error */
			if (start == 0) {
				if (!strcmp(name, "copy") || !strcmp(name, "copy_async"))
					fail(p, "a copy needs a scope first: thread, warp, warpgroup (wg) or cta");
				else
					fail(p, "unknown statement %s", tok_text(p));
			} else {
				fail_next_component(p, name, start - 1);
			}
			if (fresh)
				suggest_keyword(p, name, start);
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
	if ((parse_hook[kind] && !parse_hook[kind](p, s)) || !end_of_line(p)) {
		if (fl & SF_BLOCK)
			skip_failed_block(p);
		return;
	}
	add_stmt(p, s);
	if (fl & SF_BLOCK)
		p->stack[p->depth++] = s;
}

