/* A device prover's build outside the device's turn (engine.c gpu_main, cz_backend.prepare), on a fake one-device
 * backend over the CPU prover, two workers. The fake holds two "circuits" apart by their witness: a partition whose
 * aux is all zero (a "bits:" payload of the test circuit) is another circuit's, resident from the start (a Winning
 * PoSt's beside a PoRep); any other needs a prover the fake builds for BUILD_MS once (a PoRep's with the Lagrange-form
 * H and no cache file: 8.3 minutes on an H200). While one worker builds, the other's partition of the same circuit
 * gets CZ_EBUILDING, as the GPU backend answers.
 *  1. A NORMAL job starts the build; a CRITICAL job of the resident circuit submitted during it completes before
 *     the build ends: the worker waiting for the build gives its place to the CRITICAL partition, which proves
 *     meanwhile. Without prepare (a backend that builds inside start(), holding the device's turn) it would wait
 *     for the build: the fake's start() builds too when the engine did not ask first, and the test fails.
 *  2. Both jobs complete, every partition after one build; the NORMAL ones start only once it is done.
 *  3. A prepare that fails with another error leaves it to start(), which reports its own.
 *  4. A shutdown that cancels running work during a build stops the build (cz_backend.abort_builds) and returns
 *     long before the build would have ended, the job CANCELLED (not FAILED); without the hook (CZ_TEST_NO_ABORT=1)
 *     it waits for the build, and fails.
 *  5. A job cancelled during a build that runs to its end (cz_engine_cancel stops no build): the worker waiting for
 *     the other's build (CZ_EBUILDING) lets its partition go at once (while the build still runs); the partition
 *     made ready by the build is dropped without a start() once the build ends, the job CANCELLED then, not after
 *     the partition's device work (before: start() ran both after the cancellation, ~2.7 s at 32 GiB on an H100).
 *  6. PreloadSRS builds the device's prover in the background (prepare() without a witness; a PoRep's dense hint
 *     unknown): the call returns long before the build ends, the SRS cannot be evicted while the build reads it and
 *     can once it ended, and a job submitted during the build completes after that one build (no second, no start
 *     before it ended). Without it the job's own partition would build: two builds counted and the test fails.
 *     The build's "prover ready" line is at INFO; a repeated PreloadSRS, which finds the prover built, counts it
 *     ready without a line at INFO.
 *  7. A shutdown during a PreloadSRS's build stops it (the build's thread joined, none left behind) at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"

#define BUILD_MS 3000

static cz_backend cpu;
static const int ords[1] = {0};
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_built, g_building, g_builds, g_prepares, g_busy_answers, g_early_starts;
static uint64_t g_build_end;     /* cz_now_ms() when the build ended */
static int g_fail_prepare;       /* part 3: prepare fails with CZ_EIO */
static int g_abort, g_aborted;   /* part 4: builds aborted (cz_backend.abort_builds), builds that stopped early */
static int g_starts;             /* start() calls for the circuit that needs a build */
static int g_preload_prepares;   /* part 6: prepare() calls without a witness (a PreloadSRS's builds) */
static uint64_t g_hint;          /* the last one's dense_hint */

static bool resident_circuit(const cz_fr *aux, const cz_r1cs *r) {
    for (uint64_t i = 0; i < r->num_aux; i++)
        if (!cz_fr_is_zero(&aux[i])) return false;
    return true;
}

/* the build, by the calling thread: BUILD_MS without the fake's mutex, in steps of 10 ms after each of which it
 * stops with CZ_ECANCELED once builds are aborted, as the GPU backend's Lagrange build does between its pieces */
static int build(void) {
    for (int t = 0; t < BUILD_MS; t += 10) {
        pthread_mutex_lock(&g_mu);
        const int stop = g_abort;
        if (stop) g_building = 0, g_aborted++;
        pthread_mutex_unlock(&g_mu);
        if (stop) return cz_error(CZ_ECANCELED, "fake build: aborted");
        usleep(10 * 1000);
    }
    pthread_mutex_lock(&g_mu);
    g_built = 1, g_building = 0, g_builds++;
    g_build_end = cz_now_ms();
    pthread_mutex_unlock(&g_mu);
    return 0;
}

static void fake_abort(cz_backend *b) {
    (void)b;
    pthread_mutex_lock(&g_mu);
    g_abort = 1;
    pthread_mutex_unlock(&g_mu);
}

