/* Radix-2 NTT over Fr, in place, natural order in and out.
 *
 * Forward is the "CRT tree" form of Cooley-Tukey: reducing a polynomial mod x^2m - c^2 into
 * x^m - c and x^m + c is the butterfly (lo, hi) -> (lo + c*hi, lo - c*hi), applied to natural-order
 * coefficients it ends with the evaluations in bit-reversed order, and a bit-reversal permutation
 * restores natural order. Its attraction is that all butterflies of a block share one twiddle:
 * block k (at any depth) uses R[k] = w^rev(k) (rev over log_n - 1 bits), so the inner loops run over
 * contiguous memory with a single constant. The inverse runs the Gentleman-Sande butterflies
 * (x, y) -> (x + y, (x - y)/c) in the reverse order after the bit reversal, then scales by 1/n.
 *
 * Cache: the log_n stages are cut into groups of at most GROUP_BITS stages; one pass over memory
 * runs a whole group. A tile of a group fixes the index bits outside the group's bits and takes
 * CHUNK consecutive low indices, so it is 2^t rows of CHUNK contiguous elements; it is copied to a
 * per-thread buffer (power-of-two strides would otherwise thrash the cache sets), transformed there
 * and copied back. The last group's tiles are contiguous blocks and are transformed in place.
 * Twiddles: R[k] for a tile is R[m] * R[hi << v] (disjoint bit fields reverse independently), so only
 * R[0 .. 2^(GROUP_BITS-1)) and a two-level power table w^e = lo[e mod 2^h] * hi[e >> h] are kept:
 * about 1 MiB at 2^28 instead of the 4 GiB a full table would take. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "poly/ntt.h"

/* Tile shape; overridable at build time for tuning experiments. */
#ifndef GROUP_BITS
#define GROUP_BITS 11    /* stages per pass over memory */
#endif
#ifndef CHUNK
#define CHUNK 8          /* contiguous elements per tile row (8 x 32 B = four cache lines) */
#endif
#define BITREV_BITS 5    /* bit reversal swaps 2^5 x 2^5 tiles */
#define PAR_MIN_LOG 12   /* smaller transforms run on one thread (fork/join costs more) */
#define SCALE_BLOCK 4096 /* elements per task in divide_by_z */

static uint64_t rev_bits(uint64_t x, unsigned bits) {
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - bits);
}

/* Per-call workspace: twiddle tables for one root and per-thread tile buffers. */
typedef struct {
    unsigned log_n;
    unsigned pow_bits;     /* h of the two-level power table */
    cz_fr *pow_lo, *pow_hi; /* w^i, i < 2^h; w^(i*2^h), i < 2^(log_n-1-h) */
    cz_fr *rt;             /* rt[m] = w^rev(m), m < 2^(GROUP_BITS-1) (or n/2 if smaller) */
    cz_fr *scratch;        /* nthreads * scratch_per_thread */
    size_t scratch_per_thread;
    int nthreads;
    int par;
    int coset;             /* evaluate on the coset s*<w>: depth d twiddles carry s^(2^(log_n-1-d)) */
    cz_fr shift_pow[CZ_NTT_MAX_LOG];
    void *mem;
} ntt_plan;

/* Stage groups: as few passes as GROUP_BITS allows, sizes balanced (first groups take the extra). */
static unsigned group_sizes(unsigned log_n, unsigned sizes[]) {
    unsigned ng = (log_n + GROUP_BITS - 1) / GROUP_BITS;
    for (unsigned i = 0; i < ng; i++) sizes[i] = log_n / ng + (i < log_n % ng);
    return ng;
}

/* Per-thread scratch in elements: a tile's twiddles and, for strided tiles, its rows; or the two
 * bit-reversal tiles. Sized to the transform so that small ones do not fault in fresh pages. */
static size_t group_scratch(unsigned log_n) {
    unsigned sizes[CZ_NTT_MAX_LOG];
    unsigned ng = group_sizes(log_n, sizes), u = 0;
    size_t need = 0;
    for (unsigned g = 0; g < ng; g++) {
        unsigned t = sizes[g], lb = log_n - u - t;
        size_t stride = (size_t)1 << lb, c = lb == 0 ? 0 : stride < CHUNK ? stride : CHUNK;
        size_t tile = ((size_t)1 << t) * (1 + c);
        if (tile > need) need = tile;
        u += t;
    }
    size_t brev = log_n >= 2 * BITREV_BITS + 1 ? (size_t)2 << (2 * BITREV_BITS) : 0;
    return need > brev ? need : brev;
}

