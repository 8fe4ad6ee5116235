/* An urgent job does not wait behind less urgent work for memory (engine.c: jobs_with_parts_left by priority,
 * pass_blocked, yield_to_srs_waiter, min_idle_ms; spec bug #5), on the in-process engine of
 * srs_budget_env.h (gate-a: PoRep requests, gate-b: WindowPoSt requests, S-byte SRS each, random partition
 * charge P) with random budgets. Assertions are on the order in which partitions went to synthesis (the
 * trace), never on milliseconds:
 * - srs wait: a NORMAL gate-a job of N = 6 partitions runs (two held in synthesis) in a budget of two SRS
 *   and a partition, so its partitions fill the room gate-b's SRS needs; a CRITICAL gate-b job and another
 *   NORMAL gate-a job arrive. The CRITICAL job's first partition goes to synthesis after at most N / 2 gate-a
 *   partitions (in practice the two in flight), not after the NORMAL job's remaining ones (before the fix:
 *   after all N, its SRS load not even tried while the NORMAL job had partitions left);
 * - equal: the same with a NORMAL gate-b job keeps the old order (all N gate-a partitions first: equal
 *   priority passes as before);
 * - no pass: a budget of one SRS: a CRITICAL gate-b job waits for a running NORMAL gate-a job to finish
 *   (its SRS is in use), and the two NORMAL gate-a jobs queued after it do not go ahead (before the fix they
 *   passed it for memory.eviction_min_idle, their SRS being loaded);
 * - admit: a CRITICAL gate-a job (SRS loaded) arriving while the NORMAL gate-a job of N partitions runs gets
 *   its partitions to synthesis after at most N / 2 of the NORMAL one's (before: after all N);
 * - evict: with memory.eviction_min_idle = 300 s and a budget of one SRS, a HIGH gate-b job evicts the idle
 *   gate-a SRS at once and completes (before: it waited 300 s), while a NORMAL gate-a job after it still
 *   waits for gate-b to be idle 300 s (then cancelled).
 * Every test checks that the budget in use (polled, and the engine's peak) never exceeds the budget. */
#include "srs_budget_env.h"

#define N 6

static void trace_reset(void) {
    pthread_mutex_lock(&hmu);
    ntrace = 0;
    pthread_mutex_unlock(&hmu);
}

/* gate-a partitions that went to synthesis before the first gate-b partition (-1: no gate-b one). */
static int a_before_b(void) {
    pthread_mutex_lock(&hmu);
    int n = 0, r = -1;
    for (int i = 0; i < ntrace && r < 0; i++) {
        if (trace[i].circ == 'b') r = n;
        else n++;
    }
    pthread_mutex_unlock(&hmu);
    return r;
}

/* From now on gate-a's partitions wait in synthesis (wait_held: until n are there; release: go on). */
static void hold_on(void) {
    pthread_mutex_lock(&hmu);
    hold = 1;
    pthread_mutex_unlock(&hmu);
}

static void wait_held(int n) {
    pthread_mutex_lock(&hmu);
    while (held < n) pthread_cond_wait(&hcv, &hmu);
    pthread_mutex_unlock(&hmu);
}

static void release(void) {
    pthread_mutex_lock(&hmu);
    hold = 0;
    pthread_cond_broadcast(&hcv);
    pthread_mutex_unlock(&hmu);
}

static void check_budget(const char *what, cz_engine *e, poller *p, pthread_t th, uint64_t budget, uint64_t floor) {
    uint64_t peak = stop(e, p, th);
    CHECK_MSG(p->max <= budget && peak <= budget && peak >= floor, "%s: budget %llu, polled max %llu, peak %llu",
              what, (unsigned long long)budget, (unsigned long long)p->max, (unsigned long long)peak);
}

/* srs wait (prio_b CRITICAL) and equal (prio_b NORMAL). */
static void srs_wait(cz_rng *rng, uint64_t P, int prio_b) {
    const char *what = prio_b == CZ_PRIO_CRITICAL ? "srs wait" : "equal";
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (P / 2);
    ga.partitions = N;
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th);
    if (!e) return;
    trace_reset();
    hold_on();
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2);
    submit_prio(e, "b1", CZ_KIND_WPOST, prio_b, rng);
    submit(e, "a2", CZ_KIND_POREP, rng);
    if (prio_b == CZ_PRIO_CRITICAL) srs_waiting(e, 1); /* the CRITICAL job is dispatched at once, and waits */
    else usleep(200 * 1000); /* the NORMAL one is not looked at while a1 has partitions left */
    release();
    done_parts(e, "b1", 2, NULL);
    done_parts(e, "a1", N, NULL), done_parts(e, "a2", N, NULL);
    int n = a_before_b();
    if (prio_b == CZ_PRIO_CRITICAL)
        CHECK_MSG(n >= 0 && n <= N / 2, "%s: %d gate-a partitions went to synthesis before the CRITICAL job's first",
                  what, n);
    else
        CHECK_MSG(n >= N, "%s: %d gate-a partitions before the NORMAL gate-b job's first (want all %d of a1)", what,
                  n, N);
    check_budget(what, e, &p, th, budget, 2 * S);
    printf("%s: %d gate-a partitions synthesized before gate-b's first (budget %llu, S %llu, P %llu)\n", what, n,
           (unsigned long long)budget, (unsigned long long)S, (unsigned long long)P);
    cz_engine_free(e);
    ga.partitions = 2;
}

