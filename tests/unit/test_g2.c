/* G2: shared group/scalar/subgroup/encoding tests (ec_test_impl.h) plus the psi endomorphism. */
#include "ec/ec_endo.h"
#include "ec/g2.h"

#define EC_F cz_fp2
#define EC_FF(op) cz_fp2_##op
#define EC_P(name) cz_g2_##name
#define EC_AFF cz_g2_affine
#define EC_JAC cz_g2_jac
#define EC_XYZZ cz_g2_xyzz
#define EC_NB 96
#define T_ON_CURVE cz_test_g2_on_curve
#define T_SLOW_SUB cz_test_g2_in_subgroup_slow
#define T_NAME "G2"
#define CZ_ONE_T CZ_FP2_ONE_V
static const cz_fp2 t_b = {{CZ_FP_B_MONT}, {CZ_FP_B_MONT}};
#define T_B t_b
#include "ec_test_impl.h"

/* psi is the p-power Frobenius carried to the twist, so on EVERY point of E'(Fp2) (not only G2)
 * psi^2 - [t] psi + [p] = 0 with trace t = x + 1; and on G2 psi acts as [x] (x mod r from Fr here). */
static void t_psi(cz_rng *rng) {
    static const uint64_t p_limbs[6] = CZ_FP_MODULUS;
    cz_fr xr, tr;
    cz_fr_set_u64(&xr, CZ_BLS_X_ABS);
    cz_fr_neg(&xr, &xr);
    cz_fr_add(&tr, &xr, &CZ_FR_ONE_V);
    for (int i = 0; i < 20; i++) {
        cz_g2_affine a, s1, s2;
        if (i & 1) cz_test_g2_on_curve(&a, rng);
        else cz_g2_random(&a, rng);
        cz_g2_psi(&s1, &a);
        cz_g2_psi(&s2, &s1);
        CHECK(cz_g2_affine_is_on_curve(&s1) && cz_g2_affine_is_on_curve(&s2));
        cz_g2_jac aj, s1j, acc, t;
        cz_g2_jac_from_affine(&aj, &a);
        cz_g2_jac_from_affine(&s1j, &s1);
        /* [t] psi(P) with t = -(|x| - 1), as an integer (the point need not have order r) */
        uint64_t tabs = CZ_BLS_X_ABS - 1;
        cz_g2_mul_raw(&t, &s1j, &tabs, 64);
        cz_g2_jac_from_affine(&acc, &s2);
        cz_g2_jac_add(&acc, &acc, &t); /* psi^2 P + (|x|-1) psi P = psi^2 P - t psi P */
        cz_g2_mul_raw(&t, &aj, p_limbs, 381);
        cz_g2_jac_add(&acc, &acc, &t);
        CHECK(cz_g2_jac_is_infinity(&acc));
        if (!(i & 1)) {
            cz_g2_mul(&t, &aj, &xr);
            CHECK(cz_g2_jac_equal(&t, &s1j));
        }
    }
    (void)tr;
}

/* Wire layout: x.c1 then x.c0 (then y.c1, y.c0), each 48 B big-endian; flags on the first byte only. */
static void t_layout(cz_rng *rng) {
    cz_g2_affine a;
    cz_g2_random(&a, rng);
    uint8_t c[96], u[192], f[48];
    cz_g2_to_compressed(c, &a);
    cz_g2_to_uncompressed(u, &a);
    cz_fp_to_bytes_be(f, &a.x.c1);
    CHECK((c[0] & 0x1f) == f[0] && !memcmp(c + 1, f + 1, 47) && !memcmp(u, f, 48));
    cz_fp_to_bytes_be(f, &a.x.c0);
    CHECK(!memcmp(c + 48, f, 48) && !memcmp(u + 48, f, 48));
    cz_fp_to_bytes_be(f, &a.y.c1);
    CHECK(!memcmp(u + 96, f, 48));
    cz_fp_to_bytes_be(f, &a.y.c0);
    CHECK(!memcmp(u + 144, f, 48));
    /* the sort flag compares y.c1 first, y.c0 only when y.c1 = 0 */
    CHECK(!!(c[0] & 0x20) == cz_fp_is_lexicographically_largest(&a.y.c1));
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    t_psi(&rng);
    for (int i = 0; i < 10; i++) t_layout(&rng);
    cz_g2_t_all(20, &rng);
    return cz_test_finish();
}