/* w^e for e < n/2 */
static void plan_pow(cz_fr *r, const ntt_plan *p, uint64_t e) {
    uint64_t mask = ((uint64_t)1 << p->pow_bits) - 1;
    cz_fr_mul(r, &p->pow_lo[e & mask], &p->pow_hi[e >> p->pow_bits]);
}

static int plan_init(ntt_plan *p, unsigned log_n, const cz_fr *w, const cz_fr *shift) {
    memset(p, 0, sizeof *p);
    p->log_n = log_n;
    p->par = log_n >= PAR_MIN_LOG;
    p->nthreads = p->par ? omp_get_max_threads() : 1;
    if (p->nthreads < 1) p->nthreads = 1;
    unsigned eb = log_n ? log_n - 1 : 0; /* exponents of the twiddles are < 2^eb */
    p->pow_bits = (eb + 1) / 2;
    size_t nlo = (size_t)1 << p->pow_bits, nhi = (size_t)1 << (eb - p->pow_bits);
    unsigned rb = eb < GROUP_BITS - 1 ? eb : GROUP_BITS - 1;
    size_t nrt = (size_t)1 << rb;
    p->scratch_per_thread = group_scratch(log_n);
    size_t total = nlo + nhi + nrt + p->scratch_per_thread * (size_t)p->nthreads;
    total += total & 1; /* aligned_alloc wants a multiple of the 64-byte alignment */
    p->mem = aligned_alloc(64, total * sizeof(cz_fr));
    if (!p->mem) return cz_error(CZ_ENOMEM, "NTT 2^%u: cannot allocate %zu bytes of workspace", log_n, total * sizeof(cz_fr));
    p->pow_lo = p->mem;
    p->pow_hi = p->pow_lo + nlo;
    p->rt = p->pow_hi + nhi;
    p->scratch = p->rt + nrt;

    p->pow_lo[0] = CZ_FR_ONE_V;
    for (size_t i = 1; i < nlo; i++) cz_fr_mul(&p->pow_lo[i], &p->pow_lo[i - 1], w);
    cz_fr step;
    cz_fr_mul(&step, &p->pow_lo[nlo - 1], w); /* w^(2^h) */
    p->pow_hi[0] = CZ_FR_ONE_V;
    for (size_t i = 1; i < nhi; i++) cz_fr_mul(&p->pow_hi[i], &p->pow_hi[i - 1], &step);
    for (size_t m = 0; m < nrt; m++) plan_pow(&p->rt[m], p, rev_bits(m, eb));
    if (shift) {
        /* The coset's tree starts from x^n - s^n, so a split at depth d takes square roots of
         * s^(n/2^d): every twiddle there gains the factor s^(n/2^(d+1)). */
        p->coset = 1;
        p->shift_pow[log_n - 1] = *shift;
        for (unsigned dd = log_n - 1; dd-- > 0;) cz_fr_sqr(&p->shift_pow[dd], &p->shift_pow[dd + 1]);
    }
    return 0;
}

static void plan_free(ntt_plan *p) { free(p->mem); }

/* tw[2^v + m] = R[(hi << v) + m] (times the coset factor of depth u + v) for v < t, m < 2^v: the
 * twiddles of one tile of the group starting at depth u. */
static void tile_twiddles(cz_fr *tw, const ntt_plan *p, uint64_t hi, unsigned u, unsigned t) {
    unsigned eb = p->log_n - 1;
    for (unsigned v = 0; v < t; v++) {
        cz_fr *row = tw + ((size_t)1 << v);
        size_t cnt = (size_t)1 << v;
        if (hi == 0 && !p->coset) {
            memcpy(row, p->rt, cnt * sizeof(cz_fr));
            continue;
        }
        cz_fr base = CZ_FR_ONE_V;
        if (hi) plan_pow(&base, p, rev_bits(hi << v, eb));
        if (p->coset) cz_fr_mul(&base, &base, &p->shift_pow[u + v]);
        for (size_t m = 0; m < cnt; m++) cz_fr_mul(&row[m], &p->rt[m], &base);
    }
}

/* The butterflies of a tile: 2^t rows of c elements at buf; rows of a block are contiguous, so each
 * (stage, block) is one run of contiguous pairs with one twiddle. Instantiated once per Fr multiply
 * (ff/fr.h: assembly on x86-64 with ADX, portable C otherwise). */
