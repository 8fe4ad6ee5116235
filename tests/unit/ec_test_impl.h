/* Group-law, scalar-multiplication, subgroup and encoding tests shared by test_g1.c and test_g2.c.
 * Included with EC_F, EC_FF(op), EC_P(name), EC_AFF, EC_JAC, EC_XYZZ, EC_NB (field bytes),
 * T_ON_CURVE(p, rng) (a random curve point, cofactor not cleared) and T_SLOW_SUB(p) ([r]P = O). */
#include <string.h>

#include "cz_error.h"
#include "ec_points.h"
#include "testutil.h"

/* The same point in a random jacobian representation (X z^2, Y z^3, z). */
static void EC_P(t_rescale)(EC_JAC *r, const EC_JAC *p, cz_rng *rng) {
    if (EC_P(jac_is_infinity)(p)) {
        *r = *p;
        return;
    }
    EC_F z, z2, z3;
    do EC_FF(random)(&z, rng);
    while (EC_FF(is_zero)(&z));
    EC_FF(sqr)(&z2, &z);
    EC_FF(mul)(&z3, &z2, &z);
    EC_FF(mul)(&r->x, &p->x, &z2);
    EC_FF(mul)(&r->y, &p->y, &z3);
    EC_FF(mul)(&r->z, &p->z, &z);
}

static void EC_P(t_jac)(EC_JAC *r, const EC_AFF *a, cz_rng *rng) {
    EC_JAC t;
    EC_P(jac_from_affine)(&t, a);
    EC_P(t_rescale)(r, &t, rng);
}

/* The same point as xyzz with random zz = s^2, zzz = s^3. */
static void EC_P(t_xyzz)(EC_XYZZ *r, const EC_AFF *a, cz_rng *rng) {
    if (EC_P(affine_is_infinity)(a)) {
        EC_P(xyzz_set_infinity)(r);
        return;
    }
    EC_F s;
    do EC_FF(random)(&s, rng);
    while (EC_FF(is_zero)(&s));
    EC_FF(sqr)(&r->zz, &s);
    EC_FF(mul)(&r->zzz, &r->zz, &s);
    EC_FF(mul)(&r->x, &a->x, &r->zz);
    EC_FF(mul)(&r->y, &a->y, &r->zzz);
}

static bool EC_P(t_eq_xj)(const EC_XYZZ *x, const EC_JAC *j) {
    EC_JAC t;
    EC_P(jac_from_xyzz)(&t, x);
    return EC_P(jac_equal)(&t, j);
}

static bool EC_P(t_aff_eq)(const EC_AFF *a, const EC_AFF *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Reference scalar multiplication: plain double-and-add over the bits. */
static void EC_P(t_mul_naive)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits) {
    EC_JAC acc;
    EC_P(jac_set_infinity)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        EC_P(jac_double)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) EC_P(jac_add)(&acc, &acc, p);
    }
    *r = acc;
}

