/* Fr NTT on device memory.
 *
 * The transform is split into passes of K <= 10 radix-2 stages (2^27 = 9+9+9). A pass sees the array as
 * independent sub-problems of size N' = 2^(K+m) (m = stages left after this pass) and, for each residue
 * L mod 2^m, does a size-2^K DIF over the elements L + a*2^m with the primitive 2^K-th root, then
 * multiplies output f1 (bit-reversed position) by the four-step twiddle w'^(L*f1), w' = omega^(2^s0).
 * A run of these passes (DIF) takes natural order to bit-reversed order. The transposed network (DIT:
 * the passes in reverse order, each with its twiddle on the loads and Cooley-Tukey butterflies in
 * reverse stage order) takes bit-reversed order to natural order: F*P = (P*F)^T, F symmetric.
 *
 * Inside a pass (kernel 2, the default; ntt_pass_shfl, and for strided passes of K = 7..9 ntt_pass_tile, which
 * stages the sub-problem in shared memory with cp.async first) each thread holds two elements in registers and does
 * one butterfly per stage; the pair moves between stages by warp shuffles, with one exchange through
 * shared memory per pass (K >= 6; smaller passes use kernel 0, ntt_pass: one butterfly per thread per stage
 * through shared memory, selectable for all K with CZ_GPU_NTT_KERNEL=0). Tried and measured slower on the
 * H200: 8 elements per thread in registers (commit 26f2663 of branch gpuntt: 58.8 ms at 2^27 against 53.0
 * for kernel 0), and the next sub-problem's loads in flight through cp.async in a loop of 8 per block
 * (commit b9f20d6 of branch ntt4: 51.2 ms against 48.7 for kernel 1; 48 KiB of shared memory per block,
 * 64 registers).
 *
 * Twiddles: omega^e for any e < 2^28 is one product of two 2^14-entry tables; the second pass of a
 * three-pass transform instead reads a direct table (2^18 entries at 2^27: one load, no product). Kernel 2's
 * passes of K <= 9 multiply by table entries with Shoup's product by a constant (field.cuh mul_shoup), from
 * a copy of every table as (c, floor(c 2^256 / r)) pairs that the plan makes on the device.
 *
 * The public cz_gpu_ntt_run keeps natural order in and out (DIF passes, then one in-place bit-reversal
 * kernel that also applies the inverse's 1/n and the coset's g^-i). The H pipeline uses the
 * order-agnostic steps of cz_gpu_ntt_h_step_ (DIF to bit-reversed, DIT back to natural) with the
 * coset and 1/n factors folded into a pass, so it never runs a permutation pass; the inverse's last
 * pass and the coset forward's first pass work on the same contiguous blocks and run as one kernel.
 * Fr elements are 32 B, one DRAM sector, so the strided loads of the early passes waste no bytes. */
#include <atomic>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"

#define CZ_NTT_MAX_PASSES 3

struct cz_gpu_ntt {
    unsigned log_n;
    unsigned np, K[CZ_NTT_MAX_PASSES], s0[CZ_NTT_MAX_PASSES]; /* DIF pass order */
    int dpass;                                                 /* pass that reads the direct tables, or -1 */
    cz_dfr *tables;                                            /* device, CZ_NTT_T_TOTAL elements */
    cz_dfr *direct;                                            /* device, forward then inverse, dsize each */
    size_t dsize;
    /* the same tables as Shoup pairs (entry i: c at 2i, cp at 2i + 1; ntt_shoup_prep), for kernel 2's products by
     * a constant (field.cuh mul_shoup); NULL when CZ_GPU_NTT_SHOUP=0 (Montgomery products, the previous default) */
    cz_dfr *tables_sh, *direct_sh;
    int shv;  /* CZ_GPU_NTT_SHOUP: 2 (default) Shoup's products, one block per SM less than kernel 2's caps */
    int tile; /* CZ_GPU_NTT_TILE: 1 (default) the staged-tile strided passes, 0 = the register kernel */
    int kern; /* pass kernel (CZ_GPU_NTT_KERNEL): 2 = registers + warp shuffles with register caps (default),
               * 0 = shared-memory stages (A/B, and the bench's reference at 2^24 and 2^27) */
};

static CZ_DEV cz_dfr tw_pow(const cz_dfr *lo, const cz_dfr *hi, uint32_t e) {
    return cz_ld(lo + (e & (CZ_GPU_TW_SIZE - 1))) * cz_ld(hi + (e >> CZ_GPU_TW_BITS));
}

/* Products by table entries: SH, Shoup pairs (entry i = c at 2i, cp at 2i + 1), else Montgomery elements. */
template <bool SH>
static CZ_DEV cz_dfr tmul(const cz_dfr &x, const cz_dfr *t, size_t i) {
    if (SH) return x.mul_shoup(cz_ld(t + 2 * i), cz_ld(t + 2 * i + 1));
    return x * cz_ld(t + i);
}
/* x * omega^e from the split tables: with Shoup pairs two products by constants, else lo * hi, then x times it */
template <bool SH>
static CZ_DEV cz_dfr tw_mul(const cz_dfr &x, const cz_dfr *lo, const cz_dfr *hi, uint32_t e) {
    if (SH) return tmul<true>(tmul<true>(x, lo, e & (CZ_GPU_TW_SIZE - 1)), hi, e >> CZ_GPU_TW_BITS);
    return x * tw_pow(lo, hi, e);
}

/* Table entries -> Shoup pairs (c = entry / R, cp = floor(c 2^256 / r)): once per plan. */
static __global__ void ntt_shoup_prep(cz_dfr *out, const cz_dfr *in, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr c, cp = cz_dfr::zero();
    cz_ld(in + i).shoup_const(c, cp);
    cz_st(out + 2 * i, c);
    cz_st(out + 2 * i + 1, cp);
}

template <int K>
struct pass_shape {
    static constexpr int H = 1 << (K - 1);                      /* butterflies per sub-problem */
    static constexpr int S = (512 >> K) > 0 ? (512 >> K) : 1;    /* sub-problems per block */
    static constexpr int THREADS = S * H;                        /* 256, or 512 for K = 10 */
};

