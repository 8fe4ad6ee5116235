/* Compact witness vectors; see wcompact.h. */
#include "r1cs/wcompact.h"

#include <stdlib.h>
#include <string.h>

void cz_wcompact_free(cz_wcompact *w) {
    free(w->is_bit), free(w->bit), free(w->dense);
    cz_wcompact_init(w);
}

static int grow_bits(cz_wcompact *w, uint64_t want) {
    if (want <= w->cap) return 0;
    want = (want + 63) & ~63ull;
    size_t words = (size_t)(want / 64);
    uint64_t *a = realloc(w->is_bit, words * 8);
    if (a) w->is_bit = a;
    uint64_t *b = a ? realloc(w->bit, words * 8) : NULL;
    if (!b) return cz_error(CZ_ENOMEM, "wcompact: out of memory for %llu values", (unsigned long long)want);
    w->bit = b;
    w->cap = want;
    return 0;
}

static int grow_dense(cz_wcompact *w, uint64_t want) {
    if (want <= w->dense_cap) return 0;
    cz_fr *d = realloc(w->dense, want * sizeof *d);
    if (!d) return cz_error(CZ_ENOMEM, "wcompact: out of memory for %llu dense values", (unsigned long long)want);
    w->dense = d;
    w->dense_cap = want;
    return 0;
}

int cz_wcompact_reserve(cz_wcompact *w, uint64_t n, uint64_t n_dense) {
    int rc = grow_bits(w, n);
    return rc ? rc : grow_dense(w, n_dense);
}

int cz_wcompact_grow_(cz_wcompact *w, int dense) {
    if (dense) return grow_dense(w, w->dense_cap < 1024 ? 1024 : w->dense_cap + w->dense_cap / 2);
    return grow_bits(w, w->cap < 4096 ? 4096 : w->cap + w->cap / 2);
}

/* dst bits [at, at + n) = src bits [0, n) (src bits past n are ignored); dst bits past at + n in
 * the last word are cleared, as cz_wcompact_push expects. */
static void put_bits(uint64_t *dst, uint64_t at, const uint64_t *src, uint64_t n) {
    uint64_t words = (n + 63) / 64, sh = at & 63, w0 = at >> 6, end = (at + n + 63) / 64;
    dst[w0] &= sh ? (1ull << sh) - 1 : 0;
    for (uint64_t k = w0 + 1; k < end; k++) dst[k] = 0;
    for (uint64_t i = 0; i < words; i++) {
        uint64_t v = src[i];
        if (i == words - 1 && (n & 63)) v &= (1ull << (n & 63)) - 1;
        dst[w0 + i] |= v << sh;
        if (sh && w0 + i + 1 < end) dst[w0 + i + 1] |= v >> (64 - sh);
    }
}

int cz_wcompact_append(cz_wcompact *dst, const cz_wcompact *src) {
    if (!src->n) return 0;
    uint64_t want = dst->n + src->n;
    int rc = want > dst->cap ? grow_bits(dst, want > dst->cap * 3 / 2 ? want : dst->cap * 3 / 2) : 0;
    uint64_t need = dst->n_dense + src->n_dense; /* geometric: appends come one part at a time */
    if (!rc && need > dst->dense_cap) rc = grow_dense(dst, need > dst->dense_cap * 3 / 2 ? need : dst->dense_cap * 3 / 2);
    if (rc) return rc;
    put_bits(dst->is_bit, dst->n, src->is_bit, src->n);
    put_bits(dst->bit, dst->n, src->bit, src->n);
    if (src->n_dense) memcpy(dst->dense + dst->n_dense, src->dense, src->n_dense * sizeof(cz_fr));
    dst->n += src->n;
    dst->n_dense += src->n_dense;
    return 0;
}

/* An empty w from n dense values on all threads: each 64-value word's bitmaps and dense count, their prefix
 * sums, then each word's dense values to its place (a 32 GiB Window PoSt partition's 127 M values, ~99 % dense,
 * went value by value through cz_wcompact_push on one thread). */
