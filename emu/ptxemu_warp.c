/* Warp and warpgroup collectives, executed when every lane is there:
 * ldmatrix/stmatrix and tcgen05.ld/st from the fragment tables of
 * docs/ptx-notes.md, mma.sync, shfl.sync, tcgen05.alloc, and wgmma (in flight until
 * the wgmma.wait_group that covers it). */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

/* ldmatrix m16n16 / stmatrix m16n8 .trans .b8 (docs/ptx-notes.md) */
static void matrix_b8(Machine *m, Thread **w, Ins *in)
{
	bool ld = in->op[0] == 'l';
	int num = strstr(in->op, ".x4") ? 4 : strstr(in->op, ".x2") ? 2 : 1;
	int nregs = ld ? 2 * num : num;
	if (m->banks) { /* lanes 16j.. (ldmatrix m16n16) or 8j.. (stmatrix m16n8) address 16-byte rows */
		int tid = (int)(w[0] - m->t), pc = (int)(in - m->p->ins), rows = ld ? 16 : 8;
		int64_t k = m->occ[(int64_t)tid * m->p->n + pc]++;
		for (int l = 0; l < rows * num && l < 32; l++)
			bank_record(m, tid + l, pc, k, oaddr(m, w[l], &in->od[ld ? nregs : 0]), 16);
	}
	for (int t = 0; t < 32; t++)
		for (int r = 0; r < nregs; r++)
			for (int k = 0; k < 4; k++) {
				int j, row, byte;
				if (ld) { /* r = 2j + h; rows of matrix j from lanes 16j.. */
					j = r / 2;
					row = 4 * (t % 4) + 2 * (r % 2) + (k & 1);
					byte = t / 4 + 8 * (k >> 1);
				} else { /* rows of matrix j from lanes 8j.. */
					j = r;
					row = 2 * (t % 4) + (k & 1);
					byte = t / 4 + 8 * (k >> 1);
				}
				Thread *src = w[(ld ? 16 : 8) * j + row];
				uint64_t a = oaddr(m, src, &in->od[ld ? nregs : 0]) + (uint64_t)byte;
				uint64_t *reg = oreg(m, w[t], &in->od[ld ? r : 1 + r]);
				if (ld) {
					*reg = (*reg & ~(0xffull << (8 * k))) | ((uint64_t)get8(m, a) << (8 * k));
				} else {
					m->acc_tid = (int)(src - m->t); /* the row's lane writes it */
					unsigned char *p = mem(m, true, a, 1);
					if (p)
						*p = (unsigned char)(*reg >> (8 * k));
				}
			}
}

/* ldmatrix / stmatrix m8n8 .b16 for the warp whose lanes are w[0..31] */
static void matrix(Machine *m, Thread **w, Ins *in)
{
	if (strstr(in->op, ".b8")) {
		matrix_b8(m, w, in);
		return;
	}
	bool ld = in->op[0] == 'l', trans = strstr(in->op, ".trans") != NULL;
	int num = strstr(in->op, ".x4") ? 4 : strstr(in->op, ".x2") ? 2 : 1;
	if (m->banks) { /* lanes 8j..8j+7 address matrix j's rows: 16 bytes each */
		int tid = (int)(w[0] - m->t), pc = (int)(in - m->p->ins);
		int64_t k = m->occ[(int64_t)tid * m->p->n + pc]++;
		for (int l = 0; l < 8 * num; l++)
			bank_record(m, tid + l, pc, k, oaddr(m, w[l], &in->od[ld ? num : 0]), 16);
	}
	for (int j = 0; j < num; j++)
		for (int t = 0; t < 32; t++) {
			int row = trans ? 2 * (t % 4) : t / 4, col = trans ? t / 4 : 2 * (t % 4);
			for (int e = 0; e < 2; e++) {
				int rr = trans ? row + e : row, cc = trans ? col : col + e;
				uint64_t a = oaddr(m, w[8 * j + rr], &in->od[ld ? num : 0]) + 2 * (uint64_t)cc;
				const char *reg = in->ops[ld ? j : 1 + j];
				uint64_t *r = R(m, w[t], reg);
				if (ld)
					*r = (*r & ~(0xffffull << (16 * e))) | ((uint64_t)get16(m, a) << (16 * e));
				else {
					m->acc_tid = (int)(w[8 * j + rr] - m->t); /* the row's lane writes it */
					put16(m, a, (uint16_t)(*r >> (16 * e)));
				}
			}
		}
}

