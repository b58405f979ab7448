/* copy / reg: registers <-> shared or global . The register
 * layout's thread axes induce the partition; each thread copies its own
 * elements with the widest aligned vector. Registers cannot be indexed at
 * run time, so the per-thread loop is unrolled in the PTX. */
#include "partition.h"
#include "reg.h"

#include <string.h>

static bool is_mem(Mem m) { return m == MEM_GLOBAL || m == MEM_SHARED; }

static const char *accepts(const CopyOp *op)
{
	Mem d = op->dbuf->mem, s = op->sbuf->mem;
	if (!((d == MEM_LOCAL && is_mem(s)) || (s == MEM_LOCAL && is_mem(d))))
		return arena_printf(op->cx->arena, "needs local <-> shared or global, got %s -> %s", mem_name(s),
		                    mem_name(d));
	const Buffer *r = d == MEM_LOCAL ? op->dbuf : op->sbuf;
	if (r->owner > op->st->scope)
		return arena_printf(op->cx->arena,
		                    "register layout of '%s' is owned per %s, wider than the %s scope of the copy", r->name,
		                    scope_name(r->owner), scope_name(op->st->scope));
	const View *rv = d == MEM_LOCAL ? &op->dst : &op->src;
	for (int a = AX_LANEID; a <= AX_TX; a++)
		if (rv->off[a].c || rv->off[a].n)
			return "the register region starts at a nonzero thread offset";
	if (!affine_is_const(&rv->off[AX_M]))
		return arena_printf(op->cx->arena, "the region of '%s' starts at a register that moves with '%s' (registers "
		                    "are not indexable at run time, and `unroll` does not change that: the copy is lowered "
		                    "once for every value); copy the whole region in one statement, or write one copy per "
		                    "constant index", r->name, op->k->var_names[rv->off[AX_M].t[0].var]);
	return NULL;
}

static const char *plan(const CopyOp *op, Plan *p)
{
	RegPlan *rp = &p->u.reg;
	rp->load = op->dbuf->mem == MEM_LOCAL;
	const Buffer *r = rp->load ? op->dbuf : op->sbuf;
	rp->rv = rp->load ? op->dst : op->src;
	lay_fuse_threads(&rp->rv.L, r->owner);
	const char *why = reg_partition(op, &rp->rv, rp->load ? &op->src : &op->dst, &rp->part);
	if (why)
		return why;
	int vb = rp->part.vec * dtype_bytes(op->dt) * 8;
	if (op->rdt != op->dt)
		snprintf(p->params, sizeof p->params,
		         "{\"direction\": \"%s\", \"vec_bits\": %d, \"outer\": %lld, \"convert\": \"%s -> %s\"}",
		         rp->load ? "load" : "store", vb, (long long)rp->part.outer, dtype_name(op->sbuf->dt),
		         dtype_name(op->dbuf->dt));
	else
		snprintf(p->params, sizeof p->params, "{\"direction\": \"%s\", \"vec_bits\": %d, \"outer\": %lld}",
		         rp->load ? "load" : "store", vb, (long long)rp->part.outer);
	size_t len = strlen(p->params);
	if (rp->part.nrep && len > 0 && len + 40 < sizeof p->params) /* every copy loads; the first one stores */
		snprintf(p->params + len - 1, sizeof p->params - len + 1, ", \"replicas\": %lld}",
		         (long long)lay_replicas(&rp->rv.L));
	return NULL;
}

/* a converting access of n elements: f32 registers f[0..n) <-> n f16/bf16
 * in memory (mbytes), packed two to a word, the even element low */
static void emit_converting(Emit *e, const CopyOp *op, const Buffer *mb, const char *addr, Reg *f, int n,
                           int mbytes, bool load, const char *guard)
{
	Builder *b = emit_builder(e);
	bool bf = op->dt == DT_BF16;
	Reg h[4];
	for (int w = 0; w < (n + 1) / 2; w++)
		h[w] = b_reg(b, RC_R);
	if (!load) { /* cvt.rn.{f16,bf16}x2.f32 d, hi, lo; a lone element goes low (the high half is not stored) */
		FormId cvt = b_form(b, FAM_CVT, &(FormKey){.atype = ATYPE_F32, .dtype = bf ? DTYPE_BF16 : DTYPE_F16});
		for (int w = 0; w < (n + 1) / 2; w++)
			b_ins(b, cvt, b_name(b, h[w]), b_name(b, f[2 * w + (2 * w + 1 < n)]), b_name(b, f[2 * w]), NULL);
		emit_local_to_mem_guarded(e, mb, addr, h, 0, mbytes, guard);
		return;
	}
	if (mbytes < 4) /* a 2-byte load is inserted into its word */
		b_ins(b, FORM_MOV_B32, b_name(b, h[0]), "0", NULL);
	emit_mem_to_local_guarded(e, mb, addr, h, 0, mbytes, guard);
	FormId widen = bf ? FORM_COUNT : b_form(b, FAM_CVT, &(FormKey){.atype = ATYPE_F16, .dtype = DTYPE_F32});
	for (int i = 0; i < n; i++) {
		Reg w = h[i / 2];
		if (bf) { /* bf16 is the upper half of an f32: exact, by shifting */
			b_ins(b, i % 2 ? FORM_AND_B32 : FORM_SHL_B32, b_name(b, f[i]), b_name(b, w),
			      i % 2 ? "0xffff0000" : "16", NULL);
			continue;
		}
		Reg x = w; /* cvt.f32.f16 reads the low 16 bits of its .b32 source */
		if (i % 2) {
			x = b_reg(b, RC_R);
			b_ins(b, FORM_SHR_U32, b_name(b, x), b_name(b, w), "16", NULL);
		}
		b_ins(b, widen, b_name(b, f[i]), b_name(b, x), NULL);
	}
}

