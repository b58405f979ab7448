/* The interpreter: one non-collective instruction of one thread (ALU,
 * loads and stores, calls, cluster barriers, and the mbarrier/TMA/bulk
 * instructions that emu/ptxemu_tma.c models). */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"
#include "ptxemu_cvt.h"

/* the cluster barrier instances every live thread has arrived at are
 * released (an exited thread does not hold one back) */
void cluster_release(Machine *m)
{
	int64_t lo = INT64_MAX;
	for (int64_t i = 0; i < m->threads * m->nranks; i++)
		if (!m->t[i].done && m->t[i].carrive < lo)
			lo = m->t[i].carrive;
	if (lo != INT64_MAX && lo > m->creleased) {
		m->creleased = lo;
		sync_all(m->sync); /* orders each CTA's shared accesses before it before those after it */
	}
}

static int label_pc(Machine *m, const char *l)
{
	for (int i = 0; i < m->p->nlabels; i++)
		if (!strcmp(m->p->labels[i], l))
			return m->p->label_pc[i];
	m->err = "unknown label";
	return 0;
}

/* an mbarrier, TMA or bulk-group instruction (ptxemu_tma.c) */
static void tma_instruction(Machine *m, Thread *t, Ins *in)
{
	TmaOp o = {.op = in->op, .nops = in->nops, .rank = m->cur, .sbase = (uint64_t)m->cur * (uint64_t)m->win,
	           .line = in->tile_line};
	for (int i = 0; i < in->nops && i < 8 && !m->err; i++) {
		const char *x = in->ops[i];
		const char *br = strchr(x, '{');
		if (x[0] == '[' && br) { /* [tmap, {c0, c1, ...}] */
			char *reg = strndup(x + 1, strcspn(x + 1, ", ")), *cs = strdup(br + 1); /* names of any length */
			o.v[i] = val(m, t, reg);
			for (char *tok = strtok(cs, ", }]"); tok && o.nc < 5; tok = strtok(NULL, ", }]"))
				o.c[o.nc++] = (int32_t)val(m, t, tok);
			free(reg);
			free(cs);
		} else if (x[0] == '[') {
			o.v[i] = addr(m, t, x);
		} else if (!strcmp(x, "_")) {
			o.v[i] = 0;
		} else {
			o.v[i] = val(m, t, x);
		}
	}
	if (m->err)
		return;
	bool mbar = !strncmp(in->op, "mbarrier.", 9) && strncmp(in->op, "mbarrier.init", 13);
	if (mbar && strstr(in->op, ".shared::cluster") && (o.v[1] & MAPA_TAG)) {
		o.v[1] &= ~MAPA_TAG; /* a peer's barrier (mapa): its cluster-wide address */
		o.sbase = 0;
	}
	uint64_t bar = o.v[1] + o.sbase, result = 0;
	int64_t before = 0, after = 0, pending, count, tx;
	bool own = bar / (uint64_t)m->win == (uint64_t)m->cur, blocked = false;
	int w = (int)(local_tid(m, t) / 32);
	if (mbar)
		tma_mbar(m->tma, bar, &before, &pending, &count, &tx);
	/* the async proxy: a fence covering shared memory (not .global, not the
	 * async-to-generic ::generic.acquire form) orders this thread's generic
	 * writes before it for the async proxy's later reads; a store reads its
	 * source through the async proxy at issue */
	if (!strncmp(in->op, "fence.proxy.async", 17) && !strstr(in->op, ".global") && !strstr(in->op, ".acquire")) {
		t->fence_stamp[t->fences % 4] = sync_stamp(m->sync, m->cur, w);
		t->fences++;
	}
	bool tensor_store = !strncmp(in->op, "cp.async.bulk.tensor.", 21) && strstr(in->op, ".global.shared::cta");
	if ((tensor_store && (o.v[0] & TMAP_TAG) && (int)(o.v[0] & 0xff) < m->env.nmaps) ||
	    !strncmp(in->op, "cp.async.bulk.global.shared::cta.", 33)) {
		uint64_t bytes = tensor_store ? (uint64_t)m->env.maps[o.v[0] & 0xff].box_bytes : o.v[2];
		if (!async_read(m, &w, 1, o.v[1], bytes, tensor_store ? "TMA store" : "bulk store", (int)(t - m->t), in))
			return;
	}
	if (!tma_step(m->tma, &m->env, (int)(t - m->t), &o, &result, &blocked, &m->err)) {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
		m->err = m->errbuf;
		return;
	}
	if ((!strncmp(in->op, "mbarrier.arrive", 15) || !strncmp(in->op, "mbarrier.try_wait", 17)) && strcmp(in->ops[0], "_"))
		*oreg(m, t, &in->od[0]) = result;
	if (blocked) { /* stay at the wait; the scheduler runs the other threads */
		t->pc--;
		t->blocked = true;
	}
	/* happens-before through the barrier (ptxemu_sync.h): an arrival releases
	 * the warp's accesses, a wait that succeeds acquires the completed phase's.
	 * Shared accesses are tracked per CTA: a peer's arrival orders nothing here */
	if (mbar && own && !m->err && tma_mbar(m->tma, bar, &after, &pending, &count, &tx)) {
		if (!strncmp(in->op, "mbarrier.arrive", 15))
			sync_mbar_arrive(m->sync, m->cur, w, bar, before, after);
		else if (!strncmp(in->op, "mbarrier.try_wait", 17) && !blocked)
			sync_mbar_acquire(m->sync, m->cur, w, bar, after, (int)(o.v[2] & 1));
	}
}

