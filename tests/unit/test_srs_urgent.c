/* An urgent job does not wait behind less urgent work for memory (engine.c: jobs_with_parts_left by priority,
 * yield_to_srs_waiter; spec bug #5), on the in-process engine of srs_budget_env.h (gate-a: PoRep requests,
 * gate-b: WindowPoSt requests, S-byte SRS each, random partition charge P) with random budgets. Assertions
 * are on the order in which partitions went to synthesis (the trace), never on milliseconds:
 * - srs wait: a NORMAL gate-a job of N = 6 partitions runs (two held in synthesis) in a budget of two SRS
 *   and a partition, so its partitions fill the room gate-b's SRS needs; a CRITICAL gate-b job and another
 *   NORMAL gate-a job arrive. The CRITICAL job's first partition goes to synthesis after at most N / 2 gate-a
 *   partitions (in practice the two in flight), not after the NORMAL job's remaining ones (before the fix:
 *   after all N, its SRS load not even tried while the NORMAL job had partitions left);
 * - equal: the same with a NORMAL gate-b job keeps the old order (all N gate-a partitions first: equal
 *   priority passes as before);
 * - admit: a CRITICAL gate-a job (SRS loaded) arriving while the NORMAL gate-a job of N partitions runs gets
 *   its partitions to synthesis after at most N / 2 of the NORMAL one's (before: after all N).
 * Every test checks that the budget in use (polled, and the engine's peak) never exceeds the budget.
 * test_srs_urgent_pass.c: passing and eviction. */
#include "srs_budget_env.h"

#define N 6

/* srs wait (prio_b CRITICAL) and equal (prio_b NORMAL). */
static void srs_wait(cz_rng *rng, uint64_t P, int prio_b) {
    const char *what = prio_b == CZ_PRIO_CRITICAL ? "srs wait" : "equal";
    uint64_t budget = 2 * S + P + cz_rng_next(rng) % (P / 2);
    ga.partitions = N;
    poller p;
    pthread_t th;
    cz_engine *e = start_a1_held(rng, budget, 300, &p, &th);
    if (!e) return;
    submit_prio(e, "b1", CZ_KIND_WPOST, prio_b, rng);
    submit(e, "a2", CZ_KIND_POREP, rng);
    if (prio_b == CZ_PRIO_CRITICAL) srs_waiting(e, 1); /* the CRITICAL job is dispatched at once, and waits */
    else usleep(200 * 1000); /* the NORMAL one is not looked at while a1 has partitions left */
    hold_set(0);
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

static void admit(cz_rng *rng, uint64_t P) {
    uint64_t budget = S + 3 * P + cz_rng_next(rng) % (S / 2);
    ga.partitions = N;
    poller p;
    pthread_t th;
    cz_engine *e = start_a1_held(rng, budget, 300, &p, &th);
    if (!e) return;
    submit_prio(e, "c1", CZ_KIND_POREP, CZ_PRIO_CRITICAL, rng);
    /* c1 is dispatched at once (its SRS is loaded): wait until nothing is queued (10 s at most) */
    for (uint64_t t0 = cz_now_ms(); cz_now_ms() - t0 < 10000;) {
        cz_engine_status st;
        uint32_t q = 1;
        if (cz_engine_status_get(e, &st) == 0) q = st.queue_depth, cz_engine_status_free(&st);
        if (!q) break;
        usleep(2000);
    }
    hold_set(0);
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

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (!env_begin(&rng, &P)) {
        uint64_t t[4];
        t[0] = cz_now_ms();
        srs_wait(&rng, P, CZ_PRIO_CRITICAL);
        t[1] = cz_now_ms();
        srs_wait(&rng, P, CZ_PRIO_NORMAL);
        t[2] = cz_now_ms();
        admit(&rng, P);
        t[3] = cz_now_ms();
        printf("srs wait %llu ms, equal %llu ms, admit %llu ms\n", (unsigned long long)(t[1] - t[0]),
               (unsigned long long)(t[2] - t[1]), (unsigned long long)(t[3] - t[2]));
    }
    env_cleanup();
    return cz_test_finish();
}