/* tcgen05.ld / st: fragment tables of docs/ptx-notes.md */
static void tcgen05(Machine *m, Thread **w, Ins *in)
{
	bool ld = !strncmp(in->op, "tcgen05.ld", 10), pack = strstr(in->op, "pack::16b") != NULL;
	const char *shape = in->op + strlen("tcgen05.ld.sync.aligned.");
	bool x2 = !strncmp(shape, "16x32bx2", 8); /* ld: regs, [a], imm; st: [a], imm, regs */
	int nregs = in->nops - (x2 ? 2 : 1), first = ld ? 0 : (x2 ? 2 : 1);
	for (int t = 0; t < 32; t++) {
		uint32_t ta = (uint32_t)oaddr(m, w[t], &in->od[ld ? nregs : 0]);
		int64_t half = x2 ? (int64_t)oval(m, w[t], &in->od[ld ? nregs + 1 : 1]) : 0;
		int64_t L0 = ta >> 16, C0 = ta & 0xffff;
		for (int j = 0; j < nregs; j++) {
			int64_t lane, col;
			if (x2)
				lane = t % 16, col = j + half * (t / 16);
			else if (!strncmp(shape, "32x32b", 6))
				lane = t, col = j;
			else if (!strncmp(shape, "16x64b", 6))
				lane = t / 4 + 8 * (t % 2), col = 2 * j + (t / 2) % 2;
			else if (!strncmp(shape, "16x128b", 7))
				lane = t / 4 + 8 * (j % 2), col = (t % 4) + 4 * (j / 2);
			else
				lane = t / 4 + 8 * ((j / 2) % 2), col = 2 * (t % 4) + (j % 2) + 8 * (j / 4);
			uint64_t *r = oreg(m, w[t], &in->od[first + j]);
			int64_t ln = L0 + lane;
			if (ln < 0 || ln >= 128) {
				m->err = "tensor memory lane out of range";
				return;
			}
			if (!pack) {
				int64_t c = C0 + col;
				if (c >= TMEM_COLS) {
					m->err = "tensor memory column out of range";
					return;
				}
				if (ld)
					*r = m->tmem[ln * TMEM_COLS + c];
				else
					m->tmem[ln * TMEM_COLS + c] = (uint32_t)*r, m->tmem_dirty = true;
			} else {
				for (int h = 0; h < 2; h++) {
					int64_t c = C0 + 2 * col + h;
					if (c >= TMEM_COLS) {
						m->err = "tensor memory column out of range";
						return;
					}
					uint32_t *cell = &m->tmem[ln * TMEM_COLS + c];
					if (ld)
						*r = (*r & ~(0xffffull << (16 * h))) | ((uint64_t)(*cell & 0xffff) << (16 * h));
					else
						*cell = (uint32_t)(*r >> (16 * h)) & 0xffff, m->tmem_dirty = true;
				}
			}
		}
	}
}

/* mma.sync m16n8k16: operands d0-3, a0-3, b0-1, c0-3 (emu/ptxemu_mma.c) */
static void mma(Machine *m, Thread **w, Ins *in)
{
	bool bf16 = strstr(in->op, ".bf16") != NULL;
	if (strncmp(in->op, "mma.sync.aligned.m16n8k16.row.col.f32.", 38) || in->nops != 14 ||
	    (!bf16 && !strstr(in->op, ".f16.f16.f32"))) {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
		m->err = m->errbuf;
		return;
	}
	uint32_t a[32][4], b[32][2], c[32][4], d[32][4];
	for (int t = 0; t < 32; t++) {
		for (int i = 0; i < 4; i++) {
			a[t][i] = (uint32_t)oval(m, w[t], &in->od[4 + i]);
			c[t][i] = (uint32_t)oval(m, w[t], &in->od[10 + i]);
		}
		for (int i = 0; i < 2; i++)
			b[t][i] = (uint32_t)oval(m, w[t], &in->od[8 + i]);
	}
	ptxemu_mma_m16n8k16(a, b, c, d, bf16);
	for (int t = 0; t < 32; t++)
		for (int i = 0; i < 4; i++)
			*oreg(m, w[t], &in->od[i]) = d[t][i];
}

