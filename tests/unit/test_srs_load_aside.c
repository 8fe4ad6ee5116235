/* An SRS load does not hold up jobs whose SRS is loaded (engine.c: the load runs on a thread of its own; spec bug
 * #7: the dispatcher loaded inline, so a 32 GiB PoRep's first load, 20-70 s, held up a WinningPoSt queued behind
 * it). On the in-process engine of srs_budget_env.h (gate-a: PoRep requests, gate-b: WindowPoSt requests), with
 * gate-a's circuit recording (part of its SRS load) held until the test lets it go:
 * - aside: gate-b's SRS loaded (job b0), a NORMAL gate-a job a1 starts gate-a's load and is held in it; a CRITICAL
 *   gate-a job c1 is dispatched to wait for that load (on its own thread too); a CRITICAL gate-b job b1 then
 *   COMPLETES while the load is still held (before: b1 waited for the whole load behind a1), and so does a NORMAL
 *   gate-b job b2 (a job whose SRS is loaded does not wait for the jobs loading theirs); a NORMAL gate-a job a2
 *   waits (it would wait for the load: the lookahead counts a1). Once let go: a1, c1 and a2 complete, and gate-a's
 *   circuit was recorded once (c1 and a2 waited for a1's load, no second load).
 * - retry: a job cancelled while held in its SRS load (a Prove whose client went away ends so) is still live
 *   when its request comes again (Curio retries under the same id): the retry is a new job, which COMPLETES,
 *   where it once joined the cancelled one and ended CANCELLED with it; another payload under the id is refused
 *   while the retry runs (ALREADY_EXISTS).
 * - shutdown: a job held in its SRS load when the engine shuts down (cancel_running) ends CANCELLED and the
 *   engine's stop joins the load's thread. */
#include "srs_budget_env.h"

static int (*recording)(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg);
static int hold_rec, in_rec, recs;

/* EvictSRS of gate-a on a thread of its own (it must answer during the load, not wait for its end). */
static atomic_int ev_done;
static int ev_rc;
static bool ev_was;
static char ev_msg[300];
static pthread_t ev_thread;
static void *evict_main(void *arg) {
    uint64_t freed = 0;
    ev_rc = cz_engine_evict(arg, "gate-a", &ev_was, &freed);
    snprintf(ev_msg, sizeof ev_msg, "%s", cz_error_message());
    atomic_store(&ev_done, 1);
    return NULL;
}

/* gate-a's circuit recording: counted, and held while hold_rec is set. */
static int held_recording(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    pthread_mutex_lock(&hmu);
    recs++, in_rec++;
    pthread_cond_broadcast(&hcv);
    while (hold_rec) pthread_cond_wait(&hcv, &hmu);
    in_rec--;
    pthread_mutex_unlock(&hmu);
    return recording(c, out, stop, stop_arg);
}

static void hold_recording(int on) {
    pthread_mutex_lock(&hmu);
    hold_rec = on;
    pthread_cond_broadcast(&hcv);
    pthread_mutex_unlock(&hmu);
}

/* Until a recording of gate-a is held (10 s at most). */
static bool recording_held(void) {
    uint64_t t0 = cz_now_ms();
    pthread_mutex_lock(&hmu);
    while (!in_rec && cz_now_ms() - t0 < 10000) {
        pthread_mutex_unlock(&hmu);
        usleep(2000);
        pthread_mutex_lock(&hmu);
    }
    bool held_now = in_rec > 0;
    pthread_mutex_unlock(&hmu);
    CHECK_MSG(held_now, "gate-a's SRS load did not reach its circuit recording in 10 s");
    return held_now;
}

/* Whether the status lists gate-a's SRS as loading in `stage` for at least min_ms, and the metrics say the same
 * (stage NULL: neither shows a load of gate-a under way). */
static bool loading_shown(cz_engine *e, const char *stage, uint64_t min_ms) {
    cz_engine_status st;
    if (cz_engine_status_get(e, &st)) return false;
    bool status_ok = !stage;
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, "gate-a"))
            status_ok = stage ? st.srs[i].loading && !strcmp(st.srs[i].loading, stage) && st.srs[i].loading_ms >= min_ms
                              : !st.srs[i].loading;
    cz_engine_status_free(&st);
    char *metrics = cz_engine_metrics(e), want[200];
    snprintf(want, sizeof want, "cuzk_srs_loading_seconds{circuit_id=\"gate-a\",stage=\"%s\"} ", stage ? stage : "");
    const bool metric_ok = metrics && (stage ? strstr(metrics, want) != NULL
                                             : strstr(metrics, "cuzk_srs_loading_seconds{circuit_id=\"gate-a\"") == NULL);
    free(metrics);
    return status_ok && metric_ok;
}

