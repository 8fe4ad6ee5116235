/* A device's turn by priority (engine.c gpu_main), on a fake one-device backend over the CPU prover whose
 * start() takes START_MS, two workers sharing the device: a queue of NORMAL PoRep jobs keeps both workers and
 * the bounded GPU queue full, then a CRITICAL job (a Winning PoSt's priority) is submitted.
 *  - its partitions go into the full GPU queue at once (the bound holds back lower priorities only);
 *  - the worker waiting for the device with a NORMAL partition gives its place to the CRITICAL one, and a
 *    CRITICAL waiter goes before a NORMAL one: between the CRITICAL job's first partition synthesized and its
 *    last start(), at most one NORMAL start() begins (the H200 before: a 32 GiB Winning PoSt beside a
 *    PoRep C2 waited ~4 s for queue space, ~0.93 s for a worker and ~0.93 s for the device);
 *  - every job completes, the budget goes back to the SRS alone.
 * Then a job cancelled while its partition waits for the turn behind a long start() lets that worker go at once.
 * The order is read from the TIMELINE lines (stderr, captured). */
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

#define START_MS 150
#define NJOBS 8

static cz_backend cpu;
static const int ords[1] = {0};
static uint64_t last_begin;       /* cz_now_ms() when the latest start() began */
static int g_start_ms = START_MS; /* how long start() takes; part 3 makes it long */
static int g_in_start, g_starts;  /* start()s in progress, and begun */

static void start_wait(void) {
    __atomic_store_n(&last_begin, cz_now_ms(), __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&g_in_start, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&g_starts, 1, __ATOMIC_SEQ_CST);
    usleep((useconds_t)g_start_ms * 1000);
    __atomic_sub_fetch(&g_in_start, 1, __ATOMIC_SEQ_CST);
}

static int fake_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                      const cz_fr *aux, void **pending) {
    (void)b;
    start_wait();
    return cpu.start(&cpu, dev, p, r, inputs, aux, pending);
}

static int fake_start_compact(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                              const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    (void)b;
    start_wait();
    return cpu.start_compact(&cpu, dev, p, r, inputs, aux, pending);
}

static int fake_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(&cpu, nthreads);
    *b = cpu;
    b->name = "fake-gpu";
    b->ndevices = 1;
    b->ordinals = ords;
    b->start = fake_start;
    b->start_compact = fake_start_compact;
    return 0;
}

static int submit(cz_engine *e, const char *id, int prio, char *job_id) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.priority = prio;
    s.vanilla = (const uint8_t *)id, s.vanilla_len = strlen(id);
    uint32_t q;
    return cz_engine_submit(e, &s, job_id, &q);
}


/* A TIMELINE line's fields: event and job id into ev / job, partition= into *part (-1 when none). */
static bool timeline(const char *line, char *ev, char *job, int *part) {
    if (strncmp(line, "TIMELINE,", 9)) return false;
    const char *a = strchr(line + 9, ','), *b = a ? strchr(a + 1, ',') : NULL, *c = b ? strchr(b + 1, ',') : NULL;
    if (!c) return false;
    snprintf(ev, 32, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(job, CZ_JOB_ID_MAX, "%.*s", (int)(c - b - 1), b + 1);
    const char *pp = strstr(c, "partition=");
    *part = pp ? atoi(pp + 10) : -1;
    return true;
}

typedef struct {
    int starts;        /* the urgent job's GPU_STARTs */
    int picks_waiting; /* other jobs' GPU_PICKUPs while one of its partitions was synthesized, not queued */
    int normal_starts; /* other jobs' GPU_STARTs after its first GPU_QUEUE, before its last GPU_START */
} order;

static order read_order(const char *log, const char *urgent) {
    order o = {0, 0, 0};
    int n_lines = 0, first_queue = -1, last_start = -1, waiting = 0;
    int *other_start = calloc(8192, sizeof *other_start), n_other = 0;
    for (const char *l = log; l && *l; n_lines++) {
        const char *end = strchr(l, '\n');
        const size_t len = end ? (size_t)(end - l) : strlen(l);
        char line[600], ev[32], job[CZ_JOB_ID_MAX];
        int part;
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), l);
        l = end ? end + 1 : NULL;
        if (!timeline(line, ev, job, &part)) continue;
        const bool mine = !strcmp(job, urgent);
        if (mine && !strcmp(ev, "SYNTH_END")) waiting++;
        if (mine && !strcmp(ev, "GPU_QUEUE")) waiting--, first_queue = first_queue < 0 ? n_lines : first_queue;
        if (mine && !strcmp(ev, "GPU_START")) o.starts++, last_start = n_lines;
        if (!mine && waiting > 0 && !strcmp(ev, "GPU_PICKUP")) o.picks_waiting++;
        if (!mine && !strcmp(ev, "GPU_START") && n_other < 8192) other_start[n_other++] = n_lines;
    }
    for (int i = 0; i < n_other; i++) o.normal_starts += other_start[i] > first_queue && other_start[i] < last_start;
    if (first_queue < 0 || last_start < 0) o.normal_starts = -1;
    free(other_start);
    return o;
}

