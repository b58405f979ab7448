/* ptxemu: mbarriers, TMA and bulk async-groups (ptxemu_tma.h says the model). */
#include "ptxemu_tma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MBar {
	uint64_t addr;
	int64_t count, pending, tx, phase;
} MBar;

typedef struct Xfer {
	int tid;
	bool load;
	uint64_t gaddr, bytes; /* non-tensor bulk copies: global address and size (map -2) */
	uint64_t smem, mbar;
	int map;
	int32_t c[5];
	int64_t group; /* stores: -1 uncommitted */
	bool done;
	int mc_from;   /* a multicast's part: the issuing CTA's rank + 1 (0: not a multicast) */
	int line;
} Xfer;

struct TmaState {
	MBar *bars;
	int nbars, barcap;
	Xfer *x;
	int nx, xcap;
	int64_t groups[8192]; /* committed bulk groups per thread of the cluster (tid < 8192) */
	bool exited[16];      /* CTAs of the cluster that have exited */
	char msg[256];
};

TmaState *tma_new(void) { return calloc(1, sizeof(TmaState)); }

void tma_free(TmaState *s)
{
	if (!s)
		return;
	free(s->bars);
	free(s->x);
	free(s);
}

void tma_reset(TmaState *s)
{
	s->nbars = 0;
	s->nx = 0;
	memset(s->groups, 0, sizeof s->groups);
	memset(s->exited, 0, sizeof s->exited);
}

static MBar *bar_at(TmaState *s, uint64_t addr)
{
	for (int i = 0; i < s->nbars; i++)
		if (s->bars[i].addr == addr)
			return &s->bars[i];
	return NULL;
}

static void complete_if_done(MBar *b)
{
	if (b->pending == 0 && b->tx == 0) {
		b->phase++;
		b->pending = b->count;
	}
}

/* byte address after TMA's swizzle of `bytes` (0: none) */
static uint64_t swizzle(uint64_t a, int bytes)
{
	int w = bytes == 32 ? 1 : bytes == 64 ? 2 : bytes == 128 ? 3 : 0;
	return a ^ (((a >> 7) & ((1u << w) - 1)) << 4);
}

static int swizzle_bytes(int mode) { return mode == 1 ? 32 : mode == 2 ? 64 : mode == 3 ? 128 : 0; }

/* a non-tensor bulk copy: contiguous bytes, global address as ptxemu's params */
static void transfer_bulk(TmaState *s, const TmaEnv *env, Xfer *x, const char **err)
{
	uint64_t i = (x->gaddr >> 40) - 1, off = x->gaddr & ((1ull << 40) - 1);
	if (x->smem + x->bytes > (uint64_t)env->shared_bytes) {
		*err = "bulk copy: shared address out of bounds";
		return;
	}
	if (i >= (uint64_t)env->nparams || off + x->bytes > env->param_bytes[i]) {
		*err = "bulk copy: global address out of bounds";
		return;
	}
	if (x->smem % 16 || off % 16 || x->bytes % 16) { /* the PTX ISA's rule for cp.async.bulk */
		*err = "bulk copy: a shared or global address or the size is not a multiple of 16 bytes";
		return;
	}
	if (x->load)
		memcpy(env->shared + x->smem, env->param_mem[i] + off, x->bytes);
	else
		memcpy(env->param_mem[i] + off, env->shared + x->smem, x->bytes);
	if (x->load) {
		MBar *b = bar_at(s, x->mbar);
		if (!b) {
			*err = "bulk load completes on an uninitialized mbarrier";
			return;
		}
		b->tx -= (int64_t)x->bytes;
		complete_if_done(b);
	}
}

