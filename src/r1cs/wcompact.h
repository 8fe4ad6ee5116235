/* Compact witness: most aux values of the Filecoin circuits are bits (a 32 GiB PoRep partition has
 * 130 M aux, ~97 % of them 0 or 1), so storing 32 bytes per value (4.2 GB) is what limits memory and
 * the host-to-GPU upload. Here value i is described by two bitmaps, is_bit (value is 0 or 1) and bit
 * (which one), and the other values are kept densely, in order: value i is dense[rank(i)], rank(i)
 * = number of clear is_bit bits before i. Classification is by value, so the representation is
 * lossless for any vector; a witness-mode cs writes it directly (cz_cs_set_compact_aux) without ever
 * holding the 32-byte form. The bitmaps are also the 0/1 split an MSM wants (skip zeros, add the
 * ones' bases without a scalar multiplication). */
#ifndef CZ_R1CS_WCOMPACT_H
#define CZ_R1CS_WCOMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "cz_error.h"
#include "ff/fr.h"

typedef struct cz_wcompact {
    uint64_t n, n_dense;   /* values, and how many of them are neither 0 nor 1 */
    uint64_t *is_bit, *bit; /* ceil(n / 64) words each, bit i of word i / 64 (LSB first) */
    cz_fr *dense;          /* n_dense values */
    uint64_t cap, dense_cap;
} cz_wcompact;

/* An empty vector (no allocation). */
static inline void cz_wcompact_init(cz_wcompact *w) { *w = (cz_wcompact){0}; }
void cz_wcompact_free(cz_wcompact *w);
/* Capacity for n values of which n_dense are dense (hints; growth is automatic). 0 or CZ_ENOMEM. */
int cz_wcompact_reserve(cz_wcompact *w, uint64_t n, uint64_t n_dense);
/* Empties w, keeping its storage. */
static inline void cz_wcompact_clear(cz_wcompact *w) { w->n = w->n_dense = 0; }

int cz_wcompact_grow_(cz_wcompact *w, int dense);

/* 1 when *v is 0 or 1 (*one: 1 when it is 1), without branches. */
static inline uint64_t cz_wcompact_kind_(const cz_fr *v, uint64_t *one) {
    uint64_t any = 0, diff1 = 0;
    for (int i = 0; i < 4; i++) any |= v->l[i], diff1 |= v->l[i] ^ CZ_FR_ONE_V.l[i];
    *one = diff1 == 0;
    return (uint64_t)(any == 0) | *one;
}

/* Appends one value. 0 or CZ_ENOMEM. Branch-free for 0 / 1: the bits of a SHA-256 circuit are
 * random, and a data-dependent branch per value mispredicts about half the time. */
static inline int cz_wcompact_push(cz_wcompact *w, const cz_fr *v) {
    if (w->n == w->cap && cz_wcompact_grow_(w, 0)) return CZ_ENOMEM;
    uint64_t wi = w->n >> 6, sh = w->n & 63;
    if (!sh) w->is_bit[wi] = w->bit[wi] = 0;
    uint64_t one, isb = cz_wcompact_kind_(v, &one);
    w->is_bit[wi] |= isb << sh;
    w->bit[wi] |= one << sh;
    if (__builtin_expect(!isb, 0)) {
        if (w->n_dense == w->dense_cap && cz_wcompact_grow_(w, 1)) return CZ_ENOMEM;
        w->dense[w->n_dense++] = *v;
    }
    w->n++;
    return 0;
}

/* Appends every value of src to dst (bitmaps shifted to dst's length). 0 or CZ_ENOMEM. */
int cz_wcompact_append(cz_wcompact *dst, const cz_wcompact *src);
/* Appends n dense values. 0 or CZ_ENOMEM. */
int cz_wcompact_from_dense(cz_wcompact *w, const cz_fr *v, uint64_t n);
/* Values first .. first + count - 1 as 32-byte Fr (e.g. one upload chunk). 0 or CZ_ERANGE. */
int cz_wcompact_to_dense(const cz_wcompact *w, uint64_t first, uint64_t count, cz_fr *out);
/* Gives back the storage past n values (growth leaves up to half the dense part spare). */
void cz_wcompact_shrink(cz_wcompact *w);
/* All n values as a malloc'ed 32-byte array (*out; free it). CZ_EFORMAT when the bitmap's count of
 * non-bits disagrees with n_dense (the expansion would read past the dense values), CZ_ENOMEM. */
int cz_wcompact_expand(const cz_wcompact *w, cz_fr **out);
/* Dense values before value i (a popcount scan of the bitmap). */
uint64_t cz_wcompact_rank(const cz_wcompact *w, uint64_t i);
/* Bytes the representation needs: two bitmaps and the dense values. */
static inline uint64_t cz_wcompact_bytes(const cz_wcompact *w) {
    return 2 * 8 * ((w->n + 63) / 64) + w->n_dense * sizeof(cz_fr);
}

#endif
