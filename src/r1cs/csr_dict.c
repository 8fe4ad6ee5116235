#include "r1cs/csr_dict.h"

#include <omp.h>
#include <stdbool.h>
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

/* The distinct values of vals[0..n) in order of first use into *uniq (*nu of them, grown by realloc) and each
 * one's index into idx[0..n). 0, -1 (out of memory) or -2 (2^32 - 1 or more distinct values). */
static int dict_build(const cz_fr *vals, uint64_t n, uint32_t *idx, cz_fr **uniq, uint64_t *nu) {
    uint64_t ncap = 64, u = 0;
    coef_set set = {NULL, 0};
    cz_fr *q = malloc(ncap * sizeof *q);
    *uniq = NULL, *nu = 0;
    if (!q || set_grow(&set, NULL, 128)) goto oom;
    for (uint64_t k = 0; k < n; k++) {
        const cz_fr *v = &vals[k];
        uint64_t j = coef_hash(v) & set.mask;
        while (set.slots[j] && !cz_fr_equal(&q[set.slots[j] - 1], v)) j = (j + 1) & set.mask;
        if (set.slots[j]) {
            idx[k] = set.slots[j] - 1;
            continue;
        }
        if (u >= UINT32_MAX - 1) {
            free(set.slots);
            free(q);
            return -2;
        }
        if (u == ncap) {
            cz_fr *c = realloc(q, 2 * ncap * sizeof *c);
            if (!c) goto oom;
            q = c;
            ncap *= 2;
        }
        q[u] = *v;
        idx[k] = (uint32_t)u;
        set.slots[j] = (uint32_t)++u;
        if (2 * u > set.mask && set_grow(&set, q, 2 * (set.mask + 1))) goto oom;
    }
    free(set.slots);
    *uniq = q, *nu = u;
    return 0;
oom:
    free(set.slots);
    free(q);
    return -1;
}

