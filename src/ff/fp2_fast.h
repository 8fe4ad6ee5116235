/* Fp2 products for the pairing tower on the fast Fp multiplication of fp_mulx.h; same results as
 * cz_fp2_mul / cz_fp2_sqr / cz_fp2_mul_fp in fp2.h. Private to src/ff/fp6.c, fp12.c, src/ec/pairing.c. */
#ifndef CZ_FF_FP2_FAST_H
#define CZ_FF_FP2_FAST_H

#include "ff/fp2.h"
#include "ff/fp_mulx.h"

static inline void cz_fp2x_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp t0, t1, s0, s1;
    cz_fpx_mul(&t0, &a->c0, &b->c0);
    cz_fpx_mul(&t1, &a->c1, &b->c1);
    cz_fp_add(&s0, &a->c0, &a->c1);
    cz_fp_add(&s1, &b->c0, &b->c1);
    cz_fpx_mul(&s0, &s0, &s1);
    cz_fp_sub(&s0, &s0, &t0);
    cz_fp_sub(&r->c1, &s0, &t1);
    cz_fp_sub(&r->c0, &t0, &t1);
}

static inline void cz_fp2x_sqr(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp s, d, m;
    cz_fp_add(&s, &a->c0, &a->c1);
    cz_fp_sub(&d, &a->c0, &a->c1);
    cz_fpx_mul(&m, &a->c0, &a->c1);
    cz_fpx_mul(&r->c0, &s, &d);
    cz_fp_add(&r->c1, &m, &m);
}

static inline void cz_fp2x_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b) {
    cz_fpx_mul(&r->c0, &a->c0, b);
    cz_fpx_mul(&r->c1, &a->c1, b);
}

#endif