/* a thread exits (ret outside any call): its copies in flight land, and a
 * wgmma in flight or a CTA whose last thread leaves with TMA work pending is
 * an error */
static void thread_exit(Machine *m, Thread *t)
{
	for (int i = 0; i < m->nwgq && !m->err; i++)
		if (m->wgq[i].wgi == rank_of(m, t) * 8 + (int)(local_tid(m, t) / 128)) {
			snprintf(m->errbuf, sizeof m->errbuf, "thread %lld exits while the wgmma of .tile line %d is in flight "
			         "(no wgmma.wait_group covers it)", (long long)local_tid(m, t), m->wgq[i].line);
			m->err = m->errbuf;
		}
	t->done = true;
	cpa_land(m, (int)(t - m->t), INT64_MAX);
	tma_thread_exit(m->tma, &m->env, (int)(t - m->t), &m->err);
	cluster_release(m);
	bool cta_done = true; /* the CTA's last thread: nothing may still write into it */
	for (int64_t i = 0; i < m->threads; i++)
		cta_done &= m->t[m->cur * m->threads + i].done;
	if (cta_done && !m->err)
		tma_cta_exit(m->tma, &m->env, m->cur, &m->err);
}

/* call[.uni] [(ret),] fn, (args): the arguments copied into the formal
 * .params, a frame pushed */
static void call(Machine *m, Thread *t, Ins *in)
{
	char **o = in->ops;
	const struct Func *fn = NULL;
	for (int i = 0; i < m->p->nfuncs; i++)
		if (!strcmp(m->p->funcs[i].name, o[1]))
			fn = &m->p->funcs[i];
	if (!fn || in->nops - 2 != fn->nparams || t->depth == MAX_CALL_DEPTH) {
		snprintf(m->errbuf, sizeof m->errbuf, "call of '%s': %s", o[1],
		         !fn ? "no such function" : t->depth == MAX_CALL_DEPTH ? "too deep" : "argument count");
		m->err = m->errbuf;
		return;
	}
	for (int i = 0; i < fn->nparams; i++) {
		int a = psym_find(m->p, o[2 + i]), f = fn->params[i];
		if (a < 0 || m->p->psym_size[a] != m->p->psym_size[f]) {
			snprintf(m->errbuf, sizeof m->errbuf, "call of '%s': argument '%s' is not a .param of its size", o[1],
			         o[2 + i]);
			m->err = m->errbuf;
			return;
		}
		memcpy(t->pmem + m->p->psym_off[f], t->pmem + m->p->psym_off[a], (size_t)m->p->psym_size[f]);
	}
	t->frames[t->depth++] = (Frame){t->pc, fn->ret, o[0][0] ? psym_find(m->p, o[0]) : -1};
	t->pc = fn->pc;
}

/* the interpreter's arms (exec_control, exec_alu, exec_memory), one per
 * opcode test of classify() */