struct pass_args {
    cz_dfr *d;
    unsigned log_n, s0;
    int post_rev;                    /* post factor indexed by the bit-reversed position */
    const cz_dfr *inner;             /* powers of the primitive 2^10-th root (or its inverse) */
    const cz_dfr *inner2;            /* fused pass: the DIT half's table */
    const cz_dfr *tw_lo, *tw_hi;     /* omega^e split tables */
    const cz_dfr *direct;            /* omega^(e << s0) for e < 2^(log_n - s0), or NULL */
    const cz_dfr *pre_lo, *pre_hi;   /* factor on the loads (by position), or NULL */
    const cz_dfr *post_lo, *post_hi; /* factor on the stores (fused pass: between the halves), or NULL */
    /* DIF / DIT passes only, after the post factor: stores times the constant k (has_k), minus sub[idx]
     * (sub != NULL); the 6-NTT H pipeline's C coefficients and their subtraction (h_host.c) */
    const cz_dfr *sub;
    int has_k;
    uint32_t k[8];
};

/* The stores' constant factor and subtrahend (pass_args.has_k / sub). */
static CZ_DEV void pass_store_fix(cz_dfr &x, const pass_args &p, size_t idx) {
    if (p.has_k) {
        cz_dfr k;
#pragma unroll
        for (int i = 0; i < 8; i++) k.v[i] = p.k[i];
        x = x * k;
    }
    if (p.sub) x = x - cz_ld(p.sub + idx);
}

/* DIF: natural -> bit-reversed; DIT: the transpose; FUSED (m = 0 only): the last DIF pass of one transform,
 * the post factor, and the first DIT pass of the next one on the same contiguous block, one memory pass. */
enum { PASS_DIF = 0, PASS_DIT = 1, PASS_FUSED = 2 };

/* The four-step twiddle of element a of the sub-problem with residue L (applied to DIF outputs and DIT
 * inputs); e == 0 (factor 1) is skipped. */
template <int K, bool SH = false>
static CZ_DEV void pass_twiddle(cz_dfr &x, size_t L, unsigned a, const pass_args &p) {
    const uint32_t f1 = __brev(a) >> (32 - K);
    const uint32_t e = (uint32_t)(L * f1);
    if (!e) return;
    x = p.direct ? tmul<SH>(x, p.direct, e) : tw_mul<SH>(x, p.tw_lo, p.tw_hi, e << p.s0);
}

/* One butterfly per thread per stage through shared memory (sh[a * S + sub]); each stage ends with a
 * barrier. DIF: (u, v) -> (u + v, (u - v) w), stages 0..K-1; DIT (the transpose): (u, v) -> (u + w v,
 * u - w v), stages K-1..0, same pairs and twiddles. */
template <int K, bool DIT>
static CZ_DEV void pass_stages(cz_dfr *sh, unsigned bf, unsigned sub, const cz_dfr *inner) {
    constexpr int H = pass_shape<K>::H, S = pass_shape<K>::S;
#pragma unroll
    for (int r = 0; r < K; r++) {
        const int i = DIT ? K - 1 - r : r;
        const unsigned h = H >> i;
        const unsigned pos = bf & (h - 1);
        const unsigned i0 = ((bf >> (K - 1 - i)) << (K - i)) + pos, i1 = i0 + h;
        const cz_dfr u = cz_ld(&sh[i0 * S + sub]);
        cz_dfr v = cz_ld(&sh[i1 * S + sub]);
        if (DIT) {
            if (pos) v = v * cz_ld(inner + ((pos << i) << (CZ_GPU_INNER_LOG - K)));
            cz_st(&sh[i0 * S + sub], u + v);
            cz_st(&sh[i1 * S + sub], u - v);
        } else {
            cz_st(&sh[i0 * S + sub], u + v);
            cz_dfr t = u - v;
            if (pos) t = t * cz_ld(inner + ((pos << i) << (CZ_GPU_INNER_LOG - K)));
            cz_st(&sh[i1 * S + sub], t);
        }
        __syncthreads();
    }
}

template <int K, int MODE>
__global__ void __launch_bounds__(pass_shape<K>::THREADS) ntt_pass(const pass_args p) {
    constexpr int H = pass_shape<K>::H, S = pass_shape<K>::S;
    __shared__ cz_dfr sh[S * 2 * H];
    const unsigned log_n = p.log_n;
    const unsigned m = log_n - p.s0 - K;
    const size_t nsub = (size_t)1 << (log_n - K);
    const unsigned sub = threadIdx.x % S, bf = threadIdx.x / S;
    const size_t q = (size_t)blockIdx.x * S + sub;
    const bool live = q < nsub;
    const size_t L = q & (((size_t)1 << m) - 1);
    const size_t base = ((q >> m) << (m + K)) + L;

#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = bf + r * H;
        const size_t idx = base + ((size_t)a << m);
        cz_dfr x = cz_dfr::zero();
        if (live) {
            x = cz_ld(p.d + idx);
            if (p.pre_lo) x = x * tw_pow(p.pre_lo, p.pre_hi, (uint32_t)idx);
            if (MODE == PASS_DIT && m > 0) pass_twiddle<K>(x, L, a, p);
        }
        cz_st(&sh[a * S + sub], x);
    }
    __syncthreads();

    pass_stages<K, MODE == PASS_DIT>(sh, bf, sub, p.inner);
    if (MODE == PASS_FUSED) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const unsigned a = bf + r * H;
            const size_t idx = base + a; /* m == 0 */
            const uint32_t e = p.post_rev ? __brev((uint32_t)idx) >> (32 - log_n) : (uint32_t)idx;
            cz_st(&sh[a * S + sub], cz_ld(&sh[a * S + sub]) * tw_pow(p.post_lo, p.post_hi, e));
        }
        __syncthreads();
        pass_stages<K, true>(sh, bf, sub, p.inner2);
    }

#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = bf + r * H;
        const size_t idx = base + ((size_t)a << m);
        cz_dfr x = cz_ld(&sh[a * S + sub]);
        if (MODE == PASS_DIF && m > 0) pass_twiddle<K>(x, L, a, p);
        if (MODE != PASS_FUSED && p.post_lo) {
            const uint32_t e = p.post_rev ? __brev((uint32_t)idx) >> (32 - log_n) : (uint32_t)idx;
            x = x * tw_pow(p.post_lo, p.post_hi, e);
        }
        if (MODE != PASS_FUSED && live) pass_store_fix(x, p, idx);
        if (live) cz_st(p.d + idx, x);
    }
}

