/* The synthesis threads (engine.c synth_team): every partition's synthesis runs an OpenMP team taken from one pool
 * (synthesis.threads; 0 = every core but one for each prover worker of a GPU backend) and gives it back at its end.
 * On the built-in test circuit with 12 partitions, each synthesis recorded from inside (omp_get_max_threads(), and
 * the team a parallel region really gets):
 *  - the teams of the syntheses running at once never add up to more than the pool, so a burst of partitions
 *    cannot bury the prover workers' host threads (before: every partition a team of all cores);
 *  - a burst uses the whole pool (the first teams sum to it), and a lone partition on an idle engine gets all of it;
 *  - the TIMELINE's SYNTH_END threads= is the team the circuit saw;
 *  - a GPU backend's default pool is the cores less its prover workers (engine log), at least half the cores;
 *  - a job above NORMAL (a Winning PoSt) does not wait for a thread while a PoRep's partitions hold the pool: it
 *    starts at once with a team of one;
 *  - CUZK_SYNTH_SHARE=0 leaves each synthesis the process's default team (A/B only);
 *  - every job still completes with verified proofs. */
#include <omp.h>
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

#define NPART 12
#define MAXREC 256

static const cz_circuit *base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int running, running_max, nrec, team_seen[MAXREC], team_ran[MAXREC];
static int urgent_team = -1, urgent_beside = -1; /* the Winning PoSt's team, and the threads running when it began */

static int hold_us = 25000;

/* Records the calling synthesis's team and counts it as running until record_end (after the witness). */
static int record(void) {
    const int t = omp_get_max_threads();
    int ran = 0;
#pragma omp parallel
    {
#pragma omp single
        ran = omp_get_num_threads();
    }
    pthread_mutex_lock(&mu);
    running += t;
    if (running > running_max) running_max = running;
    if (nrec < MAXREC) team_seen[nrec] = t, team_ran[nrec] = ran, nrec++;
    pthread_mutex_unlock(&mu);
    usleep((useconds_t)hold_us); /* the others overlap it */
    return t;
}

static int record_end(int t, int rc) {
    pthread_mutex_lock(&mu);
    running -= t;
    pthread_mutex_unlock(&mu);
    return rc;
}

static int rec_synth(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni, cz_fr **aux,
                     uint64_t *na) {
    const int t = record();
    return record_end(t, base->synthesize(c, state, partition, inputs, ni, aux, na));
}

static int rec_synth_compact(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni,
                             cz_wcompact *aux) {
    const int t = record();
    return record_end(t, base->synthesize_compact(c, state, partition, inputs, ni, aux));
}

static int rec_urgent(const cz_circuit *c, void *state, uint32_t partition, cz_fr **inputs, uint64_t *ni, cz_fr **aux,
                      uint64_t *na) {
    pthread_mutex_lock(&mu);
    urgent_team = omp_get_max_threads(), urgent_beside = running;
    pthread_mutex_unlock(&mu);
    return base->synthesize(c, state, partition, inputs, ni, aux, na);
}

static void reset(void) {
    pthread_mutex_lock(&mu);
    running = running_max = nrec = 0;
    pthread_mutex_unlock(&mu);
}

static int submit(cz_engine *e, const char *id, char *job_id) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)id, s.vanilla_len = strlen(id);
    uint32_t q;
    return cz_engine_submit(e, &s, job_id, &q);
}

static bool completed(cz_engine *e, const char *job_id) {
    cz_result r;
    const bool ok = cz_engine_await(e, job_id, 120000, &r) == 0 && r.status == CZ_JOB_COMPLETED;
    if (!ok) fprintf(stderr, "job %s: status %d: %s\n", job_id, r.status, r.error);
    cz_result_free(&r);
    return ok;
}

