/* copy / regshfl: registers -> registers where a destination element's
 * source lives in another lane of the same warp. Per destination register
 * element, the source lane and the source register element are read off the
 * two layouts for every thread of the owner group; each must be the same in
 * every warp and a bit-linear function of the lane (c + sum of lane bit
 * fields times weights, checked on all 32 lanes). One shfl.sync.idx.b32 per
 * distinct source register ("round"); a thread keeps the round whose
 * register is its own (setp on the register function, a predicated mov).
 * The words are then packed as regmove packs them (regpair.c). */
#include "regpair.h"
#include "regshfl.h"

#include <stdio.h>
#include <string.h>

enum { SHFL_MAX_FNS = 64, SHFL_MAX_ROUNDS = 4 };

/* a function of the lane, exact on all 32 lanes:
 * c + sum over groups of ((lane >> shift) & (2^bits - 1)) * w */
typedef struct LaneFn {
	int32_t c;
	int ng;
	struct {
		int shift, bits;
		int32_t w;
	} g[5];
} LaneFn;

typedef struct ShflElem {
	uint8_t lane_fn, reg_fn, nrounds;
	int16_t reg[SHFL_MAX_ROUNDS]; /* the source register element of each round */
} ShflElem;

typedef struct ShflPlan {
	RegMap map; /* from[r]: round 0's register (its byte offset is the one packing reads) */
	int nfns, shfls, selects, movmatrix;
	int16_t movm[REG_MAX_ELEMS / 2]; /* per DST word: 1 + the SRC word movmatrix transposes into it, 0 none */
	bool converted;                  /* SRC rounded to DST's dtype where it lives, before the shuffles */
	bool used[REG_MAX_ELEMS];        /* converted: the SRC elements the shuffles read */
	int16_t leader[REG_MAX_ELEMS];   /* the first element whose shuffles and select give the same register */
	LaneFn fns[SHFL_MAX_FNS];
	ShflElem el[REG_MAX_ELEMS];
} ShflPlan;

static bool fit(const int32_t *v, LaneFn *f)
{
	memset(f, 0, sizeof *f);
	f->c = v[0];
	int32_t w[5];
	for (int k = 0; k < 5; k++)
		w[k] = v[1 << k] - v[0];
	for (int l = 0; l < 32; l++) {
		int64_t sum = v[0];
		for (int k = 0; k < 5; k++)
			sum += (l >> k & 1) * (int64_t)w[k];
		if (sum != v[l])
			return false;
	}
	for (int k = 0; k < 5;) { /* runs of bits whose weights double form one field */
		if (!w[k]) {
			k++;
			continue;
		}
		int len = 1;
		while (k + len < 5 && (int64_t)w[k + len] == (int64_t)w[k] * (1 << len))
			len++;
		f->g[f->ng].shift = k;
		f->g[f->ng].bits = len;
		f->g[f->ng++].w = w[k];
		k += len;
	}
	return true;
}

static bool is_identity(const LaneFn *f)
{
	return f->c == 0 && f->ng == 1 && f->g[0].shift == 0 && f->g[0].bits == 5 && f->g[0].w == 1;
}

/* the index of function v in the plan's table (added when new), -1 when it fits none or the table is full */
static int fn_index(ShflPlan *sp, const int32_t *v)
{
	LaneFn f;
	if (!fit(v, &f))
		return -1;
	for (int i = 0; i < sp->nfns; i++)
		if (!memcmp(&sp->fns[i], &f, sizeof f))
			return i;
	if (sp->nfns == SHFL_MAX_FNS)
		return -1;
	sp->fns[sp->nfns] = f;
	return sp->nfns++;
}

