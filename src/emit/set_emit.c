/* set DST[i, j] = EXPR: emission, following the plan check proved
 * (src/front/set_plan.c). Per register the statement writes, straight-line f32
 * code (the same in every thread); every result is computed before any is
 * written, so a destination read in its own expression is read before it
 * is written. 16-bit results are packed with cvt.rn.{f16,bf16}x2.f32, fp8
 * ones with cvt.rn.satfinite.{e4m3,e5m2}x2.f32, merged into their words with
 * prmt where a word is partly written. */
#include "tilepx.h"

#include <stdint.h>
#include <string.h>

typedef struct SetEmit {
	Emit *e;
	Builder *b;
	const Kernel *k;
	const SetExpr *x;
	const SetPlan *pl;
	int64_t r;        /* the destination register being computed */
	Reg th[SET_MAX_RANK];
	bool th_done[SET_MAX_RANK];
	bool direct;       /* results go straight into the destination (each register reads only itself) */
	int nconst;        /* literals already in registers: one mov per distinct value per statement */
	Reg mask_rest[SET_MAX_NODES]; /* a mask's variable part, once per statement (int_cond) */
	bool mask_done[SET_MAX_NODES];
	uint32_t cbits[16];
	Reg creg[16];
} SetEmit;

static Reg new_r(SetEmit *E) { return b_reg(E->b, RC_R); }
static const char *nm(SetEmit *E, Reg r) { return b_name(E->b, r); }

/* the f32 value of operand element (buffer b, register ro) */
static Reg load_operand(SetEmit *E, const Buffer *b, int64_t ro)
{
	Builder *bl = E->b;
	Reg *w = emit_local_regs(E->e, b);
	if (b->dt == DT_F32 && (b != E->x->dst || E->direct))
		return w[ro];
	if (b->dt == DT_F32) { /* the destination read elsewhere: a copy, read before any register is written */
		Reg t = new_r(E);
		b_ins(bl, FORM_MOV_B32, nm(E, t), nm(E, w[ro]), NULL);
		return t;
	}
	Reg word = w[ro / 2], t = new_r(E);
	bool high = ro % 2;
	if (b->dt == DT_BF16) { /* the bits into the upper half */
		if (high)
			b_ins(bl, FORM_AND_B32, nm(E, t), nm(E, word), b_imm(bl, (int64_t)0xffff0000u), NULL);
		else
			b_ins(bl, FORM_SHL_B32, nm(E, t), nm(E, word), b_imm(bl, 16), NULL);
		return t;
	}
	if (high) {
		b_ins(bl, FORM_SHR_U32, nm(E, t), nm(E, word), b_imm(bl, 16), NULL);
		word = t;
	}
	b_ins(bl, FORM_CVT_F32_F16, nm(E, t), nm(E, word), NULL); /* reads the low 16 bits */
	return t;
}

static Reg scalar_value(SetEmit *E, const Scalar *sc)
{
	Reg v = emit_var_reg(E->e, sc->var);
	if (dtype_is_float_scalar(sc->dt))
		return v;
	Reg t = new_r(E);
	b_ins(E->b, sc->dt == DT_I32 || sc->dt == DT_I64 ? FORM_CVT_RN_F32_S32 : FORM_CVT_RN_F32_U32, nm(E, t), nm(E, v),
	      NULL);
	return t;
}

static const FormId value_form[SX_COUNT] = {
	[SX_NEG] = FORM_NEG_F32, [SX_ABS] = FORM_ABS_F32, [SX_EXP2] = FORM_EX2_APPROX_F32,
	[SX_LOG2] = FORM_LG2_APPROX_F32, [SX_RCP] = FORM_RCP_APPROX_F32, [SX_RSQRT] = FORM_RSQRT_APPROX_F32,
	[SX_SQRT] = FORM_SQRT_RN_F32, [SX_TANH] = FORM_TANH_APPROX_F32, [SX_ADD] = FORM_ADD_RN_F32,
	[SX_EXP2_FTZ] = FORM_EX2_APPROX_FTZ_F32,
	[SX_SUB] = FORM_SUB_RN_F32, [SX_MUL] = FORM_MUL_RN_F32, [SX_DIV] = FORM_DIV_RN_F32, [SX_MAX] = FORM_MAX_F32,
	[SX_MIN] = FORM_MIN_F32, [SX_FMA] = FORM_FMA_RN_F32,
};

