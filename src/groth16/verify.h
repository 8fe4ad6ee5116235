/* Groth16 verification as bellperson's verifier.rs: e(A,B) = e(alpha,beta) e(IC(x),gamma) e(C,delta),
 * checked as one multi-pairing product equal to 1. Public inputs exclude ONE (ic_len = inputs + 1).
 * Batch verification folds k proofs with random 128-bit scalars from the OS CSPRNG. */
#ifndef CZ_GROTH16_VERIFY_H
#define CZ_GROTH16_VERIFY_H

#include <stddef.h>

#include "ec/pairing.h"
#include "groth16/params.h"
#include "groth16/proof.h"

/* A verifying key with its G2 points prepared once (about 60 KB). */
typedef struct {
    cz_g1_affine alpha_g1;
    cz_g2_prepared beta_g2, gamma_g2, delta_g2;
    size_t ic_len;
    cz_g1_affine *ic; /* owned copy */
} cz_groth16_pvk;

int cz_groth16_pvk_init(cz_groth16_pvk *pvk, const cz_groth16_vk *vk);
void cz_groth16_pvk_free(cz_groth16_pvk *pvk);

/* 0 when the proof verifies, CZ_EVERIFY when it does not, CZ_EINVAL when n_inputs + 1 != ic_len. */
int cz_groth16_verify(const cz_groth16_pvk *pvk, const cz_groth16_proof *proof, const cz_fr *inputs, size_t n_inputs);
/* Decodes the 192 bytes (with point validation) and verifies. */
int cz_groth16_verify_bytes(const cz_groth16_pvk *pvk, const uint8_t proof[CZ_GROTH16_PROOF_BYTES],
                            const cz_fr *inputs, size_t n_inputs);
/* All k proofs at once (k + 3 Miller loops, one final exponentiation); inputs[j] has n_inputs values.
 * 0 when all verify; CZ_EVERIFY when at least one does not (except with probability about 2^-128). */
int cz_groth16_verify_batch(const cz_groth16_pvk *pvk, const cz_groth16_proof *proofs, const cz_fr *const *inputs,
                            size_t n_inputs, size_t k);

#endif