/* The same pass with the butterflies in registers (kernels 1 and 2, K = 6..10). Each thread holds two
 * elements x, y of its sub-problem whose positions differ in the stage's pair bit; the other position bits
 * are the lane (5 bits), the warp within the sub-problem (F = K - 6 bits) and nothing else. A warp thus
 * owns 6 position bits and does the stages of those bits alone: between two stages it moves the pair bit
 * to the next lower (DIF) or higher (DIT) bit with one warp shuffle per word, each thread trading the
 * element its partner needs (sppark's shfl_bfly idea, written afresh here). The other F stages need one
 * exchange through shared memory with one barrier (two for the fused pass), against K exchanges and
 * K + 1 barriers for kernel 0, whose shared-memory traffic (4 element accesses per butterfly) rivalled
 * the Montgomery products. Layouts (w = warp in the sub-problem, l = lane, r = 0 for x, 1 for y):
 *   A_init = w | l << F | r << (K-1)          first DIF stage (pair bit K-1), last DIT stage
 *   A_end  = w | r << F | l << (F+1)          after the DIF stages of bits K-1..F (pair bit F)
 *   B_start = l_lo | r << (F-1) | l_hi << F | w << 6   (l_lo = low F-1 lane bits)
 *   B_end  = r | l << 1 | w << 6              after the last DIF stage (pair bit 0); = A_end for F = 0
 * (checked against kernel 0's network in a model of warps, lanes and shuffles before it ran on a GPU). */
template <int K>
struct shfl_shape {
    static constexpr int F = K - 6;                              /* stages through shared memory */
    static constexpr int H = 1 << (K - 1);                       /* threads per sub-problem */
    static constexpr int THREADS = H > 256 ? H : 256;
    static constexpr int S = THREADS / H;                        /* sub-problems per block */
};

template <int K>
static CZ_DEV unsigned pos_a_init(unsigned w, unsigned l, unsigned r) {
    return w | l << (K - 6) | r << (K - 1);
}
template <int K>
static CZ_DEV unsigned pos_a_end(unsigned w, unsigned l, unsigned r) {
    return w | r << (K - 6) | l << (K - 5);
}
template <int K>
static CZ_DEV unsigned pos_b_start(unsigned w, unsigned l, unsigned r) {
    constexpr int FB = K > 6 ? K - 7 : 0; /* F - 1; only used for F > 0 */
    return (l & ((1u << FB) - 1)) | r << FB | (l >> FB) << (FB + 1) | w << 6;
}
static CZ_DEV unsigned pos_b_end(unsigned w, unsigned l, unsigned r) { return r | l << 1 | w << 6; }

/* Element e of a sub-problem lives at index swz(e) of two planes of 16-byte halves: the 8 lanes of each
 * quarter-warp then hit 8 different bank groups in both exchange patterns, for every F = 1..4 (the XOR
 * mask was found by exhaustive search over the layouts above; it only touches e's low 3 bits, triangularly,
 * so it is a bijection). */
static CZ_DEV unsigned swz(unsigned e) { return e ^ (((e >> 1) ^ (e >> 4) ^ (e >> 5)) & 7); }
template <int K>
static CZ_DEV void sh_put(uint4 *pl, unsigned e, const cz_dfr &x, unsigned flip = 0, unsigned flip1 = 0) {
    const unsigned s = swz(e) ^ flip;
    pl[s] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    pl[(s ^ flip1) + (1u << K)] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}
template <int K>
static CZ_DEV cz_dfr sh_get(const uint4 *pl, unsigned e, unsigned flip = 0, unsigned flip1 = 0) {
    const unsigned s = swz(e) ^ flip;
    const uint4 a = pl[s], b = pl[(s ^ flip1) + (1u << K)];
    cz_dfr x;
    x.v[0] = a.x, x.v[1] = a.y, x.v[2] = a.z, x.v[3] = a.w;
    x.v[4] = b.x, x.v[5] = b.y, x.v[6] = b.z, x.v[7] = b.w;
    return x;
}

/* Moves the pair bit to the position bit that lane bit j stands for (and that one to lane bit j): the
 * thread whose lane bit j is c keeps the element whose pair bit is c and trades the other with lane ^ 2^j.
 * The same operation in both directions. */
static CZ_DEV void swap_lane(cz_dfr &x, cz_dfr &y, unsigned l, int j) {
    const bool c = (l >> j) & 1;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const uint32_t r = __shfl_xor_sync(0xffffffffu, c ? x.v[k] : y.v[k], 1u << j);
        if (c) x.v[k] = r;
        else y.v[k] = r;
    }
}

/* One butterfly of the stage with pair bit p; low = the position bits of x below p (twiddle index). */
template <int K, bool DIT, bool SH>
static CZ_DEV void bfly(cz_dfr &x, cz_dfr &y, unsigned low, int p, const cz_dfr *inner) {
    const unsigned wi = (low << (K - 1 - p)) << (CZ_GPU_INNER_LOG - K);
    if (DIT) {
        if (low) y = tmul<SH>(y, inner, wi);
        const cz_dfr u = x;
        x = u + y;
        y = u - y;
    } else {
        const cz_dfr t = x - y;
        x = x + y;
        y = low ? tmul<SH>(t, inner, wi) : t;
    }
}

/* DIF stages K-1..0: registers in A_init on entry, B_end on exit. */
template <int K, bool SH>
static CZ_DEV void shfl_dif(cz_dfr &x, cz_dfr &y, unsigned w, unsigned l, uint4 *pl, const cz_dfr *inner) {
    constexpr int F = K - 6;
#pragma unroll
    for (int p = K - 1; p >= F; p--) {
        bfly<K, false, SH>(x, y, w | ((l & ((1u << (p - F)) - 1)) << F), p, inner);
        if (p > F) swap_lane(x, y, l, p - 1 - F);
    }
    if constexpr (F > 0) {
        sh_put<K>(pl, pos_a_end<K>(w, l, 0), x);
        sh_put<K>(pl, pos_a_end<K>(w, l, 1), y);
        __syncthreads();
        x = sh_get<K>(pl, pos_b_start<K>(w, l, 0));
        y = sh_get<K>(pl, pos_b_start<K>(w, l, 1));
#pragma unroll
        for (int p = F - 1; p >= 0; p--) {
            bfly<K, false, SH>(x, y, l & ((1u << p) - 1), p, inner);
            if (p > 0) swap_lane(x, y, l, p - 1);
        }
    }
}