static int cond(SetEmit *E, const SetNode *n, bool neg, Reg *p);
static Reg value(SetEmit *E, const SetNode *n);

/* n's value; into *to when given (the destination register itself), else
 * into a fresh register or an operand's own */
static Reg value_to(SetEmit *E, const SetNode *n, const Reg *to)
{
	Builder *b = E->b;
	switch (n->op) {
	case SX_LOAD: return load_operand(E, n->buf, E->pl->opreg[(int64_t)n->id * E->pl->regs + E->r]);
	case SX_SCALAR: return scalar_value(E, &E->k->scalars[n->scalar]);
	case SX_CONST: {
		for (int i = 0; !to && i < E->nconst; i++)
			if (E->cbits[i] == n->bits)
				return E->creg[i];
		Reg t = to ? *to : new_r(E);
		b_ins(b, FORM_MOV_B32_F32IMM, nm(E, t), arena_printf(b->arena, "0f%08X", n->bits), NULL);
		if (!to && E->nconst < 16) { /* straight-line code: this mov precedes every later use */
			E->cbits[E->nconst] = n->bits;
			E->creg[E->nconst++] = t;
		}
		return t;
	}
	case SX_SELECT: {
		Reg p;
		int c = cond(E, n->a[0], false, &p);
		if (c != 2)
			return value_to(E, n->a[c ? 1 : 2], to);
		Reg x = value(E, n->a[1]), y = value(E, n->a[2]), t = to ? *to : new_r(E);
		b_ins(b, FORM_SELP_B32, nm(E, t), nm(E, x), nm(E, y), nm(E, p), NULL);
		return t;
	}
	default: break;
	}
	Reg a[3] = {{0}, {0}, {0}};
	int na = n->op == SX_FMA ? 3 : n->op >= SX_ADD ? 2 : 1;
	for (int i = 0; i < na; i++)
		a[i] = value(E, n->a[i]);
	Reg t = to ? *to : new_r(E); /* the operands are read by the instruction that writes it */
	if (na == 1)
		b_ins(b, value_form[n->op], nm(E, t), nm(E, a[0]), NULL);
	else if (na == 2)
		b_ins(b, value_form[n->op], nm(E, t), nm(E, a[0]), nm(E, a[1]), NULL);
	else
		b_ins(b, value_form[n->op], nm(E, t), nm(E, a[0]), nm(E, a[1]), nm(E, a[2]), NULL);
	return t;
}

static Reg value(SetEmit *E, const SetNode *n) { return value_to(E, n, NULL); }

/* the thread part of destination coordinate d (hoisted digits of %tid.x) */
static Reg thread_coord(SetEmit *E, int d)
{
	if (E->th_done[d])
		return E->th[d];
	Builder *b = E->b;
	Reg acc = b_const32(b, 0);
	for (int i = 0; i < E->pl->nterm[d]; i++) {
		const SetTerm *t = &E->pl->term[d][i];
		Reg dig = emit_digit(E->e, emit_tid(E->e), t->div, t->mod), r = new_r(E);
		b_ins(b, FORM_MAD_LO_U32, nm(E, r), nm(E, dig), b_imm(b, t->w), nm(E, acc), NULL);
		acc = r;
	}
	E->th_done[d] = true;
	return E->th[d] = acc;
}

/* the comparison that is true exactly when c is false: for integers the
 * complement, for floats the unordered complement (NaN makes it true) */
static SetCmp negated(SetCmp c)
{
	static const SetCmp neg[] = {[CMP_LT] = CMP_GE, [CMP_LE] = CMP_GT, [CMP_GT] = CMP_LE,
	                             [CMP_GE] = CMP_LT, [CMP_EQ] = CMP_NE, [CMP_NE] = CMP_EQ};
	return neg[c];
}

