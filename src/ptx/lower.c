/* Lowering helpers the variants, asm, wgmma and async emission share:
 * hoisting and memoized values, thread and scope ids, addresses, digits,
 * loads and stores between memories, loops. */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

void emit_hoist_begin(Emit *e)
{
	if (e->hoisting++ == 0 && e->repeat_depth > 0) {
		Str t = e->b.body;
		e->b.body = e->pre;
		e->pre = t;
	}
}

void emit_hoist_end(Emit *e)
{
	if (--e->hoisting == 0 && e->repeat_depth > 0) {
		Str t = e->b.body;
		e->b.body = e->pre;
		e->pre = t;
	}
}

bool emit_memo_find(Emit *e, const int64_t *key, int n, Reg *out)
{
	for (size_t i = 0; i < e->nmemo; i++)
		if (e->memo[i].n == n && !memcmp(e->kpool + e->memo[i].key, key, sizeof(int64_t) * (size_t)n)) {
			*out = e->memo[i].r;
			return true;
		}
	return false;
}

void emit_memo_put(Emit *e, const int64_t *key, int n, Reg r)
{
	if (e->nmemo >= 4096) /* bounded search; a miss only costs a recomputation */
		return;
	if (e->nmemo == 0)
		e->kn = 0;
	if (e->kn + (size_t)n > e->kcap) {
		size_t cap = e->kcap ? e->kcap * 2 : 1024;
		while (cap < e->kn + (size_t)n)
			cap *= 2;
		int64_t *p = realloc(e->kpool, sizeof(int64_t) * cap);
		if (!p) {
			fputs("tilepx: out of memory\n", stderr);
			exit(3);
		}
		e->kpool = p;
		e->kcap = cap;
	}
	memcpy(e->kpool + e->kn, key, sizeof(int64_t) * (size_t)n);
	struct Memo m = {n, e->kn, r};
	e->kn += (size_t)n;
	APUSH(e->cx->arena, e->memo, e->nmemo, e->memocap, m);
}

/* registers the prologue defines: their functions can be hoisted */
bool emit_is_invariant(Emit *e, Reg r)
{
	Reg p[] = {e->tid, e->ctaid, e->ctaidy, e->crank, e->lane, e->warp, e->wg, e->tid_wg};
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		if (p[i].cls == r.cls && p[i].id == r.id)
			return true;
	return false;
}

bool emit_var_invariant(int var) { return var < VAR_REPEAT0; }

Builder *emit_builder(Emit *e) { return &e->b; }
Reg emit_tid(Emit *e) { return e->tid; }
const Kernel *emit_kernel_of(Emit *e) { return e->k; }
Ctx *emit_ctx(Emit *e) { return e->cx; }

static size_t buf_index(const Emit *e, const Buffer *b)
{
	for (size_t i = 0; i < e->k->nbufs; i++)
		if (e->k->bufs[i] == b)
			return i;
	return 0;
}

Reg emit_scope_tid(Emit *e, Scope s)
{
	switch (s) {
	case SC_WARP: return e->lane;
	case SC_WARPGROUP: return e->tid_wg;
	case SC_CTA: return e->tid;
	default: return b_const32(&e->b, 0);
	}
}

Reg emit_global_base(Emit *e, const Buffer *b) { return e->param_base[buf_index(e, b)]; }
Reg emit_tmap_addr(Emit *e, const Buffer *b) { return e->tmap_addr[buf_index(e, b)]; }

int emit_elect_begin(Emit *e)
{
	int l = b_label(&e->b);
	b_ins(&e->b, FORM_BRA_IF, b_name(&e->b, e->not_leader), b_label_name(&e->b, l), NULL);
	return l;
}

void emit_elect_end(Emit *e, int label) { b_place_label(&e->b, label); }

Reg emit_mbar_addr(Emit *e, const Stmt *s)
{
	Builder *b = &e->b;
	Reg base = e->mbar_base[s->mbar - 1];
	if (affine_is_const(s->mbar_idx))
		return s->mbar_idx->c ? b_add32_imm(b, base, 8 * s->mbar_idx->c) : base;
	Reg r = b_reg(b, RC_R);
	b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, emit_affine(e, s->mbar_idx)), "8", b_name(b, base), NULL);
	return r;
}
Reg emit_mbar_phase_bits(Emit *e, const Stmt *s) { return e->mbar_phase[s->mbar - 1]; }
Reg emit_shared_base(Emit *e, const Buffer *b) { return e->shared_base[buf_index(e, b)]; }
Reg *emit_local_regs(Emit *e, const Buffer *b) { return e->local_words[buf_index(e, b)]; }
Reg emit_tmem_addr(Emit *e, const Buffer *b) { return e->tmem_addr[buf_index(e, b)]; }