/* the register an operand names ([%r+8] included), not a special register */
static bool operand_reg(const char *op, char *reg, size_t cap)
{
	const char *o = op + (op[0] == '[');
	size_t n = strcspn(o, "+-]");
	if (o[0] != '%' || n >= cap)
		return false;
	memcpy(reg, o, n);
	reg[n] = 0;
	return strcmp(reg, "%tid.x") && strncmp(reg, "%ctaid", 6) && strncmp(reg, "%nctaid", 7) &&
	       strncmp(reg, "%cluster", 8);
}

/* an operand of `in` is an accumulator register of a wgmma in flight */
bool wg_busy_operand(Machine *m, Thread *t, const Ins *in)
{
	for (int i = 0; i < in->nops; i++) {
		char reg[64];
		if (!operand_reg(in->ops[i], reg, sizeof reg))
			continue;
		if (t->wg_busy[reg_slot(m->p, reg)]) {
			int line = 0;
			for (int q = 0; q < m->nwgq; q++)
				if (m->wgq[q].wgi == rank_of(m, t) * 8 + (int)(local_tid(m, t) / 128))
					line = m->wgq[q].line;
			snprintf(m->errbuf, sizeof m->errbuf, "thread %lld %s accumulator register %s (.tile line %d) while the "
			         "wgmma of .tile line %d is in flight: wgmma.commit and wgmma.wait first",
			         (long long)local_tid(m, t), i == 0 && strncmp(in->op, "st", 2) ? "writes" : "reads", reg,
			         in->tile_line, line);
			m->err = m->errbuf;
			return true;
		}
	}
	return false;
}

/* the accumulator and A register operands of a wgmma.mma_async: *n of them
 * from ops[0], the four A words after the accumulator in the RS form */
static int wg_reg_ops(const Ins *in, int *nacc, bool *rs)
{
	WgmmaInsn w;
	if (strncmp(in->op, "wgmma.mma_async", 15) || !ptxemu_wgmma_parse(in->op, &w) || in->nops < w.nregs + 4)
		return 0;
	*nacc = w.nregs;
	*rs = in->nops - w.nregs >= 8;
	return w.nregs + (*rs ? 4 : 0);
}

void wg_decode(Prog *p)
{
	int nslots = 0;
	for (int i = 0; i < p->n; i++) {
		int nacc;
		bool rs;
		int n = wg_reg_ops(&p->ins[i], &nacc, &rs);
		for (int j = 0; j < n; j++) {
			if (p->nwg_slots == nslots) {
				nslots = nslots ? 2 * nslots : 64;
				p->wg_slots = realloc(p->wg_slots, sizeof(int) * (size_t)nslots);
			}
			p->wg_slots[p->nwg_slots++] = reg_slot(p, p->ins[i].ops[j]);
		}
	}
	char reg[64];
	for (int i = 0; i < p->n && p->nwg_slots; i++) /* every named register has its slot before the table */
		for (int k = 0; k < p->ins[i].nops; k++)
			if (operand_reg(p->ins[i].ops[k], reg, sizeof reg))
				reg_slot(p, reg);
	p->wg_slot = calloc((size_t)p->nregs + 1, 1);
	for (int i = 0; i < p->nwg_slots; i++)
		p->wg_slot[p->wg_slots[i]] = 1;
	for (int i = 0; i < p->n && p->nwg_slots; i++) {
		Ins *in = &p->ins[i];
		for (int k = 0; k < in->nops && strncmp(in->op, "wgmma.", 6); k++)
			in->wg_reg |= operand_reg(in->ops[k], reg, sizeof reg) && p->wg_slot[reg_slot(p, reg)];
	}
}

void wg_access(Machine *m, Thread *t, const Ins *in, int pc)
{
	for (int k = 0; k < in->nops; k++) {
		char reg[64];
		if (operand_reg(in->ops[k], reg, sizeof reg)) {
			int r = reg_slot(m->p, reg);
			if (r < m->p->nregs && m->p->wg_slot[r])
				t->wg_seen[r] = pc + 1;
		}
	}
}

