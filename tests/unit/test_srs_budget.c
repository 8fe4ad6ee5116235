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
 *   room for one SRS, one whole charge and one witness, two partitions synthesize at once, within budget;
 * - backend host bytes: a backend that holds host memory of its own (cz_backend.host_bytes: a GPU prover's
 *   matrices in page-locked host memory) has it counted in the budget. With room for both SRS and one
 *   partition, H = S / 2 of it makes b1's SRS wait for gate-a's eviction (without it both stay loaded, as in
 *   in-flight); status (backend_host_bytes, budget_used), the metric and the peak all carry H. */
#include "srs_budget_env.h"
#include "engine/backend.h"

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

/* A CPU-proving backend on one "GPU" that reports hb_bytes of host memory of its own. */
static _Atomic uint64_t hb_bytes;
static uint64_t hb_host_bytes(cz_backend *b) {
    (void)b;
    return atomic_load(&hb_bytes);
}
static int hb_count(void) { return 1; }
static int hb_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(b, nthreads);
    b->name = "host-bytes", b->ndevices = 1, b->host_bytes = hb_host_bytes;
    return 0;
}

static void host_bytes(cz_rng *rng, uint64_t P, uint64_t H) {
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (P / 2), min_idle = 1;
    cz_gpu_provider prov = {hb_count, hb_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    atomic_store(&hb_bytes, H);
    poller p;
    pthread_t th;
    cz_engine *e = start_backend(budget, min_idle, "gpu", &p, &th);
    cz_backend_set_gpu_provider(NULL);
    if (!e) return;
    submit(e, "a1", CZ_KIND_POREP, rng);
    done(e, "a1", NULL);
    submit(e, "b1", CZ_KIND_WPOST, rng);
    done(e, "b1", NULL);
    /* with H counted, gate-a (idle min_idle) had to go for gate-b; without any, both fit */
    const int want_a = H ? CZ_TIER_WARM : CZ_TIER_HOT;
    CHECK_MSG(tier_of(e, "gate-a") == want_a && tier_of(e, "gate-b") == CZ_TIER_HOT,
              "host bytes %llu: gate-a tier %d, want %d", (unsigned long long)H, tier_of(e, "gate-a"), want_a);
    cz_engine_status st;
    if (cz_engine_status_get(e, &st) == 0) {
        const uint64_t srs = (H ? 1 : 2) * S;
        CHECK_MSG(st.backend_host_bytes == H && st.budget_used == srs + H,
                  "host bytes %llu: status says %llu, budget used %llu (SRS %llu)", (unsigned long long)H,
                  (unsigned long long)st.backend_host_bytes, (unsigned long long)st.budget_used,
                  (unsigned long long)srs);
        cz_engine_status_free(&st);
    }
    char *m = cz_engine_metrics(e), want[96];
    snprintf(want, sizeof want, "cuzk_prover_host_bytes %llu\n", (unsigned long long)H);
    CHECK_MSG(m && strstr(m, want), "metrics lack %s", want);
    free(m);
    check_budget("host bytes", e, &p, th, budget, S + P + H);
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
        uint64_t t4 = cz_now_ms();
        host_bytes(&rng, P, 0);
        host_bytes(&rng, P, S / 2);
        printf("host bytes %llu ms\n", (unsigned long long)(cz_now_ms() - t4));
        printf("serialize %llu ms, in flight %llu ms, lone %llu ms, synth ahead %llu ms\n", (unsigned long long)(t1 - t0),
               (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2), (unsigned long long)(cz_now_ms() - t3));
    }
    env_cleanup();
    return cz_test_finish();
}
