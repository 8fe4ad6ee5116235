/* Shared by test_srs_budget.c, test_srs_starve.c and test_srs_urgent.c: the in-process engine with two
 * "proof kinds" that are copies of the built-in test circuit (gate-a for PoRep requests, gate-b for
 * WindowPoSt ones: two SRS entries of S bytes each, read from seeded parameter files written once per run),
 * a poller of the budget in use as GetStatus reports it, gate-a's witness hook that can hold partitions in
 * synthesis, and a trace of the order in which partitions of both went to synthesis. */
#ifndef CZ_TEST_SRS_BUDGET_ENV_H
#define CZ_TEST_SRS_BUDGET_ENV_H

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

static char dir[] = "/tmp/cz_srs_gate_XXXXXX";
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

/* The engine on backend ("cpu", or "gpu" for a test's provider), its budget poller running. */
__attribute__((unused)) static cz_engine *start_backend(uint64_t budget, uint64_t min_idle_s, const char *backend,
                                                        poller *p, pthread_t *th) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    snprintf(cfg.backend, sizeof cfg.backend, "%s", backend);
    cfg.gpu_workers_per_device = 1;
    cfg.max_parallel_synthesis = 2;
    cfg.total_budget = budget;
    cfg.eviction_min_idle_s = min_idle_s;
    /* The scenarios hold gate-a's partitions in synthesis, two at once (wait_held): with the depth-first shares
     * the first would take every thread of the pool and the second never start. The team policy is
     * test_engine_synth_pool's and test_sched's; here the even split, which gives each partition a thread. */
    setenv("CUZK_SYNTH_DEPTH", "0", 1);
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

__attribute__((unused)) static cz_engine *start(uint64_t budget, uint64_t min_idle_s, poller *p, pthread_t *th) {
    return start_backend(budget, min_idle_s, "cpu", p, th);
}

__attribute__((unused)) static uint64_t stop(cz_engine *e, poller *p, pthread_t th) {
    atomic_store(&p->stop, 1);
    pthread_join(th, NULL);
    cz_engine_status st;
    uint64_t peak = 0;
    if (cz_engine_status_get(e, &st) == 0) peak = st.budget_peak, cz_engine_status_free(&st);
    return peak;
}

/* Submits a job of kind (PoRep: gate-a, WindowPoSt: gate-b) and priority with a fresh payload. */
__attribute__((unused)) static int submit_prio(cz_engine *e, const char *id, int kind, int prio, cz_rng *rng) {
    char payload[40];
    snprintf(payload, sizeof payload, "%016llx-%s", (unsigned long long)cz_rng_next(rng), id);
    cz_submit s = {0};
    s.request_id = id, s.kind = kind, s.sector_size = 2048, s.priority = prio;
    s.vanilla = (const uint8_t *)payload, s.vanilla_len = strlen(payload);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    int rc = cz_engine_submit(e, &s, jid, &q);
    CHECK_MSG(rc == 0, "submit %s: %s", id, cz_error_message());
    return rc;
}

__attribute__((unused)) static int submit(cz_engine *e, const char *id, int kind, cz_rng *rng) {
    return submit_prio(e, id, kind, CZ_PRIO_NORMAL, rng);
}

/* COMPLETED within 30 s with parts proofs (a gate that never opens fails here instead of hanging); *r kept
 * when asked. */