/* DIT stages 0..K-1 (the transpose): registers in B_end on entry, A_init on exit. */
template <int K, bool SH>
static CZ_DEV void shfl_dit(cz_dfr &x, cz_dfr &y, unsigned w, unsigned l, uint4 *pl, const cz_dfr *inner) {
    constexpr int F = K - 6;
    if constexpr (F > 0) {
#pragma unroll
        for (int p = 0; p < F; p++) {
            bfly<K, true, SH>(x, y, l & ((1u << p) - 1), p, inner);
            if (p < F - 1) swap_lane(x, y, l, p);
        }
        sh_put<K>(pl, pos_b_start<K>(w, l, 0), x);
        sh_put<K>(pl, pos_b_start<K>(w, l, 1), y);
        __syncthreads();
        x = sh_get<K>(pl, pos_a_end<K>(w, l, 0));
        y = sh_get<K>(pl, pos_a_end<K>(w, l, 1));
    }
#pragma unroll
    for (int p = F; p < K; p++) {
        bfly<K, true, SH>(x, y, w | ((l & ((1u << (p - F)) - 1)) << F), p, inner);
        if (p < K - 1) swap_lane(x, y, l, p - F);
    }
}

/* Where sub-problem q of a pass lives: elements base + (a << m), a < 2^K; L = its residue (twiddle index). */
struct shfl_sub {
    size_t L, base;
    bool live; /* dead sub-problems (past the end) still take part in barriers and shuffles */
};
template <int K>
static CZ_DEV shfl_sub shfl_locate(const pass_args &p, size_t q) {
    const unsigned m = p.log_n - p.s0 - K;
    shfl_sub s;
    s.live = q < ((size_t)1 << (p.log_n - K));
    s.L = q & (((size_t)1 << m) - 1);
    s.base = ((q >> m) << (m + K)) + s.L;
    return s;
}
/* position of the element a thread loads as x (r = 0) or y (r = 1) */
template <int K, int MODE>
static CZ_DEV unsigned shfl_in_pos(unsigned w, unsigned l, unsigned r) {
    return MODE == PASS_DIT ? pos_b_end(w, l, r) : pos_a_init<K>(w, l, r);
}
/* the factors on the loads (coset power by position, DIT four-step twiddle) */
template <int K, int MODE, bool SH>
static CZ_DEV void shfl_in_fix(cz_dfr &x, const pass_args &p, const shfl_sub &s, unsigned a) {
    const unsigned m = p.log_n - p.s0 - K;
    if (p.pre_lo) x = tw_mul<SH>(x, p.pre_lo, p.pre_hi, (uint32_t)(s.base + ((size_t)a << m)));
    if (MODE == PASS_DIT && m > 0) pass_twiddle<K, SH>(x, s.L, a, p);
}

/* position of the element a thread stores from x (r = 0) or y (r = 1) */
template <int K, int MODE>
static CZ_DEV unsigned shfl_out_pos(unsigned w, unsigned l, unsigned r) {
    return MODE == PASS_DIF ? pos_b_end(w, l, r) : pos_a_init<K>(w, l, r);
}
/* the factors on the stores of a DIF or DIT pass (DIF four-step twiddle, post factor by position, k, sub) */
template <int K, int MODE, bool SH>
static CZ_DEV void shfl_out_fix(cz_dfr &x, const pass_args &p, const shfl_sub &s, unsigned a) {
    const unsigned m = p.log_n - p.s0 - K;
    const size_t idx = s.base + ((size_t)a << m);
    if (MODE == PASS_DIF && m > 0) pass_twiddle<K, SH>(x, s.L, a, p);
    if (p.post_lo) {
        const uint32_t e = p.post_rev ? __brev((uint32_t)idx) >> (32 - p.log_n) : (uint32_t)idx;
        x = tw_mul<SH>(x, p.post_lo, p.post_hi, e);
    }
    pass_store_fix(x, p, idx);
}

/* Everything after the loads: the stages (both halves for the fused pass), the factors on the stores, stores. */
template <int K, int MODE, bool SH>
static CZ_DEV void shfl_finish(cz_dfr v[2], const pass_args &p, const shfl_sub &s, unsigned w, unsigned l, uint4 *pl) {
    constexpr int F = shfl_shape<K>::F;
    const unsigned log_n = p.log_n;
    const unsigned m = log_n - p.s0 - K;
    if (MODE == PASS_DIT) shfl_dit<K, SH>(v[0], v[1], w, l, pl, p.inner);
    else shfl_dif<K, SH>(v[0], v[1], w, l, pl, p.inner);
    if (MODE == PASS_FUSED) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const size_t idx = s.base + pos_b_end(w, l, r); /* m == 0 */
            const uint32_t e = p.post_rev ? __brev((uint32_t)idx) >> (32 - log_n) : (uint32_t)idx;
            v[r] = tw_mul<SH>(v[r], p.post_lo, p.post_hi, e);
        }
        if constexpr (F > 0) __syncthreads(); /* the DIT exchange reuses the shared planes */
        shfl_dit<K, SH>(v[0], v[1], w, l, pl, p.inner2);
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = shfl_out_pos<K, MODE>(w, l, r);
        const size_t idx = s.base + ((size_t)a << m);
        cz_dfr x = v[r];
        if (MODE != PASS_FUSED && s.live) shfl_out_fix<K, MODE, SH>(x, p, s, a);
        if (s.live) cz_st(p.d + idx, x);
    }
}

/* Kernel 2: register caps for more resident warps, 40 per SM for the DIF/DIT passes of 256 threads with Montgomery
 * products (ptxas: 48 registers, 40-80 bytes of spills), 32 for the fused pass (64). Uncapped (58-68 and 80-90
 * registers; the A/B knob CZ_GPU_NTT_KERNEL=1 until commit 2489c26) it was 1.7 % slower at 2^27 and 2.2 % on the
 * H pipeline (H200, docs/perf.md, branch ntt4): more warps hide the serial carry chains better than the spills cost.
 * SHV (CZ_GPU_NTT_SHOUP): 0 Montgomery products by the tables; 2 (the default) Shoup's (mul_shoup: ~20 % fewer
 * multiplies, 69.7 against 58.2 G products/s alone) at one block less per SM for the DIF/DIT passes (64 registers,
 * 0-8 bytes of spills). H200 (session 15, median of 5): NTT 2^27 44.19 (Montgomery) / 45.26 (Shoup's at the
 * Montgomery caps, spilling 212-256 bytes; the knob's value 1 until 2489c26) / 42.92 ms (default), the 6-NTT H
 * pipeline at 2^27 264.3 / 264.9 / 254.8. The fused pass keeps 4 blocks with Shoup's products too (64 registers):
 * H pipeline 2^27 246.4 -> 244.3 ms, 2^24 28.55 -> 28.33 against 3 blocks (session 17). Passes of K = 10 (512
 * threads) keep Montgomery products (run_pass). */
