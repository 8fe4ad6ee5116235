/* Fast Montgomery multiplication in Fp for the pairing tower (x86-64 with BMI2 + ADX: mulx and the
 * two carry chains adcx/adox), about 3x quicker than the portable C of mont_impl.h on gcc, which
 * dominates the Miller loop and the final exponentiation. Same result as cz_fp_mul (fully reduced);
 * falls back to cz_fp_mul elsewhere or on CPUs without ADX (checked per call: a cached flag).
 * Define CZ_NO_ASM to force the portable path. Outputs may alias inputs. */
#ifndef CZ_FF_FP_MULX_H
#define CZ_FF_FP_MULX_H

#include "ff/fp.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CZ_NO_ASM)
#define CZ_FP_MULX_ASM 1

static const uint64_t cz_fpx_p_[6] = CZ_FP_MODULUS;
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
    __asm__(CZ_FPX_ROUND(0, t0, t1, t2, t3, t4, t5, t6)
            CZ_FPX_ROUND(1, t1, t2, t3, t4, t5, t6, t0)
            CZ_FPX_ROUND(2, t2, t3, t4, t5, t6, t0, t1)
            CZ_FPX_ROUND(3, t3, t4, t5, t6, t0, t1, t2)
            CZ_FPX_ROUND(4, t4, t5, t6, t0, t1, t2, t3)
            CZ_FPX_ROUND(5, t5, t6, t0, t1, t2, t3, t4)
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
              [t5] "+&r"(t5), [t6] "+&r"(t6), [hi] "=&r"(hi)
            : [a] "r"(a->l), [b] "r"(b->l), [p] "m"(*(const uint64_t(*)[6])cz_fpx_p_), [inv] "m"(cz_fpx_inv_)
            : "rax", "rdx", "cc", "memory");
    /* After six rounds the value (< 2p) sits in t6, t0, t1, t2, t3, t4. */
    uint64_t t[6] = {t6, t0, t1, t2, t3, t4};
    (void)t5;
    cz_fp_reduce_once_(r->l, t);
}

static inline void cz_fpx_mul(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    if (__builtin_expect(__builtin_cpu_supports("adx") && __builtin_cpu_supports("bmi2"), 1)) {
        cz_fpx_mul_asm_(r, a, b);
    } else {
        cz_fp_mul(r, a, b);
    }
}
#else
#define CZ_FP_MULX_ASM 0
static inline void cz_fpx_mul(cz_fp *r, const cz_fp *a, const cz_fp *b) { cz_fp_mul(r, a, b); }
#endif

static inline void cz_fpx_sqr(cz_fp *r, const cz_fp *a) { cz_fpx_mul(r, a, a); }

#endif
