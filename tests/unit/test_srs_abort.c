/* cz_srs_abort (daemon shutdown stops an SRS load at its next stage instead of waiting it out):
 * - a load whose circuit recording is under way when the abort comes returns CZ_ECANCELED as soon as the
 *   recording returns: no seeded setup runs (no cache file is written), nothing is resident, the entry is
 *   COLD again, and later loads are refused at once;
 * - an abort that lands inside the recording (from the recording's own stop, asked before each of its blocks: the
 *   2 KiB Window PoSt circuit's sectors) stops the recording itself: its blocks are skipped (CZ_ECANCELED from the
 *   recording), and the load ends the same way; at 32 GiB a shutdown no longer waits for the ~7 s recording;
 * - the control: the same circuit in a manager that is not aborted loads (seeded setup, cache file written,
 *   bytes resident), so the checks above can tell the two apart.
 * The circuit is the built-in test circuit with its recording wrapped to wait for the abort (wpost-2k's for the
 * abort inside). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/log.h"
#include "engine/srs.h"

static const cz_circuit *base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int in_build, release_build;

/* The test circuit's recording, held until the main thread lets it go (so the abort lands mid-stage). */
static int slow_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    (void)c;
    pthread_mutex_lock(&mu);
    in_build = 1;
    pthread_cond_broadcast(&cv);
    while (!release_build) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return base->build_r1cs(base, out, stop, stop_arg);
}

/* The real circuit's recording, with its stop watched: the manager is aborted at the stop's first question (a
 * shutdown while the recording runs); inner_rc is what the recording itself returned. */
static const cz_circuit *spy_base;
static cz_srs_mgr *spy_mgr;
static bool (*spy_real)(void *);
static int spy_asked, inner_rc = -1;

static bool spy_stop(void *arg) {
    if (!spy_asked++) cz_srs_abort(spy_mgr);
    return spy_real(arg);
}

static int spied_build(const cz_circuit *c, cz_r1cs *out, bool (*stop)(void *), void *stop_arg) {
    (void)c;
    spy_real = stop;
    inner_rc = stop ? spy_base->build_r1cs(spy_base, out, spy_stop, stop_arg) : -2;
    return inner_rc;
}

typedef struct {
    cz_srs_mgr *m;
    const cz_circuit *c;
    int rc;
    cz_srs_entry *e;
    char msg[256]; /* cz_error_message is per thread */
} acq;

static void *acquire_thread(void *arg) {
    acq *a = arg;
    uint64_t ms;
    a->rc = cz_srs_acquire(a->m, a->c, &a->e, &ms);
    snprintf(a->msg, sizeof a->msg, "%s", a->rc ? cz_error_message() : "");
    return NULL;
}

static int file_exists(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0;
}

int main(void) {
    cz_log_set_level("warn");
    base = cz_circuit_find("porep-2k-test");
    CHECK(base != NULL && base->build_r1cs != NULL && base->setup_seed != 0);
    if (!base) return cz_test_finish();
    cz_circuit slow = *base;
    slow.build_r1cs = slow_build;

    char dir[] = "/tmp/cz_srs_abort_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cache[700];
    snprintf(cache, sizeof cache, "%s/cuzk-test-%s.params", dir, slow.id);

    /* aborted mid-recording */
    cz_srs_mgr m;
    cz_srs_init(&m, "", dir, 2);
    acq a = {&m, &slow, 0, NULL, ""};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, acquire_thread, &a) == 0);
    pthread_mutex_lock(&mu);
    while (!in_build) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    cz_srs_abort(&m);
    pthread_mutex_lock(&mu);
    release_build = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(th, NULL);
    CHECK_MSG(a.rc == CZ_ECANCELED, "aborted load: rc %d (%s)", a.rc, a.msg);
    CHECK_MSG(strstr(a.msg, "shutting down") != NULL, "message: %s", a.msg);
    CHECK_MSG(!file_exists(cache), "the seeded setup ran after the abort (%s written)", cache);
    CHECK(cz_srs_loaded_bytes(&m) == 0);
    /* a later load is refused before it starts (the recording would set in_build again) */
    in_build = 0;
    uint64_t ms;
    cz_srs_entry *e = NULL;
    CHECK(cz_srs_acquire(&m, &slow, &e, &ms) == CZ_ECANCELED);
    CHECK(in_build == 0);
    cz_srs_destroy(&m);

    /* aborted inside the recording: the recording stops, the load with it */
    spy_base = cz_circuit_find("wpost-2k");
    CHECK(spy_base && spy_base->setup_seed);
    if (!spy_base) return cz_test_finish();
    cz_circuit spied = *spy_base;
    spied.build_r1cs = spied_build;
    char spied_cache[700];
    snprintf(spied_cache, sizeof spied_cache, "%s/cuzk-test-%s.params", dir, spied.id);
    cz_srs_init(&m, "", dir, 2);
    spy_mgr = &m;
    a = (acq){&m, &spied, 0, NULL, ""};
    CHECK(pthread_create(&th, NULL, acquire_thread, &a) == 0);
    pthread_join(th, NULL);
    CHECK_MSG(inner_rc == CZ_ECANCELED && spy_asked >= 1, "the recording ran on after the abort: rc %d, its stop asked "
              "%d times", inner_rc, spy_asked);
    CHECK_MSG(a.rc == CZ_ECANCELED && strstr(a.msg, "shutting down"), "load aborted in its recording: rc %d (%s)", a.rc,
              a.msg);
    CHECK(!file_exists(spied_cache) && cz_srs_loaded_bytes(&m) == 0);
    cz_srs_destroy(&m);

    /* control: not aborted, the same load completes and writes its cache */
    cz_srs_init(&m, "", dir, 2);
    a = (acq){&m, &slow, 0, NULL, ""};
    CHECK(pthread_create(&th, NULL, acquire_thread, &a) == 0);
    pthread_join(th, NULL);
    CHECK_MSG(a.rc == 0, "control load: %s", a.msg);
    CHECK(file_exists(cache));
    CHECK(cz_srs_loaded_bytes(&m) > 0);
    if (a.rc == 0) cz_srs_release(&m, a.e);
    cz_srs_destroy(&m);
    unlink(cache);
    rmdir(dir);
    return cz_test_finish();
}