enum {
	OPC_UNDECODED, /* Ins.opc before decode_prog */
	OPC_UNSUPPORTED,
	OPC_RET,
	OPC_BARRIER_CLUSTER_ARRIVE,
	OPC_BARRIER_CLUSTER_WAIT,
	OPC_ASYNC_UNIT,
	OPC_CALL,
	OPC_PARAM_SPACE,
	OPC_MAPA_SHARED_CLUSTER_U32,
	OPC_TRAP,
	OPC_BRA,
	OPC_LD_SCALAR,
	OPC_LD_POINTER,
	OPC_MOV,
	OPC_MOV_B16,
	OPC_ADD_U32,
	OPC_SUB_U32,
	OPC_MAX_U32,
	OPC_MIN_S32,
	OPC_MAX_S32,
	OPC_PRMT_B32,
	OPC_CVT_HALF,
	OPC_MUL_LO_U32,
	OPC_MAD_LO_U32,
	OPC_MUL_WIDE_U32,
	OPC_ADD_U64,
	OPC_SHL_B32,
	OPC_SHR_U32,
	OPC_AND_B32,
	OPC_OR_B64,
	OPC_OR_B32,
	OPC_PRED_LOGIC,
	OPC_XOR_B32,
	OPC_DIV_U32,
	OPC_REM_U32,
	OPC_MAD_WIDE_U32,
	OPC_MAD_LO_U64,
	OPC_CVT_U64_U32,
	OPC_CVT_U32_U64,
	OPC_CVT_U32_U16,
	OPC_SHL_B64,
	OPC_SETP_GT_S32,
	OPC_SETP_GT_AND_S32,
	OPC_SETP_LT_S32,     /* setp.lt.s32, setp.ge.s32 (red.max's sign test) */
	OPC_SETP_LT_AND_S32, /* setp.lt.and.s32, setp.ge.and.s32 */
	OPC_RED,
	OPC_SETP_LT_U32,
	OPC_SETP_LT_U64,
	OPC_SETP_EQ_U32,
	OPC_SETP_GE_U32,
	OPC_SETP_NE_U32,
	OPC_SETP_GT_U32,
	OPC_SETP_LE_U32,
	OPC_BFI_B32,
	OPC_BFE_U32,
	OPC_LDST_NO_WIDTH,
	OPC_LD,
	OPC_ST,
	OPC_CP_ASYNC_COPY,
	OPC_CP_ASYNC_COMMIT_GROUP,
	OPC_CP_ASYNC_WAIT,
	OPC_ASYNC_NOP,
	OPC_PREFETCH, /* prefetch.global.L2: no data moves; the address must be in a global buffer */
	OPC_FLOAT, /* emu/ptxemu_float.c: Ins.fop */
	OPC_NOT_PRED,
	OPC_MOV_PACK16,   /* mov.b32 d, {lo, hi} */
	OPC_MOV_UNPACK16, /* mov.b32 {lo, hi}, a */
};

/* which arm of the interpreter runs instruction in: the tests it made on
 * the opcode text at every step, made once when the program is loaded
 * (the .param symbols and scalars they look up are all declared by then;
 * an operand they read must be there, as the instruction may never run) */
/* the opcodes one exact name decodes to (the others by prefix and operands, below) */
static const struct { const char *name; int opc; } exact_ops[] = {
	{"ret", OPC_RET},
	{"mapa.shared::cluster.u32", OPC_MAPA_SHARED_CLUSTER_U32},
	{"trap", OPC_TRAP},
	{"mov.b16", OPC_MOV_B16},
	{"add.u32", OPC_ADD_U32},
	{"sub.u32", OPC_SUB_U32},
	{"max.u32", OPC_MAX_U32},
	{"min.s32", OPC_MIN_S32},
	{"max.s32", OPC_MAX_S32},
	{"prmt.b32", OPC_PRMT_B32},
	{"mul.lo.u32", OPC_MUL_LO_U32},
	{"mad.lo.u32", OPC_MAD_LO_U32},
	{"mul.wide.u32", OPC_MUL_WIDE_U32},
	{"add.u64", OPC_ADD_U64},
	{"shl.b32", OPC_SHL_B32},
	{"and.b32", OPC_AND_B32},
	{"or.b64", OPC_OR_B64},
	{"or.b32", OPC_OR_B32},
	{"xor.b32", OPC_XOR_B32},
	{"div.u32", OPC_DIV_U32},
	{"rem.u32", OPC_REM_U32},
	{"mad.wide.u32", OPC_MAD_WIDE_U32},
	{"mad.lo.u64", OPC_MAD_LO_U64},
	{"cvt.u64.u32", OPC_CVT_U64_U32},
	{"cvt.u32.u64", OPC_CVT_U32_U64},
	{"shl.b64", OPC_SHL_B64},
	{"setp.lt.u32", OPC_SETP_LT_U32},
	{"setp.lt.u64", OPC_SETP_LT_U64},
	{"setp.eq.u32", OPC_SETP_EQ_U32},
	{"setp.ge.u32", OPC_SETP_GE_U32},
	{"setp.ne.u32", OPC_SETP_NE_U32},
	{"setp.gt.u32", OPC_SETP_GT_U32},
	{"setp.le.u32", OPC_SETP_LE_U32},
	{"setp.eq.b32", OPC_SETP_EQ_U32},
	{"setp.ne.b32", OPC_SETP_NE_U32},
	{"cvt.u32.u16", OPC_CVT_U32_U16},
	{"cvt.u16.u32", OPC_CVT_U32_U16},
	{"not.pred", OPC_NOT_PRED},
	{"bfi.b32", OPC_BFI_B32},
	{"bfe.u32", OPC_BFE_U32},
	{"cp.async.commit_group", OPC_CP_ASYNC_COMMIT_GROUP},
	{"prefetch.global.L2", OPC_PREFETCH},
};

