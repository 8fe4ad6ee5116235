#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "engine/log.h"
#include "groth16/prover.h"

static int cpu_start(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                     const cz_fr *aux, void **pending) {
    (void)device;
    cz_groth16_pending *pd = malloc(sizeof *pd);
    if (!pd) return cz_error(CZ_ENOMEM, "cpu backend: out of memory");
    int rc = cz_groth16_prove_start(pd, p, r, inputs, aux, b->nthreads);
    if (rc) {
        free(pd);
        return rc;
    }
    *pending = pd;
    return 0;
}

/* The CPU prover reads 32-byte aux (a/b/c by sparse products, the MSMs' scalars), so the compact witness
 * is expanded for the call and freed before it returns: the dense form exists only while this partition
 * proves, not while it waits in the queue. */
static int cpu_start_compact(cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r,
                             const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    if (aux->n != r->num_aux)
        return cz_error(CZ_EFORMAT, "cpu backend: compact witness has %llu aux, the circuit %llu",
                        (unsigned long long)aux->n, (unsigned long long)r->num_aux);
    cz_fr *dense;
    int rc = cz_wcompact_expand(aux, &dense);
    if (rc) return rc;
    rc = cpu_start(b, device, p, r, inputs, dense, pending);
    free(dense);
    return rc;
}

static int cpu_finish(cz_backend *b, void *pending, const cz_groth16_vk *vk, uint8_t out[CZ_GROTH16_PROOF_BYTES]) {
    (void)b;
    cz_groth16_proof pf;
    int rc = cz_groth16_prove_finish(&pf, pending, vk, NULL, NULL);
    free(pending);
    if (!rc) cz_groth16_proof_encode(out, &pf);
    return rc;
}

static void cpu_discard(cz_backend *b, void *pending) {
    (void)b;
    free(pending);
}

void cz_backend_cpu_init(cz_backend *b, int nthreads) {
    memset(b, 0, sizeof *b);
    b->name = "cpu";
    b->ndevices = 0;
    b->nthreads = nthreads;
    b->start = cpu_start;
    b->finish = cpu_finish;
    b->discard = cpu_discard;
    b->start_compact = cpu_start_compact;
    b->compact_expands = true;
}

/* ---- selection (backend.h) ---- */

static const cz_gpu_provider *gpu_provider;

void cz_backend_set_gpu_provider(const cz_gpu_provider *p) { gpu_provider = p; }

int cz_backend_pick_devices(const cz_config *cfg, int n, int (*usable)(int ord, char *why, size_t len), int *ords) {
    const bool listed = cfg->ndevices > 0;
    const int want = listed ? cfg->ndevices : (n < CZ_CONFIG_MAX_DEVICES ? n : CZ_CONFIG_MAX_DEVICES);
    for (int i = 0; i < want && listed; i++) {
        const int o = cfg->devices[i];
        if (o < 0 || o >= n)
            return cz_error(CZ_EINVAL, "gpus.devices lists GPU %d but %d CUDA device(s) exist (ordinals 0..%d)", o, n,
                            n - 1);
        for (int k = 0; k < i; k++)
            if (cfg->devices[k] == o) return cz_error(CZ_EINVAL, "gpus.devices lists GPU %d twice", o);
    }
    int use = 0;
    char why[300] = "", first[340] = "";
    for (int i = 0; i < want; i++) {
        const int o = listed ? cfg->devices[i] : i;
        int rc = usable ? usable(o, why, sizeof why) : 0;
        if (!rc) {
            ords[use++] = o;
            continue;
        }
        if (listed) return cz_error(rc, "gpus.devices lists GPU %d, which cannot be used: %s", o, why);
        cz_log(CZ_LOG_WARN, "cuzk::engine", "GPU %d is not used: %s", o, why);
        if (!first[0]) snprintf(first, sizeof first, "GPU %d: %s", o, why);
    }
    if (!use) return cz_error(CZ_EUNSUPPORTED, "no usable CUDA device (%s)", first[0] ? first : "none found");
    return use;
}

/* the provider's peek as cz_backend_pick_devices' usable(): only a build's list that rules a GPU out refuses it */
static int peek_usable(int ord, char *why, size_t n) {
    char desc[200];
    const int rc = gpu_provider->peek(ord, desc, sizeof desc, why, n);
    return rc == CZ_EUNSUPPORTED ? rc : 0;
}