/* Group laws on three points from pick(): subgroup points and general curve points alike. */
static void EC_P(t_group_laws)(const EC_AFF *pa, const EC_AFF *qa, const EC_AFF *ra, cz_rng *rng) {
    EC_JAC p, q, r, s, t, u, o;
    EC_P(t_jac)(&p, pa, rng);
    EC_P(t_jac)(&q, qa, rng);
    EC_P(t_jac)(&r, ra, rng);
    EC_P(jac_set_infinity)(&o);
    /* associativity, commutativity */
    EC_P(jac_add)(&s, &p, &q);
    EC_P(jac_add)(&s, &s, &r);
    EC_P(jac_add)(&t, &q, &r);
    EC_P(jac_add)(&t, &p, &t);
    CHECK(EC_P(jac_equal)(&s, &t));
    EC_P(jac_add)(&s, &p, &q);
    EC_P(jac_add)(&t, &q, &p);
    CHECK(EC_P(jac_equal)(&s, &t));
    /* P + (-P) = O, P + O = P, O + P = P */
    EC_P(jac_neg)(&t, &p);
    EC_P(jac_add)(&s, &p, &t);
    CHECK(EC_P(jac_is_infinity)(&s));
    EC_P(jac_add)(&s, &p, &o);
    CHECK(EC_P(jac_equal)(&s, &p));
    EC_P(jac_add)(&s, &o, &p);
    CHECK(EC_P(jac_equal)(&s, &p));
    /* doubling = adding to itself (through the h = 0 branch, with a different representation) */
    EC_P(jac_double)(&s, &p);
    EC_P(t_rescale)(&u, &p, rng);
    EC_P(jac_add)(&t, &p, &u);
    CHECK(EC_P(jac_equal)(&s, &t));
    EC_P(jac_add_affine)(&t, &p, pa);
    CHECK(EC_P(jac_equal)(&s, &t));
    /* mixed addition agrees with jacobian addition; P + (-P) and O + Q in mixed form */
    EC_P(jac_add)(&s, &p, &q);
    EC_P(jac_add_affine)(&t, &p, qa);
    CHECK(EC_P(jac_equal)(&s, &t));
    EC_AFF na;
    EC_P(affine_neg)(&na, pa);
    EC_P(jac_add_affine)(&t, &p, &na);
    CHECK(EC_P(jac_is_infinity)(&t));
    EC_P(jac_add_affine)(&t, &o, qa);
    CHECK(EC_P(jac_equal)(&t, &q));
    EC_AFF inf = {0};
    EC_P(jac_add_affine)(&t, &q, &inf);
    CHECK(EC_P(jac_equal)(&t, &q));
    /* xyzz forms agree with jacobian */
    EC_XYZZ xp, xq, xs, xt;
    EC_P(t_xyzz)(&xp, pa, rng);
    EC_P(t_xyzz)(&xq, qa, rng);
    EC_P(jac_add)(&s, &p, &q);
    EC_P(xyzz_add)(&xs, &xp, &xq);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(xyzz_add_affine)(&xs, &xp, qa);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_AFF a1, a2;
    EC_P(xyzz_to_affine)(&a1, &xs);
    EC_P(to_affine)(&a2, &s);
    CHECK(EC_P(t_aff_eq)(&a1, &a2));
    EC_P(jac_double)(&s, &p);
    EC_P(xyzz_double)(&xs, &xp);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(xyzz_double_affine)(&xs, pa);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(xyzz_add_affine)(&xs, &xp, pa); /* doubling branch */
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(t_xyzz)(&xt, pa, rng);
    EC_P(xyzz_add)(&xs, &xp, &xt); /* doubling branch, different representation */
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(xyzz_sub_affine)(&xs, &xp, pa);
    CHECK(EC_P(xyzz_is_infinity)(&xs));
    EC_P(xyzz_sub_affine)(&xs, &xp, qa);
    EC_P(jac_neg)(&t, &q);
    EC_P(jac_add)(&s, &p, &t);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(xyzz_set_infinity)(&xt);
    EC_P(xyzz_add)(&xs, &xt, &xq);
    CHECK(EC_P(t_eq_xj)(&xs, &q));
    EC_P(xyzz_add_affine)(&xs, &xt, qa);
    CHECK(EC_P(t_eq_xj)(&xs, &q));
    EC_P(xyzz_add_affine)(&xs, &xq, &inf);
    CHECK(EC_P(t_eq_xj)(&xs, &q));
    EC_P(xyzz_double)(&xs, &xt);
    CHECK(EC_P(xyzz_is_infinity)(&xs));
    /* outputs aliasing inputs */
    EC_P(jac_add)(&s, &p, &q);
    t = p;
    EC_P(jac_add)(&t, &t, &q);
    CHECK(EC_P(jac_equal)(&t, &s));
    t = q;
    EC_P(jac_add)(&t, &p, &t);
    CHECK(EC_P(jac_equal)(&t, &s));
    t = p;
    EC_P(jac_add_affine)(&t, &t, qa);
    CHECK(EC_P(jac_equal)(&t, &s));
    xs = xp;
    EC_P(xyzz_add)(&xs, &xs, &xq);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    xs = xq;
    EC_P(xyzz_add)(&xs, &xp, &xs);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    xs = xp;
    EC_P(xyzz_add_affine)(&xs, &xs, qa);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    EC_P(jac_double)(&s, &p);
    t = p;
    EC_P(jac_double)(&t, &t);
    CHECK(EC_P(jac_equal)(&t, &s));
    t = p;
    EC_P(jac_add)(&t, &t, &t);
    CHECK(EC_P(jac_equal)(&t, &s));
    xs = xp;
    EC_P(xyzz_double)(&xs, &xs);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    xs = xp;
    EC_P(xyzz_add)(&xs, &xs, &xs);
    CHECK(EC_P(t_eq_xj)(&xs, &s));
    a1 = *pa;
    EC_P(affine_neg)(&a1, &a1);
    CHECK(EC_P(t_aff_eq)(&a1, &na));
    t = p;
    EC_P(jac_neg)(&t, &t);
    EC_P(jac_add)(&t, &t, &p);
    CHECK(EC_P(jac_is_infinity)(&t));
    /* jac_equal is a real comparison */
    CHECK(!EC_P(jac_equal)(&p, &q) || EC_P(t_aff_eq)(pa, qa));
    EC_P(jac_neg)(&t, &p);
    CHECK(!EC_P(jac_equal)(&p, &t));
    CHECK(!EC_P(jac_equal)(&p, &o) && !EC_P(jac_equal)(&o, &p) && EC_P(jac_equal)(&o, &o));
    /* to_affine round trip and the curve equation */
    EC_P(to_affine)(&a1, &p);
    CHECK(EC_P(t_aff_eq)(&a1, pa));
    EC_P(jac_add)(&s, &p, &r);
    EC_P(to_affine)(&a1, &s);
    CHECK(EC_P(affine_is_on_curve)(&a1));
}

