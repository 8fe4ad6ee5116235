/* Shared by the 2 KiB PoRep end-to-end test (tests/slow) and bench: record the circuit's shape once
 * (record mode, no witness), setup from seeded toxic waste, then per C1: the parallel witness, the CPU
 * prover, and verification with public inputs derived from the C1's public values alone
 * (cz_porep_inputs_from_public: challenges from the seed, parents from the graph), never from the
 * witness. Times go to a cz_porep_g16_times. */
#ifndef CZ_POREP_G16_RUN_H
#define CZ_POREP_G16_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/porep_inputs.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/cs.h"

typedef struct {
    double record, setup, witness, prove, verify;
} cz_porep_g16_times;

static double pg_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The circuit's shape (all C1s of one sector size share it) and params from toxic seed. */
static int pg_setup(cz_r1cs *r, cz_groth16_params *params, cz_groth16_pvk *pvk, const cz_porep_params *p,
                    uint64_t toxic_seed, cz_porep_g16_times *t) {
    double t0 = pg_now();
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD);
    if (rc) return rc;
    if ((rc = cz_porep_synthesize(cs, p, NULL)) || (rc = cz_cs_finalize(cs)) || (rc = cz_cs_take_r1cs(cs, r))) {
        cz_cs_free(cs);
        return rc;
    }
    cz_cs_free(cs);
    t->record = pg_now() - t0;
    cz_groth16_toxic tw;
    cz_groth16_toxic_from_seed(&tw, toxic_seed);
    t0 = pg_now();
    if ((rc = cz_groth16_setup(params, r, &tw, 0))) return rc;
    t->setup = pg_now() - t0;
    return cz_groth16_pvk_init(pvk, &params->vk);
}

/* The verifier's inputs for partition k of c1, from its public values alone. */
static int pg_inputs(cz_fr *pub, const cz_c1 *c1, const uint8_t seed[32], unsigned k) {
    uint8_t porep_id[32];
    cz_porep_id(porep_id, c1->proof_id);
    return cz_porep_inputs_from_public(pub, &c1->params, porep_id, c1->proof_id < 5,
                                       cz_porep_kind_of(c1->proof_id), c1->replica_id, c1->comm_d,
                                       c1->comm_r, seed, k);
}

/* Witness + prove partition k of c1 into *proof. */
static int pg_prove(cz_groth16_proof *proof, const cz_r1cs *r, const cz_groth16_params *params, const cz_c1 *c1,
                    unsigned k, cz_porep_g16_times *t) {
    cz_porep_witness w;
    int rc = cz_c1_witness(c1, k, &w);
    if (rc) return rc;
    cz_fr *in = malloc(r->num_inputs * sizeof(cz_fr)), *aux = malloc(r->num_aux * sizeof(cz_fr));
    if (!in || !aux) {
        free(in), free(aux);
        return cz_error(CZ_ENOMEM, "porep g16: out of memory");
    }
    double t0 = pg_now();
    rc = cz_porep_witness_parallel(&c1->params, &w, in, r->num_inputs, aux, r->num_aux, 0);
    t->witness = pg_now() - t0;
    if (!rc) {
        t0 = pg_now();
        cz_groth16_pending pend;
        rc = cz_groth16_prove_start(&pend, params, r, in, aux, 0);
        if (!rc) rc = cz_groth16_prove_finish(proof, &pend, &params->vk, NULL, NULL);
        t->prove = pg_now() - t0;
    }
    free(in), free(aux);
    return rc;
}

static int pg_verify(const cz_groth16_pvk *pvk, const cz_groth16_proof *proof, const cz_c1 *c1, const uint8_t seed[32],
                     unsigned k, cz_porep_g16_times *t) {
    cz_fr pub[3 + 18 * CZ_POREP_MAX_CHALLENGES];
    int rc = pg_inputs(pub, c1, seed, k);
    if (rc) return rc;
    double t0 = pg_now();
    rc = cz_groth16_verify(pvk, proof, pub, 3 + 18 * c1->params.challenges);
    if (t) t->verify = pg_now() - t0;
    return rc;
}

#endif
