/* SRS loads under the memory budget (engine.c: srs_fits, pass_blocked), on the in-process engine with two
 * "proof kinds" that are copies of the built-in test circuit (gate-a for PoRep requests, gate-b for
 * WindowPoSt ones: two SRS entries of S bytes each, read from seeded parameter files written once here),
 * a random partition_mem P and a random budget that holds one SRS and two partitions but never two SRS:
 * - serialize: a1 (gate-a), b1 (gate-b), a2, a3: b1's load waits until gate-a is idle for
 *   memory.eviction_min_idle and evicted; a2 and a3 (SRS loaded) go ahead of it and finish first; every
 *   job completes; the budget in use (partitions + loaded SRS + SRS being loaded, from status polled
 *   all along and from the engine's own high-water mark) never exceeds the budget;
 * - in-flight: a budget that holds both SRS and one partition: while a1's two partitions are held in
 *   synthesis, b1 stays queued; once they go on, b1 loads without evicting gate-a (both HOT at the end);
 * - starvation: while a stream of gate-a jobs keeps gate-a busy, b1 still completes (the jobs stop passing
 *   it after eviction_min_idle), well before the stream would end;
 * - lone: a budget smaller than one SRS: a job still loads it and completes (the budget is then exceeded:
 *   the documented case), and a job of the other kind after it too (nothing deadlocks);
 * - synth ahead: partitions are charged their dense witness while synthesized, the rest for start(): with
 *   room for one SRS, one whole charge and one witness, two partitions synthesize at once, within budget. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/srs.h"

static char dir[] = "/tmp/cz_srs_budget_XXXXXX";
static cz_circuit ga, gb;
static uint64_t S; /* bytes of one loaded SRS */
static uint64_t D; /* a partition's dense witness bytes: its charge while it is synthesized */

typedef struct {
    cz_engine *e;
    atomic_int stop;
    uint64_t max;
} poller;

/* The budget in use as GetStatus reports it, as often as the engine lets us look. */
static void *poll_main(void *arg) {
    poller *p = arg;
    while (!atomic_load(&p->stop)) {
        cz_engine_status st;
        if (cz_engine_status_get(p->e, &st) == 0) {
            if (st.budget_used > p->max) p->max = st.budget_used;
            cz_engine_status_free(&st);
        }
        usleep(500);
    }
    return NULL;
}

static cz_engine *start(uint64_t budget, uint64_t min_idle_s, poller *p, pthread_t *th) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    snprintf(cfg.backend, sizeof cfg.backend, "cpu");
    cfg.gpu_workers_per_device = 1;
    cfg.max_parallel_synthesis = 2;
    cfg.total_budget = budget;
    cfg.eviction_min_idle_s = min_idle_s;
    cz_engine *e = NULL;
    int rc = cz_engine_new(&e, &cfg);
    CHECK_MSG(rc == 0, "engine: %s", cz_error_message());
    if (rc) return NULL;
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &ga);
    cz_engine_set_circuit_for_test(e, CZ_KIND_WPOST, &gb);
    p->e = e, p->max = 0;
    atomic_store(&p->stop, 0);
    pthread_create(th, NULL, poll_main, p);
    return e;
}

static uint64_t stop(cz_engine *e, poller *p, pthread_t th) {
    atomic_store(&p->stop, 1);
    pthread_join(th, NULL);
    cz_engine_status st;
    uint64_t peak = 0;
    if (cz_engine_status_get(e, &st) == 0) peak = st.budget_peak, cz_engine_status_free(&st);
    return peak;
}

/* Submits a NORMAL job of kind (PoRep: gate-a, WindowPoSt: gate-b) with a fresh payload. */
static int submit(cz_engine *e, const char *id, int kind, cz_rng *rng) {
    char payload[40];
    snprintf(payload, sizeof payload, "%016llx-%s", (unsigned long long)cz_rng_next(rng), id);
    cz_submit s = {0};
    s.request_id = id, s.kind = kind, s.sector_size = 2048, s.priority = CZ_PRIO_NORMAL;
    s.vanilla = (const uint8_t *)payload, s.vanilla_len = strlen(payload);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    int rc = cz_engine_submit(e, &s, jid, &q);
    CHECK_MSG(rc == 0, "submit %s: %s", id, cz_error_message());
    return rc;
}

