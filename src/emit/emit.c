/* Kernel emission: prologue (params, thread ids, shared symbols, tensor
 * memory), statements and the module printer; the helpers variants share
 * are in src/ptx/lower.c. */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

/* ---- statements ---- */

static void emit_stmts(Emit *e, Stmt **body, size_t n);

static void emit_copy(Emit *e, const Stmt *s)
{
	CopyOp op;
	Decision d;
	if (!select_copy(e->cx, e->m, e->k, s, &op, &d))
		return;
	if (!d.chosen) {
		dispatch_report(&op, &d);
		return;
	}
	b_comment(&e->b, "line %d: %s %s %s, %s -> %s %s", s->loc.line, scope_name(s->scope),
	          stmt_info[s->kind].keyword, s->dst->name, s->src->name, d.chosen->name, d.plan.params);
	d.chosen->emit(&op, &d.plan, e);
}

static void emit_dump(Emit *e, const Stmt *s)
{
	Builder *b = &e->b;
	const Buffer *l = s->src->buf, *p = s->dst->buf;
	int bytes = dtype_bytes(l->dt);
	int64_t R = l->regs;
	b_comment(b, "line %d: dump %s, %s (%lld registers per thread)", s->loc.line, l->name, p->name, (long long)R);
	/* element (ctaid * threads + tid) * R */
	Reg row = b_reg(b, RC_R), base;
	b_ins(b, FORM_MAD_LO_U32, b_name(b, row), b_name(b, e->ctaid), b_imm(b, e->k->threads), b_name(b, e->tid), NULL);
	if (p->mem == MEM_GLOBAL) { /* row * R * bytes in 64 bits: one wide multiply */
		Reg w = b_reg(b, RC_RD);
		base = b_reg(b, RC_RD);
		b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), b_name(b, row), b_imm(b, R * dtype_bytes(p->dt)), NULL);
		b_ins(b, FORM_ADD_U64, b_name(b, base), b_name(b, emit_global_base(e, p)), b_name(b, w), NULL);
	} else {
		Reg first = b_reg(b, RC_R);
		b_ins(b, FORM_MUL_LO_U32, b_name(b, first), b_name(b, row), b_imm(b, R), NULL);
		base = emit_address(e, p, first);
	}
	Reg *words = emit_local_regs(e, l);
	int64_t total = R * bytes;
	/* the widest chunk that the row's alignment allows */
	int chunk = bytes;
	while (chunk < 16 && total % (chunk * 2) == 0)
		chunk *= 2;
	for (int64_t off = 0; off < total; off += chunk)
		emit_local_to_mem(e, p, b_addr(b, base, off), words, off, chunk);
}

static void emit_sync(Emit *e, const Stmt *s) { (void)s; b_ins(&e->b, FORM_BAR_SYNC, NULL); }
static void emit_cpa_commit(Emit *e, const Stmt *s) { (void)s; b_ins(&e->b, FORM_CP_ASYNC_COMMIT, NULL); }
static void emit_cpa_wait(Emit *e, const Stmt *s) { b_ins(&e->b, FORM_CP_ASYNC_WAIT, b_imm(&e->b, s->n), NULL); }
static void emit_tc_wait_ld(Emit *e, const Stmt *s) { (void)s; b_ins(&e->b, FORM_TC_WAIT_LD, NULL); }
static void emit_tc_wait_st(Emit *e, const Stmt *s) { (void)s; b_ins(&e->b, FORM_TC_WAIT_ST, NULL); }

/* the repeat's index register, and its stage indices (i + c) % C with it */
/* a variable's derived stage indices '(v + c) % C' from its register */
static void set_derived(Emit *e, int var, Reg idx)
{
	Builder *b = &e->b;
	for (int d = VAR_REPEAT0; d < e->k->nvars; d++)
		if (e->k->var_base[d] == var) {
			Reg r = b_reg(b, RC_R), x = idx;
			int64_t c = e->k->var_mod[d];
			if (e->k->var_off[d])
				x = b_add32_imm(b, idx, e->k->var_off[d]);
			if (is_pow2(c))
				b_ins(b, FORM_AND_B32, b_name(b, r), b_name(b, x), b_imm(b, c - 1), NULL);
			else
				b_ins(b, FORM_REM_U32, b_name(b, r), b_name(b, x), b_imm(b, c), NULL);
			e->var_regs[d] = r;
		}
}

static Reg emit_trip_expr(Emit *e, const TripExpr *x);

/* a linear walk's tile from its index t, once per trip: t's band of G tile
 * rows (W = G * TN tiles), then within it rows r % rows and columns
 * r / rows, where r = t - band * W and rows = min(TM - band * G, G) (at
 * least 1 for t < TM * TN) */
static void set_tile(Emit *e, const Stmt *s, Reg t)
{
	Builder *b = &e->b;
	Reg tn_count = emit_trip_expr(e, s->trips_expr->y), tm = b_reg(b, RC_R), tn = b_reg(b, RC_R);
	e->var_regs[s->tile_m] = tm, e->var_regs[s->tile_n] = tn;
	if (s->tile_group == 1) { /* row-major */
		b_ins(b, FORM_DIV_U32, b_name(b, tm), b_name(b, t), b_name(b, tn_count), NULL);
		b_ins(b, FORM_REM_U32, b_name(b, tn), b_name(b, t), b_name(b, tn_count), NULL);
		return;
	}
	Reg tm_count = emit_trip_expr(e, s->trips_expr->x), w = b_reg(b, RC_R), band = b_reg(b, RC_R);
	Reg first = b_reg(b, RC_R), r = b_reg(b, RC_R), rows = b_reg(b, RC_R);
	const char *g = b_imm(b, s->tile_group);
	b_ins(b, FORM_MUL_LO_U32, b_name(b, w), b_name(b, tn_count), g, NULL);
	b_ins(b, FORM_DIV_U32, b_name(b, band), b_name(b, t), b_name(b, w), NULL);
	b_ins(b, FORM_MUL_LO_U32, b_name(b, first), b_name(b, band), g, NULL);
	b_ins(b, FORM_REM_U32, b_name(b, r), b_name(b, t), b_name(b, w), NULL);
	b_ins(b, FORM_SUB_U32, b_name(b, rows), b_name(b, tm_count), b_name(b, first), NULL);
	b_ins(b, FORM_MIN_S32, b_name(b, rows), b_name(b, rows), g, NULL);
	b_ins(b, FORM_REM_U32, b_name(b, tm), b_name(b, r), b_name(b, rows), NULL);
	b_ins(b, FORM_ADD_U32, b_name(b, tm), b_name(b, tm), b_name(b, first), NULL);
	b_ins(b, FORM_DIV_U32, b_name(b, tn), b_name(b, r), b_name(b, rows), NULL);
}

