/* The daemon's GPU provider (engine/backend.h): built only when the GPU library is (CUDA on), it adapts
 * src/gpu's backend (cz_backend_gpu_init: one cached partition prover per CUDA device) to the engine.
 * The engine numbers its devices 0..n-1 (worker w proves on device w / gpu_workers_per_device, one lock
 * per device shared by that device's workers); gpus.devices maps them to CUDA ordinals here, so
 * `devices = [2, 3]` proves on GPUs 2 and 3 only. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/log.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"
#include "gpu_provider.h"

static cz_backend inner; /* src/gpu's backend: takes CUDA ordinals */
static int ords[CZ_CONFIG_MAX_DEVICES];
/* CUZK_TEST_BREAK_GPU=ORDINAL (tests: scripts/gpu-daemon-check.sh BREAK_GPU): the first start() on that GPU
 * breaks its CUDA context first (cz_gpu_fault_for_test), so the engine's lost-device path runs on real
 * hardware: the device goes out of service and the partition is proved on another GPU. -1: off. */
static int break_ord = -1;
static atomic_int broken;

static void maybe_break(int ord) {
    if (ord != break_ord || atomic_exchange(&broken, 1)) return;
    cz_log(CZ_LOG_WARN, "cuzk::gpu", "CUZK_TEST_BREAK_GPU: breaking GPU %d's CUDA context before its first start", ord);
    if (cz_gpu_fault_for_test(ord)) cz_log(CZ_LOG_ERROR, "cuzk::gpu", "CUZK_TEST_BREAK_GPU: %s", cz_error_message());
}

static int p_start(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                   const cz_fr *aux, void **pending) {
    if (device < 0 || device >= b->ndevices)
        return cz_error(CZ_EINVAL, "gpu backend: no engine device %d (%d in use)", device, b->ndevices);
    inner.nthreads = b->nthreads;
    maybe_break(ords[device]);
    return inner.start(&inner, ords[device], p, r, inputs, aux, pending);
}

static int p_start_compact(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                           const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    if (device < 0 || device >= b->ndevices)
        return cz_error(CZ_EINVAL, "gpu backend: no engine device %d (%d in use)", device, b->ndevices);
    inner.nthreads = b->nthreads;
    maybe_break(ords[device]);
    return inner.start_compact(&inner, ords[device], p, r, inputs, aux, pending);
}

static int p_prepare(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *aux,
                     const cz_wcompact *caux, uint64_t dense_hint) {
    if (device < 0 || device >= b->ndevices)
        return cz_error(CZ_EINVAL, "gpu backend: no engine device %d (%d in use)", device, b->ndevices);
    inner.nthreads = b->nthreads;
    maybe_break(ords[device]);
    return inner.prepare(&inner, ords[device], p, r, aux, caux, dense_hint);
}

static void p_abort_builds(cz_backend *b) {
    (void)b;
    inner.abort_builds(&inner);
}

static bool p_holds_bases(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r) {
    return device >= 0 && device < b->ndevices && inner.holds_bases && inner.holds_bases(&inner, ords[device], p, r);
}

static int p_finish(cz_backend *b, void *pending, const cz_groth16_vk *vk, uint8_t proof[CZ_GROTH16_PROOF_BYTES]) {
    (void)b;
    return inner.finish(&inner, pending, vk, proof);
}

static void p_discard(cz_backend *b, void *pending) {
    (void)b;
    inner.discard(&inner, pending);
}

static bool p_device_lost(cz_backend *b, int device, char *why, size_t why_len) {
    return device >= 0 && device < b->ndevices && inner.device_lost &&
           inner.device_lost(&inner, ords[device], why, why_len);
}

static void p_trim(cz_backend *b, int device) {
    if (device >= 0 && device < b->ndevices && inner.trim) inner.trim(&inner, ords[device]);
}

static int p_host_alloc(cz_backend *b, int device, void **p, uint64_t bytes) {
    *p = NULL;
    if (device < 0 || device >= b->ndevices || !inner.host_alloc)
        return cz_error(CZ_EINVAL, "gpu backend: no engine device %d (%d in use)", device, b->ndevices);
    return inner.host_alloc(&inner, ords[device], p, bytes);
}

static void p_host_free(cz_backend *b, void *p) {
    (void)b;
    if (inner.host_free) inner.host_free(&inner, p);
}

