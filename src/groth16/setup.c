#include "groth16/setup.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "poly/ntt.h"

void cz_groth16_toxic_from_seed(cz_groth16_toxic *t, uint64_t seed) {
    cz_rng rng;
    cz_rng_seed(&rng, seed);
    cz_fr *f[5] = {&t->tau, &t->alpha, &t->beta, &t->gamma, &t->delta};
    for (int i = 0; i < 5; i++)
        do
            cz_fr_random(f[i], &rng);
        while (cz_fr_is_zero(f[i]));
}

/* at[col] += sum over rows of coeff * lagrange[row]: the column-wise evaluation of a CSR matrix at tau.
 * Thread t owns the columns [nv t / T, nv (t + 1) / T) and scans every term for them (a 32 GiB PoRep
 * matrix has ~240 M terms: each thread reads its 1 GB of column indices, multiplies only its own). */
static void eval_columns(cz_fr *at, const cz_csr *m, const cz_fr *lagrange, size_t nv, int nt) {
#pragma omp parallel num_threads(nt)
    {
        const size_t T = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
        const size_t lo = nv * me / T, w = nv * (me + 1) / T - lo;
        for (uint64_t i = 0; i < m->rows; i++)
            for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
                const size_t c = m->col[k];
                if (c - lo >= w) continue; /* another thread's column (unsigned: c < lo wraps) */
                cz_fr t;
                cz_fr_mul(&t, cz_csr_coeff(m, k), &lagrange[i]);
                cz_fr_add(&at[c], &at[c], &t);
            }
    }
}

#include "groth16/fixed_base.h"

_Static_assert(CZ_FB_C == CZ_GROTH16_FB_C && CZ_FB_WINDOWS == CZ_GROTH16_FB_WINDOWS, "setup.h's table shape");

/* out[i] = k[i] G1 through ops when it has them and they succeed, else on the CPU */
static int fb_g1(cz_groth16_fb_ops *ops, cz_g1_affine *out, const cz_g1_affine *tab, const cz_fr *k, size_t n, int nt) {
    if (n && ops && ops->mul_many) {
        if (ops->mul_many(ops->ctx, 0, out, tab, CZ_FB_C, CZ_FB_WINDOWS, k, n) == 0) return 0;
        ops->fail_count++;
    }
    return cz_g1_fb_mul_many_(out, tab, k, n, nt);
}

static int fb_g2(cz_groth16_fb_ops *ops, cz_g2_affine *out, const cz_g2_affine *tab, const cz_fr *k, size_t n, int nt) {
    if (n && ops && ops->mul_many) {
        if (ops->mul_many(ops->ctx, 1, out, tab, CZ_FB_C, CZ_FB_WINDOWS, k, n) == 0) return 0;
        ops->fail_count++;
    }
    return cz_g2_fb_mul_many_(out, tab, k, n, nt);
}

/* Density layout of variable v: whether it has an A and a B query point. */
static inline bool dens_a(const cz_r1cs *r, size_t v, size_t ni) {
    return v < ni || cz_density_get(r->a_aux_density, v - ni);
}
static inline bool dens_b(const cz_r1cs *r, size_t v, size_t ni) {
    return v < ni ? cz_density_get(r->b_input_density, v) : cz_density_get(r->b_aux_density, v - ni);
}

int cz_groth16_setup(cz_groth16_params *out, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads) {
    return cz_groth16_setup_ex(out, r, t, nthreads, NULL);
}