static int fake_prepare(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *aux,
                        const cz_wcompact *caux, uint64_t dense_hint) {
    (void)b, (void)dev, (void)p, (void)caux;
    pthread_mutex_lock(&g_mu);
    g_prepares++;
    if (!aux && !caux) g_preload_prepares++, g_hint = dense_hint; /* a PreloadSRS's: the circuit that needs a build */
    if (g_fail_prepare) {
        pthread_mutex_unlock(&g_mu);
        return cz_error(CZ_EIO, "fake prepare: refused");
    }
    if ((aux && resident_circuit(aux, r)) || g_built) {
        pthread_mutex_unlock(&g_mu);
        return 0;
    }
    if (g_abort) {
        pthread_mutex_unlock(&g_mu);
        return cz_error(CZ_ECANCELED, "fake prepare: builds aborted");
    }
    if (g_building) {
        g_busy_answers++;
        pthread_mutex_unlock(&g_mu);
        return CZ_EBUILDING;
    }
    g_building = 1;
    pthread_mutex_unlock(&g_mu);
    return build();
}

static int fake_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                      const cz_fr *aux, void **pending) {
    (void)b;
    if (!resident_circuit(aux, r)) {
        pthread_mutex_lock(&g_mu);
        g_starts++;
        const int stop = g_abort && !g_built;
        const int need = !g_built && !g_building && !stop;
        if (need) g_building = 1;
        if (!g_built && !need && !stop) g_early_starts++; /* started while the build ran: the engine did not wait */
        pthread_mutex_unlock(&g_mu);
        if (stop) return cz_error(CZ_ECANCELED, "fake start: builds aborted");
        if (need) { /* a backend without prepare: the build inside start(), in the device's turn */
            const int rc = build();
            if (rc) return rc;
        }
    }
    if (g_fail_prepare) return cz_error(CZ_EDEVICE, "fake start: its own error");
    return cpu.start(&cpu, dev, p, r, inputs, aux, pending);
}

static int fake_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(&cpu, nthreads);
    *b = cpu;
    b->name = "fake-gpu";
    b->ndevices = 1;
    b->ordinals = ords;
    b->start = fake_start;
    b->start_compact = NULL; /* dense witnesses: the fake tells the circuits apart by them */
    b->prepare = getenv("CZ_TEST_NO_PREPARE") ? NULL : fake_prepare;
    b->abort_builds = getenv("CZ_TEST_NO_ABORT") ? NULL : fake_abort;
    return 0;
}

static int submit(cz_engine *e, const char *payload, int prio, char *job_id) {
    cz_submit s = {0};
    s.request_id = payload, s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.priority = prio;
    s.vanilla = (const uint8_t *)payload, s.vanilla_len = strlen(payload);
    uint32_t q;
    return cz_engine_submit(e, &s, job_id, &q);
}

static int devices(void) { return 1; }

/* waits up to 5 s for the fake's build to begin, then 200 ms more (well into it); whether it began */
static bool into_build(void) {
    int on = 0;
    for (int t = 0; t < 5000 && !on; t++) {
        pthread_mutex_lock(&g_mu);
        on = g_building;
        pthread_mutex_unlock(&g_mu);
        if (!on) usleep(1000);
    }
    if (on) usleep(200 * 1000);
    return on;
}

/* The daemon's log (stderr) at INFO into a file between cap_begin and cap_end, which returns it (malloc'd) and
 * writes it back to stderr when a check failed meanwhile (their messages go there too). */
static int g_cap_fd = -1;
static FILE *g_cap;
static unsigned long g_cap_failed;
static void cap_begin(void) {
    fflush(stderr);
    g_cap = tmpfile();
    g_cap_fd = dup(2);
    if (g_cap) dup2(fileno(g_cap), 2);
    g_cap_failed = cz_test_failed;
    cz_log_set_level("info");
}
static char *cap_end(void) {
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "error");
    fflush(stderr);
    if (g_cap_fd >= 0) dup2(g_cap_fd, 2), close(g_cap_fd), g_cap_fd = -1;
    if (!g_cap) return NULL;
    const long n = ftell(g_cap);
    char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
    rewind(g_cap);
    if (t) t[fread(t, 1, (size_t)n, g_cap)] = 0;
    fclose(g_cap), g_cap = NULL;
    if (t && cz_test_failed != g_cap_failed) fputs(t, stderr);
    return t;
}