static int classify(const Prog *p, const Ins *in)
{
	const char *op = in->op;
	char *const *o = in->ops;
	for (size_t i = 0; i < sizeof exact_ops / sizeof *exact_ops; i++)
		if (!strcmp(op, exact_ops[i].name))
			return exact_ops[i].opc;
	if (in->fop.kind)
		return OPC_FLOAT;
	if (!strcmp(op, "mov.b32") && in->nops == 3) /* a brace pair of 16-bit registers, flattened: which side? */
		return reg_bits(p, o[0]) == 16 ? OPC_MOV_UNPACK16 : OPC_MOV_PACK16;
	if (!strncmp(op, "barrier.cluster.arrive", 22))
		return OPC_BARRIER_CLUSTER_ARRIVE;
	if (!strncmp(op, "barrier.cluster.wait", 20))
		return OPC_BARRIER_CLUSTER_WAIT;
	if (!strncmp(op, "mbarrier.", 9) || !strncmp(op, "cp.async.bulk", 13) || !strncmp(op, "fence.proxy.async", 17) ||
	    !strncmp(op, "fence.mbarrier_init", 19))
		return OPC_ASYNC_UNIT;
	if (!strncmp(op, "call", 4))
		return OPC_CALL;
	if ((!strncmp(op, "ld.param.", 9) || !strncmp(op, "st.param.", 9)) && in->nops > (op[0] == 'l') &&
	    param_addr(p, o[op[0] == 'l'], &(int64_t){0}) >= 0)
		return OPC_PARAM_SPACE;
	if (!strncmp(op, "bra", 3))
		return OPC_BRA;
	if (!strncmp(op, "ld.param.", 9) && in->nops > 1 && scalar_param(p, o[1]) >= 0)
		return OPC_LD_SCALAR;
	if (!strcmp(op, "ld.param.u64"))
		return OPC_LD_POINTER;
	if (!strcmp(op, "cvta.to.global.u64") || !strcmp(op, "mov.u32") || !strcmp(op, "mov.b32") ||
	    !strcmp(op, "cvta.param.u64") || !strcmp(op, "mov.b64"))
		return OPC_MOV;
	if (!strcmp(op, "cvt.rn.f16x2.f32") || !strcmp(op, "cvt.rn.bf16x2.f32") || !strcmp(op, "cvt.f32.f16")) /* emu/ptxemu_cvt.c */
		return OPC_CVT_HALF;
	if (!strcmp(op, "shr.u32") || !strcmp(op, "shr.b32"))
		return OPC_SHR_U32;
	if (!strcmp(op, "xor.pred") || !strcmp(op, "and.pred") || !strcmp(op, "or.pred"))
		return OPC_PRED_LOGIC;
	if (!strcmp(op, "setp.gt.s32") || !strcmp(op, "setp.le.s32"))
		return OPC_SETP_GT_S32;
	if (!strcmp(op, "setp.gt.and.s32") || !strcmp(op, "setp.le.or.s32"))
		return OPC_SETP_GT_AND_S32;
	if (!strcmp(op, "setp.lt.s32") || !strcmp(op, "setp.ge.s32"))
		return OPC_SETP_LT_S32;
	if (!strcmp(op, "setp.lt.and.s32") || !strcmp(op, "setp.ge.and.s32"))
		return OPC_SETP_LT_AND_S32;
	if (!strncmp(op, "red.", 4))
		return OPC_RED;
	if ((!strncmp(op, "ld.", 3) || !strncmp(op, "st.", 3)) && !width_of(op))
		return OPC_LDST_NO_WIDTH;
	if (!strncmp(op, "ld.", 3))
		return OPC_LD;
	if (!strncmp(op, "st.", 3))
		return OPC_ST;
	if (!strncmp(op, "cp.async.cg.", 12) || !strncmp(op, "cp.async.ca.", 12))
		return OPC_CP_ASYNC_COPY;
	if (!strcmp(op, "cp.async.wait_group") || !strcmp(op, "cp.async.wait_all"))
		return OPC_CP_ASYNC_WAIT;
	if (!strncmp(op, "cp.async.", 9) || !strncmp(op, "tcgen05.fence", 13) || !strncmp(op, "tcgen05.wait", 12))
		return OPC_ASYNC_NOP;
	return OPC_UNSUPPORTED;
}