#define CZ_NTT_KERNELS(sfx, MUL, ADD, SUB)                                                 \
    static void tile_forward_##sfx(cz_fr *buf, unsigned t, size_t c, const cz_fr *tw) { \
        for (unsigned v = 0; v < t; v++) {                                         \
            size_t half = ((size_t)1 << (t - v - 1)) * c, nblk = (size_t)1 << v;   \
            for (size_t m = 0; m < nblk; m++) {                                    \
                cz_fr *x = buf + 2 * m * half, *y = x + half;                      \
                const cz_fr w = tw[nblk + m];                                      \
                for (size_t j = 0; j < half; j++) {                                \
                    cz_fr q;                                                       \
                    MUL(&q, &y[j], &w);                                            \
                    SUB(&y[j], &x[j], &q);                                         \
                    ADD(&x[j], &x[j], &q);                                         \
                }                                                                  \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    static void tile_inverse_##sfx(cz_fr *buf, unsigned t, size_t c, const cz_fr *tw) { \
        for (unsigned v = t; v-- > 0;) {                                           \
            size_t half = ((size_t)1 << (t - v - 1)) * c, nblk = (size_t)1 << v;   \
            for (size_t m = 0; m < nblk; m++) {                                    \
                cz_fr *x = buf + 2 * m * half, *y = x + half;                      \
                const cz_fr w = tw[nblk + m];                                      \
                for (size_t j = 0; j < half; j++) {                                \
                    cz_fr d;                                                       \
                    SUB(&d, &x[j], &y[j]);                                         \
                    ADD(&x[j], &x[j], &y[j]);                                      \
                    MUL(&y[j], &d, &w);                                            \
                }                                                                  \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    static void scale_run_##sfx(cz_fr *a, size_t len, const cz_fr *s) {            \
        for (size_t i = 0; i < len; i++) MUL(&a[i], &a[i], s);                     \
    }

CZ_NTT_KERNELS(c, cz_fr_mul, cz_fr_add, cz_fr_sub)

/* One pass: stages u .. u+t-1 (depths in the CRT tree) on every tile; scale (if not NULL)
 * multiplies every element after the butterflies. */
static void run_group(cz_fr *a, const ntt_plan *p, unsigned u, unsigned t, int inverse, const cz_fr *scale) {
    unsigned lb = p->log_n - u - t;
    size_t stride = (size_t)1 << lb;
    size_t c = stride < CHUNK ? stride : CHUNK;
    size_t nch = stride / c, ntiles = ((size_t)1 << u) * nch, rows = (size_t)1 << t;
#pragma omp parallel num_threads(p->nthreads) if (p->par)
    {
        cz_fr *tw = p->scratch + (size_t)omp_get_thread_num() * p->scratch_per_thread;
        cz_fr *buf = tw + rows;
        uint64_t cur_hi = UINT64_MAX;
#pragma omp for schedule(static)
        for (size_t tile = 0; tile < ntiles; tile++) {
            uint64_t hi = tile / nch;
            size_t lo0 = (tile % nch) * c;
            if (hi != cur_hi) {
                tile_twiddles(tw, p, hi, u, t);
                cur_hi = hi;
            }
            cz_fr *base = a + (hi << (t + lb)) + lo0;
            cz_fr *work = base;
            if (lb) {
                for (size_t r = 0; r < rows; r++) memcpy(buf + r * c, base + r * stride, c * sizeof(cz_fr));
                work = buf;
            }
            if (inverse)
                tile_inverse_c(work, t, c, tw);
            else
                tile_forward_c(work, t, c, tw);
            if (scale) scale_run_c(work, rows * c, scale);
            if (lb)
                for (size_t r = 0; r < rows; r++) memcpy(base + r * stride, buf + r * c, c * sizeof(cz_fr));
        }
    }
}

static void bitreverse(cz_fr *a, const ntt_plan *p) {
    unsigned L = p->log_n;
    if (L < 2 * BITREV_BITS + 1) {
        size_t n = (size_t)1 << L;
        for (size_t i = 0; i < n; i++) {
            size_t j = rev_bits(i, L);
            if (i < j) {
                cz_fr t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        return;
    }
    /* index = (x, b, y) with x, y of BITREV_BITS bits: rev = (rev y, rev b, rev x), so the 2^5 x 2^5
     * tile at middle b swaps with the one at rev b, reading and writing whole 1 KiB rows. */
    const unsigned q = BITREV_BITS, mb = L - 2 * q;
    const size_t side = (size_t)1 << q, nb = (size_t)1 << mb;
#pragma omp parallel num_threads(p->nthreads) if (p->par)
    {
        cz_fr *t1 = p->scratch + (size_t)omp_get_thread_num() * p->scratch_per_thread;
        cz_fr *t2 = t1 + side * side;
        uint8_t rq[1 << BITREV_BITS];
        for (size_t i = 0; i < side; i++) rq[i] = (uint8_t)rev_bits(i, q);
#pragma omp for schedule(static)
        for (size_t b = 0; b < nb; b++) {
            size_t br = rev_bits(b, mb);
            if (br < b) continue;
            for (size_t x = 0; x < side; x++) {
                memcpy(t1 + x * side, a + (x << (L - q)) + (b << q), side * sizeof(cz_fr));
                if (br != b) memcpy(t2 + x * side, a + (x << (L - q)) + (br << q), side * sizeof(cz_fr));
            }
            for (size_t x = 0; x < side; x++) {
                cz_fr *dst = a + (x << (L - q)) + (br << q);
                for (size_t y = 0; y < side; y++) dst[y] = t1[rq[y] * side + rq[x]];
                if (br != b) {
                    dst = a + (x << (L - q)) + (b << q);
                    for (size_t y = 0; y < side; y++) dst[y] = t2[rq[y] * side + rq[x]];
                }
            }
        }
    }
}

/* shift: transform on the coset shift*<w> (forward: evaluate there; inverse: interpolate from
 * there, with shift = g^-1); scale: multiply every result by it (folded into the last pass). */
static int transform(const cz_domain *d, cz_fr *a, int inverse, const cz_fr *shift, const cz_fr *scale) {
    unsigned L = d->log_n;
    if (L > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "NTT domain 2^%u is larger than 2^%u", L, CZ_NTT_MAX_LOG);
    if (L == 0) {
        if (scale) cz_fr_mul(&a[0], &a[0], scale);
        return 0;
    }
    ntt_plan p;
    int rc = plan_init(&p, L, inverse ? &d->omega_inv : &d->omega, shift);
    if (rc) return rc;
    unsigned sizes[CZ_NTT_MAX_LOG];
    unsigned ng = group_sizes(L, sizes);
    if (!inverse) {
        unsigned u = 0;
        for (unsigned g = 0; g < ng; g++) {
            run_group(a, &p, u, sizes[g], 0, NULL);
            u += sizes[g];
        }
        bitreverse(a, &p);
    } else {
        bitreverse(a, &p);
        unsigned u = L;
        for (unsigned g = ng; g-- > 0;) {
            u -= sizes[g];
            run_group(a, &p, u, sizes[g], 1, g == 0 ? scale : NULL);
        }
    }
    plan_free(&p);
    return 0;
}

int cz_ntt_forward(const cz_domain *d, cz_fr *a) { return transform(d, a, 0, NULL, NULL); }

int cz_ntt_inverse(const cz_domain *d, cz_fr *a) { return transform(d, a, 1, NULL, &d->n_inv); }

/* Same as scaling a_i by g^i and then the forward transform, without the extra pass. */
int cz_ntt_coset_forward(const cz_domain *d, cz_fr *a) { return transform(d, a, 0, &d->g, NULL); }

/* Same as the inverse transform and then scaling a_i by g^-i. */
int cz_ntt_coset_inverse(const cz_domain *d, cz_fr *a) { return transform(d, a, 1, &d->g_inv, &d->n_inv); }

int cz_ntt_z_coset_inv(const cz_domain *d, cz_fr *zinv) {
    cz_fr z = d->g;
    for (unsigned i = 0; i < d->log_n; i++) cz_fr_sqr(&z, &z);
    cz_fr_sub(&z, &z, &CZ_FR_ONE_V);
    if (cz_fr_inv(zinv, &z)) return cz_error(CZ_EINVAL, "Z vanishes on the coset (g^n = 1)");
    return 0;
}

int cz_ntt_divide_by_z_on_coset(const cz_domain *d, cz_fr *a) {
    if (d->log_n > CZ_NTT_MAX_LOG) return cz_error(CZ_ERANGE, "NTT domain 2^%u is larger than 2^%u", d->log_n, CZ_NTT_MAX_LOG);
    cz_fr zinv;
    int rc = cz_ntt_z_coset_inv(d, &zinv);
    if (rc) return rc;
    size_t n = d->n, nblk = (n + SCALE_BLOCK - 1) / SCALE_BLOCK;
#pragma omp parallel for schedule(static) if (d->log_n >= PAR_MIN_LOG)
    for (size_t blk = 0; blk < nblk; blk++) {
        size_t start = blk * SCALE_BLOCK, end = start + SCALE_BLOCK < n ? start + SCALE_BLOCK : n;
        scale_run_c(a + start, end - start, &zinv);
    }
    return 0;
}