/* The sum of SYNTH_END threads= over the TIMELINE, and how many lines carry it. */
static int timeline_threads(const char *log, int *lines) {
    int sum = 0;
    *lines = 0;
    for (const char *q = log; q && (q = strstr(q, ",SYNTH_END,")); q++) {
        const char *nl = strchr(q, '\n'), *t = strstr(q, ",threads=");
        if (t && (!nl || t < nl)) sum += atoi(t + 9), (*lines)++;
    }
    return sum;
}

static cz_circuit circ;

static cz_engine *engine(const char *backend, uint32_t pool) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "%s", backend);
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.synthesis_threads = pool;
    cfg.max_parallel_synthesis = 6;
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &circ);
    return e;
}

/* engine(), its log at level info captured into logf and returned in *log (the engine's start line) */
static cz_engine *engine_logged(const char *backend, uint32_t pool, const char *logf, char **log) {
    cz_log_set_level("info");
    cz_test_capture_begin(logf);
    cz_engine *e = engine(backend, pool);
    *log = cz_test_capture_end(logf);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "error");
    return e;
}

/* pool threads, `jobs` jobs of NPART partitions submitted at once, then a lone one-partition job; depth: the
 * default shares (depth first while the device runs dry), else CUZK_SYNTH_DEPTH=0 (the even split alone) */
static void shared(int pool, int jobs, bool depth) {
    char logf[] = "/tmp/cz_synth_pool_XXXXXX";
    int fd = mkstemp(logf);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    const char *was = getenv("CUZK_SYNTH_DEPTH");
    if (!depth) setenv("CUZK_SYNTH_DEPTH", "0", 1);
    char *start = NULL;
    cz_engine *e = engine_logged("cpu", (uint32_t)pool, logf, &start);
    if (!depth && !was) unsetenv("CUZK_SYNTH_DEPTH");
    /* the engine's start line names the even split alone */
    CHECK_MSG(!e || (start && (strstr(start, "(no depth first: CUZK_SYNTH_DEPTH=0)") != NULL) == !depth),
              "pool %d: the start line %s the depth-first knob", pool, depth ? "names" : "does not name");
    free(start);
    if (!e) return;
    reset();
    cz_test_capture_begin(logf);
    char ids[4][CZ_JOB_ID_MAX];
    bool ok = true;
    for (int i = 0; i < jobs; i++) {
        char rid[32];
        snprintf(rid, sizeof rid, "burst-%d-%d", pool, i);
        ok &= submit(e, rid, ids[i]) == 0;
    }
    for (int i = 0; i < jobs; i++) ok &= completed(e, ids[i]);
    char *log = cz_test_capture_end(logf);
    int lines = 0;
    const int tl = timeline_threads(log, &lines);
    pthread_mutex_lock(&mu);
    int seen = 0, first = 0, mism = 0, n = nrec;
    for (int i = 0; i < n; i++) seen += team_seen[i], mism += team_ran[i] != team_seen[i];
    /* the burst's first syntheses (as many as workers, min(6, cores), or threads in the pool) start together */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const int nsyn = ncpu > 6 ? 6 : ncpu < 2 ? 2 : (int)ncpu, k = pool < nsyn ? pool : nsyn;
    for (int i = 0; i < n && i < k; i++) first += team_seen[i];
    const int rmax = running_max;
    pthread_mutex_unlock(&mu);
    CHECK_MSG(ok && n == jobs * NPART, "pool %d: %d syntheses recorded for %d partitions, jobs %s", pool, n,
              jobs * NPART, ok ? "completed" : "not all completed");
    CHECK_MSG(rmax <= pool, "pool %d: syntheses running at once had teams of %d threads in all", pool, rmax);
    CHECK_MSG(mism == 0, "pool %d: %d parallel regions ran another team than omp_get_max_threads()", pool, mism);
    CHECK_MSG(lines == n && tl == seen, "pool %d: the TIMELINE's threads= sum to %d over %d lines, the circuit saw %d",
              pool, tl, lines, seen);
    if (depth) {
        /* depth first on the idle engine: the burst's first synthesis took the whole pool (the device waits for it),
         * and the others waited for it (no thread was free) */
        CHECK_MSG(n > 0 && team_seen[0] == pool, "pool %d, depth first: the burst's first team %d", pool,
                  n ? team_seen[0] : -1);
        first = n ? team_seen[0] : 0;
    } else {
        /* the even split: the burst's first teams took the whole pool together */
        CHECK_MSG(first == pool, "pool %d: the burst's first %d teams sum to %d", pool, k, first);
    }
    printf("pool %d, %d x %d partitions%s: teams in all %d (at most %d at once), the first %s%d\n", pool, jobs, NPART,
           depth ? "" : " (CUZK_SYNTH_DEPTH=0)", seen, rmax, depth ? "" : "ones' sum ", first);
    free(log);
    /* a lone partition on the idle engine: the whole pool */
    cz_circuit one = circ;
    one.partitions = 1;
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &one);
    reset();
    char id[CZ_JOB_ID_MAX];
    cz_test_capture_begin(logf);
    CHECK(submit(e, "lone", id) == 0 && completed(e, id));
    free(cz_test_capture_end(logf));
    pthread_mutex_lock(&mu);
    CHECK_MSG(nrec == 1 && team_seen[0] == pool && team_ran[0] == pool, "pool %d: a lone partition's team %d (ran %d)",
              pool, nrec ? team_seen[0] : -1, nrec ? team_ran[0] : -1);
    pthread_mutex_unlock(&mu);
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, NULL);
    cz_engine_free(e);
    unlink(logf);
}