/* control flow, calls, the .param space, cluster barriers and the
 * mbarrier/TMA/bulk instructions; false when in is none of them */
static bool exec_control(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
	char **o = in->ops;
#define D (*oreg(m, t, &in->od[0]))
#define V(i) oval(m, t, &in->od[i])
	switch (in->opc) {
	case OPC_RET: {
		if (t->depth > 0) {
			Frame *f = &t->frames[--t->depth];
			if (f->callee_ret >= 0 && f->caller_ret >= 0)
				memcpy(t->pmem + m->p->psym_off[f->caller_ret], t->pmem + m->p->psym_off[f->callee_ret],
				       (size_t)m->p->psym_size[f->callee_ret]);
			t->pc = f->ret_pc;
		} else {
			thread_exit(m, t);
		}
		return true;
	}
	case OPC_BARRIER_CLUSTER_ARRIVE: {
		/* every thread of the cluster arrives; when the last one does, the
		 * instance is released and orders each CTA's shared accesses */
		t->carrive++;
		cluster_release(m);
		return true;
	}
	case OPC_BARRIER_CLUSTER_WAIT: {
		if (t->carrive == 0) {
			m->err = "barrier.cluster.wait without a barrier.cluster.arrive before it";
		} else if (m->creleased < t->carrive) { /* stay at the wait */
			t->pc--;
			t->blocked = true;
		}
		return true;
	}
	case OPC_ASYNC_UNIT: {
		tma_instruction(m, t, in);
		return true;
	}
	case OPC_CALL: {
		call(m, t, in);
		return true;
	}
	case OPC_PARAM_SPACE: {
		int64_t room, a = param_addr(m->p, o[op[0] == 'l'], &room);
		int w = strstr(op, "64") ? 8 : 4;
		if (room < w) {
			m->err = "param access out of bounds";
			return true; /* with m->err */
		}
		if (op[0] == 'l') {
			uint64_t v = 0;
			memcpy(&v, t->pmem + a, (size_t)w);
			D = v;
		} else {
			uint64_t v = V(1);
			memcpy(t->pmem + a, &v, (size_t)w);
		}
		return true;
	}
	case OPC_MAPA_SHARED_CLUSTER_U32: {
		uint64_t rank = (uint32_t)V(2), a = shared_cta_offset(m, t, (uint32_t)V(1));
		if (rank >= (uint64_t)m->nranks || a >= (uint64_t)m->win) {
			snprintf(m->errbuf, sizeof m->errbuf, "mapa (.tile line %d): CTA rank %llu or address 0x%llx is not in the "
			         "cluster of %d CTAs", in->tile_line, (unsigned long long)rank, (unsigned long long)a, m->nranks);
			m->err = m->errbuf;
			return true; /* with m->err */
		}
		D = MAPA_TAG | (rank * (uint64_t)m->win + a);
		return true;
	}
	case OPC_TRAP: {
		snprintf(m->errbuf, sizeof m->errbuf, "trap (.tile line %d) in thread %lld of CTA rank %d", in->tile_line,
		         (long long)local_tid(m, t), rank_of(m, t));
		m->err = m->errbuf;
		return true;
	}
	case OPC_BRA: {
		t->pc = in->od[0].label >= 0 ? in->od[0].label : label_pc(m, o[0]);
		return true;
	}
	default:
		return false;
	}
#undef D
#undef V
}

/* integer and predicate arithmetic, moves, conversions and kernel params read; false when in is none of them */
/* comparisons and predicate logic; false when in is none of them */
static bool exec_compare(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
#define D (*oreg(m, t, &in->od[0]))
#define V(i) oval(m, t, &in->od[i])
	switch (in->opc) {
	case OPC_PRED_LOGIC: {
		bool a = V(1) != 0, b = V(2) != 0;
		D = op[0] == 'x' ? a != b : op[0] == 'a' ? a && b : a || b;
		return true;
	}
	case OPC_SETP_GT_S32: {
		bool gt = (int32_t)V(1) > (int32_t)V(2);
		D = op[5] == 'g' ? gt : !gt;
		return true;
	}
	case OPC_SETP_GT_AND_S32: {
		bool gt = (int32_t)V(1) > (int32_t)V(2);
		D = op[5] == 'g' ? (gt && V(3)) : (!gt || V(3));
		return true;
	}
	case OPC_SETP_LT_S32: case OPC_SETP_LT_AND_S32: {
		bool lt = (int32_t)V(1) < (int32_t)V(2);
		D = (op[5] == 'l' ? lt : !lt) && (in->opc == OPC_SETP_LT_S32 || V(3));
		return true;
	}
	case OPC_SETP_LT_U32: {
		D = (uint32_t)V(1) < (uint32_t)V(2);
		return true;
	}
	case OPC_SETP_LT_U64: {
		D = V(1) < V(2);
		return true;
	}
	case OPC_SETP_EQ_U32: {
		D = (uint32_t)V(1) == (uint32_t)V(2);
		return true;
	}
	case OPC_SETP_GE_U32: {
		D = (uint32_t)V(1) >= (uint32_t)V(2);
		return true;
	}
	case OPC_SETP_NE_U32: {
		D = (uint32_t)V(1) != (uint32_t)V(2);
		return true;
	}
	case OPC_NOT_PRED: {
		D = V(1) == 0;
		return true;
	}
	case OPC_SETP_GT_U32: {
		D = (uint32_t)V(1) > (uint32_t)V(2);
		return true;
	}
	case OPC_SETP_LE_U32: {
		D = (uint32_t)V(1) <= (uint32_t)V(2);
		return true;
	}
	default:
		return false;
	}
#undef D
#undef V
}

