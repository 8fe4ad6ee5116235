/* Out-of-line point operations shared by g1.c and g2.c (conversions, equality, scalar multiplication,
 * curve equation, random points). Included once per group with the macros of ec_impl.h plus
 *   EC_B   pointer to the curve constant b (y^2 = x^3 + b)
 * g?.c supply the generator, the subgroup check and the encodings (ec_codec_impl.h). */
#include <stdlib.h>

/* Constants written as the big-endian hex of their canonical value (as in the specs they come from). */
static void ec_fp_from_hex_(cz_fp *r, const char *hex) {
    uint8_t b[48] = {0};
    size_t n = strlen(hex);
    for (size_t i = 0; i < n; i++) {
        char c = hex[n - 1 - i];
        unsigned v = (c >= 'a') ? (unsigned)(c - 'a' + 10) : (c >= 'A') ? (unsigned)(c - 'A' + 10) : (unsigned)(c - '0');
        b[47 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    cz_fp_from_bytes_be(r, b);
}

/* (p - 1) / d as plain limbs (d divides p - 1), the exponent of the endomorphism constants. */
static void ec_p_minus_1_div_(uint64_t e[6], uint64_t d) {
    static const uint64_t p[6] = CZ_FP_MODULUS;
    cz_u128 rem = 0;
    for (int i = 5; i >= 0; i--) {
        cz_u128 cur = (rem << 64) | (i == 0 ? p[0] - 1 : p[i]);
        e[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
}


void EC_P(to_affine)(EC_AFF *r, const EC_JAC *p) {
    if (EC_P(jac_is_infinity)(p)) {
        memset(r, 0, sizeof *r);
        return;
    }
    EC_F zi, zi2, zi3;
    EC_FF(inv)(&zi, &p->z);
    EC_FF(sqr)(&zi2, &zi);
    EC_FF(mul)(&zi3, &zi2, &zi);
    EC_FF(mul)(&r->x, &p->x, &zi2);
    EC_FF(mul)(&r->y, &p->y, &zi3);
}

/* Montgomery's trick; out[i].x holds the prefix product of the z's before i while the forward
 * pass runs, so no scratch allocation is needed (hence out and in must not overlap). */
void EC_P(batch_to_affine)(EC_AFF *out, const EC_JAC *in, size_t n) {
    EC_F acc = EC_ONE;
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!EC_P(jac_is_infinity)(&in[i])) EC_FF(mul)(&acc, &acc, &in[i].z);
    }
    EC_F inv;
    EC_FF(inv)(&inv, &acc); /* acc != 0: infinities were skipped */
    for (size_t i = n; i-- > 0;) {
        if (EC_P(jac_is_infinity)(&in[i])) {
            memset(&out[i], 0, sizeof out[i]);
            continue;
        }
        EC_F zi, zi2;
        EC_FF(mul)(&zi, &inv, &out[i].x);
        EC_FF(mul)(&inv, &inv, &in[i].z);
        EC_FF(sqr)(&zi2, &zi);
        EC_FF(mul)(&out[i].x, &in[i].x, &zi2);
        EC_FF(mul)(&zi2, &zi2, &zi);
        EC_FF(mul)(&out[i].y, &in[i].y, &zi2);
    }
}

void EC_P(xyzz_to_affine)(EC_AFF *r, const EC_XYZZ *p) {
    if (EC_P(xyzz_is_infinity)(p)) {
        memset(r, 0, sizeof *r);
        return;
    }
    /* One inversion of ZZ*ZZZ gives both 1/ZZ and 1/ZZZ. */
    EC_F i, t;
    EC_FF(mul)(&t, &p->zz, &p->zzz);
    EC_FF(inv)(&i, &t);
    EC_FF(mul)(&t, &i, &p->zzz);
    EC_FF(mul)(&r->x, &p->x, &t);
    EC_FF(mul)(&t, &i, &p->zz);
    EC_FF(mul)(&r->y, &p->y, &t);
}

bool EC_P(jac_equal)(const EC_JAC *a, const EC_JAC *b) {
    bool ia = EC_P(jac_is_infinity)(a), ib = EC_P(jac_is_infinity)(b);
    if (ia || ib) return ia && ib;
    EC_F za2, zb2, l, r;
    EC_FF(sqr)(&za2, &a->z);
    EC_FF(sqr)(&zb2, &b->z);
    EC_FF(mul)(&l, &a->x, &zb2);
    EC_FF(mul)(&r, &b->x, &za2);
    if (!EC_FF(equal)(&l, &r)) return false;
    EC_FF(mul)(&zb2, &zb2, &b->z);
    EC_FF(mul)(&za2, &za2, &a->z);
    EC_FF(mul)(&l, &a->y, &zb2);
    EC_FF(mul)(&r, &b->y, &za2);
    return EC_FF(equal)(&l, &r);
}

/* Width-5 NAF: digits in {0, +-1, ..., +-15}, at most one nonzero per 5 consecutive positions,
 * so about nbits/6 additions against 8 precomputed odd multiples. Variable time. */
#define EC_WNAF_W 5
#define EC_WNAF_MAXBITS 1024

static void EC_P(mul_binary_)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits) {
    EC_JAC acc, base = *p;
    EC_P(jac_set_infinity)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        EC_P(jac_double)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) EC_P(jac_add)(&acc, &acc, &base);
    }
    *r = acc;
}

