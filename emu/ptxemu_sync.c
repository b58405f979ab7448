/* ptxemu: named barriers and happens-before between warps (ptxemu_sync.h says the model). */
#include "ptxemu_sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t Clock[SYNC_MAXWARPS];

typedef struct NamedBar {
	int64_t count;   /* threads the instance waits for; 0: the whole CTA; -1: no arrival yet */
	int64_t arrived; /* threads (whole warps) */
	uint32_t waiting, arrivers; /* warps at bar.sync; every warp that arrived */
	int line, pc;    /* the first arrival's */
	Clock rel;       /* what the arrivals released */
	Clock stamp;     /* each arriving warp's stamp (its clock's own entry) at its arrival */
	/* the last completed instance with a COUNT: its warps, their arrival
	 * stamps and its line (kept when the instance is reset) */
	uint32_t last_arrivers;
	Clock last_stamp;
	int last_line;
} NamedBar;

typedef struct MbarClock {
	uint64_t addr;
	int64_t phase_seen;
	Clock acc;      /* releases into the phase in progress */
	Clock snap[2];  /* what the last completed phase of each parity released */
} MbarClock;

struct SyncState {
	int nranks, nwarps;
	Clock *vc;      /* per rank and warp */
	NamedBar *bars; /* per rank and id */
	MbarClock *mb;
	int nmb, mbcap;
};