template <int K, int MODE, int SHV = 0, bool SH = SHV != 0>
__global__ void __launch_bounds__(shfl_shape<K>::THREADS, shfl_shape<K>::THREADS > 256 ? 2
                                                          : MODE == PASS_FUSED           ? 4
                                                                                         : 5 - (SHV == 2))
    ntt_pass_shfl(const pass_args p) {
    constexpr int H = shfl_shape<K>::H, S = shfl_shape<K>::S, F = shfl_shape<K>::F;
    __shared__ uint4 sh[F > 0 ? (2 * S) << K : 1];
    const unsigned sb = threadIdx.x / H, t = threadIdx.x % H, w = t >> 5, l = t & 31;
    const shfl_sub s = shfl_locate<K>(p, (size_t)blockIdx.x * S + sb);
    const unsigned m = p.log_n - p.s0 - K;
    cz_dfr v[2];
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const unsigned a = shfl_in_pos<K, MODE>(w, l, r);
        v[r] = cz_dfr::zero();
        if (s.live) {
            v[r] = cz_ld(p.d + s.base + ((size_t)a << m));
            shfl_in_fix<K, MODE, SH>(v[r], p, s, a);
        }
    }
    shfl_finish<K, MODE, SH>(v, p, s, w, l, sh + (F > 0 ? (size_t)sb << (K + 1) : 0));
}

/* The strided passes (m > 0) through a staged tile (kernel 2 with Shoup's products, K = 7..9; CZ_GPU_NTT_TILE=0
 * runs them through ntt_pass_shfl as the contiguous passes). Launched with Z = 1 only: Z = 2 and 4 were measured
 * slower (below; knob values until commit 2489c26).
 * A block of 256 threads owns R = S Z consecutive residues (sub-problems q0 .. q0 + R - 1, whose elements base + r +
 * (a << m) sit side by side for each position a). It copies all R 2^K elements into shared memory with cp.async,
 * one lane a 16-byte half, so each warp's copy covers whole elements in runs of R; does the R sub-problems S at a
 * time, as the register kernel does one (load factors, stages with its exchange planes apart from the tile, store
 * factors), writing each one's outputs back over its inputs; and copies the tile out the same way. Residue r's
 * elements sit in their own two planes at swz(a) ^ tile_flip(r), the upper halves' plane XORed again with 6: the
 * stages' patterns (A_init, B_end) and the copies' runs then meet 8 bank groups in each quarter-warp (checked
 * exhaustively for K = 7..9, R = 1..16).
 * H200 (session 17, median of 5): Z = 1 (R = 1 at K = 9: the copies' many loads in flight, no registers held)
 * takes the 6-NTT H pipeline at 2^27 from 248.6 to 246.4 ms and the partition's ntt_ms from 242.5 to 240.3; runs of
 * residues do not help: Z = 2 262.2, Z = 4 287.9 (NTT 2^27 42.6 -> 44.7 / 49.5). So the strided passes' extra time
 * against a contiguous one (9.8 ms; m = 9 12.5, m = 18 14.8) is not their access pattern but their four-step
 * twiddle, one Shoup product an element (direct table) or two (split tables): ~2.5 ms for each 2^27 of them (1.9 at
 * the products' rate alone). */
static CZ_DEV unsigned tile_flip(unsigned r) { return (r * 5) & 7; }
#define CZ_TILE_FLIP1 6u
template <int K, int Z>
struct tile_shape {
    static constexpr int S = shfl_shape<K>::S, R = S * Z, E = R << K; /* residues and elements a block */
    static constexpr size_t SMEM = (size_t)(2 * E + ((2 * S) << K)) * sizeof(uint4); /* tile + exchange planes */
};
/* half h of element a of residue r in the tile */
template <int K>
static CZ_DEV unsigned tile_half(unsigned r, unsigned a, unsigned h) {
    return (r << (K + 1)) + (h << K) + ((swz(a) ^ tile_flip(r)) ^ (h ? CZ_TILE_FLIP1 : 0u));
}
template <int K, int MODE, int Z>
__global__ void __launch_bounds__(256, 4) ntt_pass_tile(const pass_args p) {
    constexpr int H = shfl_shape<K>::H, S = shfl_shape<K>::S, R = tile_shape<K, Z>::R, E = tile_shape<K, Z>::E;
    static_assert(shfl_shape<K>::F > 0 && shfl_shape<K>::THREADS == 256 && MODE != PASS_FUSED, "tile pass shape");
    extern __shared__ uint4 tile_sm[];
    uint4 *const tile = tile_sm, *const xch = tile_sm + 2 * E;
    const unsigned t = threadIdx.x, sb = t / H, w = (t % H) >> 5, l = t & 31;
    const unsigned m = p.log_n - p.s0 - K; /* 2^m >= R (launch_pass) */
    const size_t q0 = (size_t)blockIdx.x * R, L0 = q0 & (((size_t)1 << m) - 1);
    const size_t base = ((q0 >> m) << (m + K)) + L0;
    const uint4 *const g = reinterpret_cast<const uint4 *>(p.d);
#pragma unroll
    for (int i = 0; i < 2 * E / 256; i++) {
        const unsigned u = i * 256 + t, j = u >> 1, r = j % R, a = j / R;
        const size_t idx = base + r + ((size_t)a << m);
        const unsigned dst = (unsigned)__cvta_generic_to_shared(tile + tile_half<K>(r, a, u & 1));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g + 2 * idx + (u & 1)) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
#pragma unroll 1
    for (int z = 0; z < Z; z++) {
        const unsigned r = z * S + sb;
        const shfl_sub s = {L0 + r, base + r, true};
        uint4 *const pl = tile + ((size_t)r << (K + 1));
        cz_dfr v[2];
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const unsigned a = shfl_in_pos<K, MODE>(w, l, k);
            v[k] = sh_get<K>(pl, a, tile_flip(r), CZ_TILE_FLIP1);
            shfl_in_fix<K, MODE, true>(v[k], p, s, a);
        }
        /* the exchange's barrier also orders every read of tile r above before the writes below */
        if (MODE == PASS_DIT) shfl_dit<K, true>(v[0], v[1], w, l, xch + ((size_t)sb << (K + 1)), p.inner);
        else shfl_dif<K, true>(v[0], v[1], w, l, xch + ((size_t)sb << (K + 1)), p.inner);
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const unsigned a = shfl_out_pos<K, MODE>(w, l, k);
            shfl_out_fix<K, MODE, true>(v[k], p, s, a);
            sh_put<K>(pl, a, v[k], tile_flip(r), CZ_TILE_FLIP1);
        }
        if (z + 1 < Z) __syncthreads(); /* the next sub-problems' exchange reuses the planes */
    }
    __syncthreads();
    uint4 *const gd = reinterpret_cast<uint4 *>(p.d);
