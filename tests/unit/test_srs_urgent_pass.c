/* An urgent job does not wait behind less urgent work for memory, passing and eviction (engine.c:
 * pass_blocked, min_idle_ms; spec bug #5), on the engine of srs_budget_env.h with random budgets of one SRS
 * and two partitions:
 * - no pass: a CRITICAL gate-b job waits for a running NORMAL gate-a job to finish (its SRS is in use), and
 *   the two NORMAL gate-a jobs queued after it do not go ahead: exactly the running job's partitions reach
 *   synthesis before the CRITICAL job's first (before the fix they passed it for memory.eviction_min_idle,
 *   their SRS being loaded);
 * - evict: with memory.eviction_min_idle = 300 s, a HIGH gate-b job evicts the idle gate-a SRS at once and
 *   completes (before: it waited 300 s; done() gives up at 30 s), while a NORMAL gate-a job after it still
 *   waits for gate-b to be idle 300 s (then cancelled).
 * The budget in use (polled, and the engine's peak) never exceeds the budget. */
#include "srs_budget_env.h"

static void no_pass(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 2 * P + cz_rng_next(rng) % (S / 2);
    poller p;
    pthread_t th;
    cz_engine *e = start_a1_held(rng, budget, 1, &p, &th);
    if (!e) return;
    submit_prio(e, "b1", CZ_KIND_WPOST, CZ_PRIO_CRITICAL, rng);
    submit(e, "a2", CZ_KIND_POREP, rng);
    submit(e, "a3", CZ_KIND_POREP, rng);
    srs_waiting(e, 1);
    hold_set(0);
    done(e, "a1", NULL), done(e, "b1", NULL), done(e, "a2", NULL), done(e, "a3", NULL);
    int n = a_before_b();
    CHECK_MSG(n == 2, "no pass: %d gate-a partitions before the CRITICAL job's first (want a1's 2)", n);
    check_budget("no pass", e, &p, th, budget, S + P);
    cz_engine_free(e);
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
        uint64_t t0 = cz_now_ms();
        no_pass(&rng, P);
        uint64_t t1 = cz_now_ms();
        evict(&rng, P);
        printf("no pass %llu ms, evict %llu ms\n", (unsigned long long)(t1 - t0), (unsigned long long)(cz_now_ms() - t1));
    }
    env_cleanup();
    return cz_test_finish();
}
