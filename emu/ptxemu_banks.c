/* --banks: every shared access of a warp instruction recorded, and the
 * shared-memory wavefronts per .tile line against the ideal. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

void bank_record(Machine *m, int tid, int pc, int64_t k, uint64_t a, int bytes)
{
	if (m->nbacc == m->bacccap) {
		m->bacccap = m->bacccap ? 2 * m->bacccap : 1024;
		m->bacc = realloc(m->bacc, sizeof *m->bacc * (size_t)m->bacccap);
	}
	int64_t r = tid / m->threads, lt = tid % m->threads; /* tid: the thread's index in the cluster */
	m->bacc[m->nbacc++] = (struct BankAcc){(m->base_y + r / m->cx) * 1000000 + m->base_x + r % m->cx, k,
	                                       (int32_t)(lt / 32), (int32_t)(lt % 32), pc, bytes, a};
}

static int cmp_bank_group(const struct BankAcc *a, const struct BankAcc *b)
{
	return a->cta != b->cta || a->warp != b->warp || a->pc != b->pc || a->k != b->k;
}

static int cmp_bank(const void *x, const void *y)
{
	const struct BankAcc *a = x, *b = y;
	if (a->cta != b->cta)
		return a->cta < b->cta ? -1 : 1;
	if (a->warp != b->warp)
		return a->warp - b->warp;
	if (a->pc != b->pc)
		return a->pc - b->pc;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->lane - b->lane;
}

/* every lane's address equals that of lane ^ x where both run */
static bool lanes_pair(const struct BankAcc *a, int n, int x)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (a[j].lane == (a[i].lane ^ x) && a[j].addr != a[i].addr)
				return false;
	return true;
}

/* shared-memory wavefronts of one warp instruction: lanes in phases (8 lanes
 * of 16-byte accesses, 16 of 8-byte, 32 otherwise); a phase takes as many
 * wavefronts as the most distinct 4-byte words any of the 32 banks holds.
 * An ld.shared (ld: not ldmatrix) whose lanes pair up (every lane's address
 * equals lane^1's, or every lane's equals lane^2's) packs two lanes per
 * return slot: phases of twice the lanes (H100, Nsight Compute: all lanes
 * on one address take 2 wavefronts at 16 bytes, 1 at 8) */
static void wavefronts(const struct BankAcc *a, int n, bool ld, int64_t *got, int64_t *ideal)
{
	int per = a[0].bytes >= 16 ? 8 : a[0].bytes == 8 ? 16 : 32;
	if (ld && per < 32 && (lanes_pair(a, n, 1) || lanes_pair(a, n, 2)))
		per *= 2;
	for (int ph = 0; ph < 32 / per; ph++) {
		uint64_t words[128];
		int nw = 0;
		for (int i = 0; i < n; i++) {
			if (a[i].lane / per != ph)
				continue;
			for (uint64_t w = a[i].addr / 4; w <= (a[i].addr + (uint64_t)a[i].bytes - 1) / 4 && nw < 128; w++) {
				bool dup = false;
				for (int j = 0; j < nw && !dup; j++)
					dup = words[j] == w;
				if (!dup)
					words[nw++] = w;
			}
		}
		if (!nw)
			continue;
		int per_bank[32] = {0}, worst = 0;
		for (int j = 0; j < nw; j++)
			if (++per_bank[words[j] % 32] > worst)
				worst = per_bank[words[j] % 32];
		*got += worst;
		*ideal += (nw + 31) / 32;
	}
}

void bank_report(Machine *m, const Kernel *k)
{
	if (m->nbacc > 0) /* qsort's base may not be NULL, even for no elements */
		qsort(m->bacc, (size_t)m->nbacc, sizeof *m->bacc, cmp_bank);
	int np = m->p->n;
	int64_t *ins = calloc((size_t)np + 1, sizeof(int64_t)), *wf = calloc((size_t)np + 1, sizeof(int64_t)),
	        *id = calloc((size_t)np + 1, sizeof(int64_t));
	for (int64_t i = 0, j; i < m->nbacc; i = j) {
		for (j = i; j < m->nbacc && !cmp_bank_group(&m->bacc[i], &m->bacc[j]); j++)
			;
		int pc = m->bacc[i].pc;
		ins[pc]++;
		wavefronts(&m->bacc[i], (int)(j - i), !strncmp(m->p->ins[pc].op, "ld.", 3), &wf[pc], &id[pc]);
	}
	int64_t ti = 0, tw = 0, tid = 0;
	for (int line = 0, pc; line < 1 << 20; line++) { /* by .tile line, in order */
		int64_t li = 0, lw = 0, lid = 0, next = 1 << 20;
		for (pc = 0; pc < np; pc++) {
			int tl = m->p->ins[pc].tile_line;
			if (tl == line && ins[pc]) {
				li += ins[pc];
				lw += wf[pc];
				lid += id[pc];
			} else if (tl > line && ins[pc] && tl < next) {
				next = tl;
			}
		}
		if (li)
			printf("BANKS %s line %d: %lld shared instructions, %lld wavefronts, ideal %lld\n", k->name, line,
			       (long long)li, (long long)lw, (long long)lid);
		ti += li, tw += lw, tid += lid;
		if (next == 1 << 20)
			break;
		line = (int)next - 1;
	}
	printf("BANKS %s total: %lld shared instructions, %lld wavefronts, ideal %lld\n", k->name, (long long)ti,
	       (long long)tw, (long long)tid);
	free(ins);
	free(wf);
	free(id);
}
