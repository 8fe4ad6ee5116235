/* Fast Fp arithmetic for the pairing tower on x86-64: Montgomery multiplication with BMI2 + ADX (mulx,
 * adcx/adox) that also does the final conditional subtraction in registers (28 ns here against 47 ns
 * for fp.h's assembly CIOS followed by the C reduce_once_, 62-86 ns for the portable C), and add/sub
 * with adc/sbb chains (about 3x the C). Same results as cz_fp_mul/add/sub (fully reduced). Like fp.h,
 * the multiplication needs -madx (CMake option CZ_ADX) and otherwise is cz_fp_mul; define CZ_NO_ASM
 * to force the portable path (CUDA translation units always get it).
 * Outputs may alias inputs. */
#ifndef CZ_FF_FP_MULX_H
#define CZ_FF_FP_MULX_H

#include "ff/fp.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CZ_NO_ASM) && !defined(__CUDACC__)
#define CZ_FP_MULX_ASM 1

static const uint64_t cz_fpx_p_[6] = CZ_FP_MODULUS;

#if defined(__ADX__) && defined(__BMI2__)
static const uint64_t cz_fpx_inv_ = CZ_FP_INV;

/* One CIOS round: t += a * b[i] (into t0..t6), then m = t0 * (-1/p), t += m p, leaving t0 = 0;
 * the caller's register rotation does the division by 2^64. */
#define CZ_FPX_ROUND(i, T0, T1, T2, T3, T4, T5, T6)                                   \
    "movq " #i "*8(%[b]), %%rdx\n\t"                                                 \
    "xorl %%eax, %%eax\n\t"                                                          \
    "mulx 0(%[a]), %%rax, %[hi]\n\t"  "adox %%rax, %[" #T0 "]\n\t" "adcx %[hi], %[" #T1 "]\n\t" \
    "mulx 8(%[a]), %%rax, %[hi]\n\t"  "adox %%rax, %[" #T1 "]\n\t" "adcx %[hi], %[" #T2 "]\n\t" \
    "mulx 16(%[a]), %%rax, %[hi]\n\t" "adox %%rax, %[" #T2 "]\n\t" "adcx %[hi], %[" #T3 "]\n\t" \
    "mulx 24(%[a]), %%rax, %[hi]\n\t" "adox %%rax, %[" #T3 "]\n\t" "adcx %[hi], %[" #T4 "]\n\t" \
    "mulx 32(%[a]), %%rax, %[hi]\n\t" "adox %%rax, %[" #T4 "]\n\t" "adcx %[hi], %[" #T5 "]\n\t" \
    "mulx 40(%[a]), %%rax, %[" #T6 "]\n\t" "adox %%rax, %[" #T5 "]\n\t"              \
    "movl $0, %%eax\n\t" "adox %%rax, %[" #T6 "]\n\t" "adcx %%rax, %[" #T6 "]\n\t"   \
    "movq %[" #T0 "], %%rdx\n\t"                                                     \
    "imulq %[inv], %%rdx\n\t"                                                        \
    "xorl %%eax, %%eax\n\t"                                                          \
    "mulx %[p], %%rax, %[hi]\n\t"    "adox %%rax, %[" #T0 "]\n\t" "adcx %[hi], %[" #T1 "]\n\t" \
    "mulx 8+%[p], %%rax, %[hi]\n\t"  "adox %%rax, %[" #T1 "]\n\t" "adcx %[hi], %[" #T2 "]\n\t" \
    "mulx 16+%[p], %%rax, %[hi]\n\t" "adox %%rax, %[" #T2 "]\n\t" "adcx %[hi], %[" #T3 "]\n\t" \
    "mulx 24+%[p], %%rax, %[hi]\n\t" "adox %%rax, %[" #T3 "]\n\t" "adcx %[hi], %[" #T4 "]\n\t" \
    "mulx 32+%[p], %%rax, %[hi]\n\t" "adox %%rax, %[" #T4 "]\n\t" "adcx %[hi], %[" #T5 "]\n\t" \
    "mulx 40+%[p], %%rax, %[hi]\n\t" "adox %%rax, %[" #T5 "]\n\t" "adcx %[hi], %[" #T6 "]\n\t" \
    "movl $0, %%eax\n\t" "adox %%rax, %[" #T6 "]\n\t"

