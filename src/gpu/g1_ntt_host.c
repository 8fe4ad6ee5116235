/* Host side of the device G1 inverse NTT (g1_ntt.cu): the twiddles w^-e, e < n/2, split as k0 + k1 x^2, and the
 * Lagrange-form H bases built from it (groth16/h_lagrange.h is the CPU reference of both). */
#include <omp.h>
#include <stdlib.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "ec/msm_internal.h"
#include "poly/ntt.h"
#include "util/rng.h"

/* k as g1ntt_mul takes it: k0, k1 (two 64-bit limbs each, = little-endian 32-bit words) with k = k0 + k1 x^2 */
static void split_scalar(uint64_t out[4], const cz_fr *k) {
    uint64_t raw[4];
    cz_fr_to_raw(raw, k);
    cz_msm_glv_split_(out, out + 2, raw);
}

/* Inside an OpenMP parallel region: this thread's share [*lo, *hi) of m items, and a0 f^e for e = *lo. */
static void share(size_t m, size_t *lo, size_t *hi, cz_fr *x, const cz_fr *a0, const cz_fr *f) {
    const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
    *lo = m * t / nt, *hi = m * (t + 1) / nt;
    const uint64_t e = *lo;
    cz_fr_pow(x, f, &e, 1);
    cz_fr_mul(x, x, a0);
}

/* out[i] = split(a0 f^i) for i < m */
static void split_powers(uint64_t *out, const cz_fr *a0, const cz_fr *f, size_t m) {
#pragma omp parallel
    {
        size_t lo, hi;
        cz_fr x;
        share(m, &lo, &hi, &x, a0, f);
        for (size_t i = lo; i < hi; i++) split_scalar(out + 4 * i, &x), cz_fr_mul(&x, &x, f);
    }
}

/* the device twiddles of a domain: w^-e split, e < n/2 */
static int make_twiddles(void **d_tw, const cz_domain *d) {
    const size_t h = d->n / 2;
    uint64_t *tw = malloc(h * 4 * sizeof *tw);
    if (!tw) return cz_error(CZ_ENOMEM, "G1 NTT twiddles of 2^%u", d->log_n);
    const cz_fr one = CZ_FR_ONE_V;
    const int held = cz_gpu_lock_drop_(); /* host work: the device to whoever waits for it meanwhile */
    split_powers(tw, &one, &d->omega_inv, h);
    cz_gpu_lock_retake_(held);
    *d_tw = NULL;
    int rc = cz_gpu_malloc(d_tw, h * 32);
    if (!rc) rc = cz_gpu_memcpy_htod(*d_tw, tw, h * 32);
    free(tw);
    return rc;
}

int cz_gpu_g1_intt_unscaled(void *d_v, unsigned log_n, void *stream) {
    if (log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "G1 NTT of 2^%u points", log_n);
    if (log_n == 0) return 0;
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    cz_fp beta, px, py;
    cz_msm_endo_consts_(&beta, &px, &py);
    void *d_tw = NULL;
    rc = make_twiddles(&d_tw, &d);
    if (!rc) rc = cz_gpu_g1_intt_run_(d_v, log_n, (const uint32_t *)d_tw, &beta, stream);
    if (!rc) rc = cz_gpu_sync();
    cz_gpu_free(d_tw);
    return rc;
}

/* s = 1 / (n (g^n - 1)), the bases' common factor */
static int lag_scale(cz_fr *s, const cz_domain *d) {
    int rc = cz_ntt_z_coset_inv(d, s);
    if (!rc) cz_fr_mul(s, s, &d->n_inv);
    return rc;
}

/* out[i] = a0 f^i for i < m; with mul, out[i] *= a0 f^i instead */
static void powers(cz_fr *out, const cz_fr *a0, const cz_fr *f, size_t m, int mul) {
#pragma omp parallel
    {
        size_t lo, hi;
        cz_fr x;
        share(m, &lo, &hi, &x, a0, f);
        for (size_t i = lo; i < hi; i++) {
            if (mul) cz_fr_mul(&out[i], &out[i], &x);
            else out[i] = x;
            cz_fr_mul(&x, &x, f);
        }
    }
}

/* out[i] = k / (rho w^-i - 1) for i < m (rho w^-i != 1): per thread one inversion (Montgomery's batch trick) */
static void check_weights(cz_fr *out, const cz_fr *k, const cz_fr *rho, const cz_domain *d, size_t m) {
#pragma omp parallel
    {
        size_t lo, hi;
        cz_fr x, acc = CZ_FR_ONE_V, den, inv;
        share(m, &lo, &hi, &x, rho, &d->omega_inv);
        if (lo < hi) {
            const uint64_t e2 = hi - 1;
            for (size_t i = lo; i < hi; i++) { /* out[i] = the product of the denominators before i */
                out[i] = acc;
                cz_fr_sub(&den, &x, &CZ_FR_ONE_V);
                cz_fr_mul(&acc, &acc, &den);
                cz_fr_mul(&x, &x, &d->omega_inv);
            }
            cz_fr_inv(&inv, &acc);
            cz_fr_mul(&inv, &inv, k);
            cz_fr_pow(&x, &d->omega_inv, &e2, 1);
            cz_fr_mul(&x, &x, rho);
            for (size_t i = hi; i-- > lo;) {
                cz_fr_sub(&den, &x, &CZ_FR_ONE_V);
                cz_fr_mul(&out[i], &out[i], &inv);
                cz_fr_mul(&inv, &inv, &den);
                cz_fr_mul(&x, &x, &d->omega);
            }
        }
    }
}

