/* The CPU Groth16 prover, following bellperson's native prover step for step. Split in two like every
 * backend (architecture §3): start() does the heavy work (a/b/c, H by NTTs, the five MSMs) and
 * finish() adds the randomness r, s and assembles the proof on the CPU. */
#ifndef CZ_GROTH16_PROVER_H
#define CZ_GROTH16_PROVER_H

#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/params.h"
#include "groth16/proof.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"

/* Everything the proof needs apart from r and s. */
typedef struct {
    cz_g1_jac a_ans;  /* sum over inputs and dense aux of w_i A_i */
    cz_g1_jac b1_ans; /* sum of w_i B_G1_i over the B density */
    cz_g2_jac b2_ans; /* the same over B_G2 */
    cz_g1_jac h_msm;  /* sum h_i H_i, i = 0..n-2 */
    cz_g1_jac l_msm;  /* sum aux_j L_j */
} cz_groth16_pending;

/* inputs: r->num_inputs values, inputs[0] = ONE; aux: r->num_aux values (Montgomery Fr).
 * Fails with CZ_EFORMAT when params do not match the circuit's sizes and densities. The params' points
 * must lie in the prime-order subgroup (a setup's always do; CZ_PARAMS_CHECK_SUBGROUP enforces it on
 * read): the MSMs use the endomorphisms (cz_g1_msm_subgroup). */
int cz_groth16_prove_start(cz_groth16_pending *out, const cz_groth16_params *params, const cz_r1cs *r,
                           const cz_fr *inputs, const cz_fr *aux, int nthreads);
/* r, s: the blinding factors; both NULL draws them from the OS CSPRNG (the only safe choice outside tests). */
int cz_groth16_prove_finish(cz_groth16_proof *proof, const cz_groth16_pending *pending, const cz_groth16_vk *vk,
                            const cz_fr *r, const cz_fr *s);

/* Computes the n-1 coefficients of h = (a·b − c)/Z from a, b, c (each n entries, zero-padded past the
 * rows; overwritten) the way bellperson does: iNTT, coset NTT (g = 7), pointwise, /Z, coset iNTT. */
void cz_groth16_compute_h(const cz_domain *d, cz_fr *a, cz_fr *b, cz_fr *c);

#endif