/* the variable part of mask n (its terms over variables and the thread's
 * coordinates, without the constant and the register's own coordinates),
 * computed once per statement: the registers then differ by an immediate */
static Reg mask_rest(SetEmit *E, const SetNode *n, const Affine *o, const int64_t *kd)
{
	if (E->mask_done[n->id])
		return E->mask_rest[n->id];
	Reg v = emit_affine(E->e, o);
	for (int d = 0; d < E->x->dst->ndim; d++)
		if (kd[d]) {
			Reg t = new_r(E);
			b_ins(E->b, FORM_MAD_LO_U32, nm(E, t), nm(E, thread_coord(E, d)), b_imm(E->b, (int64_t)(uint32_t)kd[d]),
			      nm(E, v), NULL);
			v = t;
		}
	E->mask_done[n->id] = true;
	return E->mask_rest[n->id] = v;
}

/* mask n's terms split for register E->r: o the variables' part, kd the
 * weight of each destination coordinate's thread part; returns the
 * register's constant (the constant of the mask and its own coordinates) */
static int64_t mask_split(const SetEmit *E, const SetNode *n, Affine *o, int64_t *kd)
{
	const SetExpr *x = E->x;
	int64_t c = n->diff.c;
	for (int i = 0; i < n->diff.n; i++) {
		int d = 0;
		while (d < x->dst->ndim && x->idx_var[d] != n->diff.t[i].var)
			d++;
		if (d < x->dst->ndim)
			kd[d] += n->diff.t[i].k;
		else
			o->t[o->n++] = n->diff.t[i];
	}
	for (int d = 0; d < x->dst->ndim; d++)
		c += kd[d] * E->pl->base[E->r * x->dst->ndim + d];
	return c;
}

/* v < 0 is v <= -1, v >= 0 is v > -1: the setp of each comparison and its offset */
static const FormId hoisted_form[] = {[CMP_LT] = FORM_SETP_LE_S32, [CMP_LE] = FORM_SETP_LE_S32,
                                      [CMP_GT] = FORM_SETP_GT_S32, [CMP_GE] = FORM_SETP_GT_S32,
                                      [CMP_EQ] = FORM_SETP_EQ_U32, [CMP_NE] = FORM_SETP_NE_U32};
static int64_t cmp_off(SetCmp cmp) { return cmp == CMP_LT || cmp == CMP_GE ? -1 : 0; }

/* rest (the part shared by every register) and -c both stay in 32 bits */
static bool hoistable(const SetEmit *E, const SetNode *n, SetCmp cmp, int64_t c)
{
	int64_t lo, hi, off = cmp_off(cmp);
	return check_affine_range(E->k, &n->diff, &lo, &hi) && lo - c >= INT32_MIN && hi - c <= INT32_MAX &&
	       off - c >= INT32_MIN && off - c <= INT32_MAX;
}

/* an integer condition at run time: diff at this register's coordinates,
 * against 0 as s32. diff = rest + c, with c this register's constant: rest
 * (one value per statement) is compared with -c, so each register costs one
 * setp (ptxas shares the equal ones) where a sum per register cost three
 * dependent integer ops; when rest or -c could leave 32 bits, the sum */
static void int_cond(SetEmit *E, const SetNode *n, SetCmp cmp, Reg p)
{
	Builder *b = E->b;
	Affine o = {0};
	int64_t kd[SET_MAX_RANK] = {0}, c = mask_split(E, n, &o, kd), off = cmp_off(cmp);
	if (hoistable(E, n, cmp, c)) { /* rest + c OP 0 is rest OP -c */
		Reg v = mask_rest(E, n, &o, kd);
		int64_t imm = off - c;
		b_ins(b, hoisted_form[cmp], nm(E, p), nm(E, v),
		      b_imm(b, cmp == CMP_EQ || cmp == CMP_NE ? (int64_t)(uint32_t)imm : imm), NULL);
		return;
	}
	o.c = c;
	Reg v = emit_affine(E->e, &o);
	for (int d = 0; d < E->x->dst->ndim; d++)
		if (kd[d]) {
			Reg t = new_r(E);
			b_ins(b, FORM_MAD_LO_U32, nm(E, t), nm(E, thread_coord(E, d)), b_imm(b, (int64_t)(uint32_t)kd[d]),
			      nm(E, v), NULL);
			v = t;
		}
	b_ins(b, hoisted_form[cmp], nm(E, p), nm(E, v), b_imm(b, off), NULL);
}