int cz_gpu_h_lagrange_check(const cz_g1_affine *d_lc, const cz_g1_affine *d_lh, const cz_g1_affine *d_h,
                            unsigned log_n, uint64_t seed, void *stream) {
    if (log_n < 1 || log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "Lagrange H check of 2^%u points", log_n);
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    const size_t n = d.n;
    cz_fr s, rho, rn, k;
    rc = lag_scale(&s, &d);
    if (rc) return rc;
    cz_rng rng;
    cz_rng_seed(&rng, seed);
    for (;;) { /* rho^n != 1: no denominator rho w^-i - 1 is 0 */
        cz_fr_random(&rho, &rng);
        rn = rho;
        for (unsigned i = 0; i < log_n; i++) cz_fr_sqr(&rn, &rn);
        if (!cz_fr_equal(&rn, &CZ_FR_ONE_V)) break;
    }
    cz_fr_sub(&k, &rn, &CZ_FR_ONE_V);
    cz_fr_mul(&k, &k, &s); /* s (rho^n - 1) */
    cz_fr *w = malloc(n * sizeof *w);
    if (!w) return cz_error(CZ_ENOMEM, "Lagrange H check of 2^%u: scalars", log_n);
    void *d_w = NULL;
    rc = cz_gpu_malloc(&d_w, n * sizeof *w);
    cz_g1_jac pl[2], ph;
    const cz_g1_affine *lb[2] = {d_lc, d_lh};
    const cz_fr one = CZ_FR_ONE_V;
    /* the host's scalars without the device lock, each MSM with it (they share the device's MSM scratch): a
     * creation that holds it lets other provers' partitions through in between */
    int held = cz_gpu_lock_drop_();
    powers(w, &one, &rho, n, 0); /* sum_j rho^j L[j] */
    cz_gpu_lock_retake_(held);
    if (!rc) rc = cz_gpu_memcpy_htod(d_w, w, n * sizeof *w);
    for (int b = 0; b < 2 && !rc; b++)
        if (lb[b]) rc = cz_gpu_g1_msm(&pl[b], lb[b], d_w, n, stream);
    /* = sum_{i < n-1} s (rho^n - 1) / (rho w^-i - 1) f^-i H_i, f = 1 for Lh, g for Lc */
    held = cz_gpu_lock_drop_();
    if (!rc) check_weights(w, &k, &rho, &d, n - 1);
    cz_gpu_lock_retake_(held);
    for (int b = 1; b >= 0 && !rc; b--) {
        if (!lb[b]) continue;
        if (b == 0) { /* times g^-i (Lc comes last) */
            held = cz_gpu_lock_drop_();
            powers(w, &one, &d.g_inv, n - 1, 1);
            cz_gpu_lock_retake_(held);
        }
        rc = cz_gpu_memcpy_htod(d_w, w, (n - 1) * sizeof *w);
        if (!rc) rc = cz_gpu_g1_msm(&ph, d_h, d_w, n - 1, stream);
        if (!rc && !cz_g1_jac_equal(&ph, &pl[b]))
            rc = cz_error(CZ_EVERIFY, "Lagrange H bases of 2^%u: %s does not match H (random linear check)", log_n,
                          b ? "Lh" : "Lc");
    }
    cz_gpu_free(d_w);
    free(w);
    return rc;
}

int cz_gpu_h_lagrange_bases(cz_g1_affine *d_lc, cz_g1_affine *d_lh, const cz_g1_affine *d_h, unsigned log_n,
                            void *stream) {
    if (log_n < 1 || log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "Lagrange H bases of 2^%u points", log_n);
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    const size_t n = d.n;
    cz_fr s;
    rc = lag_scale(&s, &d);
    if (rc) return rc;
    cz_fp beta, px, py;
    cz_msm_endo_consts_(&beta, &px, &py);
    uint64_t *ks = d_lc ? malloc((n - 1) * 32) : NULL; /* s g^-i: the coset's per-point factors */
    if (d_lc && !ks) return cz_error(CZ_ENOMEM, "Lagrange H bases of 2^%u: scalars", log_n);
    void *d_tw = NULL, *d_x = NULL, *d_ks = NULL;
    rc = make_twiddles(&d_tw, &d);
    if (!rc) rc = cz_gpu_malloc(&d_x, n * sizeof(cz_g1_xyzz));
    if (!rc) rc = cz_gpu_malloc(&d_ks, (d_lc ? n - 1 : 1) * 32);
    if (!rc && d_lh) { /* Lh: s H_i, then the transform */
        uint64_t k1[4];
        split_scalar(k1, &s);
        rc = cz_gpu_memcpy_htod(d_ks, k1, 32);
        if (!rc) rc = cz_gpu_hl_prescale_(d_x, d_h, d_ks, 0, n, &beta, stream);
        if (!rc) rc = cz_gpu_g1_intt_run_(d_x, log_n, d_tw, &beta, stream);
        if (!rc) rc = cz_gpu_hl_affine_(d_lh, d_x, n, stream);
        if (!rc) rc = cz_gpu_sync(); /* d_ks is written again below */
    }
    if (!rc && d_lc) { /* Lc: s g^-i H_i, then the transform */
        const int held = cz_gpu_lock_drop_();
        split_powers(ks, &s, &d.g_inv, n - 1);
        cz_gpu_lock_retake_(held);
        rc = cz_gpu_memcpy_htod(d_ks, ks, (n - 1) * 32);
        if (!rc) rc = cz_gpu_hl_prescale_(d_x, d_h, d_ks, 8, n, &beta, stream);
        if (!rc) rc = cz_gpu_g1_intt_run_(d_x, log_n, d_tw, &beta, stream);
        if (!rc) rc = cz_gpu_hl_affine_(d_lc, d_x, n, stream);
        if (!rc) rc = cz_gpu_sync();
    }
    free(ks);
    cz_gpu_free(d_tw);
    cz_gpu_free(d_x);
    cz_gpu_free(d_ks);
    return rc;
}
