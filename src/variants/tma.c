/* copy_async / tma: the tensor memory accelerator. A load from a tma param
 * into shared memory completes on the copy's mbarrier (its bytes counted by
 * the phase analysis of src/proof/roles.c); a store from shared memory to a tma
 * param joins the bulk async-group. One elected thread (thread 0) issues the
 * whole box; the tensor map (one per param: the box and swizzle that check
 * fixed) is a 128-byte kernel parameter the launcher encodes from
 * kernel_tensor_maps(). The shared side must be what a box writes: the
 * box's elements contiguous, innermost first, at a 128-byte aligned address,
 * unswizzled or with one of TMA's 32/64/128-byte swizzles. */
#include "../tilepx.h"
#include "tma.h"

#include <string.h>

static const char *accepts(const CopyOp *op)
{
	if (!target_has(op->mod->target, CAP_SM90))
		return arena_printf(op->cx->arena, "TMA needs sm_90 or newer (target is %s)", op->mod->target->name);
	if ((stmt_is_tma_load(op->st) && op->sbuf->tma) || stmt_is_tma_store(op->st))
		return NULL;
	if (op->sbuf->tma && op->dbuf->mem == MEM_SHARED)
		return "a TMA load completes on an mbarrier: add 'mbarrier NAME[i]' to the copy";
	return "needs a tma param <-> shared copy"; /* a literal: every copy_async asks */
}

/* the largest power of two, at most 16, that divides coef * es * (the
 * scalar's '%' fact, when the term's variable is a scalar): the byte
 * alignment of a term for every value of its variable */
static int64_t term_align16(const Scalar *sc, int64_t coef, int64_t es)
{
	uint64_t m = (uint64_t)coef * (uint64_t)es; /* modulo 2^64: the low bits are exact */
	int64_t a = 1;
	while (a < 16 && m % (uint64_t)(2 * a) == 0)
		a *= 2;
	for (int64_t mult = sc ? sc->mult : 0; mult && a < 16 && mult % 2 == 0; mult /= 2)
		a *= 2;
	return a < 16 ? a : 16;
}

/* What an H100 does at the innermost dimension (the pins in
 * docs/robustness.md; tests/gpu/ragged_tma_store*.tile, tests/gpu_fail):
 * a box whose innermost start is not on 16 bytes is an illegal instruction,
 * load or store; and a store writes the innermost dimension in whole
 * 16-byte units of the tensor, so a box that crosses the innermost edge also
 * writes the shared data past the edge up to the next 16 bytes (past the
 * tensor, or into the gap before the next 'ld' row). Loads fill exactly. So
 * every copy needs its start on 16 bytes for every launch, and a store
 * either a box that never crosses the innermost edge or an extent that is a
 * multiple of 16 bytes, both from the facts. */
static const char *innermost_edge(const CopyOp *op, const Region *g, int64_t es, bool load)
{
	const Kernel *k = op->k;
	const Buffer *gb = g->buf;
	int in = gb->ndim - 1;
	if (!g->whole && !g->all[in]) {
		const Affine *c = &g->begin[in];
		int64_t a = term_align16(NULL, c->c, es);
		for (int i = 0; i < c->n; i++) {
			int64_t ta = term_align16(kernel_scalar_of_var(k, c->t[i].var), c->t[i].k, es);
			a = ta < a ? ta : a;
		}
		if (a < 16)
			return arena_printf(op->cx->arena, "the innermost start of the box in '%s' may not be a multiple of 16 "
			                    "bytes (%lld elements): an H100 faults on such a TMA %s", gb->name,
			                    (long long)(16 / es), load ? "load" : "store");
	}
	if (load || !region_guarded(k, g, in) || dim_pow2(k, gb, in) * es % 16 == 0)
		return NULL;
	const Scalar *sc = &k->scalars[gb->dyn_dim[in] - 1];
	return arena_printf(op->cx->arena, "the box may cross the innermost edge of '%s' at %s, where a TMA store "
	                    "writes whole 16-byte units (past the tensor unless %s * %lld bytes is a multiple of 16): "
	                    "needs 'assume %s %% %lld == 0', or a 'copy', which guards each element", gb->name, sc->name,
	                    sc->name, (long long)es, sc->name, (long long)(16 / es));
}