/* the lanes' sources of DST register element r: lane[l] and reg[l], the same in every warp */
static const char *lane_tables(const CopyOp *op, const RegPlace *pl, const int64_t *at, int64_t nthr, int r,
                               int32_t *lane, int32_t *reg)
{
	for (int64_t t = 0; t < nthr; t++) {
		const RegPlace *p = &pl[at[t]];
		if (p->sthr / 32 != t / 32)
			return arena_printf(op->cx->arena, "%s lives in warp %lld but %s in warp %lld of the %s: a shuffle moves "
			                    "data between the lanes of one warp only", regpair_coord(op, op->st->dst, at[t]),
			                    (long long)(t / 32), regpair_coord(op, op->st->src, at[t]), (long long)(p->sthr / 32),
			                    scope_name(op->dbuf->owner));
		int l = (int)(t % 32);
		if (t >= 32 && (lane[l] != p->sthr % 32 || reg[l] != p->sreg))
			return arena_printf(op->cx->arena, "register element %d of '%s' takes its source from lane %d register "
			                    "element %d in warp 0 but lane %lld register element %lld in warp %lld", r,
			                    op->dbuf->name, lane[l], reg[l], (long long)(p->sthr % 32), (long long)p->sreg,
			                    (long long)(t / 32));
		lane[l] = (int32_t)(p->sthr % 32);
		reg[l] = (int32_t)p->sreg;
	}
	return NULL;
}

/* element r's lane and register functions and rounds */
static const char *plan_elem(const CopyOp *op, ShflPlan *sp, int r, const int32_t *lane, const int32_t *reg)
{
	ShflElem *el = &sp->el[r];
	int li = fn_index(sp, lane), ri = fn_index(sp, reg);
	if (li < 0 || ri < 0)
		return arena_printf(op->cx->arena, "the source %s of register element %d of '%s' is not a bit-linear "
		                    "function of the lane (lane 0..31: %d, %d, %d, %d, ...)", li < 0 ? "lane" : "register",
		                    r, op->dbuf->name, (li < 0 ? lane : reg)[0], (li < 0 ? lane : reg)[1],
		                    (li < 0 ? lane : reg)[2], (li < 0 ? lane : reg)[3]);
	el->lane_fn = (uint8_t)li;
	el->reg_fn = (uint8_t)ri;
	for (int l = 0; l < 32; l++) {
		int k = 0;
		while (k < el->nrounds && el->reg[k] != reg[l])
			k++;
		if (k == el->nrounds) {
			if (k == SHFL_MAX_ROUNDS)
				return arena_printf(op->cx->arena, "register element %d of '%s' takes its source from more than %d "
				                    "registers across the lanes", r, op->dbuf->name, SHFL_MAX_ROUNDS);
			el->reg[el->nrounds++] = (int16_t)reg[l];
		}
	}
	sp->map.from[r] = el->reg[0];
	return NULL;
}

/* the bytes of the elements the shuffles move: SRC's, or DST's when SRC is
 * rounded first (a converting copy: two or four elements to a shuffled word) */
static int moved_bytes(const CopyOp *op, const ShflPlan *sp)
{
	return dtype_bytes(sp->converted ? op->dbuf->dt : op->sbuf->dt);
}

static int32_t eval(const LaneFn *f, int l)
{
	int64_t v = f->c;
	for (int i = 0; i < f->ng; i++)
		v += (int64_t)(l >> f->g[i].shift & ((1 << f->g[i].bits) - 1)) * f->g[i].w;
	return (int32_t)v;
}

/* DST words that are exactly movmatrix.m8n8.trans of one SRC word: half j
 * of lane l takes half (l/4)%2 of that word in lane 4(2(l%4) + j) + (l/4)/2
 * (the m8n8 b16 fragment of the transpose), checked on every lane */
static void find_movmatrix(const CopyOp *op, ShflPlan *sp)
{
	if (dtype_bytes(op->dbuf->dt) != 2 || moved_bytes(op, sp) != 2)
		return;
	for (int w = 0; 2 * w + 1 < sp->map.elems; w++) {
		if (sp->map.from[2 * w] < 0 || sp->map.from[2 * w + 1] < 0)
			continue;
		int W = sp->el[2 * w].reg[0] / 2;
		bool ok = true;
		for (int j = 0; j < 2 && ok; j++)
			for (int l = 0; l < 32 && ok; l++) {
				const ShflElem *el = &sp->el[2 * w + j];
				ok = eval(&sp->fns[el->lane_fn], l) == 4 * (2 * (l % 4) + j) + (l / 4) / 2 &&
				     eval(&sp->fns[el->reg_fn], l) == 2 * W + (l / 4) % 2;
			}
		if (!ok)
			continue;
		sp->movm[w] = (int16_t)(W + 1);
		sp->used[2 * W] = sp->used[2 * W + 1] = true;
		sp->map.from[2 * w] = (int16_t)(2 * W); /* the transposed word's halves, in order */
		sp->map.from[2 * w + 1] = (int16_t)(2 * W + 1);
		sp->movmatrix++;
	}
}

