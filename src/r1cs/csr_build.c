#include "r1cs/csr_build.h"

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "util/mem.h"

static int term_cmp(const void *x, const void *y) {
    uint32_t a = ((const cz_lc_term *)x)->var.id, b = ((const cz_lc_term *)y)->var.id;
    return (a > b) - (a < b);
}

/* Gadget LCs are mostly a few terms, often already in order: insertion sort wins there. */
static void insertion_sort(cz_lc_term *t, size_t n) {
    for (size_t i = 1; i < n; i++) {
        if (t[i - 1].var.id <= t[i].var.id) continue;
        cz_lc_term x = t[i];
        size_t j = i;
        while (j > 0 && t[j - 1].var.id > x.var.id) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = x;
    }
}

/* Longer ones (Poseidon's linear layers: 20 % of a Window PoSt recording went to qsort and its comparator
 * calls): runs of 16 by insertion, then bottom-up merges with the comparison inline. Equal ids may end in
 * another order than qsort's; normalize only sums them, so the result is the same. */
static void merge_sort(cz_lc_term *t, size_t n) {
    enum { RUN = 16, STACK = 256 };
    cz_lc_term stack[STACK], *tmp = n <= STACK ? stack : malloc(n * sizeof *tmp);
    if (!tmp) {
        qsort(t, n, sizeof *t, term_cmp);
        return;
    }
    for (size_t lo = 0; lo < n; lo += RUN) insertion_sort(t + lo, n - lo < RUN ? n - lo : RUN);
    cz_lc_term *src = t, *dst = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            const size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = src[j].var.id < src[i].var.id ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        cz_lc_term *x = src;
        src = dst, dst = x;
    }
    if (src != t) memcpy(t, src, n * sizeof *t);
    if (tmp != stack) free(tmp);
}

size_t cz_lc_terms_normalize(cz_lc_term *t, size_t n) {
    if (n <= 32) insertion_sort(t, n);
    else merge_sort(t, n);
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        cz_lc_term acc = t[i++];
        while (i < n && t[i].var.id == acc.var.id) cz_fr_add(&acc.coeff, &acc.coeff, &t[i++].coeff);
        if (!cz_fr_is_zero(&acc.coeff)) t[out++] = acc;
    }
    return out;
}

static int reserve(cz_csr_builder *b, uint64_t rows, uint64_t nnz, bool huge) {
    if (rows + 1 > b->row_cap) {
        uint64_t *p = realloc(b->row_ptr, (rows + 1) * sizeof *p);
        if (!p) return cz_error(CZ_ENOMEM, "csr: cannot reserve %llu rows", (unsigned long long)rows);
        if (!b->row_ptr) p[0] = 0;
        if (huge) cz_advise_hugepages(p, (rows + 1) * sizeof *p);
        b->row_ptr = p;
        b->row_cap = rows + 1;
    }
    if (nnz > b->nnz_cap) {
        uint32_t *c = realloc(b->col, nnz * sizeof *c);
        if (!c) return cz_error(CZ_ENOMEM, "csr: cannot reserve %llu terms", (unsigned long long)nnz);
        if (huge) cz_advise_hugepages(c, nnz * sizeof *c);
        b->col = c;
        cz_fr *v = realloc(b->val, nnz * sizeof *v);
        if (!v) return cz_error(CZ_ENOMEM, "csr: cannot reserve %llu terms", (unsigned long long)nnz);
        if (huge) cz_advise_hugepages(v, nnz * sizeof *v);
        b->val = v;
        b->nnz_cap = nnz;
    }
    return 0;
}

/* Only explicit reservations get the huge-page hint: on blocks that later grow by realloc it made
 * record mode slower (mremap of huge-page regions), while a right-sized block gained 2-4x. */
int cz_csr_builder_reserve(cz_csr_builder *b, uint64_t rows, uint64_t nnz) {
    return b->count_only ? 0 : reserve(b, rows, nnz, true); /* a counting builder stores nothing */
}

int cz_csr_builder_push(cz_csr_builder *b, const cz_lc_term *t, size_t n) {
    if (b->count_only) {
        b->rows++, b->nnz += n;
        return 0;
    }
    if (b->rows + 2 > b->row_cap || b->nnz + n > b->nnz_cap) {
        if (b->fixed) {
            b->overflowed = true;
            return cz_error(CZ_ERANGE, "csr: a block's rows overflow its slot");
        }
        uint64_t rows = b->rows + 2 > b->row_cap ? (b->row_cap < 1024 ? 1024 : b->row_cap * 2) : b->row_cap;
        uint64_t nnz = b->nnz + n > b->nnz_cap ? b->nnz_cap * 2 + n + 1024 : b->nnz_cap;
        int rc = reserve(b, rows, nnz, false);
        if (rc) return rc;
    }
    for (size_t i = 0; i < n; i++) {
        b->col[b->nnz + i] = t[i].var.id;
        b->val[b->nnz + i] = t[i].coeff;
    }
    b->nnz += n;
    b->row_ptr[++b->rows] = b->nnz;
    return 0;
}

void cz_csr_builder_finish(cz_csr_builder *b, cz_csr *m) {
    if (!b->row_ptr) {
        /* No row was ever pushed: still hand out a valid row_ptr = {0}. */
        b->row_ptr = calloc(1, sizeof *b->row_ptr);
    }
    m->rows = b->rows;
    m->row_ptr = b->row_ptr;
    /* Shrinking never fails in practice; keep the larger block if it does. */
    uint32_t *c = b->nnz ? realloc(b->col, b->nnz * sizeof *c) : NULL;
    cz_fr *v = b->nnz ? realloc(b->val, b->nnz * sizeof *v) : NULL;
    if (!b->nnz) {
        free(b->col);
        free(b->val);
    }
    m->col = c ? c : (b->nnz ? b->col : NULL);
    m->val = v ? v : (b->nnz ? b->val : NULL);
    memset(b, 0, sizeof *b);
}

void cz_csr_builder_free(cz_csr_builder *b) {
    if (b->fixed) {
        memset(b, 0, sizeof *b);
        return;
    }
    free(b->row_ptr);
    free(b->col);
    free(b->val);
    memset(b, 0, sizeof *b);
}