void EC_P(mul_raw)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits) {
    if (nbits > EC_WNAF_MAXBITS) {
        EC_P(mul_binary_)(r, p, k, nbits);
        return;
    }
    /* NAF digits of k: take the scalar as a growing/shrinking multi-limb integer. */
    enum { L = EC_WNAF_MAXBITS / 64 + 1 };
    uint64_t v[L] = {0};
    size_t nl = (nbits + 63) / 64;
    for (size_t i = 0; i < nl; i++) v[i] = k[i];
    if (nbits % 64) v[nl - 1] &= ((uint64_t)1 << (nbits % 64)) - 1;
    int8_t d[EC_WNAF_MAXBITS + 2];
    size_t nd = 0;
    for (;;) {
        bool zero = true;
        for (size_t i = 0; i <= nl; i++) zero &= v[i] == 0;
        if (zero) break;
        int digit = 0;
        if (v[0] & 1) {
            digit = (int)(v[0] & ((1u << EC_WNAF_W) - 1));
            if (digit >= (1 << (EC_WNAF_W - 1))) digit -= 1 << EC_WNAF_W;
            /* v -= digit (digit odd, |digit| < 16); v stays >= 0. */
            if (digit > 0) {
                uint64_t b = (uint64_t)digit;
                for (size_t i = 0; i <= nl && b; i++) {
                    uint64_t o = v[i];
                    v[i] -= b;
                    b = o < b;
                }
            } else {
                uint64_t c = (uint64_t)(-digit);
                for (size_t i = 0; i <= nl && c; i++) {
                    v[i] += c;
                    c = v[i] < c;
                }
            }
        }
        d[nd++] = (int8_t)digit;
        for (size_t i = 0; i < nl; i++) v[i] = (v[i] >> 1) | (v[i + 1] << 63);
        v[nl] >>= 1;
    }
    EC_JAC tab[1 << (EC_WNAF_W - 2)], p2; /* P, 3P, ..., 15P */
    tab[0] = *p;
    EC_P(jac_double)(&p2, p);
    for (int i = 1; i < (1 << (EC_WNAF_W - 2)); i++) EC_P(jac_add)(&tab[i], &tab[i - 1], &p2);
    EC_JAC acc;
    EC_P(jac_set_infinity)(&acc);
    for (size_t i = nd; i-- > 0;) {
        EC_P(jac_double)(&acc, &acc);
        if (d[i] > 0) {
            EC_P(jac_add)(&acc, &acc, &tab[d[i] >> 1]);
        } else if (d[i] < 0) {
            EC_JAC n;
            EC_P(jac_neg)(&n, &tab[(-d[i]) >> 1]);
            EC_P(jac_add)(&acc, &acc, &n);
        }
    }
    *r = acc;
}

void EC_P(mul)(EC_JAC *r, const EC_JAC *p, const cz_fr *k) {
    uint64_t raw[4];
    cz_fr_to_raw(raw, k);
    EC_P(mul_raw)(r, p, raw, 256);
}

bool EC_P(affine_is_on_curve)(const EC_AFF *p) {
    if (EC_P(affine_is_infinity)(p)) return true;
    EC_F l, r;
    EC_FF(sqr)(&l, &p->y);
    EC_FF(sqr)(&r, &p->x);
    EC_FF(mul)(&r, &r, &p->x);
    EC_FF(add)(&r, &r, EC_B);
    return EC_FF(equal)(&l, &r);
}

void EC_P(random)(EC_AFF *r, cz_rng *rng) {
    EC_AFF g;
    EC_JAC gj, t;
    cz_fr k;
    cz_fr_random(&k, rng);
    EC_P(generator)(&g);
    EC_P(jac_from_affine)(&gj, &g);
    EC_P(mul)(&t, &gj, &k);
    EC_P(to_affine)(r, &t);
}

/* [|x|]P for the BLS parameter |x| = 0xd201000000010000 (6 set bits), used by both subgroup checks. */
static void EC_P(mul_by_abs_x_)(EC_JAC *r, const EC_JAC *p) {
    static const uint64_t absx = 0xd201000000010000ULL;
    EC_P(mul_binary_)(r, p, &absx, 64);
}

