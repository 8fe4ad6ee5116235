/* srs.release_resident_bases in the engine, on a fake two-device GPU backend over the CPU prover. Each fake device
 * "builds a prover" the way the GPU backend does: at its first start() for a params it copies the bases into memory
 * of its own and proves from that copy from then on, never reading the params' bases again; it answers
 * cz_backend.holds_bases from that, and a start() that would have to copy bases that were released returns
 * CZ_ENOBASES as the contract says. Checked:
 *  - on: once both devices hold the circuit, the SRS's host bases are freed (the params' arrays NULL, its lengths and
 *    vk kept), its size in GetStatus falls by exactly their bytes (96 a G1 point, 192 a G2 one), SRS_BASES_RELEASED
 *    is counted in status and metrics; later jobs complete and verify without a restore;
 *  - a device that lost its prover (evicted by the test) gets CZ_ENOBASES, the bases are decoded again from the
 *    parameter file (counted once however many partitions ask), that device builds again from them, and its copy
 *    equals the other device's byte for byte; every job completes and verifies; the bases are released again once
 *    both devices hold them;
 *  - the parameter file changed in place under the daemon (a vk byte flipped on disk): the restore refuses it
 *    ("changed on disk", naming the file), the job fails with that message, nothing released or restored twice;
 *    the byte and the file's time put back, the next job's restore succeeds and it completes;
 *  - off (the default), or a device whose prover still reads the host bases (holds_bases false: streamed): never
 *    released, the size unchanged. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"

#define NDEV 2
static cz_backend cpu;
static const int ords[NDEV] = {0, 1};

typedef struct {
    const cz_groth16_params *p; /* the params this device's "prover" was built from */
    cz_groth16_params copy;     /* its bases (the vk is the params') */
    bool held;
} fake_dev;

static pthread_mutex_t fmu = PTHREAD_MUTEX_INITIALIZER;
static fake_dev fdev[NDEV];
static int builds[NDEV], nobases[NDEV];
static bool streamed1; /* device 1's prover reads the host bases (holds_bases says no) */

static void drop_copy(fake_dev *d) {
    free(d->copy.h), free(d->copy.l), free(d->copy.a), free(d->copy.b_g1), free(d->copy.b_g2);
    memset(d, 0, sizeof *d);
}

static void *dup_bytes(const void *p, size_t n) {
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

/* The device's copy for p, built when it has none: CZ_ENOBASES when p's bases are released (the GPU backend's
 * acquire). *use proves from the copy with p's vk. */
static int fake_acquire(int dev, const cz_groth16_params *p, cz_groth16_params *use) {
    pthread_mutex_lock(&fmu);
    fake_dev *d = &fdev[dev];
    int rc = 0;
    if (!d->held || d->p != p) {
        if (cz_groth16_params_bases_released(p)) {
            nobases[dev]++;
            pthread_mutex_unlock(&fmu);
            return cz_error(CZ_ENOBASES, "fake device %d: no prover and the bases were released", dev);
        }
        drop_copy(d);
        d->copy = *p;
        memset(&d->copy.vk, 0, sizeof d->copy.vk);
        d->copy.h = dup_bytes(p->h, p->h_len * sizeof *p->h);
        d->copy.l = dup_bytes(p->l, p->l_len * sizeof *p->l);
        d->copy.a = dup_bytes(p->a, p->a_len * sizeof *p->a);
        d->copy.b_g1 = dup_bytes(p->b_g1, p->b_len * sizeof *p->b_g1);
        d->copy.b_g2 = dup_bytes(p->b_g2, p->b_len * sizeof *p->b_g2);
        d->p = p, d->held = true;
        builds[dev]++;
    }
    *use = d->copy;
    use->vk = p->vk;
    pthread_mutex_unlock(&fmu);
    return rc;
}

static int fake_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                      const cz_fr *aux, void **pending) {
    (void)b;
    cz_groth16_params use;
    int rc = fake_acquire(dev, p, &use);
    usleep(20 * 1000); /* a GPU's partition: the other device's worker takes the next one meanwhile */
    return rc ? rc : cpu.start(&cpu, dev, &use, r, inputs, aux, pending);
}

