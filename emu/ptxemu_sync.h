/* ptxemu's thread synchronization between warps, from the PTX ISA
 * ("barrier{.cta}", "mbarrier", memory consistency model), not from
 * tilepx's emitter:
 *  - named barriers: 16 per CTA (bar.sync / bar.arrive / barrier.sync /
 *    barrier.arrive ID[, COUNT]); bar is .aligned, so a warp arrives as a
 *    whole and counts 32 threads; an instance completes when COUNT threads
 *    have arrived (no COUNT: every warp of the CTA that has not exited);
 *    bar.sync waiters then go on, bar.arrive never waits; arrivals with
 *    different COUNTs in one instance are an error, and so is an arrival by
 *    a warp outside the last completed instance's group that is not ordered
 *    after that instance's arrivals (it could have completed it: two
 *    hand-offs on one id);
 *  - happens-before between warps as vector clocks, one per warp: an arrival
 *    (bar.arrive, bar.sync, mbarrier.arrive) releases the warp's clock into
 *    the barrier and starts a new interval; a completed bar.sync, or a
 *    try_wait that succeeds, acquires what the barrier collected. The race
 *    shadow of ptxemu.c asks whether a warp's access is ordered after
 *    another warp's stamped access.
 * Warps are numbered per CTA (0..MAXWARPS-1), CTAs by cluster rank. */
#ifndef PTXEMU_SYNC_H
#define PTXEMU_SYNC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SYNC_MAXWARPS = 32, SYNC_NBAR = 16 };

typedef struct SyncState SyncState;

SyncState *sync_new(int nranks, int warps_per_cta);
void sync_free(SyncState *s);
void sync_reset(SyncState *s); /* a new cluster: clocks start, barriers empty */

/* warp w's own clock now: the stamp of its accesses */
uint32_t sync_stamp(const SyncState *s, int rank, int w);
/* warp `reader`'s access is ordered after warp `writer`'s access stamped `stamp` */
bool sync_ordered(const SyncState *s, int rank, int reader, int writer, uint32_t stamp);
/* every warp of every CTA joins every other (a released cluster barrier) */
void sync_all(SyncState *s);

/* warp w arrives at named barrier id with `count` threads (0: the whole
 * CTA); wait: bar.sync (the warp waits for the instance). Returns false with
 * *err on a count that differs from the instance's; sets *done when this
 * arrival completes the instance: the warps in *released (a mask) go on */
bool sync_bar_arrive(SyncState *s, int rank, int w, int id, int64_t count, bool wait, int line, int pc,
                     bool *done, uint32_t *released, char *err, size_t errn);
/* a warp of CTA rank has exited (or another may have): a whole-CTA instance
 * whose remaining warps all wait completes. live: the warps that have not
 * exited (mask). Returns the released warps of barrier id, 0 when none */
uint32_t sync_bar_recheck(SyncState *s, int rank, int id, uint32_t live);
/* the warps waiting at barrier id and their state, for a hang report */
bool sync_bar_state(const SyncState *s, int rank, int id, int64_t *count, int64_t *arrived, uint32_t *waiting,
                    int *line);
/* warp w waits at barrier id (arrived, not yet released) */
bool sync_bar_waiting(const SyncState *s, int rank, int w, int *id);

/* mbarriers: keyed by their cluster-wide shared address; phase is the
 * barrier's phase after the instruction (ptxemu_tma.c keeps the counts) */
void sync_mbar_arrive(SyncState *s, int rank, int w, uint64_t addr, int64_t phase_before, int64_t phase_after);
void sync_mbar_acquire(SyncState *s, int rank, int w, uint64_t addr, int64_t phase, int parity);
#endif
