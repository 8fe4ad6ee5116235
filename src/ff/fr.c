#include "ff/fr.h"

#include "cz_error.h"

#define MONT_N 4
#define MONT_T cz_fr
#define MONT_FN(name) cz_fr_##name
#define MONT_P CZ_FR_MODULUS
#define MONT_INV CZ_FR_INV
#define MONT_R2 CZ_FR_R2
#define MONT_ONE CZ_FR_R
#define MONT_PM2 CZ_FR_R_MINUS_2
#define MONT_PM1H CZ_FR_R_MINUS_1_OVER_2
#include "ff/mont_ext_impl.h"

void cz_fr_batch_inv(cz_fr *a, size_t n, cz_fr *scratch) {
    cz_fr acc = CZ_FR_ONE_V;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!cz_fr_is_zero(&a[i])) cz_fr_mul(&acc, &acc, &a[i]);
    }
    cz_fr inv;
    cz_fr_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cz_fr_is_zero(&a[i])) continue;
        cz_fr t;
        cz_fr_mul(&t, &inv, &scratch[i]);
        cz_fr_mul(&inv, &inv, &a[i]);
        a[i] = t;
    }
}

int cz_fr_sqrt(cz_fr *r, const cz_fr *a) {
    /* Tonelli-Shanks with 2-adicity 32; 7 is a non-residue, so 7^t has order exactly 2^32. */
    static const uint64_t tm1h[4] = CZ_FR_T_MINUS1_OVER_2;
    static const cz_fr root = {CZ_FR_ROOT_OF_UNITY_MONT};
    if (cz_fr_is_zero(a)) {
        *r = CZ_FR_ZERO_V;
        return 0;
    }
    if (cz_fr_legendre(a) != 1) return cz_error(CZ_EINVAL, "Fr element is not a square");
    cz_fr w, x, b, z = root;
    cz_fr_pow(&w, a, tm1h, 4);     /* a^((t-1)/2) */
    cz_fr_mul(&x, a, &w);          /* a^((t+1)/2) */
    cz_fr_mul(&b, &x, &w);         /* a^t */
    unsigned v = CZ_FR_TWO_ADICITY;
    while (!cz_fr_equal(&b, &CZ_FR_ONE_V)) {
        unsigned k = 0;
        cz_fr b2k = b;
        while (!cz_fr_equal(&b2k, &CZ_FR_ONE_V)) {
            cz_fr_sqr(&b2k, &b2k);
            k++;
        }
        cz_fr wz = z;
        for (unsigned j = 0; j < v - k - 1; j++) cz_fr_sqr(&wz, &wz);
        cz_fr_sqr(&z, &wz);
        cz_fr_mul(&b, &b, &z);
        cz_fr_mul(&x, &x, &wz);
        v = k;
    }
    *r = x;
    return 0;
}

int cz_fr_from_bytes_le(cz_fr *r, const uint8_t in[32]) {
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[i * 8 + j];
        v[i] = w;
    }
    return cz_fr_from_raw(r, v);
}

void cz_fr_to_bytes_le(uint8_t out[32], const cz_fr *a) {
    uint64_t v[4];
    cz_fr_to_raw(v, a);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(v[i] >> (8 * j));
}

int cz_fr_from_bytes_be(cz_fr *r, const uint8_t in[32]) {
    uint8_t le[32];
    for (int i = 0; i < 32; i++) le[i] = in[31 - i];
    return cz_fr_from_bytes_le(r, le);
}

void cz_fr_to_bytes_be(uint8_t out[32], const cz_fr *a) {
    uint8_t le[32];
    cz_fr_to_bytes_le(le, a);
    for (int i = 0; i < 32; i++) out[i] = le[31 - i];
}

void cz_fr_from_bytes_wide_le(cz_fr *r, const uint8_t in[64]) {
    /* in = lo + 2^256 hi; lo, hi < 2^256 each: lo*R^-1*R^2 + hi*R^-1*R^3 = lo + hi*2^256 (Montgomery). */
    static const cz_fr r2 = {CZ_FR_R2}, r3 = {CZ_FR_R3};
    cz_fr lo, hi;
    for (int i = 0; i < 4; i++) {
        uint64_t a = 0, b = 0;
        for (int j = 7; j >= 0; j--) {
            a = (a << 8) | in[i * 8 + j];
            b = (b << 8) | in[32 + i * 8 + j];
        }
        lo.l[i] = a;
        hi.l[i] = b;
    }
    /* 2^256 < 3r: two conditional subtractions bring each half below r. */
    for (int k = 0; k < 2; k++) {
        cz_fr_reduce_once_(lo.l, lo.l);
        cz_fr_reduce_once_(hi.l, hi.l);
    }
    cz_fr_mul(&lo, &lo, &r2);
    cz_fr_mul(&hi, &hi, &r3);
    cz_fr_add(r, &lo, &hi);
}

int cz_fr_root_of_unity(cz_fr *r, unsigned k) {
    if (k > CZ_FR_TWO_ADICITY) return cz_error(CZ_ERANGE, "no 2^%u-th root of unity in Fr (max 2^32)", k);
    cz_fr w = {CZ_FR_ROOT_OF_UNITY_MONT};
    for (unsigned i = k; i < CZ_FR_TWO_ADICITY; i++) cz_fr_sqr(&w, &w);
    *r = w;
    return 0;
}
