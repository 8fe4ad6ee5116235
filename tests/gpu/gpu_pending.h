/* GPU prover tests: comparing pending proofs (every MSM result) and the proof bytes they finish to. */
#ifndef CZ_TESTS_GPU_PENDING_H
#define CZ_TESTS_GPU_PENDING_H

#include <stdint.h>
#include <string.h>

#include "groth16/prover.h"
#include "testutil.h"

static inline int jac_all_equal(const cz_groth16_pending *x, const cz_groth16_pending *y) {
    return cz_g1_jac_equal(&x->h_msm, &y->h_msm) && cz_g1_jac_equal(&x->l_msm, &y->l_msm) &&
           cz_g1_jac_equal(&x->a_ans, &y->a_ans) && cz_g1_jac_equal(&x->b1_ans, &y->b1_ans) &&
           cz_g2_jac_equal(&x->b2_ans, &y->b2_ans);
}

/* the 192 proof bytes pd finishes to with randomness r, s (zeros if finish fails, which CHECK reports) */
static inline void proof_bytes(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_pending *pd, const cz_groth16_params *p,
                               const cz_fr *r, const cz_fr *s) {
    cz_groth16_proof pf;
    memset(out, 0, CZ_GROTH16_PROOF_BYTES);
    CHECK(cz_groth16_prove_finish(&pf, pd, &p->vk, r, s) == 0);
    cz_groth16_proof_encode(out, &pf);
}

#endif
