/* PreloadSRS under the memory budget (engine.c: cz_engine_preload, preload_room), on the in-process engine
 * of srs_budget_env.h (gate-a, gate-b: S-byte SRS each, random partition charge P), random budgets:
 * - in use: a budget of one SRS and two partitions; while a gate-a job holds its SRS (partitions held in
 *   synthesis), a preload of gate-b fails at once with CZ_EFULL naming the sizes and loads nothing; the
 *   budget in use never exceeds the budget (before the fix: it loaded, S + S + partitions in use);
 * - young idle: the job done, gate-a idle for less than memory.eviction_min_idle (300 s): still CZ_EFULL,
 *   gate-a stays HOT;
 * - evict: the same with eviction_min_idle 0: the preload evicts gate-a (WARM) and loads gate-b (HOT), a
 *   second preload says already loaded;
 * - fits: a budget of two SRS: both preload with nothing evicted, the budget not exceeded;
 * - lone: a budget smaller than one SRS: the preload loads it alone (the documented WARN case) and a
 *   preload of the other, gate-a then idle (eviction_min_idle 0), replaces it; never two SRS at once;
 * - waiter: a job waits for memory for its SRS (a budget of two SRS and a partition, filled by a gate-a job's
 *   partitions held in synthesis, a CRITICAL gate-b job): a preload of a third circuit (the built-in test
 *   circuit, whose size is not known before its seeded setup) fails with CZ_EFULL instead of taking memory
 *   first (before: it loaded, past the budget);
 * - r1cs: a loaded SRS's bytes (what the budget counts) include its R1CS matrices: at least 36 bytes per term
 *   beyond the decoded parameters (before: the parameters alone); a load that finds no note of the R1CS size
 *   (cuzk-r1cs-<id>.bytes, a circuit's first load on a host) estimates the file alone, writes the note, and
 *   the next estimate is the loaded size again. */
#include "srs_budget_env.h"

static int preload(cz_engine *e, const char *id, bool *already) {
    uint64_t ms;
    *already = false;
    return cz_engine_preload(e, id, already, &ms);
}

static void in_use(cz_rng *rng, uint64_t P, uint64_t min_idle) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, min_idle, &p, &th);
    if (!e) return;
    bool already;
    if (min_idle) { /* in use: a1's partitions held in synthesis */
        hold_set(1);
        submit(e, "a1", CZ_KIND_POREP, rng);
        wait_held(2);
        int rc = preload(e, "gate-b", &already);
        CHECK_MSG(rc == CZ_EFULL && strstr(cz_error_message(), "does not fit in the memory budget"),
                  "in use: preload rc %d (%s)", rc, cz_error_message());
        CHECK(tier_of(e, "gate-b") != CZ_TIER_HOT);
        hold_set(0);
        done(e, "a1", NULL);
        /* young idle: gate-a unreferenced but not idle for eviction_min_idle */
        rc = preload(e, "gate-b", &already);
        CHECK_MSG(rc == CZ_EFULL, "young idle: preload rc %d (%s)", rc, rc ? cz_error_message() : "");
        CHECK(tier_of(e, "gate-a") == CZ_TIER_HOT && tier_of(e, "gate-b") != CZ_TIER_HOT);
    } else {
        submit(e, "a1", CZ_KIND_POREP, rng);
        done(e, "a1", NULL);
        int rc = preload(e, "gate-b", &already);
        CHECK_MSG(rc == 0 && !already, "evict: preload rc %d (%s)", rc, rc ? cz_error_message() : "");
        CHECK(tier_of(e, "gate-a") == CZ_TIER_WARM && tier_of(e, "gate-b") == CZ_TIER_HOT);
        CHECK(preload(e, "gate-b", &already) == 0 && already);
    }
    check_budget(min_idle ? "in use" : "evict", e, &p, th, budget, S);
    cz_engine_free(e);
}