static const char *plan(const CopyOp *op, Plan *p)
{
	TmaPlan *t = &p->u.tma;
	t->load = stmt_is_tma_load(op->st);
	const Buffer *gb = t->load ? op->sbuf : op->dbuf, *sb = t->load ? op->dbuf : op->sbuf;
	const View *sv = t->load ? &op->dst : &op->src;
	int64_t es = dtype_bytes(op->dt);
	int swz = tensor_map_swizzle(op->cx, gb);
	if (swz < 0)
		return arena_printf(op->cx->arena, "the swizzle of '%s' is not one TMA writes: its 32, 64 and 128-byte "
		                    "swizzles over %s are swizzle(%d, 1..3, 3)", sb->name, dtype_name(op->dt),
		                    es == 1 ? 4 : es == 2 ? 3 : es == 4 ? 2 : 1);
	Layout L = sv->L;
	lay_canonicalize(&L);
	if (L.n > 1 || (L.n == 1 && (L.it[0].axis != AX_M || L.it[0].stride != 1)))
		return arena_printf(op->cx->arena, "the shared region of '%s' is not contiguous in the box's order: TMA "
		                    "writes the box's elements innermost first", sb->name);
	const Affine *o = &sv->off[AX_M];
	bool aligned = (o->c * es) % 128 == 0;
	for (int i = 0; i < o->n; i++)
		aligned &= (o->t[i].k * es) % 128 == 0;
	if (!aligned)
		return arena_printf(op->cx->arena, "the shared region of '%s' may start at a byte offset that is not a "
		                    "multiple of 128 (TMA's shared addresses are)", sb->name);
	const char *edge = innermost_edge(op, t->load ? op->st->src : op->st->dst, es, t->load);
	if (edge)
		return edge;
	t->bytes = op->elems * es;
	Str box = {0};
	for (int d = 0; d < gb->ndim; d++)
		str_printf(&box, "%s%lld", d ? ", " : "", (long long)gb->tma_box[d]);
	if (op->st->mcast)
		snprintf(p->params, sizeof p->params, "{\"direction\": \"load\", \"rank\": %d, \"box\": [%s], \"swizzle\": "
		         "%d, \"bytes\": %lld, \"multicast\": %lld}", gb->ndim, box.s, swz, (long long)t->bytes,
		         (long long)op->st->mcast);
	else
		snprintf(p->params, sizeof p->params, "{\"direction\": \"%s\", \"rank\": %d, \"box\": [%s], \"swizzle\": "
		         "%d, \"bytes\": %lld}", t->load ? "load" : "store", gb->ndim, box.s, swz,
		         (long long)t->bytes);
	str_free(&box);
	return NULL;
}