/* pool 1, a NORMAL job of NPART partitions synthesized one by one (~200 ms each); a Winning PoSt (CRITICAL) submitted
 * while one holds the pool starts beside it instead of after it (it would find running == 0 then) */
static void urgent(void) {
    cz_engine *e = engine("cpu", 1);
    if (!e) return;
    cz_circuit win = *base;
    win.partitions = 1;
    win.synthesize = rec_urgent;
    win.synthesize_compact = NULL;
    cz_engine_set_circuit_for_test(e, CZ_KIND_WINNING, &win);
    cz_submit s = {0};
    s.kind = CZ_KIND_WINNING, s.sector_size = 2048, s.vanilla = (const uint8_t *)"winning", s.vanilla_len = 7;
    uint32_t q;
    cz_result r;
    char wid[CZ_JOB_ID_MAX];
    s.request_id = "winning-first"; /* its SRS loaded (a seeded setup: ~1 s) before the scenario */
    CHECK(cz_engine_submit(e, &s, wid, &q) == 0 && cz_engine_await(e, wid, 120000, &r) == 0);
    cz_result_free(&r);
    reset();
    hold_us = 200000;
    char logf[] = "/tmp/cz_synth_urgent_XXXXXX", id[CZ_JOB_ID_MAX];
    int fd = mkstemp(logf);
    if (fd >= 0) close(fd);
    cz_test_capture_begin(logf);
    CHECK(submit(e, "porep", id) == 0);
    for (int t = 0; t < 2000; t++) { /* the PoRep's second synthesis under way */
        pthread_mutex_lock(&mu);
        const bool on = nrec >= 2 && running > 0;
        pthread_mutex_unlock(&mu);
        if (on) break;
        usleep(1000);
    }
    s.request_id = "winning";
    CHECK(cz_engine_submit(e, &s, wid, &q) == 0);
    CHECK_MSG(cz_engine_await(e, wid, 120000, &r) == 0 && r.status == CZ_JOB_COMPLETED, "the Winning PoSt: %d %s",
              r.status, r.error);
    cz_result_free(&r);
    pthread_mutex_lock(&mu);
    const int before = nrec, ut = urgent_team, ub = urgent_beside;
    pthread_mutex_unlock(&mu);
    CHECK(completed(e, id));
    hold_us = 25000;
    char *ulog = cz_test_capture_end(logf);
    if (getenv("CZ_TEST_VERBOSE") && ulog) fputs(ulog, stdout);
    free(ulog);
    unlink(logf);
    /* done while the PoRep still had partitions to synthesize, begun beside one of them, with a team of one */
    CHECK_MSG(ut == 1 && ub == 1 && before < NPART, "the Winning PoSt's synthesis: team %d, %d threads beside it, after "
              "%d of the PoRep's %d syntheses", ut, ub, before, NPART);
    pthread_mutex_lock(&mu);
    CHECK_MSG(running_max <= 1, "the PoRep's syntheses ran %d threads at once in a pool of 1", running_max);
    pthread_mutex_unlock(&mu);
    cz_engine_set_circuit_for_test(e, CZ_KIND_WINNING, NULL);
    cz_engine_free(e);
    printf("a Winning PoSt beside a PoRep holding the pool: team %d, begun beside %d thread(s), after %d of %d\n", ut,
           ub, before, NPART);
}

