/* H on the device: h = (a*b - c) / Z, the polynomial cz_groth16_compute_h (src/groth16/prover.c) computes
 * with 7 NTTs. Here with 6 (the default): the coset inverse transform is linear and C's coset inverse
 * transform is C's own coefficients (deg C < n), so
 *   h = coset_inverse(A B / Z) - C_coefficients / Z,
 * and c needs one inverse transform instead of an inverse and a coset forward. The field results are
 * exact, so h is bit-identical to the CPU's. CZ_GPU_H_SEVEN=1 keeps the 7-NTT composition (A/B).
 * Nothing leaves the device. */
#include <stdlib.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"
#include "poly/ntt.h"

int cz_gpu_h_six_(void) {
    const char *v = getenv("CZ_GPU_H_SEVEN");
    return !(v && v[0] == '1');
}

/* Z(g w^i) = g^n - 1 on the coset, its inverse and the domain's 1/n. */
static int h_consts(unsigned log_n, cz_fr *zinv, cz_fr *n_inv) {
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    *n_inv = d.n_inv;
    return cz_ntt_z_coset_inv(&d, zinv);
}

/* The 7-NTT composition: a, b, c each to the coset (order-agnostic transforms, no bit-reversal pass;
 * the pointwise step permutes instead), (a*b - c) / Z, the coset inverse. */
static int h_seven(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, const cz_fr *zinv,
                   void *stream) {
    cz_fr *v[3] = {d_a, d_b, d_c};
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_ntt_h_step_(plan, v[k], CZ_GPU_H_COSET_EVAL, stream);
    if (!rc) rc = cz_gpu_h_pointwise_rev_(d_a, d_b, d_c, log_n, zinv, stream);
    if (!rc) rc = cz_gpu_ntt_h_step_(plan, d_a, CZ_GPU_H_INV_REV_TO_NAT, stream);
    return rc;
}

/* The 6-NTT composition; with make_c, c is written into d_b (bit-reversed) once A B / Z is in d_a. */
static int h_six(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c_rev,
                 int (*make_c)(void *ctx, cz_fr *d_c_rev, void *stream), void *ctx, void *stream) {
    cz_fr zinv, n_inv, k;
    int rc = h_consts(log_n, &zinv, &n_inv);
    if (rc) return rc;
    cz_fr_mul(&k, &zinv, &n_inv);
    for (int i = 0; i < 2 && !rc; i++) rc = cz_gpu_ntt_h_step_(plan, i ? d_b : d_a, CZ_GPU_H_COSET_EVAL, stream);
    if (!rc) rc = cz_gpu_h_pointwise_rev_(d_a, d_b, NULL, log_n, &zinv, stream); /* A B / Z, bit-reversed */
    if (!rc && make_c) rc = make_c(ctx, d_c_rev = d_b, stream);
    if (!rc) rc = cz_gpu_ntt_h_c_(plan, d_c_rev, &k, stream); /* C's coefficients / Z, natural */
    if (!rc) rc = cz_gpu_ntt_h_final_(plan, d_a, d_c_rev, stream);
    return rc;
}

int cz_gpu_groth16_h_crev(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c_rev, void *stream) {
    if (!cz_gpu_h_six_()) {
        cz_fr zinv, n_inv;
        int rc = h_consts(log_n, &zinv, &n_inv);
        if (!rc) rc = cz_gpu_bitrev_(d_c_rev, log_n, stream);
        return rc ? rc : h_seven(plan, log_n, d_a, d_b, d_c_rev, &zinv, stream);
    }
    return h_six(plan, log_n, d_a, d_b, d_c_rev, NULL, NULL, stream);
}

int cz_gpu_groth16_h_two_(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b,
                          int (*make_c)(void *ctx, cz_fr *d_c_rev, void *stream), void *ctx, void *stream) {
    if (!cz_gpu_h_six_()) return cz_error(CZ_EINVAL, "H in two vectors needs the 6-NTT pipeline (CZ_GPU_H_SEVEN=1)");
    return h_six(plan, log_n, d_a, d_b, NULL, make_c, ctx, stream);
}

int cz_gpu_groth16_h(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, void *stream) {
    if (!cz_gpu_h_six_()) {
        cz_fr zinv, n_inv;
        int rc = h_consts(log_n, &zinv, &n_inv);
        return rc ? rc : h_seven(plan, log_n, d_a, d_b, d_c, &zinv, stream);
    }
    int rc = cz_gpu_bitrev_(d_c, log_n, stream);
    return rc ? rc : cz_gpu_groth16_h_crev(plan, log_n, d_a, d_b, d_c, stream);
}

int cz_gpu_groth16_y(cz_gpu_ntt *plan, unsigned log_n, cz_fr *d_a, cz_fr *d_b, void *stream) {
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) rc = cz_gpu_ntt_h_step_(plan, i ? d_b : d_a, CZ_GPU_H_COSET_EVAL, stream);
    if (!rc) rc = cz_gpu_ab_product_(d_a, d_a, d_b, log_n, 0, stream); /* natural order, element by element */
    return rc;
}
