/* Fp12 = Fp6[w]/(w^2 - v); element c0 + c1 w. Pairing values live here (in the cyclotomic subgroup
 * after the final exponentiation). Encoding: 576 bytes, twelve 48-byte big-endian Fp values in the
 * order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (Fp2 as c0 then c1), the same bytes as
 * @noble/curves' Fp12.toBytes. Outputs may alias inputs. */
#ifndef CZ_FF_FP12_H
#define CZ_FF_FP12_H

#include "ff/fp6.h"

typedef struct { cz_fp6 c0, c1; } cz_fp12;

#define CZ_FP12_BYTES 576

static inline void cz_fp12_add(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6_add(&r->c0, &a->c0, &b->c0);
    cz_fp6_add(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp12_sub(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6_sub(&r->c0, &a->c0, &b->c0);
    cz_fp6_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp12_neg(cz_fp12 *r, const cz_fp12 *a) {
    cz_fp6_neg(&r->c0, &a->c0);
    cz_fp6_neg(&r->c1, &a->c1);
}
/* c0 - c1 w = a^(p^6); the inverse for elements of the cyclotomic subgroup. */
static inline void cz_fp12_conj(cz_fp12 *r, const cz_fp12 *a) {
    r->c0 = a->c0;
    cz_fp6_neg(&r->c1, &a->c1);
}
static inline bool cz_fp12_equal(const cz_fp12 *a, const cz_fp12 *b) {
    return cz_fp6_equal(&a->c0, &b->c0) && cz_fp6_equal(&a->c1, &b->c1);
}
static inline bool cz_fp12_is_zero(const cz_fp12 *a) { return cz_fp6_is_zero(&a->c0) && cz_fp6_is_zero(&a->c1); }

static const cz_fp12 CZ_FP12_ONE_V = {{{{CZ_FP_R}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
                                      {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};
static inline bool cz_fp12_is_one(const cz_fp12 *a) { return cz_fp12_equal(a, &CZ_FP12_ONE_V); }

void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a);
/* r = a * (l0 + l1 v + l4 v w): the sparse shape of a Miller-loop line (coefficients 0, 1 and 4 of
 * the Fp2 basis 1, v, v^2, w, vw, v^2w). 13 Fp2 multiplications instead of 18. */
void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1, const cz_fp2 *l4);
/* Granger-Scott squaring, valid only for a in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1),
 * e.g. after the easy part of the final exponentiation. */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a);
/* r = 1/a; returns 0, or CZ_EINVAL when a = 0 (then r = 0). */
int cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a);
/* r = a^(p^k) for any k (period 12). */
void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned k);
/* a^e with e given as n little-endian limbs (plain square-and-multiply; tests and rare uses). */
void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t n);
void cz_fp12_to_bytes(uint8_t out[CZ_FP12_BYTES], const cz_fp12 *a);
/* Fails with CZ_ERANGE when a coefficient is >= p. */
int cz_fp12_from_bytes(cz_fp12 *r, const uint8_t in[CZ_FP12_BYTES]);
void cz_fp12_random(cz_fp12 *r, cz_rng *rng);

#endif
