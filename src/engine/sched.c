#include "engine/sched.h"

#include <stdlib.h>

#include "cz_error.h"

static int before(const cz_sched_entry *a, const cz_sched_entry *b) {
    return a->prio != b->prio ? a->prio > b->prio : a->seq < b->seq;
}

static void swap(cz_sched_entry *a, cz_sched_entry *b) {
    cz_sched_entry t = *a;
    *a = *b, *b = t;
}

static void up(cz_sched *s, size_t i) {
    while (i && before(&s->h[i], &s->h[(i - 1) / 2])) {
        swap(&s->h[i], &s->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

static void down(cz_sched *s, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n && before(&s->h[l], &s->h[m])) m = l;
        if (r < s->n && before(&s->h[r], &s->h[m])) m = r;
        if (m == i) return;
        swap(&s->h[i], &s->h[m]);
        i = m;
    }
}

void cz_sched_init(cz_sched *s) { s->h = NULL, s->n = s->cap = 0; }
void cz_sched_free(cz_sched *s) {
    free(s->h);
    cz_sched_init(s);
}

int cz_sched_push(cz_sched *s, int prio, uint64_t seq, void *item) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        cz_sched_entry *h = realloc(s->h, cap * sizeof *h);
        if (!h) return cz_error(CZ_ENOMEM, "scheduler: out of memory");
        s->h = h, s->cap = cap;
    }
    s->h[s->n] = (cz_sched_entry){prio, seq, item};
    up(s, s->n++);
    return 0;
}

const cz_sched_entry *cz_sched_peek(const cz_sched *s) { return s->n ? &s->h[0] : NULL; }

void *cz_sched_pop(cz_sched *s) {
    if (!s->n) return NULL;
    void *it = s->h[0].item;
    s->h[0] = s->h[--s->n];
    down(s, 0);
    return it;
}

int cz_sched_remove(cz_sched *s, const void *item) {
    for (size_t i = 0; i < s->n; i++)
        if (s->h[i].item == item) {
            s->h[i] = s->h[--s->n];
            if (i < s->n) {
                up(s, i);
                down(s, i);
            }
            return 1;
        }
    return 0;
}

size_t cz_sched_rank(const cz_sched *s, int prio, uint64_t seq) {
    cz_sched_entry e = {prio, seq, NULL};
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) k += before(&s->h[i], &e);
    return k;
}

int cz_sched_synth_team(int free, int want, int ahead, int ndev) {
    if (free <= 1) return 1;
    if (ndev < 1) ndev = 1;
    if (ahead < 0) ahead = 0;
    int share;
    if (ahead < ndev) share = ndev - ahead;
    else if (ahead < 2 * ndev) share = 2;
    else share = want;
    if (share > want) share = want; /* never more ways than partitions starting */
    if (share < 1) share = 1;
    return (free + share - 1) / share;
}