static uint64_t p_host_bytes(cz_backend *b) {
    (void)b;
    return inner.host_bytes ? inner.host_bytes(&inner) : 0;
}

static void p_destroy(cz_backend *b) {
    (void)b;
    cz_backend_gpu_release(); /* the cached provers and their device memory */
}

static int p_describe(cz_backend *b, int device, cz_gpu_info *out) {
    memset(out, 0, sizeof *out);
    if (device < 0 || device >= b->ndevices) return cz_error(CZ_EINVAL, "no engine device %d", device);
    size_t fr = 0, tot = 0;
    int rc = cz_gpu_set_device(ords[device]);
    if (!rc) rc = cz_gpu_describe(out->name, sizeof out->name);
    if (!rc) rc = cz_gpu_mem_info(&fr, &tot);
    out->vram_total = tot, out->vram_free = fr;
    uint64_t dropped;
    cz_backend_gpu_residency(ords[device], &out->resident_circuits, &out->circuit_uploads, &dropped);
    return rc;
}

/* Seeded setups' fixed-base products on the first configured GPU; a failure (device memory taken, a lost
 * GPU) is logged and the setup computes that query on the CPU. */
static int p_fb_mul_many(void *ctx, int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k,
                         size_t n) {
    (void)ctx;
    uint64_t t0 = cz_now_ms();
    int rc = cz_gpu_set_device(ords[0]);
    if (!rc) rc = cz_gpu_fb_mul_many(g2, out, tab, c, windows, k, n);
    if (rc)
        cz_log(CZ_LOG_WARN, "cuzk::srs", "fixed-base products of %zu %s points on GPU %d failed, the CPU computes them: %s",
               n, g2 ? "G2" : "G1", ords[0], cz_error_message());
    else
        cz_log(CZ_LOG_DEBUG, "cuzk::srs", "fixed-base products of %zu %s points on GPU %d: %.2f s", n, g2 ? "G2" : "G1",
               ords[0], (cz_now_ms() - t0) / 1000.0);
    return rc;
}

static const cz_groth16_fb_ops p_fb_ops = {p_fb_mul_many, NULL, 0};

int cz_gpu_provider_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    int n = cz_gpu_device_count();
    if (n <= 0) return cz_error(CZ_EUNSUPPORTED, "no CUDA device found");
    /* a GPU this build has no kernels for (CZ_CUDA_ARCH) is refused here, by name, not at each proof */
    int use = cz_backend_pick_devices(cfg, n, cz_gpu_arch_check, ords);
    if (use < 0) return use;
    const char *bg = getenv("CUZK_TEST_BREAK_GPU");
    break_ord = bg && *bg ? atoi(bg) : -1;
    memset(&inner, 0, sizeof inner);
    cz_backend_gpu_init(&inner, nthreads);
    if (cfg->gpu_max_resident) cz_backend_gpu_set_max_resident((int)cfg->gpu_max_resident);
    cz_gpu_prover_set_lagrange(cfg->h_lagrange, cfg->h_lagrange_cache);
    cz_gpu_prover_set_pairs(cfg->pair_sums);
    memset(b, 0, sizeof *b);
    b->name = "gpu";
    b->ndevices = use;
    b->nthreads = nthreads;
    b->start = p_start;
    if (inner.start_compact) b->start_compact = p_start_compact; /* the witness uploads compact */
    b->compact_expands = inner.compact_expands;
    b->finish = p_finish;
    b->discard = p_discard;
    b->destroy = p_destroy;
    b->ordinals = ords;
    b->describe = p_describe;
    b->device_lost = p_device_lost;
    b->trim = p_trim; /* a start() out of device memory: the scratch freed, the partition queued once more */
    b->host_alloc = p_host_alloc;
    b->host_free = p_host_free;
    b->host_bytes = p_host_bytes; /* the provers' own page-locked memory, in the engine's budget */
    b->holds_bases = p_holds_bases; /* srs.release_resident_bases */
    if (inner.prepare) b->prepare = p_prepare; /* provers built outside the device's turn */
    if (inner.abort_builds) b->abort_builds = p_abort_builds; /* a shutdown stops a build under way */
    b->setup_ops = &p_fb_ops;
    return 0;
}

const cz_gpu_provider cz_daemon_gpu_provider = {cz_gpu_device_count, cz_gpu_provider_init, cz_gpu_no_device_why,
                                                cz_gpu_peek};