static Reg var_reg(Emit *e, int var)
{
	switch (var) {
	case VAR_CTAID: return e->ctaid;
	case VAR_WARPID: return e->warp;
	case VAR_WGID: return e->wg;
	case VAR_CTAIDY: return e->ctaidy;
	case VAR_CRANK: return e->crank;
	default: return e->var_regs[var];
	}
}

Reg emit_var_reg(Emit *e, int var) { return var_reg(e, var); }

Reg emit_affine(Emit *e, const Affine *a)
{
	Builder *b = &e->b;
	Reg acc = b_const32(b, a->c);
	for (int i = 0; i < a->n; i++) {
		Reg r = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, r), b_name(b, var_reg(e, a->t[i].var)),
		      b_imm(b, (int64_t)(uint32_t)a->t[i].k), b_name(b, acc), NULL);
		acc = r;
	}
	return acc;
}


static Reg digit(Emit *e, Reg t, int64_t div, int64_t mod)
{
	Builder *b = &e->b;
	Reg q = t;
	if (div > 1) {
		q = b_reg(b, RC_R);
		if (is_pow2(div))
			b_ins(b, FORM_SHR_U32, b_name(b, q), b_name(b, t), b_imm(b, log2i(div)), NULL);
		else
			b_ins(b, FORM_DIV_U32, b_name(b, q), b_name(b, t), b_imm(b, div), NULL);
	}
	if (mod > 0 && mod < ((int64_t)1 << 32)) {
		Reg r = b_reg(b, RC_R);
		if (is_pow2(mod))
			b_ins(b, FORM_AND_B32, b_name(b, r), b_name(b, q), b_imm(b, mod - 1), NULL);
		else
			b_ins(b, FORM_REM_U32, b_name(b, r), b_name(b, q), b_imm(b, mod), NULL);
		q = r;
	}
	return q;
}

/* digits of a prologue register are computed once per thread (hoisted,
 * memoized), so every copy and both sides of a copy share them */
/* exclusive bound of a prologue register's value (0: unknown) */
static int64_t reg_bound(Emit *e, Reg t)
{
	int64_t T = e->k->threads;
	Reg r[] = {e->tid, e->lane, e->tid_wg, e->warp};
	int64_t bound[] = {T, T < 32 ? T : 32, T < 128 ? T : 128, (T + 31) / 32};
	for (int i = 0; i < 4; i++)
		if (r[i].cls == t.cls && r[i].id == t.id)
			return bound[i];
	return 0;
}

Reg emit_digit(Emit *e, Reg t, int64_t div, int64_t mod)
{
	if (!emit_is_invariant(e, t))
		return digit(e, t, div, mod);
	int64_t bound = reg_bound(e, t);
	if (bound > 0 && div > 0 && (bound - 1) / div < mod)
		mod = 0; /* constant folding: the quotient never reaches mod */
	int64_t key[] = {1, t.cls, t.id, div, mod};
	Reg r;
	if (emit_memo_find(e, key, 5, &r))
		return r;
	emit_hoist_begin(e);
	r = digit(e, t, div, mod);
	emit_hoist_end(e);
	emit_memo_put(e, key, 5, r);
	return r;
}

/* shared: base + swizzle(m) * bytes (32-bit window); global: base + m * bytes */
Reg emit_address(Emit *e, const Buffer *buf, Reg m)
{
	Builder *b = &e->b;
	int bytes = dtype_bytes(buf->dt);
	if (buf->mem == MEM_SHARED) {
		Swizzle sw = buffer_swizzle(e->cx, buf);
		if (sw.on) {
			/* swizzle: m ^ ((m >> A) & ((2^W - 1) << P)), the same as
			 * (f(m >> P) << P) | (m & (2^P - 1)) with f(x) = x ^ ((x >> A) & (2^W - 1)) */
			Reg y = m, z = b_reg(b, RC_R), s = b_reg(b, RC_R);
			if (sw.a) {
				y = b_reg(b, RC_R);
				b_ins(b, FORM_SHR_U32, b_name(b, y), b_name(b, m), b_imm(b, sw.a), NULL);
			}
			b_ins(b, FORM_AND_B32, b_name(b, z), b_name(b, y), b_imm(b, (((int64_t)1 << sw.w) - 1) << sw.p), NULL);
			b_ins(b, FORM_XOR_B32, b_name(b, s), b_name(b, m), b_name(b, z), NULL);
			m = s;
		}
		Reg a = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, a), b_name(b, m), b_imm(b, bytes), b_name(b, emit_shared_base(e, buf)),
		      NULL);
		return a;
	}
	/* a 2-D param with runtime strides: m would be an offset in the proofs'
	 * layout, whose row stride is the stand-in dyn_proxy, not the launch's
	 * (emit_dyn_address computes those addresses) */
	if (buf->dyn_proxy && !b->internal)
		b->internal = arena_printf(b->arena, "the stand-in row stride %lld of param '%s' reached an address",
		                           (long long)buf->dyn_proxy, buf->name);
	Reg w = b_reg(b, RC_RD), a = b_reg(b, RC_RD);
	b_ins(b, FORM_MUL_WIDE_U32, b_name(b, w), b_name(b, m), b_imm(b, bytes), NULL);
	b_ins(b, FORM_ADD_U64, b_name(b, a), b_name(b, emit_global_base(e, buf)), b_name(b, w), NULL);
	return a;
}