static void EC_P(t_batch_affine)(cz_rng *rng) {
    enum { N = 37 };
    EC_JAC in[N];
    EC_AFF out[N], one;
    for (size_t i = 0; i < N; i++) {
        EC_AFF a;
        EC_P(random)(&a, rng);
        EC_P(t_jac)(&in[i], &a, rng);
        if (cz_rng_next(rng) % 5 == 0) EC_P(jac_set_infinity)(&in[i]);
    }
    EC_P(jac_set_infinity)(&in[0]);
    EC_P(batch_to_affine)(out, in, N);
    for (size_t i = 0; i < N; i++) {
        EC_P(to_affine)(&one, &in[i]);
        CHECK(EC_P(t_aff_eq)(&one, &out[i]));
    }
    EC_P(batch_to_affine)(out, in + 1, 1);
    EC_P(to_affine)(&one, &in[1]);
    CHECK(EC_P(t_aff_eq)(&one, &out[0]));
    EC_P(batch_to_affine)(out, in, 0); /* empty: nothing to do, must not crash */
    EC_P(to_affine)(&one, &in[0]);
    CHECK(EC_P(affine_is_infinity)(&one));
    EC_XYZZ xi;
    EC_P(xyzz_set_infinity)(&xi);
    EC_P(xyzz_to_affine)(&one, &xi);
    CHECK(EC_P(affine_is_infinity)(&one));
}

/* in_group: the Fr-scalar laws (reduced mod r) only hold in the prime-order subgroup. */
static void EC_P(t_scalar_mul)(const EC_AFF *pa, bool in_group, cz_rng *rng) {
    EC_JAC p, s, t, u;
    EC_P(t_jac)(&p, pa, rng);
    if (!in_group) goto raw;
    cz_fr a, b, c;
    cz_fr_random(&a, rng);
    cz_fr_random(&b, rng);
    cz_fr_add(&c, &a, &b);
    EC_P(mul)(&s, &p, &a);
    EC_P(mul)(&t, &p, &b);
    EC_P(jac_add)(&s, &s, &t);
    EC_P(mul)(&u, &p, &c);
    CHECK(EC_P(jac_equal)(&s, &u));
    /* [a][b]P = [ab]P */
    cz_fr_mul(&c, &a, &b);
    EC_P(mul)(&s, &p, &a);
    EC_P(mul)(&s, &s, &b); /* aliasing */
    EC_P(mul)(&u, &p, &c);
    CHECK(EC_P(jac_equal)(&s, &u));
raw:;
    /* against the naive ladder, for random bit lengths (beyond 255 bits too) */
    uint64_t k[20];
    for (int i = 0; i < 20; i++) k[i] = cz_rng_next(rng);
    size_t nbits = 1 + cz_rng_next(rng) % 400;
    EC_P(mul_raw)(&s, &p, k, nbits);
    uint64_t km[20] = {0};
    memcpy(km, k, (nbits + 63) / 64 * 8);
    if (nbits % 64) km[(nbits - 1) / 64] &= ((uint64_t)1 << (nbits % 64)) - 1;
    EC_P(t_mul_naive)(&t, &p, km, nbits);
    CHECK(EC_P(jac_equal)(&s, &t));
    /* all-ones scalars stress the NAF carries */
    uint64_t ones[7];
    memset(ones, 0xff, sizeof ones);
    size_t nb = 64 * (1 + cz_rng_next(rng) % 6) - cz_rng_next(rng) % 3;
    EC_P(mul_raw)(&s, &p, ones, nb);
    EC_P(t_mul_naive)(&t, &p, ones, nb);
    CHECK(EC_P(jac_equal)(&s, &t));
}