static int from_dense_par(cz_wcompact *w, const cz_fr *v, uint64_t n) {
    const int64_t nw = (int64_t)((n + 63) / 64);
    uint64_t *off = malloc(((size_t)nw + 1) * sizeof *off);
    int rc = off ? grow_bits(w, n) : cz_error(CZ_ENOMEM, "wcompact: out of memory for %llu values",
                                             (unsigned long long)n);
    if (rc) {
        free(off);
        return rc;
    }
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < nw; k++) {
        uint64_t isb = 0, one = 0;
        const uint64_t lo = (uint64_t)k * 64, hi = lo + 64 < n ? lo + 64 : n;
        for (uint64_t i = lo; i < hi; i++) {
            uint64_t o;
            isb |= cz_wcompact_kind_(&v[i], &o) << (i - lo);
            one |= o << (i - lo);
        }
        w->is_bit[k] = isb, w->bit[k] = one;
        off[k + 1] = (hi - lo) - (uint64_t)__builtin_popcountll(isb);
    }
    off[0] = 0;
    for (int64_t k = 0; k < nw; k++) off[k + 1] += off[k];
    rc = grow_dense(w, off[nw]);
    if (!rc) {
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < nw; k++) {
            uint64_t d = off[k];
            const uint64_t lo = (uint64_t)k * 64, hi = lo + 64 < n ? lo + 64 : n;
            for (uint64_t i = lo; i < hi; i++)
                if (!(w->is_bit[k] >> (i - lo) & 1)) w->dense[d++] = v[i];
        }
        w->n = n, w->n_dense = off[nw];
    }
    free(off);
    return rc;
}

int cz_wcompact_from_dense(cz_wcompact *w, const cz_fr *v, uint64_t n) {
    if (!w->n && n >= 4096) return from_dense_par(w, v, n);
    for (uint64_t i = 0; i < n; i++) {
        int rc = cz_wcompact_push(w, &v[i]);
        if (rc) return rc;
    }
    return 0;
}

uint64_t cz_wcompact_rank(const cz_wcompact *w, uint64_t i) {
    uint64_t r = 0, full = i / 64;
    for (uint64_t k = 0; k < full; k++) r += 64 - (uint64_t)__builtin_popcountll(w->is_bit[k]);
    if (i & 63) r += (i & 63) - (uint64_t)__builtin_popcountll(w->is_bit[full] & ((1ull << (i & 63)) - 1));
    return r;
}

int cz_wcompact_to_dense(const cz_wcompact *w, uint64_t first, uint64_t count, cz_fr *out) {
    if (first > w->n || count > w->n - first)
        return cz_error(CZ_ERANGE, "wcompact: values %llu..%llu of %llu", (unsigned long long)first,
                        (unsigned long long)(first + count), (unsigned long long)w->n);
    uint64_t d = cz_wcompact_rank(w, first);
    for (uint64_t i = first; i < first + count; i++) {
        uint64_t m = 1ull << (i & 63);
        if (w->is_bit[i >> 6] & m) *out++ = (w->bit[i >> 6] & m) ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
        else *out++ = w->dense[d++];
    }
    return 0;
}

int cz_wcompact_expand(const cz_wcompact *w, cz_fr **out) {
    *out = NULL;
    if (cz_wcompact_rank(w, w->n) != w->n_dense)
        return cz_error(CZ_EFORMAT, "wcompact: the bitmap has %llu non-bits, n_dense is %llu",
                        (unsigned long long)cz_wcompact_rank(w, w->n), (unsigned long long)w->n_dense);
    cz_fr *d = malloc((w->n ? w->n : 1) * sizeof *d);
    if (!d) return cz_error(CZ_ENOMEM, "wcompact: out of memory expanding %llu values", (unsigned long long)w->n);
    int rc = cz_wcompact_to_dense(w, 0, w->n, d);
    if (rc) free(d);
    else *out = d;
    return rc;
}

void cz_wcompact_shrink(cz_wcompact *w) {
    /* A failed shrinking realloc keeps the old block; cap is the smaller of the two bitmaps' sizes, so
     * it becomes `want` as soon as is_bit has shrunk, whatever happens to bit. */
    uint64_t want = (w->n + 63) & ~63ull;
    if (want && want < w->cap) {
        uint64_t *a = realloc(w->is_bit, want / 8);
        if (a) {
            w->is_bit = a, w->cap = want;
            uint64_t *b = realloc(w->bit, want / 8);
            if (b) w->bit = b;
        }
    }
    if (w->n_dense && w->n_dense < w->dense_cap) {
        cz_fr *d = realloc(w->dense, w->n_dense * sizeof *d);
        if (d) w->dense = d, w->dense_cap = w->n_dense;
    }
}
