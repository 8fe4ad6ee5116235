/* Lost GPUs (cz_backend.device_lost) in the engine, on a fake two-device backend over the CPU prover whose
 * start() fails with CZ_EDEVICE on chosen devices, saying the device is lost (a sticky CUDA error) or not:
 *  - device 1 lost: every job still completes (the failed partition is proved on device 0 and verifies),
 *    status and metrics show the loss and the retry, device 1 takes no partition after it (one start()
 *    there, also for a job submitted later), the memory budget and held witnesses go back to zero;
 *  - both devices lost: the jobs fail promptly with "no usable GPU: ..." naming both, a new submit is
 *    refused with CZ_EDEVICE, status and metrics still answer, the all-lost hook (cz_engine_on_all_lost, the
 *    daemon's gpus.exit_when_all_lost) ran once, the engine shuts down;
 *  - a start() failure that does not lose the device fails its job as before: no retry, nothing lost;
 *  - a start() out of device memory (CZ_ENOMEM, the device in service): the device's scratch is trimmed once
 *    (cz_backend.trim, in its turn) and the partition queued once more, so the job completes; out of memory
 *    again, the job fails saying so, the device stays in service and the next job completes;
 *  - a start() failure without a message (session 71: B_G2's thread lost its message, and a 32 GiB Snap job failed
 *    with "prover start for partition 0 failed: " and nothing after) names its code, not the message of the
 *    worker thread's earlier failure;
 *  - a partition that breaks a second GPU (three devices, a one-partition circuit, the first two start()
 *    calls fail and lose their device): its job fails naming the loss and the retry, the third device
 *    goes on proving.
 * Built a second time with the server (test_engine_gpufail_json, src/cli/CMakeLists.txt, CZ_TEST_STATUS_JSON):
 * the daemon's /status JSON (cz_status_json) shows the same: gpus[].lost, lost_reason and lost_secs_ago only
 * on a lost device, gpu_workers[].state "lost". */
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

#ifdef CZ_TEST_STATUS_JSON
#include <jansson.h>

#include "server/http.h"

/* /status as the daemon serves it: gpus[i].lost == lost[i] (lost_reason naming why, lost_secs_ago, only
 * then), gpu_workers[w].state "lost" exactly for the workers of lost devices (per_dev workers a device). */
static void check_status_json(cz_engine *e, const bool *lost, int ndevs, int per_dev) {
    char *s = cz_status_json(e);
    json_error_t err;
    json_t *j = s ? json_loads(s, 0, &err) : NULL;
    CHECK_MSG(j != NULL, "/status JSON does not parse: %s", s ? err.text : "NULL");
    json_t *g = json_object_get(j, "gpus"), *w = json_object_get(j, "gpu_workers");
    CHECK_MSG(json_array_size(g) == (size_t)ndevs && json_array_size(w) == (size_t)(ndevs * per_dev),
              "/status: %zu gpus, %zu workers", json_array_size(g), json_array_size(w));
    for (int d = 0; j && d < ndevs && (size_t)d < json_array_size(g); d++) {
        json_t *o = json_array_get(g, (size_t)d), *why = json_object_get(o, "lost_reason"),
               *ago = json_object_get(o, "lost_secs_ago");
        CHECK_MSG(json_is_boolean(json_object_get(o, "lost")) && json_is_true(json_object_get(o, "lost")) == lost[d],
                  "/status gpus[%d].lost", d);
        json_t *busy = json_object_get(o, "busy_secs_total");
        CHECK_MSG(json_is_integer(json_object_get(o, "partitions")) && json_is_real(busy) && json_real_value(busy) >= 0,
                  "/status gpus[%d]: partitions, busy_secs_total", d);
        if (lost[d])
            CHECK_MSG(json_is_string(why) && strstr(json_string_value(why), "cudaErrorIllegalAddress") &&
                          json_is_number(ago) && json_number_value(ago) >= 0 && json_number_value(ago) < 120,
                      "/status gpus[%d]: lost_reason / lost_secs_ago", d);
        else
            CHECK_MSG(!why && !ago, "/status gpus[%d]: lost_reason on a device in service", d);
        for (int k = 0; k < per_dev && (size_t)(d * per_dev + k) < json_array_size(w); k++) {
            const char *st = json_string_value(json_object_get(json_array_get(w, (size_t)(d * per_dev + k)), "state"));
            CHECK_MSG(st && (!strcmp(st, "lost")) == lost[d], "/status gpu_workers[%d].state %s", d * per_dev + k,
                      st ? st : "(none)");
        }
    }
    json_decref(j);
    free(s);
}
#endif