static void EC_P(t_scalar_edges)(const EC_AFF *pa, cz_rng *rng) {
    EC_JAC p, s, t, o;
    EC_P(t_jac)(&p, pa, rng);
    EC_P(jac_set_infinity)(&o);
    cz_fr k = CZ_FR_ZERO_V;
    EC_P(mul)(&s, &p, &k);
    CHECK(EC_P(jac_is_infinity)(&s));
    EC_P(mul)(&s, &p, &CZ_FR_ONE_V);
    CHECK(EC_P(jac_equal)(&s, &p));
    cz_fr_add(&k, &CZ_FR_ONE_V, &CZ_FR_ONE_V);
    EC_P(mul)(&s, &p, &k);
    EC_P(jac_double)(&t, &p);
    CHECK(EC_P(jac_equal)(&s, &t));
    cz_fr_neg(&k, &CZ_FR_ONE_V);
    EC_P(mul)(&s, &p, &k);
    EC_P(jac_neg)(&t, &p);
    CHECK(EC_P(jac_equal)(&s, &t));
    cz_fr_random(&k, rng);
    EC_P(mul)(&s, &o, &k);
    CHECK(EC_P(jac_is_infinity)(&s));
    EC_P(mul_raw)(&s, &p, cz_test_r_limbs, 255);
    CHECK(EC_P(jac_is_infinity)(&s));
    EC_P(mul_raw)(&s, &p, cz_test_r_limbs, 0);
    CHECK(EC_P(jac_is_infinity)(&s));
    /* > 1024-bit scalars take the binary fallback: [r * 2^1000 + 1]P = P */
    uint64_t big[20] = {0};
    memcpy(big + 15, cz_test_r_limbs, sizeof cz_test_r_limbs);
    big[15] <<= 40;
    for (int i = 16; i < 19; i++) big[i] = (cz_test_r_limbs[i - 15] << 40) | (cz_test_r_limbs[i - 16] >> 24);
    big[19] = cz_test_r_limbs[3] >> 24;
    big[0] = 1;
    EC_P(mul_raw)(&s, &p, big, 1280);
    CHECK(EC_P(jac_equal)(&s, &p));
}

static void EC_P(t_subgroup)(cz_rng *rng, int n) {
    int outside = 0;
    for (int i = 0; i < n; i++) {
        EC_AFF a, b;
        EC_P(random)(&a, rng);
        CHECK(EC_P(affine_is_on_curve)(&a));
        CHECK(EC_P(affine_is_in_subgroup)(&a));
        CHECK(T_SLOW_SUB(&a));
        T_ON_CURVE(&b, rng);
        CHECK(EC_P(affine_is_on_curve)(&b));
        bool fast = EC_P(affine_is_in_subgroup)(&b), slow = T_SLOW_SUB(&b);
        CHECK_MSG(fast == slow, "fast %d slow %d", fast, slow);
        outside += !slow;
        /* off the curve: y nudged */
        EC_FF(add)(&b.y, &b.y, &b.x);
        CHECK(!EC_P(affine_is_on_curve)(&b) || EC_FF(is_zero)(&b.x));
    }
    CHECK(outside == n); /* a random curve point is in G with probability ~1/cofactor */
    /* Harder cases for an endomorphism test: T = [r]Q has order dividing the cofactor (so T is O or
     * outside G), and G-point + T is outside G with a large G component. */
    for (int i = 0; i < 4; i++) {
        EC_AFF q, t, s;
        EC_JAC qj, tj, sj;
        T_ON_CURVE(&q, rng);
        EC_P(jac_from_affine)(&qj, &q);
        EC_P(mul_raw)(&tj, &qj, cz_test_r_limbs, 255);
        CHECK(!EC_P(jac_is_infinity)(&tj));
        EC_P(to_affine)(&t, &tj);
        CHECK(EC_P(affine_is_on_curve)(&t) && !EC_P(affine_is_in_subgroup)(&t) && !T_SLOW_SUB(&t));
        EC_P(random)(&s, rng);
        EC_P(jac_add_affine)(&sj, &tj, &s);
        EC_P(to_affine)(&s, &sj);
        CHECK(EC_P(affine_is_on_curve)(&s) && !EC_P(affine_is_in_subgroup)(&s) && !T_SLOW_SUB(&s));
    }
    EC_AFF inf = {0};
    CHECK(EC_P(affine_is_on_curve)(&inf) && EC_P(affine_is_in_subgroup)(&inf));
}