/* a wgmma.mma_async of warpgroup wgi reads accumulator or A registers a
 * thread accessed since the warpgroup's last wgmma.fence, or no fence ran
 * (PTX ISA, wgmma.fence: before the first wgmma, and between a register
 * access and a wgmma that accesses the same registers) */
static bool wg_unfenced(Machine *m, Thread **w, const Ins *in, int wgi)
{
	const Prog *p = m->p;
	int nacc;
	bool rs;
	int n = wg_reg_ops(in, &nacc, &rs);
	if (!m->wg_fenced[wgi]) {
		snprintf(m->errbuf, sizeof m->errbuf, "the wgmma.mma_async at PTX line %d (.tile line %d) runs before any "
		         "wgmma.fence of its warpgroup (the PTX ISA requires one before the first wgmma)", in->line,
		         in->tile_line);
		m->err = m->errbuf;
		return true;
	}
	for (int t = 0; t < 128; t++)
		for (int j = 0; j < n; j++) {
			int r = reg_slot(m->p, in->ops[j]), at = w[t]->wg_seen[r] - 1;
			if (at < 0)
				continue;
			snprintf(m->errbuf, sizeof m->errbuf, "the wgmma.mma_async at PTX line %d (.tile line %d) %s register %s, "
			         "which thread %lld accessed at PTX line %d (.tile line %d) after the last wgmma.fence: a "
			         "wgmma.fence belongs between them", in->line, in->tile_line,
			         j < nacc ? "accumulates into" : "reads A from", in->ops[j], (long long)local_tid(m, w[t]),
			         p->ins[at].line, p->ins[at].tile_line);
			m->err = m->errbuf;
			return true;
		}
	return false;
}

/* a wgmma.mma_async's registers meet those of one of its warpgroup's wgmmas
 * in flight: undefined (PTX ISA, wgmma.mma_async), except an accumulator
 * shared register for register by wgmmas of one shape (a chain), and A
 * registers that both only read */
static bool wg_meets_in_flight(Machine *m, const struct WgOp *op, const Ins *in)
{
	for (int q = 0; q < m->nwgq; q++) {
		const struct WgOp *o = &m->wgq[q];
		bool chain = o->w.n == op->w.n && o->w.k == op->w.k && o->w.dt == op->w.dt;
		for (int j = 0; o->wgi == op->wgi && j < op->w.nregs + (op->rs ? 4 : 0); j++) {
			int r = j < op->w.nregs ? op->slots[j] : op->aslots[j - op->w.nregs];
			for (int i = 0; i < o->w.nregs + (o->rs ? 4 : 0); i++) {
				int ro = i < o->w.nregs ? o->slots[i] : o->aslots[i - o->w.nregs];
				bool reads = j >= op->w.nregs && i >= o->w.nregs; /* both read it as A */
				if (r != ro || reads || (chain && i == j && j < op->w.nregs))
					continue;
				snprintf(m->errbuf, sizeof m->errbuf, "the wgmma.mma_async at PTX line %d (.tile line %d) uses register "
				         "%s, %s of the wgmma of .tile line %d, which is in flight: only a wgmma of the same shape may "
				         "accumulate into an in-flight accumulator; wgmma.wait first", in->line, in->tile_line,
				         m->p->regs[r], i < o->w.nregs ? "an accumulator register" : "an A register", o->line);
				m->err = m->errbuf;
				return true;
			}
		}
	}
	return false;
}

static void wg_fence(Machine *m, Thread **w, int wgi)
{
	m->wg_fenced[wgi] = true;
	for (int t = 0; t < 128; t++)
		for (int i = 0; i < m->p->nwg_slots; i++)
			w[t]->wg_seen[m->p->wg_slots[i]] = 0;
}

struct WgRd { Machine *m; int delta; };

/* the wgmma's operand pieces through the async proxy (async_read) */
struct WgProxy { Machine *m; int warps[4]; Thread *t; const Ins *in; };

