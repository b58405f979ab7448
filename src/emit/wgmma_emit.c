/* wgmma emission: the descriptors from the buffers' runtime shared
 * addresses and one wgmma.mma_async per k-step, as check_wgmma planned them
 * (src/front/wgmma.c); the fence, commit and wait statements. */
#include "tilepx.h"
#include "wgmma_plan.h"

#include <string.h>

static Reg desc_reg(Emit *e, const WgOperand *o)
{
	Builder *b = emit_builder(e);
	Reg addr = emit_shared_base(e, o->buf);
	if (o->start.n) {
		Reg v = emit_affine(e, &o->start);
		Reg a = b_reg(b, RC_R);
		b_ins(b, FORM_ADD_U32, b_name(b, a), b_name(b, addr), b_name(b, v), NULL);
		addr = a;
	} else if (o->start.c) {
		addr = b_add32_imm(b, addr, o->start.c);
	}
	/* the descriptor holds bits 4..17 of the CTA's shared offset: in a
	 * cluster a shared::cta address also carries the CTA's rank above them
	 * (on the H100), which unmasked would spill into the leading byte
	 * offset (bits 16..29, read for MN-major operands); every k-step's
	 * start added below stays in the 14-bit field */
	Reg lo = b_reg(b, RC_R), sh = b_reg(b, RC_R), wide = b_reg(b, RC_RD), d = b_reg(b, RC_RD);
	b_ins(b, FORM_AND_B32, b_name(b, lo), b_name(b, addr), b_imm(b, 0x3FFFF), NULL);
	b_ins(b, FORM_SHR_U32, b_name(b, sh), b_name(b, lo), b_imm(b, 4), NULL);
	b_ins(b, FORM_CVT_U64_U32, b_name(b, wide), b_name(b, sh), NULL);
	b_ins(b, FORM_OR_B64, b_name(b, d), b_name(b, wide), b_imm(b, (int64_t)wgmma_desc_encode(0, &o->d)), NULL);
	return d;
}

static Reg step_desc(Builder *b, Reg d, const WgDesc *w, int s)
{
	int64_t add = (w->step_off[s] - w->step_off[0]) >> 4;
	if (!add)
		return d;
	Reg r = b_reg(b, RC_RD);
	b_ins(b, FORM_ADD_U64, b_name(b, r), b_name(b, d), b_imm(b, add), NULL);
	return r;
}

void emit_wgmma(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const WgmmaPlan *p = s->wg;
	char adesc[32];
	snprintf(adesc, sizeof adesc, "%s-major %dB", p->a.d.mn_major ? "MN" : "K", p->a.d.swz);
	b_comment(b, "line %d: warpgroup mma %s, %s, %s: %d x m64n%dk%d, A %s, B %s-major %dB", s->loc.line,
	          s->dst->name, s->src->name, s->mma_b->name, p->a.d.ksteps, p->n, p->kinst,
	          p->rs ? "from registers" : adesc, p->b.d.mn_major ? "MN" : "K", p->b.d.swz);
	Reg *words = emit_local_regs(e, s->dst->buf);
	Reg regs[128];
	for (int j = 0; j < p->nwords; j++)
		regs[j] = words[p->words[j]];
	const char *dvec = b_vec(b, regs, p->nwords);
	Reg da = {0}, db;
	if (!p->rs)
		da = desc_reg(e, &p->a);
	db = desc_reg(e, &p->b);
	bool tr = p->at == DT_F16 || p->at == DT_BF16;
	for (int k = 0; k < p->a.d.ksteps; k++) {
		Reg ak = p->rs ? da : step_desc(b, da, &p->a.d, k), bk = step_desc(b, db, &p->b.d, k);
		const char *scale = b_imm(b, k == 0 ? s->n : 1);
		if (p->rs) {
			Reg *aw = emit_local_regs(e, s->src->buf), ar[4];
			for (int j = 0; j < 4; j++)
				ar[j] = aw[p->awords[k][j]];
			if (tr)
				b_ins(b, p->form, dvec, b_vec(b, ar, 4), b_name(b, bk), scale, b_imm(b, p->b.d.mn_major), NULL);
			else
				b_ins(b, p->form, dvec, b_vec(b, ar, 4), b_name(b, bk), scale, NULL);
			continue;
		}
		if (tr)
			b_ins(b, p->form, dvec, b_name(b, ak), b_name(b, bk), scale, b_imm(b, p->a.d.mn_major),
			      b_imm(b, p->b.d.mn_major), NULL);
		else
			b_ins(b, p->form, dvec, b_name(b, ak), b_name(b, bk), scale, NULL);
	}
}

void emit_wgmma_fence(Emit *e, const Stmt *s)
{
	b_comment(emit_builder(e), "line %d: wgmma.fence", s->loc.line);
	b_ins(emit_builder(e), FORM_WGMMA_FENCE, NULL);
}

void emit_wgmma_commit(Emit *e, const Stmt *s)
{
	b_comment(emit_builder(e), "line %d: wgmma.commit", s->loc.line);
	b_ins(emit_builder(e), FORM_WGMMA_COMMIT, NULL);
}

void emit_wgmma_wait(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	b_comment(b, "line %d: wgmma.wait %lld", s->loc.line, (long long)s->n);
	b_ins(b, FORM_WGMMA_WAIT, b_imm(b, s->n), NULL);
}
