/* cz_engine_drain, the first part of a graceful stop (the daemon's daemon.drain_timeout): on the in-process engine of
 * srs_budget_env.h, with gate-a's partitions held in synthesis:
 * - drained: a1 (two partitions held) and a2 (queued behind them) are accepted; a drain of 100 ms leaves both
 *   unfinished and waits out its time; a submit meanwhile is refused (CZ_ESHUTDOWN) and so is a gate-b one; once
 *   the partitions go on, a drain returns 0 and a1 and a2 are COMPLETED with their proofs (not cancelled: a2 was
 *   still queued when the drain began, and is dispatched);
 * - cut short: a3 held, a drain of 50 ms leaves it, then the shutdown the daemon escalates to (a second signal, or
 *   the drain's deadline) cancels it: CANCELLED. */
#include "srs_budget_env.h"

static int submit_quiet(cz_engine *e, const char *id, int kind) {
    cz_submit s = {0};
    s.request_id = id, s.kind = kind, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)id, s.vanilla_len = strlen(id);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    return cz_engine_submit(e, &s, jid, &q);
}

static void drained(cz_rng *rng, uint64_t P) {
    poller p;
    pthread_t th;
    cz_engine *e = start(4 * S + 16 * P, 300, &p, &th);
    if (!e) return;
    hold_set(1);
    submit(e, "a1", CZ_KIND_POREP, rng);
    wait_held(2);
    submit(e, "a2", CZ_KIND_POREP, rng);
    const uint64_t t0 = cz_now_ms();
    uint32_t left = cz_engine_drain(e, 100);
    const uint64_t waited = cz_now_ms() - t0;
    CHECK_MSG(left == 2 && waited >= 95, "drain while held: %u left after %llu ms (2, >= 100)", left,
              (unsigned long long)waited);
    int rc = submit_quiet(e, "late", CZ_KIND_POREP);
    CHECK_MSG(rc == CZ_ESHUTDOWN, "a submit during the drain: rc %d (%s)", rc, cz_error_message());
    rc = submit_quiet(e, "late-b", CZ_KIND_WPOST);
    CHECK_MSG(rc == CZ_ESHUTDOWN, "a gate-b submit during the drain: rc %d (%s)", rc, cz_error_message());
    CHECK(!finished(e, "a1") && !finished(e, "a2"));
    hold_set(0);
    left = cz_engine_drain(e, 30000);
    CHECK_MSG(left == 0, "drain after the hold: %u left", left);
    done(e, "a1", NULL), done(e, "a2", NULL);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.completed == 2 && st.cancelled == 0);
    cz_engine_status_free(&st);
    cz_engine_shutdown(e, true);
    stop(e, &p, th);
    cz_engine_free(e);
}

static void *let_go_later(void *arg) {
    (void)arg;
    usleep(200 * 1000);
    hold_set(0);
    return NULL;
}

static void cut_short(cz_rng *rng, uint64_t P) {
    poller p;
    pthread_t th, lt;
    cz_engine *e = start(4 * S + 16 * P, 300, &p, &th);
    if (!e) return;
    hold_set(1);
    submit(e, "a3", CZ_KIND_POREP, rng);
    wait_held(2);
    const uint32_t left = cz_engine_drain(e, 50);
    CHECK_MSG(left == 1, "drain of 50 ms while held: %u left", left);
    pthread_create(&lt, NULL, let_go_later, NULL); /* the cancel lands while a3 is held */
    cz_engine_shutdown(e, true);
    pthread_join(lt, NULL);
    char err[512];
    const int st = status_of(e, "a3", 1000, err, sizeof err);
    CHECK_MSG(st == CZ_JOB_CANCELLED, "cut short: a3 status %d %s", st, err);
    stop(e, &p, th);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (env_begin(&rng, &P)) return cz_test_finish();
    drained(&rng, P);
    cut_short(&rng, P);
    env_cleanup();
    return cz_test_finish();
}