static void wg_proxy(void *ctx, uint64_t a)
{
	struct WgProxy *c = ctx;
	if (!c->m->err && a < (uint64_t)c->m->win)
		async_read(c->m, c->warps, 4, a, 16, "wgmma", (int)(c->t - c->m->t), c->in);
}

static void wg_mark(void *ctx, uint64_t a)
{
	struct WgRd *c = ctx;
	uint64_t q = (uint64_t)c->m->cur * (uint64_t)c->m->win / 16 + a / 16;
	if (a < (uint64_t)c->m->win)
		c->m->wg_rd[q] = (uint16_t)(c->m->wg_rd[q] + c->delta);
}

/* the wgmma ops of warpgroup wgi in groups below `below` execute now */
static void wg_complete(Machine *m, Thread **w, int wgi, int64_t below)
{
	int keep = 0;
	uint32_t (*acc)[128] = malloc(sizeof(uint32_t) * 128 * 128), (*ar)[4] = malloc(sizeof(uint32_t) * 128 * 4);
	for (int i = 0; i < m->nwgq; i++) {
		struct WgOp *op = &m->wgq[i];
		if (op->wgi != wgi || op->group < 0 || op->group >= below || m->err) {
			m->wgq[keep++] = *op;
			continue;
		}
		for (int t = 0; t < 128; t++) {
			for (int j = 0; j < op->w.nregs; j++)
				acc[t][j] = (uint32_t)w[t]->r[op->slots[j]];
			for (int j = 0; j < 4 && op->rs; j++)
				ar[t][j] = (uint32_t)w[t]->r[op->aslots[j]];
		}
		const char *err = ptxemu_wgmma_run(&op->w, m->shared, m->win, acc, op->rs ? (const uint32_t (*)[4])ar : NULL);
		if (err) {
			m->err = err;
		} else {
			for (int t = 0; t < 128; t++)
				for (int j = 0; j < op->w.nregs; j++) {
					w[t]->r[op->slots[j]] = acc[t][j];
					w[t]->wg_busy[op->slots[j]]--;
					w[t]->wg_nbusy--;
				}
			for (int t = 0; t < 128 && op->rs; t++)
				for (int j = 0; j < 4; j++) {
					w[t]->wg_busy[op->aslots[j]]--;
					w[t]->wg_nbusy--;
				}
		}
		struct WgRd c = {m, -1};
		ptxemu_wgmma_reads(&op->w, op->rs, wg_mark, &c);
		free(op->slots);
	}
	m->nwgq = keep;
	free(acc);
	free(ar);
}

