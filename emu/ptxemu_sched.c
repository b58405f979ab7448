/* The scheduler: a cluster's CTAs run together, thread by thread until each
 * blocks; then warps at named barriers, elect.sync and setmaxnreg,
 * warpgroup and warp collectives, TMA loads landing when all wait; a hang
 * described with every instruction threads wait at. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

/* the running thread's CTA: its shared window, shadow and tensor memory */
void set_cta(Machine *m, int rank)
{
	m->cur = rank;
	m->shared = m->shared_all + (int64_t)rank * m->win;
	m->shadow = m->shadow_all + (int64_t)rank * m->win;
	m->tmem = m->tmem_all + (int64_t)rank * 128 * TMEM_COLS;
}

/* the lanes of warp wi of CTA r that have not exited, into lane[]; *same:
 * they all stand at one instruction, *pc */
static int warp_lanes(Machine *m, int r, int wi, Thread **lane, int *pc, bool *same)
{
	int n = 0;
	*same = true;
	*pc = -1;
	for (int64_t i = wi * 32; i < wi * 32 + 32 && i < m->threads; i++) {
		Thread *t = &m->t[r * m->threads + i];
		if (t->done)
			continue;
		if (*pc < 0)
			*pc = t->pc;
		*same &= t->pc == *pc;
		lane[n++] = t;
	}
	return n;
}

/* the waiting warps in `warps` (a mask) of CTA r go on past their bar.sync */
static void bar_release(Machine *m, int r, uint32_t warps)
{
	for (int wi = 0; wi < SYNC_MAXWARPS; wi++)
		if (warps >> wi & 1)
			for (int64_t i = wi * 32; i < wi * 32 + 32 && i < m->threads; i++)
				if (!m->t[r * m->threads + i].done)
					m->t[r * m->threads + i].pc++;
}

/* a warp whose lanes all stand at a named barrier arrives (bar is .aligned:
 * as a whole, 32 threads) */
static bool named_bar(Machine *m, int r, int wi, Thread **lane, int nl, Ins *in)
{
	int id;
	if (sync_bar_waiting(m->sync, r, wi, &id))
		return false; /* arrived, waits for the instance */
	int64_t bid = (int64_t)oval(m, lane[0], &in->od[0]), count = in->nops > 1 ? (int64_t)oval(m, lane[0], &in->od[1]) : 0;
	for (int k = 1; k < nl; k++)
		if ((int64_t)oval(m, lane[k], &in->od[0]) != bid ||
		    (in->nops > 1 && (int64_t)oval(m, lane[k], &in->od[1]) != count)) {
			snprintf(m->errbuf, sizeof m->errbuf, "%s (.tile line %d): the lanes of warp %d give different barrier "
			         "ids or counts (bar is .aligned: one value per warp)", in->op, in->tile_line, wi);
			m->err = m->errbuf;
			return false;
		}
	if (bid < 0 || bid >= SYNC_NBAR || (in->nops > 1 && (count <= 0 || count % 32))) {
		snprintf(m->errbuf, sizeof m->errbuf, "%s %lld%s%lld (.tile line %d): %s", in->op, (long long)bid,
		         in->nops > 1 ? ", " : "", in->nops > 1 ? (long long)count : 0LL, in->tile_line,
		         bid < 0 || bid >= SYNC_NBAR ? "the barrier id is not in 0..15" : "the thread count is not a positive multiple of 32");
		m->err = m->errbuf;
		return false;
	}
	bool wait = !strncmp(in->op, "bar.sync", 8) || !strncmp(in->op, "barrier.sync", 12), done;
	uint32_t released;
	if (!sync_bar_arrive(m->sync, r, wi, (int)bid, count, wait, in->tile_line, (int)(in - m->p->ins), &done, &released,
	                     m->errbuf, sizeof m->errbuf)) {
		m->err = m->errbuf;
		return false;
	}
	if (!wait)
		for (int k = 0; k < nl; k++)
			lane[k]->pc++;
	bar_release(m, r, released);
	return true;
}