int main(void) {
    static const cz_gpu_provider prov = {devices, fake_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "error");
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.compact_witness = false;
    cfg.gpu_workers_per_device = 2;
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (!e) return cz_test_finish();

    /* 1: the CRITICAL job of the resident circuit during the NORMAL one's build */
    char normal[CZ_JOB_ID_MAX], urgent[CZ_JOB_ID_MAX];
    const uint64_t t0 = cz_now_ms();
    CHECK(submit(e, "normal-build", CZ_PRIO_NORMAL, normal) == 0);
    int building = 0;
    for (int t = 0; t < 5000 && !building; t++) { /* the build under way, the other worker waiting for it */
        pthread_mutex_lock(&g_mu);
        building = g_building && (g_busy_answers > 0 || getenv("CZ_TEST_NO_PREPARE"));
        pthread_mutex_unlock(&g_mu);
        if (!building) usleep(1000);
    }
    CHECK_MSG(building, "the NORMAL job's build never began with a second partition waiting for it");
    CHECK(submit(e, "bits:urgent", CZ_PRIO_CRITICAL, urgent) == 0);
    cz_result r;
    CHECK(cz_engine_await(e, urgent, 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    const uint64_t t_urgent = cz_now_ms();
    pthread_mutex_lock(&g_mu);
    const int built_then = g_built;
    pthread_mutex_unlock(&g_mu);
    CHECK_MSG(!built_then, "the CRITICAL job completed %llu ms after the submits, after the %d ms build (it waited "
              "for it)", (unsigned long long)(t_urgent - t0), BUILD_MS);
    printf("CRITICAL job of a resident circuit during a %d ms build: completed after %llu ms, build %s then\n",
           BUILD_MS, (unsigned long long)(t_urgent - t0), built_then ? "done" : "still running");

    /* 2: the NORMAL job completes after the one build; none of its partitions started before it ended */
    CHECK(cz_engine_await(e, normal, 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    CHECK_MSG(g_builds == 1 && g_early_starts == 0, "%d builds, %d starts while the build ran", g_builds,
              g_early_starts);
    CHECK_MSG(g_busy_answers >= 1, "no partition was told the device was building (%d)", g_busy_answers);
    {
        cz_engine_status st;
        CHECK(cz_engine_status_get(e, &st) == 0);
        CHECK_MSG(st.partition_yields >= 1 && st.completed == 2 && st.failed == 0,
                  "%llu yields, %llu completed, %llu failed", (unsigned long long)st.partition_yields,
                  (unsigned long long)st.completed, (unsigned long long)st.failed);
        cz_engine_status_free(&st);
    }
    cz_engine_free(e);

    /* 3: prepare's other errors are start()'s to report */
    g_fail_prepare = 1;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        char id[CZ_JOB_ID_MAX];
        CHECK(submit(e, "bits:failing", CZ_PRIO_NORMAL, id) == 0);
        CHECK(cz_engine_await(e, id, 60000, &r) == 0);
        CHECK_MSG(r.status == CZ_JOB_FAILED && r.error && strstr(r.error, "fake start: its own error"),
                  "status %d, error %s", r.status, r.error ? r.error : "(none)");
        cz_result_free(&r);
        cz_engine_free(e);
    }

    /* 4: a shutdown during a build: the build stops, the shutdown does not wait it out */
    g_fail_prepare = 0, g_built = 0, g_builds = 0, g_abort = 0; /* parts 1-3's engine_free aborted too */
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        char id[CZ_JOB_ID_MAX];
        CHECK(submit(e, "abort-build", CZ_PRIO_NORMAL, id) == 0);
        CHECK_MSG(into_build(), "the build never began");
        const uint64_t t_stop = cz_now_ms();
        cz_engine_shutdown(e, true);
        const uint64_t stop_ms = cz_now_ms() - t_stop;
        CHECK_MSG(stop_ms < BUILD_MS / 3, "the shutdown took %llu ms during a %d ms build (it waited for the build)",
                  (unsigned long long)stop_ms, BUILD_MS);
        CHECK_MSG(g_builds == 0 && g_aborted == 1, "%d builds completed, %d stopped (want 0 and 1)", g_builds,
                  g_aborted);
        cz_result r4;
        CHECK(cz_engine_await(e, id, 1000, &r4) == 0);
        CHECK_MSG(r4.status == CZ_JOB_CANCELLED, "the job whose build was stopped: status %d (%s), not CANCELLED",
                  r4.status, r4.error ? r4.error : "");
        cz_result_free(&r4);
        printf("shutdown during a %d ms build: %llu ms (builds stopped: %d)\n", BUILD_MS, (unsigned long long)stop_ms,
               g_aborted);
        cz_engine_free(e);
    }

    /* 5: a job cancelled during a build that goes on: no start() for it afterwards */
    g_built = 0, g_builds = 0, g_abort = 0, g_aborted = 0; /* part 4's shutdown aborted */
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        char id[CZ_JOB_ID_MAX];
        CHECK(submit(e, "cancel-during-build", CZ_PRIO_NORMAL, id) == 0);
        CHECK_MSG(into_build(), "the build never began");
        pthread_mutex_lock(&g_mu);
        const int starts0 = g_starts;
        pthread_mutex_unlock(&g_mu);
        bool running = false;
        CHECK(cz_engine_cancel(e, id, &running) == 0 && running);
        /* the worker that waited for the other's build (CZ_EBUILDING) lets its partition go at once */
        int busy = 2;
        uint64_t t_cancel = cz_now_ms(), freed_ms = 0;
        for (int t = 0; t < 1000 && busy > 1; t++) {
            cz_engine_status st;
            busy = 0;
            if (cz_engine_status_get(e, &st) == 0) {
                for (size_t i = 0; i < st.n_workers; i++) busy += st.workers[i].busy;
                cz_engine_status_free(&st);
            }
            if (busy > 1) usleep(1000);
        }
        freed_ms = cz_now_ms() - t_cancel;
        pthread_mutex_lock(&g_mu);
        const int still = g_building;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(busy <= 1 && still, "%d workers busy %llu ms after the cancellation (the build %s)", busy,
                  (unsigned long long)freed_ms, still ? "still running" : "over");
        cz_result r5;
        CHECK(cz_engine_await(e, id, 30000, &r5) == 0);
        const uint64_t t_done = cz_now_ms();
        pthread_mutex_lock(&g_mu);
        const int starts = g_starts - starts0, builds = g_builds;
        const uint64_t end = g_build_end;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(r5.status == CZ_JOB_CANCELLED, "the job cancelled during the build: status %d (%s)", r5.status,
                  r5.error ? r5.error : "");
        CHECK_MSG(builds == 1 && starts == 0, "%d builds, %d start() calls for the cancelled job after its "
                  "cancellation (want 1 and 0)", builds, starts);
        printf("job cancelled during a %d ms build: the waiting worker free after %llu ms, CANCELLED %lld ms after the "
               "build ended, %d starts after the cancellation\n", BUILD_MS, (unsigned long long)freed_ms,
               builds ? (long long)(t_done - end) : -1LL, starts);
        cz_result_free(&r5);
        cz_engine_free(e);
    }

    /* 6: PreloadSRS builds the prover ahead of the job */
    g_built = 0, g_builds = 0, g_abort = 0, g_aborted = 0, g_starts = 0, g_early_starts = 0, g_busy_answers = 0;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        bool already = false, was = false;
        uint64_t load_ms = 0, freed = 0;
        cap_begin();
        const uint64_t t_pre = cz_now_ms();
        CHECK_MSG(cz_engine_preload(e, "porep-2k-test", &already, &load_ms) == 0, "preload: %s",
                  cz_error_message());
        const uint64_t pre_ms = cz_now_ms() - t_pre;
        pthread_mutex_lock(&g_mu);
        const int built_at_return = g_built;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(!built_at_return, "PreloadSRS returned after %llu ms with the %d ms build done: it waited for it",
                  (unsigned long long)pre_ms, BUILD_MS);
        CHECK_MSG(into_build(), "PreloadSRS began no build");
        cz_engine_status st0;
        CHECK(cz_engine_status_get(e, &st0) == 0);
        CHECK_MSG(st0.preload_builds_running == 1, "status: %llu preload builds running during one",
                  (unsigned long long)st0.preload_builds_running);
        cz_engine_status_free(&st0);
        pthread_mutex_lock(&g_mu);
        const int pp = g_preload_prepares;
        const uint64_t hint = g_hint;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(pp == 1 && hint == UINT64_MAX, "%d prepare() calls without a witness (want 1), hint %llu (want "
                  "unknown)", pp, (unsigned long long)hint);
        CHECK_MSG(cz_engine_evict(e, "porep-2k-test", &was, &freed) == CZ_EBUSY,
                  "the SRS could be evicted while the preload's build reads it");
        char id[CZ_JOB_ID_MAX];
        CHECK(submit(e, "after-preload", CZ_PRIO_NORMAL, id) == 0);
        cz_result r6;
        CHECK(cz_engine_await(e, id, 60000, &r6) == 0 && r6.status == CZ_JOB_COMPLETED);
        cz_result_free(&r6);
        pthread_mutex_lock(&g_mu);
        const int builds = g_builds, early = g_early_starts;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(builds == 1 && early == 0, "%d builds (want 1: the preload's), %d starts while it ran", builds,
                  early);
        int erc = CZ_EBUSY;
        for (int t = 0; t < 2000 && erc == CZ_EBUSY; t++) /* the build's reference goes as its thread ends */
            if ((erc = cz_engine_evict(e, "porep-2k-test", &was, &freed)) == CZ_EBUSY) usleep(1000);
        CHECK_MSG(erc == 0, "the SRS still could not be evicted 2 s after the preload's build (%d: %s)", erc,
                  cz_error_message());
        char *log1 = cap_end();
        CHECK_MSG(log1 && strstr(log1, "INFO") && strstr(log1, "device 0's prover ready in"),
                  "the preload's build was not logged at INFO");
        free(log1);
        cz_engine_status st;
        CHECK(cz_engine_status_get(e, &st) == 0);
        CHECK_MSG(st.preload_builds_running == 0 && st.preload_builds_ready == 1 && st.preload_builds_failed == 0,
                  "status: %llu preload builds running, %llu ready, %llu failed (want 0, 1, 0)",
                  (unsigned long long)st.preload_builds_running, (unsigned long long)st.preload_builds_ready,
                  (unsigned long long)st.preload_builds_failed);
        cz_engine_status_free(&st);
        char *m = cz_engine_metrics(e);
        CHECK_MSG(m && strstr(m, "cuzk_preload_prover_builds_total{result=\"ready\"} 1\n") &&
                      strstr(m, "cuzk_preload_prover_builds 0\n"),
                  "metrics lack the preload build counts");
        free(m);
        printf("PreloadSRS with a %d ms device build: returned after %llu ms; a job submitted during the build "
               "completed after %d build(s)\n", BUILD_MS, (unsigned long long)pre_ms, builds);
        /* a repeated PreloadSRS finds the prover built: ready at once, counted, not logged at INFO */
        cap_begin();
        CHECK(cz_engine_preload(e, "porep-2k-test", &already, &load_ms) == 0);
        uint64_t ready = 0;
        for (int t = 0; t < 5000 && ready < 2; t++) {
            CHECK(cz_engine_status_get(e, &st) == 0);
            ready = st.preload_builds_ready;
            cz_engine_status_free(&st);
            if (ready < 2) usleep(1000);
        }
        char *log2 = cap_end();
        pthread_mutex_lock(&g_mu);
        const int builds2 = g_builds;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(ready == 2 && builds2 == 1, "repeated preload: %llu ready (want 2), %d builds (want 1)",
                  (unsigned long long)ready, builds2);
        CHECK_MSG(log2 && !strstr(log2, "prover ready"), "a repeated preload logged at INFO: %s", log2 ? log2 : "");
        free(log2);
        cz_engine_free(e);
    }

    /* 7: a shutdown during a PreloadSRS's build */
    g_built = 0, g_builds = 0, g_abort = 0, g_aborted = 0;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        bool already = false;
        uint64_t load_ms = 0;
        CHECK(cz_engine_preload(e, "porep-2k-test", &already, &load_ms) == 0);
        CHECK_MSG(into_build(), "PreloadSRS began no build");
        const uint64_t t_stop = cz_now_ms();
        cz_engine_free(e);
        const uint64_t stop_ms = cz_now_ms() - t_stop;
        pthread_mutex_lock(&g_mu);
        const int aborted = g_aborted, building = g_building;
        pthread_mutex_unlock(&g_mu);
        CHECK_MSG(stop_ms < BUILD_MS / 3 && aborted == 1 && !building, "shutdown during a preload's build: %llu ms, "
                  "%d builds stopped, one %s", (unsigned long long)stop_ms, aborted,
                  building ? "still running" : "not");
    }
    cz_backend_set_gpu_provider(NULL);
    return cz_test_finish();
}