#pragma unroll
    for (int i = 0; i < 2 * E / 256; i++) {
        const unsigned u = i * 256 + t, j = u >> 1, r = j % R, a = j / R;
        const size_t idx = base + r + ((size_t)a << m);
        gd[2 * idx + (u & 1)] = tile[tile_half<K>(r, a, u & 1)];
    }
}

/* Bit-reversal permutation in place; mode 0: no scaling, 1: times c[0], 2: times lo/hi power table. */
__global__ void ntt_bitrev_scale(cz_dfr *d, unsigned log_n, int mode, const cz_dfr *c, const cz_dfr *lo,
                                 const cz_dfr *hi) {
    const size_t n = (size_t)1 << log_n;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t j = __brev((uint32_t)i) >> (32 - log_n);
    if (i > j) return;
    cz_dfr xi = cz_ld(d + i), xj = cz_ld(d + j);
    if (mode == 1) {
        const cz_dfr s = cz_ld(c);
        xi = xi * s;
        xj = xj * s;
    } else if (mode == 2) {
        xi = xi * tw_pow(lo, hi, (uint32_t)j); /* xi moves to position j */
        xj = xj * tw_pow(lo, hi, (uint32_t)i);
    }
    cz_st(d + i, xj);
    if (i != j) cz_st(d + j, xi);
}

/* The passes of a plan for 2^log_n: near-equal size, at most 10 stages each, the larger ones first. */
static unsigned plan_passes(unsigned log_n) { return (log_n + 9) / 10; }
static unsigned plan_pass_k(unsigned log_n, unsigned k) {
    const unsigned np = plan_passes(log_n);
    return log_n / np + (k < log_n % np ? 1 : 0);
}
/* The direct tables' entries (forward or inverse): 2^(log_n - K[0]) with three passes or more (the middle pass
 * reads them), else 0. */
static size_t plan_direct_size(unsigned log_n) {
    return plan_passes(log_n) >= 3 ? (size_t)1 << (log_n - plan_pass_k(log_n, 0)) : 0;
}
/* An A/B knob's value: its digit when it is one of `ok`, else -1 (unset, or a value the library no longer has:
 * named on stderr when a plan is made, and the default runs). */
static int ntt_knob(const char *name, const char *ok) {
    const char *v = getenv(name);
    if (!v || !*v) return -1;
    if (!v[1] && strchr(ok, v[0])) return v[0] - '0';
    static std::atomic<unsigned> said{0}; /* once a process and knob (bit i: the i-th knob named here) */
    const unsigned bit = !strcmp(name, "CZ_GPU_NTT_KERNEL") ? 1u : !strcmp(name, "CZ_GPU_NTT_SHOUP") ? 2u : 4u;
    if (!(said.fetch_or(bit) & bit))
        fprintf(stderr, "cuzk gpu: %s=%s is not a value this build has (%s); the default runs\n", name, v, ok);
    return -1;
}

/* CZ_GPU_NTT_SHOUP: 0 Montgomery products, else (the default) Shoup's a block an SM less (ntt_pass_shfl) */
static int plan_shv() { return ntt_knob("CZ_GPU_NTT_SHOUP", "02") == 0 ? 0 : 2; }

/* Device bytes of the tables: elements, plus their Shoup pairs when shv (twice the bytes). */
static size_t plan_bytes(size_t dsize, int shv) {
    const size_t el = sizeof(cz_fr) * (CZ_NTT_T_TOTAL + 2 * dsize);
    return shv ? 3 * el : el;
}

extern "C" size_t cz_gpu_ntt_bytes(const cz_gpu_ntt *p) {
    return p ? plan_bytes(p->direct ? p->dsize : 0, p->tables_sh != NULL) : 0;
}

extern "C" size_t cz_gpu_ntt_plan_bytes(unsigned log_n) {
    if (log_n < 1 || log_n > 28) return 0;
    return plan_bytes(plan_direct_size(log_n), plan_shv());
}

