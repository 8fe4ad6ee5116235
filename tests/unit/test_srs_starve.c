/* SRS loads under the memory budget, starvation (engine.c: pass_blocked): a WindowPoSt job (gate-b) whose
 * SRS does not fit beside gate-a's waits while a stream of PoRep jobs (gate-a) keeps gate-a busy; queued
 * gate-a jobs pass it only for memory.eviction_min_idle (1 s here), so it completes well before the stream
 * would end (20 s), and the budget in use never exceeds a random budget that holds one SRS and two
 * partitions but never two SRS. Environment: srs_budget_env.h. */
#include "srs_budget_env.h"

static void starvation(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 1, &p, &th);
    if (!e) return;
    submit(e, "a0", CZ_KIND_POREP, rng);
    submit(e, "b1", CZ_KIND_WPOST, rng);
    /* keep two gate-a jobs unfinished at all times, for at most 20 s */
    char ids[400][16];
    unsigned n = 0, oldest = 0;
    uint64_t t0 = cz_now_ms();
    bool b_done = false;
    while (!(b_done = finished(e, "b1")) && cz_now_ms() - t0 < 20000 && n < 400) {
        while (oldest < n && finished(e, ids[oldest])) oldest++;
        if (n - oldest < 2) {
            snprintf(ids[n], sizeof ids[n], "s%u", n);
            if (submit(e, ids[n], CZ_KIND_POREP, rng)) break;
            n++;
        }
        usleep(5000);
    }
    uint64_t waited = cz_now_ms() - t0;
    CHECK_MSG(b_done, "b1 starved by %u gate-a jobs over %llu ms", n, (unsigned long long)waited);
    done(e, "a0", NULL);
    for (unsigned i = 0; i < n; i++) done(e, ids[i], NULL);
    uint64_t peak = stop(e, &p, th);
    CHECK_MSG(p.max <= budget && peak <= budget, "starvation: budget %llu, polled max %llu, peak %llu",
              (unsigned long long)budget, (unsigned long long)p.max, (unsigned long long)peak);
    printf("starvation: b1 done after %llu ms while %u gate-a jobs streamed\n", (unsigned long long)waited, n);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (!env_begin(&rng, &P)) starvation(&rng, P);
    env_cleanup();
    return cz_test_finish();
}
