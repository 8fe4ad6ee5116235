/* Fr add/sub/mul for the NTT's inner loops, written so that gcc emits straight adc/sbb chains and
 * cmov selects (the generic template in ff/mont_impl.h compiles to about four times as many
 * instructions). Same Montgomery form and fully reduced results as ff/fr.h, so the two mix freely;
 * tests/unit/test_ntt.c checks them against cz_fr_*. Private to src/poly. */
#ifndef CZ_POLY_FR_FAST_H
#define CZ_POLY_FR_FAST_H

#include <immintrin.h>
#include <stdint.h>

#include "ff/fr.h"

#define CZ_FRF_P0 0xffffffff00000001ULL
#define CZ_FRF_P1 0x53bda402fffe5bfeULL
#define CZ_FRF_P2 0x3339d80809a1d805ULL
#define CZ_FRF_P3 0x73eda753299d7d48ULL
#define CZ_FRF_INV 0xfffffffeffffffffULL

typedef unsigned long long cz_frf_u64;

/* r = s if s < p else s - p, for s < 2p */
static inline void cz_frf_reduce_(cz_fr *r, cz_frf_u64 s0, cz_frf_u64 s1, cz_frf_u64 s2, cz_frf_u64 s3) {
    cz_frf_u64 t0, t1, t2, t3;
    unsigned char c = _subborrow_u64(0, s0, CZ_FRF_P0, &t0);
    c = _subborrow_u64(c, s1, CZ_FRF_P1, &t1);
    c = _subborrow_u64(c, s2, CZ_FRF_P2, &t2);
    c = _subborrow_u64(c, s3, CZ_FRF_P3, &t3);
    cz_frf_u64 keep = 0 - (cz_frf_u64)c;
    r->l[0] = (s0 & keep) | (t0 & ~keep);
    r->l[1] = (s1 & keep) | (t1 & ~keep);
    r->l[2] = (s2 & keep) | (t2 & ~keep);
    r->l[3] = (s3 & keep) | (t3 & ~keep);
}

static inline void cz_frf_add(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    cz_frf_u64 s0, s1, s2, s3;
    unsigned char c = _addcarry_u64(0, a->l[0], b->l[0], &s0);
    c = _addcarry_u64(c, a->l[1], b->l[1], &s1);
    c = _addcarry_u64(c, a->l[2], b->l[2], &s2);
    (void)_addcarry_u64(c, a->l[3], b->l[3], &s3); /* a + b < 2p < 2^256 */
    cz_frf_reduce_(r, s0, s1, s2, s3);
}

static inline void cz_frf_sub(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    cz_frf_u64 t0, t1, t2, t3;
    unsigned char c = _subborrow_u64(0, a->l[0], b->l[0], &t0);
    c = _subborrow_u64(c, a->l[1], b->l[1], &t1);
    c = _subborrow_u64(c, a->l[2], b->l[2], &t2);
    c = _subborrow_u64(c, a->l[3], b->l[3], &t3);
    cz_frf_u64 m = 0 - (cz_frf_u64)c; /* add p back after a borrow */
    c = _addcarry_u64(0, t0, CZ_FRF_P0 & m, &t0);
    c = _addcarry_u64(c, t1, CZ_FRF_P1 & m, &t1);
    c = _addcarry_u64(c, t2, CZ_FRF_P2 & m, &t2);
    (void)_addcarry_u64(c, t3, CZ_FRF_P3 & m, &t3);
    r->l[0] = t0;
    r->l[1] = t1;
    r->l[2] = t2;
    r->l[3] = t3;
}

/* Montgomery product, CIOS; p's top word < 2^63 - 1 keeps every intermediate within five words
 * (t < 2p before a round, t + a*b_i + m*p < 2^65 p < 2^320), so no sixth word is needed. */