extern "C" int cz_gpu_ntt_create(cz_gpu_ntt **plan, unsigned log_n) {
    *plan = NULL;
    cz_fr *host = (cz_fr *)malloc(sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    if (!host) return cz_error(CZ_ENOMEM, "NTT tables");
    int rc = cz_gpu_ntt_tables_(host, log_n);
    cz_gpu_ntt *p = NULL;
    if (!rc) {
        p = (cz_gpu_ntt *)calloc(1, sizeof *p);
        if (!p) rc = cz_error(CZ_ENOMEM, "NTT plan");
    }
    if (!rc) {
        p->log_n = log_n;
        p->kern = ntt_knob("CZ_GPU_NTT_KERNEL", "02") == 0 ? 0 : 2;
        p->np = plan_passes(log_n);
        unsigned s0 = 0;
        for (unsigned k = 0; k < p->np; k++) {
            p->K[k] = plan_pass_k(log_n, k);
            p->s0[k] = s0;
            s0 += p->K[k];
        }
        /* three passes: the middle one's twiddle exponents are below 2^(log_n - s0) <= 2^18 */
        p->dpass = p->np >= 3 ? 1 : -1;
        rc = cz_gpu_malloc((void **)&p->tables, sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    }
    if (!rc) rc = cz_gpu_memcpy_htod(p->tables, host, sizeof(cz_fr) * CZ_NTT_T_TOTAL);
    free(host);
    if (!rc && p->dpass >= 0) {
        const unsigned s = p->s0[p->dpass];
        p->dsize = plan_direct_size(log_n); /* 2^(log_n - s) */
        cz_fr *dh = (cz_fr *)malloc(sizeof(cz_fr) * 2 * p->dsize);
        if (!dh) rc = cz_error(CZ_ENOMEM, "NTT direct tables");
        if (!rc) rc = cz_gpu_ntt_direct_(dh, log_n, s, p->dsize, 0);
        if (!rc) rc = cz_gpu_ntt_direct_(dh + p->dsize, log_n, s, p->dsize, 1);
        if (!rc) rc = cz_gpu_malloc((void **)&p->direct, sizeof(cz_fr) * 2 * p->dsize);
        if (!rc) rc = cz_gpu_memcpy_htod(p->direct, dh, sizeof(cz_fr) * 2 * p->dsize);
        free(dh);
    }
    /* the Shoup pairs of both, from the device copies (a binary division per entry on the GPU) */
    if (!rc) p->shv = plan_shv();
    if (!rc) p->tile = ntt_knob("CZ_GPU_NTT_TILE", "01") == 0 ? 0 : 1;
    if (!rc && p->shv) {
        rc = cz_gpu_malloc((void **)&p->tables_sh, 2 * sizeof(cz_fr) * CZ_NTT_T_TOTAL);
        if (!rc) {
            ntt_shoup_prep<<<(CZ_NTT_T_TOTAL + 255) / 256, 256>>>(p->tables_sh, p->tables, CZ_NTT_T_TOTAL);
            rc = cudaGetLastError() == cudaSuccess ? 0 : cz_error(CZ_EDEVICE, "NTT Shoup tables");
        }
        if (!rc && p->direct) {
            rc = cz_gpu_malloc((void **)&p->direct_sh, 4 * sizeof(cz_fr) * p->dsize);
            if (!rc) {
                ntt_shoup_prep<<<(unsigned)((2 * p->dsize + 255) / 256), 256>>>(p->direct_sh, p->direct, 2 * p->dsize);
                rc = cudaGetLastError() == cudaSuccess ? 0 : cz_error(CZ_EDEVICE, "NTT Shoup direct tables");
            }
        }
        /* the prep kernels ran on the legacy stream: wait for them alone, not for other workers' streams */
        if (!rc && cudaStreamSynchronize(0) != cudaSuccess) rc = cz_error(CZ_EDEVICE, "NTT Shoup tables");
    }
    if (rc) {
        cz_gpu_ntt_destroy(p);
        return rc;
    }
    *plan = p;
    return 0;
}

extern "C" void cz_gpu_ntt_destroy(cz_gpu_ntt *p) {
    if (!p) return;
    cz_gpu_free(p->tables);
    cz_gpu_free(p->direct);
    cz_gpu_free(p->tables_sh);
    cz_gpu_free(p->direct_sh);
    free(p);
}

template <int K, int MODE, int Z>
static int launch_tile(const pass_args &a, cudaStream_t st) {
    constexpr size_t smem = tile_shape<K, Z>::SMEM;
    /* over the default 48 KiB only for Z = 4; set on every such launch (for whichever device is current) */
    if constexpr (smem > 48 * 1024) {
        if (cudaFuncSetAttribute(ntt_pass_tile<K, MODE, Z>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess)
            return cz_error(CZ_EDEVICE, "NTT tile pass: %zu B of shared memory", smem);
    }
    const size_t blocks = ((size_t)1 << (a.log_n - K)) / tile_shape<K, Z>::R;
    ntt_pass_tile<K, MODE, Z><<<(unsigned)blocks, 256, smem, st>>>(a);
    CZ_CUDA_LAUNCHED();
    return 0;
}

template <int K, int MODE>
static int launch_pass(const pass_args &a, int kern, int sh, int tile, cudaStream_t st) {
    const size_t nsub = (size_t)1 << (a.log_n - K);
    if constexpr (K >= 7 && K <= 9 && MODE != PASS_FUSED) {
        /* the staged tile for strided passes whose residues fill it (2^m >= R) */
        const unsigned m = a.log_n - a.s0 - K;
        if (sh && tile && m > 0 && ((size_t)1 << m) >= (size_t)tile_shape<K, 1>::S) return launch_tile<K, MODE, 1>(a, st);
    }
    if constexpr (K >= 6) {
        if (kern == 2) {
            const unsigned blocks = (unsigned)((nsub + shfl_shape<K>::S - 1) / shfl_shape<K>::S);
            if constexpr (K <= 9) { /* Shoup's products (sh: kernel 2 only, run_pass) */
                if (sh) {
                    ntt_pass_shfl<K, MODE, 2><<<blocks, shfl_shape<K>::THREADS, 0, st>>>(a);
                    CZ_CUDA_LAUNCHED();
                    return 0;
                }
            }
            ntt_pass_shfl<K, MODE><<<blocks, shfl_shape<K>::THREADS, 0, st>>>(a);
            CZ_CUDA_LAUNCHED();
            return 0;
        }
    }
    const unsigned blocks = (unsigned)((nsub + pass_shape<K>::S - 1) / pass_shape<K>::S);
    ntt_pass<K, MODE><<<blocks, pass_shape<K>::THREADS, 0, st>>>(a);
    CZ_CUDA_LAUNCHED();
    return 0;
}

template <int MODE>
static int launch_k(unsigned K, const pass_args &a, int kern, int sh, int tile, cudaStream_t st) {
    switch (K) {
#define CZ_PASS(k_) case k_: return launch_pass<k_, MODE>(a, kern, sh, tile, st);
        CZ_PASS(1) CZ_PASS(2) CZ_PASS(3) CZ_PASS(4) CZ_PASS(5)
        CZ_PASS(6) CZ_PASS(7) CZ_PASS(8) CZ_PASS(9) CZ_PASS(10)
#undef CZ_PASS
        default: return cz_error(CZ_ERANGE, "NTT pass of %u stages", K);
    }
}

/* The stores' extras of the 6-NTT H pipeline (pass_args.sub / k), NULL / NULL for none. */
struct pass_extra {
    const cz_dfr *sub;
    const cz_fr *k;
};

/* Pass k (DIF numbering) of a transform with forward or inverse roots; pre / post: the split tables' offsets
 * (CZ_NTT_T_*) of the factors on the loads / stores, lo and hi, or -1 for none. */
static int run_pass(const cz_gpu_ntt *p, cz_dfr *d, unsigned k, int mode, bool inv, int pre_lo, int pre_hi, int post_lo,
                    int post_hi, int post_rev, cudaStream_t st, pass_extra x = {NULL, NULL}) {
    /* the register kernels take Shoup pairs when the plan has them (entry i at 2i), kernel 0 the elements */
    /* not for K = 10: its 512-thread blocks at one block per SM lose more than the products gain (H200, 2^20:
     * 0.305 against 0.285 ms) */
    const int sh = p->tables_sh && p->kern == 2 && p->K[k] >= 6 && p->K[k] <= 9 ? p->shv : 0;
    const unsigned u = sh ? 2 : 1;
    const cz_dfr *t = sh ? p->tables_sh : p->tables;
    auto tab = [&](int off) -> const cz_dfr * { return off < 0 ? NULL : t + (size_t)u * off; };
    pass_args a;
    a.d = d;
    a.log_n = p->log_n;
    a.s0 = p->s0[k];
    a.post_rev = post_rev;
    a.inner = tab(inv ? CZ_NTT_T_INNER_INV : CZ_NTT_T_INNER_FWD);
    a.inner2 = tab(inv ? CZ_NTT_T_INNER_FWD : CZ_NTT_T_INNER_INV);
    a.tw_lo = tab(inv ? CZ_NTT_T_INV_LO : CZ_NTT_T_FWD_LO);
    a.tw_hi = tab(inv ? CZ_NTT_T_INV_HI : CZ_NTT_T_FWD_HI);
    a.direct = (int)k == p->dpass ? (sh ? p->direct_sh : p->direct) + u * (inv ? p->dsize : 0) : NULL;
    a.pre_lo = tab(pre_lo), a.pre_hi = tab(pre_hi);
    a.post_lo = tab(post_lo), a.post_hi = tab(post_hi);
    a.sub = x.sub;
    a.has_k = x.k != NULL;
    if (x.k) memcpy(a.k, x.k, sizeof a.k);
    else memset(a.k, 0, sizeof a.k);
    switch (mode) {
    case PASS_DIF: return launch_k<PASS_DIF>(p->K[k], a, p->kern, sh, p->tile, st);
    case PASS_DIT: return launch_k<PASS_DIT>(p->K[k], a, p->kern, sh, p->tile, st);
    default: return launch_k<PASS_FUSED>(p->K[k], a, p->kern, sh, p->tile, st);
    }
}

extern "C" int cz_gpu_ntt_run(cz_gpu_ntt *p, cz_fr *d_data, cz_gpu_ntt_kind kind, void *stream) {
    if ((unsigned)kind > CZ_GPU_NTT_COSET_INVERSE) return cz_error(CZ_EINVAL, "unknown NTT kind %d", (int)kind);
    const unsigned log_n = p->log_n;
    const bool inv = kind == CZ_GPU_NTT_INVERSE || kind == CZ_GPU_NTT_COSET_INVERSE;
    const cz_dfr *t = p->tables;
    const bool coset_fwd = kind == CZ_GPU_NTT_COSET_FORWARD;
    cudaStream_t st = (cudaStream_t)stream;
    cz_dfr *d = (cz_dfr *)d_data;
    for (unsigned k = 0; k < p->np; k++) {
        const bool pre = coset_fwd && k == 0; /* the coset scaling happens on the first pass's loads */
        int rc = run_pass(p, d, k, PASS_DIF, inv, pre ? CZ_NTT_T_G_LO : -1, pre ? CZ_NTT_T_G_HI : -1, -1, -1, 0, st);
        if (rc) return rc;
    }
    const int mode = kind == CZ_GPU_NTT_INVERSE ? 1 : kind == CZ_GPU_NTT_COSET_INVERSE ? 2 : 0;
    const size_t n = (size_t)1 << log_n;
    ntt_bitrev_scale<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d, log_n, mode, t + CZ_NTT_T_NINV,
                                                                   t + CZ_NTT_T_POST_LO, t + CZ_NTT_T_POST_HI);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_ntt_h_step_(cz_gpu_ntt *p, cz_fr *d_data, int step, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    cz_dfr *d = (cz_dfr *)d_data;
    const unsigned np = p->np;
    int rc = 0;
    switch (step) {
    case CZ_GPU_H_COSET_EVAL:
        /* inverse DIF passes; the last one fused with the forward DIT's first (both work on contiguous
         * blocks), coefficient i (at position bitrev(i)) times g^i / n in between; forward DIT passes */
        for (unsigned k = 0; k + 1 < np && !rc; k++) rc = run_pass(p, d, k, PASS_DIF, true, -1, -1, -1, -1, 0, st);
        if (!rc) rc = run_pass(p, d, np - 1, PASS_FUSED, true, -1, -1, CZ_NTT_T_GN_LO, CZ_NTT_T_G_HI, 1, st);
        for (unsigned k = np - 1; k-- > 0 && !rc;) rc = run_pass(p, d, k, PASS_DIT, false, -1, -1, -1, -1, 0, st);
        return rc;
    case CZ_GPU_H_INV_REV_TO_NAT: return cz_gpu_ntt_h_final_(p, d_data, NULL, stream);
    default: return cz_error(CZ_EINVAL, "unknown H-pipeline NTT step %d", step);
    }
}

extern "C" int cz_gpu_ntt_h_c_(cz_gpu_ntt *p, cz_fr *d_c, const cz_fr *k, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    int rc = 0;
    /* inverse DIT passes: bit-reversed evaluations -> natural coefficients (unscaled), k on the last stores */
    for (unsigned r = 0; r < p->np && !rc; r++) {
        const pass_extra x = {NULL, r == p->np - 1 ? k : NULL};
        rc = run_pass(p, (cz_dfr *)d_c, p->np - 1 - r, PASS_DIT, true, -1, -1, -1, -1, 0, st, x);
    }
    return rc;
}

extern "C" int cz_gpu_ntt_h_final_(cz_gpu_ntt *p, cz_fr *d_a, const cz_fr *d_sub, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    int rc = 0;
    /* coefficient i times g^-i / n on the last pass's stores, minus d_sub[i] */
    for (unsigned r = 0; r < p->np && !rc; r++) {
        const bool last = r == p->np - 1;
        const pass_extra x = {last ? (const cz_dfr *)d_sub : NULL, NULL};
        rc = run_pass(p, (cz_dfr *)d_a, p->np - 1 - r, PASS_DIT, true, -1, -1, last ? CZ_NTT_T_POST_LO : -1,
                      last ? CZ_NTT_T_POST_HI : -1, 0, st, x);
    }
    return rc;
}

extern "C" int cz_gpu_bitrev_(cz_fr *d, unsigned log_n, void *stream) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "bit reversal of 2^%u", log_n);
    const size_t n = (size_t)1 << log_n;
    ntt_bitrev_scale<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((cz_dfr *)d, log_n, 0, NULL, NULL,
                                                                                   NULL);
    CZ_CUDA_LAUNCHED();
    return 0;
}