/* the trip's index (a persistent loop: the CTA's share, ctaid + j * nctaid)
 * and its running count's stages */
static void set_index(Emit *e, const Stmt *s, Reg j)
{
	Builder *b = &e->b;
	Reg idx = j;
	if (s->across) {
		idx = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, idx), b_name(b, j), b_name(b, e->across_n), b_name(b, e->across_c), NULL);
	}
	e->var_regs[s->var] = idx;
	set_derived(e, s->var, idx);
	if (s->tile_m)
		set_tile(e, s, idx);
	if (s->running)
		set_derived(e, s->running, e->var_regs[s->running]);
}

/* the trip's end: its running count advances */
static void end_trip(Emit *e, const Stmt *s)
{
	if (s->running)
		b_ins(&e->b, FORM_ADD_U32, b_name(&e->b, e->var_regs[s->running]), b_name(&e->b, e->var_regs[s->running]),
		      "1", NULL);
}

/* the body once with the index at base + j (base NULL: the constant j) */
static void emit_body_at(Emit *e, const Stmt *s, const Reg *base, int64_t j)
{
	Builder *b = &e->b;
	const char *index = s->var_name ? s->var_name : "index";
	b_comment(b, "line %d: trip %s%s%lld", s->loc.line, base ? index : "", base ? " + " : "", (long long)j);
	set_index(e, s, base ? b_add32_imm(b, *base, j) : b_const32(b, j));
	emit_stmts(e, s->body, s->nbody);
	end_trip(e, s);
}

/* repeat ... unroll F: an emission choice only (the statement tree, and so
 * every proof, stays as written). Trips run in order with the index advanced
 * per copy. A constant count N: floor(N / F) trips of F copies (straight
 * code when there is one), then N mod F copies with constant indices. A
 * runtime count T: trips of F copies while F more remain, then a loop of
 * single copies for the T mod F left (ptxas told not to unroll it). */
static void emit_unrolled(Emit *e, const Stmt *s, Reg t, int64_t F)
{
	Builder *b = &e->b;
	if (!stmt_runtime_trips(s)) {
		int64_t q = s->n / F, r = s->n % F;
		if (q == 1) {
			for (int64_t j = 0; j < F; j++)
				emit_body_at(e, s, NULL, j);
		} else if (q > 1) {
			b_comment(b, "line %d: %lld trips of %lld copies", s->loc.line, (long long)q, (long long)F);
			Loop l = emit_loop_begin(e, q * F);
			for (int64_t j = 0; j < F; j++)
				emit_body_at(e, s, &l.counter, j);
			l.step = F;
			emit_loop_end(e, &l);
		}
		for (int64_t j = 0; j < r; j++)
			emit_body_at(e, s, NULL, q * F + j);
		return;
	}
	/* main trips: T rounded down to a multiple of F */
	Reg whole = b_reg(b, RC_R);
	if (is_pow2(F)) {
		b_ins(b, FORM_AND_B32, b_name(b, whole), b_name(b, t), b_imm(b, (int64_t)(uint32_t)~(F - 1)), NULL);
	} else {
		Reg rem = b_reg(b, RC_R);
		b_ins(b, FORM_REM_U32, b_name(b, rem), b_name(b, t), b_imm(b, F), NULL);
		b_ins(b, FORM_SUB_U32, b_name(b, whole), b_name(b, t), b_name(b, rem), NULL);
	}
	b_comment(b, "line %d: trips of %lld copies while %lld remain", s->loc.line, (long long)F, (long long)F);
	Loop l = emit_loop_begin_runtime(e, whole);
	for (int64_t j = 0; j < F; j++)
		emit_body_at(e, s, &l.counter, j);
	l.step = F;
	emit_loop_end(e, &l);
	/* the remainder continues from the main loop's counter (0 when it ran none) */
	b_comment(b, "line %d: the remaining trips, one copy each", s->loc.line);
	Loop tail = {.top = b_label(b), .end = b_label(b), .counter = l.counter, .runtime = true, .bound = t};
	Reg p = b_reg(b, RC_P);
	b_ins(b, FORM_SETP_LT_U32, b_name(b, p), b_name(b, l.counter), b_name(b, t), NULL);
	b_ins(b, FORM_BRA_IF_NOT, b_name(b, p), b_label_name(b, tail.end), NULL);
	b_place_label(b, tail.top);
	b_ins(b, FORM_PRAGMA_NOUNROLL, NULL); /* fewer than F trips */
	set_index(e, s, tail.counter);
	emit_stmts(e, s->body, s->nbody);
	end_trip(e, s);
	emit_loop_end(e, &tail);
}

/* a constant repeat of a few trips whose body is synchronous copies only
 * unrolls completely without being asked, as nvcc unrolls the same C++ loop:
 * kept as a PTX loop, ptxas unrolls it too but derives each trip's
 * addresses from the counter and holds more registers (bench/codegen
 * reg_stream_g: 30 against 24 unrolled, nvcc's count; docs/benchmarks.md) */
enum { AUTO_UNROLL_TRIPS = 16, AUTO_UNROLL_COPIES = 32 };