/* a store from a replicated register layout: threads whose replica digits
 * are not all 0 branch to skip (only the lowest copy stores) */
static int emit_replica_guard(Builder *b, const Part *part, Reg t, int skip)
{
	for (int i = 0; i < part->nrep; i++) {
		const Pair *r = &part->rep[i];
		Reg x = b_reg(b, RC_R), pr = b_reg(b, RC_P);
		if (!(r->ext & (r->ext - 1)) && !(r->a & (r->a - 1))) { /* powers of two: one mask */
			b_ins(b, FORM_AND_B32, b_name(b, x), b_name(b, t), b_imm(b, (r->ext - 1) * r->a), NULL);
		} else {
			b_ins(b, FORM_DIV_U32, b_name(b, x), b_name(b, t), b_imm(b, r->a), NULL);
			b_ins(b, FORM_REM_U32, b_name(b, x), b_name(b, x), b_imm(b, r->ext), NULL);
		}
		if (!skip)
			skip = b_label(b);
		b_ins(b, FORM_SETP_NE_U32, b_name(b, pr), b_name(b, x), "0", NULL);
		b_ins(b, FORM_BRA_IF, b_name(b, pr), b_label_name(b, skip), NULL);
	}
	return skip;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const RegPlan *rp = &p->u.reg;
	const Part *part = &rp->part;
	Builder *b = emit_builder(e);
	const Buffer *rb = rp->load ? op->dbuf : op->sbuf, *mb = rp->load ? op->sbuf : op->dbuf;
	const View *mv = rp->load ? &op->src : &op->dst;
	/* esize, bytes: the registers' side (f32 words of a converting copy);
	 * mbytes: the memory access */
	bool conv = op->rdt != op->dt;
	int esize = dtype_bytes(op->rdt), bytes = part->vec * esize, mbytes = part->vec * dtype_bytes(op->dt);
	Reg t = emit_scope_tid(e, rb->owner);
	int skip = 0;
	if (part->thr_size < scope_threads(rb->owner, op->k->threads)) {
		/* threads past the layout's last owner hold nothing */
		Reg pr = b_reg(b, RC_P);
		skip = b_label(b);
		b_ins(b, FORM_SETP_LT_U32, b_name(b, pr), b_name(b, t), b_imm(b, part->thr_size), NULL);
		b_ins(b, FORM_BRA_IF_NOT, b_name(b, pr), b_label_name(b, skip), NULL);
	}
	if (!rp->load)
		skip = emit_replica_guard(b, part, t, skip);
	Side side;
	if (mb->dynamic) {
		side = emit_dyn_side(e, op, part, rp->load ? op->st->src : op->st->dst, t, false);
	} else {
		Off o = emit_view_offset(e, part, mv, t, false);
		side = emit_side(e, mb, &o); /* base + immediates; swizzled: per access */
	}
	Reg *words = emit_local_regs(e, rb);
	int64_t r0 = rp->rv.off[AX_M].c;
	for (int64_t f = 0; f < part->outer; f++) {
		int64_t ds = 0, dr = 0, rem = f;
		for (int i = part->nout - 1; i >= 0; i--) {
			int64_t d = rem % part->out[i].ext;
			rem /= part->out[i].ext;
			dr += d * part->out[i].a;
			ds += d * part->out[i].b;
		}
		const char *addr = emit_side_operand(e, &side, ds);
		const char *guard = emit_side_guard(e, &side, ds, false);
		Reg *src = words, gathered[8];
		int64_t byte_off = (r0 + dr) * esize;
		if (part->nvp) { /* the vector's words, wherever they are in the registers */
			for (int w = 0; w < bytes / 4; w++) {
				int64_t j = esize >= 4 ? w / (esize / 4) : w * (4 / esize), rj = 0;
				for (int i = part->nvp - 1; i >= 0; i--) {
					rj += j % part->vp[i].ext * part->vp[i].a;
					j /= part->vp[i].ext;
				}
				gathered[w] = words[(r0 + dr + rj) * esize / 4 + (esize >= 4 ? w % (esize / 4) : 0)];
			}
			src = gathered;
			byte_off = 0;
		}
		if (conv)
			emit_converting(e, op, mb, addr, src + byte_off / 4, part->vec, mbytes, rp->load, guard);
		else if (rp->load)
			emit_mem_to_local_guarded(e, mb, addr, src, byte_off, bytes, guard);
		else
			emit_local_to_mem_guarded(e, mb, addr, src, byte_off, bytes, guard);
	}
	if (skip)
		b_place_label(b, skip);
}

static void trace(const CopyOp *op, const Plan *p, int64_t *vals, TraceFn fn, void *ctx)
{
	const RegPlan *rp = &p->u.reg;
	const Buffer *rb = rp->load ? op->dbuf : op->sbuf, *mb = rp->load ? op->sbuf : op->dbuf;
	if (mb->mem != MEM_SHARED)
		return;
	trace_part(op, &rp->part, rp->load ? &op->src : &op->dst, false, mb, !rp->load, rb->owner, vals, fn, ctx);
}

const Variant variant_reg = {"reg", ST_COPY, 10, accepts, plan, emit, .trace = trace, .ragged = true, .converts = true};