/* an f32 source: a float immediate (0fXXXXXXXX, 0d..., decimal) or any operand val reads */
static uint32_t float_source(Machine *m, Thread *t, const Opnd *o)
{
	return o->fimm ? o->fbits : (uint32_t)oval(m, t, o);
}

/* an f32 compute instruction (emu/ptxemu_float.c): its sources are the
 * last fop.nsrc operands; setp p|q (two destinations) writes q = !p */
static void exec_float(Machine *m, Thread *t, Ins *in)
{
	int ndst = in->nops - in->fop.nsrc;
	if (ndst < 1 || ndst > 2 || (ndst == 2 && strncmp(in->op, "setp.", 5))) {
		snprintf(m->errbuf, sizeof m->errbuf, "'%s': %d operands", in->op, in->nops);
		m->err = m->errbuf;
		return;
	}
	uint64_t s[3] = {0}, r;
	for (int i = 0; i < in->fop.nsrc; i++) /* an f64 form reads 64 bits (0dX{16}: its bits, as val reads it) */
		s[i] = in->fop.f64 ? oval(m, t, &in->od[ndst + i]) : float_source(m, t, &in->od[ndst + i]);
	if (in->fop.f64)
		r = ptxemu_double_exec(in->fop, s[0], s[1], s[2]);
	else
		r = ptxemu_float_exec(in->fop, (uint32_t)s[0], (uint32_t)s[1], (uint32_t)s[2]);
	*oreg(m, t, &in->od[0]) = r;
	if (ndst == 2)
		*oreg(m, t, &in->od[1]) = !r;
}

/* bit-field, byte-permute, max and the conversions; false when in is none
 * of them */
static bool exec_bits(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
#define D (*oreg(m, t, &in->od[0]))
#define V(i) oval(m, t, &in->od[i])
	switch (in->opc) {
	case OPC_CVT_U64_U32: {
		D = (uint32_t)V(1);
		return true;
	}
	case OPC_CVT_U32_U64: {
		D = (uint32_t)V(1);
		return true;
	}
	case OPC_MOV_PACK16: {
		D = (V(1) & 0xffffu) | (V(2) & 0xffffu) << 16;
		return true;
	}
	case OPC_MOV_UNPACK16: {
		uint64_t a = V(2);
		D = a & 0xffffu;
		*oreg(m, t, &in->od[1]) = a >> 16 & 0xffffu;
		return true;
	}
	case OPC_CVT_U32_U16: {
		D = (uint16_t)V(1);
		return true;
	}
	case OPC_MAX_U32: {
		D = (uint32_t)V(1) > (uint32_t)V(2) ? (uint32_t)V(1) : (uint32_t)V(2);
		return true;
	}
	case OPC_MIN_S32:
	case OPC_MAX_S32: {
		int32_t a = (int32_t)(uint32_t)V(1), b = (int32_t)(uint32_t)V(2);
		D = (uint32_t)((in->opc == OPC_MIN_S32) == (a < b) ? a : b);
		return true;
	}
	case OPC_PRMT_B32: { /* default mode: byte i of D is byte sel[i] of {b, a} */
		uint64_t ab = (uint64_t)(uint32_t)V(1) | (uint64_t)(uint32_t)V(2) << 32;
		uint32_t sel = (uint32_t)V(3), d = 0;
		for (int i = 0; i < 4; i++) {
			unsigned sb = sel >> (4 * i) & 0xf, byte = (unsigned)(ab >> (8 * (sb & 7))) & 0xff;
			d |= (sb & 8 ? (byte & 0x80 ? 0xffu : 0) : byte) << (8 * i);
		}
		D = d;
		return true;
	}
	case OPC_FLOAT: {
		exec_float(m, t, in);
		return true;
	}
	case OPC_CVT_HALF: {
		uint32_t r = 0;
		if (!ptxemu_cvt(op, (uint32_t)V(1), !strncmp(op, "cvt.rn.", 7) ? (uint32_t)V(2) : 0, &r)) {
			snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", op);
			m->err = m->errbuf;
		}
		D = r;
		return true;
	}
	case OPC_BFI_B32: {
		uint32_t pos = (uint32_t)V(3), len = (uint32_t)V(4), mask = (len >= 32 ? ~0u : ((1u << len) - 1)) << pos;
		D = ((uint32_t)V(2) & ~mask) | (((uint32_t)V(1) << pos) & mask);
		return true;
	}
	case OPC_BFE_U32: {
		uint32_t pos = (uint32_t)V(2), len = (uint32_t)V(3);
		D = ((uint32_t)V(1) >> pos) & (len >= 32 ? ~0u : ((1u << len) - 1));
		return true;
	}
	default:
		return false;
	}
#undef D
#undef V
}