#define MAXD 3
static cz_backend cpu; /* the calls the fake makes once it lets a start() through */
static const int ords[MAXD] = {3, 5, 7};
static int ndev = 2;             /* devices of the fake */
static int fail_mask, lost_mask; /* by device: start() fails; device_lost says lost */
static int fail_next;            /* the next so many start() calls fail, whatever the device */
static int fail_silent;          /* and say nothing (a code without a message) */
static int fail_oom;             /* fail with CZ_ENOMEM (out of device memory), the device still in service */
static int trims[MAXD];          /* trim() calls by device */
static int starts[MAXD];         /* start() calls by device */

static int fake_fails(int dev) {
    __atomic_fetch_add(&starts[dev], 1, __ATOMIC_SEQ_CST);
    /* device 0 is slow, so partitions wait in the queue and device 1's workers take some */
    if (dev == 0) usleep(50 * 1000);
    if ((__atomic_load_n(&fail_mask, __ATOMIC_SEQ_CST) >> dev & 1) || __atomic_fetch_sub(&fail_next, 1, __ATOMIC_SEQ_CST) > 0)
        return fail_silent ? CZ_EDEVICE
               : __atomic_load_n(&fail_oom, __ATOMIC_SEQ_CST)
                   ? cz_error(CZ_ENOMEM, "fake start on device %d: GPU scratch of 1073741824 bytes: out of memory", dev)
                   : cz_error(CZ_EDEVICE, "fake start on device %d: an illegal memory access was encountered", dev);
    return 0;
}

static int fake_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                      const cz_fr *inputs, const cz_fr *aux, void **pending) {
    (void)b;
    int rc = fake_fails(dev);
    return rc ? rc : cpu.start(&cpu, dev, p, r, inputs, aux, pending);
}

static int fake_start_compact(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                              const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    (void)b;
    int rc = fake_fails(dev);
    return rc ? rc : cpu.start_compact(&cpu, dev, p, r, inputs, aux, pending);
}

static bool fake_lost(cz_backend *b, int dev, char *why, size_t n) {
    (void)b;
    if (!(lost_mask >> dev & 1)) return false;
    snprintf(why, n, "cudaErrorIllegalAddress: an illegal memory access was encountered (fake device %d)",
             dev);
    return true;
}

static void fake_trim(cz_backend *b, int dev) {
    (void)b;
    __atomic_fetch_add(&trims[dev], 1, __ATOMIC_SEQ_CST);
}

static int devices(void) { return ndev; }

static int fake_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(&cpu, nthreads);
    *b = cpu;
    b->name = "fake-gpu";
    b->ndevices = ndev;
    b->ordinals = ords;
    b->start = fake_start;
    b->start_compact = fake_start_compact;
    b->device_lost = fake_lost;
    b->trim = fake_trim;
    return 0;
}

static cz_engine *engine_n(int n, int per_dev, int fails, int losts, int next) {
    ndev = n, fail_mask = fails, lost_mask = losts, fail_next = next;
    memset(starts, 0, sizeof starts);
    memset(trims, 0, sizeof trims);
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = (uint32_t)per_dev;
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    return e;
}

static cz_engine *engine(int fails, int losts, int next) { return engine_n(2, 2, fails, losts, next); }

static int submit(cz_engine *e, const char *id) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)id, s.vanilla_len = strlen(id);
    char out[CZ_JOB_ID_MAX];
    uint32_t q;
    return cz_engine_submit(e, &s, out, &q);
}

/* The job's final result, or CZ_JOB_TIMEOUT after a minute (a hang is a failure, not a stuck test). */
static int await(cz_engine *e, const char *id, cz_result *r) {
    CHECK(cz_engine_await(e, id, 60000, r) == 0);
    return r->status;
}

static bool has(const char *m, const char *s) {
    bool ok = m && strstr(m, s);
    if (!ok) fprintf(stderr, "metrics lack: %s", s);
    return ok;
}

static int all_lost_calls;
static void count_all_lost(void *arg) { (*(int *)arg)++; }

