#include "ff/fp6.h"

#include "cz_error.h"
#include "ff/tower_constants.h"

static const cz_fp2 frob_v[5] = CZ_FROB6_V;
static const cz_fp2 frob_v2[5] = CZ_FROB6_V2;

/* Karatsuba over the three coefficients: 6 Fp2 multiplications. */
void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2 v0, v1, v2, s, t, c0, c1, c2;
    cz_fp2_mul(&v0, &a->c0, &b->c0);
    cz_fp2_mul(&v1, &a->c1, &b->c1);
    cz_fp2_mul(&v2, &a->c2, &b->c2);

    cz_fp2_add(&s, &a->c1, &a->c2);
    cz_fp2_add(&t, &b->c1, &b->c2);
    cz_fp2_mul(&c0, &s, &t);
    cz_fp2_sub(&c0, &c0, &v1);
    cz_fp2_sub(&c0, &c0, &v2);
    cz_fp2_mul_by_nonresidue(&c0, &c0);
    cz_fp2_add(&c0, &c0, &v0);

    cz_fp2_add(&s, &a->c0, &a->c1);
    cz_fp2_add(&t, &b->c0, &b->c1);
    cz_fp2_mul(&c1, &s, &t);
    cz_fp2_sub(&c1, &c1, &v0);
    cz_fp2_sub(&c1, &c1, &v1);
    cz_fp2_mul_by_nonresidue(&s, &v2);
    cz_fp2_add(&c1, &c1, &s);

    cz_fp2_add(&s, &a->c0, &a->c2);
    cz_fp2_add(&t, &b->c0, &b->c2);
    cz_fp2_mul(&c2, &s, &t);
    cz_fp2_sub(&c2, &c2, &v0);
    cz_fp2_sub(&c2, &c2, &v2);
    cz_fp2_add(&c2, &c2, &v1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* Chung-Hasan SQR2: 2 multiplications and 3 squarings in Fp2. */
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a) {
    cz_fp2 s0, s1, s2, s3, s4, t;
    cz_fp2_sqr(&s0, &a->c0);
    cz_fp2_mul(&s1, &a->c0, &a->c1);
    cz_fp2_double(&s1, &s1);
    cz_fp2_sub(&s2, &a->c0, &a->c1);
    cz_fp2_add(&s2, &s2, &a->c2);
    cz_fp2_sqr(&s2, &s2);
    cz_fp2_mul(&s3, &a->c1, &a->c2);
    cz_fp2_double(&s3, &s3);
    cz_fp2_sqr(&s4, &a->c2);

    cz_fp2_mul_by_nonresidue(&t, &s3);
    cz_fp2_add(&r->c0, &s0, &t);
    cz_fp2_add(&r->c2, &s1, &s2);
    cz_fp2_add(&r->c2, &r->c2, &s3);
    cz_fp2_sub(&r->c2, &r->c2, &s0);
    cz_fp2_sub(&r->c2, &r->c2, &s4);
    cz_fp2_mul_by_nonresidue(&t, &s4);
    cz_fp2_add(&r->c1, &s1, &t);
}