static int64_t auto_unroll(const Stmt *s)
{
	if (stmt_runtime_trips(s) || s->nounroll || s->n > AUTO_UNROLL_TRIPS || s->n * (int64_t)s->nbody > AUTO_UNROLL_COPIES)
		return 0;
	for (size_t i = 0; i < s->nbody; i++)
		if (s->body[i]->kind != ST_COPY)
			return 0;
	return s->n;
}

/* a persistent loop: the CTA (c along the axis, of n; with a cluster along
 * the axis, its cluster) runs indices c, c + n, ... below T */
static Reg emit_across_trips(Emit *e, const Stmt *s, Reg T)
{
	Builder *b = &e->b;
	bool y = s->across == 1 + VAR_CTAIDY;
	e->across_c = b_reg(b, RC_R);
	e->across_n = b_reg(b, RC_R);
	b_ins(b, y ? FORM_MOV_CTAID_Y : FORM_MOV_CTAID_X, b_name(b, e->across_c), NULL);
	b_ins(b, y ? FORM_MOV_NCTAID_Y : FORM_MOV_NCTAID_X, b_name(b, e->across_n), NULL);
	int64_t cl = !e->k->cluster_x ? 1 : y ? e->k->cluster_y : e->k->cluster_x;
	if (cl > 1) { /* with a cluster along the axis the trips go to clusters: its CTAs run the same ones */
		b_ins(b, FORM_DIV_U32, b_name(b, e->across_c), b_name(b, e->across_c), b_imm(b, cl), NULL);
		b_ins(b, FORM_DIV_U32, b_name(b, e->across_n), b_name(b, e->across_n), b_imm(b, cl), NULL);
	}
	Reg m = b_reg(b, RC_R), t = b_reg(b, RC_R);
	b_ins(b, FORM_MAX_U32, b_name(b, m), b_name(b, T), b_name(b, e->across_c), NULL);
	b_ins(b, FORM_SUB_U32, b_name(b, m), b_name(b, m), b_name(b, e->across_c), NULL);
	b_ins(b, FORM_ADD_U32, b_name(b, m), b_name(b, m), b_name(b, e->across_n), NULL);
	b_ins(b, FORM_SUB_U32, b_name(b, m), b_name(b, m), "1", NULL);
	b_ins(b, FORM_DIV_U32, b_name(b, t), b_name(b, m), b_name(b, e->across_n), NULL);
	return t;
}

/* a count expression's value (s32: a term may be negative; cdiv of a value
 * below 1 is 0) */
static Reg emit_trip_expr(Emit *e, const TripExpr *x)
{
	Builder *b = &e->b;
	if (x->op == TE_AFFINE)
		return emit_affine(e, &x->a);
	Reg a = emit_trip_expr(e, x->x), t = b_reg(b, RC_R);
	if (x->op != TE_CDIV) {
		int form = x->op == TE_MIN ? FORM_MIN_S32 : x->op == TE_MAX ? FORM_MAX_S32 : x->op == TE_ADD ? FORM_ADD_U32
		           : x->op == TE_MUL ? FORM_MUL_LO_U32 : FORM_SUB_U32;
		b_ins(b, form, b_name(b, t), b_name(b, a), b_name(b, emit_trip_expr(e, x->y)), NULL);
		return t;
	}
	b_ins(b, FORM_MAX_S32, b_name(b, t), b_name(b, a), "0", NULL);
	if (x->d == 1)
		return t;
	Reg q = b_reg(b, RC_R);
	b_ins(b, FORM_ADD_U32, b_name(b, t), b_name(b, t), b_imm(b, x->d - 1), NULL);
	if (is_pow2(x->d))
		b_ins(b, FORM_SHR_U32, b_name(b, q), b_name(b, t), b_imm(b, log2i(x->d)), NULL);
	else
		b_ins(b, FORM_DIV_U32, b_name(b, q), b_name(b, t), b_imm(b, x->d), NULL);
	return q;
}

/* a runtime count: the trips at the loop head, computed once per entry */
static Reg emit_runtime_trips(Emit *e, const Stmt *s)
{
	Builder *b = &e->b;
	if (s->trips_expr) { /* at most 2^31 - 1 (check), below 0: none */
		Reg t = b_reg(b, RC_R);
		b_ins(b, FORM_MAX_S32, b_name(b, t), b_name(b, emit_trip_expr(e, s->trips_expr)), "0", NULL);
		return s->across ? emit_across_trips(e, s, t) : t; /* a tile walk's share */
	}
	Reg v = e->var_regs[e->k->scalars[s->trips_scalar - 1].var], t = v;
	if (s->trips_div > 1) { /* ceil(S / D) trips, possibly none */
		Reg a = b_add32_imm(b, v, s->trips_div - 1);
		t = b_reg(b, RC_R);
		if (is_pow2(s->trips_div))
			b_ins(b, FORM_SHR_U32, b_name(b, t), b_name(b, a), b_imm(b, log2i(s->trips_div)), NULL);
		else
			b_ins(b, FORM_DIV_U32, b_name(b, t), b_name(b, a), b_imm(b, s->trips_div), NULL);
	}
	if (s->across) /* this CTA's share of the T trips: cdiv(max(T, c) - c, n) */
		t = emit_across_trips(e, s, t);
	return t;
}