/* what element r's selected register is made of: its lane function, each
 * lane's round, each round's shuffled word and the rotation that aligns it
 * with round 0; elements with equal keys share one register */
typedef struct SelKey {
	int lane_fn, nrounds;
	uint64_t rounds; /* 2 bits per lane */
	int word[SHFL_MAX_ROUNDS], rot[SHFL_MAX_ROUNDS];
} SelKey;

static SelKey sel_key(const ShflPlan *sp, const ShflElem *el, int ss)
{
	SelKey k;
	memset(&k, 0, sizeof k);
	k.lane_fn = el->lane_fn;
	k.nrounds = el->nrounds;
	for (int l = 0; l < 32; l++) {
		int v = eval(&sp->fns[el->reg_fn], l), q = 0;
		while (q < el->nrounds - 1 && el->reg[q] != v)
			q++;
		k.rounds |= (uint64_t)q << (2 * l);
	}
	for (int q = 0; q < el->nrounds; q++) {
		k.word[q] = el->reg[q] * ss / 4;
		k.rot[q] = (el->reg[q] * ss - el->reg[0] * ss) & 3;
	}
	return k;
}

/* the shuffles and selects the emission makes: one shfl per distinct
 * (source word, lane function), one select per distinct SelKey */
static void count_shuffles(const CopyOp *op, ShflPlan *sp)
{
	int ss = moved_bytes(op, sp), seen = 0;
	int64_t *keys = arena_alloc(op->cx->arena, sizeof(int64_t) * REG_MAX_ELEMS * SHFL_MAX_ROUNDS);
	SelKey *sk = arena_alloc(op->cx->arena, sizeof(SelKey) * REG_MAX_ELEMS);
	for (int r = 0; r < sp->map.elems; r++) {
		const ShflElem *el = &sp->el[r];
		sp->leader[r] = (int16_t)r;
		if (sp->map.from[r] < 0 || (ss == 2 && sp->movm[r / 2]))
			continue;
		sk[r] = sel_key(sp, el, ss);
		for (int q = 0; q < r; q++)
			if (sp->leader[q] == q && sp->map.from[q] >= 0 && !(ss == 2 && sp->movm[q / 2]) &&
			    !memcmp(&sk[q], &sk[r], sizeof sk[r])) {
				sp->leader[r] = (int16_t)q;
				break;
			}
		for (int k = 0; k < el->nrounds; k++)
			sp->used[el->reg[k]] = true;
		if (sp->leader[r] != r)
			continue;
		sp->selects += el->nrounds - 1;
		for (int k = 0; k < el->nrounds; k++) {
			int64_t key = (int64_t)(el->reg[k] * ss / 4) * SHFL_MAX_FNS + el->lane_fn;
			int i = 0;
			while (i < seen && keys[i] != key)
				i++;
			if (i == seen && !is_identity(&sp->fns[el->lane_fn])) {
				keys[seen++] = key;
				sp->shfls++;
			}
		}
	}
}

