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

int cz_gpu_lc_run_(cz_fr *d_out, size_t m, int weights, cz_gpu_lc_consts *c, size_t T, void *stream) {
    if (!m) return 0;
    if (!T || T > m) T = m < CZ_GPU_LC_THREADS ? m : CZ_GPU_LC_THREADS;
    const uint64_t e = T;
    cz_fr_pow(&c->fT, &c->f, &e, 1);
    cz_fr_pow(&c->gT, &c->g, &e, 1);
    int rc = cz_fr_inv(&c->fTi, &c->fT);
    if (!rc) rc = cz_fr_inv(&c->gTi, &c->gT);
    if (rc) return cz_error(CZ_EINVAL, "Lagrange H check: a step power is 0");
    return cz_gpu_lc_scalars_(d_out, m, T, weights, c, stream);
}

static int yield(void *stream) {
    const int rc = cz_gpu_lock_yield_(stream);
    return rc < 0 ? rc : 0;
}

/* sum_j rho^j L[j] = sum_{i < n-1} s (rho^n - 1) / (rho w^-i - 1) f^-i H_i for L = Lh (f = 1) and Lc (f = g), the
 * bases' definition summed in closed form. One side's MSMs over Lh and Lc with the powers of rho, the other's over H
 * with both sides' weights in one, Lc's taken t times for a random t: three MSMs of n points, their scalars made on
 * the device (none crosses PCIe). */
int cz_gpu_h_lagrange_check(const cz_g1_affine *d_lc, const cz_g1_affine *d_lh, const cz_g1_affine *d_h,
                            unsigned log_n, uint64_t seed, void *stream) {
    if (log_n < 1 || log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "Lagrange H check of 2^%u points", log_n);
    if (!d_lc && !d_lh) return 0;
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    const size_t n = d.n;
    cz_fr s, rho, rn, k, t;
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
    do cz_fr_random(&t, &rng);
    while (cz_fr_is_zero(&t));
    cz_fr_sub(&k, &rn, &CZ_FR_ONE_V);
    cz_fr_mul(&k, &k, &s); /* s (rho^n - 1) */
    const cz_fr one = CZ_FR_ONE_V, zero = {{0}};
    cz_gpu_lc_consts c = {.rho = one, .f = rho, .g = one}; /* rho^j */
    cz_fr *d_w = NULL;
    rc = cz_gpu_malloc((void **)&d_w, n * sizeof *d_w);
    if (!rc) rc = cz_gpu_lc_run_(d_w, n, 0, &c, 0, stream);
    cz_g1_jac pl, pc, ph;
    cz_g1_jac_set_infinity(&pl);
    /* after each MSM (~0.55 s at 2^27) a creation holding the device lets those waiting for it through */
    if (!rc && d_lh) rc = cz_gpu_g1_msm(&pl, d_lh, d_w, n, stream);
    if (!rc && d_lh) rc = yield(stream);
    if (!rc && d_lc) rc = cz_gpu_g1_msm(&pc, d_lc, d_w, n, stream);
    if (!rc && d_lc) rc = yield(stream);
    if (!rc && d_lc) { /* pl = Lh's + t Lc's, or Lc's alone */
        if (d_lh) cz_g1_mul(&pc, &pc, &t);
        cz_g1_jac_add(&pl, &pl, &pc);
    }
    /* k / (rho w^-i - 1) (a + b g^-i): a = 1 with Lh, b = t (1 alone, 0 without) with Lc */
    c = (cz_gpu_lc_consts){.rho = rho, .f = d.omega_inv, .k = k, .a = d_lh ? one : zero,
                           .b = !d_lc ? zero : d_lh ? t : one, .g = d.g_inv};
    if (!rc) rc = cz_gpu_lc_run_(d_w, n - 1, 1, &c, 0, stream);
    if (!rc) rc = cz_gpu_g1_msm(&ph, d_h, d_w, n - 1, stream);
    if (!rc && !cz_g1_jac_equal(&ph, &pl))
        rc = cz_error(CZ_EVERIFY, "Lagrange H bases of 2^%u: %s H (random linear check)", log_n,
                      !d_lc ? "Lh does not match" : !d_lh ? "Lc does not match" : "Lc or Lh does not match");
    cz_gpu_free(d_w);
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
