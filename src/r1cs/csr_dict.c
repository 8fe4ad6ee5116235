#include "r1cs/csr_dict.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"

/* Open-addressing set of coefficients (slot = index + 1, 0 = empty), kept at most half full. */
typedef struct {
    uint32_t *slots;
    uint64_t mask;
} coef_set;

static uint64_t coef_hash(const cz_fr *x) {
    uint64_t h = x->l[0] ^ (x->l[1] * 0x9e3779b97f4a7c15ull) ^ (x->l[2] >> 7) ^ (x->l[3] << 3);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static int set_grow(coef_set *s, const cz_fr *vals, uint64_t cap) {
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (uint64_t i = 0; s->slots && i <= s->mask; i++) {
        if (!s->slots[i]) continue;
        uint64_t j = coef_hash(&vals[s->slots[i] - 1]) & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->mask = cap - 1;
    return 0;
}

int cz_csr_dict_from_csr(cz_csr_dict *out, const cz_csr *m) {
    memset(out, 0, sizeof *out);
    uint64_t nnz = cz_r1cs_nnz(m), ncap = 64, n = 0;
    coef_set set = {NULL, 0};
    out->rows = m->rows;
    out->row_ptr = malloc((m->rows + 1) * sizeof *out->row_ptr);
    out->col = malloc((nnz ? nnz : 1) * sizeof *out->col);
    out->coef = malloc((nnz ? nnz : 1) * sizeof *out->coef);
    out->coeffs = malloc(ncap * sizeof *out->coeffs);
    if (!out->row_ptr || !out->col || !out->coef || !out->coeffs || set_grow(&set, NULL, 128)) goto oom;
    if (m->rows) memcpy(out->row_ptr, m->row_ptr, (m->rows + 1) * sizeof *out->row_ptr);
    else out->row_ptr[0] = 0;
    if (nnz) memcpy(out->col, m->col, nnz * sizeof *out->col);
    for (uint64_t k = 0; k < nnz; k++) {
        const cz_fr *v = &m->val[k];
        uint64_t j = coef_hash(v) & set.mask;
        while (set.slots[j] && !cz_fr_equal(&out->coeffs[set.slots[j] - 1], v)) j = (j + 1) & set.mask;
        if (set.slots[j]) {
            out->coef[k] = set.slots[j] - 1;
            continue;
        }
        if (n >= UINT32_MAX - 1) {
            free(set.slots);
            cz_csr_dict_free(out);
            return cz_error(CZ_ERANGE, "csr dict: more than 2^32 distinct coefficients");
        }
        if (n == ncap) {
            cz_fr *c = realloc(out->coeffs, 2 * ncap * sizeof *c);
            if (!c) goto oom;
            out->coeffs = c;
            ncap *= 2;
        }
        out->coeffs[n] = *v;
        out->coef[k] = (uint32_t)n;
        set.slots[j] = (uint32_t)++n;
        if (2 * n > set.mask && set_grow(&set, out->coeffs, 2 * (set.mask + 1))) goto oom;
    }
    out->ncoeffs = (uint32_t)n;
    free(set.slots);
    return 0;
oom:
    free(set.slots);
    cz_csr_dict_free(out);
    return cz_error(CZ_ENOMEM, "csr dict: out of memory for %llu terms", (unsigned long long)nnz);
}

void cz_csr_dict_free(cz_csr_dict *d) {
    free(d->row_ptr);
    free(d->col);
    free(d->coef);
    free(d->coeffs);
    memset(d, 0, sizeof *d);
}

void cz_csr_dict_mul_vec(cz_fr *out, const cz_csr_dict *d, uint64_t ni, const cz_fr *inputs, const cz_fr *aux,
                         int nthreads) {
    int64_t rows = (int64_t)d->rows;
#pragma omp parallel for num_threads(nthreads > 0 ? nthreads : omp_get_max_threads()) schedule(dynamic, 4096)
    for (int64_t i = 0; i < rows; i++) {
        cz_fr acc = CZ_FR_ZERO_V, t;
        for (uint64_t k = d->row_ptr[i]; k < d->row_ptr[i + 1]; k++) {
            uint64_t c = d->col[k];
            cz_fr_mul(&t, &d->coeffs[d->coef[k]], c < ni ? &inputs[c] : &aux[c - ni]);
            cz_fr_add(&acc, &acc, &t);
        }
        out[i] = acc;
    }
}
