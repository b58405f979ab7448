/* The async statements' PTX: mbarrier init, expect_tx, arrive and wait
 * (parity from the async pass's fit or the run-time phase bits), proxy
 * fence, bulk groups, cluster barriers. Their proofs are in src/proof/roles.c. */
#include "tilepx.h"

void emit_mbar_init(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	int l = emit_elect_begin(e);
	b_ins(b, FORM_MBAR_INIT, b_addr(b, emit_mbar_addr(e, s), 0), b_imm(b, s->n), NULL);
	b_ins(b, FORM_MBAR_FENCE_INIT, NULL);
	emit_elect_end(e, l);
	b_ins(b, FORM_BAR_SYNC, NULL); /* every thread sees the initialized barrier */
}

void emit_mbar_expect_tx(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	int l = emit_elect_begin(e);
	Reg st = b_reg(b, RC_RD);
	int64_t bytes = 0; /* the async pass proved every expect_tx's bytes */
	expect_tx_bytes(emit_ctx(e), s, &bytes);
	b_ins(b, FORM_MBAR_ARRIVE_TX, b_name(b, st), b_addr(b, emit_mbar_addr(e, s), 0), b_imm(b, bytes), NULL);
	emit_elect_end(e, l);
}

/* one arrival: on this CTA's barrier, or (arrive ... cluster) on the
 * barrier at the same offset in every CTA of the cluster (mapa gives its
 * shared::cluster address). The arrive's default .release.cta, as CUTLASS's
 * ClusterBarrier::arrive: the stage's reads it releases (wgmma's) are
 * complete at the wgmma.wait before it; .release.cluster made the
 * multicast GEMM 1.7x slower on an H200 */
static void arrive_once(Emit *e, const Stmt *s, Reg a)
{
	Builder *b = emit_builder(e);
	if (!s->to_cluster) {
		Reg st = b_reg(b, RC_RD);
		b_ins(b, FORM_MBAR_ARRIVE, b_name(b, st), b_addr(b, a, 0), NULL);
		return;
	}
	const Kernel *k = emit_kernel_of(e);
	int64_t ranks = k->cluster_x * (k->cluster_y ? k->cluster_y : 1);
	for (int64_t r = 0; r < ranks; r++) {
		Reg ra = b_reg(b, RC_R);
		b_ins(b, FORM_MAPA_SHARED_U32, b_name(b, ra), b_name(b, a), b_imm(b, r), NULL);
		b_ins(b, FORM_MBAR_ARRIVE_REMOTE, b_name(b, ra), NULL);
	}
}

void emit_mbar_arrive(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	if (s->per == SC_THREAD) { /* every thread arrives */
		arrive_once(e, s, emit_mbar_addr(e, s));
		return;
	}
	if (s->per == SC_WARP || s->per == SC_WARPGROUP) { /* the first thread of each warp / warpgroup */
		Reg a = emit_mbar_addr(e, s), p = b_reg(b, RC_P);
		int l = b_label(b);
		b_ins(b, FORM_SETP_NE_U32, b_name(b, p), b_name(b, emit_scope_tid(e, s->per)), "0", NULL);
		b_ins(b, FORM_BRA_IF, b_name(b, p), b_label_name(b, l), NULL);
		arrive_once(e, s, a);
		b_place_label(b, l);
		return;
	}
	int l = emit_elect_begin(e);
	arrive_once(e, s, emit_mbar_addr(e, s));
	emit_elect_end(e, l);
}

