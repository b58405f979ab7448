/* Operands and memory: register and operand values, addresses, the shared
 * and global bytes an access touches, with the checks an access makes on
 * the way (bounds, races between warps through the per-byte shadow, copies
 * still in flight), and cp.async copies landing. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

uint64_t *R(Machine *m, Thread *t, const char *name)
{
	return &t->r[reg_slot(m->p, name)];
}

uint64_t val(Machine *m, Thread *t, const char *s)
{
	if (s[0] == '%') {
		if (!strcmp(s, "%tid.x"))
			return (uint64_t)local_tid(m, t);
		if (!strcmp(s, "%ctaid.x"))
			return (uint64_t)(m->base_x + rank_of(m, t) % m->cx);
		if (!strcmp(s, "%ctaid.y"))
			return (uint64_t)(m->base_y + rank_of(m, t) / m->cx);
		if (!strcmp(s, "%nctaid.x"))
			return (uint64_t)m->k->grid;
		if (!strcmp(s, "%nctaid.y"))
			return (uint64_t)m->k->grid_y;
		if (!strcmp(s, "%cluster_ctarank"))
			return (uint64_t)rank_of(m, t);
		if (!strcmp(s, "%cluster_nctarank"))
			return (uint64_t)m->nranks;
		return *R(m, t, s);
	}
	if (s[0] == '0' && strchr("fFdD", s[1]) && s[1]) /* 0fXXXXXXXX, 0dX{16}: a float's bits */
		return (uint64_t)strtoull(s + 2, NULL, 16);
	if (isdigit((unsigned char)s[0]) || s[0] == '-')
		return (uint64_t)strtoll(s, NULL, 0);
	for (int i = 0; i < m->p->nnamed; i++)
		if (!strcmp(m->p->named[i], s))
			return *R(m, t, s);
	for (int i = 0; i < m->p->nsyms; i++)
		if (!strcmp(m->p->syms[i], s))
			return (uint64_t)m->p->sym_off[i] |
			       (m->nranks > 1 ? (uint64_t)rank_of(m, t) << SHARED_RANK_SHIFT : 0);
	for (int i = 0; i < m->p->nparams; i++)
		if (!strcmp(m->p->params[i], s))
			return (uint64_t)i;
	for (int i = 0; i < m->p->ntmaps; i++)
		if (!strcmp(m->p->tmaps[i], s))
			return TMAP_TAG | (uint64_t)i;
	snprintf(m->errbuf, sizeof m->errbuf, "unknown operand '%s'", s);
	m->err = m->errbuf;
	return 0;
}

/* the declared width of register name in bits; 0 when it is no declared register */
int reg_bits(const Prog *p, const char *name)
{
	for (int i = p->nrdecl - 1; i >= 0; i--) { /* the latest declaration (an asm block's scope) first */
		const struct RegDecl *d = &p->rdecl[i];
		size_t n = strlen(d->name);
		if (!strncmp(name, d->name, n) &&
		    (d->prefix ? name[n] && strspn(name + n, "0123456789") == strlen(name + n) : !name[n]))
			return d->bits;
	}
	return 0;
}

#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"

/* ptxas rejects a module that uses a register it never declared (a
 * predicate %p0 with no ".reg .pred %p<N>"): so does the emulator */
const char *undeclared_reg(const Prog *p)
{
	for (int i = 0; i < p->nregs; i++)
		if (p->regs[i][0] == '%' && strspn(p->regs[i] + 1, IDENT_CHARS) == strlen(p->regs[i] + 1) &&
		    !reg_bits(p, p->regs[i])) /* a name, not the text of a composite operand ("[%rd4, {%r1, %r2}]") */
			return p->regs[i];
	return NULL;
}

/* "[%r5+16]", "[%r5+-16]" or "[sym]" -> address. A 32-bit base register
 * wraps at 2^32 with its offset, as the hardware computes .shared addresses
 * (32-bit): [%r+128] with %r at -32 is byte 96, not byte 2^32 + 96 */
/* a 32-bit shared address: a mapa result as it is, else the offset in
 * this CTA's window (its rank bits stripped; another CTA's is an error) */
uint64_t shared_cta_offset(Machine *m, Thread *t, uint32_t a)
{
	if (a & MAPA_TAG || m->nranks <= 1)
		return a;
	uint32_t r = a >> SHARED_RANK_SHIFT;
	if (r && r != (uint32_t)rank_of(m, t)) {
		snprintf(m->errbuf, sizeof m->errbuf, "a shared::cta address 0x%x of CTA rank %u used in CTA rank %d",
		         (unsigned)a, (unsigned)r, rank_of(m, t));
		m->err = m->errbuf;
	}
	return a & ((1u << SHARED_RANK_SHIFT) - 1);
}

