/* Helpers shared by the MSM and batch-addition templates (not part of the public API; exposed so
 * the tests can check the recoding and the plan directly). */
#ifndef CZ_EC_MSM_INTERNAL_H
#define CZ_EC_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

typedef struct {
    unsigned c;       /* window width in bits; 2^(c-1) buckets */
    unsigned windows; /* ceil(256 / c) */
    size_t chunks;    /* point chunks per window */
    size_t batch;     /* batch-affine buckets with batches of this many points; 0: xyzz buckets */
} cz_msm_plan;

/* The plan for n points on t threads; group 1 (G1) or 2 (G2): the relative cost of an inversion differs.
 * Scalars below 2^bits (1..255; windows = ceil((bits + 1) / c)); cz_msm_plan_ is bits = 255. */
cz_msm_plan cz_msm_plan_(size_t n, int nthreads, unsigned group);
cz_msm_plan cz_msm_plan_bits_(size_t n, int nthreads, unsigned group, unsigned bits);
/* Tests only: when c != 0, cz_msm_plan_ returns this plan (chunks and batch as given, windows
 * derived), so that small inputs can be pushed through the batch-affine path with tiny batches. */
extern cz_msm_plan cz_msm_force_plan_;
/* malloc that aborts with a message (0/1 batch addition only: its API has no error return). */
void *cz_msm_alloc_(size_t size);

/* The endomorphism split of a plain scalar k < 2^255: k = k0 + k1 L as integers with L = x^2 (x the
 * BLS parameter), 0 <= k0 < L < 2^128 and 0 <= k1 < 2^128. */
void cz_msm_glv_split_(uint64_t k0[2], uint64_t k1[2], const uint64_t k[4]);
/* [x^2] as the subgroup MSMs compute it: (beta x, -y) on G1, psi^2 on G2 (exposed for the tests), and
 * the constants behind them (beta; the Fp factors of psi^2 on x and y). */
void cz_g1_msm_endo_(cz_g1_affine *r, const cz_g1_affine *p);
void cz_g2_msm_endo_(cz_g2_affine *r, const cz_g2_affine *p);
void cz_msm_endo_consts_(cz_fp *beta, cz_fp *psi2_x, cz_fp *psi2_y);

/* How the batch-affine path adds a point to a bucket: distinct x, doubling, or opposite points. */
enum { CZ_MSM_BA_ADD, CZ_MSM_BA_DBL, CZ_MSM_BA_INF, CZ_MSM_BA_NEG = 4 };

/* len (<= 32) bits of the 256-bit little-endian integer k starting at bit pos (zeros beyond 255). */
static inline uint64_t cz_msm_bits_(const uint64_t k[4], unsigned pos, unsigned len) {
    unsigned limb = pos >> 6, off = pos & 63;
    if (limb >= 4) return 0;
    uint64_t v = k[limb] >> off;
    if (off + len > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
    return v & (((uint64_t)1 << len) - 1);
}

/* Signed (Booth) digit w of k for width c: d = v_w + b_{wc-1} - 2^c b_{wc+c-1}, where v_w is the
 * c-bit window. Digits lie in [-2^(c-1), 2^(c-1)] and sum_w d_w 2^(wc) = k for k < 2^255 with
 * ceil(256/c) windows. Each digit depends only on its own bits, so windows need no carry pass. */
static inline int cz_msm_digit_(const uint64_t k[4], unsigned w, unsigned c) {
    uint64_t u = w == 0 ? cz_msm_bits_(k, 0, c) << 1 : cz_msm_bits_(k, w * c - 1, c + 1);
    return (int)(u >> 1) + (int)(u & 1) - (int)(((u >> c) & 1) << c);
}

#endif