/* structure: copy m's row_ptr and col (else they stay NULL: the caller reads m's) */
static int code_par(cz_csr_dict *out, const cz_csr *m, int nthreads, uint64_t min_slice, bool structure) {
    memset(out, 0, sizeof *out);
    const uint64_t nnz = cz_r1cs_nnz(m);
    out->rows = m->rows;
    if (structure) {
        out->row_ptr = malloc((m->rows + 1) * sizeof *out->row_ptr);
        out->col = malloc((nnz ? nnz : 1) * sizeof *out->col);
        if (!out->row_ptr || !out->col) goto oom;
        if (m->rows) memcpy(out->row_ptr, m->row_ptr, (m->rows + 1) * sizeof *out->row_ptr);
        else out->row_ptr[0] = 0;
        if (nnz) memcpy(out->col, m->col, nnz * sizeof *out->col);
    }
    out->coef = malloc((nnz ? nnz : 1) * sizeof *out->coef);
    if (!out->coef) goto oom;
    if (m->coef) { /* coded already: its coding */
        out->coeffs = malloc((m->ncoeffs ? m->ncoeffs : 1) * sizeof *out->coeffs);
        if (!out->coeffs) goto oom;
        if (nnz) memcpy(out->coef, m->coef, nnz * sizeof *out->coef);
        if (m->ncoeffs) memcpy(out->coeffs, m->coeffs, m->ncoeffs * sizeof *out->coeffs);
        out->ncoeffs = m->ncoeffs;
        return 0;
    }
    /* slices of the terms coded on their own (local indices), in parallel; then their distinct values merged in
     * slice order, which keeps the order of first use, so the result equals the one-slice coding exactly */
    int T = nthreads > 0 ? nthreads : omp_get_max_threads();
    if (min_slice < 1) min_slice = 1;
    if ((uint64_t)T > nnz / min_slice) T = (int)(nnz / min_slice);
    if (T < 1) T = 1;
    cz_fr **uq = calloc((size_t)T, sizeof *uq);
    uint64_t *nu = calloc((size_t)T, sizeof *nu);
    int *err = calloc((size_t)T, sizeof *err);
    if (!uq || !nu || !err) {
        free(uq), free(nu), free(err);
        goto oom;
    }
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (int t = 0; t < T; t++) {
        const uint64_t lo = nnz * (uint64_t)t / (uint64_t)T, hi = nnz * (uint64_t)(t + 1) / (uint64_t)T;
        err[t] = dict_build(m->val + lo, hi - lo, out->coef + lo, &uq[t], &nu[t]);
    }
    int rc = 0;
    for (int t = 0; t < T; t++) rc = rc ? rc : err[t];
    uint64_t tot = 0;
    for (int t = 0; t < T && !rc; t++) tot += nu[t];
    cz_fr *all = NULL;
    uint32_t *map = NULL;
    uint64_t *off = NULL;
    if (!rc && T == 1) { /* one slice: its coding is the result */
        out->coeffs = uq[0], uq[0] = NULL;
        tot = nu[0];
    } else if (!rc) {
        all = malloc((tot ? tot : 1) * sizeof *all);
        map = malloc((tot ? tot : 1) * sizeof *map);
        off = malloc(((size_t)T + 1) * sizeof *off);
        rc = all && map && off ? 0 : -1;
        for (uint64_t t = 0, o = 0; !rc && t < (uint64_t)T; o += nu[t], t++) memcpy(all + o, uq[t], nu[t] * sizeof *all);
        uint64_t g = 0;
        if (!rc) rc = dict_build(all, tot, map, &out->coeffs, &g);
        if (!rc) {
            off[0] = 0;
            for (int t = 0; t < T; t++) off[t + 1] = off[t] + nu[t];
#pragma omp parallel for num_threads(T) schedule(static, 1)
            for (int t = 0; t < T; t++) {
                const uint64_t lo = nnz * (uint64_t)t / (uint64_t)T, hi = nnz * (uint64_t)(t + 1) / (uint64_t)T;
                for (uint64_t k = lo; k < hi; k++) out->coef[k] = map[off[t] + out->coef[k]];
            }
            tot = g;
        }
    }
    for (int t = 0; t < T; t++) free(uq[t]);
    free(uq), free(nu), free(err), free(all), free(map), free(off);
    if (rc == -2) {
        cz_csr_dict_free(out);
        return cz_error(CZ_ERANGE, "csr dict: more than 2^32 distinct coefficients");
    }
    if (rc) goto oom;
    out->ncoeffs = (uint32_t)tot;
    return 0;
oom:
    cz_csr_dict_free(out);
    return cz_error(CZ_ENOMEM, "csr dict: out of memory for %llu terms", (unsigned long long)nnz);
}

int cz_csr_dict_from_csr_par(cz_csr_dict *out, const cz_csr *m, int nthreads, uint64_t min_slice) {
    return code_par(out, m, nthreads, min_slice, true);
}

int cz_csr_dict_from_csr(cz_csr_dict *out, const cz_csr *m) {
    return cz_csr_dict_from_csr_par(out, m, 0, (uint64_t)1 << 20);
}

int cz_csr_dict_coefs(cz_csr_dict *out, const cz_csr *m, int nthreads, uint64_t min_slice) {
    return code_par(out, m, nthreads, min_slice, false);
}

void cz_csr_dict_free(cz_csr_dict *d) {
    free(d->row_ptr);
    free(d->col);
    if (!d->borrowed) {
        free(d->coef);
        free(d->coeffs);
    }
    memset(d, 0, sizeof *d);
}

int cz_csr_dict_borrow(cz_csr_dict *out, const cz_csr *m) {
    memset(out, 0, sizeof *out);
    if (!m->coef) return cz_error(CZ_EINVAL, "csr dict: the matrix is not coded");
    out->rows = m->rows;
    out->coef = m->coef, out->coeffs = m->coeffs, out->ncoeffs = m->ncoeffs;
    out->borrowed = true;
    return 0;
}

void cz_csr_dict_mul_vec(cz_fr *out, const cz_csr_dict *d, uint64_t ni, const cz_fr *inputs, const cz_fr *aux,
                         int nthreads) {
    /* a coded matrix over the dictionary's structure: r1cs.c's coded rows */
    const cz_csr m = {d->rows, d->row_ptr, d->col, NULL, d->coef, d->coeffs, d->ncoeffs};
    cz_csr_mul_vec(out, &m, ni, inputs, aux, nthreads);
}
