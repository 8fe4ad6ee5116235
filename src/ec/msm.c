/* CPU Pippenger MSM for G1 and G2: the window plan and signed-digit recoding shared by both groups,
 * and the two instantiations of msm_impl.h. */
#include <stdint.h>
/* The bucket loops make ~6 Fp products per point; GCC otherwise keeps the ADX product out of line
 * here, and the call with its register saves costs ~2 % of an MSM (single-thread prove at 2^16:
 * 2.47 -> 2.41 s CPU). Redeclared before its definition (ff/mont_asm_x86.h, included through
 * ec/msm.h) to force it inline in this file only. Same condition as ff/fp.h's. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(CZ_NO_ASM) && !defined(__CUDACC__) && \
    defined(__ADX__) && defined(__BMI2__)
static inline __attribute__((always_inline)) void cz_mont_mul6_adx(uint64_t r[6], const uint64_t a[6],
                                                                   const uint64_t b[6], const uint64_t p[6],
                                                                   uint64_t inv);
#endif
#include "ec/msm.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cz_error.h"
#include "ec/ec_endo.h"
#include "ec/msm_internal.h"

/* 2^15 buckets (6 MiB in G1, 12 MiB in G2) per thread at most: beyond that the buckets stop fitting
 * in any cache and the saved windows no longer pay for the misses. */
#define CZ_MSM_MAX_C 16
/* Batch-affine buckets: batches of at most CZ_MSM_BATCH points and at most a quarter of the buckets
 * (a fuller batch meets its own buckets too often and queues more points than it adds). Below
 * CZ_MSM_BA_MIN_C the batches are too small for the inversion to pay. */
#define CZ_MSM_BATCH 1024
#define CZ_MSM_BA_MIN_C 10

cz_msm_plan cz_msm_force_plan_;

void *cz_msm_alloc_(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "cuzk: out of memory allocating %zu bytes for a batch addition\n", size);
        abort();
    }
    return p;
}

void *cz_msm_big_alloc(size_t size) {
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (size >= huge) {
        void *p = aligned_alloc(huge, (size + huge - 1) / huge * huge);
        if (p) {
            madvise(p, size, MADV_HUGEPAGE); /* advice only */
            return p;
        }
    }
#endif
    return malloc(size ? size : 1);
}

/* Picks the window width c, the number of point chunks and the bucket kind by a cost model counted
 * in xyzz mixed additions (~10 products): each task (window, chunk) pays per point of its chunk one
 * mixed addition (xyzz buckets) or ~0.6 plus its share of a batch inversion (batch-affine), and per
 * bucket of its reduction ~3 (two general additions) or ~2.8 (one mixed, one general addition with
 * affine buckets); tasks run in rounds of t. More chunks only help when there are fewer windows than
 * threads. The constants were fitted to cz_bench_msm timings on the 2-core build machine. */
cz_msm_plan cz_msm_plan_(size_t n, int t, unsigned group) { return cz_msm_plan_bits_(n, t, group, 255); }

cz_msm_plan cz_msm_plan_bits_(size_t n, int t, unsigned group, unsigned bits) {
    if (bits < 1) bits = 1;
    if (bits > 255) bits = 255;
    if (cz_msm_force_plan_.c) {
        cz_msm_plan f = cz_msm_force_plan_;
        f.windows = (bits + f.c) / f.c;
        if (f.chunks < 1) f.chunks = 1;
        return f;
    }
    /* One inversion in mixed additions: Fp's Fermat inversion is ~45 of G1's; Fp2's is one Fp
     * inversion plus a few products, ~15 of G2's (whose additions cost ~3x more). */
    const double inv_cost = group == 2 ? 15.0 : 45.0, ba_point = 0.62;
    cz_msm_plan best = {1, 256, 1, 0};
    double best_cost = -1;
    if (t < 1) t = 1;
    for (unsigned c = 1; c <= CZ_MSM_MAX_C; c++) {
        unsigned nw = (bits + c) / c; /* Booth digits cover bits + 1 bits (msm_internal.h) */
        size_t nb = (size_t)1 << (c - 1), cap = nb / 4 < CZ_MSM_BATCH ? nb / 4 : CZ_MSM_BATCH;
        for (size_t p = 1; p <= (size_t)4 * (size_t)t; p++) {
            if (p > 1 && n / p < 256) break;
            size_t tasks = (size_t)nw * p, rounds = (tasks + (size_t)t - 1) / (size_t)t;
            double per = (double)n / (double)p;
            double cost = (double)rounds * (per + 3.0 * (double)nb);
            if (best_cost < 0 || cost < best_cost) {
                best_cost = cost;
                best = (cz_msm_plan){c, nw, p, 0};
            }
            if (c < CZ_MSM_BA_MIN_C || per < 4.0 * (double)cap) continue;
            cost = (double)rounds * (per * (ba_point + inv_cost / (double)cap) + 2.8 * (double)nb);
            if (cost < best_cost) {
                best_cost = cost;
                best = (cz_msm_plan){c, nw, p, cap};
            }
        }
    }
    return best;
}

/* ---- the endomorphism split (cz_g1_msm_subgroup / cz_g2_msm_subgroup) ---- */

/* q = k / d, returns k mod d, for 4-limb k and a 64-bit d (each step's high word is below d, so
 * divq cannot overflow). */
