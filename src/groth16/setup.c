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

/* at[col] += sum over rows of coeff * lagrange[row]: the column-wise evaluation of a CSR matrix at tau. */
static void eval_columns(cz_fr *at, const cz_csr *m, const cz_fr *lagrange) {
    for (uint64_t i = 0; i < m->rows; i++)
        for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            cz_fr t;
            cz_fr_mul(&t, &m->val[k], &lagrange[i]);
            cz_fr_add(&at[m->col[k]], &at[m->col[k]], &t);
        }
}

#include "groth16/fixed_base.h"

int cz_groth16_setup(cz_groth16_params *out, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads) {
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
    if (!pw || !col || !k || !p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
        rc = cz_error(CZ_ENOMEM, "setup: out of memory for a domain of %zu and %zu variables", n, nv);
        goto done;
    }

    tab1 = cz_g1_fb_table_();
    tab2 = cz_g2_fb_table_();
    if (!tab1 || !tab2) {
        rc = cz_error(CZ_ENOMEM, "setup: out of memory for the fixed-base tables");
        goto done;
    }

    /* Powers of tau; H_i = tau^i Z(tau) / delta with Z(tau) = tau^n - 1. */
    pw[0] = CZ_FR_ONE_V;
    for (size_t i = 1; i < n; i++)
        cz_fr_mul(&pw[i], &pw[i - 1], &t->tau);
    cz_fr zt;
    cz_fr_mul(&zt, &pw[n - 1], &t->tau);
    cz_fr_sub(&zt, &zt, &CZ_FR_ONE_V);
    cz_fr_mul(&zt, &zt, &delta_inv);
    for (size_t i = 0; i + 1 < n; i++)
        cz_fr_mul(&k[i], &pw[i], &zt);
    if ((rc = cz_g1_fb_mul_many_(p->h, tab1, k, n - 1, nt)))
        goto done;

    /* Lagrange coefficients L_j(tau) on the domain = iNTT of the powers of tau (as generator.rs). */
    cz_ntt_inverse(&d, pw);
    cz_fr *at = col, *bt = col + nv, *ct = col + 2 * nv;
    eval_columns(at, &r->a, pw);
    eval_columns(bt, &r->b, pw);
    eval_columns(ct, &r->c, pw);

    /* IC (inputs, /gamma) and L (aux, /delta): (beta*at + alpha*bt + ct) / {gamma, delta}. */
    for (size_t v = 0; v < nv; v++) {
        cz_fr e, x;
        cz_fr_mul(&e, &at[v], &t->beta);
        cz_fr_mul(&x, &bt[v], &t->alpha);
        cz_fr_add(&e, &e, &x);
        cz_fr_add(&e, &e, &ct[v]);
        cz_fr_mul(&k[v], &e, v < ni ? &gamma_inv : &delta_inv);
        if (v >= ni && cz_fr_is_zero(&k[v])) {
            rc = cz_error(CZ_EINVAL, "setup: aux variable %zu is unconstrained (its L query would be infinity)",
                          v - ni);
            goto done;
        }
    }
    if ((rc = cz_g1_fb_mul_many_(p->vk.ic, tab1, k, ni, nt)) || (rc = cz_g1_fb_mul_many_(p->l, tab1, k + ni, na, nt)))
        goto done;

    /* A: every input, then aux with A density; B: inputs / aux with B density. The prover selects its
     * scalars by density, so a density bit must coincide with a non-vanishing polynomial at tau. */
    size_t na_out = 0, nb_out = 0;
    cz_fr *ka = k, *kb = k + nv;
    for (size_t v = 0; v < nv; v++) {
        bool da = v < ni || cz_density_get(r->a_aux_density, v - ni);
        bool db = v < ni ? cz_density_get(r->b_input_density, v) : cz_density_get(r->b_aux_density, v - ni);
        if (da != !cz_fr_is_zero(&at[v]) || db != !cz_fr_is_zero(&bt[v])) {
            rc = cz_error(CZ_EINVAL, "setup: variable %zu: density disagrees with its QAP polynomial at tau "
                          "(unlucky tau, or stale densities)", v);
            goto done;
        }
        if (da)
            ka[na_out++] = at[v];
        if (db)
            kb[nb_out++] = bt[v];
    }
    if ((rc = cz_g1_fb_mul_many_(p->a, tab1, ka, na_out, nt)) ||
        (rc = cz_g1_fb_mul_many_(p->b_g1, tab1, kb, nb_out, nt)) ||
        (rc = cz_g2_fb_mul_many_(p->b_g2, tab2, kb, nb_out, nt)))
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
    if (rc)
        cz_groth16_params_free(out);
    return rc;
}