static const char *build(const CopyOp *op, ShflPlan *sp)
{
	const RegPlace *pl = regpair_places(op);
	int64_t nthr = scope_threads(op->dbuf->owner, op->k->threads);
	int elems = 0;
	for (int64_t x = 0; x < op->elems; x++) {
		if (pl[x].dreg >= REG_MAX_ELEMS || pl[x].sreg >= REG_MAX_ELEMS)
			return "more register elements than a thread holds";
		elems = pl[x].dreg + 1 > elems ? (int)pl[x].dreg + 1 : elems;
	}
	int64_t *at = arena_alloc(op->cx->arena, sizeof(int64_t) * (size_t)(elems * nthr)), count[REG_MAX_ELEMS] = {0};
	for (int64_t x = 0; x < op->elems; x++) {
		at[pl[x].dreg * nthr + pl[x].dthr] = x;
		count[pl[x].dreg]++;
	}
	memset(sp->map.from, 0xff, sizeof sp->map.from);
	sp->map.elems = elems;
	for (int r = 0; r < elems; r++) {
		if (!count[r])
			continue;
		if (count[r] != nthr)
			return regpair_partial(op, r, count[r]);
		int32_t lane[32], reg[32];
		const char *why = lane_tables(op, pl, at + r * nthr, nthr, r, lane, reg);
		if (!why)
			why = plan_elem(op, sp, r, lane, reg);
		if (why)
			return why;
	}
	regpair_count_words(op, &sp->map);
	sp->converted = op->dbuf->dt != op->sbuf->dt;
	find_movmatrix(op, sp);
	count_shuffles(op, sp);
	return NULL;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	if (op->dbuf->owner == SC_THREAD)
		return "the registers are per thread: no lanes to shuffle between";
	if (dtype_bytes(op->dbuf->dt) == 8 || dtype_bytes(op->sbuf->dt) == 8)
		return "64-bit elements are not shuffled (two words each)";
	ShflPlan *sp = arena_alloc(op->cx->arena, sizeof *sp);
	p->u.regshfl.sp = sp;
	const char *why = build(op, sp);
	if (why)
		return why;
	RegCounts n;
	int *via = arena_alloc(op->cx->arena, sizeof(int) * (size_t)(sp->map.elems + 1));
	for (int r = 0; r < sp->map.elems; r++) /* a movmatrix word's two elements: one register */
		via[r] = dtype_bytes(op->dbuf->dt) == 2 && sp->movm[r / 2] ? r & ~1 : sp->leader[r];
	regpair_count(op, &sp->map, via, sp->converted, &n);
	if (sp->converted) { /* the rounding before the shuffles */
		RegCounts c = {0};
		regpair_converted_source(op, sp->used, &c, NULL);
		n.cvt += c.cvt;
		n.prmt += c.prmt;
		n.mov += c.mov;
	}
	int at = snprintf(p->params, sizeof p->params,
	                  "{\"words\": %d, \"movmatrix\": %d, \"shfl\": %d, \"select\": %d, \"mov\": %d, \"prmt\": %d, "
	                  "\"cvt\": %d", sp->map.words, sp->movmatrix, sp->shfls, sp->selects, n.mov, n.prmt, n.cvt);
	if (op->dbuf->dt != op->sbuf->dt)
		at += snprintf(p->params + at, sizeof p->params - (size_t)at, ", \"convert\": \"%s -> %s\"",
		               dtype_name(op->sbuf->dt), dtype_name(op->dbuf->dt));
	snprintf(p->params + at, sizeof p->params - (size_t)at, "}");
	snprintf(p->summary, sizeof p->summary, "regshfl %d words: %d movmatrix, %d shfl, %d select", sp->map.words,
	         sp->movmatrix, sp->shfls, sp->selects);
	return NULL;
}

/* ---- emission ---- */

/* the u32 value of f at this thread's lane */
static Reg fn_value(Emit *e, const LaneFn *f)
{
	Builder *b = emit_builder(e);
	Reg lane = emit_scope_tid(e, SC_WARP), v = b_const32(b, f->c);
	for (int i = 0; i < f->ng; i++) {
		Reg d = f->g[i].shift == 0 && f->g[i].bits == 5 ? lane
		                                                : emit_digit(e, lane, 1 << f->g[i].shift, 1 << f->g[i].bits);
		Reg s = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, s), b_name(b, d), b_imm(b, (int64_t)(uint32_t)f->g[i].w), b_name(b, v),
		      NULL);
		v = s;
	}
	return v;
}

/* each lane function's value, computed at its first use */
typedef struct Vals {
	Reg r[SHFL_MAX_FNS];
	bool have[SHFL_MAX_FNS];
} Vals;

static Reg value_of(Emit *e, const ShflPlan *sp, Vals *v, int fn)
{
	if (!v->have[fn]) {
		v->r[fn] = fn_value(e, &sp->fns[fn]);
		v->have[fn] = true;
	}
	return v->r[fn];
}

typedef struct Shuffled {
	int64_t key;
	Reg r;
} Shuffled;

