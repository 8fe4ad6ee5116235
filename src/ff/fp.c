#include "ff/fp.h"

#include "cz_error.h"

#define MONT_N 6
#define MONT_T cz_fp
#define MONT_FN(name) cz_fp_##name
#define MONT_P CZ_FP_MODULUS
#define MONT_INV CZ_FP_INV
#define MONT_R2 CZ_FP_R2
#define MONT_ONE CZ_FP_R
#define MONT_PM2 CZ_FP_P_MINUS_2
#define MONT_PM1H CZ_FP_P_MINUS_1_OVER_2
#include "ff/mont_ext_impl.h"

int cz_fp_sqrt(cz_fp *r, const cz_fp *a) {
    /* p = 3 mod 4: a^((p+1)/4) is a root whenever one exists. */
    static const uint64_t e[6] = CZ_FP_P_PLUS_1_OVER_4;
    cz_fp s, chk;
    cz_fp_pow(&s, a, e, 6);
    cz_fp_sqr(&chk, &s);
    if (!cz_fp_equal(&chk, a)) return cz_error(CZ_EINVAL, "Fp element is not a square");
    *r = s;
    return 0;
}

bool cz_fp_is_lexicographically_largest(const cz_fp *a) {
    static const uint64_t half[6] = CZ_FP_P_MINUS_1_OVER_2;
    uint64_t v[6];
    cz_fp_to_raw(v, a);
    for (int i = 5; i >= 0; i--) {
        if (v[i] > half[i]) return true;
        if (v[i] < half[i]) return false;
    }
    return false;
}

int cz_fp_from_bytes_be(cz_fp *r, const uint8_t in[48]) {
    uint64_t v[6];
    for (int i = 0; i < 6; i++) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* one load and a byte swap a word: the decode of 47 GB of parameters spent a fifth of its time here */
        uint64_t w;
        memcpy(&w, in + (5 - i) * 8, 8);
        v[i] = __builtin_bswap64(w);
#else
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | in[(5 - i) * 8 + j];
        v[i] = w;
#endif
    }
    return cz_fp_from_raw(r, v);
}

void cz_fp_to_bytes_be(uint8_t out[48], const cz_fp *a) {
    uint64_t v[6];
    cz_fp_to_raw(v, a);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[(5 - i) * 8 + j] = (uint8_t)(v[i] >> (56 - 8 * j));
}