/* wgmma.*: warpgroup collectives (.sync.aligned), all 128 threads at once */
void wg_collective(Machine *m, Thread **w, Ins *in, int wgi)
{
	if (!strncmp(in->op, "wgmma.mma_async", 15)) {
		struct WgOp op = {.wgi = wgi, .line = in->tile_line, .group = -1};
		if (wg_unfenced(m, w, in, wgi))
			return;
		if (!ptxemu_wgmma_parse(in->op, &op.w) || in->nops < op.w.nregs + 4) {
			snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
			m->err = m->errbuf;
			return;
		}
		int r = op.w.nregs;
		/* A from registers: four words, then B's descriptor (SS has at most 7 operands after D, RS at least 8) */
		op.rs = in->nops - r >= 8;
		if (op.rs) {
			if (in->nops < r + 8) {
				snprintf(m->errbuf, sizeof m->errbuf, "wgmma (.tile line %d): too few operands", in->tile_line);
				m->err = m->errbuf;
				return;
			}
			for (int j = 0; j < 4; j++)
				op.aslots[j] = reg_slot(m->p, in->ops[r + j]);
			r += 3; /* the A words stand where the A descriptor stands in the SS form, plus three */
			op.w.tb = in->nops >= r + 6 && oval(m, w[0], &in->od[r + 5]) != 0;
		}
		op.w.da = op.rs ? 0 : oval(m, w[0], &in->od[r]);
		op.w.db = oval(m, w[0], &in->od[r + 1]);
		op.w.scale_d = oval(m, w[0], &in->od[r + 2]) != 0;
		if (!op.rs && in->nops >= r + 7) {
			op.w.ta = oval(m, w[0], &in->od[r + 5]) != 0;
			op.w.tb = oval(m, w[0], &in->od[r + 6]) != 0;
		}
		for (int t = 1; t < 128; t++)
			if ((!op.rs && oval(m, w[t], &in->od[r]) != op.w.da) || oval(m, w[t], &in->od[r + 1]) != op.w.db) {
				snprintf(m->errbuf, sizeof m->errbuf, "wgmma (.tile line %d): thread %d's descriptors differ from "
				         "thread 0's", in->tile_line, t);
				m->err = m->errbuf;
				return;
			}
		op.slots = malloc(sizeof(int) * (size_t)op.w.nregs);
		for (int j = 0; j < op.w.nregs; j++)
			op.slots[j] = reg_slot(m->p, in->ops[j]);
		if (wg_meets_in_flight(m, &op, in)) {
			free(op.slots);
			return;
		}
		for (int t = 0; t < 128; t++) {
			for (int j = 0; j < op.w.nregs; j++) {
				w[t]->wg_busy[op.slots[j]]++;
				w[t]->wg_nbusy++;
			}
			for (int j = 0; j < 4 && op.rs; j++) {
				w[t]->wg_busy[op.aslots[j]]++;
				w[t]->wg_nbusy++;
			}
		}
		struct WgProxy px = {m, {0}, w[0], in};
		for (int i = 0; i < 4; i++)
			px.warps[i] = (int)(local_tid(m, w[32 * i]) / 32);
		ptxemu_wgmma_reads(&op.w, op.rs, wg_proxy, &px);
		if (m->err) {
			free(op.slots);
			return;
		}
		struct WgRd c = {m, 1};
		ptxemu_wgmma_reads(&op.w, op.rs, wg_mark, &c);
		if (m->nwgq == m->wgqcap) {
			m->wgqcap = m->wgqcap ? 2 * m->wgqcap : 16;
			m->wgq = realloc(m->wgq, sizeof *m->wgq * (size_t)m->wgqcap);
		}
		m->wgq[m->nwgq++] = op;
	} else if (!strncmp(in->op, "wgmma.commit_group", 18)) {
		for (int i = 0; i < m->nwgq; i++)
			if (m->wgq[i].wgi == wgi && m->wgq[i].group < 0)
				m->wgq[i].group = m->wg_groups[wgi];
		m->wg_groups[wgi]++;
	} else if (!strncmp(in->op, "wgmma.wait_group", 16)) {
		wg_complete(m, w, wgi, m->wg_groups[wgi] - (int64_t)oval(m, w[0], &in->od[0]));
	} else if (!strncmp(in->op, "wgmma.fence", 11)) {
		wg_fence(m, w, wgi);
	} else {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
		m->err = m->errbuf;
		return;
	}
	for (int t = 0; t < 128; t++)
		w[t]->pc++;
}

/* shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask (PTX ISA,
 * shfl.sync): lane i reads a from lane j, or its own a where j leaves its
 * segment (p false). Every lane's sources are read before any d is written.
 * Full warps only: the membermask must name all 32 lanes */