static bool exec_alu(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
#define D (*oreg(m, t, &in->od[0]))
#define V(i) oval(m, t, &in->od[i])
	switch (in->opc) {
	case OPC_LD_SCALAR: {
		D = (uint64_t)m->p->scalar_val[in->od[1].scalar];
		return true;
	}
	case OPC_LD_POINTER: {
		D = (oaddr(m, t, &in->od[1]) + 1) << 40;
		return true;
	}
	case OPC_MOV: {
		D = V(1) & (op[0] == 'm' && op[5] == '3' ? 0xffffffffu : ~0ull);
		return true;
	}
	case OPC_MOV_B16: {
		D = V(1) & 0xffffu;
		return true;
	}
	case OPC_ADD_U32: {
		D = (uint32_t)(V(1) + V(2));
		return true;
	}
	case OPC_SUB_U32: {
		D = (uint32_t)(V(1) - V(2));
		return true;
	}
	case OPC_MUL_LO_U32: {
		D = (uint32_t)(V(1) * V(2));
		return true;
	}
	case OPC_MAD_LO_U32: {
		D = (uint32_t)(V(1) * V(2) + V(3));
		return true;
	}
	case OPC_MUL_WIDE_U32: {
		D = (uint64_t)(uint32_t)V(1) * (uint64_t)(uint32_t)V(2);
		return true;
	}
	case OPC_ADD_U64: {
		D = V(1) + V(2);
		return true;
	}
	case OPC_SHL_B32: {
		D = (uint32_t)(V(1) << V(2));
		return true;
	}
	case OPC_SHR_U32: {
		D = (uint32_t)V(1) >> V(2);
		return true;
	}
	case OPC_AND_B32: {
		D = (uint32_t)(V(1) & V(2));
		return true;
	}
	case OPC_OR_B64: {
		D = V(1) | V(2);
		return true;
	}
	case OPC_OR_B32: {
		D = (uint32_t)(V(1) | V(2));
		return true;
	}
	case OPC_XOR_B32: {
		D = (uint32_t)(V(1) ^ V(2));
		return true;
	}
	case OPC_DIV_U32: {
		D = (uint32_t)V(1) / (uint32_t)V(2);
		return true;
	}
	case OPC_REM_U32: {
		D = (uint32_t)V(1) % (uint32_t)V(2);
		return true;
	}
	case OPC_MAD_WIDE_U32: {
		D = (uint64_t)(uint32_t)V(1) * (uint64_t)(uint32_t)V(2) + V(3);
		return true;
	}
	case OPC_MAD_LO_U64: {
		D = V(1) * V(2) + V(3); /* modulo 2^64, as mad.lo */
		return true;
	}
	case OPC_SHL_B64: {
		D = V(1) << V(2);
		return true;
	}
	default:
		return exec_compare(m, t, in) || exec_bits(m, t, in);
	}
#undef D
#undef V
}

