/* Encoding tests for ec_test_impl.h (same macros): round trips, flags, and every malformed form rejected
 * with its own code and a message naming the group. */
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