static int fake_start_compact(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                              const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    (void)b;
    cz_groth16_params use;
    int rc = fake_acquire(dev, p, &use);
    usleep(20 * 1000);
    return rc ? rc : cpu.start_compact(&cpu, dev, &use, r, inputs, aux, pending);
}

static bool fake_holds(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r) {
    (void)b, (void)r;
    pthread_mutex_lock(&fmu);
    const bool h = fdev[dev].held && fdev[dev].p == p && !(dev == 1 && streamed1);
    pthread_mutex_unlock(&fmu);
    return h;
}

static int devices(void) { return NDEV; }

static int fake_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(&cpu, nthreads);
    *b = cpu;
    b->name = "fake-gpu";
    b->ndevices = NDEV;
    b->ordinals = ords;
    b->start = fake_start;
    b->start_compact = fake_start_compact;
    b->holds_bases = fake_holds;
    return 0;
}

static char dir[] = "/tmp/cz_release_bases_XXXXXX";
static cz_circuit circ; /* porep-2k-test with 6 partitions, so both devices take some */

static cz_engine *engine(bool release) {
    pthread_mutex_lock(&fmu);
    for (int d = 0; d < NDEV; d++) drop_copy(&fdev[d]), builds[d] = nobases[d] = 0;
    pthread_mutex_unlock(&fmu);
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = 1;
    cfg.release_resident_bases = release;
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0 && e);
    if (e) cz_engine_set_circuit_for_test(e, CZ_KIND_POREP, &circ);
    return e;
}

/* The job's status (CZ_JOB_COMPLETED: every partition verified by the engine); *err its error. */
static int prove(cz_engine *e, const char *id, char *err, size_t n) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)id, s.vanilla_len = strlen(id);
    char out[CZ_JOB_ID_MAX];
    uint32_t q;
    if (cz_engine_submit(e, &s, out, &q)) {
        snprintf(err, n, "submit: %s", cz_error_message());
        return -1;
    }
    cz_result r;
    CHECK(cz_engine_await(e, out, 60000, &r) == 0);
    snprintf(err, n, "%s", r.error);
    const int st = r.status;
    CHECK_MSG(st != CZ_JOB_COMPLETED || r.proof_len == 192ull * circ.partitions, "job %s: %llu proof bytes", id,
              (unsigned long long)r.proof_len);
    cz_result_free(&r);
    return st;
}

/* n jobs "<tag>K", each completed */
static void prove_n(cz_engine *e, const char *tag, int n) {
    char id[64], err[512];
    for (int k = 0; k < n; k++) {
        snprintf(id, sizeof id, "%s%d", tag, k);
        CHECK_MSG(prove(e, id, err, sizeof err) == CZ_JOB_COMPLETED, "job %s: %s", id, err);
    }
}

static bool both_held(void) {
    pthread_mutex_lock(&fmu);
    const bool b = fdev[0].held && fdev[1].held;
    pthread_mutex_unlock(&fmu);
    return b;
}

/* The test circuit's SRS size in GetStatus (0: not HOT), and the release / restore counters; its bases_released flag
 * must say what its params say. */
static uint64_t srs_size(cz_engine *e, uint64_t *released, uint64_t *restored) {
    cz_engine_status st;
    uint64_t n = 0;
    CHECK(cz_engine_status_get(e, &st) == 0);
    for (size_t i = 0; i < st.n_srs; i++)
        if (!strcmp(st.srs[i].circuit_id, circ.id) && st.srs[i].tier == CZ_TIER_HOT) {
            n = st.srs[i].size_bytes;
            pthread_mutex_lock(&fmu);
            const cz_groth16_params *p = fdev[0].p ? fdev[0].p : fdev[1].p;
            pthread_mutex_unlock(&fmu);
            if (p)
                CHECK_MSG(st.srs[i].bases_released == (bool)cz_groth16_params_bases_released(p),
                          "status: bases_released %d, params %d", st.srs[i].bases_released,
                          cz_groth16_params_bases_released(p));
        }
    *released = st.srs_bases_released, *restored = st.srs_bases_restored;
    cz_engine_status_free(&st);
    return n;
}

static uint64_t bases_bytes(const cz_groth16_params *p) {
    return 96 * (uint64_t)(p->h_len + p->l_len + p->a_len + p->b_len) + 192 * (uint64_t)p->b_len;
}