static void emit_repeat(Emit *e, const Stmt *s)
{
	Builder *b = &e->b;
	Str saved = {0};
	if (e->repeat_depth++ == 0) { /* the outermost loop collects hoisted code */
		saved = b->body;
		b->body = (Str){0};
		b_loc_reset(b);
		e->nmemo = 0;
	}
	if (s->trips_expr)
		b_comment(b, "line %d: repeat (a count computed here, at most %lld)%s%s", s->loc.line, (long long)s->n,
		          s->var_name ? " as " : "", s->var_name ? s->var_name : "");
	else if (s->trips_scalar)
		b_comment(b, "line %d: repeat cdiv(%s, %lld) (at most %lld)%s%s", s->loc.line,
		          e->k->scalars[s->trips_scalar - 1].name, (long long)s->trips_div, (long long)s->n,
		          s->var_name ? " as " : "", s->var_name ? s->var_name : "");
	else
		b_comment(b, "line %d: repeat %lld%s%s", s->loc.line, (long long)s->n, s->var_name ? " as " : "",
		          s->var_name ? s->var_name : "");
	Loop l;
	Reg t = {0};
	Reg outer_c = e->across_c, outer_n = e->across_n; /* an enclosing persistent loop's, for its later trips */
	if (stmt_runtime_trips(s))
		t = emit_runtime_trips(e, s);
	int64_t unroll = s->unroll ? s->unroll : auto_unroll(s);
	if (unroll) {
		emit_unrolled(e, s, t, unroll);
	} else {
		l = stmt_runtime_trips(s) ? emit_loop_begin_runtime(e, t) : emit_loop_begin(e, s->n);
		if (s->nounroll) /* in the loop's header block, where ptxas reads it */
			b_ins(b, FORM_PRAGMA_NOUNROLL, NULL);
		set_index(e, s, l.counter);
		emit_stmts(e, s->body, s->nbody);
		end_trip(e, s);
		emit_loop_end(e, &l);
	}
	e->across_c = outer_c, e->across_n = outer_n;
	if (--e->repeat_depth == 0) {
		Str loop = b->body;
		b->body = saved;
		if (e->pre.n) {
			b_comment(b, "per-thread offsets and addresses of the loop at line %d, computed once", s->loc.line);
			str_putn(&b->body, e->pre.s, e->pre.n);
		}
		if (loop.s)
			str_putn(&b->body, loop.s, loop.n);
		b_loc_reset(b); /* the last .loc in body is the pasted text's */
		str_free(&loop);
		str_free(&e->pre);
		e->pre_loc = (Loc){0, 0};
		e->nmemo = 0;
	}
}

/* when COND { ... }: the warps outside the block's set branch around it (a
 * warp-uniform branch); inside, one-thread statements are the first
 * thread of the block's warps */
void emit_when(Emit *e, const Stmt *s)
{
	Builder *b = &e->b;
	uint64_t in = s->body_warps;
	b_comment(b, "line %d: %s (warps 0x%llx)", s->loc.line, s->else_of ? "else" : "when", (unsigned long long)in);
	int first = 0;
	while (!(in >> first & 1))
		first++;
	int last = 63;
	while (!(in >> last & 1))
		last--;
	Reg skip = b_reg(b, RC_P);
	if (in == ((~(uint64_t)0 >> (63 - last)) & (~(uint64_t)0 << first))) { /* warps first..last */
		Reg t = b_reg(b, RC_R);
		b_ins(b, FORM_SUB_U32, b_name(b, t), b_name(b, e->warp), b_imm(b, first), NULL);
		b_ins(b, FORM_SETP_LT_U32, b_name(b, skip), b_name(b, t), b_imm(b, last - first + 1), NULL);
	} else {
		Reg m = b_reg(b, RC_R), t = b_reg(b, RC_R);
		b_ins(b, FORM_MOV_B32, b_name(b, m), b_imm(b, (int64_t)(uint32_t)in), NULL);
		b_ins(b, FORM_SHR_U32, b_name(b, t), b_name(b, m), b_name(b, e->warp), NULL);
		b_ins(b, FORM_AND_B32, b_name(b, t), b_name(b, t), "1", NULL);
		b_ins(b, FORM_SETP_NE_U32, b_name(b, skip), b_name(b, t), "0", NULL);
	}
	int end = b_label(b);
	b_ins(b, FORM_BRA_IF_NOT, b_name(b, skip), b_label_name(b, end), NULL);
	Reg saved = e->not_leader;
	e->not_leader = b_reg(b, RC_P);
	b_ins(b, FORM_SETP_NE_U32, b_name(b, e->not_leader), b_name(b, e->tid), b_imm(b, 32 * first), NULL);
	e->nmemo = 0; /* a value computed in one branch does not exist in the other */
	emit_stmts(e, s->body, s->nbody);
	e->nmemo = 0;
	e->not_leader = saved;
	b_place_label(b, end);
}

typedef void (*EmitHook)(Emit *e, const Stmt *s);
static const EmitHook emit_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) [ST_##kind] = emit,
#include "stmt.def"
};

static void emit_stmts(Emit *e, Stmt **body, size_t n)
{
	Loc block = e->b.at; /* a block's own code after its body (the next trip, the loop's end) is its own */
	for (size_t i = 0; i < n; i++) {
		e->b.at = body[i]->loc;
		emit_hook[body[i]->kind](e, body[i]);
		if (e->repeat_depth == 0)
			e->nmemo = 0; /* values emitted in place serve their statement only */
	}
	e->b.at = block;
}

static Reg dyn_base(Emit *e)
{
	int64_t key[] = {7};
	Reg r;
	if (emit_memo_find(e, key, 1, &r))
		return r;
	r = b_reg(&e->b, RC_R);
	b_ins(&e->b, FORM_MOV_U32, b_name(&e->b, r), "tilepx$dyn", NULL);
	emit_memo_put(e, key, 1, r);
	return r;
}

/* tensor memory: warp 0 allocates each buffer's columns into a shared slot,
 * the address crosses warps through a fenced barrier (docs/ptx-notes.md) */