static void one_lost(void) {
    cz_engine *e = engine(2, 2, 0);
    if (!e) return;
    all_lost_calls = 0;
    cz_engine_on_all_lost(e, count_all_lost, &all_lost_calls);
    static const char *ids[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) CHECK(submit(e, ids[i]) == 0);
    uint32_t parts = 0;
    cz_result r;
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(await(e, ids[i], &r) == CZ_JOB_COMPLETED && r.proof_len >= 192, "job %s: status %d: %s",
                  ids[i], r.status, r.error);
        parts += (uint32_t)(r.proof_len / 192);
        cz_result_free(&r);
    }
    /* one start() on device 1 (it failed; its sibling worker saw the loss and did not start), every partition
     * proved once on device 0 */
    CHECK_MSG(starts[1] == 1 && starts[0] == (int)parts, "starts %d %d, %u partitions", starts[0], starts[1],
              parts);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.n_gpus == 2 && st.n_workers == 4);
    if (st.n_gpus == 2 && st.n_workers == 4) {
        CHECK(st.gpus[1].lost && strstr(st.gpus[1].lost_reason, "cudaErrorIllegalAddress") &&
              strstr(st.gpus[1].lost_reason, "fake device 1") && st.gpus[1].lost_ms_ago < 120000);
        CHECK(!st.gpus[0].lost && !st.gpus[0].lost_reason[0] && st.gpus[0].ordinal == 3 &&
              st.gpus[1].ordinal == 5);
        CHECK(!st.workers[0].lost && !st.workers[1].lost && st.workers[2].lost && st.workers[3].lost);
        /* each device's start()s, the failed one on the lost device among them */
        CHECK_MSG(st.gpus[0].starts == (uint64_t)starts[0] && st.gpus[1].starts == (uint64_t)starts[1] &&
                      st.gpus[0].busy_ms <= st.uptime_ms && st.gpus[1].busy_ms <= st.uptime_ms,
                  "status: device partitions %llu %llu (start()s %d %d), busy %llu %llu ms",
                  (unsigned long long)st.gpus[0].starts, (unsigned long long)st.gpus[1].starts, starts[0], starts[1],
                  (unsigned long long)st.gpus[0].busy_ms, (unsigned long long)st.gpus[1].busy_ms);
    }
    /* the failed partition and, at most, its sibling's (requeued unstarted) */
    CHECK_MSG(st.partition_retries >= 1 && st.partition_retries <= 2, "retries %llu",
              (unsigned long long)st.partition_retries);
    CHECK(st.completed == 4 && st.failed == 0 && st.witness_bytes == 0);
    /* nothing left charged but the loaded SRS: a requeued partition's charge went back once */
    uint64_t srs = 0;
    for (size_t i = 0; i < st.n_srs; i++) srs += st.srs[i].tier == CZ_TIER_HOT ? st.srs[i].size_bytes : 0;
    CHECK_MSG(st.budget_used == srs, "budget used %llu, SRS %llu", (unsigned long long)st.budget_used,
              (unsigned long long)srs);
    char *m = cz_engine_metrics(e), want[96];
    snprintf(want, sizeof want, "cuzk_partition_retries_total %llu\n",
             (unsigned long long)st.partition_retries);
    CHECK(has(m, "cuzk_gpu_lost{ordinal=\"3\"} 0\n") && has(m, "cuzk_gpu_lost{ordinal=\"5\"} 1\n") &&
          has(m, "# TYPE cuzk_gpu_lost gauge\n") && has(m, "# TYPE cuzk_partition_retries_total counter\n") &&
          has(m, want));
    free(m);
    cz_engine_status_free(&st);
#ifdef CZ_TEST_STATUS_JSON
    check_status_json(e, (const bool[]){false, true}, 2, 2);
#endif
    /* later work goes to device 0 only */
    CHECK(submit(e, "later") == 0);
    CHECK(await(e, "later", &r) == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    CHECK_MSG(starts[1] == 1, "device 1: %d starts", starts[1]);
    CHECK_MSG(all_lost_calls == 0, "all-lost hook ran %d times with a device left", all_lost_calls);
    cz_engine_free(e);
}

