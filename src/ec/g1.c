/* G1: generator, conversions and scalar multiplication (ec_ops_impl.h), the GLV-endomorphism subgroup
 * check, ZCash encodings (ec_codec_impl.h). */
#include "ec/g1.h"

#include <pthread.h>

#include "cz_error.h"
#include "ec/ec_endo.h"

#include "ec/ec_group_g1.h"
static const cz_fp g1_b = {CZ_FP_B_MONT};
#define EC_B (&g1_b)

#include "ec/ec_ops_impl.h"

void cz_g1_generator(cz_g1_affine *r) {
    /* The standard generator (ZCash / IETF pairing-friendly-curves draft, section 4.2.1). */
    ec_fp_from_hex_(&r->x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    ec_fp_from_hex_(&r->y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
}

/* beta: the cube root of unity for which phi(x, y) = (beta x, y) acts on G1 as [-x^2] (the other
 * root gives x^2 - 1). Derived once rather than hard-coded: beta = g^((p-1)/3) for a non-cube g, or its
 * square, whichever matches on the generator. */
static cz_fp g1_beta;
static pthread_once_t g1_beta_once = PTHREAD_ONCE_INIT;

static void g1_neg_x2_mul_(cz_g1_jac *r, const cz_g1_jac *p) {
    cz_g1_jac t;
    cz_g1_mul_by_abs_x_(&t, p);
    cz_g1_mul_by_abs_x_(&t, &t);
    cz_g1_jac_neg(r, &t);
}

static bool g1_phi_matches_(const cz_fp *beta, const cz_g1_affine *p) {
    cz_g1_affine ph = {p->x, p->y};
    cz_fp_mul(&ph.x, &ph.x, beta);
    cz_g1_jac pj, phj, q;
    cz_g1_jac_from_affine(&pj, p);
    cz_g1_jac_from_affine(&phj, &ph);
    g1_neg_x2_mul_(&q, &pj);
    return cz_g1_jac_equal(&phj, &q);
}

static void g1_beta_init_(void) {
    uint64_t e[6];
    ec_p_minus_1_div_(e, 3);
    cz_fp b;
    for (uint64_t g = 2;; g++) {
        cz_fp_set_u64(&b, g);
        cz_fp_pow(&b, &b, e, 6);
        if (!cz_fp_equal(&b, &CZ_FP_ONE_V)) break;
    }
    cz_g1_affine gen;
    cz_g1_generator(&gen);
    if (!g1_phi_matches_(&b, &gen)) cz_fp_sqr(&b, &b);
    g1_beta = b;
}

/* For tests: the derived beta. */
void cz_g1_glv_beta(cz_fp *r) {
    pthread_once(&g1_beta_once, g1_beta_init_);
    *r = g1_beta;
}

/* Bowe, "Faster subgroup checks for BLS12-381" (2019) / Scott (2021): P is in G1 iff phi(P) = [-x^2]P. */
bool cz_g1_affine_is_in_subgroup(const cz_g1_affine *p) {
    if (cz_g1_affine_is_infinity(p)) return true;
    pthread_once(&g1_beta_once, g1_beta_init_);
    return g1_phi_matches_(&g1_beta, p);
}

#define EC_NB 48
#define EC_F_TO_BYTES(o, a) cz_fp_to_bytes_be((o), (a))
#define EC_F_FROM_BYTES(r, i) cz_fp_from_bytes_be((r), (i))
#define EC_NAME "G1"
#include "ec/ec_codec_impl.h"
