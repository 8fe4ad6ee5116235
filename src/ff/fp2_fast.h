/* Fp2 arithmetic for the pairing tower on the fast Fp operations of fp_mulx.h; same results as the
 * cz_fp2_* functions of fp2.h. Used by the Fp6/Fp12 code and src/ec/pairing.c. */
#ifndef CZ_FF_FP2_FAST_H
#define CZ_FF_FP2_FAST_H

#include "ff/fp2.h"
#include "ff/fp_mulx.h"

static inline void cz_fp2x_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fpx_add(&r->c0, &a->c0, &b->c0);
    cz_fpx_add(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp2x_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fpx_sub(&r->c0, &a->c0, &b->c0);
    cz_fpx_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cz_fp2x_double(cz_fp2 *r, const cz_fp2 *a) { cz_fp2x_add(r, a, a); }
/* times u + 1: (c0 - c1) + (c0 + c1) u */
static inline void cz_fp2x_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp t;
    cz_fpx_sub(&t, &a->c0, &a->c1);
    cz_fpx_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

static inline void cz_fp2x_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp t0, t1, s0, s1;
    cz_fpx_mul(&t0, &a->c0, &b->c0);
    cz_fpx_mul(&t1, &a->c1, &b->c1);
    cz_fpx_add(&s0, &a->c0, &a->c1);
    cz_fpx_add(&s1, &b->c0, &b->c1);
    cz_fpx_mul(&s0, &s0, &s1);
    cz_fpx_sub(&s0, &s0, &t0);
    cz_fpx_sub(&r->c1, &s0, &t1);
    cz_fpx_sub(&r->c0, &t0, &t1);
}

static inline void cz_fp2x_sqr(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp s, d, m;
    cz_fpx_add(&s, &a->c0, &a->c1);
    cz_fpx_sub(&d, &a->c0, &a->c1);
    cz_fpx_mul(&m, &a->c0, &a->c1);
    cz_fpx_mul(&r->c0, &s, &d);
    cz_fpx_add(&r->c1, &m, &m);
}

static inline void cz_fp2x_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b) {
    cz_fpx_mul(&r->c0, &a->c0, b);
    cz_fpx_mul(&r->c1, &a->c1, b);
}

#endif