uint64_t addr(Machine *m, Thread *t, const char *s)
{
	s += s[0] == '[';
	size_t n = strcspn(s, "]"), cut = n;
	for (size_t i = 1; i < n && cut == n; i++)
		if (s[i] == '+' || s[i] == '-')
			cut = i;
	char small[128], *base = cut < sizeof small ? small : malloc(cut + 1); /* names of any length */
	if (!base) {
		m->err = "out of memory";
		return 0;
	}
	memcpy(base, s, cut);
	base[cut] = 0;
	int64_t off = 0;
	if (cut < n)
		off = strtoll(s + cut + (s[cut] == '+' && s[cut + 1] == '-'), NULL, 0);
	uint64_t a = val(m, t, base) + (uint64_t)off;
	/* a 32-bit register or a shared symbol: a shared address (a symbol is
	 * looked for only in a cluster, where its address carries the rank) */
	int bits = reg_bits(m->p, base);
	bool sym = false;
	for (int i = 0; !bits && m->nranks > 1 && i < m->p->nsyms && !sym; i++)
		sym = !strcmp(m->p->syms[i], base);
	if (bits == 32 || sym)
		a = shared_cta_offset(m, t, (uint32_t)a);
	if (base != small)
		free(base);
	return a;
}

/* a shared access of warp acc_warp against the last write of each byte: a
 * write by another warp, by another statement, not ordered before it (a
 * barrier both took part in, an mbarrier phase: ptxemu_sync.h) is a race
 * (RAW, WAW); and a write against the reads since: a read by another warp,
 * from another statement, not ordered before it is a race too (WAR) */
static bool shadow_access(Machine *m, uint64_t a, int bytes)
{
	int me = m->acc_warp % 64, rank = m->cur;
	uint32_t now = sync_stamp(m->sync, rank, me);
	uint64_t at = (uint64_t)(m->shadow - m->shadow_all) + a, total = (uint64_t)(m->win * m->nranks) + 1;
	for (uint64_t c = at / SHADOW_CHUNK; bytes > 0 && c <= (at + (uint64_t)bytes - 1) / SHADOW_CHUNK; c++)
		if (m->shadow_epoch[c] != m->epoch) { /* its first access since the launch: the reset state */
			for (uint64_t j = c * SHADOW_CHUNK; j < (c + 1) * SHADOW_CHUNK && j < total; j++) {
				m->shadow_all[j] = (struct Shadow){-1, 0, 0, {-1, -1, -1}, {0, 0, 0}, {0, 0, 0}};
				if (m->proxy_all)
					m->proxy_all[j].gtid = -1;
			}
			m->shadow_epoch[c] = m->epoch;
		}
	struct ProxyShadow *px = m->proxy_all ? m->proxy_all + at : NULL,
	                   pw = {m->acc_tid, m->acc_tid >= 0 ? m->t[m->acc_tid].fences : 0};
	for (int i = 0; i < bytes; i++) {
		struct Shadow *s = &m->shadow[a + (uint64_t)i];
		/* one statement's scope instances (every warp of a warp-scope copy) write
		 * the same values: not a race between statements */
		if (s->warp >= 0 && s->warp != m->acc_warp && s->line != m->acc_line &&
		    !sync_ordered(m->sync, rank, me, s->warp % 64, s->stamp)) {
			snprintf(m->errbuf, sizeof m->errbuf, "race: warp %d wrote shared memory at 0x%llx (.tile line %d) and warp "
			         "%d %s it (.tile line %d) with no sync between", s->warp, (unsigned long long)(a + (uint64_t)i),
			         s->line, m->acc_warp, m->acc_write ? "writes" : "reads", m->acc_line);
			m->err = m->errbuf;
			return false;
		}
		if (m->acc_write) {
			for (int r = 0; r < 3; r++)
				if (s->rwarp[r] >= 0 && s->rwarp[r] != m->acc_warp && s->rline[r] != m->acc_line &&
				    !sync_ordered(m->sync, rank, me, s->rwarp[r] % 64, s->rstamp[r])) {
					snprintf(m->errbuf, sizeof m->errbuf, "race: warp %d read shared memory at 0x%llx (.tile line %d) "
					         "and warp %d then writes it (.tile line %d) with no sync between", s->rwarp[r],
					         (unsigned long long)(a + (uint64_t)i), s->rline[r], m->acc_warp, m->acc_line);
					m->err = m->errbuf;
					return false;
				}
			/* later accesses are ordered after the reads when they are after this write */
			s->warp = m->acc_warp, s->line = m->acc_line, s->stamp = now;
			if (px)
				px[i] = pw;
			s->rwarp[0] = s->rwarp[1] = s->rwarp[2] = -1;
		} else {
			/* keep the reads this one does not order (a later write ordered after
			 * this read is after them too), this warp's latest first */
			int k = 0;
			int32_t w[3], l[3];
			uint32_t st[3];
			for (int r = 0; r < 3; r++)
				if (s->rwarp[r] >= 0 && s->rwarp[r] != m->acc_warp &&
				    !sync_ordered(m->sync, rank, me, s->rwarp[r] % 64, s->rstamp[r]))
					w[k] = s->rwarp[r], l[k] = s->rline[r], st[k++] = s->rstamp[r];
			s->rwarp[0] = m->acc_warp, s->rline[0] = m->acc_line, s->rstamp[0] = now;
			for (int r = 1; r < 3; r++) /* past three unordered readers the oldest is forgotten */
				s->rwarp[r] = r - 1 < k ? w[r - 1] : -1, s->rline[r] = r - 1 < k ? l[r - 1] : 0,
				s->rstamp[r] = r - 1 < k ? st[r - 1] : 0;
		}
	}
	return true;
}