/* mask n (an && of integer comparisons) kept in every written register
 * where it is decided at run time: for each comparison, the bound on its
 * shared part that the worst register needs (rest <= the least -c for < and
 * <=, rest > the largest -c for > and >=), in lim[node id]; false when a
 * comparison is == or !=, cannot be hoisted, or is false in some register */
static bool keeps_all_bounds(SetEmit *E, const SetNode *n, int64_t *lim, bool *seen)
{
	if (n->op == SX_AND)
		return keeps_all_bounds(E, n->a[0], lim, seen) && keeps_all_bounds(E, n->a[1], lim, seen);
	if (n->op != SX_ICMP || n->cmp == CMP_EQ || n->cmp == CMP_NE)
		return false;
	bool up = n->cmp == CMP_LT || n->cmp == CMP_LE;
	for (E->r = 0; E->r < E->pl->regs; E->r++) {
		int f = E->pl->fold[(int64_t)n->id * E->pl->regs + E->r];
		if (!E->pl->written[E->r] || f == 1)
			continue;
		Affine o = {0};
		int64_t kd[SET_MAX_RANK] = {0}, c = mask_split(E, n, &o, kd), imm = cmp_off(n->cmp) - c;
		if (f == 0 || !hoistable(E, n, n->cmp, c))
			return false;
		if (!seen[n->id] || (up ? imm < lim[n->id] : imm > lim[n->id]))
			lim[n->id] = imm;
		seen[n->id] = true;
	}
	return true;
}

/* set X = select(MASK, X, v) with X f32, each register reading itself: a
 * register the mask keeps is left as it was, so where a thread's mask keeps
 * every register (an attention kernel's K blocks before the ragged last
 * one) the statement is a no-op. Emits one setp per comparison of the mask
 * (its shared part against the worst register's bound) and a branch past
 * the statement; returns the label to place after it, or 0 */
static int skip_when_kept(SetEmit *E)
{
	const SetExpr *x = E->x;
	const SetNode *root = x->root, *keep = root->op == SX_SELECT ? root->a[1] : NULL;
	if (!keep || keep->op != SX_LOAD || keep->buf != x->dst || x->dst->dt != DT_F32)
		return 0;
	for (int64_t r = 0; r < E->pl->regs; r++)
		if (E->pl->written[r] && E->pl->opreg[(int64_t)keep->id * E->pl->regs + r] != r)
			return 0;
	int64_t *lim = arena_alloc(E->b->arena, sizeof(int64_t) * (size_t)x->nnodes);
	bool *seen = arena_alloc(E->b->arena, sizeof(bool) * (size_t)x->nnodes);
	memset(seen, 0, sizeof(bool) * (size_t)x->nnodes);
	if (!keeps_all_bounds(E, root->a[0], lim, seen))
		return 0;
	Builder *b = E->b;
	Reg all = {0};
	bool any = false;
	for (int i = 0; i < x->nnodes; i++) {
		const SetNode *n = x->nodes[i];
		if (!seen[n->id])
			continue;
		E->r = 0;
		while (!E->pl->written[E->r] || E->pl->fold[(int64_t)n->id * E->pl->regs + E->r] == 1)
			E->r++;
		Affine o = {0};
		int64_t kd[SET_MAX_RANK] = {0};
		mask_split(E, n, &o, kd);
		Reg p = b_reg(b, RC_P), v = mask_rest(E, n, &o, kd);
		b_ins(b, hoisted_form[n->cmp], nm(E, p), nm(E, v), b_imm(b, lim[n->id]), NULL);
		if (any) {
			Reg q = b_reg(b, RC_P);
			b_ins(b, FORM_AND_PRED, nm(E, q), nm(E, all), nm(E, p), NULL);
			p = q;
		}
		all = p;
		any = true;
	}
	if (!any)
		return 0;
	int label = b_label(b);
	b_ins(b, FORM_BRA_IF, nm(E, all), b_label_name(b, label), NULL);
	return label;
}

