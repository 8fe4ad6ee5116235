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

#endif