static inline void cz_frf_mul(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    __extension__ typedef unsigned __int128 u128;
    const cz_frf_u64 a0 = a->l[0], a1 = a->l[1], a2 = a->l[2], a3 = a->l[3];
    cz_frf_u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < 4; i++) {
        const cz_frf_u64 bi = b->l[i];
        u128 p;
        cz_frf_u64 A, C, m;
        p = (u128)a0 * bi + t0;
        t0 = (cz_frf_u64)p;
        A = (cz_frf_u64)(p >> 64);
        p = (u128)a1 * bi + t1 + A;
        t1 = (cz_frf_u64)p;
        A = (cz_frf_u64)(p >> 64);
        p = (u128)a2 * bi + t2 + A;
        t2 = (cz_frf_u64)p;
        A = (cz_frf_u64)(p >> 64);
        p = (u128)a3 * bi + t3 + A;
        t3 = (cz_frf_u64)p;
        A = (cz_frf_u64)(p >> 64);
        m = t0 * CZ_FRF_INV;
        p = (u128)m * CZ_FRF_P0 + t0;
        C = (cz_frf_u64)(p >> 64);
        p = (u128)m * CZ_FRF_P1 + t1 + C;
        t0 = (cz_frf_u64)p;
        C = (cz_frf_u64)(p >> 64);
        p = (u128)m * CZ_FRF_P2 + t2 + C;
        t1 = (cz_frf_u64)p;
        C = (cz_frf_u64)(p >> 64);
        p = (u128)m * CZ_FRF_P3 + t3 + C;
        t2 = (cz_frf_u64)p;
        C = (cz_frf_u64)(p >> 64);
        t3 = A + C;
    }
    cz_frf_reduce_(r, t0, t1, t2, t3);
}

#if defined(__x86_64__)
#include <cpuid.h>
#define CZ_FRF_HAVE_ADX_ASM 1

/* mulx/adcx/adox need BMI2 and ADX (Broadwell, Zen and later); the caller checks once. */
static inline int cz_frf_cpu_has_adx(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
}

static const uint64_t cz_frf_p_[4] = {CZ_FRF_P0, CZ_FRF_P1, CZ_FRF_P2, CZ_FRF_P3};
static const uint64_t cz_frf_inv_ = CZ_FRF_INV;

/* One CIOS round: t += a * b[off/8] with two carry chains (CF via adcx for the low words, OF via
 * adox for the high words), then t += m*p with m = t0 * -p^-1, which clears w0. The five
 * accumulator registers rotate, so the cleared w0 is the next round's top word (zero, as needed). */
#define CZ_FRF_ROUND(off, w0, w1, w2, w3, w4)                                                        \
    "movq " #off "(%[b]), %%rdx\n\t"                                                                 \
    "xorq %[z], %[z]\n\t"                                                                           \
    "mulxq 0(%[a]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w0 "]\n\t adoxq %[hi], %[" #w1 "]\n\t"        \
    "mulxq 8(%[a]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w1 "]\n\t adoxq %[hi], %[" #w2 "]\n\t"        \
    "mulxq 16(%[a]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w2 "]\n\t adoxq %[hi], %[" #w3 "]\n\t"       \
    "mulxq 24(%[a]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w3 "]\n\t adoxq %[hi], %[" #w4 "]\n\t"       \
    "adcxq %[z], %[" #w4 "]\n\t"                                                                     \
    "movq %[" #w0 "], %%rdx\n\t"                                                                     \
    "imulq %[inv], %%rdx\n\t"                                                                        \
    "xorq %[z], %[z]\n\t"                                                                           \
    "mulxq 0(%[p]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w0 "]\n\t adoxq %[hi], %[" #w1 "]\n\t"        \
    "mulxq 8(%[p]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w1 "]\n\t adoxq %[hi], %[" #w2 "]\n\t"        \
    "mulxq 16(%[p]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w2 "]\n\t adoxq %[hi], %[" #w3 "]\n\t"       \
    "mulxq 24(%[p]), %[lo], %[hi]\n\t adcxq %[lo], %[" #w3 "]\n\t adoxq %[hi], %[" #w4 "]\n\t"       \
    "adcxq %[z], %[" #w4 "]\n\t"

static inline void cz_frf_mul_adx(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    cz_frf_u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, lo, hi, z;
    __asm__(CZ_FRF_ROUND(0, t0, t1, t2, t3, t4) CZ_FRF_ROUND(8, t1, t2, t3, t4, t0)
                CZ_FRF_ROUND(16, t2, t3, t4, t0, t1) CZ_FRF_ROUND(24, t3, t4, t0, t1, t2)
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
            : [a] "r"(a->l), [b] "r"(b->l), [p] "r"(cz_frf_p_), [inv] "m"(cz_frf_inv_),
              "m"(*(const uint64_t(*)[4])a->l), "m"(*(const uint64_t(*)[4])b->l),
              "m"(*(const uint64_t(*)[4])cz_frf_p_)
            : "rdx", "cc");
    cz_frf_reduce_(r, t4, t0, t1, t2);
}
#undef CZ_FRF_ROUND
#endif

#endif