/* elect.sync d|p, membermask: every lane of the mask executes it together;
 * p is true in one of them. The PTX ISA says only that the choice is
 * deterministic for a mask; the emulator elects the lowest lane of the mask
 * (tests/gpu/roles_elect.tile checks that on the H100) and d is its lane id */
static bool elect(Machine *m, int wi, Thread **lane, int nl)
{
	Thread *first = NULL;
	for (int k = 0; k < nl && !first; k++)
		if (!strncmp(m->p->ins[lane[k]->pc].op, "elect.sync", 10))
			first = lane[k];
	if (!first)
		return false;
	Ins *in = &m->p->ins[first->pc];
	uint32_t mask = (uint32_t)oval(m, first, &in->od[in->nops - 1]), at = 0, live = 0;
	for (int k = 0; k < nl; k++) {
		int l = (int)(local_tid(m, lane[k]) % 32);
		live |= 1u << l;
		if (lane[k]->pc == first->pc)
			at |= 1u << l;
	}
	if ((at & ~mask) || (mask & ~live)) {
		int l = __builtin_ctz((at & ~mask) ? at & ~mask : mask & ~live);
		snprintf(m->errbuf, sizeof m->errbuf, "elect.sync (.tile line %d): lane %d of warp %d %s the membermask "
		         "0x%08x", in->tile_line, l, wi, (at & ~mask) ? "executes it but is not in" : "has exited but is in", mask);
		m->err = m->errbuf;
		return false;
	}
	if (at != mask)
		return false; /* lanes of the mask still to come */
	if (in->nops != 3 || !mask) { /* the reader splits "d|p" into two operands */
		snprintf(m->errbuf, sizeof m->errbuf, "elect.sync (.tile line %d): expected 'd|p, membermask' with a mask "
		         "that is not 0", in->tile_line);
		m->err = m->errbuf;
		return false;
	}
	const char *d = in->ops[0], *p = in->ops[1];
	int leader = __builtin_ctz(mask), pc = first->pc;
	for (int k = 0; k < nl; k++) {
		if (lane[k]->pc != pc)
			continue;
		if (strcmp(d, "_"))
			*R(m, lane[k], d) = (uint64_t)leader;
		*R(m, lane[k], p) = local_tid(m, lane[k]) % 32 == leader;
		lane[k]->pc++;
	}
	return true;
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 N: a warpgroup collective (every
 * thread of the warpgroup executes the same one) that only moves registers
 * between the warpgroup and the CTA's pool: checked, no effect on data.
 * N in 24..256, a multiple of 8; inc never lowers the warpgroup's budget, dec
 * never raises it (from the entry's .maxnreg at launch, when it has one); the
 * warpgroups' budgets fit the CTA's pool: .maxnreg x threads, else the 64K
 * register file (inc would wait for registers forever) */
static bool setmaxnreg(Machine *m, int r, int g)
{
	int64_t T = m->threads, g0 = r * T + g * 128;
	Thread *any = NULL;
	for (int64_t i = g0; i < r * T + T && i < g0 + 128 && !any; i++)
		if (!m->t[i].done && !strncmp(m->p->ins[m->t[i].pc].op, "setmaxnreg.", 11))
			any = &m->t[i];
	if (!any)
		return false;
	Ins *in = &m->p->ins[any->pc];
	const char *why = NULL;
	char buf[160];
	if ((g + 1) * 128 > T)
		why = "the CTA's threads do not fill its warpgroup";
	for (int64_t i = g0; !why && i < g0 + 128; i++) {
		Thread *t = &m->t[i];
		if (t->done) {
			snprintf(buf, sizeof buf, "thread %lld of the warpgroup has exited without it", (long long)(i - r * T));
			why = buf;
		} else if (!strncmp(m->p->ins[t->pc].op, "setmaxnreg.", 11) && t->pc != any->pc) {
			snprintf(buf, sizeof buf, "thread %lld of the warpgroup executes another setmaxnreg (.tile line %d)",
			         (long long)(i - r * T), m->p->ins[t->pc].tile_line);
			why = buf;
		} else if (t->pc != any->pc) {
			return false; /* still to come (or a hang the report names) */
		}
	}
	int64_t n = why ? 0 : (int64_t)oval(m, any, &in->od[0]);
	int wgi = r * 8 + g, cur = m->maxnreg[wgi];
	bool inc = strstr(in->op, ".inc") != NULL;
	if (!why && (n < 24 || n > 256 || n % 8)) {
		snprintf(buf, sizeof buf, "the register count %lld is not a multiple of 8 in 24..256", (long long)n);
		why = buf;
	} else if (!why && cur && (inc ? n < cur : n > cur)) {
		char from[48] = " (.maxnreg at launch)";
		if (m->maxnreg_line[wgi])
			snprintf(from, sizeof from, " (.tile line %d)", m->maxnreg_line[wgi]);
		snprintf(buf, sizeof buf, "%s the warpgroup's budget from %d%s to %lld", inc ? "inc lowers" : "dec raises", cur,
		         from, (long long)n);
		why = buf;
	}
	if (!why) {
		int64_t total = n * 128, pool = m->launch_maxnreg ? (int64_t)m->launch_maxnreg * m->threads : 65536;
		for (int h = 0; h * 128 < m->threads; h++)
			if (h != g && m->maxnreg[r * 8 + h])
				total += (int64_t)m->maxnreg[r * 8 + h] * 128;
		if (total > pool) {
			snprintf(buf, sizeof buf, "the warpgroups' budgets come to %lld registers, past the CTA's %lld (%s)",
			         (long long)total, (long long)pool, m->launch_maxnreg ? ".maxnreg x threads" : "the register file");
			why = buf;
		}
	}
	if (why) {
		snprintf(m->errbuf, sizeof m->errbuf, "%s (.tile line %d), warpgroup %d: %s", in->op, in->tile_line, g, why);
		m->err = m->errbuf;
		return false;
	}
	m->maxnreg[wgi] = (int)n;
	m->maxnreg_line[wgi] = in->tile_line;
	for (int64_t i = g0; i < g0 + 128; i++)
		m->t[i].pc++;
	return true;
}

/* named barriers, elect.sync and setmaxnreg of CTA r whose threads are there */
static bool role_sync(Machine *m, int r)
{
	bool progress = false;
	uint32_t live = 0;
	int nw = (int)((m->threads + 31) / 32);
	for (int wi = 0; wi < nw && !m->err; wi++) {
		Thread *lane[32];
		int pc;
		bool same;
		int nl = warp_lanes(m, r, wi, lane, &pc, &same);
		if (!nl)
			continue;
		live |= 1u << wi;
		if (same && is_named_bar(m->p->ins[pc].op))
			progress |= named_bar(m, r, wi, lane, nl, &m->p->ins[pc]);
		else
			progress |= elect(m, wi, lane, nl);
	}
	/* an instance of the whole CTA completes when every warp still running has arrived */
	for (int id = 0; id < SYNC_NBAR && !m->err; id++) {
		uint32_t rel = sync_bar_recheck(m->sync, r, id, live);
		bar_release(m, r, rel);
		progress |= rel != 0;
	}
	for (int g = 0; g * 128 < m->threads && !m->err; g++)
		progress |= setmaxnreg(m, r, g);
	return progress;
}

/* " (full[2])": the mbarrier declaration or shared buffer a shared address
 * lies in, in 8-byte units (a barrier's index), "" when none */
static void shared_name(const Machine *m, uint64_t a, char *buf, size_t n)
{
	buf[0] = 0;
	const char *name = NULL;
	int64_t off = -1, dyn = -1;
	for (int i = 0; i < m->p->nsyms; i++) /* static shared: NAME$sm (buffers), NAME$mb (mbarriers) */
		if (!strcmp(m->p->syms[i], "tilepx$dyn"))
			dyn = m->p->sym_off[i];
		else if ((int64_t)a >= m->p->sym_off[i] && (!name || m->p->sym_off[i] > (int64_t)a - off))
			name = m->p->syms[i], off = (int64_t)a - m->p->sym_off[i];
	int nlen = name ? (int)strlen(name) : 0; /* NAME$sm, NAME$mb: NAME */
	if (nlen > 3 && (!strcmp(name + nlen - 3, "$sm") || !strcmp(name + nlen - 3, "$mb")))
		nlen -= 3;
	for (size_t i = 0; dyn >= 0 && m->k && i < m->k->nmbars; i++) { /* dynamic shared: the declarations' offsets */
		const Mbar *b = &m->k->mbars[i];
		if ((int64_t)a >= dyn + b->shared_offset && (int64_t)a < dyn + b->shared_offset + 8 * b->n)
			name = b->name, nlen = (int)strlen(name), off = (int64_t)a - dyn - b->shared_offset;
	}
	for (size_t i = 0; dyn >= 0 && m->k && i < m->k->nbufs; i++) {
		const Buffer *b = m->k->bufs[i];
		if (b->mem == MEM_SHARED && (int64_t)a >= dyn + b->shared_offset && (int64_t)a - dyn - b->shared_offset < off)
			name = b->name, nlen = (int)strlen(name), off = (int64_t)a - dyn - b->shared_offset;
	}
	if (name && off % 8 == 0)
		snprintf(buf, n, " (%.*s[%lld])", nlen, name, (long long)(off / 8));
	else if (name)
		snprintf(buf, n, " (%.*s + %lld bytes)", nlen, name, (long long)off);
}

/* every live thread is blocked: one line per distinct instruction they wait
 * at (its .tile line, what it waits for, the barrier's state) into m->errbuf */
static void describe_hang(Machine *m)
{
	int64_t NT = m->threads * m->nranks;
	Str out = {0};
	bool *seen = calloc((size_t)NT, 1);
	for (int64_t i = 0; i < NT; i++) {
		if (seen[i] || m->t[i].done)
			continue;
		Thread *t = &m->t[i];
		const Ins *in = &m->p->ins[t->pc];
		int r = rank_of(m, t);
		set_cta(m, r);
		bool tw = !strncmp(in->op, "mbarrier.try_wait", 17);
		uint64_t a = tw ? oaddr(m, t, &in->od[1]) : 0;
		uint64_t par = tw ? oval(m, t, &in->od[2]) & 1 : 0;
		int64_t n = 0;
		for (int64_t j = i; j < NT; j++) { /* the threads at the same instruction (and barrier, CTA, parity) */
			Thread *u = &m->t[j];
			if (seen[j] || u->done || u->pc != t->pc || rank_of(m, u) != r)
				continue;
			if (tw && (oaddr(m, u, &in->od[1]) != a || (oval(m, u, &in->od[2]) & 1) != par))
				continue;
			seen[j] = true;
			n++;
		}
		char cta[32] = "";
		if (m->nranks > 1)
			snprintf(cta, sizeof cta, " of CTA rank %d", r);
		str_printf(&out, "%sdeadlock: .tile line %d: %lld thread%s%s wait%s at ", out.s ? "\n" : "", in->tile_line, (long long)n,
		           n == 1 ? "" : "s", cta, n == 1 ? "s" : "");
		int64_t phase, pending, count, tx;
		int id, line;
		uint32_t waiting;
		if (tw && tma_mbar(m->tma, a + (uint64_t)r * (uint64_t)m->win, &phase, &pending, &count, &tx)) {
			char nm[160];
			shared_name(m, a, nm, sizeof nm);
			str_printf(&out, "%s for parity %llu of the mbarrier at shared 0x%llx%s: it is in phase %lld (parity %lld), "
			           "%lld of %lld arrivals and %lld transaction bytes pending", in->op, (unsigned long long)par,
			           (unsigned long long)a, nm, (long long)phase, (long long)(phase & 1), (long long)pending,
			           (long long)count, (long long)tx);
		} else if (is_named_bar(in->op) && sync_bar_waiting(m->sync, r, (int)(local_tid(m, t) / 32), &id) &&
		           sync_bar_state(m->sync, r, id, &count, &pending, &waiting, &line)) {
			if (count)
				str_printf(&out, "%s %d: %lld of its %lld threads have arrived", in->op, id, (long long)pending,
				           (long long)count);
			else {
				int64_t live = 0;
				for (int64_t j = (int64_t)r * m->threads; j < (int64_t)(r + 1) * m->threads; j++)
					live += !m->t[j].done;
				str_printf(&out, "%s %d (the whole CTA): %lld of its %lld threads that have not exited have arrived",
				           in->op, id, (long long)pending, (long long)live);
			}
		} else if (!strncmp(in->op, "barrier.cluster.wait", 20)) {
			int64_t missing = 0;
			for (int64_t j = 0; j < NT; j++)
				missing += !m->t[j].done && m->t[j].carrive <= m->creleased;
			str_printf(&out, "the cluster barrier for %lld threads of the cluster's %d CTAs that never arrive",
			           (long long)missing, m->nranks);
		} else if (is_collective(in->op)) {
			str_printf(&out, "%s, a collective that the other threads of its %s never reach", in->op,
			           !strncmp(in->op, "wgmma.", 6) || !strncmp(in->op, "setmaxnreg.", 11) ? "warpgroup" : "warp");
		} else {
			str_printf(&out, "%s", in->op);
		}
	}
	snprintf(m->errbuf, sizeof m->errbuf, "%s", out.s ? out.s : "deadlock: no thread can go on");
	str_free(&out);
	free(seen);
	m->err = m->errbuf;
}

/* a cluster's threads at the entry, its memories and barriers as at launch */
static void cluster_reset(Machine *m, int entry_pc)
{
	int64_t NT = m->threads * m->nranks;
	for (int64_t i = 0; i < NT; i++) {
		m->t[i].pc = entry_pc;
		m->t[i].done = false;
		m->t[i].depth = 0;
		m->t[i].carrive = 0;
		memset(m->t[i].r, 0, sizeof(uint64_t) * (size_t)m->p->nregs);
		memset(m->t[i].wg_busy, 0, (size_t)m->p->nregs + 1);
		memset(m->t[i].wg_seen, 0, sizeof(int) * ((size_t)m->p->nregs + 1));
		m->t[i].wg_nbusy = 0;
		m->t[i].fences = 0;
	}
	for (int i = 0; i < m->nwgq; i++)
		free(m->wgq[i].slots);
	m->nwgq = 0;
	memset(m->wg_groups, 0, sizeof m->wg_groups);
	memset(m->wg_fenced, 0, sizeof m->wg_fenced);
	memset(m->wg_rd, 0, sizeof(uint16_t) * (size_t)(m->win * m->nranks / 16 + 1));
	memset(m->shared_all, 0, (size_t)(m->win * m->nranks) + 1);
	if (m->tmem_dirty) /* untouched since the last reset, it is still zero */
		memset(m->tmem_all, 0, sizeof(uint32_t) * 128 * TMEM_COLS * (size_t)m->nranks);
	m->tmem_dirty = false;
	tma_reset(m->tma);
	m->ncpa = 0;
	memset(m->cpa_cover, 0, sizeof *m->cpa_cover * (size_t)((m->win * m->nranks) / 16 + 1));
	memset(m->cpa_groups, 0, sizeof(int64_t) * (size_t)NT);
	m->acc_warp = -1;
	sync_reset(m->sync);
	for (int i = 0; i < m->nranks * 8; i++)
		m->maxnreg[i] = m->launch_maxnreg, m->maxnreg_line[i] = 0;
	m->creleased = 0;
	if (++m->epoch == 0) { /* every chunk stale again (after 2^32 launches) */
		memset(m->shadow_epoch, 0, sizeof *m->shadow_epoch * (size_t)((m->win * m->nranks) / SHADOW_CHUNK + 1));
		m->epoch = 1;
	}
}

/* every thread runs until it blocks, exits or reaches a collective; false
 * on an emulation error (a spin past the step budget is one) */
static bool run_threads(Machine *m, int64_t *budget, bool *progress)
{
	int64_t T = m->threads, NT = T * m->nranks;
	for (int64_t i = 0; i < NT; i++) {
		Thread *t = &m->t[i];
		set_cta(m, (int)(i / T));
		while (!t->done) {
			const Ins *ci = &m->p->ins[t->pc];
			if (ci->collective) {
				if (ci->pred < 0 || (t->r[ci->pred] != 0) != ci->pred_neg)
					break;
				t->pc++; /* its guard is false in this thread: it skips the collective */
				*progress = true;
				continue;
			}
			t->blocked = false;
			step(m, t);
			if (t->blocked)
				break;
			*progress = true;
			if (m->err || --*budget < 0) {
				if (!m->err) { /* a loop that never blocks (a spin on memory): where it spins */
					snprintf(m->errbuf, sizeof m->errbuf, "step budget exhausted: thread %lld of CTA rank %lld "
					         "still runs, at %s (.tile line %d)", (long long)(i % T), (long long)(i / T),
					         m->p->ins[t->pc].op, m->p->ins[t->pc].tile_line);
					m->err = m->errbuf;
				}
				return false;
			}
		}
		if (m->err)
			return false;
	}
	return true;
}

/* warpgroup collectives (wgmma.*): the 128 threads wait at the same instruction */
static void run_warpgroups(Machine *m, bool *progress)
{
	int64_t T = m->threads;
	for (int r = 0; r < m->nranks && !m->err; r++)
		for (int64_t g0 = r * T; g0 + 128 <= (r + 1) * T; g0 += 128) {
			Thread *w[128];
			bool ready = true;
			for (int k = 0; k < 128 && ready; k++) {
				w[k] = &m->t[g0 + k];
				ready = !w[k]->done && w[k]->pc == w[0]->pc && !strncmp(m->p->ins[w[k]->pc].op, "wgmma.", 6);
			}
			if (ready) {
				set_cta(m, r);
				wg_collective(m, w, &m->p->ins[w[0]->pc], (int)(r * 8 + (g0 - r * T) / 128));
				*progress = true;
			}
		}
}

/* warp collectives: the 32 lanes wait at the same instruction; false on an
 * emulation error */
static bool run_warps(Machine *m, bool *progress)
{
	int64_t T = m->threads;
	for (int r = 0; r < m->nranks; r++)
		for (int64_t w0 = r * T; w0 < (r + 1) * T; w0 += 32) {
			Thread *w[32];
			bool ready = w0 + 32 <= (r + 1) * T;
			for (int k = 0; k < 32 && ready; k++) {
				w[k] = &m->t[w0 + k];
				ready = !w[k]->done && w[k]->pc == w[0]->pc && !is_named_bar(m->p->ins[w[k]->pc].op) &&
				        strncmp(m->p->ins[w[k]->pc].op, "wgmma.", 6) && strncmp(m->p->ins[w[k]->pc].op, "elect.", 6) &&
				        strncmp(m->p->ins[w[k]->pc].op, "setmaxnreg.", 11) &&
				        is_collective(m->p->ins[w[k]->pc].op); /* not a blocked mbarrier wait */
			}
			if (ready) {
				set_cta(m, r);
				collective(m, w, &m->p->ins[w[0]->pc]);
				*progress = true;
				if (m->err)
					return false;
			}
		}
	return true;
}

/* run one cluster of CTAs (one CTA without a cluster) together; returns
 * false on an emulation error */
bool run_cluster(Machine *m, int entry_pc)
{
	cluster_reset(m, entry_pc);
	int64_t NT = m->threads * m->nranks;
	int64_t budget = 200000000;
	for (;;) {
		bool progress = false;
		if (!run_threads(m, &budget, &progress))
			return false;
		bool all_done = true;
		for (int64_t i = 0; i < NT; i++)
			all_done &= m->t[i].done;
		if (all_done)
			return true;
		/* named barriers, elect.sync, setmaxnreg: warps and warpgroups whose threads are there */
		bool released = false;
		for (int r = 0; r < m->nranks && !m->err; r++)
			released |= role_sync(m, r);
		if (m->err)
			return false;
		if (released)
			continue;
		run_warpgroups(m, &progress);
		if (m->err)
			return false;
		if (!run_warps(m, &progress))
			return false;
		if (!progress) {
			/* every thread waits: the TMA loads in flight land now */
			if (tma_drain(m->tma, &m->env, &m->err))
				continue;
			if (m->err)
				return false;
			describe_hang(m);
			return false;
		}
	}
}