static void tmem_prologue(Emit *e)
{
	Builder *b = &e->b;
	const Kernel *k = e->k;
	int ntmem = 0;
	for (size_t i = 0; i < k->nbufs; i++)
		ntmem += k->bufs[i]->mem == MEM_TMEM;
	if (!ntmem)
		return;
	Reg p = b_reg(b, RC_P);
	int skip = b_label(b);
	b_comment(b, "tensor memory: warp 0 allocates");
	b_ins(b, FORM_SETP_NE_U32, b_name(b, p), b_name(b, e->warp), "0", NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, p), b_label_name(b, skip), NULL);
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *t = k->bufs[i];
		if (t->mem != MEM_TMEM)
			continue;
		b_ins(b, FORM_TC_ALLOC, arena_printf(b->arena, "%s$tm", t->name), b_imm(b, t->cols), NULL);
	}
	b_ins(b, FORM_TC_RELINQUISH, NULL);
	b_place_label(b, skip);
	b_ins(b, FORM_TC_FENCE_BEFORE, NULL);
	b_ins(b, FORM_BAR_SYNC, NULL);
	b_ins(b, FORM_TC_FENCE_AFTER, NULL);
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *t = k->bufs[i];
		if (t->mem != MEM_TMEM)
			continue;
		str_printf(&e->decls, "\t.shared .align 4 .b8 %s$tm[4];\n", t->name);
		e->tmem_addr[i] = b_reg(b, RC_R);
		b_ins(b, FORM_LD_SHARED_B32, b_name(b, e->tmem_addr[i]), arena_printf(b->arena, "%s$tm", t->name), NULL);
	}
}

static void tmem_epilogue(Emit *e)
{
	Builder *b = &e->b;
	const Kernel *k = e->k;
	bool any = false;
	for (size_t i = 0; i < k->nbufs; i++)
		any |= k->bufs[i]->mem == MEM_TMEM;
	if (!any)
		return;
	b_comment(b, "tensor memory: warp 0 deallocates after every warp is done");
	b_ins(b, FORM_TC_FENCE_BEFORE, NULL);
	b_ins(b, FORM_BAR_SYNC, NULL);
	b_ins(b, FORM_TC_FENCE_AFTER, NULL);
	Reg p = b_reg(b, RC_P);
	int skip = b_label(b);
	b_ins(b, FORM_SETP_NE_U32, b_name(b, p), b_name(b, e->warp), "0", NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, p), b_label_name(b, skip), NULL);
	for (size_t i = k->nbufs; i-- > 0;)
		if (k->bufs[i]->mem == MEM_TMEM)
			b_ins(b, FORM_TC_DEALLOC, b_name(b, e->tmem_addr[i]), b_imm(b, k->bufs[i]->cols), NULL);
	b_place_label(b, skip);
}

/* the forms a module uses, where first, and the statement that needs the highest .version */
typedef struct ModuleUse {
	bool used[FORM_COUNT];
	Loc at[FORM_COUNT];
	int need;
	const char *need_what; /* NULL: the target's minimum */
	Loc need_at;
} ModuleUse;

/* prologue: each param's generic address, each tensor map's */
static void emit_param_bases(Emit *e)
{
	const Kernel *k = e->k;
	Builder *b = &e->b;
	const KernelAbi *abi = &e->abi; /* the params' names */
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *buf = k->bufs[i];
		if (buf->mem != MEM_GLOBAL)
			continue;
		Reg raw = b_reg(b, RC_RD);
		e->param_base[i] = b_reg(b, RC_RD);
		b_ins(b, FORM_LD_PARAM_U64, b_name(b, raw), abi_param(abi, ABI_POINTER, buf->param_index)->name, NULL);
		b_ins(b, FORM_CVTA_TO_GLOBAL, b_name(b, e->param_base[i]), b_name(b, raw), NULL);
		if (buf->tma) { /* the tensor map's generic address: what cp.async.bulk.tensor takes */
			Reg pa = b_reg(b, RC_RD);
			e->tmap_addr[i] = b_reg(b, RC_RD);
			b_ins(b, FORM_TMAP_ADDR, b_name(b, pa), abi_param(abi, ABI_TENSOR_MAP, buf->tma_index)->name, NULL);
			b_ins(b, FORM_CVTA_PARAM, b_name(b, e->tmap_addr[i]), b_name(b, pa), NULL);
		}
	}
}

/* a reversed grid dimension's index: nctaid - 1 - %ctaid, in place */
static void emit_reversed_index(Emit *e, Reg idx, FormId nctaid_form)
{
	Builder *b = &e->b;
	Reg n = b_reg(b, RC_R);
	b_ins(b, nctaid_form, b_name(b, n), NULL);
	b_ins(b, FORM_SUB_U32, b_name(b, n), b_name(b, n), b_name(b, idx), NULL);
	b_ins(b, FORM_SUB_U32, b_name(b, idx), b_name(b, n), b_imm(b, 1), NULL);
}

/* thread, CTA, lane, warp and warpgroup indices */
static void emit_thread_ids(Emit *e)
{
	const Kernel *k = e->k;
	Builder *b = &e->b;
	e->tid = b_reg(b, RC_R);
	e->ctaid = b_reg(b, RC_R);
	e->lane = b_reg(b, RC_R);
	e->warp = b_reg(b, RC_R);
	e->wg = b_reg(b, RC_R);
	e->tid_wg = b_reg(b, RC_R);
	b_ins(b, FORM_MOV_TID_X, b_name(b, e->tid), NULL);
	b_ins(b, FORM_MOV_CTAID_X, b_name(b, e->ctaid), NULL);
	if (k->grid_reversed[0])
		emit_reversed_index(e, e->ctaid, FORM_MOV_NCTAID_X);
	if (k->grid_y > 1 || k->grid_var[1] >= 0) {
		e->ctaidy = b_reg(b, RC_R);
		b_ins(b, FORM_MOV_CTAID_Y, b_name(b, e->ctaidy), NULL);
		if (k->grid_reversed[1])
			emit_reversed_index(e, e->ctaidy, FORM_MOV_NCTAID_Y);
	}
	if (k->uses_crank) { /* the CTA's rank in its cluster (0 without one) */
		e->crank = b_reg(b, RC_R);
		b_ins(b, FORM_MOV_CLUSTER_CTARANK, b_name(b, e->crank), NULL);
	}
	/* never %warpid: it is the physical slot, not the warp index */
	/* a kernel's .reqntid bounds %tid.x: with at most 32 (128) threads the
	 * lane (thread in warpgroup) is %tid.x itself, so both sides of a copy
	 * share one offset (a device function's caller may have more threads) */
	if (!k->is_func && k->threads <= 32)
		e->lane = e->tid;
	else
		b_ins(b, FORM_AND_B32, b_name(b, e->lane), b_name(b, e->tid), "31", NULL);
	b_ins(b, FORM_SHR_U32, b_name(b, e->warp), b_name(b, e->tid), "5", NULL);
	b_ins(b, FORM_SHR_U32, b_name(b, e->wg), b_name(b, e->tid), "7", NULL);
	if (!k->is_func && k->threads <= 128)
		e->tid_wg = e->tid;
	else
		b_ins(b, FORM_AND_B32, b_name(b, e->tid_wg), b_name(b, e->tid), "127", NULL);
}