static void shfl(Machine *m, Thread **w, Ins *in)
{
	int nd = in->nops - 4; /* d, or d and p */
	const char *mode = in->op + 10; /* after "shfl.sync." */
	if (nd < 1 || nd > 2) {
		snprintf(m->errbuf, sizeof m->errbuf, "'%s' (.tile line %d): %d operands", in->op, in->tile_line, in->nops);
		m->err = m->errbuf;
		return;
	}
	uint32_t src[32], d[32];
	bool p[32];
	for (int l = 0; l < 32; l++) {
		if ((uint32_t)oval(m, w[l], &in->od[nd + 3]) != 0xffffffffu) {
			snprintf(m->errbuf, sizeof m->errbuf, "'%s' (.tile line %d): membermask 0x%x in lane %d (the emulator "
			         "models the full warp, 0xffffffff, only)", in->op, in->tile_line,
			         (unsigned)oval(m, w[l], &in->od[nd + 3]), l);
			m->err = m->errbuf;
			return;
		}
		src[l] = (uint32_t)oval(m, w[l], &in->od[nd]);
	}
	for (int l = 0; l < 32; l++) {
		uint32_t b = (uint32_t)oval(m, w[l], &in->od[nd + 1]) & 31, c = (uint32_t)oval(m, w[l], &in->od[nd + 2]);
		uint32_t seg = c >> 8 & 31, maxl = ((uint32_t)l & seg) | (c & 31 & ~seg), minl = (uint32_t)l & seg;
		int64_t j;
		if (!strncmp(mode, "up.", 3)) {
			j = l - (int64_t)b;
			p[l] = j >= (int64_t)maxl;
		} else if (!strncmp(mode, "down.", 5)) {
			j = l + (int64_t)b;
			p[l] = j <= (int64_t)maxl;
		} else if (!strncmp(mode, "bfly.", 5)) {
			j = l ^ (int64_t)b;
			p[l] = j <= (int64_t)maxl;
		} else if (!strncmp(mode, "idx.", 4)) {
			j = minl | (b & ~seg);
			p[l] = j <= (int64_t)maxl;
		} else {
			snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
			m->err = m->errbuf;
			return;
		}
		d[l] = src[p[l] ? j : l];
	}
	for (int l = 0; l < 32; l++) {
		*oreg(m, w[l], &in->od[0]) = d[l];
		if (nd == 2)
			*oreg(m, w[l], &in->od[1]) = p[l];
	}
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a (PTX ISA, movmatrix): lane l
 * holds row l/4, columns 2(l%4) and 2(l%4)+1 of an 8x8 b16 matrix (the
 * lower column in the low half); d is the same fragment of the transpose,
 * so d's half j in lane l is element [2(l%4) + j][l/4], which lane
 * 4(2(l%4) + j) + (l/4)/2 holds in half (l/4)%2 */
static void movmatrix(Machine *m, Thread **w, Ins *in)
{
	if (strcmp(in->op, "movmatrix.sync.aligned.m8n8.trans.b16") || in->nops != 2) {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", in->op);
		m->err = m->errbuf;
		return;
	}
	uint32_t src[32];
	for (int l = 0; l < 32; l++)
		src[l] = (uint32_t)oval(m, w[l], &in->od[1]);
	for (int l = 0; l < 32; l++) {
		uint32_t d = 0;
		for (int j = 0; j < 2; j++) {
			int from = 4 * (2 * (l % 4) + j) + (l / 4) / 2, half = (l / 4) % 2;
			d |= (src[from] >> (16 * half) & 0xffffu) << (16 * j);
		}
		*oreg(m, w[l], &in->od[0]) = d;
	}
}

void collective(Machine *m, Thread **w, Ins *in)
{
	m->acc_warp = warp_of(m, w[0]); /* the warp's accesses, for race tracking */
	m->acc_tid = (int)(w[0] - m->t);
	m->acc_line = in->tile_line;
	m->acc_write = !strncmp(in->op, "stmatrix", 8) || !strncmp(in->op, "tcgen05.alloc", 13);
	for (int t = 0; t < 32 && in->wg_reg; t++)
		wg_access(m, w[t], in, (int)(in - m->p->ins));
	if (!strncmp(in->op, "mma.sync", 8)) {
		mma(m, w, in);
	} else if (!strncmp(in->op, "ldmatrix", 8) || !strncmp(in->op, "stmatrix", 8)) {
		matrix(m, w, in);
	} else if (!strncmp(in->op, "tcgen05.ld.", 11) || !strncmp(in->op, "tcgen05.st.", 11)) {
		tcgen05(m, w, in);
	} else if (!strncmp(in->op, "shfl.sync.", 10)) {
		shfl(m, w, in);
	} else if (!strncmp(in->op, "movmatrix.", 10)) {
		movmatrix(m, w, in);
	} else if (!strncmp(in->op, "tcgen05.alloc", 13)) {
		/* one allocation: base address 0 (lane 0, column 0) into the slot */
		unsigned char *p = mem(m, true, oaddr(m, w[0], &in->od[0]), 4);
		if (p)
			memset(p, 0, 4);
	}
	m->acc_warp = -1;
	for (int t = 0; t < 32; t++)
		w[t]->pc++;
}