static void aside(cz_rng *rng, uint64_t P) {
    poller p;
    pthread_t th;
    cz_engine *e = start(4 * S + 16 * P, 300, &p, &th);
    if (!e) return;
    submit(e, "b0", CZ_KIND_WPOST, rng);
    done(e, "b0", NULL); /* gate-b's SRS is loaded */
    recs = 0;
    hold_recording(1);
    submit(e, "a1", CZ_KIND_POREP, rng);
    if (recording_held()) {
        submit_prio(e, "c1", CZ_KIND_POREP, CZ_PRIO_CRITICAL, rng);
        submit_prio(e, "b1", CZ_KIND_WPOST, CZ_PRIO_CRITICAL, rng);
        char err[512];
        uint64_t t0 = cz_now_ms();
        int st = status_of(e, "b1", 15000, err, sizeof err);
        CHECK_MSG(st == CZ_JOB_COMPLETED, "aside: the CRITICAL gate-b job b1 during gate-a's held load: status %d "
                  "after %llu ms %s", st, (unsigned long long)(cz_now_ms() - t0), err);
        uint64_t b1_ms = cz_now_ms() - t0;
        submit(e, "a2", CZ_KIND_POREP, rng);
        submit(e, "b2", CZ_KIND_WPOST, rng);
        st = status_of(e, "b2", 15000, err, sizeof err);
        CHECK_MSG(st == CZ_JOB_COMPLETED, "aside: the NORMAL gate-b job b2 during gate-a's held load: status %d %s",
                  st, err);
        CHECK_MSG(!finished(e, "a1") && !finished(e, "c1") && !finished(e, "a2"),
                  "aside: a1, c1 and a2 (gate-a) wait while gate-a's load is held");
        pthread_mutex_lock(&hmu);
        CHECK_MSG(in_rec == 1, "aside: %d recordings of gate-a held (one load)", in_rec);
        pthread_mutex_unlock(&hmu);
        CHECK_MSG(loading_shown(e, "recording", b1_ms), "aside: gate-a's load under way, in its recording for %llu ms "
                  "at least, is not shown so in the status and metrics", (unsigned long long)b1_ms);
        /* EvictSRS during the load is answered at once (it once waited for the whole load) */
        pthread_t et;
        ev_done = 0;
        CHECK(pthread_create(&et, NULL, evict_main, e) == 0);
        for (int i = 0; i < 200 && !atomic_load(&ev_done); i++) usleep(10000);
        CHECK_MSG(atomic_load(&ev_done) && ev_rc == CZ_EBUSY && strstr(ev_msg, "is loading (recording)") && !ev_was,
                  "aside: EvictSRS of gate-a during its load: done %d, rc %d, \"%s\" (want CZ_EBUSY at once)",
                  atomic_load(&ev_done), ev_rc, ev_msg);
        ev_thread = et;
        printf("aside: b1 and b2 COMPLETED in %llu and %llu ms while gate-a's SRS load was held\n",
               (unsigned long long)b1_ms, (unsigned long long)(cz_now_ms() - t0));
    }
    hold_recording(0);
    if (ev_thread) pthread_join(ev_thread, NULL); /* an evict that waited: it ends with the load */
    ev_thread = 0;
    done(e, "a1", NULL), done(e, "c1", NULL), done(e, "a2", NULL);
    CHECK_MSG(recs == 1, "aside: gate-a's circuit recorded %d times (one load, c1 waiting for it)", recs);
    CHECK_MSG(loading_shown(e, NULL, 0), "aside: gate-a's load is over but still shown as under way");
    stop(e, &p, th);
    cz_engine_free(e);
}

static int submit_payload(cz_engine *e, const char *id, const char *payload) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)payload, s.vanilla_len = strlen(payload);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    return cz_engine_submit(e, &s, jid, &q);
}

static void retry(uint64_t P) {
    poller p;
    pthread_t th;
    cz_engine *e = start(4 * S + 16 * P, 300, &p, &th);
    if (!e) return;
    hold_recording(1);
    CHECK(submit_payload(e, "r1", "payload r1") == 0);
    if (recording_held()) {
        bool was = false;
        CHECK(cz_engine_cancel(e, "r1", &was) == 0);
        CHECK_MSG(!finished(e, "r1"), "retry: r1 is cancelled but live while its load is held");
        int rc = submit_payload(e, "r1", "payload r1");
        CHECK_MSG(rc == 0, "retry: the same request again while the first is being cancelled: %s",
                  cz_error_message());
        rc = submit_payload(e, "r1", "another payload");
        CHECK_MSG(rc == CZ_EEXIST, "retry: another payload under the id while the retry runs: rc %d %s", rc,
                  cz_error_message());
    }
    hold_recording(0);
    char err[512];
    int st = status_of(e, "r1", 30000, err, sizeof err);
    CHECK_MSG(st == CZ_JOB_COMPLETED, "retry: r1's retry: status %d %s", st, err);
    cz_engine_status es;
    CHECK(cz_engine_status_get(e, &es) == 0 && es.completed == 1 && es.cancelled == 1);
    cz_engine_status_free(&es);
    stop(e, &p, th);
    cz_engine_free(e);
}

static void *let_go_later(void *arg) {
    (void)arg;
    usleep(200 * 1000);
    hold_recording(0);
    return NULL;
}

static void shutdown_in_load(cz_rng *rng, uint64_t P) {
    poller p;
    pthread_t th, lt;
    cz_engine *e = start(4 * S + 16 * P, 300, &p, &th);
    if (!e) return;
    hold_recording(1);
    submit(e, "a9", CZ_KIND_POREP, rng);
    bool ok = recording_held();
    pthread_create(&lt, NULL, let_go_later, NULL); /* the abort lands while the recording is held */
    if (!ok) hold_recording(0);
    cz_engine_shutdown(e, true);
    pthread_join(lt, NULL);
    char err[512];
    int st = status_of(e, "a9", 1000, err, sizeof err);
    CHECK_MSG(st == CZ_JOB_CANCELLED && strstr(err, "shutting down"), "shutdown: a9 in its SRS load: status %d %s",
              st, err);
    stop(e, &p, th);
    cz_engine_free(e);
}

int main(void) {
    cz_rng rng;
    uint64_t P;
    if (env_begin(&rng, &P)) return cz_test_finish();
    recording = ga.build_r1cs;
    ga.build_r1cs = held_recording;
    aside(&rng, P);
    retry(P);
    shutdown_in_load(&rng, P);
    env_cleanup();
    return cz_test_finish();
}