void emit_mbar_wait(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	const Affine *parity = stmtmap_get(emit_ctx(e)->parity, s); /* the async pass's fit */
	Reg a = emit_mbar_addr(e, s), par, bits = emit_mbar_phase_bits(e, s), bit = {0};
	if (bits.id) { /* parity = bit idx of the phase bits; the wait flips it */
		par = b_reg(b, RC_R);
		if (affine_is_const(s->mbar_idx)) {
			bit = b_const32(b, (int64_t)1 << s->mbar_idx->c);
			b_ins(b, FORM_SHR_U32, b_name(b, par), b_name(b, bits), b_imm(b, s->mbar_idx->c), NULL);
		} else {
			Reg idx = emit_affine(e, s->mbar_idx);
			bit = b_reg(b, RC_R);
			b_ins(b, FORM_SHL_B32, b_name(b, bit), "1", b_name(b, idx), NULL);
			b_ins(b, FORM_SHR_U32, b_name(b, par), b_name(b, bits), b_name(b, idx), NULL);
		}
		b_ins(b, FORM_AND_B32, b_name(b, par), b_name(b, par), "1", NULL);
	} else if (!parity || affine_is_const(parity)) {
		par = b_const32(b, parity ? parity->c & 1 : 0);
	} else {
		Reg x = emit_affine(e, parity);
		par = b_reg(b, RC_R);
		b_ins(b, FORM_AND_B32, b_name(b, par), b_name(b, x), "1", NULL);
	}
	int top = b_label(b);
	Reg p = b_reg(b, RC_P);
	b_place_label(b, top);
	b_ins(b, FORM_MBAR_TRY_WAIT, b_name(b, p), b_addr(b, a, 0), b_name(b, par), NULL);
	b_ins(b, FORM_BRA_IF_NOT, b_name(b, p), b_label_name(b, top), NULL);
	if (bits.id)
		b_ins(b, FORM_XOR_B32, b_name(b, bits), b_name(b, bits), b_name(b, bit), NULL);
}

/* mbarrier.skip: the thread passes the barrier's next phase without waiting
 * for it (another role consumes it): its phase bit flips, as a wait's does */
void emit_mbar_skip(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	Reg bits = emit_mbar_phase_bits(e, s), bit;
	if (affine_is_const(s->mbar_idx)) {
		bit = b_const32(b, (int64_t)1 << s->mbar_idx->c);
	} else {
		bit = b_reg(b, RC_R);
		b_ins(b, FORM_SHL_B32, b_name(b, bit), "1", b_name(b, emit_affine(e, s->mbar_idx)), NULL);
	}
	b_ins(b, FORM_XOR_B32, b_name(b, bits), b_name(b, bits), b_name(b, bit), NULL);
}

void emit_fence_async(Emit *e, const Stmt *s)
{
	(void)s;
	b_ins(emit_builder(e), FORM_FENCE_PROXY_ASYNC, NULL);
}

static void elected(Emit *e, FormId f, const char *op)
{
	int l = emit_elect_begin(e);
	b_ins(emit_builder(e), f, op, NULL);
	emit_elect_end(e, l);
}

void emit_bulk_commit(Emit *e, const Stmt *s)
{
	(void)s;
	elected(e, FORM_BULK_COMMIT, NULL);
}

void emit_bulk_wait(Emit *e, const Stmt *s) { elected(e, FORM_BULK_WAIT, b_imm(emit_builder(e), s->n)); }
void emit_bulk_wait_read(Emit *e, const Stmt *s) { elected(e, FORM_BULK_WAIT_READ, b_imm(emit_builder(e), s->n)); }

/* cluster.sync: every thread of the cluster arrives (release: its earlier
 * writes, the mbarrier inits among them, are visible to the cluster) and
 * waits for all the others (acquire) */
void emit_cluster_sync(Emit *e, const Stmt *s)
{
	(void)s;
	Builder *b = emit_builder(e);
	b_ins(b, FORM_CLUSTER_ARRIVE, NULL);
	b_ins(b, FORM_CLUSTER_WAIT, NULL);
}

/* the two halves, to overlap work with the cluster barrier */
void emit_cluster_arrive(Emit *e, const Stmt *s)
{
	(void)s;
	b_ins(emit_builder(e), FORM_CLUSTER_ARRIVE, NULL);
}

void emit_cluster_wait(Emit *e, const Stmt *s)
{
	(void)s;
	b_ins(emit_builder(e), FORM_CLUSTER_WAIT, NULL);
}
