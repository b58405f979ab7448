/* Register-to-register copies: the element map from the two layouts, and
 * the code per destination word (docs/language.md, "Register-to-register
 * copies"). */
#include "regpair.h"

#include <string.h>

const char *regpair_accepts(const CopyOp *op)
{
	const Buffer *d = op->dbuf, *s = op->sbuf;
	if (d->mem != MEM_LOCAL || s->mem != MEM_LOCAL)
		return arena_printf(op->cx->arena, "needs local -> local, got %s -> %s", mem_name(s->mem), mem_name(d->mem));
	if (d->owner != s->owner)
		return arena_printf(op->cx->arena, "'%s' is owned per %s but '%s' per %s", d->name, scope_name(d->owner),
		                    s->name, scope_name(s->owner));
	if (op->dst.L.nrep || op->src.L.nrep) /* each element in several threads: not mapped here yet */
		return arena_printf(op->cx->arena, "'%s' is replicated ('+ R[...]'): register-to-register copies of "
		                    "replicated layouts are not supported yet", op->dst.L.nrep ? d->name : s->name);
	if (d->owner > op->st->scope)
		return arena_printf(op->cx->arena, "the registers are owned per %s, wider than the %s scope of the copy",
		                    scope_name(d->owner), scope_name(op->st->scope));
	for (int side = 0; side < 2; side++) {
		const View *v = side ? &op->src : &op->dst;
		for (int a = AX_LANEID; a <= AX_TX; a++)
			if (v->off[a].c || v->off[a].n)
				return arena_printf(op->cx->arena, "the region of '%s' starts at a nonzero thread offset",
				                    side ? s->name : d->name);
		if (!affine_is_const(&v->off[AX_M]))
			return arena_printf(op->cx->arena, "the region of '%s' starts at a register that depends on a variable "
			                    "(registers are not indexable at run time)", side ? s->name : d->name);
	}
	return NULL;
}

/* element x (row-major over the region's extents) of region r, as the buffer's coordinates */
const char *regpair_coord(const CopyOp *op, const Region *r, int64_t x)
{
	int64_t c[MAX_DIMS];
	for (int d = r->ndim - 1; d >= 0; d--) {
		c[d] = x % r->ext[d];
		x /= r->ext[d];
	}
	Str s = {0};
	str_printf(&s, "%s[", r->buf->name);
	for (int d = 0; d < r->ndim; d++) {
		int64_t b = r->whole || r->all[d] || !affine_is_const(&r->begin[d]) ? 0 : r->begin[d].c;
		str_printf(&s, "%s%lld", d ? ", " : "", (long long)(b + c[d]));
	}
	str_printf(&s, "]");
	const char *out = arena_printf(op->cx->arena, "%s", s.s);
	str_free(&s);
	return out;
}

/* the thread (inside the owner group) and register element of flat element x of view v */
typedef struct Place {
	int64_t thread, reg;
} Place;

static Place place_of(const Layout *fused, const View *v, int64_t x)
{
	int64_t at[AX_COUNT];
	lay_apply_flat(fused, x, at);
	Place p = {0, at[AX_M] + v->off[AX_M].c};
	for (int a = AX_LANEID; a <= AX_TX; a++)
		p.thread += at[a];
	return p;
}

static const char *not_colocated(const CopyOp *op, int64_t x, Place d, Place s)
{
	return arena_printf(op->cx->arena,
	                    "not in one thread: %s lives in thread %lld (register element %lld) but %s in thread %lld "
	                    "(register element %lld) of the %s",
	                    regpair_coord(op, op->st->dst, x), (long long)d.thread, (long long)d.reg,
	                    regpair_coord(op, op->st->src, x), (long long)s.thread, (long long)s.reg,
	                    scope_name(op->dbuf->owner));
}

