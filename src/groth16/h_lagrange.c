#include "groth16/h_lagrange.h"

#include <omp.h>
#include <stdlib.h>

#include "cz_error.h"
#include "ec/msm.h"

static int nt(int nthreads) { return nthreads > 0 ? nthreads : omp_get_max_threads(); }

int cz_g1_intt_unscaled(const cz_domain *d, cz_g1_jac *v, int nthreads) {
    const size_t n = d->n;
    const unsigned log_n = d->log_n;
    if (n < 2) return 0;
    cz_fr *tw = malloc(n / 2 * sizeof *tw); /* w^-k, k < n/2 */
    if (!tw) return cz_error(CZ_ENOMEM, "G1 NTT twiddles of 2^%u", log_n);
    tw[0] = CZ_FR_ONE_V;
    for (size_t k = 1; k < n / 2; k++) cz_fr_mul(&tw[k], &tw[k - 1], &d->omega_inv);
    for (size_t i = 0; i < n; i++) { /* bit-reversed order in, then DIT */
        size_t j = 0;
        for (unsigned b = 0; b < log_n; b++) j |= ((i >> b) & 1) << (log_n - 1 - b);
        if (i < j) {
            const cz_g1_jac t = v[i];
            v[i] = v[j], v[j] = t;
        }
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const size_t half = len / 2, step = n / len;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt(nthreads))
        for (size_t t = 0; t < n / 2; t++) {
            const size_t blk = t / half, k = t % half, i0 = blk * len + k, i1 = i0 + half;
            cz_g1_jac wv, u = v[i0];
            if (k) cz_g1_mul(&wv, &v[i1], &tw[k * step]);
            else wv = v[i1];
            cz_g1_jac_add(&v[i0], &u, &wv);
            cz_g1_jac_neg(&wv, &wv);
            cz_g1_jac_add(&v[i1], &u, &wv);
        }
    }
    free(tw);
    return 0;
}

/* out[j] = s sum_{i < n-1} (f^-i H_i) w^(-i j), f = g (coset) or 1 */
static int lagrange_one(cz_g1_affine *out, const cz_domain *d, const cz_g1_affine *h, const cz_fr *s, int coset,
                        int nthreads) {
    const size_t n = d->n;
    cz_g1_jac *v = malloc(n * sizeof *v);
    cz_fr *f = coset ? malloc(n * sizeof *f) : NULL;
    if (!v || (coset && !f)) {
        free(v), free(f);
        return cz_error(CZ_ENOMEM, "Lagrange H bases of 2^%u", d->log_n);
    }
    if (coset) {
        f[0] = CZ_FR_ONE_V;
        for (size_t i = 1; i < n; i++) cz_fr_mul(&f[i], &f[i - 1], &d->g_inv);
    }
#pragma omp parallel for schedule(static) num_threads(nt(nthreads))
    for (size_t i = 0; i < n; i++) {
        if (i + 1 == n) {
            cz_g1_jac_set_infinity(&v[i]);
            continue;
        }
        cz_g1_jac_from_affine(&v[i], &h[i]);
        if (coset && i) cz_g1_mul(&v[i], &v[i], &f[i]);
    }
    int rc = cz_g1_intt_unscaled(d, v, nthreads);
    if (!rc) {
#pragma omp parallel for schedule(static) num_threads(nt(nthreads))
        for (size_t j = 0; j < n; j++) cz_g1_mul(&v[j], &v[j], s);
        cz_g1_batch_to_affine(out, v, n);
    }
    free(v), free(f);
    return rc;
}

int cz_groth16_h_lagrange(cz_g1_affine *lc, cz_g1_affine *lh, const cz_domain *d, const cz_g1_affine *h, size_t h_len,
                          int nthreads) {
    const size_t n = d->n;
    if (n < 2 || h_len != n - 1)
        return cz_error(CZ_EINVAL, "Lagrange H bases: %zu H points for a domain of %zu (want %zu)", h_len, n, n - 1);
    cz_fr s; /* 1 / (n (g^n - 1)) */
    int rc = cz_ntt_z_coset_inv(d, &s);
    if (rc) return rc;
    cz_fr_mul(&s, &s, &d->n_inv);
    if (lc) rc = lagrange_one(lc, d, h, &s, 1, nthreads);
    if (!rc && lh) rc = lagrange_one(lh, d, h, &s, 0, nthreads);
    return rc;
}

int cz_groth16_h_msm_lagrange(cz_g1_jac *out, const cz_domain *d, const cz_g1_affine *lc, const cz_g1_affine *lh,
                              cz_fr *a, cz_fr *b, const cz_fr *c, int nthreads) {
    const size_t n = d->n, nw = (n + 63) / 64;
    uint64_t *bm = calloc(3 * nw, sizeof *bm); /* ones, minus ones, twos */
    cz_g1_affine *tb = malloc(n * sizeof *tb);
    cz_fr *ts = malloc(n * sizeof *ts);
    int rc = bm && tb && ts ? 0 : cz_error(CZ_ENOMEM, "Lagrange h MSM of 2^%u", d->log_n);
    if (!rc) rc = cz_ntt_inverse(d, a);
    if (!rc) rc = cz_ntt_coset_forward(d, a);
    if (!rc) rc = cz_ntt_inverse(d, b);
    if (!rc) rc = cz_ntt_coset_forward(d, b);
    cz_g1_jac p, q, t;
    size_t ntail = 0;
    if (!rc) {
#pragma omp parallel for schedule(static) num_threads(nt(nthreads))
        for (size_t i = 0; i < n; i++) cz_fr_mul(&a[i], &a[i], &b[i]);
        rc = cz_g1_msm(&p, lc, a, n, nthreads);
    }
    if (!rc) {
        cz_fr one = CZ_FR_ONE_V, m1, two;
        cz_fr_neg(&m1, &one);
        cz_fr_add(&two, &one, &one);
        for (size_t i = 0; i < n; i++) {
            const int k = cz_fr_equal(&c[i], &one) ? 0 : cz_fr_equal(&c[i], &m1) ? 1 : cz_fr_equal(&c[i], &two) ? 2 : 3;
            if (k < 3) bm[k * nw + i / 64] |= (uint64_t)1 << (i % 64);
            else if (!cz_fr_is_zero(&c[i])) tb[ntail] = lh[i], ts[ntail++] = c[i];
        }
        rc = cz_g1_msm(&q, tb, ts, ntail, nthreads); /* the other values */
    }
    if (!rc) {
        cz_g1_batch_add(&t, lh, bm, n, nthreads); /* + ones */
        cz_g1_jac_add(&q, &q, &t);
        cz_g1_batch_add(&t, lh, bm + nw, n, nthreads); /* - minus ones */
        cz_g1_jac_neg(&t, &t);
        cz_g1_jac_add(&q, &q, &t);
        cz_g1_batch_add(&t, lh, bm + 2 * nw, n, nthreads); /* + 2 twos */
        cz_g1_jac_double(&t, &t);
        cz_g1_jac_add(&q, &q, &t);
        cz_g1_jac_neg(&q, &q);
        cz_g1_jac_add(out, &p, &q);
    }
    free(bm), free(tb), free(ts);
    return rc;
}