int cz_backend_check(const cz_config *cfg, void (*line)(void *ctx, const char *text), void *ctx) {
    char t[600];
    const bool want_gpu = !strcmp(cfg->backend, "gpu"), listed = cfg->ndevices > 0;
    if (!strcmp(cfg->backend, "cpu")) {
        line(ctx, "gpus: gpus.backend = \"cpu\": proofs on the CPU, no GPU used");
        return 0;
    }
    const int n = gpu_provider && gpu_provider->device_count ? gpu_provider->device_count() : 0;
    char cuda[240] = "";
    if (gpu_provider && n <= 0 && gpu_provider->no_device_why) gpu_provider->no_device_why(cuda, sizeof cuda);
    for (int i = 0; i < n && gpu_provider->peek; i++) {
        char desc[200] = "", why[300] = "";
        const int rc = gpu_provider->peek(i, desc, sizeof desc, why, sizeof why);
        snprintf(t, sizeof t, "  GPU %d: %s%s%s", i, rc && rc != CZ_EUNSUPPORTED ? cz_error_message() : desc,
                 rc == CZ_EUNSUPPORTED ? ": not usable, " : "", rc == CZ_EUNSUPPORTED ? why : "");
        line(ctx, t);
    }
    const char *none = !gpu_provider ? "this build has no CUDA" : n <= 0 ? "no CUDA device found" : NULL;
    if (none) {
        snprintf(t, sizeof t, "gpus: %s%s%s%s: %s", none, cuda[0] ? " (" : "", cuda, cuda[0] ? ")" : "",
                 want_gpu ? "gpus.backend = \"gpu\" would not start"
                          : listed ? "the daemon would prove on the CPU, but gpus.devices lists GPUs"
                                   : "proofs on the CPU");
        line(ctx, t);
        return want_gpu || listed;
    }
    int ords[CZ_CONFIG_MAX_DEVICES];
    const int use = cz_backend_pick_devices(cfg, n, gpu_provider->peek ? peek_usable : NULL, ords);
    if (use < 0) {
        snprintf(t, sizeof t, "gpus: %s: %s", cz_error_message(),
                 want_gpu ? "the daemon would not start" : "the daemon would prove on the CPU");
        line(ctx, t);
        return 1;
    }
    int k = snprintf(t, sizeof t, "gpus: proofs on %d of %d GPU(s) (", use, n);
    for (int i = 0; i < use && k < (int)sizeof t - 16; i++) k += snprintf(t + k, sizeof t - k, i ? ", %d" : "%d", ords[i]);
    snprintf(t + k, sizeof t - k, "), %u worker(s) each", cfg->gpu_workers_per_device);
    line(ctx, t);
    return 0;
}

int cz_backend_select(cz_backend *b, const cz_config *cfg, int cpu_threads) {
    memset(b, 0, sizeof *b);
    bool want_gpu = !strcmp(cfg->backend, "gpu");
    if (strcmp(cfg->backend, "cpu")) {
        int n = gpu_provider && gpu_provider->device_count ? gpu_provider->device_count() : 0;
        char none[300] = "no CUDA device found", cuda[240] = "";
        if (gpu_provider && n <= 0 && gpu_provider->no_device_why) { /* the driver's reason, when it gave one */
            gpu_provider->no_device_why(cuda, sizeof cuda);
            if (cuda[0]) snprintf(none, sizeof none, "no CUDA device found (%s)", cuda);
        }
        const char *why = !gpu_provider ? "this build has no CUDA"
                          : n <= 0      ? none
                          : !gpu_provider->init ? "the GPU prover is not in this build yet"
                                                : NULL;
        if (!why) {
            int rc = gpu_provider->init(b, cfg, cpu_threads);
            if (!rc) return 0;
            if (want_gpu) return rc;
            cz_log(CZ_LOG_WARN, "cuzk::engine", "GPU backend init failed (%s): using the CPU backend", cz_error_message());
        } else if (want_gpu) {
            return cz_error(CZ_EUNSUPPORTED, "gpus.backend = \"gpu\" but %s", why);
        } else if (gpu_provider && n > 0) {
            cz_log(CZ_LOG_INFO, "cuzk::engine", "%d CUDA device(s), but %s: using the CPU backend", n, why);
        }
    }
    cz_backend_cpu_init(b, cpu_threads);
    return 0;
}
