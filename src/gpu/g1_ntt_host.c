/* Host side of the device G1 inverse NTT (g1_ntt.cu): the twiddles w^-e, e < n/2, split as k0 + k1 x^2, and the
 * Lagrange-form H bases built from it (groth16/h_lagrange.h is the CPU reference of both). */
#include <omp.h>
#include <stdlib.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "ec/msm_internal.h"
#include "poly/ntt.h"

/* k as g1ntt_mul takes it: k0, k1 (two 64-bit limbs each, = little-endian 32-bit words) with k = k0 + k1 x^2 */
static void split_scalar(uint64_t out[4], const cz_fr *k) {
    uint64_t raw[4];
    cz_fr_to_raw(raw, k);
    cz_msm_glv_split_(out, out + 2, raw);
}

/* out[i] = split(a0 f^i) for i < m, OpenMP threads each from its own start power */
static void split_powers(uint64_t *out, const cz_fr *a0, const cz_fr *f, size_t m) {
#pragma omp parallel
    {
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        const size_t lo = m * t / nt, hi = m * (t + 1) / nt;
        cz_fr x;
        const uint64_t e = lo;
        cz_fr_pow(&x, f, &e, 1);
        cz_fr_mul(&x, &x, a0);
        for (size_t i = lo; i < hi; i++) {
            split_scalar(out + 4 * i, &x);
            cz_fr_mul(&x, &x, f);
        }
    }
}

/* the device twiddles of a domain: w^-e split, e < n/2 */
static int make_twiddles(void **d_tw, const cz_domain *d) {
    const size_t h = d->n / 2;
    uint64_t *tw = malloc(h * 4 * sizeof *tw);
    if (!tw) return cz_error(CZ_ENOMEM, "G1 NTT twiddles of 2^%u", d->log_n);
    const cz_fr one = CZ_FR_ONE_V;
    split_powers(tw, &one, &d->omega_inv, h);
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

int cz_gpu_h_lagrange_bases(cz_g1_affine *d_lc, cz_g1_affine *d_lh, const cz_g1_affine *d_h, unsigned log_n,
                            void *stream) {
    if (log_n < 1 || log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "Lagrange H bases of 2^%u points", log_n);
    cz_domain d;
    int rc = cz_domain_init(&d, log_n);
    if (rc) return rc;
    const size_t n = d.n;
    /* s = 1 / (n (g^n - 1)) */
    cz_fr gn = d.g, s;
    for (unsigned i = 0; i < log_n; i++) cz_fr_sqr(&gn, &gn);
    cz_fr_sub(&gn, &gn, &CZ_FR_ONE_V);
    if (cz_fr_inv(&s, &gn)) return cz_error(CZ_EINVAL, "Lagrange H bases: g^n = 1");
    cz_fr_mul(&s, &s, &d.n_inv);
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
        split_powers(ks, &s, &d.g_inv, n - 1);
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