/* COMPLETED within 30 s (a gate that never opens fails here instead of hanging); *r kept when asked. */
static bool done(cz_engine *e, const char *id, cz_result *keep) {
    cz_result r;
    bool ok = cz_engine_await(e, id, 30000, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == 2 * 192;
    CHECK_MSG(ok, "job %s: status %d %s", id, r.status, r.error);
    if (keep) *keep = r;
    else cz_result_free(&r);
    return ok;
}

static bool finished(cz_engine *e, const char *id) {
    cz_result r;
    bool f = cz_engine_await(e, id, 1, &r) == 0 && r.status != CZ_JOB_TIMEOUT;
    cz_result_free(&r);
    return f;
}

static int tier_of(cz_engine *e, const char *circuit) {
    cz_engine_status st;
    int t = -1;
    if (cz_engine_status_get(e, &st)) return t;
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, circuit)) t = st.srs[i].tier;
    cz_engine_status_free(&st);
    return t;
}

static void serialize(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2), min_idle = 2;
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

/* gate-a's witness hook; while hold is set, partitions wait in it (they stay charged, in flight). */
static pthread_mutex_t hmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hcv = PTHREAD_COND_INITIALIZER;
static int hold, held;

static int held_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni, cz_fr **aux,
                      uint64_t *na) {
    pthread_mutex_lock(&hmu);
    held++;
    pthread_cond_broadcast(&hcv);
    while (hold) pthread_cond_wait(&hcv, &hmu);
    held--;
    pthread_mutex_unlock(&hmu);
    return cz_circuit_find("porep-2k-test")->synthesize(c, state, partition, inputs, ni, aux, na);
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
    CHECK_MSG(peak > budget && peak < 2 * S, "lone: budget %llu, peak %llu, S %llu", (unsigned long long)budget,
              (unsigned long long)peak, (unsigned long long)S);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "warn");
    CHECK(mkdtemp(dir) != NULL);
    const cz_circuit *t = cz_circuit_find("porep-2k-test");
    ga = gb = *t;
    ga.id = "gate-a", gb.id = "gate-b";
    gb.kind = CZ_KIND_WPOST;
    ga.params_file = gb.params_file = NULL;
    ga.synthesize = held_synth, ga.synthesize_compact = NULL;
    /* One seeded setup; gate-b (the same circuit shape) reads a copy of its file. */
    cz_srs_mgr m;
    cz_srs_init(&m, dir, dir, 2);
    bool already;
    uint64_t ms;
    int rc = cz_srs_preload(&m, &ga, &already, &ms);
    CHECK_MSG(rc == 0, "setup: %s", cz_error_message());
    S = rc ? 0 : m.head->bytes;
    D = rc ? 0 : (m.head->r1cs.num_inputs + m.head->r1cs.num_aux) * 32;
    uint64_t est = 0;
    CHECK(!cz_srs_needs_load(&m, &ga, &est) && est == 0);
    CHECK(cz_srs_needs_load(&m, &gb, &est) && est == 0); /* no file yet: unknown */
    cz_srs_destroy(&m);
    char a[700], b[700], cmd[1500];
    snprintf(a, sizeof a, "%s/cuzk-test-gate-a.params", dir);
    snprintf(b, sizeof b, "%s/cuzk-test-gate-b.params", dir);
    snprintf(cmd, sizeof cmd, "cp %s %s", a, b);
    CHECK(system(cmd) == 0);
    cz_srs_init(&m, dir, dir, 2);
    CHECK(cz_srs_needs_load(&m, &gb, &est) && est == S); /* the file's size is the decoded size */
    cz_srs_destroy(&m);
    if (S) {
        /* partitions small next to an SRS, so that one SRS and two partitions fit where two SRS do not; a
         * little above their witness (so that two held in synthesis, 2D, outweigh one whole charge) */
        uint64_t P = D + cz_rng_next(&rng) % (D / 4);
        CHECK(P < S / 8);
        ga.partition_mem = gb.partition_mem = P;
        uint64_t t0 = cz_now_ms();
        serialize(&rng, P);
        uint64_t t1 = cz_now_ms();
        in_flight(&rng, P);
        uint64_t t2 = cz_now_ms();
        starvation(&rng, P);
        uint64_t t3 = cz_now_ms();
        lone(&rng);
        uint64_t t4 = cz_now_ms();
        synth_ahead(&rng);
        printf("serialize %llu ms, in flight %llu ms, starvation %llu ms, lone %llu ms, synth ahead %llu ms\n",
               (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2),
               (unsigned long long)(t4 - t3), (unsigned long long)(cz_now_ms() - t4));
    }
    unlink(a), unlink(b);
    rmdir(dir);
    return cz_test_finish();
}