RegPlace *regpair_places(const CopyOp *op)
{
	Layout dl = op->dst.L, sl = op->src.L;
	lay_fuse_threads(&dl, op->dbuf->owner);
	lay_fuse_threads(&sl, op->sbuf->owner);
	RegPlace *out = arena_alloc(op->cx->arena, sizeof *out * (size_t)op->elems);
	for (int64_t x = 0; x < op->elems; x++) {
		Place d = place_of(&dl, &op->dst, x), s = place_of(&sl, &op->src, x);
		out[x] = (RegPlace){d.thread, d.reg, s.thread, s.reg};
	}
	return out;
}

const char *regpair_map(const CopyOp *op, RegMap *m)
{
	Arena *A = op->cx->arena;
	const RegPlace *pl = regpair_places(op);
	int64_t owner_threads = scope_threads(op->dbuf->owner, op->k->threads);
	int64_t count[REG_MAX_ELEMS] = {0}, first[REG_MAX_ELEMS];
	memset(m, 0, sizeof *m);
	memset(m->from, 0xff, sizeof m->from);
	for (int64_t x = 0; x < op->elems; x++) {
		Place d = {pl[x].dthr, pl[x].dreg}, s = {pl[x].sthr, pl[x].sreg};
		if (d.thread != s.thread)
			return not_colocated(op, x, d, s);
		if (d.reg >= REG_MAX_ELEMS || s.reg >= REG_MAX_ELEMS)
			return "more register elements than a thread holds";
		if (m->from[d.reg] >= 0 && m->from[d.reg] != s.reg) {
			int64_t y = first[d.reg];
			return arena_printf(A, "register element %lld of '%s' takes %s from register element %d in thread %lld "
			                    "but %s from register element %lld in thread %lld: the source register differs "
			                    "between threads", (long long)d.reg, op->dbuf->name, regpair_coord(op, op->st->src, y),
			                    m->from[d.reg], (long long)pl[y].dthr, regpair_coord(op, op->st->src, x),
			                    (long long)s.reg, (long long)d.thread);
		}
		if (m->from[d.reg] < 0)
			first[d.reg] = x;
		m->from[d.reg] = (int16_t)s.reg;
		count[d.reg]++;
		if (d.reg + 1 > m->elems)
			m->elems = (int)d.reg + 1;
	}
	for (int r = 0; r < m->elems; r++)
		if (m->from[r] >= 0 && count[r] != owner_threads)
			return regpair_partial(op, r, count[r]);
	regpair_count_words(op, m);
	return NULL;
}

const char *regpair_partial(const CopyOp *op, int r, int64_t count)
{
	return arena_printf(op->cx->arena, "register element %d of '%s' is copied in %lld of the %lld threads of its %s "
	                    "(the others hold elements outside the region there): a register is moved in every thread or "
	                    "none", r, op->dbuf->name, (long long)count,
	                    (long long)scope_threads(op->dbuf->owner, op->k->threads), scope_name(op->dbuf->owner));
}

void regpair_count_words(const CopyOp *op, RegMap *m)
{
	int es = dtype_bytes(op->dbuf->dt), last_word = -1;
	m->words = 0;
	for (int r = 0; r < m->elems; r++) {
		if (m->from[r] < 0)
			continue;
		int w = r * es / 4;
		m->words += w != last_word ? (es == 8 ? 2 : 1) : 0;
		last_word = w;
	}
}

/* ---- emission ---- */

typedef struct ByteSrc {
	Reg r;
	int byte;
} ByteSrc;

/* one copy's words being written: b NULL counts only (the plan counts on
 * stand-in registers, by the same decisions as the emission) */
typedef struct Words {
	Builder *b;
	RegCounts *n;
	const RegMap *m;
	DType dt;
	int es, ss;     /* DST's and SRC's element bytes */
	const Reg *dst; /* DST's words */
	const Reg *src; /* SRC's words */
	const Reg *via; /* NULL, or per DST element the register holding its source word (regshfl) */
} Words;

static bool same_reg(Reg a, Reg b) { return a.cls == b.cls && a.id == b.id; }

