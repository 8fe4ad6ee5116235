/* G2: generator, conversions and scalar multiplication (ec_ops_impl.h), the psi subgroup check, ZCash
 * encodings (ec_codec_impl.h; an Fp2 element is written c1 then c0). */
#include "ec/g2.h"

#include <pthread.h>

#include "cz_error.h"
#include "ec/ec_endo.h"

#include "ec/ec_group_g2.h"
static const cz_fp2 g2_b = {{CZ_FP_B_MONT}, {CZ_FP_B_MONT}}; /* 4(u + 1) */
#define EC_B (&g2_b)

#include "ec/ec_ops_impl.h"

void cz_g2_generator(cz_g2_affine *r) {
    /* The standard generator (ZCash / IETF pairing-friendly-curves draft, section 4.2.1). */
    ec_fp_from_hex_(&r->x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    ec_fp_from_hex_(&r->x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    ec_fp_from_hex_(&r->y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    ec_fp_from_hex_(&r->y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
}

/* psi coefficients for the M-type sextic twist y^2 = x^3 + 4(1+u): cx = 1/(1+u)^((p-1)/3),
 * cy = 1/(1+u)^((p-1)/2). Derived once from their definition. */
static cz_fp2 g2_cx, g2_cy;
static pthread_once_t g2_psi_once = PTHREAD_ONCE_INIT;

static void g2_psi_init_(void) {
    cz_fp2 xi = {CZ_FP_ONE_V, CZ_FP_ONE_V};
    uint64_t e[6];
    ec_p_minus_1_div_(e, 3);
    cz_fp2_pow(&g2_cx, &xi, e, 6);
    cz_fp2_inv(&g2_cx, &g2_cx);
    ec_p_minus_1_div_(e, 2);
    cz_fp2_pow(&g2_cy, &xi, e, 6);
    cz_fp2_inv(&g2_cy, &g2_cy);
}

void cz_g2_psi_coeffs(cz_fp2 *cx, cz_fp2 *cy) {
    pthread_once(&g2_psi_once, g2_psi_init_);
    *cx = g2_cx;
    *cy = g2_cy;
}

void cz_g2_psi(cz_g2_affine *r, const cz_g2_affine *p) {
    pthread_once(&g2_psi_once, g2_psi_init_);
    if (cz_g2_affine_is_infinity(p)) {
        *r = *p;
        return;
    }
    cz_fp2 t;
    cz_fp2_conj(&t, &p->x);
    cz_fp2_mul(&r->x, &t, &g2_cx);
    cz_fp2_conj(&t, &p->y);
    cz_fp2_mul(&r->y, &t, &g2_cy);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves" (2021):
 * P is in G2 iff psi(P) = [x]P; x < 0, so [x]P = -[|x|]P. */
bool cz_g2_affine_is_in_subgroup(const cz_g2_affine *p) {
    if (cz_g2_affine_is_infinity(p)) return true;
    cz_g2_affine ps;
    cz_g2_psi(&ps, p);
    cz_g2_jac pj, psj, q;
    cz_g2_jac_from_affine(&pj, p);
    cz_g2_jac_from_affine(&psj, &ps);
    cz_g2_mul_by_abs_x_(&q, &pj);
    cz_g2_jac_neg(&q, &q);
    return cz_g2_jac_equal(&psj, &q);
}

static void g2_fp2_to_bytes_(uint8_t out[96], const cz_fp2 *a) {
    cz_fp_to_bytes_be(out, &a->c1);
    cz_fp_to_bytes_be(out + 48, &a->c0);
}
static int g2_fp2_from_bytes_(cz_fp2 *r, const uint8_t in[96]) {
    if (cz_fp_from_bytes_be(&r->c1, in)) return CZ_ERANGE;
    return cz_fp_from_bytes_be(&r->c0, in + 48);
}

#define EC_NB 96
#define EC_F_TO_BYTES(o, a) g2_fp2_to_bytes_((o), (a))
#define EC_F_FROM_BYTES(r, i) g2_fp2_from_bytes_((r), (i))
#define EC_NAME "G2"
#include "ec/ec_codec_impl.h"