static inline void cz_fpx_mul_asm_(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, hi;
    /* After six rounds the value (< 2p) sits in t6, t0, t1, t2, t3, t4: it is stored, p is
     * subtracted in the registers, and the stored value comes back (cmovc) when that borrows.
     * r is written only after a and b have been read, so it may alias them. */
    __asm__ __volatile__(
        CZ_FPX_ROUND(0, t0, t1, t2, t3, t4, t5, t6)
        CZ_FPX_ROUND(1, t1, t2, t3, t4, t5, t6, t0)
        CZ_FPX_ROUND(2, t2, t3, t4, t5, t6, t0, t1)
        CZ_FPX_ROUND(3, t3, t4, t5, t6, t0, t1, t2)
        CZ_FPX_ROUND(4, t4, t5, t6, t0, t1, t2, t3)
        CZ_FPX_ROUND(5, t5, t6, t0, t1, t2, t3, t4)
        "movq %[t6], 0(%[o])\n\t" "movq %[t0], 8(%[o])\n\t" "movq %[t1], 16(%[o])\n\t"
        "movq %[t2], 24(%[o])\n\t" "movq %[t3], 32(%[o])\n\t" "movq %[t4], 40(%[o])\n\t"
        "subq %[p], %[t6]\n\t" "sbbq 8+%[p], %[t0]\n\t" "sbbq 16+%[p], %[t1]\n\t"
        "sbbq 24+%[p], %[t2]\n\t" "sbbq 32+%[p], %[t3]\n\t" "sbbq 40+%[p], %[t4]\n\t"
        "cmovcq 0(%[o]), %[t6]\n\t" "cmovcq 8(%[o]), %[t0]\n\t" "cmovcq 16(%[o]), %[t1]\n\t"
        "cmovcq 24(%[o]), %[t2]\n\t" "cmovcq 32(%[o]), %[t3]\n\t" "cmovcq 40(%[o]), %[t4]\n\t"
        "movq %[t6], 0(%[o])\n\t" "movq %[t0], 8(%[o])\n\t" "movq %[t1], 16(%[o])\n\t"
        "movq %[t2], 24(%[o])\n\t" "movq %[t3], 32(%[o])\n\t" "movq %[t4], 40(%[o])\n\t"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
          [t5] "+&r"(t5), [t6] "+&r"(t6), [hi] "=&r"(hi)
        : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l), [p] "m"(*(const uint64_t(*)[6])cz_fpx_p_),
          [inv] "m"(cz_fpx_inv_)
        : "rax", "rdx", "cc", "memory");
}
#endif

/* r = a + b mod p. a + b < 2^382 never carries out of 6 limbs; the sum is stored, then s - p is
 * kept unless it borrows (cmov from the stored sum). */
static inline void cz_fpx_add(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    uint64_t r0, r1, r2, r3, r4, r5;
    __asm__ __volatile__("movq 0(%[a]), %[r0]\n\t" "movq 8(%[a]), %[r1]\n\t" "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t" "movq 32(%[a]), %[r4]\n\t" "movq 40(%[a]), %[r5]\n\t"
            "addq 0(%[b]), %[r0]\n\t" "adcq 8(%[b]), %[r1]\n\t" "adcq 16(%[b]), %[r2]\n\t"
            "adcq 24(%[b]), %[r3]\n\t" "adcq 32(%[b]), %[r4]\n\t" "adcq 40(%[b]), %[r5]\n\t"
            "movq %[r0], 0(%[o])\n\t" "movq %[r1], 8(%[o])\n\t" "movq %[r2], 16(%[o])\n\t"
            "movq %[r3], 24(%[o])\n\t" "movq %[r4], 32(%[o])\n\t" "movq %[r5], 40(%[o])\n\t"
            "subq %[p], %[r0]\n\t" "sbbq 8+%[p], %[r1]\n\t" "sbbq 16+%[p], %[r2]\n\t"
            "sbbq 24+%[p], %[r3]\n\t" "sbbq 32+%[p], %[r4]\n\t" "sbbq 40+%[p], %[r5]\n\t"
            "cmovcq 0(%[o]), %[r0]\n\t" "cmovcq 8(%[o]), %[r1]\n\t" "cmovcq 16(%[o]), %[r2]\n\t"
            "cmovcq 24(%[o]), %[r3]\n\t" "cmovcq 32(%[o]), %[r4]\n\t" "cmovcq 40(%[o]), %[r5]\n\t"
            "movq %[r0], 0(%[o])\n\t" "movq %[r1], 8(%[o])\n\t" "movq %[r2], 16(%[o])\n\t"
            "movq %[r3], 24(%[o])\n\t" "movq %[r4], 32(%[o])\n\t" "movq %[r5], 40(%[o])\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5)
            : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l), [p] "m"(*(const uint64_t(*)[6])cz_fpx_p_)
            : "cc", "memory");
}

