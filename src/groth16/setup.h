/* Groth16 setup from known toxic waste, for tests and synthetic benchmarks only (anyone who knows the
 * seed can forge proofs). Follows bellperson's generator.rs: the same QAP on the same domain, the same
 * queries and the same points dropped from A/B, so the result writes as a bellperson `.params`. */
#ifndef CZ_GROTH16_SETUP_H
#define CZ_GROTH16_SETUP_H

#include <stdint.h>

#include "groth16/params.h"
#include "r1cs/r1cs.h"

typedef struct {
    cz_fr tau, alpha, beta, gamma, delta;
} cz_groth16_toxic;

/* Derives non-zero tau, alpha, beta, gamma, delta from a seed (xoshiro; deterministic). */
void cz_groth16_toxic_from_seed(cz_groth16_toxic *t, uint64_t seed);

/* Builds params for the recorded system r (rows = constraints + input rows, densities set).
 * Fails with CZ_EINVAL for an unconstrained aux variable (bellperson's UnconstrainedVariable), or when
 * tau makes a density-set A/B polynomial vanish (then the layout could not match the prover's). */
int cz_groth16_setup(cz_groth16_params *out, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads);

#endif