static void ins(const Words *x, FormId f, Reg d, Reg a, Reg c, int64_t sel)
{
	Builder *b = x->b;
	if (f == FORM_MOV_B32)
		x->n->mov++;
	else if (f == FORM_PRMT_B32)
		x->n->prmt++;
	else
		x->n->cvt++;
	if (!b)
		return;
	if (f == FORM_MOV_B32)
		b_ins(b, f, b_name(b, d), b_name(b, a), NULL);
	else if (f == FORM_PRMT_B32)
		b_ins(b, f, b_name(b, d), b_name(b, a), b_name(b, c), b_imm(b, sel), NULL);
	else
		b_ins(b, f, b_name(b, d), b_name(b, a), b_name(b, c), NULL);
}

static Reg temp(const Words *x, RegClass c) { return x->b ? b_reg(x->b, c) : (Reg){c, -1 - x->n->temps++}; }

/* the register holding the source word of DST element r's byte `byte` (of its element) */
static ByteSrc source_byte(const Words *x, int r, int byte)
{
	int sb = x->m->from[r] * x->ss + byte;
	return (ByteSrc){x->via ? x->via[r] : x->src[sb / 4], sb % 4};
}

/* prmt selector taking byte j of the result from sel[j] (0..7 over {b, a}) */
static int64_t selector(const int *sel)
{
	int64_t s = 0;
	for (int j = 0; j < 4; j++)
		s |= (int64_t)sel[j] << (4 * j);
	return s;
}

/* d = the four bytes src[0..3] (byte j of d from src[j]): a mov when they
 * are one register in order, else one prmt per pair of distinct registers */
static void emit_bytes(const Words *x, Reg d, const ByteSrc *src)
{
	Reg regs[4];
	int nr = 0, which[4];
	for (int j = 0; j < 4; j++) {
		int k = 0;
		while (k < nr && !same_reg(regs[k], src[j].r))
			k++;
		if (k == nr)
			regs[nr++] = src[j].r;
		which[j] = k;
	}
	bool in_order = nr == 1;
	for (int j = 0; j < 4; j++)
		in_order &= src[j].byte == j;
	if (in_order) {
		if (!same_reg(regs[0], d))
			ins(x, FORM_MOV_B32, d, regs[0], d, 0);
		return;
	}
	int sel[4];
	if (nr <= 2) {
		for (int j = 0; j < 4; j++)
			sel[j] = which[j] * 4 + src[j].byte;
		ins(x, FORM_PRMT_B32, d, regs[0], regs[nr - 1], selector(sel));
		return;
	}
	/* three or four registers: two pairs, each with its bytes in place, then one prmt of the two */
	Reg half[2];
	for (int h = 0; h < 2; h++) {
		Reg a = regs[2 * h], c = 2 * h + 1 < nr ? regs[2 * h + 1] : regs[2 * h];
		for (int j = 0; j < 4; j++)
			sel[j] = which[j] / 2 == h ? (which[j] % 2) * 4 + src[j].byte : 0;
		half[h] = temp(x, RC_R);
		ins(x, FORM_PRMT_B32, half[h], a, c, selector(sel));
	}
	for (int j = 0; j < 4; j++)
		sel[j] = (which[j] / 2) * 4 + j;
	ins(x, FORM_PRMT_B32, d, half[0], half[1], selector(sel));
}

static bool copied(const Words *x, int r) { return r < x->m->elems && x->m->from[r] >= 0; }

/* a word of narrow elements of one dtype: each byte from its source byte,
 * or the word's own where its element is not copied */
static void emit_moved_word(const Words *x, int w)
{
	ByteSrc bs[4];
	for (int j = 0; j < 4; j++) {
		int r = (w * 4 + j) / x->es;
		bs[j] = copied(x, r) ? source_byte(x, r, j % x->es) : (ByteSrc){x->dst[w], j};
	}
	emit_bytes(x, x->dst[w], bs);
}

/* a word of two f16/bf16 rounded from f32 registers: one cvt of both, or a
 * cvt of the one copied merged into the word */
