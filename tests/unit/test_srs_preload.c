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
 *   (cuzk-r1cs-<id>.bytes, a circuit's first load on a host) estimates the file plus the circuit's counted R1CS
 *   (count_r1cs), exactly the loaded size (before: the file alone, the R1CS short), counted once however often
 *   it is asked and logged once at info; without a count hook, the file alone; the load writes the note, and
 *   after a restart the estimate is the loaded size again without counting; a count that disagrees with the
 *   recording is reported (WARN "the count is wrong") after the load. */

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


static unsigned occurrences(const char *s, const char *what) {
    unsigned n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* The test circuit's count, counted (calls), or one term off (the count of a circuit whose blocks differ). */
static int count_calls;
static int counted_hook(const cz_circuit *c, cz_r1cs_shape *out) {
    count_calls++;
    return cz_circuit_find("porep-2k-test")->count_r1cs(c, out);
}
static int wrong_hook(const cz_circuit *c, cz_r1cs_shape *out) {
    int rc = cz_circuit_find("porep-2k-test")->count_r1cs(c, out);
    out->nnz[2]++;
    return rc;
}

/* The R1CS bytes of the recording by the count's formula (a value a term: what it held before it was coded). */
static uint64_t g_full;

/* A first load (no note) of circuit c (gate-b's files, its own count hook): *est the estimate, then the load;
 * the loaded SRS's bytes, the R1CS's (coded, as held) and the parameters' in *loaded, *r1cs, *params; g_full. */
static bool first_load(const cz_circuit *c, uint64_t *est, uint64_t *loaded, uint64_t *r1cs, uint64_t *params) {
    char note[700];
    snprintf(note, sizeof note, "%s/cuzk-r1cs-gate-b.bytes", dir);
    unlink(note);
    cz_srs_mgr m;
    cz_srs_init(&m, dir, dir, 2);
    uint64_t ms;
    bool ok = cz_srs_needs_load(&m, c, est);
    uint64_t again = 0;
    ok = ok && cz_srs_needs_load(&m, c, &again) && again == *est; /* counted once: the same estimate */
    cz_srs_entry *en = NULL;
    if (ok && cz_srs_acquire(&m, c, &en, &ms) == 0) {
        *loaded = en->bytes, *r1cs = cz_r1cs_host_bytes(&en->r1cs), *params = cz_groth16_params_size(&en->params);
        const cz_r1cs_shape sh = cz_r1cs_shape_of(&en->r1cs);
        g_full = cz_r1cs_shape_bytes(&sh);
        cz_srs_release(&m, en);
        bool was;
        uint64_t freed;
        ok = cz_srs_evict(&m, c, &was, &freed) == 0 && was && freed == *loaded;
    } else {
        ok = false;
    }
    cz_srs_destroy(&m);
    return ok;
}

static void r1cs_counted(void) {
    char logf[700];
    snprintf(logf, sizeof logf, "%s/log.txt", dir);
    uint64_t est = 0, loaded = 0, rb = 0, params = 0;
    /* no count hook: the parameter file alone, short of the R1CS */
    cz_circuit nohook = gb;
    nohook.count_r1cs = NULL;
    CHECK_MSG(first_load(&nohook, &est, &loaded, &rb, &params), "r1cs: load: %s", cz_error_message());
    CHECK_MSG(est == params && loaded == S && loaded >= params + rb && rb > 0,
              "r1cs, no hook: estimate %llu, params %llu, loaded %llu, R1CS %llu", (unsigned long long)est,
              (unsigned long long)params, (unsigned long long)loaded, (unsigned long long)rb);
    /* counted: the file plus the counted R1CS, the loaded size exactly; counted and logged once */
    cz_circuit hook = gb;
    hook.count_r1cs = counted_hook;
    count_calls = 0;
    cz_log_set_level("info");
    cz_test_capture_begin(logf);
    bool ok = first_load(&hook, &est, &loaded, &rb, &params);
    char *log = cz_test_capture_end(logf);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "warn");
    CHECK_MSG(ok, "r1cs, counted: load failed: %s", cz_error_message());
    /* the count's formula is the recording's size (a value a term), above what the loaded SRS holds once its
     * coefficients are coded */
    CHECK_MSG(est == params + g_full && loaded == S && loaded == params + rb && rb < g_full && count_calls == 1,
              "r1cs, counted: estimate %llu, loaded %llu (S %llu), params %llu + R1CS %llu (recorded %llu), %d count(s)",
              (unsigned long long)est, (unsigned long long)loaded, (unsigned long long)S, (unsigned long long)params,
              (unsigned long long)rb, (unsigned long long)g_full, count_calls);
    CHECK_MSG(occurrences(log, "R1CS of gate-b counted: ") == 1 && !strstr(log, "the count is wrong"),
              "r1cs, counted: log:\n%s", log);
    free(log);
    /* a restart: the note written by the load gives the whole size, nothing counted */
    cz_srs_mgr m;
    cz_srs_init(&m, dir, dir, 2);
    CHECK(cz_srs_needs_load(&m, &hook, &est) && est == S && count_calls == 1);
    cz_srs_destroy(&m);
    /* a count that is wrong: its estimate is off and the load says so */
    cz_circuit wrong = gb;
    wrong.count_r1cs = wrong_hook;
    cz_test_capture_begin(logf);
    ok = first_load(&wrong, &est, &loaded, &rb, &params);
    log = cz_test_capture_end(logf);
    CHECK_MSG(ok && est == params + g_full + 36 && loaded == S, "r1cs, wrong count: estimate %llu, loaded %llu (S %llu)",
              (unsigned long long)est, (unsigned long long)loaded, (unsigned long long)S);
    CHECK_MSG(occurrences(log, "the count is wrong") == 1, "r1cs, wrong count: log:\n%s", log);
    free(log);
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