static void all_lost(void) {
    cz_engine *e = engine(3, 3, 0);
    if (!e) return;
    all_lost_calls = 0;
    cz_engine_on_all_lost(e, count_all_lost, &all_lost_calls);
    static const char *ids[] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) CHECK(submit(e, ids[i]) == 0);
    cz_result r;
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(
            await(e, ids[i], &r) == CZ_JOB_FAILED &&
                strstr(r.error,
                       "no usable GPU: all 2 devices lost (device 0, ordinal 3: cudaErrorIllegalAddress") &&
                strstr(r.error, "; device 1, ordinal 5: cudaErrorIllegalAddress"),
            "job %s: status %d: %s", ids[i], r.status, r.error);
        cz_result_free(&r);
    }
    CHECK(submit(e, "refused") == CZ_EDEVICE &&
          strstr(cz_error_message(), "no usable GPU: all 2 devices lost"));
    CHECK_MSG(all_lost_calls == 1, "all-lost hook ran %d times", all_lost_calls);
    /* at most one start() a device: the first failure loses it */
    CHECK_MSG(starts[0] == 1 && starts[1] == 1, "starts %d %d", starts[0], starts[1]);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.n_gpus == 2 && st.gpus[0].lost && st.gpus[1].lost &&
          st.failed == 3 && st.queue_depth == 0 && st.gpu_queue_len == 0 && st.witness_bytes == 0);
    for (size_t i = 0; i < st.n_workers; i++) CHECK(st.workers[i].lost && !st.workers[i].busy);
    cz_engine_status_free(&st);
    char *m = cz_engine_metrics(e);
    CHECK(has(m, "cuzk_gpu_lost{ordinal=\"3\"} 1\n") && has(m, "cuzk_gpu_lost{ordinal=\"5\"} 1\n") &&
          has(m, "cuzk_proofs_failed_total 3\n"));
    free(m);
#ifdef CZ_TEST_STATUS_JSON
    check_status_json(e, (const bool[]){true, true}, 2, 2);
#endif
    cz_engine_free(e); /* returns: the lost devices' workers have ended */
}

static void start_error_not_lost(void) {
    cz_engine *e = engine(0, 0, 1);
    if (!e) return;
    cz_result r;
    CHECK(submit(e, "broken") == 0);
    CHECK_MSG(await(e, "broken", &r) == CZ_JOB_FAILED && strstr(r.error, "prover start for partition") &&
                  strstr(r.error, "illegal memory access") && !strstr(r.error, "lost"),
              "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    CHECK(submit(e, "fine") == 0 && await(e, "fine", &r) == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.n_gpus == 2 && !st.gpus[0].lost && !st.gpus[1].lost &&
          st.partition_retries == 0 && st.failed == 1 && st.completed == 1);
    for (size_t i = 0; i < st.n_workers; i++) CHECK(!st.workers[i].lost);
    cz_engine_status_free(&st);
#ifdef CZ_TEST_STATUS_JSON
    check_status_json(e, (const bool[]){false, false}, 2, 2);
#endif
    cz_engine_free(e);
}

