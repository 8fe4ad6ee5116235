/* The H query in Lagrange form (groth16/h_lagrange.h) against the prover's own h, on fresh random data: for random
 * H bases and random a, b, c (and c = a b, the prover's case), sum_{i < n-1} h_i H_i with h from
 * cz_groth16_compute_h (bellperson's steps) equals sum_j y_j Lc[j] - sum_j c_j Lh[j], y = coset_NTT(iNTT(a))
 * coset_NTT(iNTT(b)), at 2^1..2^9; the same through cz_groth16_h_msm_lagrange, with c of every class its split
 * takes (zeros, ones, minus ones, twos, other small and random values). The G1 inverse NTT against its definition
 * (one MSM per output). A changed y, c or base makes the sums differ, and a wrong H length is refused. */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "groth16/h_lagrange.h"
#include "groth16/prover.h"
#include "testutil.h"

static cz_rng rng;

/* the unscaled inverse NTT over G1 against sum_i w^(-i j) v_i, every output */
static void check_intt(unsigned log_n) {
    cz_domain d;
    CHECK(cz_domain_init(&d, log_n) == 0);
    const size_t n = d.n;
    cz_g1_affine *a = malloc(n * sizeof *a);
    cz_g1_jac *v = malloc(n * sizeof *v);
    cz_fr *e = malloc(n * sizeof *e);
    for (size_t i = 0; i < n; i++) {
        cz_g1_random(&a[i], &rng);
        cz_g1_jac_from_affine(&v[i], &a[i]);
    }
    CHECK(cz_g1_intt_unscaled(&d, v, 2) == 0);
    size_t bad = 0;
    for (size_t j = 0; j < n; j++) {
        cz_fr wj = CZ_FR_ONE_V; /* w^-j */
        for (size_t k = 0; k < j; k++) cz_fr_mul(&wj, &wj, &d.omega_inv);
        e[0] = CZ_FR_ONE_V;
        for (size_t i = 1; i < n; i++) cz_fr_mul(&e[i], &e[i - 1], &wj);
        cz_g1_jac want;
        CHECK(cz_g1_msm(&want, a, e, n, 1) == 0);
        bad += !cz_g1_jac_equal(&want, &v[j]);
    }
    CHECK_MSG(bad == 0, "G1 iNTT 2^%u: %zu of %zu outputs differ from the definition", log_n, bad, n);
    free(a), free(v), free(e);
}

static void sub_jac(cz_g1_jac *r, const cz_g1_jac *p, const cz_g1_jac *q) {
    cz_g1_jac t;
    cz_g1_jac_neg(&t, q);
    cz_g1_jac_add(r, p, &t);
}

/* sum_j y_j lc[j] - sum_j c_j lh[j] */
static void lagrange_sum(cz_g1_jac *r, const cz_g1_affine *lc, const cz_g1_affine *lh, const cz_fr *y, const cz_fr *c,
                         size_t n) {
    cz_g1_jac p, q;
    CHECK(cz_g1_msm(&p, lc, y, n, 2) == 0);
    CHECK(cz_g1_msm(&q, lh, c, n, 2) == 0);
    sub_jac(r, &p, &q);
}

static void check_h(unsigned log_n, int c_ab) {
    cz_domain d;
    CHECK(cz_domain_init(&d, log_n) == 0);
    const size_t n = d.n;
    cz_g1_affine *h = malloc(n * sizeof *h), *lc = malloc(n * sizeof *lc), *lh = malloc(n * sizeof *lh);
    cz_fr *abc = malloc(3 * n * sizeof *abc), *y = malloc(n * sizeof *y), *bb = malloc(n * sizeof *bb);
    cz_fr *c = malloc(n * sizeof *c);
    for (size_t i = 0; i + 1 < n; i++) cz_g1_random(&h[i], &rng);
    int rc = cz_groth16_h_lagrange(lc, lh, &d, h, n - 1, 2);
    CHECK_MSG(rc == 0, "Lagrange bases 2^%u: %s", log_n, cz_error_message());
    for (size_t i = 0; i < n; i++) {
        cz_fr_random(&abc[i], &rng);
        cz_fr_random(&abc[n + i], &rng);
        if (c_ab) cz_fr_mul(&abc[2 * n + i], &abc[i], &abc[n + i]);
        else cz_fr_random(&abc[2 * n + i], &rng);
    }
    memcpy(y, abc, n * sizeof *y);
    memcpy(bb, abc + n, n * sizeof *bb);
    memcpy(c, abc + 2 * n, n * sizeof *c);
    /* the prover's h and its MSM over the n - 1 bases */
    cz_groth16_compute_h(&d, abc, abc + n, abc + 2 * n);
    cz_g1_jac want, got;
    CHECK(cz_g1_msm(&want, h, abc, n - 1, 2) == 0);
    /* four NTTs: y = A_coset B_coset */
    CHECK(cz_ntt_inverse(&d, y) == 0 && cz_ntt_coset_forward(&d, y) == 0);
    CHECK(cz_ntt_inverse(&d, bb) == 0 && cz_ntt_coset_forward(&d, bb) == 0);
    for (size_t i = 0; i < n; i++) cz_fr_mul(&y[i], &y[i], &bb[i]);
    lagrange_sum(&got, lc, lh, y, c, n);
    CHECK_MSG(cz_g1_jac_equal(&want, &got), "2^%u (%s): the Lagrange sums differ from the prover's h MSM", log_n,
              c_ab ? "c = a b" : "random c");
    /* the check can fail: one changed y value, c value or base */
    cz_fr one = CZ_FR_ONE_V;
    const size_t k = (size_t)(cz_rng_next(&rng) % n);
    cz_fr_add(&y[k], &y[k], &one);
    lagrange_sum(&got, lc, lh, y, c, n);
    CHECK_MSG(!cz_g1_jac_equal(&want, &got), "2^%u: y[%zu] + 1 left the sum unchanged", log_n, k);
    cz_fr_sub(&y[k], &y[k], &one);
    cz_fr_add(&c[k], &c[k], &one);
    lagrange_sum(&got, lc, lh, y, c, n);
    CHECK_MSG(!cz_g1_jac_equal(&want, &got), "2^%u: c[%zu] + 1 left the sum unchanged", log_n, k);
    cz_fr_sub(&c[k], &c[k], &one);
    cz_g1_affine keep = lc[k];
    cz_g1_random(&lc[k], &rng);
    lagrange_sum(&got, lc, lh, y, c, n);
    CHECK_MSG(cz_fr_is_zero(&y[k]) || !cz_g1_jac_equal(&want, &got), "2^%u: another Lc[%zu] left the sum unchanged",
              log_n, k);
    lc[k] = keep;
    lagrange_sum(&got, lc, lh, y, c, n);
    CHECK(cz_g1_jac_equal(&want, &got));
    free(h), free(lc), free(lh), free(abc), free(y), free(bb), free(c);
}

