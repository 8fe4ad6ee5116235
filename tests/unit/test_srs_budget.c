/* SRS loads under the memory budget (engine.c: srs_fits, pass_blocked) and the partition charges, on the
 * in-process engine with two proof kinds of S-byte SRS each (srs_budget_env.h), a random partition_mem P
 * and a random budget that holds one SRS and two partitions but never two SRS:
 * - serialize: a1 (gate-a), b1 (gate-b), a2, a3: b1's load waits until gate-a is idle for
 *   memory.eviction_min_idle and evicted; a2 and a3 (SRS loaded) go ahead of it and finish first; every
 *   job completes; the budget in use (partitions + loaded SRS + SRS being loaded, from status polled
 *   all along and from the engine's own high-water mark) never exceeds the budget;
 * - in-flight: a budget that holds both SRS and one partition: while a1's two partitions are held in
 *   synthesis, b1 stays queued; once they go on, b1 loads without evicting gate-a (both HOT at the end);
 * - lone: a budget smaller than one SRS: a job still loads it and completes (the budget is then exceeded:
 *   the documented case), and a job of the other kind after it too (nothing deadlocks);
 * - synth ahead: partitions are charged their dense witness while synthesized, the rest for start(): with
 *   room for one SRS, one whole charge and one witness, two partitions synthesize at once, within budget. */
#include "srs_budget_env.h"

static void serialize(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2), min_idle = 1;
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, min_idle, &p, &th);
    if (!e) return;
    submit(e, "a1", CZ_KIND_POREP, rng);
    submit(e, "b1", CZ_KIND_WPOST, rng);
    submit(e, "a2", CZ_KIND_POREP, rng);
    submit(e, "a3", CZ_KIND_POREP, rng);
    done(e, "a1", NULL), done(e, "a2", NULL), done(e, "a3", NULL);
    /* gate-a was in use until a3 finished and must then sit idle min_idle before b1 can load */
    CHECK_MSG(!finished(e, "b1"), "b1 finished before gate-a could be evicted");
    cz_result rb;
    if (done(e, "b1", &rb)) {
        CHECK_MSG(rb.queue_wait_ms >= min_idle * 1000, "b1 waited %llu ms", (unsigned long long)rb.queue_wait_ms);
        cz_result_free(&rb);
    }
    CHECK(tier_of(e, "gate-a") == CZ_TIER_WARM && tier_of(e, "gate-b") == CZ_TIER_HOT);
    uint64_t peak = stop(e, &p, th);
    CHECK_MSG(p.max <= budget && peak <= budget && peak >= S + P, "serialize: budget %llu, polled max %llu, peak %llu",
              (unsigned long long)budget, (unsigned long long)p.max, (unsigned long long)peak);
    char *m = cz_engine_metrics(e);
    char want[96];
    snprintf(want, sizeof want, "cuzk_memory_budget_peak_bytes %llu\n", (unsigned long long)peak);
    CHECK(m && strstr(m, want));
    free(m);
    printf("serialize: S %llu, P %llu, budget %llu, polled max %llu, peak %llu\n", (unsigned long long)S,
           (unsigned long long)P, (unsigned long long)budget, (unsigned long long)p.max, (unsigned long long)peak);
    cz_engine_free(e);
}