/* b2 = 0: 5 Fp2 multiplications. */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1) {
    cz_fp2 v0, v1, s, t, c0, c1, c2;
    cz_fp2_mul(&v0, &a->c0, b0);
    cz_fp2_mul(&v1, &a->c1, b1);

    cz_fp2_mul(&c0, &a->c2, b1);
    cz_fp2_mul_by_nonresidue(&c0, &c0);
    cz_fp2_add(&c0, &c0, &v0);

    cz_fp2_add(&s, &a->c0, &a->c1);
    cz_fp2_add(&t, b0, b1);
    cz_fp2_mul(&c1, &s, &t);
    cz_fp2_sub(&c1, &c1, &v0);
    cz_fp2_sub(&c1, &c1, &v1);

    cz_fp2_mul(&c2, &a->c2, b0);
    cz_fp2_add(&c2, &c2, &v1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1) {
    cz_fp2 c0, c1, c2;
    cz_fp2_mul(&c0, &a->c2, b1);
    cz_fp2_mul_by_nonresidue(&c0, &c0);
    cz_fp2_mul(&c1, &a->c0, b1);
    cz_fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cz_fp6_mul_fp2(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b) {
    cz_fp2_mul(&r->c0, &a->c0, b);
    cz_fp2_mul(&r->c1, &a->c1, b);
    cz_fp2_mul(&r->c2, &a->c2, b);
}

/* 1/a in Fp2 by Fermat on the norm with the fast multiplication (the one inversion of a pairing). */
static int fp2_inv_fast(cz_fp2 *r, const cz_fp2 *a) {
    static const uint64_t pm2[6] = CZ_FP_P_MINUS_2;
    cz_fp n, t, acc = CZ_FP_ONE_V;
    cz_fp_sqr(&n, &a->c0);
    cz_fp_sqr(&t, &a->c1);
    cz_fp_add(&n, &n, &t);
    if (cz_fp_is_zero(&n)) {
        *r = CZ_FP2_ZERO_V;
        return cz_error(CZ_EINVAL, "inverse of zero in Fp2");
    }
    for (int i = 380; i >= 0; i--) {
        cz_fp_sqr(&acc, &acc);
        if ((pm2[i / 64] >> (i % 64)) & 1) cz_fp_mul(&acc, &acc, &n);
    }
    cz_fp_mul(&r->c0, &a->c0, &acc);
    cz_fp_mul(&t, &a->c1, &acc);
    cz_fp_neg(&r->c1, &t);
    return 0;
}

int cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a) {
    /* The adjugate (t0, t1, t2) satisfies a * t = d in Fp2, so one Fp2 inversion suffices. */
    cz_fp2 t0, t1, t2, d, s;
    cz_fp2_sqr(&t0, &a->c0);
    cz_fp2_mul(&s, &a->c1, &a->c2);
    cz_fp2_mul_by_nonresidue(&s, &s);
    cz_fp2_sub(&t0, &t0, &s);

    cz_fp2_sqr(&t1, &a->c2);
    cz_fp2_mul_by_nonresidue(&t1, &t1);
    cz_fp2_mul(&s, &a->c0, &a->c1);
    cz_fp2_sub(&t1, &t1, &s);

    cz_fp2_sqr(&t2, &a->c1);
    cz_fp2_mul(&s, &a->c0, &a->c2);
    cz_fp2_sub(&t2, &t2, &s);

    cz_fp2_mul(&d, &a->c2, &t1);
    cz_fp2_mul(&s, &a->c1, &t2);
    cz_fp2_add(&d, &d, &s);
    cz_fp2_mul_by_nonresidue(&d, &d);
    cz_fp2_mul(&s, &a->c0, &t0);
    cz_fp2_add(&d, &d, &s);
    if (fp2_inv_fast(&d, &d)) {
        *r = CZ_FP6_ZERO_V;
        return cz_error(CZ_EINVAL, "inverse of zero in Fp6");
    }
    cz_fp2_mul(&r->c0, &t0, &d);
    cz_fp2_mul(&r->c1, &t1, &d);
    cz_fp2_mul(&r->c2, &t2, &d);
    return 0;
}

void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned k) {
    k %= 6;
    if (k == 0) {
        *r = *a;
        return;
    }
    cz_fp6 t = *a;
    if (k & 1) {
        cz_fp2_conj(&t.c0, &t.c0);
        cz_fp2_conj(&t.c1, &t.c1);
        cz_fp2_conj(&t.c2, &t.c2);
    }
    cz_fp2_mul(&t.c1, &t.c1, &frob_v[k - 1]);
    cz_fp2_mul(&t.c2, &t.c2, &frob_v2[k - 1]);
    *r = t;
}

void cz_fp6_random(cz_fp6 *r, cz_rng *rng) {
    cz_fp2_random(&r->c0, rng);
    cz_fp2_random(&r->c1, rng);
    cz_fp2_random(&r->c2, rng);
}
