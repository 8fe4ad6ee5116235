#include "ff/fp12.h"

#include "cz_error.h"
#include "ff/tower_constants.h"

static const cz_fp2 frob_w[5] = CZ_FROB12_W;

/* Karatsuba: 3 Fp6 multiplications. */
void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6 t0, t1, s, t;
    cz_fp6_mul(&t0, &a->c0, &b->c0);
    cz_fp6_mul(&t1, &a->c1, &b->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_add(&t, &b->c0, &b->c1);
    cz_fp6_mul(&s, &s, &t);
    cz_fp6_sub(&s, &s, &t0);
    cz_fp6_sub(&r->c1, &s, &t1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_add(&r->c0, &t0, &t1);
}

/* Complex squaring: 2 Fp6 multiplications. */
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a) {
    cz_fp6 ab, s, t;
    cz_fp6_mul(&ab, &a->c0, &a->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_mul_by_nonresidue(&t, &a->c1);
    cz_fp6_add(&t, &t, &a->c0);
    cz_fp6_mul(&s, &s, &t);
    cz_fp6_sub(&s, &s, &ab);
    cz_fp6_mul_by_nonresidue(&t, &ab);
    cz_fp6_sub(&r->c0, &s, &t);
    cz_fp6_double(&r->c1, &ab);
}

void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1, const cz_fp2 *l4) {
    cz_fp6 t0, t1, s;
    cz_fp2 l14;
    cz_fp6_mul_by_01(&t0, &a->c0, l0, l1);
    cz_fp6_mul_by_1(&t1, &a->c1, l4);
    cz_fp2_add(&l14, l1, l4);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_mul_by_01(&s, &s, l0, &l14);
    cz_fp6_sub(&s, &s, &t0);
    cz_fp6_sub(&r->c1, &s, &t1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_add(&r->c0, &t0, &t1);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi): returns a^2 + xi b^2 and 2ab. */
static inline void fp4_sqr(cz_fp2 *lo, cz_fp2 *hi, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp2 t0, t1, t2;
    cz_fp2_sqr(&t0, a);
    cz_fp2_sqr(&t1, b);
    cz_fp2_add(&t2, a, b);
    cz_fp2_sqr(&t2, &t2);
    cz_fp2_sub(&t2, &t2, &t0);
    cz_fp2_sub(hi, &t2, &t1);
    cz_fp2_mul_by_nonresidue(&t1, &t1);
    cz_fp2_add(lo, &t1, &t0);
}

/* Granger-Scott ("Faster squaring in the cyclotomic subgroup of sixth degree extensions", PKC 2010):
 * Fp12 seen as Fp4^3 over the pairs (c0.c0, c1.c1), (c1.c0, c0.c2), (c0.c1, c1.c2); for unitary
 * elements each output coefficient is 3 t -+ 2 a with t the Fp4 square, 9 Fp2 squarings in all. */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a) {
    cz_fp2 t3, t4, t5, t6, t7, t8, d;
    fp4_sqr(&t3, &t4, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&t5, &t6, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&t7, &t8, &a->c0.c1, &a->c1.c2);
    cz_fp2_mul_by_nonresidue(&t8, &t8);

#define CYC_MINUS(out, t, x)          \
    do {                              \
        cz_fp2_sub(&d, t, x);         \
        cz_fp2_double(&d, &d);        \
        cz_fp2_add(out, &d, t);       \
    } while (0)
#define CYC_PLUS(out, t, x)           \
    do {                              \
        cz_fp2_add(&d, t, x);         \
        cz_fp2_double(&d, &d);        \
        cz_fp2_add(out, &d, t);       \
    } while (0)
    CYC_MINUS(&r->c0.c0, &t3, &a->c0.c0);
    CYC_MINUS(&r->c0.c1, &t5, &a->c0.c1);
    CYC_MINUS(&r->c0.c2, &t7, &a->c0.c2);
    CYC_PLUS(&r->c1.c0, &t8, &a->c1.c0);
    CYC_PLUS(&r->c1.c1, &t4, &a->c1.c1);
    CYC_PLUS(&r->c1.c2, &t6, &a->c1.c2);
#undef CYC_MINUS
#undef CYC_PLUS
}

int cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a) {
    /* 1/(c0 + c1 w) = (c0 - c1 w) / (c0^2 - v c1^2) */
    cz_fp6 t0, t1;
    cz_fp6_sqr(&t0, &a->c0);
    cz_fp6_sqr(&t1, &a->c1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_sub(&t0, &t0, &t1);
    if (cz_fp6_inv(&t0, &t0)) {
        *r = (cz_fp12){CZ_FP6_ZERO_V, CZ_FP6_ZERO_V};
        return cz_error(CZ_EINVAL, "inverse of zero in Fp12");
    }
    cz_fp6_mul(&r->c0, &a->c0, &t0);
    cz_fp6_mul(&r->c1, &a->c1, &t0);
    cz_fp6_neg(&r->c1, &r->c1);
    return 0;
}

void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned k) {
    k %= 12;
    /* p^6 is the conjugation (w^(p^6) = -w), so k >= 6 is conj after k - 6. */
    bool conj = k >= 6;
    if (conj) k -= 6;
    if (k == 0) {
        if (conj) cz_fp12_conj(r, a);
        else *r = *a;
        return;
    }
    cz_fp6 c1;
    cz_fp6_frobenius(&r->c0, &a->c0, k);
    cz_fp6_frobenius(&c1, &a->c1, k);
    cz_fp6_mul_fp2(&r->c1, &c1, &frob_w[k - 1]);
    if (conj) cz_fp6_neg(&r->c1, &r->c1);
}

void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t n) {
    cz_fp12 acc = CZ_FP12_ONE_V, base = *a;
    size_t top = n * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        cz_fp12_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) cz_fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* The twelve Fp coefficients in encoding order. */
static const cz_fp *coeff(const cz_fp12 *a, int i) {
    const cz_fp6 *c6 = i < 6 ? &a->c0 : &a->c1;
    int j = i % 6;
    const cz_fp2 *c2 = j < 2 ? &c6->c0 : j < 4 ? &c6->c1 : &c6->c2;
    return (j & 1) ? &c2->c1 : &c2->c0;
}

void cz_fp12_to_bytes(uint8_t out[CZ_FP12_BYTES], const cz_fp12 *a) {
    for (int i = 0; i < 12; i++) cz_fp_to_bytes_be(out + 48 * i, coeff(a, i));
}

int cz_fp12_from_bytes(cz_fp12 *r, const uint8_t in[CZ_FP12_BYTES]) {
    cz_fp12 t;
    for (int i = 0; i < 12; i++) {
        int rc = cz_fp_from_bytes_be((cz_fp *)coeff(&t, i), in + 48 * i);
        if (rc) return cz_error(rc, "Fp12 coefficient %d is not below p", i);
    }
    *r = t;
    return 0;
}

void cz_fp12_random(cz_fp12 *r, cz_rng *rng) {
    cz_fp6_random(&r->c0, rng);
    cz_fp6_random(&r->c1, rng);
}