static void emit_half_word(const Words *x, int w)
{
	FormId cvt = x->dt == DT_BF16 ? FORM_CVT_RN_BF16X2_F32 : FORM_CVT_RN_F16X2_F32;
	bool lo = copied(x, 2 * w), hi = copied(x, 2 * w + 1);
	if (lo && hi) { /* cvt.rn.{f16,bf16}x2.f32 d, hi, lo: the first source is the upper half */
		ins(x, cvt, x->dst[w], source_byte(x, 2 * w + 1, 0).r, source_byte(x, 2 * w, 0).r, 0);
		return;
	}
	Reg t = temp(x, RC_R), one = source_byte(x, lo ? 2 * w : 2 * w + 1, 0).r;
	ins(x, cvt, t, one, one, 0);
	ByteSrc bs[4];
	for (int j = 0; j < 4; j++)
		bs[j] = (j < 2) == lo ? (ByteSrc){t, j} : (ByteSrc){x->dst[w], j};
	emit_bytes(x, x->dst[w], bs);
}

/* a word of four e4m3/e5m2 rounded from f32 registers: a cvt per pair of
 * bytes into a 16-bit register (an element alone: converted twice), widened,
 * then the bytes placed by prmt (a byte not copied: the word's own) */
static void emit_f8_word(const Words *x, int w)
{
	FormId cvt = x->dt == DT_E5M2 ? FORM_CVT_RN_SATF_E5M2X2_F32 : FORM_CVT_RN_SATF_E4M3X2_F32;
	Reg pair[2] = {{RC_R, 0}, {RC_R, 0}};
	for (int h = 0; h < 2; h++) {
		int e0 = 4 * w + 2 * h;
		bool lo = copied(x, e0), hi = copied(x, e0 + 1);
		if (!lo && !hi)
			continue;
		Reg r16 = temp(x, RC_RS), a = source_byte(x, hi ? e0 + 1 : e0, 0).r, c = source_byte(x, lo ? e0 : e0 + 1, 0).r;
		pair[h] = temp(x, RC_R);
		x->n->cvt += 2;
		if (x->b) { /* the first source is the upper byte */
			b_ins(x->b, cvt, b_name(x->b, r16), b_name(x->b, a), b_name(x->b, c), NULL);
			b_ins(x->b, FORM_CVT_U32_U16, b_name(x->b, pair[h]), b_name(x->b, r16), NULL);
		}
	}
	ByteSrc bs[4];
	for (int j = 0; j < 4; j++)
		bs[j] = copied(x, 4 * w + j) ? (ByteSrc){pair[j / 2], j % 2} : (ByteSrc){x->dst[w], j};
	emit_bytes(x, x->dst[w], bs);
}

/* every DST word of the map */
static void walk_words(const CopyOp *op, Words *x)
{
	const RegMap *m = x->m;
	if (op->dbuf == op->sbuf && !x->via) { /* in place: every source word is read before any is written */
		int nsrc = 0;
		for (int r = 0; r < m->elems; r++)
			if (m->from[r] >= 0 && (m->from[r] + 1) * x->ss > nsrc * 4)
				nsrc = ((m->from[r] + 1) * x->ss + 3) / 4;
		Reg *copy = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)(nsrc ? nsrc : 1));
		for (int w = 0; w < nsrc; w++) {
			copy[w] = temp(x, RC_R);
			ins(x, FORM_MOV_B32, copy[w], x->src[w], x->src[w], 0);
		}
		x->src = copy;
	}
	int words = (m->elems * x->es + 3) / 4;
	for (int w = 0; w < words; w++) {
		bool any = false;
		for (int r = w * 4 / x->es; r < m->elems && r * x->es < (w + 1) * 4; r++)
			any |= m->from[r] >= 0;
		if (!any)
			continue;
		if (x->es == 8) /* a 64-bit element: its two words */
			ins(x, FORM_MOV_B32, x->dst[w], x->src[m->from[w / 2] * 2 + w % 2], x->dst[w], 0);
		else if (x->es == x->ss)
			emit_moved_word(x, w);
		else if (x->es == 1)
			emit_f8_word(x, w);
		else
			emit_half_word(x, w);
	}
}