/* ld / st of `bytes` per thread (1, 2, 4, 8 or 16) in shared or global memory */
static FormId ld_form(Builder *b, Mem mem, int bytes)
{
	return b_form(b, FAM_LD, &(FormKey){.space = mem == MEM_SHARED ? SPACE_SHARED : SPACE_GLOBAL, .bytes = bytes});
}

static FormId st_form(Builder *b, Mem mem, int bytes)
{
	return b_form(b, FAM_ST, &(FormKey){.space = mem == MEM_SHARED ? SPACE_SHARED : SPACE_GLOBAL, .bytes = bytes});
}

/* data operand: a scalar register or a {..} vector of 2 or 4 */
static const char *data_operand(Builder *b, Reg *regs, int bytes)
{
	return bytes <= 4 ? b_name(b, regs[0]) : b_vec(b, regs, bytes / 4);
}

/* w's bytes [pos, pos + n) = t's low n bytes, the others kept: a byte
 * permute (one PRMT; bfi's shift-and-mask form made ptxas hold more registers
 * than nvcc's shl/or packing on ldm_x4_trans) */
static void insert_bytes(Builder *b, Reg w, Reg t, int64_t pos, int n)
{
	unsigned sel = 0;
	for (int i = 0; i < 4; i++)
		sel |= (unsigned)(i >= pos && i < pos + n ? 4 + (i - pos) : i) << (4 * i);
	b_ins(b, FORM_PRMT_B32, b_name(b, w), b_name(b, w), b_name(b, t), b_imm(b, (int64_t)sel), NULL);
}

/* a register whose low bytes are w's bytes from pos on, for a narrow store
 * (st.u8 / st.u16 store the low bytes of a 32-bit register): w itself or
 * one shift, no mask */
static Reg word_bytes(Builder *b, Reg w, int64_t pos)
{
	if (!pos)
		return w;
	Reg t = b_reg(b, RC_R);
	b_ins(b, FORM_SHR_U32, b_name(b, t), b_name(b, w), b_imm(b, pos * 8), NULL);
	return t;
}

void emit_mem_to_local(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes)
{
	Builder *b = &e->b;
	if (bytes >= 4) {
		b_ins(b, ld_form(b, mb->mem, bytes), data_operand(b, words + byte_off / 4, bytes), addr, NULL);
		return;
	}
	Reg t = b_reg(b, RC_R);
	Reg *w = &words[byte_off / 4];
	b_ins(b, ld_form(b, mb->mem, bytes), b_name(b, t), addr, NULL);
	insert_bytes(b, *w, t, byte_off % 4, bytes);
}

void emit_mem_load_word(Emit *e, const Buffer *mb, const char *addr, Reg word, int bytes)
{
	Builder *b = &e->b;
	b_ins(b, ld_form(b, mb->mem, bytes), b_name(b, word), addr, NULL);
}

void emit_local_to_mem(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes)
{
	Builder *b = &e->b;
	if (bytes >= 4) {
		b_ins(b, st_form(b, mb->mem, bytes), addr, data_operand(b, words + byte_off / 4, bytes), NULL);
		return;
	}
	Reg t = word_bytes(b, words[byte_off / 4], byte_off % 4);
	b_ins(b, st_form(b, mb->mem, bytes), addr, b_name(b, t), NULL);
}

