/* GPU backend tests (test_gpu_backend.c, test_gpu_backend_build.c): a fresh random circuit with its own setup and
 * verifying key, and one proof of it through an engine backend, verified. */
#ifndef CZ_TESTS_GPU_KEYED_H
#define CZ_TESTS_GPU_KEYED_H

#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "gpu_circuit.h"

typedef struct {
    circuit c;
    cz_groth16_params p;
    cz_groth16_pvk pvk;
} keyed;

/* pub inputs, nfree free aux, nc constraints (gpu_circuit.h build, 45 % zeros and 45 % ones), a setup from rng */
static int keyed_make(cz_rng *rng, keyed *k, size_t pub, size_t nfree, size_t nc) {
    memset(k, 0, sizeof *k);
    if (build(rng, &k->c, pub, nfree, nc, cz_rng_next(rng), 45, 45)) return -1;
    cz_groth16_toxic tox;
    cz_groth16_toxic_from_seed(&tox, cz_rng_next(rng));
    int rc = cz_groth16_setup(&k->p, &k->c.r, &tox, 0);
    if (!rc) rc = cz_groth16_pvk_init(&k->pvk, &k->p.vk);
    return rc;
}

static void keyed_free(keyed *k) {
    cz_groth16_pvk_free(&k->pvk);
    cz_groth16_params_free(&k->p);
    circuit_free(&k->c);
}

/* One proof through be on device 0; 0 when it verifies (and, up to 64 public inputs, a changed one does not). */
static int keyed_prove(cz_backend *be, keyed *k) {
    void *pend = NULL;
    uint8_t proof[CZ_GROTH16_PROOF_BYTES];
    int rc = be->start(be, 0, &k->p, &k->c.r, k->c.inputs, k->c.aux, &pend);
    if (rc) return rc;
    if ((rc = be->finish(be, pend, &k->p.vk, proof))) return rc;
    if ((rc = cz_groth16_verify_bytes(&k->pvk, proof, k->c.inputs + 1, k->c.ni - 1))) return rc;
    if (k->c.ni > 1) {
        cz_fr bad[64];
        size_t n = k->c.ni - 1 < 64 ? k->c.ni - 1 : 64;
        memcpy(bad, k->c.inputs + 1, n * sizeof *bad);
        cz_fr_add(&bad[0], &bad[0], &CZ_FR_ONE_V);
        if (n == k->c.ni - 1 && cz_groth16_verify_bytes(&k->pvk, proof, bad, n) != CZ_EVERIFY) return CZ_EINVAL;
    }
    return 0;
}

#endif