/* global pointers: param i lives at (i + 1) << 40 */
unsigned char *mem(Machine *m, bool shared, uint64_t a, int bytes)
{
	if (shared) {
		if (a + (uint64_t)bytes > (uint64_t)m->p->shared_bytes) {
			m->err = "shared access out of bounds";
			return NULL;
		}
		if (m->acc_warp >= 0 && !shadow_access(m, a, bytes))
			return NULL;
		if (m->acc_warp >= 0 && m->acc_write && m->wg_rd)
			for (uint64_t q = a / 16; q * 16 < a + (uint64_t)bytes; q++)
				if (m->wg_rd[(uint64_t)m->cur * (uint64_t)m->win / 16 + q]) {
					int line = 0;
					for (int i = 0; i < m->nwgq; i++)
						if (m->wgq[i].wgi / 8 == m->cur)
							line = m->wgq[i].line;
					snprintf(m->errbuf, sizeof m->errbuf, "race: shared memory at 0x%llx is written (.tile line %d) "
					         "while the wgmma (.tile line %d) that reads it is in flight: wgmma.commit and "
					         "wgmma.wait first", (unsigned long long)a, m->acc_line, line);
					m->err = m->errbuf;
					return NULL;
				}
		int stid, sline;
		if (m->acc_warp >= 0 && m->acc_write &&
		    tma_store_reading(m->tma, &m->env, a + (uint64_t)m->cur * (uint64_t)m->win, bytes, &stid, &sline)) {
			snprintf(m->errbuf, sizeof m->errbuf, "race: shared memory at 0x%llx is written (.tile line %d) while the "
			         "bulk store of thread %d (.tile line %d) still reads it: wait for its group (bulk.commit, "
			         "bulk.wait_read) and sync first", (unsigned long long)a, m->acc_line, stid, sline);
			m->err = m->errbuf;
			return NULL;
		}
		/* a race with a cp.async of this CTA still in flight (the addresses
		 * first: the CTA's division is the costly test, over many copies);
		 * none when no copy in flight covers the bytes' 16-byte pieces */
		bool covered = false;
		for (uint64_t g = ((uint64_t)m->cur * (uint64_t)m->win + a) / 16;
		     bytes > 0 && !covered && g <= ((uint64_t)m->cur * (uint64_t)m->win + a + (uint64_t)bytes - 1) / 16; g++)
			covered = m->cpa_cover[g] != 0;
		for (int i = 0; covered && i < m->ncpa; i++)
			if (a < m->cpa[i].dst + (uint64_t)m->cpa[i].bytes && m->cpa[i].dst < a + (uint64_t)bytes && m->cpa[i].tid / m->threads == m->cur) {
				snprintf(m->errbuf, sizeof m->errbuf, "shared memory at 0x%llx is accessed while the cp.async of "
				         "thread %d (.tile line %d, PTX line %d) that writes it is still in flight: wait for its group "
				         "(cp_async.commit, cp_async.wait) and sync first", (unsigned long long)a, m->cpa[i].tid,
				         m->cpa[i].in->tile_line, m->cpa[i].in->line + 1);
				m->err = m->errbuf;
				return NULL;
			}
		return m->shared + a;
	}
	uint64_t i = (a >> 40) - 1, off = a & ((1ull << 40) - 1);
	if (i >= (uint64_t)m->p->nparams || off + (uint64_t)bytes > m->param_bytes[i]) {
		m->err = "global access out of bounds";
		return NULL;
	}
	if (m->p->has_red && m->acc_warp >= 0 && !red_global_access(m, i, off, bytes, false, m->acc_tid))
		return NULL;
	unsigned char *g = m->param_mem[i] + off;
	for (int c = 0; m->acc_warp >= 0 && m->acc_write && c < m->ncpa; c++) /* a cp.async in flight still reads it */
		if (g < m->cpa[c].src + m->cpa[c].bytes && m->cpa[c].src < g + bytes) {
			snprintf(m->errbuf, sizeof m->errbuf, "race: global memory is written (.tile line %d) while the cp.async "
			         "of thread %d (.tile line %d, PTX line %d) that reads it is still in flight: wait for its group "
			         "(cp_async.commit, cp_async.wait) first", m->acc_line, m->cpa[c].tid, m->cpa[c].in->tile_line,
			         m->cpa[c].in->line + 1);
			m->err = m->errbuf;
			return NULL;
		}
	return g;
}