static void fits(cz_rng *rng, uint64_t P) {
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 0, &p, &th);
    if (!e) return;
    bool a1, a2;
    CHECK(preload(e, "gate-a", &a1) == 0 && !a1 && preload(e, "gate-b", &a2) == 0 && !a2);
    CHECK(tier_of(e, "gate-a") == CZ_TIER_HOT && tier_of(e, "gate-b") == CZ_TIER_HOT);
    check_budget("fits", e, &p, th, budget, 2 * S);
    cz_engine_free(e);
}

static void lone(cz_rng *rng) {
    uint64_t budget = S / 4 + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 0, &p, &th);
    if (!e) return;
    bool already;
    CHECK(preload(e, "gate-a", &already) == 0 && tier_of(e, "gate-a") == CZ_TIER_HOT);
    CHECK(preload(e, "gate-b", &already) == 0 && tier_of(e, "gate-b") == CZ_TIER_HOT &&
          tier_of(e, "gate-a") == CZ_TIER_WARM);
    uint64_t peak = stop(e, &p, th);
    check_lone_peak(peak, budget);
    cz_engine_free(e);
}

static void waiter(cz_rng *rng, uint64_t P) {
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (P / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th);
    if (!e) return;
    hold_set(1);
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2); /* S + 2D in use: gate-b's S does not fit */
    submit_prio(e, "b1", CZ_KIND_WPOST, CZ_PRIO_CRITICAL, rng);
    srs_waiting(e, 1);
    bool already;
    int rc = preload(e, "porep-2k-test", &already);
    CHECK_MSG(rc == CZ_EFULL && strstr(cz_error_message(), "waits for memory"), "waiter: preload rc %d (%s)", rc,
              rc ? cz_error_message() : "");
    hold_set(0);
    done(e, "a1", NULL), done(e, "b1", NULL);
    check_budget("waiter", e, &p, th, budget, 2 * S);
    cz_engine_free(e);
}

static void r1cs_counted(void) {
    cz_srs_mgr m;
    char note[700];
    snprintf(note, sizeof note, "%s/cuzk-r1cs-gate-b.bytes", dir);
    CHECK(unlink(note) == 0);
    cz_srs_init(&m, dir, dir, 2);
    uint64_t est = 0, ms;
    CHECK(cz_srs_needs_load(&m, &gb, &est) && est > 0 && est < S); /* the parameter file alone */
    cz_srs_entry *en = NULL;
    if (cz_srs_acquire(&m, &gb, &en, &ms) == 0) {
        const cz_r1cs *r = &en->r1cs;
        uint64_t terms = cz_r1cs_nnz(&r->a) + cz_r1cs_nnz(&r->b) + cz_r1cs_nnz(&r->c);
        uint64_t params = cz_groth16_params_size(&en->params);
        CHECK_MSG(en->bytes == S && terms > 0 && en->bytes >= params + 36 * terms,
                  "r1cs: bytes %llu, params %llu, %llu terms", (unsigned long long)en->bytes,
                  (unsigned long long)params, (unsigned long long)terms);
        CHECK(est == params); /* the decoded parameters are as large as their file */
        cz_srs_release(&m, en);
        bool was;
        uint64_t freed;
        CHECK(cz_srs_evict(&m, &gb, &was, &freed) == 0 && was && freed == S);
    } else {
        CHECK_MSG(0, "r1cs: load: %s", cz_error_message());
    }
    cz_srs_destroy(&m);
    cz_srs_init(&m, dir, dir, 2); /* a restart: the note written by the load gives the whole size */
    CHECK(cz_srs_needs_load(&m, &gb, &est) && est == S);
    cz_srs_destroy(&m);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (!env_begin(&rng, &P)) {
        uint64_t t0 = cz_now_ms();
        in_use(&rng, P, 300);
        in_use(&rng, P, 0);
        fits(&rng, P);
        lone(&rng);
        waiter(&rng, P);
        r1cs_counted();
        printf("preload tests: %llu ms (S %llu, P %llu)\n", (unsigned long long)(cz_now_ms() - t0),
               (unsigned long long)S, (unsigned long long)P);
    }
    env_cleanup();
    return cz_test_finish();
}
