/* Fp2 = Fp[u]/(u^2 + 1), element c0 + c1*u. Hot operations are inline. Outputs may alias inputs. */
#ifndef CZ_FF_FP2_H
#define CZ_FF_FP2_H

#include "ff/fp.h"

typedef struct { cz_fp c0, c1; } cz_fp2;

static inline void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp_add(&r->c0, &a->c0, &b->c0);
    cz_fp_add(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp_sub(&r->c0, &a->c0, &b->c0);
    cz_fp_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp_neg(&r->c0, &a->c0);
    cz_fp_neg(&r->c1, &a->c1);
}
static inline void cz_fp2_double(cz_fp2 *r, const cz_fp2 *a) { cz_fp2_add(r, a, a); }
static inline bool cz_fp2_is_zero(const cz_fp2 *a) { return cz_fp_is_zero(&a->c0) && cz_fp_is_zero(&a->c1); }
static inline bool cz_fp2_equal(const cz_fp2 *a, const cz_fp2 *b) {
    return cz_fp_equal(&a->c0, &b->c0) && cz_fp_equal(&a->c1, &b->c1);
}
/* Karatsuba: 3 Fp multiplications. */
static inline void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp t0, t1, s0, s1;
    cz_fp_mul(&t0, &a->c0, &b->c0);
    cz_fp_mul(&t1, &a->c1, &b->c1);
    cz_fp_add(&s0, &a->c0, &a->c1);
    cz_fp_add(&s1, &b->c0, &b->c1);
    cz_fp_mul(&s0, &s0, &s1);
    cz_fp_sub(&s0, &s0, &t0);
    cz_fp_sub(&r->c1, &s0, &t1);
    cz_fp_sub(&r->c0, &t0, &t1);
}
/* (c0 + c1 u)^2 = (c0+c1)(c0-c1) + 2 c0 c1 u: 2 Fp multiplications. */
static inline void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp s, d, m;
    cz_fp_add(&s, &a->c0, &a->c1);
    cz_fp_sub(&d, &a->c0, &a->c1);
    cz_fp_mul(&m, &a->c0, &a->c1);
    cz_fp_mul(&r->c0, &s, &d);
    cz_fp_add(&r->c1, &m, &m);
}
static inline void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b) {
    cz_fp_mul(&r->c0, &a->c0, b);
    cz_fp_mul(&r->c1, &a->c1, b);
}
/* Multiply by the Fp6 non-residue u + 1: (c0 - c1) + (c0 + c1) u. */
static inline void cz_fp2_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp t;
    cz_fp_sub(&t, &a->c0, &a->c1);
    cz_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}
/* Conjugate c0 - c1 u, which is also the p-power Frobenius. */
static inline void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a) {
    r->c0 = a->c0;
    cz_fp_neg(&r->c1, &a->c1);
}

static const cz_fp2 CZ_FP2_ZERO_V = {{{0}}, {{0}}};
static const cz_fp2 CZ_FP2_ONE_V = {{CZ_FP_R}, {{0}}};

int cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a);
/* A square root; returns 0, or CZ_EINVAL when a is not a square. */
int cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t n);
/* ZCash sign for G2 y: compares c1 first, c0 when c1 = 0. */
bool cz_fp2_is_lexicographically_largest(const cz_fp2 *a);
void cz_fp2_random(cz_fp2 *r, cz_rng *rng);

#endif
