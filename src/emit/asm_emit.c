/* The emit hooks of asm blocks and init (their checks: src/front/asm.c):
 * each instance of a block with its placeholders replaced by registers and
 * addresses. */
#include "tilepx.h"
#include "asm_block.h"
#include "variants/partition.h"

#include <stdlib.h>
#include <string.h>

static const char *words_operand(Builder *b, Reg *regs, const int *w, int n)
{
	if (n == 1)
		return b_name(b, regs[w[0]]);
	Str s = {0};
	str_putc(&s, '{');
	for (int i = 0; i < n; i++)
		str_printf(&s, "%s%s", i ? ", " : "", b_name(b, regs[w[i]]));
	str_putc(&s, '}');
	char *r = arena_strndup(b->arena, s.s, s.n);
	str_free(&s);
	return r;
}

void emit_init(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const Buffer *buf = s->dst->buf;
	int *w, nw;
	const char *why;
	if (!region_words(b->arena, emit_kernel_of(e), s->dst, &w, &nw, &why))
		return;
	int es = dtype_bytes(buf->dt);
	uint64_t bits = dtype_int_bits(buf->dt, s->n), word = 0;
	if (es >= 4)
		word = bits & 0xffffffffu;
	else
		for (int i = 0; i < 4 / es; i++)
			word |= bits << (i * es * 8);
	b_comment(b, "line %d: init %s, %lld (%d registers)", s->loc.line, s->dst->name, (long long)s->n, nw);
	Reg *regs = emit_local_regs(e, buf);
	for (int i = 0; i < nw; i++) {
		uint64_t v = word;
		if (es == 8)
			v = (w[i] % 2) ? bits >> 32 : bits & 0xffffffffu;
		b_ins(b, FORM_MOV_B32, b_name(b, regs[w[i]]), arena_printf(b->arena, "0x%08llx", (unsigned long long)(v & 0xffffffffu)),
		      NULL);
	}
}

/* the address of a region's first element. A param with runtime strides
 * (runtime extents, 'ld', 'colmajor') goes by its row and column and the
 * launch's row stride, as the ragged copies do: its view's offset is in the
 * proofs' layout, whose row stride is a stand-in. */
static Reg region_address(Emit *e, const Kernel *k, const Region *r)
{
	const Buffer *buf = r->buf;
	if (buf->dynamic) {
		Reg coord[MAX_DIMS] = {{0}};
		for (int d = 0; d < buf->ndim; d++)
			coord[d] = emit_affine(e, &r->begin[d]);
		if (buf->ndim == 1)
			return emit_dyn_address(e, k, r, coord[0], coord[0]);
		return emit_dyn_address(e, k, r, coord[dyn_outer(buf)], coord[dyn_inner(buf)]);
	}
	View v;
	const char *why;
	if (!region_view(NULL, k, r, &v, &why)) { /* check proved the view: a tilepx bug */
		Builder *b = emit_builder(e);
		if (!b->internal)
			b->internal = arena_printf(b->arena, "no view of an asm address region of '%s': %s", buf->name, why);
		return b_const32(b, 0);
	}
	return emit_address(e, buf, emit_affine(e, &v.off[AX_M]));
}

void emit_asm(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const Kernel *k = emit_kernel_of(e);
	const AsmBlock *a = s->asm_blk;
	int64_t ninst = instance_count(a);
	int64_t vals[MAX_ASM_UNROLL];
	b_comment(b, "line %d: asm (%lld instances)", s->loc.line, (long long)ninst);
	for (int64_t in = 0; in < ninst; in++) {
		instance_vals(a, in, vals);
		/* operands first: values and addresses need instructions of their own */
		const char **ops = arena_alloc(b->arena, sizeof(char *) * (a->n ? a->n : 1));
		for (size_t i = 0; i < a->n; i++) {
			const AsmPiece *pc = &a->p[i];
			if (pc->kind == ASM_TEXT) {
				ops[i] = pc->text;
			} else if (pc->kind == ASM_REGS) {
				Region *r = subst_region(b->arena, pc->r, a, vals);
				int *w, nw;
				const char *why;
				if (!region_words(b->arena, k, r, &w, &nw, &why))
					return;
				ops[i] = words_operand(b, emit_local_regs(e, r->buf), w, nw);
			} else if (pc->kind == ASM_VALUE) {
				if (pc->text) {
					ops[i] = b_name(b, !strcmp(pc->text, "tid") ? emit_tid(e) : emit_scope_tid(e, SC_WARP));
				} else {
					Affine v = affine_subst(&pc->val, a->uvar, vals, a->nunroll);
					ops[i] = affine_is_const(&v) ? b_imm(b, v.c) : b_name(b, emit_affine(e, &v));
				}
			} else {
				ops[i] = b_name(b, region_address(e, k, subst_region(b->arena, pc->r, a, vals)));
			}
		}
		/* one PTX line per block line, trailing blanks dropped */
		Str ln = {0};
		for (size_t i = 0; i <= a->n; i++) {
			if (i == a->n || (i && a->p[i].line != a->p[i - 1].line)) {
				while (ln.n && (ln.s[ln.n - 1] == ' ' || ln.s[ln.n - 1] == '\t'))
					ln.s[--ln.n] = 0;
				if (ln.n) {
					b_loc(b);
					str_printf(&b->body, "%s%s\n", b->indent, ln.s);
				}
				ln.n = 0;
				if (ln.s)
					ln.s[0] = 0;
			}
			if (i < a->n)
				str_puts(&ln, ops[i]);
		}
		str_free(&ln);
	}
	/* the instructions the block names raise .version and need their
	 * capability (check located any that the target lacks) */
	AsmIns *ins;
	int nins = asm_instructions(b->arena, a, &ins, NULL);
	Loc stmt_at = b->at;
	for (int i = 0; i < nins; i++) {
		int v, f;
		Cap cap;
		if (!asm_need(&ins[i], &v, &cap, &f))
			continue;
		b->at = ins[i].loc;
		if (f >= 0)
			b_use_form(b, (FormId)f);
		else
			b_need_ptx(b, v, arena_strndup(b->arena, ins[i].op, ins[i].n));
	}
	b->at = stmt_at;
}
