/* Pairing: bilinearity on random scalars, non-degeneracy, e^r = 1, infinity, multi-pairings (plain,
 * prepared, and longer than one Miller block) against products of single pairings, and the final
 * exponentiation against a plain exponentiation by 3 (p^12 - 1)/r. Values are checked against
 * @noble/curves in tests/interop/test_pairing_noble.sh. */
#include <stdlib.h>
#include <string.h>

#include "ec/pairing.h"
#include "pairing_test_points.h"
#include "testutil.h"

static const uint64_t R_LIMBS[4] = CZ_FR_MODULUS;

/* (a * b) mod r as plain limbs. */
static void scalar_mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    cz_fr x, y;
    cz_fr_from_raw(&x, a);
    cz_fr_from_raw(&y, b);
    cz_fr_mul(&x, &x, &y);
    cz_fr_to_raw(out, &x);
}

static void test_bilinearity(cz_rng *rng, const cz_g1_affine *g1, const cz_g2_affine *g2) {
    cz_fp12 e, e2, base;
    cz_pairing(&base, g1, g2);
    CHECK(!cz_fp12_is_one(&base)); /* non-degenerate */
    cz_fp12_pow(&e, &base, R_LIMBS, 4);
    CHECK(cz_fp12_is_one(&e)); /* order r */
    for (int it = 0; it < 4; it++) {
        uint64_t a[4], b[4], ab[4];
        tp_scalar(a, rng);
        tp_scalar(b, rng);
        scalar_mul(ab, a, b);
        cz_g1_affine ap, abp;
        cz_g2_affine bq, abq;
        tp_g1_mul(&ap, g1, a);
        tp_g2_mul(&bq, g2, b);
        tp_g1_mul(&abp, g1, ab);
        tp_g2_mul(&abq, g2, ab);
        CHECK(tp_g1_on_curve(&ap) && tp_g2_on_curve(&bq));
        cz_pairing(&e, &ap, &bq);
        cz_fp12_pow(&e2, &base, ab, 4);
        CHECK(cz_fp12_equal(&e, &e2));
        cz_pairing(&e2, &abp, g2);
        CHECK(cz_fp12_equal(&e, &e2));
        cz_pairing(&e2, g1, &abq);
        CHECK(cz_fp12_equal(&e, &e2));
        /* e(-P, Q) = e(P, Q)^-1 = conj */
        cz_g1_affine nap;
        cz_g1_affine_neg(&nap, &ap);
        cz_pairing(&e2, &nap, &bq);
        cz_fp12_conj(&e2, &e2);
        CHECK(cz_fp12_equal(&e, &e2));
        /* e(aP, bQ)^r = 1 */
        cz_fp12_pow(&e2, &e, R_LIMBS, 4);
        CHECK(cz_fp12_is_one(&e2));
        /* e(aP + P, Q) = e(aP, Q) e(P, Q): linearity in the first argument without scalars */
        cz_g1_jac s;
        cz_g1_affine sp;
        cz_g1_jac_from_affine(&s, &ap);
        cz_g1_jac_add_affine(&s, &s, g1);
        cz_fp zi, zi2;
        cz_fp_inv(&zi, &s.z);
        cz_fp_sqr(&zi2, &zi);
        cz_fp_mul(&sp.x, &s.x, &zi2);
        cz_fp_mul(&zi2, &zi2, &zi);
        cz_fp_mul(&sp.y, &s.y, &zi2);
        cz_fp12 x1, x2, x3;
        cz_pairing(&x1, &sp, &bq);
        cz_pairing(&x2, &ap, &bq);
        cz_pairing(&x3, g1, &bq);
        cz_fp12_mul(&x2, &x2, &x3);
        CHECK(cz_fp12_equal(&x1, &x2));
    }
}