/* cz_groth16_h_msm_lagrange (the split of c by value) against the prover's h MSM, with c of every class: zeros,
 * ones, minus ones, twos, other small values and random ones (and c = a b) */
static void check_split(unsigned log_n, int c_ab) {
    cz_domain d;
    CHECK(cz_domain_init(&d, log_n) == 0);
    const size_t n = d.n;
    cz_g1_affine *h = malloc(n * sizeof *h), *lc = malloc(n * sizeof *lc), *lh = malloc(n * sizeof *lh);
    cz_fr *abc = malloc(3 * n * sizeof *abc), *a2 = malloc(2 * n * sizeof *a2), one = CZ_FR_ONE_V;
    for (size_t i = 0; i + 1 < n; i++) cz_g1_random(&h[i], &rng);
    CHECK(cz_groth16_h_lagrange(lc, lh, &d, h, n - 1, 2) == 0);
    for (size_t i = 0; i < n; i++) {
        cz_fr_random(&abc[i], &rng);
        cz_fr_random(&abc[n + i], &rng);
        cz_fr *ci = &abc[2 * n + i];
        switch (c_ab ? 6 : (int)(cz_rng_next(&rng) % 6)) {
        case 0: *ci = CZ_FR_ZERO_V; break;
        case 1: *ci = one; break;
        case 2: cz_fr_neg(ci, &one); break;
        case 3: cz_fr_add(ci, &one, &one); break;
        case 4: cz_fr_set_u64(ci, 3 + cz_rng_next(&rng) % 1000); break;
        case 5: cz_fr_random(ci, &rng); break;
        default: cz_fr_mul(ci, &abc[i], &abc[n + i]);
        }
    }
    memcpy(a2, abc, 2 * n * sizeof *a2);
    cz_g1_jac got, want;
    const int rc = cz_groth16_h_msm_lagrange(&got, &d, lc, lh, a2, a2 + n, abc + 2 * n, 2);
    CHECK_MSG(rc == 0, "Lagrange h MSM 2^%u: %s", log_n, cz_error_message());
    cz_groth16_compute_h(&d, abc, abc + n, abc + 2 * n);
    CHECK(cz_g1_msm(&want, h, abc, n - 1, 2) == 0);
    CHECK_MSG(cz_g1_jac_equal(&want, &got), "2^%u (%s): the split Lagrange h MSM differs from the prover's", log_n,
              c_ab ? "c = a b" : "c of every class");
    free(h), free(lc), free(lh), free(abc), free(a2);
}

int main(void) {
    cz_test_rng(&rng);
    for (unsigned log_n = 1; log_n <= 5; log_n++) check_intt(log_n);
    for (unsigned log_n = 1; log_n <= 9; log_n++) {
        check_h(log_n, 0);
        check_h(log_n, 1);
        check_split(log_n, 0);
        check_split(log_n, 1);
    }
    /* a wrong H length is refused */
    cz_domain d;
    CHECK(cz_domain_init(&d, 4) == 0);
    cz_g1_affine h[16], out[16];
    for (int i = 0; i < 16; i++) cz_g1_random(&h[i], &rng);
    CHECK(cz_groth16_h_lagrange(out, NULL, &d, h, 16, 1) == CZ_EINVAL);
    CHECK(cz_groth16_h_lagrange(out, NULL, &d, h, 14, 1) == CZ_EINVAL);
    CHECK(cz_groth16_h_lagrange(out, NULL, &d, h, 15, 1) == 0);
    return cz_test_finish();
}