/* r = a - b mod p: the difference is stored, d + p computed, and d restored when nothing borrowed. */
static inline void cz_fpx_sub(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    uint64_t r0, r1, r2, r3, r4, r5, m;
    __asm__ __volatile__("movq 0(%[a]), %[r0]\n\t" "movq 8(%[a]), %[r1]\n\t" "movq 16(%[a]), %[r2]\n\t"
            "movq 24(%[a]), %[r3]\n\t" "movq 32(%[a]), %[r4]\n\t" "movq 40(%[a]), %[r5]\n\t"
            "subq 0(%[b]), %[r0]\n\t" "sbbq 8(%[b]), %[r1]\n\t" "sbbq 16(%[b]), %[r2]\n\t"
            "sbbq 24(%[b]), %[r3]\n\t" "sbbq 32(%[b]), %[r4]\n\t" "sbbq 40(%[b]), %[r5]\n\t"
            "sbbq %[m], %[m]\n\t"
            "movq %[r0], 0(%[o])\n\t" "movq %[r1], 8(%[o])\n\t" "movq %[r2], 16(%[o])\n\t"
            "movq %[r3], 24(%[o])\n\t" "movq %[r4], 32(%[o])\n\t" "movq %[r5], 40(%[o])\n\t"
            "addq %[p], %[r0]\n\t" "adcq 8+%[p], %[r1]\n\t" "adcq 16+%[p], %[r2]\n\t"
            "adcq 24+%[p], %[r3]\n\t" "adcq 32+%[p], %[r4]\n\t" "adcq 40+%[p], %[r5]\n\t"
            "testq %[m], %[m]\n\t"
            "cmovzq 0(%[o]), %[r0]\n\t" "cmovzq 8(%[o]), %[r1]\n\t" "cmovzq 16(%[o]), %[r2]\n\t"
            "cmovzq 24(%[o]), %[r3]\n\t" "cmovzq 32(%[o]), %[r4]\n\t" "cmovzq 40(%[o]), %[r5]\n\t"
            "movq %[r0], 0(%[o])\n\t" "movq %[r1], 8(%[o])\n\t" "movq %[r2], 16(%[o])\n\t"
            "movq %[r3], 24(%[o])\n\t" "movq %[r4], 32(%[o])\n\t" "movq %[r5], 40(%[o])\n\t"
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5),
              [m] "=&r"(m)
            : [a] "r"(a->l), [b] "r"(b->l), [o] "r"(r->l), [p] "m"(*(const uint64_t(*)[6])cz_fpx_p_)
            : "cc", "memory");
}

#if defined(__ADX__) && defined(__BMI2__)
static inline void cz_fpx_mul(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fpx_mul_asm_(r, a, b); }
#else
static inline void cz_fpx_mul(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fp_mul(r, a, b); }
#endif
#else
#define CZ_FP_MULX_ASM 0
static inline void cz_fpx_mul(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fp_mul(r, a, b); }
static inline void cz_fpx_add(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fp_add(r, a, b); }
static inline void cz_fpx_sub(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fp_sub(r, a, b); }
#endif

static inline void cz_fpx_sqr(cz_fp *r, const cz_fp *a) { cz_fpx_mul(r, a, a); }

#endif
