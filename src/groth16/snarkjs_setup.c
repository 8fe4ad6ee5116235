/* A .zkey from known toxic waste (tests and benchmarks only): what snarkjs' ceremony + `groth16 setup`
 * would give for tau, alpha, beta, delta (gamma = 1), built directly because snarkjs' `powersoftau
 * prepare phase2` takes hours beyond 2^14 on this machine. Layout: shared/research/interop.md §3. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "groth16/snarkjs.h"

#include "groth16/fixed_base.h"

/* at[col] += coeff * lagrange[row] over the CSR matrix. */
static void eval_columns(cz_fr *at, const cz_csr *m, const cz_fr *lagrange) {
    for (uint64_t i = 0; i < m->rows; i++)
        for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            cz_fr t;
            cz_fr_mul(&t, cz_csr_coeff(m, k), &lagrange[i]);
            cz_fr_add(&at[m->col[k]], &at[m->col[k]], &t);
        }
}

/* Lagrange basis at tau of a domain: iNTT of (tau^0 .. tau^(n-1)). */
static int lagrange_at(cz_fr *out, const cz_domain *d, const cz_fr *tau) {
    out[0] = CZ_FR_ONE_V;
    for (size_t i = 1; i < d->n; i++) cz_fr_mul(&out[i], &out[i - 1], tau);
    return cz_ntt_inverse(d, out);
}

int cz_snarkjs_setup(cz_snarkjs_zkey *z, const cz_r1cs *r, const cz_groth16_toxic *t, int nthreads) {
    memset(z, 0, sizeof *z);
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    const size_t ni = r->num_inputs, nv = ni + r->num_aux;
    if (ni == 0 || r->num_rows != r->num_constraints + ni || nv > UINT32_MAX)
        return cz_error(CZ_EINVAL, "snarkjs setup: constraint system lacks ONE or its input rows");
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < r->num_rows) log_n++; /* snarkjs: 2^power > nCons + nPublic */
    cz_domain d, d2;
    int rc;
    if ((rc = cz_snarkjs_domain(&d, log_n)) || (rc = cz_snarkjs_domain(&d2, log_n + 1))) return rc;
    const size_t n = d.n;
    cz_fr delta_inv;
    if (cz_fr_inv(&delta_inv, &t->delta)) return cz_error(CZ_EINVAL, "snarkjs setup: delta is zero");
    z->n_vars = (uint32_t)nv;
    z->n_public = (uint32_t)(ni - 1);
    z->domain_size = (uint32_t)n;
    z->power = log_n;
    const size_t scal_n = 2 * n > 3 * nv ? 2 * n : 3 * nv;
    cz_fr *lag = malloc(2 * n * sizeof *lag), *col = calloc(3 * nv, sizeof *col), *k = malloc(scal_n * sizeof *k);
    cz_g1_affine *tab1 = NULL;
    cz_g2_affine *tab2 = NULL;
    const size_t nnz = cz_r1cs_nnz(&r->a) + cz_r1cs_nnz(&r->b);
    z->ic = malloc(ni * sizeof *z->ic);
    z->coef = malloc((nnz ? nnz : 1) * sizeof *z->coef);
    z->a = malloc(nv * sizeof *z->a);
    z->b1 = malloc(nv * sizeof *z->b1);
    z->b2 = malloc(nv * sizeof *z->b2);
    z->c = malloc((nv - ni ? nv - ni : 1) * sizeof *z->c);
    z->h = malloc(n * sizeof *z->h);
    if (!lag || !col || !k || !z->ic || !z->coef || !z->a || !z->b1 || !z->b2 || !z->c || !z->h) {
        rc = cz_error(CZ_ENOMEM, "snarkjs setup: out of memory (domain %zu, %zu variables)", n, nv);
        goto done;
    }
    /* Section 4: A (input rows included: snarkjs' extra rows [0, nCons+s, s, 1]) then B. */
    z->n_coef = 0;
    for (uint32_t m = 0; m < 2; m++) {
        const cz_csr *x = m ? &r->b : &r->a;
        for (uint64_t i = 0; i < x->rows; i++)
            for (uint64_t q = x->row_ptr[i]; q < x->row_ptr[i + 1]; q++)
                z->coef[z->n_coef++] = (cz_snarkjs_coef){m, (uint32_t)i, x->col[q], *cz_csr_coeff(x, q)};
    }

    if (!(tab1 = cz_g1_fb_table_()) || !(tab2 = cz_g2_fb_table_())) {
        rc = cz_error(CZ_ENOMEM, "snarkjs setup: out of memory for the fixed-base tables");
        goto done;
    }
    /* H: odd points of the 2n domain, L^(2n)_(2i+1)(tau) / delta. */
    if ((rc = lagrange_at(lag, &d2, &t->tau))) goto done;
    for (size_t i = 0; i < n; i++) cz_fr_mul(&k[i], &lag[2 * i + 1], &delta_inv);
    if ((rc = cz_g1_fb_mul_many_(z->h, tab1, k, n, nt))) goto done;

    if ((rc = lagrange_at(lag, &d, &t->tau))) goto done;
    cz_fr *at = col, *bt = col + nv, *ct = col + 2 * nv;
    eval_columns(at, &r->a, lag);
    eval_columns(bt, &r->b, lag);
    eval_columns(ct, &r->c, lag);
    if ((rc = cz_g1_fb_mul_many_(z->a, tab1, at, nv, nt)) || (rc = cz_g1_fb_mul_many_(z->b1, tab1, bt, nv, nt)) ||
        (rc = cz_g2_fb_mul_many_(z->b2, tab2, bt, nv, nt)))
        goto done;
    /* IC (s <= nPublic, gamma = 1) and C (private, / delta): beta*a + alpha*b + c. */
    for (size_t v = 0; v < nv; v++) {
        cz_fr e, x;
        cz_fr_mul(&e, &at[v], &t->beta);
        cz_fr_mul(&x, &bt[v], &t->alpha);
        cz_fr_add(&e, &e, &x);
        cz_fr_add(&e, &e, &ct[v]);
        if (v >= ni) cz_fr_mul(&e, &e, &delta_inv);
        k[v] = e;
    }
    if ((rc = cz_g1_fb_mul_many_(z->ic, tab1, k, ni, nt)) || (rc = cz_g1_fb_mul_many_(z->c, tab1, k + ni, nv - ni, nt)))
        goto done;
    const cz_fr one = CZ_FR_ONE_V;
    cz_g1_fb_mul1_(&z->alpha1, tab1, &t->alpha);
    cz_g1_fb_mul1_(&z->beta1, tab1, &t->beta);
    cz_g2_fb_mul1_(&z->beta2, tab2, &t->beta);
    cz_g2_fb_mul1_(&z->gamma2, tab2, &one);
    cz_g1_fb_mul1_(&z->delta1, tab1, &t->delta);
    cz_g2_fb_mul1_(&z->delta2, tab2, &t->delta);
    rc = 0;
done:
    free(tab1);
    free(tab2);
    free(lag);
    free(col);
    free(k);
    if (rc) cz_snarkjs_zkey_free(z);
    return rc;
}