/* shared buffers' addresses (and their .shared declarations), local buffers' registers */
static void emit_buffer_bases(Emit *e)
{
	Ctx *cx = e->cx;
	const Kernel *k = e->k;
	Builder *b = &e->b;
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *buf = k->bufs[i];
		if (buf->mem == MEM_SHARED) {
			int64_t bytes = buf->storage * dtype_bytes(buf->dt), align = shared_align(buf);
			e->shared_base[i] = b_reg(b, RC_R);
			if (k->is_func) { /* the caller's shared address (ABI: docs/language->md) */
				b_ins(b, FORM_LD_PARAM_U32, b_name(b, e->shared_base[i]),
				      abi_param(&e->abi, ABI_SHARED, (int)i)->name, NULL);
				continue;
			}
			if (k->dyn_shared) { /* one dynamic array: the buffer at its offset */
				e->shared_base[i] = b_add32_imm(b, dyn_base(e), buf->shared_offset);
				continue;
			}
			str_printf(&e->decls, "\t.shared .align %lld .b8 %s$sm[%lld];\n", (long long)align, buf->name,
			           (long long)bytes);
			b_ins(b, FORM_MOV_U32, b_name(b, e->shared_base[i]), arena_printf(cx->arena, "%s$sm", buf->name), NULL);
		} else if (buf->mem == MEM_LOCAL) {
			int64_t words = (buf->regs * dtype_bytes(buf->dt) + 3) / 4;
			e->local_words[i] = arena_alloc(cx->arena, sizeof(Reg) * (size_t)(words ? words : 1));
			b_comment(b, "local %s: %lld registers from %%r%d", buf->name, (long long)words, b->nregs[RC_R] + 1);
			for (int64_t w = 0; w < words; w++) {
				e->local_words[i][w] = b_reg(b, RC_R);
				if (k->is_func) /* fragments in: the caller's registers */
					b_ins(b, FORM_LD_PARAM_B32, b_name(b, e->local_words[i][w]),
					      arena_printf(cx->arena, "%s+%lld", abi_param(&e->abi, ABI_LOCAL_IN, 0)->name,
					                   (long long)(abi_local_offset(k, buf) + 4 * w)),
					      NULL);
				else
					b_ins(b, FORM_MOV_B32, b_name(b, e->local_words[i][w]), "0", NULL);
			}
		}
	}
}

/* statements that thread 0 issues for the CTA (emit_elect_begin) */
static void has_elected(void *ctx, const Stmt *s)
{
	*(bool *)ctx |= (stmt_info[s->kind].flags & SF_PHASED) || stmt_is_tma_load(s) || stmt_is_tma_store(s) ||
	                stmt_is_bulk_store(s);
}

/* mbarrier arrays' addresses, phase bits, the not-leader predicate */
static void emit_mbar_bases(Emit *e)
{
	Ctx *cx = e->cx;
	const Kernel *k = e->k;
	Builder *b = &e->b;
	for (size_t i = 0; i < k->nmbars; i++) {
		const Mbar *mb = &k->mbars[i];
		if (k->dyn_shared) {
			e->mbar_base[i] = b_add32_imm(b, dyn_base(e), mb->shared_offset);
			continue;
		}
		str_printf(&e->decls, "\t.shared .align 8 .b8 %s$mb[%lld];\n", mb->name, (long long)(8 * mb->n));
		e->mbar_base[i] = b_reg(b, RC_R);
		b_ins(b, FORM_MOV_U32, b_name(b, e->mbar_base[i]), arena_printf(cx->arena, "%s$mb", mb->name), NULL);
	}
	if (k->red_scratch && k->dyn_shared) {
		e->red_base = b_add32_imm(b, dyn_base(e), k->red_scratch_offset);
	} else if (k->red_scratch) {
		str_printf(&e->decls, "\t.shared .align 16 .b8 reduce$scratch[%lld];\n", (long long)k->red_scratch);
		e->red_base = b_reg(b, RC_R);
		b_ins(b, FORM_MOV_U32, b_name(b, e->red_base), "reduce$scratch", NULL);
	}
	for (size_t i = 0; i < k->nmbars; i++)
		if (mbar_run_time_phase(cx, &k->mbars[i])) { /* bit i: the parity of barrier i's next phase */
			e->mbar_phase[i] = b_reg(b, RC_R);
			b_ins(b, FORM_MOV_B32, b_name(b, e->mbar_phase[i]), "0", NULL);
		}
	bool elected = k->nmbars || k->ntmaps; /* a bulk store needs it without either */
	stmt_walk(k->body, k->nbody, has_elected, &elected);
	if (elected) {
		e->not_leader = b_reg(b, RC_P);
		b_ins(b, FORM_SETP_NE_U32, b_name(b, e->not_leader), b_name(b, e->tid), "0", NULL);
	}
}

/* a float scalar param as f32 bits in r: f16 widened exactly, bf16 shifted up */
static void emit_float_scalar(Builder *b, const Scalar *sc, Reg r, const char *pn)
{
	const char *rn = b_name(b, r);
	if (sc->dt == DT_F32) {
		b_ins(b, FORM_LD_PARAM_F32, rn, pn, NULL);
		return;
	}
	b_ins(b, FORM_LD_PARAM_U16, rn, pn, NULL);
	if (sc->dt == DT_F16)
		b_ins(b, FORM_CVT_F32_F16, rn, rn, NULL);
	else
		b_ins(b, FORM_SHL_B32, rn, rn, b_imm(b, 16), NULL);
}

