/* Prover backends: start (the heavy part: a/b/c, H, MSMs) returns a pending handle, finish (blinding
 * and assembly) turns it into the 192-byte proof. The CPU backend wraps src/groth16/prover.h; a GPU
 * backend plugs in with the same two calls and one device lock per GPU. */
#ifndef CZ_ENGINE_BACKEND_H
#define CZ_ENGINE_BACKEND_H

#include <stdint.h>

#include "ff/fr.h"
#include "groth16/params.h"
#include "groth16/proof.h"
#include "r1cs/r1cs.h"

typedef struct cz_backend {
    const char *name;
    int ndevices;           /* 0 for the CPU backend */
    int nthreads;           /* threads each start() may use */
    int (*start)(struct cz_backend *b, int device, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                 const cz_fr *aux, void **pending);
    int (*finish)(struct cz_backend *b, void *pending, const cz_groth16_vk *vk, uint8_t proof[CZ_GROTH16_PROOF_BYTES]);
    void (*discard)(struct cz_backend *b, void *pending);
} cz_backend;

/* nthreads 0 = OpenMP's default. */
void cz_backend_cpu_init(cz_backend *b, int nthreads);

#endif
