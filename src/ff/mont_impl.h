/* Montgomery arithmetic template, included by fp.h and fr.h with:
 *   MONT_N   limbs (6 for Fp, 4 for Fr)      MONT_T    element type (struct { uint64_t l[N]; })
 *   MONT_FN  name prefixer                   MONT_P    modulus limbs initializer
 *   MONT_INV -p^-1 mod 2^64
 *   MONT_ASM_MUL, MONT_ASM_ADD, MONT_ASM_SUB  optional assembly versions (mont_asm_x86.h)
 * Both moduli leave the top bit of the top limb clear with room to spare, which allows the
 * "no-carry" CIOS multiplication and additions without a carry-out limb. Results are always fully
 * reduced (< p), so equality is limb equality and bytes are canonical. */
#include <stdbool.h>
#include <stdint.h>

#ifndef CZ_U128_DEFINED
#define CZ_U128_DEFINED
__extension__ typedef unsigned __int128 cz_u128;
#endif

static const uint64_t MONT_FN(modulus_)[MONT_N] = MONT_P;

/* r = a - p if a >= p (a < 2p). */
static inline void MONT_FN(reduce_once_)(uint64_t r[MONT_N], const uint64_t a[MONT_N]) {
    uint64_t t[MONT_N], borrow = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 d = (cz_u128)a[i] - MONT_FN(modulus_)[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* borrow == 1 means a < p: keep a. */
    uint64_t mask = 0 - borrow;
    for (int i = 0; i < MONT_N; i++) r[i] = (a[i] & mask) | (t[i] & ~mask);
}

static inline void MONT_FN(add)(MONT_T *r, const MONT_T *a, const MONT_T *b) {
#ifdef MONT_ASM_ADD
    MONT_ASM_ADD(r->l, a->l, b->l, MONT_FN(modulus_));
    return;
#endif
    uint64_t t[MONT_N], c = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 s = (cz_u128)a->l[i] + b->l[i] + c;
        t[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    MONT_FN(reduce_once_)(r->l, t);
}

static inline void MONT_FN(sub)(MONT_T *r, const MONT_T *a, const MONT_T *b) {
#ifdef MONT_ASM_SUB
    MONT_ASM_SUB(r->l, a->l, b->l, MONT_FN(modulus_));
    return;
#endif
    uint64_t t[MONT_N], borrow = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 d = (cz_u128)a->l[i] - b->l[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = 0 - borrow, c = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 s = (cz_u128)t[i] + (MONT_FN(modulus_)[i] & mask) + c;
        r->l[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
}

static inline bool MONT_FN(is_zero)(const MONT_T *a) {
    uint64_t acc = 0;
    for (int i = 0; i < MONT_N; i++) acc |= a->l[i];
    return acc == 0;
}

static inline bool MONT_FN(equal)(const MONT_T *a, const MONT_T *b) {
    uint64_t acc = 0;
    for (int i = 0; i < MONT_N; i++) acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

static inline void MONT_FN(neg)(MONT_T *r, const MONT_T *a) {
    uint64_t nz = MONT_FN(is_zero)(a) ? 0 : ~(uint64_t)0, borrow = 0;
    for (int i = 0; i < MONT_N; i++) {
        cz_u128 d = (cz_u128)MONT_FN(modulus_)[i] - a->l[i] - borrow;
        r->l[i] = (uint64_t)d & nz;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

static inline void MONT_FN(double)(MONT_T *r, const MONT_T *a) { MONT_FN(add)(r, a, a); }

/* Montgomery product a*b*2^(-64N) mod p, CIOS without the extra carry word. */
static inline void MONT_FN(mul)(MONT_T *r, const MONT_T *a, const MONT_T *b) {
    const uint64_t *p = MONT_FN(modulus_);
#ifdef MONT_ASM_MUL
    MONT_ASM_MUL(r->l, a->l, b->l, p, (uint64_t)(MONT_INV));
    return;
#endif
    uint64_t t[MONT_N] = {0};
    for (int i = 0; i < MONT_N; i++) {
        uint64_t bi = b->l[i];
        cz_u128 acc = (cz_u128)a->l[0] * bi + t[0];
        uint64_t A = (uint64_t)(acc >> 64);
        uint64_t t0 = (uint64_t)acc;
        uint64_t m = t0 * (uint64_t)(MONT_INV);
        cz_u128 red = (cz_u128)m * p[0] + t0;
        uint64_t C = (uint64_t)(red >> 64);
        for (int j = 1; j < MONT_N; j++) {
            acc = (cz_u128)a->l[j] * bi + t[j] + A;
            A = (uint64_t)(acc >> 64);
            red = (cz_u128)m * p[j] + (uint64_t)acc + C;
            C = (uint64_t)(red >> 64);
            t[j - 1] = (uint64_t)red;
        }
        t[MONT_N - 1] = C + A;
    }
    MONT_FN(reduce_once_)(r->l, t);
}

static inline void MONT_FN(sqr)(MONT_T *r, const MONT_T *a) { MONT_FN(mul)(r, a, a); }
