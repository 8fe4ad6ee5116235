#include <stdbool.h>
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

int cz_backend_select(cz_backend *b, const cz_config *cfg, int cpu_threads) {
    memset(b, 0, sizeof *b);
    bool want_gpu = !strcmp(cfg->backend, "gpu");
    if (strcmp(cfg->backend, "cpu")) {
        int n = gpu_provider && gpu_provider->device_count ? gpu_provider->device_count() : 0;
        const char *why = !gpu_provider ? "this build has no CUDA"
                          : n <= 0      ? "no CUDA device found"
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