/* scalar params and a func's args into registers */
static void emit_scalar_args(Emit *e)
{
	const Kernel *k = e->k;
	Builder *b = &e->b;
	const KernelAbi *abi = &e->abi; /* the params' names */
	for (size_t i = 0; i < k->nscalars; i++) { /* scalar params: 31-bit values (their facts) */
		const Scalar *sc = &k->scalars[i];
		const char *pn = abi_param(abi, ABI_SCALAR, (int)i)->name;
		e->var_regs[sc->var] = b_reg(b, RC_R);
		if (dtype_is_float_scalar(sc->dt)) {
			emit_float_scalar(b, sc, e->var_regs[sc->var], pn);
		} else if (dtype_bytes(sc->dt) == 8) {
			Reg w = b_reg(b, RC_RD);
			b_ins(b, FORM_LD_PARAM_U64, b_name(b, w), pn, NULL);
			b_ins(b, FORM_CVT_U32_U64, b_name(b, e->var_regs[sc->var]), b_name(b, w), NULL);
		} else {
			b_ins(b, FORM_LD_PARAM_U32, b_name(b, e->var_regs[sc->var]), pn, NULL);
		}
	}
	for (int a = 0; a < k->nargs; a++) {
		e->var_regs[k->arg_vars[a]] = b_reg(b, RC_R);
		b_ins(b, FORM_LD_PARAM_U32, b_name(b, e->var_regs[k->arg_vars[a]]), abi_param(abi, ABI_ARG, a)->name, NULL);
	}
}

/* a func's fragments back to its caller */
static void emit_func_out(Emit *e)
{
	Ctx *cx = e->cx;
	const Kernel *k = e->k;
	Builder *b = &e->b;
	if (k->is_func) /* fragments out */
		for (size_t i = 0; i < k->nbufs; i++)
			if (k->bufs[i]->mem == MEM_LOCAL) {
				int64_t words = (k->bufs[i]->regs * dtype_bytes(k->bufs[i]->dt) + 3) / 4;
				for (int64_t w = 0; w < words; w++)
					b_ins(b, FORM_ST_PARAM_B32,
					      arena_printf(cx->arena, "%s+%lld", e->abi.ret_name,
					                   (long long)(abi_local_offset(k, k->bufs[i]) + 4 * w)),
					      b_name(b, e->local_words[i][w]), NULL);
			}
}

/* the launch ABI as PTX (src/abi.h): .func or .entry, its params in order,
 * .reqntid, .maxnreg, .reqnctapercluster */
static void print_signature(const KernelAbi *abi, Str *out)
{
	if (abi->is_func) /* .visible .func ([ret]) NAME(pointers, shared addresses, args, [in]) */
		str_printf(out, "\n.visible .func %s%s%s%s(", abi->ret_decl ? "(" : "", abi->ret_decl ? abi->ret_decl : "",
		           abi->ret_decl ? ") " : "", abi->kernel);
	else
		str_printf(out, "\n.visible .entry %s(", abi->kernel);
	for (int i = 0; i < abi->nparams; i++)
		str_printf(out, "%s\n\t%s", i ? "," : "", abi->params[i].decl);
	str_printf(out, "%s)\n", abi->nparams ? "\n" : "");
	if (abi->is_func) {
		str_puts(out, "{\n");
		return;
	}
	str_printf(out, ".reqntid %lld, 1, 1\n", (long long)abi->threads);
	if (abi->maxnreg) /* setmaxnreg moves registers from this launch budget */
		str_printf(out, ".maxnreg %lld\n", (long long)abi->maxnreg);
	if (abi->cluster_x) /* the launch must use these cluster dims (tilepx-run: cuLaunchKernelEx) */
		str_printf(out, ".reqnctapercluster %lld, %lld, 1\n", (long long)abi->cluster_x, (long long)abi->cluster_y);
	str_puts(out, "{\n");
}

/* the kernel's PTX version, forms and internal errors into the module's use */
static void note_use(Ctx *cx, const Kernel *k, Builder *b, ModuleUse *u)
{
	if (!k->is_func && kernel_param_bytes(k) > PARAM_BYTES_OLD && b->min_ptx < PARAM_BYTES_PTX) {
		b->min_ptx = PARAM_BYTES_PTX; /* the larger parameter space (check bounds it) */
		b->min_ptx_what = "a kernel parameter space above 4352 bytes";
		b->min_ptx_at = k->loc;
	}
	if (b->min_ptx > u->need) {
		u->need = b->min_ptx;
		u->need_what = b->min_ptx_what;
		u->need_at = b->min_ptx_at;
	}
	for (int f = 0; f < FORM_COUNT; f++)
		if (b->used_form[f] && !u->used[f]) {
			u->used[f] = true;
			u->at[f] = b->form_at[f];
		}
	if (b->missing_form)
		diag_error(cx, k->loc, "internal error: kernel %s needs an instruction form that ptx_templates/ lacks (%s)",
		           k->name, b->missing_form);
	if (b->internal)
		diag_error(cx, k->loc, "internal error: kernel %s: %s", k->name, b->internal);
}

