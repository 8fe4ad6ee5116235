/* Non-inline Montgomery-field operations shared by fp.c and fr.c (same macros as mont_impl.h plus
 * MONT_R2 = 2^(128N) mod p, MONT_PM2 = p-2, MONT_PM1H = (p-1)/2). */
#include <string.h>

#include "cz_error.h"

void MONT_FN(set_u64)(MONT_T *r, uint64_t v) {
    static const MONT_T r2 = {MONT_R2};
    MONT_T t = {{0}};
    t.l[0] = v;
    MONT_FN(mul)(r, &t, &r2);
}

/* Exponents are public here (p-2, (p-1)/2, ...): variable time. Long exponents use 4-bit windows
 * (a^0..a^15 in a table): ~b squarings and b/4 products instead of ~b/2, which makes the Fermat
 * inversion behind the MSM's batch-affine buckets ~25 % cheaper. */
void MONT_FN(pow)(MONT_T *r, const MONT_T *a, const uint64_t *e, size_t n) {
    static const MONT_T one = {MONT_ONE};
    MONT_T acc = one, base = *a;
    size_t top = n * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    if (top >= 64) {
        MONT_T tab[16];
        tab[0] = one;
        tab[1] = base;
        for (int i = 2; i < 16; i++) MONT_FN(mul)(&tab[i], &tab[i - 1], &base);
        size_t nw = (top + 3) / 4;
        for (size_t w = nw; w-- > 0;) {
            if (w + 1 < nw)
                for (int k = 0; k < 4; k++) MONT_FN(sqr)(&acc, &acc);
            unsigned d = (unsigned)(e[(4 * w) / 64] >> ((4 * w) % 64)) & 15; /* 4 | 64: one limb */
            if (d) MONT_FN(mul)(&acc, &acc, &tab[d]);
        }
        *r = acc;
        return;
    }
    for (size_t i = top; i-- > 0;) {
        MONT_FN(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) MONT_FN(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

int MONT_FN(inv)(MONT_T *r, const MONT_T *a) {
    static const uint64_t pm2[MONT_N] = MONT_PM2;
    if (MONT_FN(is_zero)(a)) {
        memset(r, 0, sizeof *r);
        return cz_error(CZ_EINVAL, "inverse of zero");
    }
    MONT_FN(pow)(r, a, pm2, MONT_N);
    return 0;
}

int MONT_FN(legendre)(const MONT_T *a) {
    static const uint64_t pm1h[MONT_N] = MONT_PM1H;
    static const MONT_T one = {MONT_ONE};
    if (MONT_FN(is_zero)(a)) return 0;
    MONT_T t;
    MONT_FN(pow)(&t, a, pm1h, MONT_N);
    return MONT_FN(equal)(&t, &one) ? 1 : -1;
}

int MONT_FN(from_raw)(MONT_T *r, const uint64_t v[MONT_N]) {
    static const MONT_T r2 = {MONT_R2};
    /* v < p  <=>  v - p borrows */
    uint64_t borrow = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 d = (cz_u128)v[i] - MONT_FN(modulus_)[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    if (!borrow) return cz_error(CZ_ERANGE, "field element is not below the modulus");
    MONT_T t;
    memcpy(t.l, v, sizeof t.l);
    MONT_FN(mul)(r, &t, &r2);
    return 0;
}

void MONT_FN(to_raw)(uint64_t v[MONT_N], const MONT_T *a) {
    MONT_T one_plain = {{1}}, t;
    MONT_FN(mul)(&t, a, &one_plain);
    memcpy(v, t.l, sizeof t.l);
}

void MONT_FN(random)(MONT_T *r, cz_rng *rng) {
    /* Rejection sampling on the bit length of p: uniform and cheap (p is > half its bit range). */
    const int topbits = 64 - __builtin_clzll(MONT_FN(modulus_)[MONT_N - 1]);
    uint64_t v[MONT_N];
    for (;;) {
        for (int i = 0; i < MONT_N; i++) v[i] = cz_rng_next(rng);
        v[MONT_N - 1] &= (topbits == 64) ? ~(uint64_t)0 : (((uint64_t)1 << topbits) - 1);
        if (MONT_FN(from_raw)(r, v) == 0) return;
    }
}