static void join(Clock a, const Clock b)
{
	for (int i = 0; i < SYNC_MAXWARPS; i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

SyncState *sync_new(int nranks, int warps_per_cta)
{
	SyncState *s = calloc(1, sizeof *s);
	s->nranks = nranks;
	s->nwarps = warps_per_cta;
	s->vc = calloc((size_t)nranks * SYNC_MAXWARPS, sizeof(Clock));
	s->bars = calloc((size_t)nranks * SYNC_NBAR, sizeof(NamedBar));
	sync_reset(s);
	return s;
}

void sync_free(SyncState *s)
{
	if (!s)
		return;
	free(s->vc);
	free(s->bars);
	free(s->mb);
	free(s);
}

void sync_reset(SyncState *s)
{
	memset(s->vc, 0, (size_t)s->nranks * SYNC_MAXWARPS * sizeof(Clock));
	/* every warp starts its first interval at 1: nothing of it is known to the others (0) */
	for (int r = 0; r < s->nranks; r++)
		for (int w = 0; w < SYNC_MAXWARPS; w++)
			s->vc[r * SYNC_MAXWARPS + w][w] = 1;
	for (int i = 0; i < s->nranks * SYNC_NBAR; i++) {
		memset(&s->bars[i], 0, sizeof s->bars[i]);
		s->bars[i].count = -1;
	}
	s->nmb = 0;
}

static uint32_t *clock_of(const SyncState *s, int rank, int w) { return s->vc[rank * SYNC_MAXWARPS + w]; }

uint32_t sync_stamp(const SyncState *s, int rank, int w) { return clock_of(s, rank, w)[w]; }

bool sync_ordered(const SyncState *s, int rank, int reader, int writer, uint32_t stamp)
{
	return clock_of(s, rank, reader)[writer] >= stamp;
}

/* warp w releases its clock into c and starts a new interval */
static void release(SyncState *s, int rank, int w, Clock c)
{
	uint32_t *v = clock_of(s, rank, w);
	join(c, v);
	v[w]++;
}

void sync_all(SyncState *s)
{
	for (int r = 0; r < s->nranks; r++) {
		Clock all = {0};
		for (int w = 0; w < SYNC_MAXWARPS; w++)
			join(all, clock_of(s, r, w));
		for (int w = 0; w < SYNC_MAXWARPS; w++) {
			join(clock_of(s, r, w), all);
			clock_of(s, r, w)[w]++;
		}
	}
}

static uint32_t complete(SyncState *s, int rank, NamedBar *b)
{
	uint32_t rel = b->waiting;
	for (int w = 0; w < SYNC_MAXWARPS; w++)
		if (rel >> w & 1)
			join(clock_of(s, rank, w), b->rel);
	NamedBar done = {.count = -1, .last_arrivers = b->last_arrivers, .last_line = b->last_line};
	memcpy(done.last_stamp, b->last_stamp, sizeof done.last_stamp);
	if (b->count > 0) {
		done.last_arrivers = b->arrivers;
		done.last_line = b->line;
		memcpy(done.last_stamp, b->stamp, sizeof done.last_stamp);
	}
	*b = done;
	return rel;
}

/* One id, two groups of warps: the hardware completes an instance at any
 * COUNT arrivals, so a warp outside the last instance's group whose
 * arrival is not ordered after every arrival of that instance could, in
 * another schedule, have completed it in place of one of its warps (two
 * hand-offs on one id: a reader passes before its writer). Decided from
 * the happens-before clocks of this run, whatever order it took: the warps
 * and their program order are the same in every schedule. */
static bool foreign_arrival(const SyncState *s, int rank, int w, int id, const NamedBar *b, char *err, size_t errn)
{
	if (!b->last_arrivers || (b->last_arrivers >> w & 1))
		return false;
	for (int u = 0; u < SYNC_MAXWARPS; u++)
		if ((b->last_arrivers >> u & 1) && !sync_ordered(s, rank, w, u, b->last_stamp[u])) {
			snprintf(err, errn, "named barrier %d: warp %d arrives unordered with warp %d's arrival in the "
			         "instance of warps 0x%x (.tile line %d): any COUNT arrivals complete the barrier, so these "
			         "arrivals could complete each other's instances (two hand-offs on one id); give each its own id",
			         id, w, u, (unsigned)b->last_arrivers, b->last_line);
			return true;
		}
	return false;
}

bool sync_bar_arrive(SyncState *s, int rank, int w, int id, int64_t count, bool wait, int line, int pc,
                     bool *done, uint32_t *released, char *err, size_t errn)
{
	NamedBar *b = &s->bars[rank * SYNC_NBAR + id];
	*done = false;
	*released = 0;
	if (b->count >= 0 && b->count != count) {
		char a[48], c[48];
		snprintf(a, sizeof a, count ? "count %lld" : "no count (the whole CTA)", (long long)count);
		snprintf(c, sizeof c, b->count ? "count %lld" : "no count (the whole CTA)", (long long)b->count);
		snprintf(err, errn, "named barrier %d: warp %d arrives with %s (.tile line %d) while the instance in "
		         "progress has %s (.tile line %d): every arrival at one instance must give the same count", id, w,
		         a, line, c, b->line);
		return false;
	}
	if (count > 0 && foreign_arrival(s, rank, w, id, b, err, errn))
		return false;
	if (b->count < 0) {
		b->count = count;
		b->line = line;
		b->pc = pc;
	}
	b->stamp[w] = sync_stamp(s, rank, w);
	release(s, rank, w, b->rel);
	b->arrived += 32;
	b->arrivers |= 1u << w;
	if (wait)
		b->waiting |= 1u << w;
	if (count > 0 && b->arrived >= count) {
		*released = complete(s, rank, b);
		*done = true;
	}
	return true;
}

uint32_t sync_bar_recheck(SyncState *s, int rank, int id, uint32_t live)
{
	NamedBar *b = &s->bars[rank * SYNC_NBAR + id];
	if (b->count != 0 || (live & ~b->arrivers))
		return 0;
	return complete(s, rank, b);
}

bool sync_bar_state(const SyncState *s, int rank, int id, int64_t *count, int64_t *arrived, uint32_t *waiting,
                    int *line)
{
	const NamedBar *b = &s->bars[rank * SYNC_NBAR + id];
	if (b->count < 0)
		return false;
	*count = b->count;
	*arrived = b->arrived;
	*waiting = b->waiting;
	*line = b->line;
	return true;
}

bool sync_bar_waiting(const SyncState *s, int rank, int w, int *id)
{
	for (int i = 0; i < SYNC_NBAR; i++)
		if (s->bars[rank * SYNC_NBAR + i].waiting >> w & 1) {
			*id = i;
			return true;
		}
	return false;
}

static MbarClock *mbar_clock(SyncState *s, uint64_t addr, int64_t phase)
{
	MbarClock *c = NULL;
	for (int i = 0; i < s->nmb && !c; i++)
		if (s->mb[i].addr == addr)
			c = &s->mb[i];
	if (!c) {
		if (s->nmb == s->mbcap) {
			s->mbcap = s->mbcap ? 2 * s->mbcap : 16;
			s->mb = realloc(s->mb, sizeof *s->mb * (size_t)s->mbcap);
		}
		c = &s->mb[s->nmb++];
		memset(c, 0, sizeof *c);
		c->addr = addr;
		c->phase_seen = phase;
	}
	if (phase < c->phase_seen) { /* initialized again */
		memset(c, 0, sizeof *c);
		c->addr = addr;
		c->phase_seen = phase;
	}
	if (phase > c->phase_seen) { /* phases completed (by transaction bytes) since the last look */
		memcpy(c->snap[(phase - 1) & 1], c->acc, sizeof(Clock));
		memset(c->acc, 0, sizeof(Clock));
		c->phase_seen = phase;
	}
	return c;
}

void sync_mbar_arrive(SyncState *s, int rank, int w, uint64_t addr, int64_t phase_before, int64_t phase_after)
{
	MbarClock *c = mbar_clock(s, addr, phase_before);
	release(s, rank, w, c->acc);
	mbar_clock(s, addr, phase_after);
}

void sync_mbar_acquire(SyncState *s, int rank, int w, uint64_t addr, int64_t phase, int parity)
{
	MbarClock *c = mbar_clock(s, addr, phase);
	join(clock_of(s, rank, w), c->snap[parity & 1]);
}