/* loads, stores and cp.async; false when in is none of them */
static bool exec_memory(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
#define D (*oreg(m, t, &in->od[0]))
#define V(i) oval(m, t, &in->od[i])
	switch (in->opc) {
	case OPC_LDST_NO_WIDTH: {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s' (an access width the emulator lacks)", op);
		m->err = m->errbuf;
		return true;
	}
	case OPC_LD: {
		int w = in->width, n = w >= 4 ? w / 4 : 1;
		track(m, t, in, false);
		unsigned char *p = mem(m, in->shared, oaddr(m, t, &in->od[n]), w);
		m->acc_warp = -1;
		for (int i = 0; p && i < n; i++) {
			uint32_t v = 0;
			memcpy(&v, p + 4 * i, (size_t)(w < 4 ? w : 4));
			*oreg(m, t, &in->od[i]) = v;
		}
		return true;
	}
	case OPC_ST: {
		int w = in->width, n = w >= 4 ? w / 4 : 1;
		track(m, t, in, true);
		unsigned char *p = mem(m, in->shared, oaddr(m, t, &in->od[0]), w);
		m->acc_warp = -1;
		for (int i = 0; p && i < n; i++) {
			uint32_t v = (uint32_t)V(1 + i);
			memcpy(p + 4 * i, &v, (size_t)(w < 4 ? w : 4));
		}
		return true;
	}
	case OPC_CP_ASYNC_COPY: {
		int bytes = (int)V(2);
		uint64_t da = oaddr(m, t, &in->od[0]);
		if (m->banks) { /* the shared write of the copy, as the 16-byte st.shared it replaces */
			int tid = (int)(t - m->t), pc = (int)(in - m->p->ins);
			bank_record(m, tid, pc, m->occ[(int64_t)tid * m->p->n + pc]++, da, bytes);
		}
		/* ignore-src (a 4th operand, a predicate): zeros land, the source is not read */
		static const unsigned char zeros[16];
		bool ignore = in->nops > 3 && V(3);
		unsigned char *d = mem(m, true, da, bytes), *s = ignore ? (unsigned char *)zeros : mem(m, false, oaddr(m, t, &in->od[1]), bytes);
		if (d && s) {
			if (m->ncpa == m->cpacap) {
				m->cpacap = m->cpacap ? 2 * m->cpacap : 64;
				m->cpa = realloc(m->cpa, sizeof *m->cpa * (size_t)m->cpacap);
			}
			m->cpa[m->ncpa++] = (struct Cpa){(int)(t - m->t), bytes, da, s, -1, in};
			cpa_cover(m, &m->cpa[m->ncpa - 1], 1);
		}
		return true;
	}
	case OPC_CP_ASYNC_COMMIT_GROUP: {
		int tid = (int)(t - m->t);
		for (int i = 0; i < m->ncpa; i++)
			if (m->cpa[i].tid == tid && m->cpa[i].group < 0)
				m->cpa[i].group = m->cpa_groups[tid];
		m->cpa_groups[tid]++;
		return true;
	}
	case OPC_CP_ASYNC_WAIT: {
		int tid = (int)(t - m->t);
		if (op[14] == 'a') /* wait_all: commit, then wait for everything */
			m->cpa_groups[tid]++;
		cpa_land(m, tid, op[14] == 'a' ? INT64_MAX : m->cpa_groups[tid] - (int64_t)V(0));
		return true;
	}
	case OPC_RED: {
		exec_red(m, t, in);
		return true;
	}
	case OPC_ASYNC_NOP: {
		/* completion is immediate in the emulator */
		return true;
	}
	case OPC_PREFETCH: {
		/* a hint that moves no data, but a prefetch outside every buffer is a
		 * program's address bug (the GPU would not say so) */
		uint64_t a = oaddr(m, t, &in->od[0]), i = (a >> 40) - 1, off = a & ((1ull << 40) - 1);
		if (i >= (uint64_t)m->p->nparams || off >= m->param_bytes[i]) {
			snprintf(m->errbuf, sizeof m->errbuf, "prefetch of an address outside every global buffer (.tile line %d)",
			         in->tile_line);
			m->err = m->errbuf;
		}
		return true;
	}
	default:
		return false;
	}
#undef D
#undef V
}

/* one non-collective instruction of one thread */
void step(Machine *m, Thread *t)
{
	Ins *in = &m->p->ins[t->pc];
	if (t->wg_nbusy && wg_busy_operand(m, t, in))
		return;
	t->pc++;
	if (in->pred >= 0) {
		bool p = t->r[in->pred] != 0;
		if (p == in->pred_neg)
			return;
	}
	if (in->wg_reg)
		wg_access(m, t, in, t->pc - 1);
	if (exec_control(m, t, in) || exec_alu(m, t, in) || exec_memory(m, t, in))
		return;
	snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
	m->err = m->errbuf;
}

void decode_prog(Prog *p)
{
	for (int i = 0; i < p->n; i++) {
		p->ins[i].fop = ptxemu_float_decode(p->ins[i].op);
		p->ins[i].opc = classify(p, &p->ins[i]);
		p->ins[i].collective = is_collective(p->ins[i].op);
		p->ins[i].width = (int8_t)width_of(p->ins[i].op);
		p->ins[i].shared = strstr(p->ins[i].op, ".shared") != NULL;
		p->has_red |= p->ins[i].opc == OPC_RED;
	}
	decode_operands(p);
	wg_decode(p);
}
