#include "r1cs/r1cs.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/csr_dict.h"

static void csr_free(cz_csr *m) {
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    free(m->coef);
    free(m->coeffs);
    memset(m, 0, sizeof *m);
}

void cz_r1cs_free(cz_r1cs *r) {
    csr_free(&r->a);
    csr_free(&r->b);
    csr_free(&r->c);
    free(r->a_aux_density);
    free(r->b_input_density);
    free(r->b_aux_density);
    memset(r, 0, sizeof *r);
}

cz_r1cs_shape cz_r1cs_shape_of(const cz_r1cs *r) {
    return (cz_r1cs_shape){r->num_inputs, r->num_aux, r->num_constraints, r->num_rows,
                           {cz_r1cs_nnz(&r->a), cz_r1cs_nnz(&r->b), cz_r1cs_nnz(&r->c)}};
}

uint64_t cz_r1cs_shape_bytes(const cz_r1cs_shape *s) {
    uint64_t n = 0;
    for (int k = 0; k < 3; k++)
        n += (s->num_rows + 1) * sizeof(uint64_t) + s->nnz[k] * (sizeof(uint32_t) + sizeof(cz_fr));
    const uint64_t aux_words = (s->num_aux + 63) / 64, in_words = (s->num_inputs + 63) / 64;
    return n + (2 * aux_words + in_words) * sizeof(uint64_t); /* a_aux, b_aux, b_input */
}

uint64_t cz_r1cs_host_bytes(const cz_r1cs *r) {
    const cz_r1cs_shape s = cz_r1cs_shape_of(r);
    uint64_t n = cz_r1cs_shape_bytes(&s);
    const cz_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) /* a coded matrix: an index a term (not a value), and its distinct values */
        if (m[k]->coef) n = n - s.nnz[k] * (sizeof(cz_fr) - sizeof(uint32_t)) + (uint64_t)m[k]->ncoeffs * sizeof(cz_fr);
    return n;
}

int cz_r1cs_code(cz_r1cs *r, int nthreads) {
    cz_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) {
        if (m[k]->coef || !cz_r1cs_nnz(m[k])) continue;
        cz_csr_dict d;
        const int rc = cz_csr_dict_coefs(&d, m[k], nthreads, (uint64_t)1 << 20);
        if (rc == CZ_ERANGE) continue; /* 2^32 distinct values: as they are */
        if (rc) return rc;
        m[k]->coef = d.coef, m[k]->coeffs = d.coeffs, m[k]->ncoeffs = d.ncoeffs;
        free(m[k]->val);
        m[k]->val = NULL;
    }
    return 0;
}

static uint64_t popcount_words(const uint64_t *w, uint64_t nbits) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < (nbits + 63) / 64; i++) n += (uint64_t)__builtin_popcountll(w[i]);
    return n;
}