static void emit_kernel(Ctx *cx, const Module *m, const Kernel *k, Str *out, ModuleUse *u)
{
	Emit e = {0};
	e.cx = cx;
	e.m = m;
	e.k = k;
	e.abi = kernel_abi(cx->arena, k);
	b_init(&e.b, cx->arena, m->target);
	e.b.lineinfo = cx->lineinfo;
	e.b.at = k->loc;
	Builder *b = &e.b;
	size_t nb = k->nbufs ? k->nbufs : 1;
	e.param_base = arena_alloc(cx->arena, sizeof(Reg) * nb);
	e.shared_base = arena_alloc(cx->arena, sizeof(Reg) * nb);
	e.local_words = arena_alloc(cx->arena, sizeof(Reg *) * nb);
	e.tmem_addr = arena_alloc(cx->arena, sizeof(Reg) * nb);
	e.tmap_addr = arena_alloc(cx->arena, sizeof(Reg) * nb);
	e.mbar_base = arena_alloc(cx->arena, sizeof(Reg) * (k->nmbars + 1));
	e.mbar_phase = arena_alloc(cx->arena, sizeof(Reg) * (k->nmbars + 1));
	e.var_regs = arena_alloc(cx->arena, sizeof(Reg) * (size_t)(k->nvars + 1));

	/* prologue: params, thread ids, shared symbols, registers of local buffers */
	if (k->is_extern)
		return;
	emit_param_bases(&e);
	emit_thread_ids(&e);
	emit_buffer_bases(&e);
	emit_mbar_bases(&e);
	emit_scalar_args(&e);
	for (int v = VAR_REPEAT0; v < k->nvars; v++)
		if (k->var_base[v] == VAR_RUNNING) { /* running trip counts start at 0 */
			e.var_regs[v] = b_reg(&e.b, RC_R);
			b_ins(&e.b, FORM_MOV_B32, b_name(&e.b, e.var_regs[v]), "0", NULL);
		}
	tmem_prologue(&e);
	emit_stmts(&e, k->body, k->nbody);
	e.b.at = k->loc;
	tmem_epilogue(&e);
	emit_func_out(&e);
	b_ins(b, FORM_RET, NULL);

	print_signature(&e.abi, out);
	b_print_decls(b, out);
	if (e.decls.s)
		str_puts(out, e.decls.s);
	str_putc(out, '\n');
	if (b->body.s)
		str_putn(out, b->body.s, b->body.n);
	str_puts(out, "}\n");
	note_use(cx, k, b, u);
	str_free(&b->body);
	str_free(&e.pre);
	free(e.kpool);
	str_free(&e.decls);
}

/* an instruction form's opcode, its text's first word */
static int opcode_len(FormId f) { return (int)strcspn(ptx_forms[f].text, " ;"); }


/* -lineinfo's file table of one: the .loc lines name file 1. The path is a
 * PTX string (a quote and a backslash escaped; control bytes, which would end
 * it, as '?') */
static void print_file(const char *path, Str *out)
{
	str_puts(out, ".file 1 \"");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c == '"' || *c == '\\')
			str_putc(out, '\\');
		str_putc(out, *c < 32 || *c == 127 ? '?' : (char)*c);
	}
	str_puts(out, "\"\n");
}

bool emit_checked_module(Ctx *cx, Module *m, Str *out)
{
	/* kernels are printed straight into out after the header; .version is
	 * known only at the end and patched in place (no copy of the module) */
	size_t start = out->n;
	ModuleUse *u = calloc(1, sizeof *u);
	if (!u) {
		diag_error(cx, m->target_loc, "out of memory");
		return false;
	}
	u->need = m->target->min_ptx;
	/* the path is user data: control bytes would end the comment line */
	str_printf(out, "//\n// Generated by tilepx %s from ", TILEPX_VERSION);
	for (const unsigned char *c = (const unsigned char *)m->file; *c; c++)
		if (*c < 32 || *c == 127)
			str_printf(out, "\\x%02x", *c);
		else
			str_putc(out, (char)*c);
	str_puts(out, "\n//\n\n");
	size_t vpos = out->n;
	str_printf(out, ".version %d.%d\n", u->need / 10, u->need % 10);
	size_t vlen = out->n - vpos;
	str_printf(out, ".target %s\n.address_size 64\n", m->target->name);
	if (cx->lineinfo)
		print_file(cx->lineinfo_file ? cx->lineinfo_file : m->file, out);
	for (size_t i = 0; i < m->nkernels; i++)
		if (m->kernels[i]->dyn_shared) { /* kernels past the static limit share one dynamic array */
			str_puts(out, "\n.extern .shared .align 1024 .b8 tilepx$dyn[];\n");
			break;
		}
	for (size_t i = 0; i < m->nkernels; i++)
		emit_kernel(cx, m, m->kernels[i], out, u);
	/* at the statement that needs the instruction (check runs this too) */
	for (int f = 0; f < FORM_COUNT; f++)
		if (u->used[f] && !target_has(m->target, ptx_forms[f].cap))
			diag_error(cx, u->at[f].line ? u->at[f] : m->target_loc, "'%.*s' needs target %s (target is %s)",
			           opcode_len((FormId)f), ptx_forms[f].text, cap_name(ptx_forms[f].cap), m->target->name);
	int need = u->need, version = need;
	if (m->ptx_version) {
		if (m->ptx_version < need && u->need_what) {
			diag_error(cx, u->need_at.line ? u->need_at : m->ptx_loc, "'%s' needs PTX %d.%d; the module declares %d.%d",
			           u->need_what, need / 10, need % 10, m->ptx_version / 10, m->ptx_version % 10);
			diag_note(cx, "the version line is line %d (without it tilepx picks the lowest version that fits)",
			          m->ptx_loc.line);
		}
		version = m->ptx_version;
	}
	free(u);
	if (cx->diags.errors) {
		out->n = start;
		if (out->s)
			out->s[start] = 0;
		return false;
	}
	char v[64];
	size_t n = (size_t)snprintf(v, sizeof v, ".version %d.%d\n", version / 10, version % 10);
	if (n != vlen) { /* a version of another width: make room, then shift the module */
		size_t old = out->n;
		if (n > vlen)
			str_putn(out, v, n - vlen); /* grows the buffer; overwritten below */
		memmove(out->s + vpos + n, out->s + vpos + vlen, old - vpos - vlen);
		out->n = old + n - vlen;
		out->s[out->n] = 0;
	}
	memcpy(out->s + vpos, v, n);
	return true;
}
