/* The scheduler's ordering: a binary heap of items ordered by priority (higher first), then by
 * sequence number (earlier first: FIFO within a priority). Not thread-safe: the engine holds its lock. */
#ifndef CZ_ENGINE_SCHED_H
#define CZ_ENGINE_SCHED_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int prio;
    uint64_t seq;
    void *item;
} cz_sched_entry;

typedef struct {
    cz_sched_entry *h;
    size_t n, cap;
} cz_sched;

void cz_sched_init(cz_sched *s);
void cz_sched_free(cz_sched *s);
int cz_sched_push(cz_sched *s, int prio, uint64_t seq, void *item); /* CZ_ENOMEM */
/* Highest entry, or NULL when empty. */
const cz_sched_entry *cz_sched_peek(const cz_sched *s);
void *cz_sched_pop(cz_sched *s);
/* Removes item wherever it is; 1 when found. */
int cz_sched_remove(cz_sched *s, const void *item);
/* Number of entries that pop before an entry (prio, seq) would: its queue position. */
size_t cz_sched_rank(const cz_sched *s, int prio, uint64_t seq);

/* The OpenMP team of a partition's synthesis starting now, taken from the pool of synthesis threads (engine.c):
 *   free   threads of the pool free now (< 1 only for an urgent job let in without one: its team is 1);
 *   want   partitions that may start now, this one among them (1 or more);
 *   ahead  partitions before a device's turn without it: synthesizing, or synthesized and queued;
 *   ndev   devices in service (1 or more).
 * Depth first while the devices run dry: with fewer than ndev partitions ahead, a device will wait for this one,
 * so the free threads go to the waiting devices' partitions, this one's share ceil(free / (ndev - ahead)); with
 * fewer than 2 ndev ahead, half of them; else (the devices fed) they are split evenly among the `want` partitions
 * starting now, the first ones taking the remainder: small teams, the most work per thread. A 32 GiB PoRep on an
 * idle H200 host (14 threads): 14 for its first partition (~0.26 s instead of ~1.6 s with 2), 7 for its second, then
 * teams of 1-2. Returns 1..max(free, 1). */
int cz_sched_synth_team(int free, int want, int ahead, int ndev);

#endif