void track(Machine *m, const Thread *t, const Ins *in, bool write)
{
	if (m->banks && strstr(in->op, ".shared")) {
		int tid = (int)(t - m->t), pc = (int)(in - m->p->ins);
		int64_t *o = &m->occ[(int64_t)tid * m->p->n + pc];
		bank_record(m, tid, pc, (*o)++, oaddr(m, (Thread *)t, &in->od[write ? 0 : in->nops - 1]), width_of(in->op));
	}
	m->acc_warp = warp_of(m, t);
	m->acc_line = in->tile_line;
	m->acc_write = write;
	m->acc_tid = (int)(t - m->t);
}

/* the program has an instruction that reads shared memory through the
 * async proxy: a TMA or bulk store, a wgmma */
bool has_async_reader(const Prog *p)
{
	for (int i = 0; i < p->n; i++) {
		const char *op = p->ins[i].op;
		if (!strncmp(op, "wgmma.mma_async", 15) || !strncmp(op, "cp.async.bulk.global.shared::cta", 32) ||
		    (!strncmp(op, "cp.async.bulk.tensor.", 21) && strstr(op, ".global.shared::cta")))
			return true;
	}
	return false;
}

/* an async-proxy read (a TMA or bulk store's source, a wgmma's operands) of
 * this CTA's shared bytes [a, a + bytes), issued by thread tid (warps
 * readers[], the local warps that issue it; ordered after any one of them
 * is after the issue). The PTX ISA's proxies: a generic write (st.shared,
 * stmatrix, cp.async) reaches the async proxy only through a
 * fence.proxy.async of the writing thread after it, and that fence must be
 * ordered before the issue (program order, or a barrier: ptxemu_sync.h). So
 * per byte the last generic writer and its fence count then (the shadow):
 * its first fence after the write is fence number gfence, whose stamp is
 * kept while it is among the thread's latest four (past that a later fence
 * stands for it: ordered, it orders the first too; else it proves nothing
 * and the read is let be) */
bool async_read(Machine *m, const int *readers, int nreaders, uint64_t a, uint64_t bytes, const char *what,
                int tid, const Ins *in)
{
	uint64_t base = (uint64_t)(m->shadow - m->shadow_all);
	if (!m->proxy_all || a + bytes > (uint64_t)m->p->shared_bytes) /* the copy reports the latter */
		return true;
	for (uint64_t i = 0; i < bytes; i++) {
		uint64_t c = (base + a + i) / SHADOW_CHUNK;
		if (m->shadow_epoch[c] != m->epoch) { /* untouched this launch: skip the chunk */
			i = (c + 1) * SHADOW_CHUNK - base - a - 1;
			continue;
		}
		const struct Shadow *s = &m->shadow[a + i];
		const struct ProxyShadow *g = &m->proxy_all[base + a + i];
		if (g->gtid < 0)
			continue;
		const Thread *w = &m->t[g->gtid];
		uint32_t n = w->fences - g->gfence; /* fences since the write */
		bool ordered = n > 4;
		for (int r = 0; r < nreaders && n && !ordered; r++)
			ordered = readers[r] == s->warp % 64 ||
			          sync_ordered(m->sync, m->cur, readers[r], s->warp % 64, w->fence_stamp[g->gfence % 4]);
		if (ordered)
			continue;
		snprintf(m->errbuf, sizeof m->errbuf, "async proxy: thread %d wrote shared memory at 0x%llx (.tile line %d) "
		         "through the generic proxy and the %s of thread %d (.tile line %d, PTX line %d) reads it through the "
		         "async proxy %s: fence.proxy.async after the write, then sync", g->gtid % (int)m->threads,
		         (unsigned long long)(a + i), s->line, what, tid % (int)m->threads, in->tile_line, in->line + 1,
		         n ? "with the writer's fence.proxy.async not ordered before it" : "with no fence.proxy.async of the "
		         "writer between");
		m->err = m->errbuf;
		return false;
	}
	return true;
}

