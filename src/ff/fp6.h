/* Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1; element c0 + c1 v + c2 v^2. Cheap linear operations are
 * inline; products, inverse and Frobenius live in fp6.c. Outputs may alias inputs. */
#ifndef CZ_FF_FP6_H
#define CZ_FF_FP6_H

#include "ff/fp2.h"

typedef struct { cz_fp2 c0, c1, c2; } cz_fp6;

static inline void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2_add(&r->c0, &a->c0, &b->c0);
    cz_fp2_add(&r->c1, &a->c1, &b->c1);
    cz_fp2_add(&r->c2, &a->c2, &b->c2);
}
static inline void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2_sub(&r->c0, &a->c0, &b->c0);
    cz_fp2_sub(&r->c1, &a->c1, &b->c1);
    cz_fp2_sub(&r->c2, &a->c2, &b->c2);
}
static inline void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a) {
    cz_fp2_neg(&r->c0, &a->c0);
    cz_fp2_neg(&r->c1, &a->c1);
    cz_fp2_neg(&r->c2, &a->c2);
}
static inline void cz_fp6_double(cz_fp6 *r, const cz_fp6 *a) { cz_fp6_add(r, a, a); }
static inline bool cz_fp6_is_zero(const cz_fp6 *a) {
    return cz_fp2_is_zero(&a->c0) && cz_fp2_is_zero(&a->c1) && cz_fp2_is_zero(&a->c2);
}
static inline bool cz_fp6_equal(const cz_fp6 *a, const cz_fp6 *b) {
    return cz_fp2_equal(&a->c0, &b->c0) && cz_fp2_equal(&a->c1, &b->c1) && cz_fp2_equal(&a->c2, &b->c2);
}
/* Multiply by v (the Fp12 non-residue): (c0, c1, c2) -> (xi c2, c0, c1). */
static inline void cz_fp6_mul_by_nonresidue(cz_fp6 *r, const cz_fp6 *a) {
    cz_fp2 t;
    cz_fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

static const cz_fp6 CZ_FP6_ZERO_V = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
static const cz_fp6 CZ_FP6_ONE_V = {{{CZ_FP_R}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};

void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a);
/* Sparse products for line evaluation: b = b0 + b1 v (mul_by_01) and b = b1 v (mul_by_1). */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1);
void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1);
void cz_fp6_mul_fp2(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b);
/* r = 1/a; returns 0, or CZ_EINVAL when a = 0 (then r = 0). */
int cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a);
/* r = a^(p^k); any k (Fp6 has Frobenius period 6). */
void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned k);
void cz_fp6_random(cz_fp6 *r, cz_rng *rng);

#endif