static void float_cond(SetEmit *E, const SetNode *n, bool neg, Reg p)
{
	static const FormId f[] = {[CMP_LT] = FORM_SETP_LT_F32, [CMP_LE] = FORM_SETP_LE_F32, [CMP_GT] = FORM_SETP_GT_F32,
	                           [CMP_GE] = FORM_SETP_GE_F32, [CMP_EQ] = FORM_SETP_EQ_F32, [CMP_NE] = FORM_SETP_NEU_F32};
	static const FormId fneg[] = {[CMP_LT] = FORM_SETP_GEU_F32, [CMP_LE] = FORM_SETP_GTU_F32,
	                              [CMP_GT] = FORM_SETP_LEU_F32, [CMP_GE] = FORM_SETP_LTU_F32,
	                              [CMP_EQ] = FORM_SETP_NEU_F32, [CMP_NE] = FORM_SETP_EQ_F32};
	Reg x = value(E, n->a[0]), y = value(E, n->a[1]);
	b_ins(E->b, (neg ? fneg : f)[n->cmp], nm(E, p), nm(E, x), nm(E, y), NULL);
}

/* condition n (negated when neg) at this register: 0 or 1 when constant,
 * else 2 with the predicate in *p */
static int cond(SetEmit *E, const SetNode *n, bool neg, Reg *p)
{
	Builder *b = E->b;
	if (n->op == SX_NOT)
		return cond(E, n->a[0], !neg, p);
	if (n->op == SX_ICMP) {
		int c = E->pl->fold[(int64_t)n->id * E->pl->regs + E->r];
		if (c == 0 || c == 1)
			return c ^ neg;
		int_cond(E, n, neg ? negated(n->cmp) : n->cmp, *p = b_reg(b, RC_P));
		return 2;
	}
	if (n->op == SX_FCMP) {
		float_cond(E, n, neg, *p = b_reg(b, RC_P));
		return 2;
	}
	bool and = (n->op == SX_AND) != neg; /* De Morgan: !(a && b) is !a || !b */
	Reg pa, pb;
	int a = cond(E, n->a[0], neg, &pa);
	if (a != 2 && a == !and) /* false && _, true || _ */
		return a;
	int c = cond(E, n->a[1], neg, &pb);
	if (a != 2) { /* true && b, false || b */
		if (c == 2)
			*p = pb;
		return c;
	}
	if (c != 2)
		return c == !and ? c : (*p = pa, 2);
	b_ins(b, and ? FORM_AND_PRED : FORM_OR_PRED, nm(E, *p = b_reg(b, RC_P)), nm(E, pa), nm(E, pb), NULL);
	return 2;
}

/* the packed results of word w of a 16- or 8-bit destination: each pair of
 * elements converted together (an element not written takes its partner's
 * value), merged into the word where it is partly written */
