#include <stdlib.h>

#include "cz_error.h"
#include "engine/backend.h"
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
    b->name = "cpu";
    b->ndevices = 0;
    b->nthreads = nthreads;
    b->start = cpu_start;
    b->finish = cpu_finish;
    b->discard = cpu_discard;
}