int cz_groth16_setup_ex(cz_groth16_params *out, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads,
                        cz_groth16_fb_ops *ops) {
    memset(out, 0, sizeof *out);
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    const size_t ni = r->num_inputs, na = r->num_aux, nv = ni + na;
    if (ni == 0 || r->num_rows != r->num_constraints + ni)
        return cz_error(CZ_EINVAL, "setup: constraint system lacks ONE or its input rows (%zu inputs, %zu rows)", ni,
                        (size_t)r->num_rows);
    cz_domain d;
    int rc = cz_domain_for_size(&d, r->num_rows);
    if (rc)
        return rc;
    const size_t n = d.n;
    cz_fr gamma_inv, delta_inv;
    if (cz_fr_inv(&gamma_inv, &t->gamma) || cz_fr_inv(&delta_inv, &t->delta))
        return cz_error(CZ_EINVAL, "setup: gamma or delta is zero");

    size_t scal_n = n > 3 * nv ? n : 3 * nv;
    cz_fr *pw = calloc(n, sizeof *pw), *col = calloc(3 * nv, sizeof *col), *k = malloc(scal_n * sizeof *k);
    size_t nblk = (size_t)nt * 8, *cnt = calloc(2 * nblk + 2, sizeof *cnt);
    cz_groth16_params *p = out;
    cz_g1_affine *tab1 = NULL;
    cz_g2_affine *tab2 = NULL;
    p->h_len = n - 1;
    p->l_len = na;
    p->a_len = ni + r->a_aux_popcount;
    p->b_len = r->b_input_popcount + r->b_aux_popcount;
    p->vk.ic_len = ni;
    p->vk.ic = malloc(ni * sizeof *p->vk.ic);
    p->h = malloc(n * sizeof *p->h);
    p->l = malloc((na ? na : 1) * sizeof *p->l);
    p->a = malloc(p->a_len * sizeof *p->a);
    p->b_g1 = malloc((p->b_len ? p->b_len : 1) * sizeof *p->b_g1);
    p->b_g2 = malloc((p->b_len ? p->b_len : 1) * sizeof *p->b_g2);
    if (!pw || !col || !k || !cnt || !p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
        rc = cz_error(CZ_ENOMEM, "setup: out of memory for a domain of %zu and %zu variables", n, nv);
        goto done;
    }

    tab1 = cz_g1_fb_table_();
    tab2 = cz_g2_fb_table_();
    if (!tab1 || !tab2) {
        rc = cz_error(CZ_ENOMEM, "setup: out of memory for the fixed-base tables");
        goto done;
    }

    /* Powers of tau, a run per thread from tau^lo; H_i = tau^i Z(tau) / delta with Z(tau) = tau^n - 1. */
#pragma omp parallel num_threads(nt)
    {
        const size_t T = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
        const size_t lo = n * me / T, hi = n * (me + 1) / T;
        if (lo < hi) {
            const uint64_t e = lo;
            if (lo) cz_fr_pow(&pw[lo], &t->tau, &e, 1);
            else pw[0] = CZ_FR_ONE_V;
            for (size_t i = lo + 1; i < hi; i++)
                cz_fr_mul(&pw[i], &pw[i - 1], &t->tau);
        }
    }
    cz_fr zt;
    cz_fr_mul(&zt, &pw[n - 1], &t->tau);
    cz_fr_sub(&zt, &zt, &CZ_FR_ONE_V);
    cz_fr_mul(&zt, &zt, &delta_inv);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n - 1; i++)
        cz_fr_mul(&k[i], &pw[i], &zt);
    if ((rc = fb_g1(ops, p->h, tab1, k, n - 1, nt)))
        goto done;

    /* Lagrange coefficients L_j(tau) on the domain = iNTT of the powers of tau (as generator.rs). */
    cz_ntt_inverse(&d, pw);
    cz_fr *at = col, *bt = col + nv, *ct = col + 2 * nv;
    eval_columns(at, &r->a, pw, nv, nt);
    eval_columns(bt, &r->b, pw, nv, nt);
    eval_columns(ct, &r->c, pw, nv, nt);

    /* IC (inputs, /gamma) and L (aux, /delta): (beta*at + alpha*bt + ct) / {gamma, delta}. */
    size_t bad = SIZE_MAX;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : bad)
    for (size_t v = 0; v < nv; v++) {
        cz_fr e, x;
        cz_fr_mul(&e, &at[v], &t->beta);
        cz_fr_mul(&x, &bt[v], &t->alpha);
        cz_fr_add(&e, &e, &x);
        cz_fr_add(&e, &e, &ct[v]);
        cz_fr_mul(&k[v], &e, v < ni ? &gamma_inv : &delta_inv);
        if (v >= ni && cz_fr_is_zero(&k[v]) && v < bad) bad = v;
    }
    if (bad != SIZE_MAX) {
        rc = cz_error(CZ_EINVAL, "setup: aux variable %zu is unconstrained (its L query would be infinity)", bad - ni);
        goto done;
    }
    if ((rc = fb_g1(ops, p->vk.ic, tab1, k, ni, nt)) || (rc = fb_g1(ops, p->l, tab1, k + ni, na, nt)))
        goto done;

    /* A: every input, then aux with A density; B: inputs / aux with B density. The prover selects its
     * scalars by density, so a density bit must coincide with a non-vanishing polynomial at tau. Two
     * passes over blocks of variables: each block's counts (and the first disagreement), then each block
     * writes from its prefix. */
    size_t *ca = cnt, *cb = cnt + nblk + 1;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : bad)
    for (size_t b = 0; b < nblk; b++) {
        size_t lo = nv * b / nblk, hi = nv * (b + 1) / nblk, xa = 0, xb = 0;
        for (size_t v = lo; v < hi; v++) {
            bool da = dens_a(r, v, ni), db = dens_b(r, v, ni);
            if ((da != !cz_fr_is_zero(&at[v]) || db != !cz_fr_is_zero(&bt[v])) && v < bad) bad = v;
            xa += da, xb += db;
        }
        ca[b + 1] = xa, cb[b + 1] = xb;
    }
    if (bad != SIZE_MAX) {
        rc = cz_error(CZ_EINVAL, "setup: variable %zu: density disagrees with its QAP polynomial at tau "
                      "(unlucky tau, or stale densities)", bad);
        goto done;
    }
    for (size_t b = 0; b < nblk; b++) ca[b + 1] += ca[b], cb[b + 1] += cb[b];
    cz_fr *ka = k, *kb = k + nv;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t b = 0; b < nblk; b++) {
        size_t lo = nv * b / nblk, hi = nv * (b + 1) / nblk, oa = ca[b], ob = cb[b];
        for (size_t v = lo; v < hi; v++) {
            if (dens_a(r, v, ni)) ka[oa++] = at[v];
            if (dens_b(r, v, ni)) kb[ob++] = bt[v];
        }
    }
    const size_t na_out = ca[nblk], nb_out = cb[nblk];
    if ((rc = fb_g1(ops, p->a, tab1, ka, na_out, nt)) || (rc = fb_g1(ops, p->b_g1, tab1, kb, nb_out, nt)) ||
        (rc = fb_g2(ops, p->b_g2, tab2, kb, nb_out, nt)))
        goto done;

    cz_g1_fb_mul1_(&p->vk.alpha_g1, tab1, &t->alpha);
    cz_g1_fb_mul1_(&p->vk.beta_g1, tab1, &t->beta);
    cz_g2_fb_mul1_(&p->vk.beta_g2, tab2, &t->beta);
    cz_g2_fb_mul1_(&p->vk.gamma_g2, tab2, &t->gamma);
    cz_g1_fb_mul1_(&p->vk.delta_g1, tab1, &t->delta);
    cz_g2_fb_mul1_(&p->vk.delta_g2, tab2, &t->delta);
    rc = 0;
done:
    free(tab1);
    free(tab2);
    free(pw);
    free(col);
    free(k);
    free(cnt);
    if (rc)
        cz_groth16_params_free(out);
    return rc;
}
