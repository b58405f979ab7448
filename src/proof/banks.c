/* Bank conflicts of a copy, from its access trace (Variant.trace): every
 * thread's shared accesses, computed from the layouts and the chosen
 * variant's partition, not from PTX.
 *
 * Banks: the lanes of one warp instruction go to shared memory in phases (8
 * lanes of 16-byte accesses, 16 of 8-byte, 32 otherwise); a phase takes as
 * many wavefronts as the most distinct 4-byte words one of the 32 banks
 * holds; the ideal is the distinct words over 32. A load (ld.shared, not
 * ldmatrix) whose lanes pair up -- every lane's address equals lane^1's, or
 * every lane's equals lane^2's -- returns two lanes' data per register slot,
 * so its phases hold twice the lanes (all lanes on one address: 16-byte
 * loads take 2 wavefronts, 8-byte 1, as Nsight Compute counts on an H100).
 * `ptxemu --banks` measures the same on the emitted PTX, independently. */
#include "tilepx.h"
#include "walk.h"

#include <stdlib.h>
#include <string.h>

enum { BANK_BUDGET = 1 << 22, MAX_COMBOS = 1 << 16 };

/* the repeat indices enclosing s, outermost first; false if s is not in k
 * (a when block runs once: its var is no index) */
static bool enclosing(Ctx *cx, const Kernel *k, const Stmt *s, int *vars, int *nv)
{
	const Stmt *up[64];
	int n = 0;
	for (const Stmt *p = s; n < 64;) {
		if (!stmt_parent(cx, k, p, &p))
			return false;
		if (!p)
			break;
		if (p->kind == ST_REPEAT)
			up[n++] = p;
	}
	while (n)
		vars[(*nv)++] = up[--n]->var;
	return true;
}

typedef struct Lane {
	int64_t warp, k, addr;
	int lane, bytes;
	bool write;
	int side; /* index into the stats: buffer and direction */
} Lane;

typedef struct BankCtx {
	const Buffer *bufs[2];
	bool dirs[2];
	int nsides;
	Lane *v; /* malloc'd */
	size_t n, cap;
	const Ctx *cx;      /* the swizzle-auto pass's choices */
	uint64_t warps;     /* the warps that run the statement (a when block); others make no access */
} BankCtx;

static void bank_fn(void *ctx, const Access *a)
{
	BankCtx *b = ctx;
	if (a->thread / 32 < 64 && !(b->warps >> (a->thread / 32) & 1))
		return;
	int side = 0;
	while (side < b->nsides && (b->bufs[side] != a->buf || b->dirs[side] != a->write))
		side++;
	if (side == b->nsides && side < 2) {
		b->bufs[side] = a->buf;
		b->dirs[side] = a->write;
		b->nsides++;
	}
	if (side >= 2 || b->n >= BANK_BUDGET)
		return;
	int64_t es = dtype_bytes(a->buf->dt);
	Lane l = {a->thread / 32, a->k, swz_apply(buffer_swizzle(b->cx, a->buf), a->elem) * es, (int)(a->thread % 32),
	          a->bytes, a->write, side};
	if (b->n == b->cap) { /* scratch reused copy after copy and freed, not the arena's (kept to the end) */
		size_t nc = b->cap ? 2 * b->cap : 256;
		Lane *v = realloc(b->v, sizeof *v * nc);
		if (!v) { /* no counts, as over the budget */
			b->n = BANK_BUDGET;
			return;
		}
		b->v = v;
		b->cap = nc;
	}
	b->v[b->n++] = l;
}

static int cmp_lane(const void *x, const void *y)
{
	const Lane *a = x, *b = y;
	if (a->side != b->side)
		return a->side - b->side;
	if (a->warp != b->warp)
		return a->warp < b->warp ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return a->lane - b->lane;
}

/* every lane's address equals that of lane ^ x where both run: each lane's
 * one address (a lane with two differs from its partner's), then the pairs
 * (a test of every pair of accesses was a fifth of explain's time) */
static bool lanes_pair(const Lane *a, size_t n, int x)
{
	int64_t at[32];
	bool has[32] = {false}, two[32] = {false};
	for (size_t i = 0; i < n; i++) {
		int l = a[i].lane & 31;
		two[l] |= has[l] && at[l] != a[i].addr;
		at[l] = has[l] ? at[l] : a[i].addr;
		has[l] = true;
	}
	for (int l = 0; l < 32; l++) {
		int p = l ^ x;
		if (has[l] && has[p] && (two[l] || two[p] || at[l] != at[p]))
			return false;
	}
	return true;
}

/* w[0..n) (n <= 160) without repeats, in place; their count (a table of
 * 256 slots: a search per word made the bank model quadratic in them) */
static int distinct(int64_t *w, int n)
{
	int64_t tab[256];
	bool used[256] = {false};
	int m = 0;
	for (int i = 0; i < n; i++) {
		unsigned h = (unsigned)(((uint64_t)w[i] * 0x9e3779b97f4a7c15u) >> 56);
		while (used[h] && tab[h] != w[i])
			h = (h + 1) & 255;
		if (!used[h]) {
			used[h] = true;
			tab[h] = w[i];
			w[m++] = w[i];
		}
	}
	return m;
}

/* one warp instruction's lanes a[0..n): wavefronts and the ideal; packs:
 * a load whose paired lanes share a return slot (not ldmatrix) */