/* count copy c in (delta 1) or out of (-1) the pieces it writes */
void cpa_cover(Machine *m, const struct Cpa *c, int delta)
{
	uint64_t at = (uint64_t)(c->tid / m->threads) * (uint64_t)m->win + c->dst;
	for (uint64_t g = at / 16; c->bytes > 0 && g <= (at + (uint64_t)c->bytes - 1) / 16; g++)
		m->cpa_cover[g] += (uint32_t)delta;
}

/* thread tid's cp.async copies of groups below `below` (uncommitted ones
 * too when below is INT64_MAX: wait_all, thread exit) land in shared memory */
void cpa_land(Machine *m, int tid, int64_t below)
{
	int k = 0;
	for (int i = 0; i < m->ncpa; i++) {
		struct Cpa *c = &m->cpa[i];
		bool due = c->tid == tid && (below == INT64_MAX || (c->group >= 0 && c->group < below));
		if (due) {
			cpa_cover(m, c, -1);
			memcpy(m->shared + c->dst, c->src, (size_t)c->bytes);
			/* the data is the issuing warp's write, visible to other warps after a
			 * sync: checked against the epoch's reads and writes as it lands */
			int aw = m->acc_warp, al = m->acc_line;
			bool awr = m->acc_write;
			int atid = m->acc_tid;
			m->acc_warp = warp_of(m, &m->t[tid]), m->acc_line = c->in->tile_line, m->acc_write = true;
			m->acc_tid = tid;
			if (!m->err)
				shadow_access(m, c->dst, c->bytes);
			m->acc_warp = aw, m->acc_line = al, m->acc_write = awr, m->acc_tid = atid;
		}
		else
			m->cpa[k++] = *c;
	}
	m->ncpa = k;
}

uint16_t get16(Machine *m, uint64_t a)
{
	unsigned char *p = mem(m, true, a, 2);
	uint16_t v = 0;
	if (p)
		memcpy(&v, p, 2);
	return v;
}

void put16(Machine *m, uint64_t a, uint16_t v)
{
	unsigned char *p = mem(m, true, a, 2);
	if (p)
		memcpy(p, &v, 2);
}

uint8_t get8(Machine *m, uint64_t a)
{
	unsigned char *p = mem(m, true, a, 1);
	return p ? *p : 0;
}

/* ---- operands decoded once (Opnd): the same answers as val and addr ---- */

static const char *const special_names[] = {"%tid.x", "%ctaid.x", "%ctaid.y", "%nctaid.x", "%nctaid.y",
                                            "%cluster_ctarank", "%cluster_nctarank"};

/* what val reads from text s: kind, slot, imm (OD_TEXT: val itself, its error included) */
static void decode_value(const Prog *p, const char *s, uint8_t *kind, int32_t *slot, int64_t *imm)
{
	*kind = OD_TEXT;
	if (s[0] == '%') {
		for (int i = 0; i < (int)(sizeof special_names / sizeof *special_names); i++)
			if (!strcmp(s, special_names[i])) {
				*kind = OD_SPECIAL, *slot = i;
				return;
			}
		if ((*slot = reg_find(p, s)) >= 0)
			*kind = OD_REG;
		return;
	}
	if (s[0] == '0' && strchr("fFdD", s[1]) && s[1]) {
		*kind = OD_IMM, *imm = (int64_t)strtoull(s + 2, NULL, 16);
		return;
	}
	if (isdigit((unsigned char)s[0]) || s[0] == '-') {
		*kind = OD_IMM, *imm = strtoll(s, NULL, 0);
		return;
	}
	for (int i = 0; i < p->nnamed; i++)
		if (!strcmp(p->named[i], s)) {
			if ((*slot = reg_find(p, s)) >= 0)
				*kind = OD_REG;
			return;
		}
	for (int i = 0; i < p->nsyms; i++)
		if (!strcmp(p->syms[i], s)) {
			*kind = OD_SYM, *imm = p->sym_off[i];
			return;
		}
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i], s)) {
			*kind = OD_PARAM, *imm = i;
			return;
		}
	for (int i = 0; i < p->ntmaps; i++)
		if (!strcmp(p->tmaps[i], s)) {
			*kind = OD_TMAP, *imm = i;
			return;
		}
}