void emit_mem_copy_guarded(Emit *e, const Buffer *db, const char *daddr, const Buffer *sb, const char *saddr, int bytes,
                           const char *load_guard, const char *store_guard)
{
	Builder *b = &e->b;
	if (!load_guard && !store_guard) {
		emit_mem_copy(e, db, daddr, sb, saddr, bytes);
		return;
	}
	Reg t[4];
	int n = bytes >= 4 ? bytes / 4 : 1;
	for (int i = 0; i < n; i++) {
		t[i] = b_reg(b, RC_R);
		if (load_guard) /* what an access outside the tensor loads */
			b_ins(b, FORM_MOV_B32, b_name(b, t[i]), "0", NULL);
	}
	b->guard = load_guard;
	b_ins(b, ld_form(b, sb->mem, bytes), data_operand(b, t, bytes), saddr, NULL);
	b->guard = store_guard;
	b_ins(b, st_form(b, db->mem, bytes), daddr, data_operand(b, t, bytes), NULL);
	b->guard = NULL;
}

void emit_mem_to_local_guarded(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes,
                               const char *guard)
{
	Builder *b = &e->b;
	if (!guard) {
		emit_mem_to_local(e, mb, addr, words, byte_off, bytes);
		return;
	}
	if (bytes >= 4) {
		for (int i = 0; i < bytes / 4; i++) /* what an access outside the tensor loads */
			b_ins(b, FORM_MOV_B32, b_name(b, words[byte_off / 4 + i]), "0", NULL);
		b->guard = guard;
		b_ins(b, ld_form(b, mb->mem, bytes), data_operand(b, words + byte_off / 4, bytes), addr, NULL);
		b->guard = NULL;
		return;
	}
	Reg t = b_reg(b, RC_R);
	Reg *w = &words[byte_off / 4];
	b_ins(b, FORM_MOV_B32, b_name(b, t), "0", NULL);
	b->guard = guard;
	b_ins(b, ld_form(b, mb->mem, bytes), b_name(b, t), addr, NULL);
	b->guard = NULL;
	insert_bytes(b, *w, t, byte_off % 4, bytes);
}

void emit_local_to_mem_guarded(Emit *e, const Buffer *mb, const char *addr, Reg *words, int64_t byte_off, int bytes,
                               const char *guard)
{
	Builder *b = &e->b;
	if (!guard || bytes >= 4) {
		b->guard = guard;
		if (bytes >= 4)
			b_ins(b, st_form(b, mb->mem, bytes), addr, data_operand(b, words + byte_off / 4, bytes), NULL);
		b->guard = NULL;
		if (bytes >= 4)
			return;
		emit_local_to_mem(e, mb, addr, words, byte_off, bytes);
		return;
	}
	Reg t = word_bytes(b, words[byte_off / 4], byte_off % 4);
	b->guard = guard;
	b_ins(b, st_form(b, mb->mem, bytes), addr, b_name(b, t), NULL);
	b->guard = NULL;
}

void emit_mem_copy(Emit *e, const Buffer *db, const char *daddr, const Buffer *sb, const char *saddr, int bytes)
{
	Builder *b = &e->b;
	Reg t[4];
	int n = bytes >= 4 ? bytes / 4 : 1;
	for (int i = 0; i < n; i++)
		t[i] = b_reg(b, RC_R);
	b_ins(b, ld_form(b, sb->mem, bytes), data_operand(b, t, bytes), saddr, NULL);
	b_ins(b, st_form(b, db->mem, bytes), daddr, data_operand(b, t, bytes), NULL);
}

Loop emit_loop_begin(Emit *e, int64_t n)
{
	Builder *b = &e->b;
	Loop l = {.top = b_label(b), .counter = b_reg(b, RC_R), .n = n};
	b_ins(b, FORM_MOV_U32, b_name(b, l.counter), "0", NULL);
	b_place_label(b, l.top);
	return l;
}

Loop emit_loop_begin_runtime(Emit *e, Reg bound)
{
	Builder *b = &e->b;
	Loop l = {b_label(b), b_label(b), b_reg(b, RC_R), 0, true, bound, 0};
	Reg p = b_reg(b, RC_P);
	b_ins(b, FORM_MOV_U32, b_name(b, l.counter), "0", NULL);
	b_ins(b, FORM_SETP_EQ_U32, b_name(b, p), b_name(b, bound), "0", NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, p), b_label_name(b, l.end), NULL);
	b_place_label(b, l.top);
	return l;
}

void emit_loop_end(Emit *e, Loop *l)
{
	Builder *b = &e->b;
	Reg p = b_reg(b, RC_P);
	b_ins(b, FORM_ADD_U32, b_name(b, l->counter), b_name(b, l->counter), l->step > 1 ? b_imm(b, l->step) : "1", NULL);
	b_ins(b, FORM_SETP_LT_U32, b_name(b, p), b_name(b, l->counter),
	      l->runtime ? b_name(b, l->bound) : b_imm(b, l->n), NULL);
	b_ins(b, FORM_BRA_IF, b_name(b, p), b_label_name(b, l->top), NULL);
	if (l->runtime)
		b_place_label(b, l->end);
}