__attribute__((unused)) static bool done_parts(cz_engine *e, const char *id, uint32_t parts, cz_result *keep) {
    cz_result r;
    memset(&r, 0, sizeof r);
    bool ok = cz_engine_await(e, id, 30000, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == parts * 192;
    CHECK_MSG(ok, "job %s: status %d %s", id, r.status, r.error);
    if (keep) *keep = r;
    else cz_result_free(&r);
    return ok;
}

/* done_parts for the two partitions the circuits have unless a test changes them */
__attribute__((unused)) static bool done(cz_engine *e, const char *id, cz_result *keep) {
    return done_parts(e, id, 2, keep);
}

/* The job's status after waiting up to wait_ms (-1 when the await fails), its error text in err. */
__attribute__((unused)) static int status_of(cz_engine *e, const char *id, uint64_t wait_ms, char *err, size_t n) {
    cz_result r;
    memset(&r, 0, sizeof r);
    int st = cz_engine_await(e, id, wait_ms, &r) == 0 ? r.status : -1;
    if (err) snprintf(err, n, "%s", r.error);
    cz_result_free(&r);
    return st;
}

__attribute__((unused)) static bool finished(cz_engine *e, const char *id) {
    cz_result r;
    memset(&r, 0, sizeof r);
    bool f = cz_engine_await(e, id, 1, &r) == 0 && r.status != CZ_JOB_TIMEOUT;
    cz_result_free(&r);
    return f;
}

__attribute__((unused)) static int tier_of(cz_engine *e, const char *circuit) {
    cz_engine_status st;
    int t = -1;
    if (cz_engine_status_get(e, &st)) return t;
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, circuit)) t = st.srs[i].tier;
    cz_engine_status_free(&st);
    return t;
}

/* Waits (10 s at most) until n queued jobs wait for memory for their SRS (GetStatus's srs_waiting). */
__attribute__((unused)) static bool srs_waiting(cz_engine *e, uint32_t n) {
    uint64_t t0 = cz_now_ms();
    for (;;) {
        cz_engine_status st;
        uint32_t w = 0;
        if (cz_engine_status_get(e, &st) == 0) w = st.srs_waiting, cz_engine_status_free(&st);
        if (w >= n) return true;
        if (cz_now_ms() - t0 > 10000) break;
        usleep(2000);
    }
    CHECK_MSG(0, "no %u job(s) waiting for SRS memory after 10 s", n);
    return false;
}

/* gate-a's witness hook; while hold is set, partitions wait in it (they stay charged, in flight). Both
 * hooks append to trace (under hmu) as a partition starts synthesis: its circuit ('a' or 'b'), its job's
 * circuit state (tells apart jobs of one circuit) and its index. */
static pthread_mutex_t hmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hcv = PTHREAD_COND_INITIALIZER;
static int hold, held;
typedef struct {
    char circ;
    const void *job;
    uint32_t part;
} trace_ev;
static trace_ev trace[1024];
static int ntrace;

static void trace_add(char circ, const void *job, uint32_t part) {
    if (ntrace < (int)(sizeof trace / sizeof *trace)) trace[ntrace++] = (trace_ev){circ, job, part};
}

static int traced_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                        cz_fr **aux, uint64_t *na) {
    pthread_mutex_lock(&hmu);
    trace_add('b', state, partition);
    pthread_mutex_unlock(&hmu);
    return cz_circuit_find("porep-2k-test")->synthesize(c, state, partition, inputs, ni, aux, na);
}

static int held_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                      cz_fr **aux, uint64_t *na) {
    pthread_mutex_lock(&hmu);
    trace_add('a', state, partition);
    held++;
    pthread_cond_broadcast(&hcv);
    while (hold) pthread_cond_wait(&hcv, &hmu);
    held--;
    pthread_mutex_unlock(&hmu);
    return cz_circuit_find("porep-2k-test")->synthesize(c, state, partition, inputs, ni, aux, na);
}

/* From now on gate-a's partitions wait in synthesis (on) or go on (off). */
__attribute__((unused)) static void hold_set(int on) {
    pthread_mutex_lock(&hmu);
    hold = on;
    pthread_cond_broadcast(&hcv);
    pthread_mutex_unlock(&hmu);
}

/* Until n gate-a partitions wait in synthesis. */
__attribute__((unused)) static void wait_held(int n) {
    pthread_mutex_lock(&hmu);
    while (held < n) pthread_cond_wait(&hcv, &hmu);
    pthread_mutex_unlock(&hmu);
}

__attribute__((unused)) static void trace_reset(void) {
    pthread_mutex_lock(&hmu);
    ntrace = 0;
    pthread_mutex_unlock(&hmu);
}

/* The lone-SRS rule's bound: the engine's peak went past a budget smaller than one SRS, yet never held two. */
__attribute__((unused)) static void check_lone_peak(uint64_t peak, uint64_t budget) {
    CHECK_MSG(peak > budget && peak < 2 * S, "lone: budget %llu, peak %llu, S %llu", (unsigned long long)budget,
              (unsigned long long)peak, (unsigned long long)S);
}