/* SRC's register elements per thread: the largest register offset of its layout, plus one */
static int src_elems(const Buffer *b)
{
	int64_t r = 0;
	for (int j = 0; j < b->layout.n; j++)
		if (b->layout.it[j].axis == AX_M)
			r += (b->layout.it[j].ext - 1) * b->layout.it[j].stride;
	return (int)r + 1;
}

/* SRC's f32 elements rounded to DST's dtype in SRC's own arrangement, into
 * fresh words (element r at byte (r * es) % 4 of word r * es / 4): every
 * word that holds an element `used` marks, whole */
static Reg *convert_source(const CopyOp *op, const bool *used, Words *x)
{
	int es = dtype_bytes(op->dbuf->dt), n = src_elems(op->sbuf), words = (n * es + 3) / 4;
	RegMap *cm = arena_alloc(op->cx->arena, sizeof *cm);
	Reg *out = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)(words + 1));
	memset(cm->from, 0xff, sizeof cm->from);
	cm->elems = n;
	for (int r = 0; r < n && r < REG_MAX_ELEMS; r++)
		if (used[r])
			for (int q = r * es / 4 * 4 / es; q < n && q * es / 4 == r * es / 4; q++)
				cm->from[q] = (int16_t)q;
	Words c = *x;
	c.m = cm;
	c.es = es;
	c.ss = 4;
	c.dst = out;
	c.via = NULL;
	for (int w = 0; w < words; w++) {
		out[w] = temp(x, RC_R);
		if (cm->from[w * 4 / es] < 0)
			continue;
		if (es == 1)
			emit_f8_word(&c, w);
		else
			emit_half_word(&c, w);
	}
	return out;
}

Reg *regpair_converted_source(const CopyOp *op, const bool *used, RegCounts *n, Emit *e)
{
	RegCounts own = {0};
	Words x = {e ? emit_builder(e) : NULL, n ? n : &own, NULL, op->dbuf->dt, 0, 4, NULL,
	           e ? emit_local_regs(e, op->sbuf) : NULL, NULL};
	Reg *stand = NULL;
	if (!e) { /* stand-ins for SRC's words */
		int words = src_elems(op->sbuf) + 1;
		stand = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)words);
		for (int w = 0; w < words; w++)
			stand[w] = (Reg){RC_R, w};
		x.src = stand;
	}
	return convert_source(op, used, &x);
}

void regpair_count(const CopyOp *op, const RegMap *m, const int *via, bool converted, RegCounts *n)
{
	memset(n, 0, sizeof *n);
	int dwords = (m->elems * dtype_bytes(op->dbuf->dt) + 3) / 4, swords = REG_MAX_ELEMS * 8 / 4;
	Reg *dst = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)(dwords + 1));
	Reg *src = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)swords);
	Reg *vias = arena_alloc(op->cx->arena, sizeof(Reg) * (size_t)(m->elems + 1));
	for (int w = 0; w < swords; w++) /* stand-ins: one buffer's words are the same registers */
		src[w] = (Reg){RC_R, w};
	for (int w = 0; w < dwords; w++)
		dst[w] = op->dbuf == op->sbuf ? src[w] : (Reg){RC_R, swords + w};
	for (int r = 0; r < m->elems; r++) /* elements with equal via[r] share one register */
		vias[r] = (Reg){RC_R, 2 * swords + (via ? via[r] : r)};
	Words x = {NULL, n, m, op->dbuf->dt, dtype_bytes(op->dbuf->dt),
	           dtype_bytes(converted ? op->dbuf->dt : op->sbuf->dt), dst, src, via ? vias : NULL};
	walk_words(op, &x);
	n->temps = 0;
}

void regpair_emit(const CopyOp *op, const RegMap *m, const Reg *via, bool converted, Emit *e)
{
	RegCounts n = {0};
	Words x = {emit_builder(e), &n, m, op->dbuf->dt, dtype_bytes(op->dbuf->dt),
	           dtype_bytes(converted ? op->dbuf->dt : op->sbuf->dt), emit_local_regs(e, op->dbuf),
	           emit_local_regs(e, op->sbuf), via};
	walk_words(op, &x);
}
