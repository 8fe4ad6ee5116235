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

/* The fixed-base table the products read: CZ_GROTH16_FB_WINDOWS x 2^(CZ_GROTH16_FB_C - 1) affine points,
 * tab[w 2^(c-1) + j] = (j + 1) 2^(c w) G. */
#define CZ_GROTH16_FB_C 12u
#define CZ_GROTH16_FB_WINDOWS 22u

/* Someone else's fixed-base products (a GPU's: src/gpu's cz_gpu_fb_mul_many): mul_many sets out[i] = k[i] G
 * for i < n, G the G1 (g2 = 0, out cz_g1_affine[n]) or G2 (g2 = 1, cz_g2_affine[n]) generator, affine, with
 * infinity (0, 0) for k = 0, from tab (c, windows as above). A non-zero return makes the setup compute that
 * query on the CPU instead, and fail_count counts it. */
typedef struct {
    int (*mul_many)(void *ctx, int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k,
                    size_t n);
    void *ctx;
    unsigned fail_count;
} cz_groth16_fb_ops;

/* cz_groth16_setup with the products of H, L, A, B_G1 and B_G2 through ops when it is not NULL. */
int cz_groth16_setup_ex(cz_groth16_params *out, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads,
                        cz_groth16_fb_ops *ops);

#endif