static void in_flight(cz_rng *rng, uint64_t P) {
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (P / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th); /* nothing becomes evictable during the test */
    if (!e) return;
    pthread_mutex_lock(&hmu);
    hold = 1;
    pthread_mutex_unlock(&hmu);
    submit(e, "a1", CZ_KIND_POREP, rng);
    pthread_mutex_lock(&hmu);
    while (held < 2) pthread_cond_wait(&hcv, &hmu); /* both partitions in synthesis: S + 2D of the budget */
    pthread_mutex_unlock(&hmu);
    submit(e, "b1", CZ_KIND_WPOST, rng);
    usleep(300 * 1000);
    cz_engine_status st;
    if (cz_engine_status_get(e, &st) == 0) { /* b1's SRS would not fit beside them: it waits, still queued */
        CHECK_MSG(st.pending_by_kind[CZ_KIND_WPOST] == 1 && st.budget_used == S + 2 * D,
                  "in flight: b1 queued %u, budget used %llu", st.pending_by_kind[CZ_KIND_WPOST],
                  (unsigned long long)st.budget_used);
        cz_engine_status_free(&st);
    }
    CHECK(tier_of(e, "gate-b") != CZ_TIER_HOT);
    pthread_mutex_lock(&hmu);
    hold = 0;
    pthread_cond_broadcast(&hcv);
    pthread_mutex_unlock(&hmu);
    done(e, "a1", NULL), done(e, "b1", NULL);
    CHECK(tier_of(e, "gate-a") == CZ_TIER_HOT && tier_of(e, "gate-b") == CZ_TIER_HOT); /* no eviction needed */
    uint64_t peak = stop(e, &p, th);
    CHECK_MSG(p.max <= budget && peak <= budget && peak >= 2 * S, "in flight: budget %llu, polled max %llu, peak %llu",
              (unsigned long long)budget, (unsigned long long)p.max, (unsigned long long)peak);
    cz_engine_free(e);
}

/* Problem 2: a partition is charged its witness while it is synthesized and the rest (partition_mem) only
 * for start(): with a budget of S + P + D (P = 8D), two partitions synthesize at once (charging the whole P
 * from the start of synthesis would let only one); the top-ups for start() then take turns, within budget. */
static void synth_ahead(cz_rng *rng) {
    uint64_t P = 8 * D, budget = S + P + D + cz_rng_next(rng) % (D / 2);
    ga.partition_mem = P;
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th);
    if (!e) return;
    pthread_mutex_lock(&hmu);
    hold = 1;
    pthread_mutex_unlock(&hmu);
    submit(e, "a1", CZ_KIND_POREP, rng);
    uint64_t t0 = cz_now_ms();
    pthread_mutex_lock(&hmu);
    while (held < 2 && cz_now_ms() - t0 < 3000) {
        pthread_mutex_unlock(&hmu);
        usleep(1000);
        pthread_mutex_lock(&hmu);
    }
    int both = held;
    hold = 0;
    pthread_cond_broadcast(&hcv);
    pthread_mutex_unlock(&hmu);
    CHECK_MSG(both == 2, "synth ahead: %d partition(s) synthesizing at once under budget S + P + D", both);
    done(e, "a1", NULL);
    uint64_t peak = stop(e, &p, th);
    CHECK_MSG(p.max <= budget && peak <= budget && peak >= S + P, "synth ahead: budget %llu, polled max %llu, peak %llu",
              (unsigned long long)budget, (unsigned long long)p.max, (unsigned long long)peak);
    cz_engine_free(e);
}

static void lone(cz_rng *rng) {
    uint64_t budget = S / 4 + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 0, &p, &th);
    if (!e) return;
    submit(e, "a1", CZ_KIND_POREP, rng);
    submit(e, "b1", CZ_KIND_WPOST, rng);
    done(e, "a1", NULL), done(e, "b1", NULL);
    uint64_t peak = stop(e, &p, th);
    /* one SRS at a time even here: the second waits for the first to be evicted */
    check_lone_peak(peak, budget);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (!env_begin(&rng, &P)) {
        uint64_t t0 = cz_now_ms();
        serialize(&rng, P);
        uint64_t t1 = cz_now_ms();
        in_flight(&rng, P);
        uint64_t t2 = cz_now_ms();
        lone(&rng);
        uint64_t t3 = cz_now_ms();
        synth_ahead(&rng);
        printf("serialize %llu ms, in flight %llu ms, lone %llu ms, synth ahead %llu ms\n", (unsigned long long)(t1 - t0),
               (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2), (unsigned long long)(cz_now_ms() - t3));
    }
    env_cleanup();
    return cz_test_finish();
}