/* Expects decode to fail with code and a message naming the group. */
#define T_REJECT(call, code)                                                                         \
    do {                                                                                             \
        EC_AFF junk_;                                                                                \
        int rc_ = (call);                                                                            \
        (void)junk_;                                                                                 \
        CHECK_MSG(rc_ == (code), "%s: got %s (%s), want %s", #call, cz_error_name(rc_), cz_error_message(), \
                  cz_error_name(code));                                                              \
        CHECK(rc_ == 0 || strstr(cz_error_message(), T_NAME) != NULL);                                \
    } while (0)

/* p as a big-endian field-sized byte string (for G2 the c1 half; c0 left as given). */
static void EC_P(t_put_p)(uint8_t *out48, unsigned add) {
    static const uint64_t p[6] = CZ_FP_MODULUS;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out48[(5 - i) * 8 + j] = (uint8_t)(p[i] >> (56 - 8 * j));
    for (int i = 47; add; i--) { /* + add, with carry */
        unsigned s = out48[i] + (add & 0xff);
        out48[i] = (uint8_t)s;
        add = (add >> 8) + (s >> 8);
    }
}

static void EC_P(t_codec)(cz_rng *rng) {
    uint8_t c[EC_NB], u[2 * EC_NB], c2[EC_NB], u2[2 * EC_NB];
    EC_AFF a, d, b;
    EC_P(random)(&a, rng);
    /* round trips, sort flag, compression flag */
    EC_P(to_compressed)(c, &a);
    EC_P(to_uncompressed)(u, &a);
    CHECK((c[0] & 0x80) && !(c[0] & 0x40) && !(u[0] & 0xe0));
    CHECK(!!(c[0] & 0x20) == EC_FF(is_lexicographically_largest)(&a.y));
    CHECK(memcmp(c + 1, u + 1, EC_NB - 1) == 0 && (c[0] & 0x1f) == u[0]);
    CHECK(EC_P(from_compressed)(&d, c, CZ_DECODE_CHECK_SUBGROUP) == 0 && EC_P(t_aff_eq)(&d, &a));
    CHECK(EC_P(from_uncompressed)(&d, u, CZ_DECODE_CHECK_SUBGROUP) == 0 && EC_P(t_aff_eq)(&d, &a));
    EC_P(affine_neg)(&b, &a);
    EC_P(to_compressed)(c2, &b);
    CHECK((c2[0] ^ c[0]) == 0x20 && memcmp(c + 1, c2 + 1, EC_NB - 1) == 0);
    CHECK(EC_P(from_compressed)(&d, c2, CZ_DECODE_CHECK_SUBGROUP) == 0 && EC_P(t_aff_eq)(&d, &b));
    /* infinity */
    EC_AFF inf = {0};
    EC_P(to_compressed)(c2, &inf);
    EC_P(to_uncompressed)(u2, &inf);
    bool zero_tail = true;
    for (int i = 1; i < EC_NB; i++) zero_tail &= c2[i] == 0 && u2[i] == 0 && u2[EC_NB + i] == 0;
    CHECK(c2[0] == 0xc0 && u2[0] == 0x40 && u2[EC_NB] == 0 && zero_tail);
    memset(&d, 0xff, sizeof d);
    CHECK(EC_P(from_compressed)(&d, c2, CZ_DECODE_CHECK_SUBGROUP) == 0 && EC_P(affine_is_infinity)(&d));
    memset(&d, 0xff, sizeof d);
    CHECK(EC_P(from_uncompressed)(&d, u2, CZ_DECODE_CHECK_SUBGROUP) == 0 && EC_P(affine_is_infinity)(&d));
    /* flags */
    uint8_t m[2 * EC_NB];
    memcpy(m, c, EC_NB);
    m[0] &= 0x7f;
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, u, 2 * EC_NB);
    m[0] |= 0x80;
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_EINVAL);
    m[0] = (uint8_t)((u[0] & 0x1f) | 0x20);
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, c2, EC_NB);
    m[0] |= 0x20;
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, u2, 2 * EC_NB);
    m[0] |= 0x20;
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, c2, EC_NB);
    m[0] &= 0x7f;
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, u2, 2 * EC_NB);
    m[0] |= 0x80;
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, c2, EC_NB);
    m[0] |= (uint8_t)(1 + cz_rng_next(rng) % 31);
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, c2, EC_NB);
    m[1 + cz_rng_next(rng) % (EC_NB - 1)] = (uint8_t)(1 + cz_rng_next(rng) % 255);
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, u2, 2 * EC_NB);
    m[1 + cz_rng_next(rng) % (2 * EC_NB - 1)] = (uint8_t)(1 + cz_rng_next(rng) % 255);
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_EINVAL);
    memcpy(m, c, EC_NB); /* infinity flag on a finite point's payload */
    m[0] |= 0x40;
    T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_EINVAL);
    /* coordinates >= p (p itself, p + small, all ones below the flag bits), in each field slot */
    for (int slot = 0; slot < 2 * EC_NB / 48; slot++) {
        for (int kind = 0; kind < 3; kind++) {
            memcpy(m, u, 2 * EC_NB);
            uint8_t *f = m + 48 * slot;
            if (kind < 2) {
                EC_P(t_put_p)(f, kind ? (unsigned)(cz_rng_next(rng) % 100000) : 0);
            } else {
                memset(f, 0xff, 48);
                f[0] = 0x1f;
            }
            if (slot == 0) f[0] |= (uint8_t)(u[0] & 0xe0);
            T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_ERANGE);
            if (slot < EC_NB / 48) {
                m[0] |= 0x80;
                T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_ERANGE);
            }
        }
    }
    /* x with no square root, points off the curve, (0,0) without the infinity flag */
    for (;;) {
        EC_F x, t, y;
        EC_FF(random)(&x, rng);
        EC_FF(sqr)(&t, &x);
        EC_FF(mul)(&t, &t, &x);
        EC_FF(add)(&t, &t, &T_B);
        if (EC_FF(sqrt)(&y, &t) == 0) continue;
        EC_AFF bad = {x, x};
        EC_P(to_compressed)(m, &bad);
        T_REJECT(EC_P(from_compressed)(&junk_, m, 0), CZ_ECURVE);
        break;
    }
    b = a;
    EC_FF(add)(&b.y, &b.y, &CZ_ONE_T);
    EC_P(to_uncompressed)(m, &b);
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_ECURVE);
    memset(m, 0, 2 * EC_NB);
    T_REJECT(EC_P(from_uncompressed)(&junk_, m, 0), CZ_ECURVE);
    /* on the curve, outside the subgroup: rejected only when asked to check */
    T_ON_CURVE(&b, rng);
    EC_P(to_compressed)(c2, &b);
    EC_P(to_uncompressed)(u2, &b);
    T_REJECT(EC_P(from_compressed)(&junk_, c2, CZ_DECODE_CHECK_SUBGROUP), CZ_ESUBGROUP);
    T_REJECT(EC_P(from_uncompressed)(&junk_, u2, CZ_DECODE_CHECK_SUBGROUP), CZ_ESUBGROUP);
    CHECK(EC_P(from_compressed)(&d, c2, 0) == 0 && EC_P(t_aff_eq)(&d, &b));
    CHECK(EC_P(from_uncompressed)(&d, u2, 0) == 0 && EC_P(t_aff_eq)(&d, &b));
}

static void EC_P(t_all)(int rounds, cz_rng *rng) {
    EC_AFF g;
    EC_P(generator)(&g);
    CHECK(EC_P(affine_is_on_curve)(&g) && EC_P(affine_is_in_subgroup)(&g) && T_SLOW_SUB(&g));
    for (int i = 0; i < rounds; i++) {
        EC_AFF p, q, r;
        EC_P(random)(&p, rng);
        EC_P(random)(&q, rng);
        EC_P(random)(&r, rng);
        EC_P(t_group_laws)(&p, &q, &r, rng);
        EC_P(t_scalar_mul)(&p, true, rng);
        T_ON_CURVE(&p, rng); /* the group law holds on the whole curve */
        T_ON_CURVE(&q, rng);
        T_ON_CURVE(&r, rng);
        EC_P(t_group_laws)(&p, &q, &r, rng);
        EC_P(t_scalar_mul)(&p, false, rng);
        EC_P(t_codec)(rng);
    }
    EC_AFF p;
    EC_P(random)(&p, rng);
    EC_P(t_scalar_edges)(&p, rng);
    EC_P(t_scalar_edges)(&g, rng);
    EC_P(t_batch_affine)(rng);
    EC_P(t_subgroup)(rng, rounds);
}