/* move one box between shared memory and the tensor */
static void transfer(TmaState *s, const TmaEnv *env, Xfer *x, const char **err)
{
	x->done = true;
	if (x->map == -2) {
		transfer_bulk(s, env, x, err);
		return;
	}
	if (x->map < 0 || x->map >= env->nmaps) {
		*err = "TMA: tensor-map operand is not one of the kernel's tensor maps";
		return;
	}
	const TensorMapArgs *m = &env->maps[x->map];
	int es = dtype_bytes(m->buf->dt);
	unsigned char *g = env->param_mem[m->buf->param_index];
	size_t gbytes = env->param_bytes[m->buf->param_index];
	int64_t n = 1;
	for (int d = 0; d < m->rank; d++)
		n *= m->box[d];
	/* as an H100 does (tests/gpu/ragged_tma_store*.tile, tests/gpu_fail): a
	 * copy whose innermost start is not on 16 bytes is an illegal
	 * instruction; a store writes the innermost dimension in whole 16-byte
	 * units (the shared data past the edge lands up to the next 16 bytes);
	 * loads fill exactly */
	int64_t inner_bytes = (int64_t)m->dims[0] * es;
	if ((int64_t)x->c[0] * es % 16) {
		snprintf(s->msg, sizeof s->msg, "TMA %s: the box's innermost start (coordinate %d of '%s') is not a multiple "
		         "of 16 bytes (an H100 raises an illegal instruction)", x->load ? "load" : "store", x->c[0],
		         m->buf->name);
		*err = s->msg;
		return;
	}
	if (!x->load)
		inner_bytes = (inner_bytes + 15) / 16 * 16;
	for (int64_t i = 0; i < n; i++) {
		int64_t rest = i, goff = 0;
		bool in = true, edge = false;
		for (int d = 0; d < m->rank; d++) { /* innermost first */
			int64_t c = (int64_t)x->c[d] + rest % m->box[d];
			rest /= m->box[d];
			if (c < 0 || (d ? c >= (int64_t)m->dims[d] : c * es >= inner_bytes))
				in = false;
			edge |= d == 0 && c >= (int64_t)m->dims[0];
			goff += c * (d == 0 ? es : (int64_t)m->strides[d - 1]);
		}
		if (in && edge && (size_t)goff + (size_t)es > gbytes) {
			snprintf(s->msg, sizeof s->msg, "TMA store writes byte %lld of '%s', past its %zu bytes: an H100 "
			         "stores the innermost edge in whole 16-byte units", (long long)goff, m->buf->name, gbytes);
			*err = s->msg;
			return;
		}
		uint64_t sa = swizzle(x->smem + (uint64_t)(i * es), swizzle_bytes(m->swizzle));
		if (sa + (uint64_t)es > (uint64_t)env->shared_bytes) {
			*err = "TMA: shared address out of bounds";
			return;
		}
		if (in && (goff < 0 || (size_t)goff + (size_t)es > gbytes)) {
			*err = "TMA: global address out of bounds";
			return;
		}
		if (x->load) {
			if (in)
				memcpy(env->shared + sa, g + goff, (size_t)es);
			else
				memset(env->shared + sa, 0, (size_t)es);
		} else if (in) {
			memcpy(g + goff, env->shared + sa, (size_t)es);
		}
	}
	if (x->load) {
		MBar *b = bar_at(s, x->mbar);
		if (!b) {
			*err = "TMA load completes on an uninitialized mbarrier";
			return;
		}
		b->tx -= n * es;
		complete_if_done(b);
	}
}

static void land_loads(TmaState *s, const TmaEnv *env, uint64_t mbar, bool all, const char **err)
{
	for (int i = 0; i < s->nx && !*err; i++)
		if (s->x[i].load && !s->x[i].done && (all || s->x[i].mbar == mbar))
			transfer(s, env, &s->x[i], err);
}

static void finish_stores(TmaState *s, const TmaEnv *env, int tid, int64_t below, const char **err)
{
	for (int i = 0; i < s->nx && !*err; i++)
		if (!s->x[i].load && !s->x[i].done && s->x[i].tid == tid && s->x[i].group < below)
			transfer(s, env, &s->x[i], err);
}

static Xfer *push(TmaState *s)
{
	if (s->nx == s->xcap) {
		s->xcap = s->xcap ? s->xcap * 2 : 64;
		s->x = realloc(s->x, sizeof(Xfer) * (size_t)s->xcap);
	}
	Xfer *x = &s->x[s->nx++];
	memset(x, 0, sizeof *x);
	return x;
}

