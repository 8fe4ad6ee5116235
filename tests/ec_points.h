/* Test helpers shared by the EC unit tests and cz_tool_ec_vectors: points on the curve that are NOT
 * multiplied by the cofactor (so almost surely outside the prime-order subgroup), the slow [r]P = O
 * subgroup check, and a random-scalar helper. */
#ifndef CZ_TEST_EC_POINTS_H
#define CZ_TEST_EC_POINTS_H

#include "ec/g1.h"
#include "ec/g2.h"

static const uint64_t cz_test_r_limbs[4] = CZ_FR_MODULUS;

/* Random x until x^3 + b is a square; y is a random one of the two roots. */
static inline void cz_test_g1_on_curve(cz_g1_affine *r, cz_rng *rng) {
    static const cz_fp b = {CZ_FP_B_MONT};
    for (;;) {
        cz_fp x, t;
        cz_fp_random(&x, rng);
        cz_fp_sqr(&t, &x);
        cz_fp_mul(&t, &t, &x);
        cz_fp_add(&t, &t, &b);
        if (cz_fp_sqrt(&r->y, &t) == 0) {
            r->x = x;
            if (cz_rng_next(rng) & 1) cz_fp_neg(&r->y, &r->y);
            return;
        }
    }
}

static inline void cz_test_g2_on_curve(cz_g2_affine *r, cz_rng *rng) {
    static const cz_fp2 b = {{CZ_FP_B_MONT}, {CZ_FP_B_MONT}};
    for (;;) {
        cz_fp2 x, t;
        cz_fp2_random(&x, rng);
        cz_fp2_sqr(&t, &x);
        cz_fp2_mul(&t, &t, &x);
        cz_fp2_add(&t, &t, &b);
        if (cz_fp2_sqrt(&r->y, &t) == 0) {
            r->x = x;
            if (cz_rng_next(rng) & 1) cz_fp2_neg(&r->y, &r->y);
            return;
        }
    }
}

static inline bool cz_test_g1_in_subgroup_slow(const cz_g1_affine *p) {
    cz_g1_jac j, t;
    cz_g1_jac_from_affine(&j, p);
    cz_g1_mul_raw(&t, &j, cz_test_r_limbs, 255);
    return cz_g1_jac_is_infinity(&t);
}

static inline bool cz_test_g2_in_subgroup_slow(const cz_g2_affine *p) {
    cz_g2_jac j, t;
    cz_g2_jac_from_affine(&j, p);
    cz_g2_mul_raw(&t, &j, cz_test_r_limbs, 255);
    return cz_g2_jac_is_infinity(&t);
}

#endif