/* The priority tests' opening: an engine (start()), the synthesis trace cleared, gate-a's partitions held, and
 * the NORMAL gate-a job a1 submitted with two of its partitions waiting in synthesis. */
__attribute__((unused)) static cz_engine *start_a1_held(cz_rng *rng, uint64_t budget, uint64_t min_idle_s, poller *p,
                                                        pthread_t *th) {
    cz_engine *e = start(budget, min_idle_s, p, th);
    if (!e) return NULL;
    trace_reset();
    hold_set(1);
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2);
    return e;
}

/* gate-a partitions that went to synthesis before the first gate-b partition (-1: no gate-b one). */
__attribute__((unused)) static int a_before_b(void) {
    pthread_mutex_lock(&hmu);
    int n = 0, r = -1;
    for (int i = 0; i < ntrace && r < 0; i++) {
        if (trace[i].circ == 'b') r = n;
        else n++;
    }
    pthread_mutex_unlock(&hmu);
    return r;
}

/* Stops the poller; the budget in use (polled, and the engine's peak) never exceeded budget, and the peak
 * reached floor (so the check saw the load it is about). */
__attribute__((unused)) static void check_budget(const char *what, cz_engine *e, poller *p, pthread_t th,
                                                 uint64_t budget, uint64_t floor) {
    uint64_t peak = stop(e, p, th);
    CHECK_MSG(p->max <= budget && peak <= budget && peak >= floor, "%s: budget %llu, polled max %llu, peak %llu",
              what, (unsigned long long)budget, (unsigned long long)p->max, (unsigned long long)peak);
}

/* The two circuits and their parameter files (one seeded setup, gate-b reads a copy); S and D. 0 when ready. */
static int env_setup(void) {
    char a[700], b[700], cmd[1500];
    CHECK(mkdtemp(dir) != NULL);
    const cz_circuit *t = cz_circuit_find("porep-2k-test");
    ga = gb = *t;
    ga.id = "gate-a", gb.id = "gate-b";
    gb.kind = CZ_KIND_WPOST;
    ga.params_file = gb.params_file = NULL;
    ga.synthesize = held_synth, ga.synthesize_compact = NULL;
    gb.synthesize = traced_synth, gb.synthesize_compact = NULL;
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
    /* no file yet (a seeded setup's first load): its count's bound, at least what a setup of it holds */
    CHECK_MSG(cz_srs_needs_load(&m, &gb, &est) && est >= S && est < 2 * S, "seeded, no file: estimate %llu, S %llu",
              (unsigned long long)est, (unsigned long long)S);
    cz_srs_destroy(&m);
    snprintf(a, sizeof a, "%s/cuzk-test-gate-a.params", dir);
    snprintf(b, sizeof b, "%s/cuzk-test-gate-b.params", dir);
    snprintf(cmd, sizeof cmd, "cp %s %s", a, b);
    CHECK(system(cmd) == 0);
    /* and the size of its R1CS that the load recorded (srs.c: counted with the parameters) */
    snprintf(cmd, sizeof cmd, "cp %s/cuzk-r1cs-gate-a.bytes %s/cuzk-r1cs-gate-b.bytes", dir, dir);
    CHECK(system(cmd) == 0);
    cz_srs_init(&m, dir, dir, 2);
    CHECK(cz_srs_needs_load(&m, &gb, &est) && est == S); /* the file's size (the decoded size) + the R1CS */
    cz_srs_destroy(&m);
    return S && D ? 0 : -1;
}

/* Each test's start: a fresh seed, the log level, the circuits, and *P, a partition's charge, set on both: small
 * next to an SRS, so that one SRS and two partitions fit where two SRS do not, and a little above its witness (so
 * that two held in synthesis, 2D, outweigh one whole charge). 0 when ready. */
static int env_begin(cz_rng *rng, uint64_t *P) {
    cz_test_rng(rng);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "warn");
    if (env_setup()) return -1;
    *P = D + cz_rng_next(rng) % (D / 4);
    CHECK(*P < S / 8);
    ga.partition_mem = gb.partition_mem = *P;
    return 0;
}

static void env_cleanup(void) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

#endif