/* CUZK_SYNTH_SHARE=0: every synthesis the default team, as before the pool */
static void unshared(void) {
    const char *was = getenv("CUZK_SYNTH_SHARE");
    setenv("CUZK_SYNTH_SHARE", "0", 1);
    cz_engine *e = engine("cpu", 2);
    if (!was) unsetenv("CUZK_SYNTH_SHARE");
    if (!e) return;
    reset();
    char id[CZ_JOB_ID_MAX], logf[] = "/tmp/cz_synth_unshared_XXXXXX";
    int fd = mkstemp(logf);
    if (fd >= 0) close(fd);
    cz_test_capture_begin(logf);
    CHECK(submit(e, "unshared", id) == 0 && completed(e, id));
    free(cz_test_capture_end(logf));
    unlink(logf);
    const int dflt = omp_get_max_threads();
    pthread_mutex_lock(&mu);
    int off = 0;
    for (int i = 0; i < nrec; i++) off += team_seen[i] != dflt;
    CHECK_MSG(nrec == NPART && off == 0, "CUZK_SYNTH_SHARE=0: %d of %d syntheses had another team than %d", off, nrec,
              dflt);
    pthread_mutex_unlock(&mu);
    cz_engine_free(e);
}

/* a GPU backend's default pool: the cores less one for each prover worker, at least half of them */
static const int ords[2] = {0, 1};
static int fake_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(b, nthreads);
    b->name = "fake-gpu";
    b->ndevices = 2;
    b->ordinals = ords;
    return 0;
}
static int devices(void) { return 2; }

static void gpu_default(void) {
    static const cz_gpu_provider prov = {devices, fake_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    char logf[] = "/tmp/cz_synth_gpu_XXXXXX";
    int fd = mkstemp(logf);
    if (fd >= 0) close(fd);
    char *log = NULL;
    cz_engine *e = engine_logged("gpu", 0, logf, &log);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* 2 devices x 2 workers (gpus.gpu_workers_per_device), but at least half the cores */
    const long want = ncpu - 2 * 2 > (ncpu + 1) / 2 ? ncpu - 2 * 2 : (ncpu + 1) / 2;
    char need[64];
    snprintf(need, sizeof need, "synthesis_threads=%ld ", want);
    CHECK_MSG(e && log && strstr(log, need), "a GPU backend of 4 prover workers on %ld cores: want \"%s\" in the log",
              ncpu, need);
    if (e) cz_engine_free(e);
    free(log);
    unlink(logf);
    cz_backend_set_gpu_provider(NULL);
}

int main(void) {
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "error");
    base = cz_circuit_find("porep-2k-test");
    CHECK(base != NULL && base->synthesize && base->synthesize_compact);
    if (!base) return cz_test_finish();
    circ = *base;
    circ.partitions = NPART;
    circ.synthesize = rec_synth;
    circ.synthesize_compact = rec_synth_compact;
    shared(3, 1, true);
    shared(5, 2, true);
    shared(1, 1, true);
    shared(3, 1, false);
    shared(5, 2, false);
    urgent();
    unshared();
    gpu_default();
    return cz_test_finish();
}