/* One device, one worker (one thread, so its message of the first failure is still there at the second). */
static void start_error_silent(void) {
    cz_engine *e = engine_n(1, 1, 0, 0, 1);
    if (!e) return;
    cz_result r;
    CHECK(submit(e, "loud") == 0);
    CHECK_MSG(await(e, "loud", &r) == CZ_JOB_FAILED && strstr(r.error, "illegal memory access"), "status %d: %s",
              r.status, r.error);
    cz_result_free(&r);
    __atomic_store_n(&fail_silent, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_next, 1, __ATOMIC_SEQ_CST);
    CHECK(submit(e, "silent") == 0);
    CHECK_MSG(await(e, "silent", &r) == CZ_JOB_FAILED && strstr(r.error, "prover start for partition") &&
                  strstr(r.error, "CZ_EDEVICE") && !strstr(r.error, "illegal memory access"),
              "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    __atomic_store_n(&fail_silent, 0, __ATOMIC_SEQ_CST);
    CHECK(submit(e, "fine") == 0 && await(e, "fine", &r) == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    cz_engine_free(e);
}

/* The 2 KiB test circuit with one partition a job (so a job's failures are one partition's). */
static bool one_partition(cz_circuit *one) {
    const cz_circuit *tc = cz_circuit_find("porep-2k-test");
    CHECK(tc != NULL);
    if (!tc) return false;
    *one = *tc;
    one->partitions = 1;
    return true;
}

/* Out of device memory on one device of one worker, a one-partition circuit: once (trimmed, queued again,
 * completed), then on every start (failed after one retry, the device still in service). */
static void oom_retry(void) {
    cz_circuit one;
    if (!one_partition(&one)) return;
    __atomic_store_n(&fail_oom, 1, __ATOMIC_SEQ_CST);
    cz_engine *e = engine_n(1, 1, 0, 0, 1);
    if (!e) return;
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &one);
    cz_result r;
    CHECK(submit(e, "oom-once") == 0);
    CHECK_MSG(await(e, "oom-once", &r) == CZ_JOB_COMPLETED && r.proof_len == 192, "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    CHECK_MSG(starts[0] == 2 && trims[0] == 1, "one OOM: %d starts, %d trims", starts[0], trims[0]);
    __atomic_store_n(&fail_mask, 1, __ATOMIC_SEQ_CST);
    CHECK(submit(e, "oom-always") == 0);
    CHECK_MSG(await(e, "oom-always", &r) == CZ_JOB_FAILED && strstr(r.error, "prover start for partition 0 failed") &&
                  strstr(r.error, "out of memory") && strstr(r.error, "again, after its device's scratch was freed"),
              "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    CHECK_MSG(starts[0] == 4 && trims[0] == 2, "OOM twice: %d starts, %d trims", starts[0], trims[0]);
    __atomic_store_n(&fail_mask, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_oom, 0, __ATOMIC_SEQ_CST);
    CHECK(submit(e, "after-oom") == 0);
    CHECK_MSG(await(e, "after-oom", &r) == CZ_JOB_COMPLETED, "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.n_gpus == 1);
    CHECK_MSG(!st.gpus[0].lost && st.partition_oom_retries == 2 && st.partition_retries == 0 && st.failed == 1 &&
                  st.completed == 2 && st.witness_bytes == 0,
              "lost %d, OOM retries %llu, retries %llu, failed %llu, completed %llu, witness %llu", st.gpus[0].lost,
              (unsigned long long)st.partition_oom_retries, (unsigned long long)st.partition_retries,
              (unsigned long long)st.failed, (unsigned long long)st.completed, (unsigned long long)st.witness_bytes);
    cz_engine_status_free(&st);
    char *m = cz_engine_metrics(e);
    CHECK(has(m, "cuzk_partition_oom_retries_total 2\n"));
    free(m);
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, NULL);
    cz_engine_free(e);
}

static void poison(void) {
    cz_circuit one; /* the two failures are the same partition's */
    if (!one_partition(&one)) return;
    cz_engine *e = engine_n(3, 1, 0, 7, 2);
    if (!e) return;
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &one);
    cz_result r;
    CHECK(submit(e, "poison") == 0);
    CHECK_MSG(await(e, "poison", &r) == CZ_JOB_FAILED && strstr(r.error, "lost") &&
                  strstr(r.error, "retried once already") && strstr(r.error, "cudaErrorIllegalAddress"),
              "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    CHECK(submit(e, "after") == 0);
    CHECK_MSG(await(e, "after", &r) == CZ_JOB_COMPLETED && r.proof_len == 192, "status %d: %s", r.status, r.error);
    cz_result_free(&r);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.n_gpus == 3);
    int lost = 0, healthy = -1;
    for (size_t i = 0; i < st.n_gpus; i++) {
        lost += st.gpus[i].lost;
        if (!st.gpus[i].lost) healthy = (int)i;
    }
    /* two devices lost, one start() on each; the third proved "after" alone; one requeue */
    CHECK_MSG(lost == 2 && healthy >= 0 && starts[healthy] == 1 && starts[0] + starts[1] + starts[2] == 3 &&
                  st.partition_retries == 1 && st.failed == 1 && st.completed == 1 && st.witness_bytes == 0,
              "lost %d, starts %d %d %d, retries %llu", lost, starts[0], starts[1], starts[2],
              (unsigned long long)st.partition_retries);
    cz_engine_status_free(&st);
    cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, NULL);
    cz_engine_free(e);
}

int main(void) {
    static const cz_gpu_provider prov = {devices, fake_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    cz_log_set_level("error");
    one_lost();
    all_lost();
    start_error_not_lost();
    start_error_silent();
    oom_retry();
    poison();
    cz_backend_set_gpu_provider(NULL);
    return cz_test_finish();
}
