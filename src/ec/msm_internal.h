/* Helpers shared by the MSM and batch-addition templates (not part of the public API; exposed so
 * the tests can check the recoding and the plan directly). */
#ifndef CZ_EC_MSM_INTERNAL_H
#define CZ_EC_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned c;       /* window width in bits; 2^(c-1) buckets */
    unsigned windows; /* ceil(256 / c) */
    size_t chunks;    /* point chunks per window */
} cz_msm_plan;

cz_msm_plan cz_msm_plan_(size_t n, int nthreads);
/* malloc that aborts with a message: the MSM API has no error return, and running out of memory
 * for a few MiB of buckets leaves nothing sensible to do. */
void *cz_msm_alloc_(size_t size);

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