static void budget_back(cz_engine *e, uint64_t jobs);

/* Waits (up to ~6 s) until exactly busy workers hold a partition and the GPU queue holds at least queued. */
static bool wait_busy(cz_engine *e, int busy, uint32_t queued) {
    for (int t = 0; t < 3000; t++) {
        cz_engine_status st;
        if (cz_engine_status_get(e, &st) == 0) {
            int b = 0;
            for (size_t w = 0; w < st.n_workers; w++) b += st.workers[w].busy;
            const bool ok = b == busy && st.gpu_queue_len >= queued;
            cz_engine_status_free(&st);
            if (ok) return true;
        }
        usleep(2000);
    }
    return false;
}
static int devices(void) { return 1; }

int main(void) {
    static const cz_gpu_provider prov = {devices, fake_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    cz_log_set_level(getenv("CZ_TEST_LOG") ? getenv("CZ_TEST_LOG") : "error");
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = 2;
    char logf[] = "/tmp/cz_turn_XXXXXX";
    int fd = mkstemp(logf);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (!e) return cz_test_finish();
    char ids[NJOBS][CZ_JOB_ID_MAX], urgent[CZ_JOB_ID_MAX] = "";
    cz_test_capture_begin(logf);
    for (int i = 0; i < NJOBS; i++) {
        char rid[32];
        snprintf(rid, sizeof rid, "normal-%d", i);
        CHECK(submit(e, rid, CZ_PRIO_NORMAL, ids[i]) == 0);
    }
    /* both workers busy and the GPU queue full before the urgent job comes */
    const bool full = wait_busy(e, 2, 4);
    CHECK_MSG(full, "the GPU queue never filled");
    /* just after a start() began: the other worker then waits for the device with a NORMAL partition */
    const uint64_t b0 = __atomic_load_n(&last_begin, __ATOMIC_SEQ_CST);
    for (int t = 0; t < 2000 && __atomic_load_n(&last_begin, __ATOMIC_SEQ_CST) == b0; t++) usleep(1000);
    usleep(5000);
    CHECK(submit(e, "urgent", CZ_PRIO_CRITICAL, urgent) == 0);
    cz_result r;
    CHECK(cz_engine_await(e, urgent, 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    for (int i = 0; i < NJOBS; i++) {
        CHECK_MSG(cz_engine_await(e, ids[i], 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED, "job %d: %s", i,
                  r.error);
        cz_result_free(&r);
    }
    char *log = cz_test_capture_end(logf);
    const order o = read_order(log, urgent);
    CHECK_MSG(o.starts == 2, "the CRITICAL job's 2 partitions: %d started", o.starts);
    CHECK_MSG(o.picks_waiting == 0, "%d NORMAL partitions taken from the full GPU queue while a CRITICAL one "
              "waited to enter it", o.picks_waiting);
    CHECK_MSG(o.normal_starts == 0, "%d NORMAL start()s began between the CRITICAL job's first queued partition "
              "and its last start (the worker waiting for the device kept its NORMAL one)", o.normal_starts);
    { /* the yield is counted: status and /metrics */
        int yields = 0;
        for (const char *q = log; (q = strstr(q, "reason=priority")); q++) yields++;
        cz_engine_status st;
        CHECK(cz_engine_status_get(e, &st) == 0);
        char *m = cz_engine_metrics(e), want[96];
        snprintf(want, sizeof want, "cuzk_partition_priority_yields_total %llu\n",
                 (unsigned long long)st.partition_yields);
        CHECK_MSG(yields >= 1 && st.partition_yields == (uint64_t)yields && m && strstr(m, want),
                  "yields: %d in the TIMELINE, %llu in the status, metrics %s", yields,
                  (unsigned long long)st.partition_yields, m && strstr(m, want) ? "agree" : "differ");
        free(m);
        cz_engine_status_free(&st);
    }
    { /* the device's busy time and the partitions' synthesis and waits: status and /metrics (a GPU short of work
       * shows as a busy share below 1, a GPU-bound pipeline as long waits) */
        cz_engine_status st;
        CHECK(cz_engine_status_get(e, &st) == 0);
        const uint64_t starts = (uint64_t)__atomic_load_n(&g_starts, __ATOMIC_SEQ_CST), parts = 2 * (NJOBS + 1);
        const cz_gpu_status *g = st.n_gpus == 1 ? &st.gpus[0] : NULL;
        CHECK_MSG(g && g->starts == starts && g->busy_ms >= starts * START_MS && g->busy_ms <= st.uptime_ms,
                  "device 0: %llu partitions (%llu start()s of %d ms ran), busy %llu ms in an uptime of %llu ms",
                  g ? (unsigned long long)g->starts : 0, (unsigned long long)starts, START_MS,
                  g ? (unsigned long long)g->busy_ms : 0, (unsigned long long)st.uptime_ms);
        const uint64_t *sy = st.synth_by_kind, *sn = st.started_by_kind;
        CHECK_MSG(sy[CZ_KIND_POREP] == parts && sn[CZ_KIND_POREP] == starts && starts == parts &&
                  sy[CZ_KIND_WINNING] + sn[CZ_KIND_WINNING] == 0 && st.wait_ms_by_kind[CZ_KIND_POREP] > 0,
                  "by kind: %llu synthesized (%llu ms), %llu started of %llu partitions after %llu ms of waits",
                  (unsigned long long)sy[CZ_KIND_POREP], (unsigned long long)st.synth_ms_by_kind[CZ_KIND_POREP],
                  (unsigned long long)sn[CZ_KIND_POREP], (unsigned long long)parts,
                  (unsigned long long)st.wait_ms_by_kind[CZ_KIND_POREP]);
        char *m = cz_engine_metrics(e), want[3][128];
        snprintf(want[0], sizeof want[0], "cuzk_gpu_partitions_total{ordinal=\"0\"} %llu\n",
                 (unsigned long long)starts);
        snprintf(want[1], sizeof want[1], "cuzk_partition_synthesis_seconds_count{proof_kind=\"porep_c2\"} %llu\n",
                 (unsigned long long)parts);
        snprintf(want[2], sizeof want[2], "cuzk_partition_prover_wait_seconds_count{proof_kind=\"porep_c2\"} %llu\n",
                 (unsigned long long)starts);
        const char *busy = m ? strstr(m, "\ncuzk_gpu_busy_seconds_total{ordinal=\"0\"} ") : NULL;
        const double busy_s = busy ? atof(strchr(busy, '}') + 2) : -1;
        CHECK_MSG(m && strstr(m, want[0]) && strstr(m, want[1]) && strstr(m, want[2]) && g &&
                  busy_s >= g->busy_ms / 1000.0 - 0.001 && busy_s <= st.uptime_ms / 1000.0 + 1,
                  "metrics: %s / %s / %s; busy %.3f s", m && strstr(m, want[0]) ? "ok" : want[0],
                  m && strstr(m, want[1]) ? "ok" : want[1], m && strstr(m, want[2]) ? "ok" : want[2], busy_s);
        printf("device 0: %llu partitions, busy %.3f s of %.3f s; %llu ms of synthesis, %llu ms of waits for start()\n",
               g ? (unsigned long long)g->starts : 0, g ? g->busy_ms / 1000.0 : 0, st.uptime_ms / 1000.0,
               (unsigned long long)st.synth_ms_by_kind[CZ_KIND_POREP],
               (unsigned long long)st.wait_ms_by_kind[CZ_KIND_POREP]);
        free(m);
        cz_engine_status_free(&st);
    }
    printf("CRITICAL beside a full queue: %d NORMAL pickups while it waited for the queue, %d NORMAL starts before "
           "its own\n", o.picks_waiting, o.normal_starts);
    if (getenv("CZ_TEST_VERBOSE")) fputs(log, stdout);
    free(log);
    budget_back(e, NJOBS + 1);
    cz_engine_free(e);

    /* three workers, one NORMAL job of two partitions: one starts, the second waits for the device, the third
     * worker is free and takes the CRITICAL partition (nothing to yield for: a worker was idle); when the
     * device comes free the CRITICAL waiter goes first (three rounds: the wake-up order alone would pass one
     * in two) */
    cfg.gpu_workers_per_device = 3;
    for (int round = 0; round < 3; round++) {
        CHECK(cz_engine_new(&e, &cfg) == 0 && e);
        if (!e) break;
        char id[CZ_JOB_ID_MAX], rid[32];
        cz_test_capture_begin(logf);
        snprintf(rid, sizeof rid, "normal-r%d", round);
        CHECK(submit(e, rid, CZ_PRIO_NORMAL, id) == 0);
        const bool waiting = wait_busy(e, 2, 0);
        usleep(10000);
        snprintf(rid, sizeof rid, "urgent-r%d", round);
        CHECK(submit(e, rid, CZ_PRIO_CRITICAL, urgent) == 0);
        CHECK(cz_engine_await(e, urgent, 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED);
        cz_result_free(&r);
        CHECK(cz_engine_await(e, id, 60000, &r) == 0 && r.status == CZ_JOB_COMPLETED);
        cz_result_free(&r);
        char *lg = cz_test_capture_end(logf);
        const order o2 = read_order(lg, urgent);
        CHECK_MSG(waiting && o2.starts == 2 && o2.normal_starts == 0,
                  "round %d: %d of the CRITICAL job's partitions started, %d NORMAL start()s went before (the "
                  "NORMAL waiter took the device first)", round, o2.starts, o2.normal_starts);
        free(lg);
        budget_back(e, 2);
        cz_engine_free(e);
    }
    printf("CRITICAL waiter before a NORMAL one: ok\n");

    /* a job cancelled while one of its partitions waits for the device's turn behind a long start(): that worker
     * lets it go at once, not when the start() ends (before: up to a partition's device work, ~0.8 s at 32 GiB),
     * and the partition never starts */
    cfg.gpu_workers_per_device = 2;
    g_start_ms = 1500;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) {
        char id[CZ_JOB_ID_MAX];
        const int s0 = __atomic_load_n(&g_starts, __ATOMIC_SEQ_CST);
        CHECK(submit(e, "cancel-waiting", CZ_PRIO_NORMAL, id) == 0);
        const bool two = wait_busy(e, 2, 0); /* one worker in start(), the other waiting for the turn */
        for (int t = 0; t < 2000 && !__atomic_load_n(&g_in_start, __ATOMIC_SEQ_CST); t++) usleep(1000);
        usleep(50 * 1000);
        bool running = false;
        CHECK(cz_engine_cancel(e, id, &running) == 0 && running);
        const uint64_t t_cancel = cz_now_ms();
        const bool freed = wait_busy(e, 1, 0);
        const uint64_t freed_ms = cz_now_ms() - t_cancel;
        const int in_start = __atomic_load_n(&g_in_start, __ATOMIC_SEQ_CST);
        CHECK_MSG(two && freed && in_start == 1 && freed_ms < (uint64_t)g_start_ms / 3,
                  "the worker waiting for the turn was free %llu ms after the cancellation (%d start()s still "
                  "running; start() takes %d ms)", (unsigned long long)freed_ms, in_start, g_start_ms);
        CHECK(cz_engine_await(e, id, 30000, &r) == 0);
        const int starts = __atomic_load_n(&g_starts, __ATOMIC_SEQ_CST) - s0;
        CHECK_MSG(r.status == CZ_JOB_CANCELLED && starts == 1, "status %d (%s), %d start()s (want CANCELLED, 1)",
                  r.status, r.error ? r.error : "", starts);
        cz_result_free(&r);
        printf("job cancelled while a partition waited for the turn behind a %d ms start(): the worker free after "
               "%llu ms, %d start()\n", g_start_ms, (unsigned long long)freed_ms, starts);
        cz_engine_free(e);
    }
    unlink(logf);
    cz_backend_set_gpu_provider(NULL);
    return cz_test_finish();
}

/* after the jobs: nothing charged but the loaded SRS and the staging buffers; completed jobs counted */
static void budget_back(cz_engine *e, uint64_t jobs) {
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0);
    uint64_t srs = 0;
    for (size_t i = 0; i < st.n_srs; i++) srs += st.srs[i].tier == CZ_TIER_HOT ? st.srs[i].size_bytes : 0;
    CHECK_MSG(st.budget_used == srs + st.staging_bytes && st.completed == jobs && st.failed == 0,
              "budget used %llu, SRS %llu, staging %llu, %llu completed", (unsigned long long)st.budget_used,
              (unsigned long long)srs, (unsigned long long)st.staging_bytes, (unsigned long long)st.completed);
    cz_engine_status_free(&st);
}