/* what addr reads from text s ("[base+off]", "[base]" or a bare base) */
static void decode_address(const Prog *p, const char *s, Opnd *o)
{
	s += s[0] == '[';
	size_t n = strcspn(s, "]"), cut = n;
	for (size_t i = 1; i < n && cut == n; i++)
		if (s[i] == '+' || s[i] == '-')
			cut = i;
	char *base = strndup(s, cut);
	if (!base) {
		o->akind = OD_TEXT;
		return;
	}
	o->aoff = cut < n ? strtoll(s + cut + (s[cut] == '+' && s[cut + 1] == '-'), NULL, 0) : 0;
	decode_value(p, base, &o->akind, &o->aslot, &o->aimm);
	int bits = reg_bits(p, base);
	o->a32 = bits == 32;
	for (int i = 0; !bits && i < p->nsyms && !o->asym; i++)
		o->asym = !strcmp(p->syms[i], base);
	free(base);
}

void decode_operands(Prog *p)
{
	for (int i = 0; i < p->n; i++) {
		Ins *in = &p->ins[i];
		in->od = calloc((size_t)in->nops + 1, sizeof *in->od);
		if (!in->od)
			abort(); /* out of memory at load, as strdup's callers do */
		for (int k = 0; k < in->nops; k++) {
			Opnd *o = &in->od[k];
			o->text = in->ops[k];
			decode_value(p, o->text, &o->kind, &o->slot, &o->imm);
			decode_address(p, o->text, o);
			o->fimm = ptxemu_float_immediate(o->text, &o->fbits);
			o->label = -1;
			for (int l = 0; l < p->nlabels && o->label < 0; l++)
				if (!strcmp(p->labels[l], o->text))
					o->label = p->label_pc[l];
			o->scalar = scalar_param(p, o->text);
		}
	}
}

static uint64_t decoded(Machine *m, Thread *t, uint8_t kind, int32_t slot, int64_t imm)
{
	switch (kind) {
	case OD_REG: return t->r[slot];
	case OD_IMM: return (uint64_t)imm;
	case OD_SYM: return (uint64_t)imm | (m->nranks > 1 ? (uint64_t)rank_of(m, t) << SHARED_RANK_SHIFT : 0);
	case OD_PARAM: return (uint64_t)imm;
	case OD_TMAP: return TMAP_TAG | (uint64_t)imm;
	default: break;
	}
	switch (slot) { /* OD_SPECIAL */
	case SP_TID_X: return (uint64_t)local_tid(m, t);
	case SP_CTAID_X: return (uint64_t)(m->base_x + rank_of(m, t) % m->cx);
	case SP_CTAID_Y: return (uint64_t)(m->base_y + rank_of(m, t) / m->cx);
	case SP_NCTAID_X: return (uint64_t)m->k->grid;
	case SP_NCTAID_Y: return (uint64_t)m->k->grid_y;
	case SP_CTARANK: return (uint64_t)rank_of(m, t);
	default: return (uint64_t)m->nranks;
	}
}

uint64_t oval(Machine *m, Thread *t, const Opnd *o)
{
	return o->kind == OD_TEXT ? val(m, t, o->text) : decoded(m, t, o->kind, o->slot, o->imm);
}

uint64_t *oreg(Machine *m, Thread *t, const Opnd *o)
{
	return o->kind == OD_REG ? &t->r[o->slot] : R(m, t, o->text);
}

uint64_t oaddr(Machine *m, Thread *t, const Opnd *o)
{
	if (o->akind == OD_TEXT)
		return addr(m, t, o->text);
	uint64_t a = decoded(m, t, o->akind, o->aslot, o->aimm) + (uint64_t)o->aoff;
	if (o->a32 || (o->asym && m->nranks > 1))
		a = shared_cta_offset(m, t, (uint32_t)a);
	return a;
}