static void emit(const CopyOp *op, const Plan *p, Emit *e)
{
	const TmaPlan *t = &p->u.tma;
	Builder *b = emit_builder(e);
	const Region *g = t->load ? op->st->src : op->st->dst;
	const Buffer *gb = g->buf, *sb = t->load ? op->dbuf : op->sbuf;
	const View *sv = t->load ? &op->dst : &op->src;
	int l = emit_elect_begin(e);
	int64_t es = dtype_bytes(op->dt);
	Reg saddr;
	if (affine_is_const(&sv->off[AX_M])) {
		saddr = b_add32_imm(b, emit_shared_base(e, sb), sv->off[AX_M].c * es);
	} else {
		saddr = b_reg(b, RC_R);
		b_ins(b, FORM_MAD_LO_U32, b_name(b, saddr), b_name(b, emit_affine(e, &sv->off[AX_M])), b_imm(b, es),
		      b_name(b, emit_shared_base(e, sb)), NULL);
	}
	/* operands: [smem], [tmap, {c0 (innermost) ...}], [mbar] or [tmap, {...}], [smem] */
	const char *ops[9] = {0};
	int n = 0;
	if (t->load)
		ops[n++] = b_name(b, saddr);
	ops[n++] = b_name(b, emit_tmap_addr(e, gb));
	for (int d = gb->ndim - 1; d >= 0; d--) {
		Affine zero = {0};
		const Affine *c = g->whole || g->all[d] ? &zero : &g->begin[d];
		ops[n++] = b_name(b, affine_is_const(c) ? b_const32(b, c->c) : emit_affine(e, c));
	}
	ops[n++] = t->load ? b_name(b, emit_mbar_addr(e, op->st)) : b_name(b, saddr);
	FormFam fam = t->load ? FAM_TMA_LOAD : FAM_TMA_STORE;
	if (op->st->mcast) { /* the 16-bit CTA mask operand follows the mbarrier */
		Reg m = b_reg(b, RC_RS);
		b_ins(b, FORM_MOV_B16, b_name(b, m), b_imm(b, op->st->mcast), NULL);
		ops[n++] = b_name(b, m);
		fam = FAM_TMA_LOAD_MC;
	}
	FormId f = b_form(b, fam, &(FormKey){.rank = gb->ndim});
	b_ins(b, f, ops[0], ops[1], ops[2], ops[3], ops[4], ops[5], ops[6], ops[7], ops[8], NULL);
	emit_elect_end(e, l);
}

const Variant variant_tma = {"tma", ST_COPY_ASYNC, 30, accepts, plan, emit, .trace = NULL, .ragged = true};

/* CUtensorMapDataType by dtype: the element's bits move unchanged (tf32 as
 * u32: the driver's tf32 types may round) */
static int tma_dtype(DType t)
{
	switch (t) {
	case DT_F16: return 6;
	case DT_BF16: return 9;
	case DT_F32: return 7;
	case DT_F64: return 8;
	case DT_I32: return 3;
	case DT_I64: return 5;
	case DT_U64: return 4;
	default: break;
	}
	return dtype_bytes(t) == 1 ? 0 : dtype_bytes(t) == 2 ? 1 : dtype_bytes(t) == 4 ? 2 : 4;
}

int kernel_tensor_maps(const Ctx *cx, const Kernel *k, TensorMapArgs *out, int max)
{
	int n = 0;
	for (size_t i = 0; i < k->nbufs; i++) {
		const Buffer *b = k->bufs[i];
		if (!b->tma)
			continue;
		if (b->tma_index < max) {
			TensorMapArgs *a = &out[b->tma_index];
			memset(a, 0, sizeof *a);
			a->buf = b;
			a->dtype = tma_dtype(b->dt);
			a->rank = b->ndim;
			uint64_t stride = (uint64_t)dtype_bytes(b->dt);
			a->box_bytes = dtype_bytes(b->dt);
			for (int d = 0; d < b->ndim; d++) { /* innermost first */
				int src = b->ndim - 1 - d;
				a->dims[d] = (uint64_t)b->shape[src];
				a->box[d] = (uint32_t)(b->tma_used ? b->tma_box[src] : 1);
				a->elem_strides[d] = 1;
				a->box_bytes *= a->box[d];
				if (d > 0) /* 'ld': bound, the layout's row stride */
					a->strides[d - 1] = b->ld_scalar && d == 1 && b->has_layout
					                    ? (uint64_t)b->layout.it[0].stride * (uint64_t)dtype_bytes(b->dt) : stride;
				stride *= (uint64_t)b->shape[src];
			}
			a->interleave = 0;                                  /* CU_TENSOR_MAP_INTERLEAVE_NONE */
			int swz = tensor_map_swizzle(cx, b);
			a->swizzle = swz == 32 ? 1 : swz == 64 ? 2 : swz == 128 ? 3 : 0;
			a->l2_promotion = 3;                                /* CU_TENSOR_MAP_L2_PROMOTION_L2_256B */
			a->oob_fill = 0;                                    /* CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros */
		}
		n++;
	}
	return n;
}