static void test_final_exponentiation(cz_rng *rng) {
    /* 3 (p^12 - 1)/r by schoolbook big-integer arithmetic on 64-bit limbs. */
    static const uint64_t p[6] = CZ_FP_MODULUS;
    uint64_t pk[80] = {1}, t[80];
    size_t len = 1;
    for (int k = 0; k < 12; k++) { /* pk = p^12 */
        memset(t, 0, sizeof t);
        for (size_t i = 0; i < len; i++) {
            cz_u128 c = 0;
            for (size_t j = 0; j < 6; j++) {
                c += (cz_u128)pk[i] * p[j] + t[i + j];
                t[i + j] = (uint64_t)c;
                c >>= 64;
            }
            t[i + 6] = (uint64_t)c;
        }
        len += 6;
        memcpy(pk, t, sizeof t);
    }
    pk[0] -= 1; /* p^12 is odd, no borrow */
    /* divide by r with long division (bitwise), then multiply by 3 */
    uint64_t q[80] = {0}, rem[5] = {0};
    for (int i = (int)len * 64 - 1; i >= 0; i--) {
        uint64_t carry = (pk[i / 64] >> (i % 64)) & 1;
        for (int j = 0; j < 5; j++) {
            uint64_t nc = rem[j] >> 63;
            rem[j] = (rem[j] << 1) | carry;
            carry = nc;
        }
        /* rem >= r ? */
        int ge = rem[4] != 0;
        if (!ge) {
            ge = 1;
            for (int j = 3; j >= 0; j--) {
                if (rem[j] != R_LIMBS[j]) {
                    ge = rem[j] > R_LIMBS[j];
                    break;
                }
            }
        }
        if (ge) {
            uint64_t borrow = 0;
            for (int j = 0; j < 5; j++) {
                uint64_t rj = j < 4 ? R_LIMBS[j] : 0;
                cz_u128 d = (cz_u128)rem[j] - rj - borrow;
                rem[j] = (uint64_t)d;
                borrow = (uint64_t)(d >> 64) & 1;
            }
            q[i / 64] |= (uint64_t)1 << (i % 64);
        }
    }
    CHECK(rem[0] == 0 && rem[1] == 0 && rem[2] == 0 && rem[3] == 0 && rem[4] == 0);
    cz_u128 c = 0;
    for (size_t i = 0; i < len; i++) {
        c += (cz_u128)q[i] * 3;
        q[i] = (uint64_t)c;
        c >>= 64;
    }
    for (int it = 0; it < 2; it++) {
        cz_fp12 f, want, got;
        cz_fp12_random(&f, rng);
        cz_fp12_pow(&want, &f, q, len);
        cz_final_exponentiation(&got, &f);
        CHECK(cz_fp12_equal(&want, &got));
    }
    cz_fp12 z = {CZ_FP6_ZERO_V, CZ_FP6_ZERO_V}, out;
    cz_final_exponentiation(&out, &z);
    CHECK(cz_fp12_is_zero(&out));
}

static void test_multi(cz_rng *rng, const cz_g1_affine *g1, const cz_g2_affine *g2) {
    enum { N = 6 };
    cz_g1_affine p[N];
    cz_g2_affine q[N];
    for (int i = 0; i < N; i++) {
        uint64_t a[4];
        tp_scalar(a, rng);
        tp_g1_mul(&p[i], g1, a);
        tp_scalar(a, rng);
        tp_g2_mul(&q[i], g2, a);
    }
    memset(&p[2], 0, sizeof p[2]); /* infinities in the middle of a product */
    memset(&q[4], 0, sizeof q[4]);
    cz_fp12 prod = CZ_FP12_ONE_V, e, m;
    for (size_t n = 0; n <= N; n++) {
        if (n > 0) {
            cz_pairing(&e, &p[n - 1], &q[n - 1]);
            if (n - 1 == 2 || n - 1 == 4) CHECK(cz_fp12_is_one(&e)); /* infinity gives 1 */
            cz_fp12_mul(&prod, &prod, &e);
        }
        cz_multi_pairing(&m, p, q, n);
        CHECK_MSG(cz_fp12_equal(&m, &prod), "multi-pairing of %zu pairs", n);
    }
    /* prepared points give the same values */
    static cz_g2_prepared prep[N];
    const cz_g2_prepared *pp[N];
    for (int i = 0; i < N; i++) {
        cz_g2_prepare(&prep[i], &q[i]);
        pp[i] = &prep[i];
    }
    cz_multi_pairing_prepared(&m, p, pp, N);
    CHECK(cz_fp12_equal(&m, &prod));
    cz_multi_pairing_prepared(&m, p, pp, 1);
    cz_pairing(&e, &p[0], &q[0]);
    CHECK(cz_fp12_equal(&m, &e));
    cz_multi_pairing_prepared(&m, p, pp, 0);
    CHECK(cz_fp12_is_one(&m));

    /* e(aP, Q) e(-P, aQ) = 1, and not after tampering */
    uint64_t a[4];
    tp_scalar(a, rng);
    cz_g1_affine pa[2];
    cz_g2_affine qa[2];
    tp_g1_mul(&pa[0], g1, a);
    qa[0] = *g2;
    cz_g1_affine_neg(&pa[1], g1);
    tp_g2_mul(&qa[1], g2, a);
    CHECK(cz_pairing_product_is_one(pa, qa, 2));
    cz_g2_prepared pq[2];
    const cz_g2_prepared *pqp[2] = {&pq[0], &pq[1]};
    cz_g2_prepare(&pq[0], &qa[0]);
    cz_g2_prepare(&pq[1], &qa[1]);
    CHECK(cz_pairing_product_is_one_prepared(pa, pqp, 2));
    pa[1] = *g1;
    CHECK(!cz_pairing_product_is_one(pa, qa, 2));
    CHECK(!cz_pairing_product_is_one_prepared(pa, pqp, 2));

    /* more pairs than one Miller block (32), with repeated and infinite points: against the
     * product of single pairings */
    enum { M = 35 };
    cz_g1_affine *bp = malloc(M * sizeof *bp);
    cz_g2_affine *bq = malloc(M * sizeof *bq);
    cz_fp12 want = CZ_FP12_ONE_V;
    for (int i = 0; i < M; i++) {
        uint64_t k[4];
        tp_scalar(k, rng);
        if (i % 5 == 0) tp_g1_mul(&bp[i], g1, k);
        else bp[i] = i % 2 ? *g1 : p[i % N];
        bq[i] = i % 3 ? *g2 : q[i % N];
        cz_pairing(&e, &bp[i], &bq[i]);
        cz_fp12_mul(&want, &want, &e);
    }
    cz_multi_pairing(&m, bp, bq, M);
    CHECK(cz_fp12_equal(&m, &want));
    free(bp);
    free(bq);
}

