#include "ff/fp2.h"

#include "cz_error.h"

int cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a) {
    /* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2) */
    cz_fp t0, t1;
    cz_fp_sqr(&t0, &a->c0);
    cz_fp_sqr(&t1, &a->c1);
    cz_fp_add(&t0, &t0, &t1);
    if (cz_fp_inv(&t0, &t0)) {
        *r = CZ_FP2_ZERO_V;
        return cz_error(CZ_EINVAL, "inverse of zero in Fp2");
    }
    cz_fp_mul(&r->c0, &a->c0, &t0);
    cz_fp_mul(&t1, &a->c1, &t0);
    cz_fp_neg(&r->c1, &t1);
    return 0;
}

void cz_fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t n) {
    cz_fp2 acc = CZ_FP2_ONE_V, base = *a;
    size_t top = n * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        cz_fp2_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) cz_fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

int cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a) {
    /* Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root computation over even extension
     * fields" (p = 3 mod 4). */
    static const uint64_t e34[6] = CZ_FP_P_MINUS_3_OVER_4;
    static const uint64_t e12[6] = CZ_FP_P_MINUS_1_OVER_2;
    if (cz_fp2_is_zero(a)) {
        *r = CZ_FP2_ZERO_V;
        return 0;
    }
    cz_fp2 a1, alpha, x0, t, chk, minus_one;
    cz_fp2_pow(&a1, a, e34, 6);
    cz_fp2_sqr(&alpha, &a1);
    cz_fp2_mul(&alpha, &alpha, a);
    cz_fp2_mul(&x0, &a1, a);
    cz_fp2_neg(&minus_one, &CZ_FP2_ONE_V);
    if (cz_fp2_equal(&alpha, &minus_one)) {
        /* x = u * x0 */
        cz_fp c0;
        cz_fp_neg(&c0, &x0.c1);
        t.c1 = x0.c0;
        t.c0 = c0;
    } else {
        cz_fp2 b;
        cz_fp2_add(&b, &alpha, &CZ_FP2_ONE_V);
        cz_fp2_pow(&b, &b, e12, 6);
        cz_fp2_mul(&t, &b, &x0);
    }
    cz_fp2_sqr(&chk, &t);
    if (!cz_fp2_equal(&chk, a)) return cz_error(CZ_EINVAL, "Fp2 element is not a square");
    *r = t;
    return 0;
}

bool cz_fp2_is_lexicographically_largest(const cz_fp2 *a) {
    if (!cz_fp_is_zero(&a->c1)) return cz_fp_is_lexicographically_largest(&a->c1);
    return cz_fp_is_lexicographically_largest(&a->c0);
}

void cz_fp2_random(cz_fp2 *r, cz_rng *rng) {
    cz_fp_random(&r->c0, rng);
    cz_fp_random(&r->c1, rng);
}