/* a multicast tensor load x (just pushed): one load per CTA of the mask,
 * at the same offsets of its window; *err when the mask or a peer's
 * mbarrier cannot take it */
static void fan_out_multicast(TmaState *s, const TmaEnv *env, const TmaOp *o, Xfer *x, const char **err)
{
	uint64_t sb = o->sbase;
	/* one load per CTA of the mask, at the same offsets of its window */
	Xfer one = *x;
	s->nx--;
	uint64_t mask = o->v[3] & 0xffff;
	if (mask >> env->nranks) {
		snprintf(s->msg, sizeof s->msg, "multicast mask 0x%llx names a CTA beyond the cluster's %d",
		         (unsigned long long)mask, env->nranks);
		*err = s->msg;
		return;
	}
	for (int r = 0; r < env->nranks; r++) {
		if (!(mask >> r & 1))
			continue;
		uint64_t d = (uint64_t)r * (uint64_t)env->win - sb;
		if (s->exited[r] || !bar_at(s, one.mbar + d)) {
			snprintf(s->msg, sizeof s->msg, "the multicast of CTA rank %d (.tile line %d) reaches CTA rank %d, %s "
			         "(mbarrier at shared 0x%llx): a cluster.sync after mbarrier.init (and before exit) orders "
			         "them", o->rank, o->line, r,
			         s->exited[r] ? "which has exited" : "whose mbarrier is not initialized",
			         (unsigned long long)(one.mbar - sb));
			*err = s->msg;
			return;
		}
		Xfer *y = push(s);
		*y = one;
		y->smem += d;
		y->mbar += d;
		y->mc_from = o->rank + 1;
		y->line = o->line;
	}
}

/* cp.async.bulk.tensor: a load [smem], [tmap, {coords}], [mbar] (multicast
 * to the CTAs of a mask) or a store [tmap, {coords}], [smem] */
static void tensor_copy(TmaState *s, const TmaEnv *env, int tid, const TmaOp *o, const char **err)
{
	const char *op = o->op;
	uint64_t sb = o->sbase;
	Xfer *x = push(s);
	x->tid = tid;
	x->line = o->line;
	x->load = strstr(op, ".shared::cluster.global") != NULL;
	x->map = (o->v[x->load] & TMAP_TAG) ? (int)(o->v[x->load] & 0xff) : -1;
	memcpy(x->c, o->c, sizeof x->c);
	if (x->load) {
		x->smem = o->v[0] + sb;
		x->mbar = o->v[2] + sb;
	} else { /* [tmap, {coords}], [smem] */
		x->smem = o->v[1] + sb;
		x->group = -1;
	}
	if (x->load && strstr(op, ".multicast::cluster"))
		fan_out_multicast(s, env, o, x, err);
}