static uint64_t divrem64_(uint64_t q[4], const uint64_t k[4], uint64_t d) {
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CZ_NO_ASM)
        uint64_t quo, lo = k[i];
        __asm__("divq %[d]" : "=a"(quo), "+d"(rem) : "a"(lo), [d] "r"(d) : "cc");
        q[i] = quo;
#else
        unsigned __int128 cur = (unsigned __int128)rem << 64 | k[i];
        q[i] = (uint64_t)(cur / d);
        rem = (uint64_t)(cur % d);
#endif
    }
    return rem;
}

/* k = r0 + r1 |x| + q |x|^2 by two divisions by |x|; then k0 = r0 + r1 |x| < |x|^2 and k1 = q, which is
 * below 2^128 since k < 2^255 and |x|^2 > 2^127. */
void cz_msm_glv_split_(uint64_t k0[2], uint64_t k1[2], const uint64_t k[4]) {
    uint64_t q1[4], q2[4];
    uint64_t r0 = divrem64_(q1, k, CZ_BLS_X_ABS);
    uint64_t r1 = divrem64_(q2, q1, CZ_BLS_X_ABS);
    unsigned __int128 lo = (unsigned __int128)r1 * CZ_BLS_X_ABS + r0;
    k0[0] = (uint64_t)lo;
    k0[1] = (uint64_t)(lo >> 64);
    k1[0] = q2[0];
    k1[1] = q2[1];
}

/* [x^2] on the subgroups. G1: phi(x, y) = (beta x, y) acts as [-x^2] (ec_endo.h), so [x^2]P = (beta x, -y).
 * G2: psi acts as [x], so [x^2]Q = psi^2(Q) = (x N(cx), y N(cy)) with N(c) = c conj(c) in Fp (psi applies
 * conj twice): two Fp products per point instead of psi's two Fp2 ones, twice. */
static cz_fp msm_beta_, msm_psi2_x_, msm_psi2_y_;
static pthread_once_t msm_endo_once_ = PTHREAD_ONCE_INIT;

static void msm_endo_once_init_(void) {
    cz_g1_glv_beta(&msm_beta_);
    cz_fp2 cx, cy, t;
    cz_g2_psi_coeffs(&cx, &cy);
    cz_fp2_conj(&t, &cx);
    cz_fp2_mul(&t, &t, &cx);
    msm_psi2_x_ = t.c0; /* t.c1 = 0: a norm (checked by test_msm) */
    cz_fp2_conj(&t, &cy);
    cz_fp2_mul(&t, &t, &cy);
    msm_psi2_y_ = t.c0;
}

void cz_msm_endo_consts_(cz_fp *beta, cz_fp *psi2_x, cz_fp *psi2_y) {
    pthread_once(&msm_endo_once_, msm_endo_once_init_);
    *beta = msm_beta_;
    *psi2_x = msm_psi2_x_;
    *psi2_y = msm_psi2_y_;
}

static void cz_g1_msm_endo_init_(void) { pthread_once(&msm_endo_once_, msm_endo_once_init_); }
static void cz_g2_msm_endo_init_(void) { pthread_once(&msm_endo_once_, msm_endo_once_init_); }

/* Infinity (0, 0) maps to (0, 0). */
static inline void cz_g1_msm_endo_map_(cz_g1_affine *r, const cz_g1_affine *p) {
    cz_fp_mul(&r->x, &p->x, &msm_beta_);
    cz_fp_neg(&r->y, &p->y);
}
static inline void cz_g2_msm_endo_map_(cz_g2_affine *r, const cz_g2_affine *p) {
    cz_fp2_mul_fp(&r->x, &p->x, &msm_psi2_x_);
    cz_fp2_mul_fp(&r->y, &p->y, &msm_psi2_y_);
}

void cz_g1_msm_endo_(cz_g1_affine *r, const cz_g1_affine *p) {
    cz_g1_msm_endo_init_();
    cz_g1_msm_endo_map_(r, p);
}
void cz_g2_msm_endo_(cz_g2_affine *r, const cz_g2_affine *p) {
    cz_g2_msm_endo_init_();
    cz_g2_msm_endo_map_(r, p);
}

#include "ec/ec_group_g1.h"
#include "ec/msm_impl.h"
#include "ec/ec_group_end.h"

/* G2's batch inversion runs in Fp: with N(d) = d0^2 + d1^2 (u^2 = -1), 1/d = conj(d) / N(d), so the
 * batch multiplies and inverts norms (3 Fp products per point plus 2 squarings and 2 products for
 * N(d) and conj(d)/N(d)) instead of Fp2 elements (3 Fp2 products, ~11 Fp products). */
static inline void msm_g2_norm_(cz_fp *k, const cz_fp2 *d) {
    cz_fp t;
    cz_fp_sqr(k, &d->c0);
    cz_fp_sqr(&t, &d->c1);
    cz_fp_add(k, k, &t);
}
static inline void msm_g2_div_norm_(cz_fp2 *r, const cz_fp2 *d, const cz_fp *inv_norm) {
    cz_fp_mul(&r->c0, &d->c0, inv_norm);
    cz_fp_mul(&r->c1, &d->c1, inv_norm);
    cz_fp_neg(&r->c1, &r->c1);
}
#define MSM_NORM_INV msm_g2_norm_
#define MSM_NORM_DIV msm_g2_div_norm_
#include "ec/ec_group_g2.h"
#include "ec/msm_impl.h"
#include "ec/ec_group_end.h"
#undef MSM_NORM_INV
#undef MSM_NORM_DIV