static void test_infinity(const cz_g1_affine *g1, const cz_g2_affine *g2) {
    cz_g1_affine o1;
    cz_g2_affine o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    cz_fp12 e;
    cz_pairing(&e, &o1, g2);
    CHECK(cz_fp12_is_one(&e));
    cz_pairing(&e, g1, &o2);
    CHECK(cz_fp12_is_one(&e));
    cz_pairing(&e, &o1, &o2);
    CHECK(cz_fp12_is_one(&e));
    cz_g2_prepared po;
    const cz_g2_prepared *pop = &po;
    cz_g2_prepare(&po, &o2);
    CHECK(po.infinity);
    cz_multi_pairing_prepared(&e, g1, &pop, 1);
    CHECK(cz_fp12_is_one(&e));
    CHECK(cz_pairing_product_is_one(&o1, g2, 1));
    CHECK(!cz_pairing_product_is_one(g1, g2, 1));
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cz_g1_affine g1;
    cz_g2_affine g2;
    tp_g1_generator(&g1);
    tp_g2_generator(&g2);
    CHECK(tp_g1_on_curve(&g1));
    CHECK(tp_g2_on_curve(&g2));
    /* the helpers' generators have order r */
    cz_g1_affine t1;
    cz_g2_affine t2;
    tp_g1_mul(&t1, &g1, R_LIMBS);
    tp_g2_mul(&t2, &g2, R_LIMBS);
    CHECK(cz_g1_affine_is_infinity(&t1) && cz_g2_affine_is_infinity(&t2));

    /* the G1/G2 module agrees with the helpers, and its random points pair bilinearly too */
    cz_g1_affine c1;
    cz_g2_affine c2;
    cz_g1_generator(&c1);
    cz_g2_generator(&c2);
    CHECK(cz_fp_equal(&c1.x, &g1.x) && cz_fp_equal(&c1.y, &g1.y));
    CHECK(cz_fp2_equal(&c2.x, &g2.x) && cz_fp2_equal(&c2.y, &g2.y));
    {
        cz_fr k;
        cz_fr_random(&k, &rng);
        cz_g1_jac j1;
        cz_g2_jac j2;
        cz_g1_affine kp;
        cz_g2_affine kq;
        cz_g1_jac_from_affine(&j1, &c1);
        cz_g2_jac_from_affine(&j2, &c2);
        cz_g1_mul(&j1, &j1, &k);
        cz_g2_mul(&j2, &j2, &k);
        cz_g1_to_affine(&kp, &j1);
        cz_g2_to_affine(&kq, &j2);
        cz_fp12 x, y;
        cz_pairing(&x, &kp, &c2);
        cz_pairing(&y, &c1, &kq);
        CHECK(cz_fp12_equal(&x, &y) && !cz_fp12_is_one(&x));
    }

    test_final_exponentiation(&rng);
    test_bilinearity(&rng, &g1, &g2);
    test_multi(&rng, &g1, &g2);
    test_infinity(&g1, &g2);
    return cz_test_finish();
}