static void wavefronts(const Lane *a, size_t n, bool packs, int64_t *got, int64_t *ideal)
{
	int per = a[0].bytes >= 16 ? 8 : a[0].bytes == 8 ? 16 : 32;
	if (packs && per < 32 && (lanes_pair(a, n, 1) || lanes_pair(a, n, 2)))
		per *= 2;
	for (int ph = 0; ph < 32 / per; ph++) {
		int64_t words[160]; /* 32 lanes of at most 16 aligned bytes */
		int nw = 0;
		for (size_t i = 0; i < n; i++) {
			if (a[i].lane / per != ph)
				continue;
			for (int64_t w = a[i].addr / 4; w <= (a[i].addr + a[i].bytes - 1) / 4 && nw < 160; w++)
				words[nw++] = w;
		}
		if (!nw)
			continue;
		nw = distinct(words, nw);
		int per_bank[32] = {0}, worst = 0;
		for (int j = 0; j < nw; j++)
			if (++per_bank[words[j] % 32] > worst)
				worst = per_bank[words[j] % 32];
		*got += worst;
		*ideal += (nw + 31) / 32;
	}
}

/* the trace of one execution (vals) into the stats */
static bool bank_run(const CopyOp *op, const Decision *d, int64_t *vals, int64_t times, BankStat *st, int *nst,
                     BankCtx *lanes)
{
	/* the lanes' array is the caller's, reused run after run */
	BankCtx b = {.cx = op->cx, .warps = op->st->warps ? op->st->warps : ~(uint64_t)0,
	             .v = lanes->v, .cap = lanes->cap};
	d->chosen->trace(op, &d->plan, vals, bank_fn, &b);
	lanes->v = b.v, lanes->cap = b.cap;
	if (b.n >= BANK_BUDGET)
		return false;
	if (b.n)
		qsort(b.v, b.n, sizeof *b.v, cmp_lane);
	for (int s = 0; s < b.nsides; s++) {
		int i = 0;
		while (i < *nst && (st[i].buf != b.bufs[s] || st[i].write != b.dirs[s]))
			i++;
		if (i == *nst) {
			st[i] = (BankStat){b.bufs[s], b.dirs[s], 0, 0, 0};
			(*nst)++;
		}
	}
	for (size_t i = 0, j; i < b.n; i = j) {
		for (j = i; j < b.n && b.v[j].side == b.v[i].side && b.v[j].warp == b.v[i].warp && b.v[j].k == b.v[i].k; j++)
			;
		int s = 0;
		while (s < *nst && (st[s].buf != b.bufs[b.v[i].side] || st[s].write != b.dirs[b.v[i].side]))
			s++;
		if (s == *nst) /* every side was registered above */
			return false;
		int64_t w = 0, id = 0;
		wavefronts(&b.v[i], j - i, !b.v[i].write && d->chosen != &variant_ldstmatrix, &w, &id);
		st[s].instructions += times;
		st[s].wavefronts += w * times;
		st[s].ideal += id * times;
	}
	return true;
}

/* a shared side's start moves with var (a global side's does not change
 * the banks: its accesses repeat the same shared ones) */
static bool uses_var(const CopyOp *op, int var)
{
	for (int side = 0; side < 2; side++) {
		const Buffer *buf = side ? op->dbuf : op->sbuf;
		if (buf && buf->mem == MEM_GLOBAL)
			continue;
		const Affine *a = side ? &op->dst.off[AX_M] : &op->src.off[AX_M];
		for (int i = 0; i < a->n; i++)
			if (a->t[i].var == var && a->t[i].k)
				return true;
	}
	return false;
}

int copy_banks(const CopyOp *op, const Decision *d, BankStat *out)
{
	if (!d->chosen || !d->chosen->trace)
		return 0;
	const Kernel *k = op->k;
	int vars[64], nv = 0;
	if (!enclosing(op->cx, k, op->st, vars, &nv))
		nv = 0;
	/* the repeat indices the regions use are enumerated; the others repeat
	 * the same accesses */
	int used[64], nu = 0;
	int64_t times = 1, combos = 1;
	for (int i = 0; i < nv; i++) {
		int64_t e = kernel_var_extent(k, vars[i]);
		if (uses_var(op, vars[i])) {
			used[nu++] = vars[i];
			combos = combos > MAX_COMBOS ? combos : combos * e;
		} else {
			times = times > INT64_MAX / (e > 0 ? e : 1) ? times : times * e;
		}
	}
	if (combos > MAX_COMBOS)
		return 0;
	int64_t *vals = arena_alloc(op->cx->arena, sizeof(int64_t) * (size_t)(k->nvars + 1));
	for (size_t i = 0; i < k->nscalars; i++) /* a value the facts allow: the smallest */
		vals[k->scalars[i].var] = (k->scalars[i].lo + k->scalars[i].mult - 1) / k->scalars[i].mult * k->scalars[i].mult;
	int nst = 0;
	BankCtx lanes = {0};
	for (int64_t c = 0; c < combos; c++) {
		int64_t rest = c;
		for (int i = nu - 1; i >= 0; i--) {
			int64_t e = kernel_var_extent(k, used[i]);
			vals[used[i]] = rest % e;
			rest /= e;
		}
		if (!bank_run(op, d, vals, times, out, &nst, &lanes)) {
			nst = 0;
			break;
		}
	}
	free(lanes.v);
	return nst;
}