static void pack_word(SetEmit *E, Reg *words, int64_t w, const Reg *res)
{
	Builder *b = E->b;
	DType dt = E->x->dst->dt;
	int es = dtype_bytes(dt), n = 4 / es;
	for (int p = 0; p < n / 2; p++) {
		int64_t e0 = w * n + 2 * p, e1 = e0 + 1;
		bool w0 = e0 < E->pl->regs && E->pl->written[e0], w1 = e1 < E->pl->regs && E->pl->written[e1];
		if (!w0 && !w1)
			continue;
		Reg lo = res[w0 ? e0 : e1], hi = res[w1 ? e1 : e0], t = new_r(E);
		if (es == 2 && w0 && w1) { /* the whole word */
			b_ins(b, dt == DT_F16 ? FORM_CVT_RN_F16X2_F32 : FORM_CVT_RN_BF16X2_F32, nm(E, words[w]), nm(E, hi),
			      nm(E, lo), NULL);
			continue;
		}
		if (es == 2) {
			b_ins(b, dt == DT_F16 ? FORM_CVT_RN_F16X2_F32 : FORM_CVT_RN_BF16X2_F32, nm(E, t), nm(E, hi), nm(E, lo), NULL);
		} else {
			Reg h = b_reg(b, RC_RS);
			b_ins(b, dt == DT_E4M3 ? FORM_CVT_RN_SATF_E4M3X2_F32 : FORM_CVT_RN_SATF_E5M2X2_F32, nm(E, h), nm(E, hi),
			      nm(E, lo), NULL);
			b_ins(b, FORM_CVT_U32_U16, nm(E, t), nm(E, h), NULL);
		}
		/* prmt: result byte i from the word (selector i) or from t (4 + its byte in t) */
		int64_t sel = 0;
		for (int i = 0; i < 4; i++) {
			int el = i / es, from = i; /* the element of the word byte i belongs to */
			if (el == 2 * p && w0)
				from = 4 + (es == 2 ? i : 0);
			else if (el == 2 * p + 1 && w1)
				from = 4 + (es == 2 ? i : 1);
			sel |= (int64_t)from << (4 * i);
		}
		Reg out = new_r(E);
		b_ins(b, FORM_PRMT_B32, nm(E, out), nm(E, words[w]), nm(E, t), b_imm(b, sel), NULL);
		b_ins(b, FORM_MOV_B32, nm(E, words[w]), nm(E, out), NULL);
	}
}

/* every read of the destination reads the register being computed */
static bool reads_only_own(const SetExpr *x, const SetPlan *pl)
{
	for (int i = 0; i < x->nnodes; i++) {
		const SetNode *n = x->nodes[i];
		if (n->op != SX_LOAD || n->buf != x->dst)
			continue;
		for (int64_t r = 0; r < pl->regs; r++)
			if (pl->written[r] && pl->opreg[(int64_t)n->id * pl->regs + r] != r)
				return false;
	}
	return true;
}

void emit_set(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	SetPlan pl;
	const Kernel *k = emit_kernel_of(e);
	const SetPlan *kept = plan_kept(emit_ctx(e), k, s); /* check_set's */
	if (kept)
		pl = *kept;
	else if (!set_plan(NULL, b->arena, k, s, &pl)) { /* check proved it: a tilepx bug */
		if (!b->internal)
			b->internal = arena_printf(b->arena, "set at line %d has no plan", s->loc.line);
		return;
	}
	SetEmit E = {.e = e, .b = b, .k = k, .x = s->set, .pl = &pl};
	const Buffer *d = s->set->dst;
	Reg *words = emit_local_regs(e, d), *res = arena_alloc(b->arena, sizeof(Reg) * (size_t)pl.regs);
	int64_t nw = 0;
	for (int64_t r = 0; r < pl.regs; r++)
		nw += pl.written[r];
	b_comment(b, "line %d: set %s (%lld registers)", s->loc.line, d->name, (long long)nw);
	/* an f32 destination whose every register reads no other register of
	 * itself is computed in place (nothing reads register r after its own
	 * expression); otherwise every result first, then the writes */
	bool direct = E.direct = d->dt == DT_F32 && reads_only_own(s->set, &pl);
	int skip = direct ? skip_when_kept(&E) : 0;
	for (E.r = 0; E.r < pl.regs; E.r++)
		if (pl.written[E.r]) {
			res[E.r] = value_to(&E, s->set->root, direct ? &words[E.r] : NULL);
			if (direct && res[E.r].id != words[E.r].id)
				b_ins(b, FORM_MOV_B32, nm(&E, words[E.r]), nm(&E, res[E.r]), NULL);
		}
	if (skip)
		b_place_label(b, skip);
	if (direct)
		return;
	if (d->dt == DT_F32) {
		for (int64_t r = 0; r < pl.regs; r++)
			if (pl.written[r])
				b_ins(b, FORM_MOV_B32, nm(&E, words[r]), nm(&E, res[r]), NULL);
		return;
	}
	int64_t per = 4 / dtype_bytes(d->dt);
	for (int64_t w = 0; w < (pl.regs + per - 1) / per; w++)
		pack_word(&E, words, w, res);
}