static void no_pass(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 1, &p, &th);
    if (!e) return;
    trace_reset();
    hold_on();
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2);
    submit_prio(e, "b1", CZ_KIND_WPOST, CZ_PRIO_CRITICAL, rng);
    submit(e, "a2", CZ_KIND_POREP, rng);
    submit(e, "a3", CZ_KIND_POREP, rng);
    srs_waiting(e, 1);
    release();
    done(e, "a1", NULL), done(e, "b1", NULL), done(e, "a2", NULL), done(e, "a3", NULL);
    int n = a_before_b();
    CHECK_MSG(n == 2, "no pass: %d gate-a partitions before the CRITICAL job's first (want a1's 2)", n);
    check_budget("no pass", e, &p, th, budget, S + P);
    cz_engine_free(e);
}

static void admit(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 3 * P + cz_rng_next(rng) % (S / 2);
    ga.partitions = N;
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th);
    if (!e) return;
    trace_reset();
    hold_on();
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2);
    submit_prio(e, "c1", CZ_KIND_POREP, CZ_PRIO_CRITICAL, rng);
    /* c1 is dispatched at once (its SRS is loaded): wait until nothing is queued (10 s at most) */
    for (uint64_t t0 = cz_now_ms(); cz_now_ms() - t0 < 10000;) {
        cz_engine_status st;
        uint32_t q = 1;
        if (cz_engine_status_get(e, &st) == 0) q = st.queue_depth, cz_engine_status_free(&st);
        if (!q) break;
        usleep(2000);
    }
    release();
    done_parts(e, "c1", N, NULL), done_parts(e, "a1", N, NULL);
    /* a1 is the job whose partitions were traced first; count its partitions before c1's first */
    pthread_mutex_lock(&hmu);
    const void *a1 = ntrace ? trace[0].job : NULL;
    int n = 0, seen_c = 0, total = ntrace;
    for (int i = 0; i < ntrace && !seen_c; i++) {
        if (trace[i].job == a1) n++;
        else seen_c = 1;
    }
    pthread_mutex_unlock(&hmu);
    CHECK_MSG(seen_c && n <= N / 2 && total == 2 * N,
              "admit: %d of a1's partitions before c1's first (seen %d, %d traced)", n, seen_c, total);
    check_budget("admit", e, &p, th, budget, S + P);
    printf("admit: %d NORMAL partitions synthesized before the CRITICAL job's first\n", n);
    cz_engine_free(e);
    ga.partitions = 2;
}

static void evict(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start(budget, 300, &p, &th);
    if (!e) return;
    submit(e, "a1", CZ_KIND_POREP, rng);
    done(e, "a1", NULL);
    submit_prio(e, "b1", CZ_KIND_WPOST, CZ_PRIO_HIGH, rng);
    done(e, "b1", NULL); /* 30 s at most: it must not wait for gate-a's 300 s */
    CHECK(tier_of(e, "gate-a") == CZ_TIER_WARM && tier_of(e, "gate-b") == CZ_TIER_HOT);
    submit(e, "a2", CZ_KIND_POREP, rng);
    usleep(300 * 1000);
    CHECK_MSG(!finished(e, "a2"), "evict: a NORMAL job evicted an SRS idle for less than eviction_min_idle");
    bool running;
    CHECK(cz_engine_cancel(e, "a2", &running) == 0 && !running);
    check_budget("evict", e, &p, th, budget, S + P);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (!env_begin(&rng, &P)) {
        uint64_t t[6];
        t[0] = cz_now_ms();
        srs_wait(&rng, P, CZ_PRIO_CRITICAL);
        t[1] = cz_now_ms();
        srs_wait(&rng, P, CZ_PRIO_NORMAL);
        t[2] = cz_now_ms();
        no_pass(&rng, P);
        t[3] = cz_now_ms();
        admit(&rng, P);
        t[4] = cz_now_ms();
        evict(&rng, P);
        t[5] = cz_now_ms();
        printf("srs wait %llu ms, equal %llu ms, no pass %llu ms, admit %llu ms, evict %llu ms\n",
               (unsigned long long)(t[1] - t[0]), (unsigned long long)(t[2] - t[1]), (unsigned long long)(t[3] - t[2]),
               (unsigned long long)(t[4] - t[3]), (unsigned long long)(t[5] - t[4]));
    }
    env_cleanup();
    return cz_test_finish();
}