/* Proves jobs "<tag>N" until both devices hold the circuit (at most 8): the partitions spread over the devices. */
static void until_both(cz_engine *e, const char *tag) {
    char id[64], err[512];
    for (int k = 0; k < 8 && !both_held(); k++) {
        snprintf(id, sizeof id, "%s%d", tag, k);
        CHECK_MSG(prove(e, id, err, sizeof err) == CZ_JOB_COMPLETED, "job %s: %s", id, err);
    }
    CHECK_MSG(both_held(), "%s: the partitions never reached both devices", tag);
}

static void released_and_restored(void) {
    cz_engine *e = engine(true);
    if (!e) return;
    uint64_t rel, res;
    char err[512];
    /* the first job: the size with the bases, then both devices build */
    CHECK_MSG(prove(e, "r0", err, sizeof err) == CZ_JOB_COMPLETED, "r0: %s", err);
    until_both(e, "r");
    const uint64_t full = srs_size(e, &rel, &res); /* without the bases: the knob-off engine below has bb more */
    pthread_mutex_lock(&fmu);
    const cz_groth16_params *p = fdev[0].p;
    const uint64_t bb = bases_bytes(&fdev[0].copy);
    pthread_mutex_unlock(&fmu);
    /* released by the start() that completed the set, before its job ended */
    CHECK_MSG(rel == 1 && res == 0, "released %llu, restored %llu", (unsigned long long)rel, (unsigned long long)res);
    CHECK_MSG(p && cz_groth16_params_bases_released(p) && p->h_len && p->l_len && p->a_len && p->b_len &&
                  p->vk.ic_len >= 1 && p->vk.ic,
              "params after the release: h %p / %zu", p ? (void *)p->h : NULL, p ? p->h_len : 0);
    /* the metrics count it (GetStatus's size without the bases is checked against the knob-off engine's below) */
    char *m = cz_engine_metrics(e);
    CHECK(m && strstr(m, "# TYPE cuzk_srs_bases_released_total counter\ncuzk_srs_bases_released_total 1\n") &&
          strstr(m, "cuzk_srs_bases_restored_total 0\n"));
    free(m);
    /* more jobs: no restore, no build */
    const int b0 = builds[0], b1 = builds[1];
    prove_n(e, "after", 3);
    srs_size(e, &rel, &res);
    CHECK_MSG(rel == 1 && res == 0 && builds[0] == b0 && builds[1] == b1 && !nobases[0] && !nobases[1],
              "released %llu restored %llu builds %d %d nobases %d %d", (unsigned long long)rel,
              (unsigned long long)res, builds[0], builds[1], nobases[0], nobases[1]);
    /* device 0 loses its prover: its next partition gets CZ_ENOBASES, the bases come back from the file */
    cz_g1_affine *h1 = NULL;
    size_t hn = 0;
    pthread_mutex_lock(&fmu);
    drop_copy(&fdev[0]);
    hn = fdev[1].copy.h_len;
    h1 = dup_bytes(fdev[1].copy.h, hn * sizeof *h1);
    pthread_mutex_unlock(&fmu);
    for (int k = 0; k < 8 && !both_held(); k++) {
        char id[16];
        snprintf(id, sizeof id, "evicted%d", k);
        CHECK_MSG(prove(e, id, err, sizeof err) == CZ_JOB_COMPLETED, "%s: %s", id, err);
    }
    CHECK(both_held());
    const uint64_t after = srs_size(e, &rel, &res);
    CHECK_MSG(nobases[0] >= 1 && res == 1 && builds[0] == b0 + 1, "nobases %d, restored %llu, builds %d (was %d)",
              nobases[0], (unsigned long long)res, builds[0], b0);
    /* the rebuilt copy is the one the file holds: the same as device 1's, made before the release */
    pthread_mutex_lock(&fmu);
    CHECK(fdev[0].copy.h_len == hn && h1 && !memcmp(fdev[0].copy.h, h1, hn * sizeof *h1) &&
          !memcmp(fdev[0].copy.l, fdev[1].copy.l, fdev[1].copy.l_len * sizeof *fdev[1].copy.l) &&
          !memcmp(fdev[0].copy.b_g2, fdev[1].copy.b_g2, fdev[1].copy.b_len * sizeof *fdev[1].copy.b_g2));
    pthread_mutex_unlock(&fmu);
    free(h1);
    /* both hold again: released again, the size back to the released one */
    CHECK_MSG(rel == 2 && after == full && cz_groth16_params_bases_released(p), "released %llu, size %llu (was %llu)",
              (unsigned long long)rel, (unsigned long long)after, (unsigned long long)full);
    /* the parameter file changed on disk: the restore fails naming it, the job fails, the daemon goes on */
    char path[700] = "";
    snprintf(path, sizeof path, "%s/cuzk-test-%s.params", dir, circ.id);
    struct stat sb;
    CHECK(stat(path, &sb) == 0);
    const struct timespec mtime = sb.st_mtim;
    FILE *f = fopen(path, "r+b");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    int c = f ? (fseek(f, 40, SEEK_SET), fgetc(f)) : EOF;
    if (f && c != EOF) fseek(f, 40, SEEK_SET), fputc(c ^ 0x5a, f);
    if (f) fclose(f);
    pthread_mutex_lock(&fmu);
    drop_copy(&fdev[0]);
    fdev[1].held = false; /* no device holds it: the job's partitions must restore */
    const cz_groth16_params keep1 = fdev[1].copy;
    memset(&fdev[1].copy, 0, sizeof fdev[1].copy);
    pthread_mutex_unlock(&fmu);
    free(keep1.h), free(keep1.l), free(keep1.a), free(keep1.b_g1), free(keep1.b_g2);
    CHECK_MSG(prove(e, "changed", err, sizeof err) == CZ_JOB_FAILED && strstr(err, path) &&
                  strstr(err, "changed on disk") && strstr(err, "prover start for partition"),
              "changed file: %s", err);
    srs_size(e, &rel, &res);
    CHECK_MSG(rel == 2 && res == 1, "released %llu restored %llu", (unsigned long long)rel, (unsigned long long)res);
    /* the file as it was, its time too: the next job's restore succeeds and it completes */
    if (f && c != EOF) {
        f = fopen(path, "r+b");
        if (f) fseek(f, 40, SEEK_SET), fputc(c, f), fclose(f);
        const struct timespec ts[2] = {{0, UTIME_OMIT}, mtime};
        CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
    }
    CHECK_MSG(prove(e, "restored", err, sizeof err) == CZ_JOB_COMPLETED, "after the file came back: %s", err);
    srs_size(e, &rel, &res);
    CHECK_MSG(res == 2, "restored %llu", (unsigned long long)res);
    cz_engine_free(e);
    /* the same jobs with the knob off: the size with the bases is full + their bytes */
    e = engine(false);
    if (!e) return;
    until_both(e, "off");
    prove_n(e, "off-more", 2);
    const uint64_t kept = srs_size(e, &rel, &res);
    CHECK_MSG(rel == 0 && res == 0 && kept == full + bb, "off: released %llu, size %llu, want %llu + %llu",
              (unsigned long long)rel, (unsigned long long)kept, (unsigned long long)full, (unsigned long long)bb);
    cz_engine_free(e);
    /* on, but device 1's prover streams its bases from host memory: never released */
    streamed1 = true;
    e = engine(true);
    if (!e) return;
    until_both(e, "st");
    prove_n(e, "st-more", 2);
    CHECK_MSG(srs_size(e, &rel, &res) == full + bb && rel == 0, "streamed device: released %llu",
              (unsigned long long)rel);
    streamed1 = false;
    cz_engine_free(e);
}

int main(void) {
    const cz_circuit *tc = cz_circuit_find("porep-2k-test");
    CHECK(tc != NULL && mkdtemp(dir) != NULL);
    if (!tc) return cz_test_finish();
    circ = *tc;
    circ.partitions = 6;
    static const cz_gpu_provider prov = {devices, fake_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    cz_log_set_level("error");
    released_and_restored();
    cz_backend_set_gpu_provider(NULL);
    pthread_mutex_lock(&fmu);
    for (int d = 0; d < NDEV; d++) drop_copy(&fdev[d]);
    pthread_mutex_unlock(&fmu);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "cannot remove %s\n", dir);
    return cz_test_finish();
}