/* Most columns occur several times: look before the locked OR. */
static inline void set_bit(uint64_t *w, uint64_t bit) {
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

/* Marks column c's bit in inputs (c < ni) or aux (c >= ni); either map may be NULL. */
static void mark_columns(const cz_csr *m, uint64_t ni, uint64_t *inputs, uint64_t *aux) {
    const int64_t nnz = (int64_t)cz_r1cs_nnz(m);
    /* threads on large matrices (32 GiB PoRep's A: 309 M terms); neighbouring rows mostly use
     * neighbouring columns, so the atomic ORs rarely meet */
#pragma omp parallel for schedule(static) if (nnz > (1 << 22))
    for (int64_t k = 0; k < nnz; k++) {
        uint64_t c = m->col[k];
        if (c < ni) {
            if (inputs) set_bit(&inputs[c >> 6], 1ull << (c & 63));
        } else if (aux) {
            c -= ni;
            set_bit(&aux[c >> 6], 1ull << (c & 63));
        }
    }
}

int cz_r1cs_compute_densities(cz_r1cs *r) {
    uint64_t wa = (r->num_aux + 63) / 64, wi = (r->num_inputs + 63) / 64;
    free(r->a_aux_density);
    free(r->b_input_density);
    free(r->b_aux_density);
    /* +1 word so an empty bitmap is still a valid pointer. */
    r->a_aux_density = calloc(wa + 1, 8);
    r->b_input_density = calloc(wi + 1, 8);
    r->b_aux_density = calloc(wa + 1, 8);
    if (!r->a_aux_density || !r->b_input_density || !r->b_aux_density)
        return cz_error(CZ_ENOMEM, "r1cs: cannot allocate density bitmaps (%llu aux)",
                        (unsigned long long)r->num_aux);
    mark_columns(&r->a, r->num_inputs, NULL, r->a_aux_density);
    mark_columns(&r->b, r->num_inputs, r->b_input_density, r->b_aux_density);
    r->a_aux_popcount = popcount_words(r->a_aux_density, r->num_aux);
    r->b_input_popcount = popcount_words(r->b_input_density, r->num_inputs);
    r->b_aux_popcount = popcount_words(r->b_aux_density, r->num_aux);
    return 0;
}

static inline void row_dot(cz_fr *out, const cz_csr *m, uint64_t row, uint64_t ni, const cz_fr *inputs,
                           const cz_fr *aux) {
    static const cz_fr one = CZ_FR_ONE_V;
    cz_fr acc = CZ_FR_ZERO_V, t;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        uint64_t c = m->col[k];
        const cz_fr *x = c < ni ? &inputs[c] : &aux[c - ni];
        /* Most coefficients of real circuits are 1 (bits, copies): skip the multiplication. */
        if (cz_fr_equal(&m->val[k], &one)) {
            cz_fr_add(&acc, &acc, x);
        } else {
            cz_fr_mul(&t, &m->val[k], x);
            cz_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

/* The same over coded coefficients; one_at: the index of 1 among them (UINT32_MAX: none). */
static inline void row_dot_coded(cz_fr *out, const cz_csr *m, uint32_t one_at, uint64_t row, uint64_t ni,
                                 const cz_fr *inputs, const cz_fr *aux) {
    cz_fr acc = CZ_FR_ZERO_V, t;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        uint64_t c = m->col[k];
        const cz_fr *x = c < ni ? &inputs[c] : &aux[c - ni];
        const uint32_t q = m->coef[k];
        if (q == one_at) {
            cz_fr_add(&acc, &acc, x);
        } else {
            cz_fr_mul(&t, &m->coeffs[q], x);
            cz_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

/* The index of 1 among a coded matrix's coefficients (UINT32_MAX: none, or not coded). */
static uint32_t one_index(const cz_csr *m) {
    for (uint32_t q = 0; m->coef && q < m->ncoeffs; q++)
        if (cz_fr_equal(&m->coeffs[q], &CZ_FR_ONE_V)) return q;
    return UINT32_MAX;
}

/* Row `row` of m, coded or not (one_at: one_index(m)). */
static inline void row_any(cz_fr *out, const cz_csr *m, uint32_t one_at, uint64_t row, uint64_t ni,
                           const cz_fr *inputs, const cz_fr *aux) {
    if (m->coef) row_dot_coded(out, m, one_at, row, ni, inputs, aux);
    else row_dot(out, m, row, ni, inputs, aux);
}

static int threads_or_default(int nthreads) { return nthreads > 0 ? nthreads : omp_get_max_threads(); }

void cz_csr_mul_vec(cz_fr *out, const cz_csr *m, uint64_t ni, const cz_fr *inputs, const cz_fr *aux,
                    int nthreads) {
    int64_t rows = (int64_t)m->rows;
    const uint32_t one_at = one_index(m);
#pragma omp parallel for num_threads(threads_or_default(nthreads)) schedule(dynamic, 4096)
    for (int64_t i = 0; i < rows; i++) row_any(&out[i], m, one_at, (uint64_t)i, ni, inputs, aux);
}

void cz_r1cs_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_r1cs *r, const cz_fr *inputs, const cz_fr *aux,
                  int nthreads) {
    cz_csr_mul_vec(a, &r->a, r->num_inputs, inputs, aux, nthreads);
    cz_csr_mul_vec(b, &r->b, r->num_inputs, inputs, aux, nthreads);
    cz_csr_mul_vec(c, &r->c, r->num_inputs, inputs, aux, nthreads);
}

int cz_r1cs_check(uint64_t *bad_row, const cz_r1cs *r, const cz_fr *inputs, const cz_fr *aux, int nthreads) {
    if (r->num_inputs == 0 || !cz_fr_equal(&inputs[0], &CZ_FR_ONE_V))
        return cz_error(CZ_EINVAL, "r1cs check: witness value 0 (ONE) is not 1");
    int64_t rows = (int64_t)r->num_rows, first = rows;
    if (r->a.rows != r->num_rows || r->b.rows != r->num_rows || r->c.rows != r->num_rows)
        return cz_error(CZ_EINVAL, "r1cs check: matrices have %llu/%llu/%llu rows, expected %llu",
                        (unsigned long long)r->a.rows, (unsigned long long)r->b.rows,
                        (unsigned long long)r->c.rows, (unsigned long long)r->num_rows);
    const uint32_t oa = one_index(&r->a), ob = one_index(&r->b), oc = one_index(&r->c);
#pragma omp parallel for num_threads(threads_or_default(nthreads)) schedule(dynamic, 4096) reduction(min : first)
    for (int64_t i = 0; i < rows; i++) {
        if (i >= first) continue;
        cz_fr x, y, z;
        row_any(&x, &r->a, oa, (uint64_t)i, r->num_inputs, inputs, aux);
        row_any(&y, &r->b, ob, (uint64_t)i, r->num_inputs, inputs, aux);
        row_any(&z, &r->c, oc, (uint64_t)i, r->num_inputs, inputs, aux);
        cz_fr_mul(&x, &x, &y);
        if (!cz_fr_equal(&x, &z) && i < first) first = i;
    }
    if (first < rows) {
        if (bad_row) *bad_row = (uint64_t)first;
        return cz_error(CZ_EVERIFY, "r1cs check: constraint %lld of %lld is not satisfied (a*b != c)",
                        (long long)first, (long long)rows);
    }
    return 0;
}