int tma_step(TmaState *s, const TmaEnv *env, int tid, const TmaOp *o, uint64_t *result, bool *blocked,
             const char **err)
{
	const char *op = o->op;
	*blocked = false;
	uint64_t sb = o->sbase;
	if (!strncmp(op, "mbarrier.init.", 14)) {
		MBar *b = bar_at(s, o->v[0] + sb);
		if (!b) {
			if (s->nbars == s->barcap) {
				s->barcap = s->barcap ? s->barcap * 2 : 16;
				s->bars = realloc(s->bars, sizeof(MBar) * (size_t)s->barcap);
			}
			b = &s->bars[s->nbars++];
		}
		*b = (MBar){o->v[0] + sb, (int64_t)o->v[1], (int64_t)o->v[1], 0, 0};
		return 1;
	}
	if (!strncmp(op, "mbarrier.arrive.", 16)) {
		bool tx = strstr(op, ".expect_tx") != NULL;
		MBar *b = bar_at(s, o->v[1] + sb);
		if (!b) {
			*err = "mbarrier.arrive on an uninitialized mbarrier";
			return 1;
		}
		if (tx)
			b->tx += (int64_t)o->v[2];
		*result = (uint64_t)b->phase;
		b->pending--;
		complete_if_done(b);
		return 1;
	}
	if (!strncmp(op, "mbarrier.try_wait.parity.", 25)) {
		MBar *b = bar_at(s, o->v[1] + sb);
		if (!b) {
			*err = "mbarrier.try_wait on an uninitialized mbarrier";
			return 1;
		}
		land_loads(s, env, o->v[1] + sb, false, err);
		/* true once the phase of this parity has completed */
		bool ok = (uint64_t)(b->phase & 1) != (o->v[2] & 1);
		*result = ok;
		*blocked = !ok;
		return 1;
	}
	if (!strncmp(op, "cp.async.bulk.tensor.", 21)) {
		tensor_copy(s, env, tid, o, err);
		return 1;
	}
	if (!strncmp(op, "cp.async.bulk.shared::cluster.global.", 37) || !strncmp(op, "cp.async.bulk.global.shared::cta.", 33)) {
		Xfer *x = push(s); /* [dst], [src], size[, [mbar]] */
		x->tid = tid;
		x->line = o->line;
		x->map = -2;
		x->load = op[14] == 's';
		x->smem = (x->load ? o->v[0] : o->v[1]) + sb;
		x->gaddr = x->load ? o->v[1] : o->v[0];
		x->bytes = o->v[2];
		x->mbar = x->load ? o->v[3] + sb : 0;
		x->group = -1;
		return 1;
	}
	if (!strcmp(op, "cp.async.bulk.commit_group")) {
		for (int i = 0; i < s->nx; i++)
			if (!s->x[i].load && s->x[i].tid == tid && s->x[i].group < 0)
				s->x[i].group = s->groups[tid];
		s->groups[tid]++;
		return 1;
	}
	if (!strncmp(op, "cp.async.bulk.wait_group", 24)) {
		finish_stores(s, env, tid, s->groups[tid] - (int64_t)o->v[0], err);
		return 1;
	}
	if (!strncmp(op, "fence.proxy.async", 17) || !strncmp(op, "fence.mbarrier_init", 19))
		return 1;
	return 0;
}

bool tma_store_reading(const TmaState *s, const TmaEnv *env, uint64_t a, int bytes, int *tid, int *line)
{
	for (int i = 0; i < s->nx; i++) {
		const Xfer *x = &s->x[i];
		if (x->load || x->done)
			continue;
		uint64_t n = x->map == -2 ? x->bytes
		             : x->map >= 0 && x->map < env->nmaps ? (uint64_t)env->maps[x->map].box_bytes : 0;
		if (a < x->smem + n && x->smem < a + (uint64_t)bytes) {
			*tid = x->tid;
			*line = x->line;
			return true;
		}
	}
	return false;
}

void tma_thread_exit(TmaState *s, const TmaEnv *env, int tid, const char **err)
{
	for (int i = 0; i < s->nx && !*err; i++)
		if (!s->x[i].load && !s->x[i].done && s->x[i].tid == tid)
			transfer(s, env, &s->x[i], err);
}

void tma_cta_exit(TmaState *s, const TmaEnv *env, int rank, const char **err)
{
	s->exited[rank] = true;
	for (int i = 0; i < s->nx; i++) {
		const Xfer *x = &s->x[i];
		if (x->load && !x->done && x->mc_from && (int64_t)(x->smem / (uint64_t)env->win) == rank) {
			snprintf(s->msg, sizeof s->msg, "CTA rank %d exits while the multicast of CTA rank %d (.tile line %d) "
			         "into its shared memory is in flight", rank, x->mc_from - 1, x->line);
			*err = s->msg;
			return;
		}
	}
}

bool tma_drain(TmaState *s, const TmaEnv *env, const char **err)
{
	bool any = false;
	for (int i = 0; i < s->nx; i++)
		any |= s->x[i].load && !s->x[i].done;
	land_loads(s, env, 0, true, err);
	return any;
}

bool tma_mbar(const TmaState *s, uint64_t addr, int64_t *phase, int64_t *pending, int64_t *count, int64_t *tx)
{
	for (int i = 0; i < s->nbars; i++)
		if (s->bars[i].addr == addr) {
			*phase = s->bars[i].phase, *pending = s->bars[i].pending;
			*count = s->bars[i].count, *tx = s->bars[i].tx;
			return true;
		}
	return false;
}
