/* G1: shared group/scalar/subgroup/encoding tests (ec_test_impl.h) plus the GLV endomorphism constant. */
#include "ec/ec_endo.h"
#include "ec/g1.h"

#define EC_F cz_fp
#define EC_FF(op) cz_fp_##op
#define EC_P(name) cz_g1_##name
#define EC_AFF cz_g1_affine
#define EC_JAC cz_g1_jac
#define EC_XYZZ cz_g1_xyzz
#define EC_NB 48
#define T_ON_CURVE cz_test_g1_on_curve
#define T_SLOW_SUB cz_test_g1_in_subgroup_slow
#define T_NAME "G1"
#define CZ_ONE_T CZ_FP_ONE_V
static const cz_fp t_b = {CZ_FP_B_MONT};
#define T_B t_b
#include "ec_test_impl.h"

/* beta is a primitive cube root of unity and phi(P) = (beta x, y) equals [lambda]P with
 * lambda = -x^2 mod r a root of l^2 + l + 1 (computed here in Fr, independently of the check's x-chain). */
static void t_beta(cz_rng *rng) {
    cz_fp beta, t;
    cz_g1_glv_beta(&beta);
    CHECK(!cz_fp_equal(&beta, &CZ_FP_ONE_V));
    cz_fp_sqr(&t, &beta);
    cz_fp_mul(&t, &t, &beta);
    CHECK(cz_fp_equal(&t, &CZ_FP_ONE_V));
    cz_fr lam, l2;
    cz_fr_set_u64(&lam, CZ_BLS_X_ABS);
    cz_fr_sqr(&lam, &lam);
    cz_fr_neg(&lam, &lam);
    cz_fr_sqr(&l2, &lam);
    cz_fr_add(&l2, &l2, &lam);
    cz_fr_add(&l2, &l2, &CZ_FR_ONE_V);
    CHECK(cz_fr_is_zero(&l2));
    for (int i = 0; i < 20; i++) {
        cz_g1_affine p, ph;
        cz_g1_random(&p, rng);
        ph = p;
        cz_fp_mul(&ph.x, &ph.x, &beta);
        cz_g1_jac pj, phj, q;
        cz_g1_jac_from_affine(&pj, &p);
        cz_g1_jac_from_affine(&phj, &ph);
        cz_g1_mul(&q, &pj, &lam);
        CHECK(cz_g1_jac_equal(&q, &phj));
    }
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    t_beta(&rng);
    cz_g1_t_all(40, &rng);
    return cz_test_finish();
}