/* SRC word w as lane_fn's lane holds it (this lane's own word when the function is the identity) */
static Reg shuffled(Emit *e, const ShflPlan *sp, Vals *v, Shuffled *memo, int *nmemo, Reg word, int w, int fn,
                    bool in_place)
{
	if (is_identity(&sp->fns[fn]) && !in_place)
		return word;
	int64_t key = (int64_t)w * SHFL_MAX_FNS + fn;
	for (int i = 0; i < *nmemo; i++)
		if (memo[i].key == key)
			return memo[i].r;
	Builder *b = emit_builder(e);
	Reg r = b_reg(b, RC_R);
	if (is_identity(&sp->fns[fn])) /* one buffer: a copy, read before DST's words are written */
		b_ins(b, FORM_MOV_B32, b_name(b, r), b_name(b, word), NULL);
	else
		b_ins(b, FORM_SHFL_SYNC_IDX_B32, b_name(b, r), b_name(b, word), b_name(b, value_of(e, sp, v, fn)), "31",
		      "0xffffffff", NULL);
	memo[(*nmemo)++] = (Shuffled){key, r};
	return r;
}

/* the register this lane keeps for DST element r: round k where the lane's source register is reg[k] */
static Reg select_round(Emit *e, const ShflPlan *sp, Vals *v, const ShflElem *el, const Reg *got, int ss)
{
	Builder *b = emit_builder(e);
	if (el->nrounds == 1)
		return got[0];
	Reg rv = value_of(e, sp, v, el->reg_fn), t = b_reg(b, RC_R);
	b_ins(b, FORM_MOV_B32, b_name(b, t), b_name(b, got[0]), NULL);
	for (int k = 1; k < el->nrounds; k++) {
		Reg p = b_reg(b, RC_P), x = got[k];
		int off0 = el->reg[0] * ss % 4, off = el->reg[k] * ss % 4;
		if (off != off0) { /* the element's bytes moved to where round 0 has them */
			int64_t sel = 0;
			for (int j = 0; j < 4; j++)
				sel |= (int64_t)((j - off0 + off) & 3) << (4 * j);
			x = b_reg(b, RC_R);
			b_ins(b, FORM_PRMT_B32, b_name(b, x), b_name(b, got[k]), b_name(b, got[k]), b_imm(b, sel), NULL);
		}
		b_ins(b, FORM_SETP_EQ_U32, b_name(b, p), b_name(b, rv), b_imm(b, el->reg[k]), NULL);
		b->guard = b_name(b, p);
		b_ins(b, FORM_MOV_B32, b_name(b, t), b_name(b, x), NULL);
		b->guard = NULL;
	}
	return t;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const ShflPlan *sp = p->u.regshfl.sp;
	int ss = moved_bytes(op, sp);
	Reg *src = sp->converted ? regpair_converted_source(op, sp->used, NULL, e) : emit_local_regs(e, op->sbuf);
	Vals v;
	memset(&v, 0, sizeof v);
	Reg *via = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)(sp->map.elems + 1));
	Shuffled *memo = arena_alloc(op->cx->arena, sizeof(Shuffled) * REG_MAX_ELEMS * SHFL_MAX_ROUNDS);
	int nmemo = 0;
	for (int r = 0; r < sp->map.elems; r++) { /* every shuffle before any DST word is written */
		const ShflElem *el = &sp->el[r];
		if (sp->map.from[r] < 0)
			continue;
		if (ss == 2 && sp->movm[r / 2]) { /* the word's two elements at once */
			Builder *b = emit_builder(e);
			via[r] = via[r + 1] = b_reg(b, RC_R);
			b_ins(b, FORM_MOVMATRIX_T_B16, b_name(b, via[r]), b_name(b, src[sp->movm[r / 2] - 1]), NULL);
			r++;
			continue;
		}
		if (sp->leader[r] != r) { /* the same shuffles and select as an element before */
			via[r] = via[sp->leader[r]];
			continue;
		}
		Reg got[SHFL_MAX_ROUNDS];
		for (int k = 0; k < el->nrounds; k++) {
			int w = el->reg[k] * ss / 4;
			got[k] = shuffled(e, sp, &v, memo, &nmemo, src[w], w, el->lane_fn, op->dbuf == op->sbuf);
		}
		via[r] = select_round(e, sp, &v, el, got, ss);
	}
	regpair_emit(op, &sp->map, via, sp->converted, e);
}

const Variant variant_regshfl = {"regshfl", ST_COPY, 10, regpair_accepts, plan, emit, .converts = true};
