/* Multi-scalar multiplication (Pippenger, Booth-signed c-bit windows, sort-based buckets) and bitmap
 * 0/1 batch addition over resident affine bases, generic over the coordinate field F of the group
 * (cz_dfp: G1, cz_dfp2: G2). Included by msm.cu / ba.cu (G1) and msm_g2.cu / ba_g2.cu (G2), one
 * instantiation each, so the four compile in parallel; everything here is static to its translation unit.
 *
 * Batch addition: popcount per 64-bit word, exclusive scan (cub), scatter of the selected indices,
 * then rounds of pairwise additions in affine coordinates with one field inversion per block and round
 * (Montgomery's trick; ~6 products per addition instead of 10) while more than 2^20 points
 * are left, then every thread sums a strided share of the rest (xyzz += affine); warp/block/grid tree
 * sums finish on the device. These rounds are the default; ba_run is in ba_impl.cuh. CZ_GPU_BA_XYZZ=1:
 * the xyzz summation alone.
 *
 * MSM: scalars leave Montgomery form once; per window, Booth digits d in [-2^(c-1), 2^(c-1)] are
 * radix-sorted by |d| (cub) with the point index and sign as value; one thread per bucket sums its
 * run of the sorted list (the top window's few, long runs are cut into parts, one thread each, so
 * any window width keeps the threads balanced), or, from 2^24 points, the runs are halved by
 * rounds of affine pair additions: the batch addition's flat pairing over the window's sorted list
 * (msf_window, the default: a pair across two runs flushes the last point of one into its bucket; once no run
 * is longer than 12, one thread a bucket adds the rest in xyzz, msf_tail) or
 * per bucket segment (msa_run, CZ_GPU_MSM_FLAT=0), one chunk per window when free memory allows (from 2^19
 * points for G1, 2^18 for G2, up to 2^24, all windows' lists as ONE flat list instead: msm_allw); the
 * sort runs window by window on a low-priority side stream while the buckets of the sorted windows
 * accumulate on a high-priority one (msm_streams); buckets are combined
 * with chunked running sums (sum k*B_k per chunk plus
 * (lo-1)*S by double-and-add), chunk results are tree-summed per window, and the host does the final
 * Horner over the windows (a few hundred point operations). Several MSMs can share one all-window list
 * (msm_segs: the prover's three G1 tails). */
#include <cub/cub.cuh>

#include <chrono>

#include "gpu/digits.cuh"
#include "gpu/cuda_util.cuh"
#include "gpu/ec.cuh"
#include "gpu/fit_chunk.h"
#include "gpu/fp_inv.cuh"
#include "gpu/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include <type_traits>


/* ---- scratch: grown on demand, kept between calls; one set per device (the caller's current one),
 * so GPUs proving at once never share buffers; one user at a time per device (the per-GPU lock) ---- */
#define CZ_GPU_SCRATCH_DEVICES 16
struct scratch {
    void *p = nullptr;
    size_t cap = 0;
};
/* growth through cz_gpu_scratch_grow_ (alloc.cu): room ahead once a buffer grows again, counted for the prover's stats */
static int scratch_get(scratch &s, size_t bytes, void **out) {
    if (bytes > s.cap) {
        int rc = cz_gpu_scratch_grow_(&s.p, &s.cap, bytes);
        if (rc) return rc;
    }
    *out = s.p;
    return 0;
}
/* The scratch slot of the calling thread's current device. */
static int scratch_device(int *dev) {
    CZ_CUDA(cudaGetDevice(dev));
    if (*dev < 0 || *dev >= CZ_GPU_SCRATCH_DEVICES)
        return cz_error(CZ_ERANGE, "GPU MSM: device %d, at most %d supported", *dev, CZ_GPU_SCRATCH_DEVICES);
    return 0;
}
/* Bytes held by n scratch slots (read under the device's lock: they grow inside its region). */
static inline size_t scratch_held(const scratch *s, int n) {
    size_t b = 0;
    for (int i = 0; i < n; i++) b += s[i].cap;
    return b;
}
static void scratch_release(scratch *s, int n) {
    for (int i = 0; i < n; i++) {
        if (s[i].p) cudaFree(s[i].p);
        s[i] = scratch();
    }
}

static int sm_count() {
    static int n = 0;
    if (!n) {
        int dev;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
            n = 80;
    }
    return n;
}

/* ---- reductions shared by both ---- */
#define RED_THREADS 256

/* The block sums' warp levels by quads of lanes (cz_ec_warp_sum_quad, the default) or one lane an addition
 * (cz_ec_warp_sum: CZ_GPU_RED_QUAD=0, for A/B). One flag per translation unit and device, set by red_mode(). */
static __device__ int g_red_plain;
static int red_mode() {
    static int cur[CZ_GPU_SCRATCH_DEVICES]; /* the flag as last set: 0, the device's initial value */
    int dev = 0;
    CZ_CUDA(cudaGetDevice(&dev));
    const char *e = getenv("CZ_GPU_RED_QUAD");
    const int plain = e && atoi(e) == 0;
    if (dev >= 0 && dev < CZ_GPU_SCRATCH_DEVICES && cur[dev] != plain) {
        CZ_CUDA(cudaMemcpyToSymbol(g_red_plain, &plain, sizeof plain));
        cur[dev] = plain;
    }
    return 0;
}

/* Block-wide sum of one value per thread; thread 0 gets the total. Its levels are single additions in a chain,
 * so their latency is what counts: for 256 threads, 9 quad additions of ~4 product latencies each against 8
 * plain ones of ~16 (test_gpu_field, H200: a warp's 32-point sum 43.5 against 137.7 us in G1, 115 against 437
 * in G2; a batch addition's xyzz tail and final sum 0.58 against 0.90 ms). */
template <class F>
static __device__ cz_dxyzz<F> block_sum(cz_dxyzz<F> a) {
    __shared__ cz_dxyzz<F> part[RED_THREADS / 32];
    const bool plain = g_red_plain;
    const unsigned nw = blockDim.x >> 5;
    a = plain ? cz_ec_warp_sum(a) : cz_ec_warp_sum_quad(a, 32);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) cz_ec_st(&part[warp], a);
    __syncthreads();
    if (warp == 0) {
        a = lane < (int)nw ? cz_ec_ld(&part[lane]) : cz_dxyzz<F>::inf();
        a = plain ? cz_ec_warp_sum(a) : cz_ec_warp_sum_quad(a, nw);
    }
    return a;
}

/* out[blockIdx.x] = sum of in[blockIdx.x * stride + i], i < count (one block per segment). */
template <class F>
static __global__ void __launch_bounds__(RED_THREADS) sum_segments(cz_dxyzz<F> *out, const cz_dxyzz<F> *in, size_t count,
                                                                   size_t stride) {
    cz_dxyzz<F> a = cz_dxyzz<F>::inf();
    const cz_dxyzz<F> *seg = in + (size_t)blockIdx.x * stride;
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) a = cz_ec_add(a, cz_ec_ld(seg + i));
    a = block_sum(a);
    if (threadIdx.x == 0) cz_ec_st(out + blockIdx.x, a);
}

/* ---- batch addition ---- */
/* Block size of the summing kernel; the grid is one wave of resident blocks. Measured on the H200 at
 * 2^26, ~50 % ones (53df2c3): 256 threads (one block of 8 warps per SM at ~150 registers) 16.2 ms,
 * 128 threads (three blocks, 12 warps) 17.4 ms. */
#define BA_THREADS 256
/* With pair sums (PAIRS: the bases are followed by their pair sums, base n + i = base 2i + base 2i+1), a pair
 * with both bits set is one entry of the index list, its pair sum: ba_both gives those pairs' low bits. */
static CZ_DEV uint64_t ba_both(uint64_t b) { return b & (b >> 1) & 0x5555555555555555ull; }

template <bool PAIRS>
static __global__ void ba_popc(const uint64_t *bm, size_t nw, size_t n, uint32_t *cnt) {
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w > nw) return;
    if (w == nw) {
        cnt[w] = 0;
        return;
    }
    uint64_t b = bm[w];
    if (w == nw - 1 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
    cnt[w] = __popcll(b) - (PAIRS ? __popcll(ba_both(b)) : 0);
}

/* idx[offs[w] ..] = the set bits' positions of word w, ascending. One warp per word, two bits per lane:
 * a lane's position is offs[w] plus the set bits below its pair, so a warp's stores are contiguous (a
 * thread per word stored its ~32 indices one by one, 32 words apart across the warp: 0.74 ms for the
 * index list of 2^26 bits at ~50 % with its scan and count, on the H200). */
/* PAIRS: a lane's two bits are one pair (sh is even), which gives one entry when both are set: n + its pair's
 * index (the pair sum), else the set bit's position; the entries below it lose one per such pair (a bit past n
 * is masked off, so an odd n's last base is never half of a pair). */
template <bool PAIRS>
static __global__ void ba_scatter(const uint64_t *bm, size_t nw, size_t n, const uint32_t *offs, uint32_t *idx) {
    const size_t nwarp = ((size_t)gridDim.x * blockDim.x) >> 5;
    const unsigned sh = 2 * (threadIdx.x & 31);
    for (size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nw; w += nwarp) {
        uint64_t b = bm[w];
        if (w == nw - 1 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
        const uint64_t below = ((uint64_t)1 << sh) - 1;
        uint32_t o = offs[w] + __popcll(b & below) - (PAIRS ? __popcll(ba_both(b) & below) : 0);
        const uint32_t at = (uint32_t)(w * 64 + sh);
        if (PAIRS && ((b >> sh) & 3) == 3) {
            idx[o] = (uint32_t)n + at / 2;
            continue;
        }
        if ((b >> sh) & 1) idx[o++] = at;
        if ((b >> (sh + 1)) & 1) idx[o] = at + 1;
    }
}

template <class F>
static __global__ void __launch_bounds__(RED_THREADS, 1) ba_sum(cz_dxyzz<F> *out, const cz_daff<F> *bases, const uint32_t *idx,
                                                             const uint32_t *total) {
    const size_t T = (size_t)gridDim.x * blockDim.x, tot = *total;
    cz_dxyzz<F> a = cz_dxyzz<F>::inf();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < tot; i += T)
        a = cz_ec_add_aff_inl(a, cz_ec_ld_aff(bases + idx[i]));
    a = block_sum(a);
    if (threadIdx.x == 0) cz_ec_st(out + blockIdx.x, a);
}

/* ---- batch addition in affine coordinates, Montgomery's batch-inversion trick at grid scale ----
 * One round turns m points into ceil(m/2): out[j] = in[2j] + in[2j+1] (the odd last one is carried).
 * Thread t owns the pairs j = t, t + T, ... (T threads in all). baa_fwd multiplies up the
 * denominators d_j (x2 - x1, or 2 y1 for a doubling) into acc_t, storing the running product before
 * each factor (pref[j]), and leaves per thread e_t * x_t, the product of the other accs of its block
 * (exclusive prefix times exclusive suffix, by warp shuffles and a short cross-warp pass), and per
 * block the block's product. Thread 0 of each block inverts its block's product at the start of baa_bwd
 * (baa_start_inv; or, CZ_GPU_BINV=0, baa_inv (one block) inverts them all the same way with ONE field
 * inversion). baa_bwd gets acc_t^-1 = e_t x_t (block product)^-1 and walks its pairs backwards:
 * d_j^-1 = acc^-1 * pref[j], acc^-1 *= d_j, then lambda, x3 = lambda^2 - x1 - x2,
 * y3 = lambda (x1 - x3) - y1: 6 products per addition against 10 for xyzz += affine.
 * Exceptional pairs are exact: an infinity (0,0) operand gives the other, x1 == x2 is a doubling
 * (d = 2 y1, lambda = 3 x1^2 / d) when y1 == y2 and infinity otherwise; those use d = 1 in the trick. */
#define BAA_THREADS 256

/* The trick runs over den_t<F>: F itself for G1; for G2 the norm N(d) = d0^2 + d1^2 in Fp of each Fp2
 * denominator d (nonzero iff d is: -1 is not a square mod p), with d^-1 = conj(d) N(d)^-1. Per G2 pair the
 * trick's 3 Fp2 products (9 Fp) become 2 Fp products + 2 squares forward and back, and conj(d) N^-1 2 more;
 * the running product, the prefixes and the block totals are half the size (registers and scratch: the G2 round
 * kernels' 60-76 B of spills are gone). H200, against the Fp2 trick (session 24, two rounds each): G2 MSM 2^24
 * 332.8 -> 304.2 ms, 2^22 90.0 -> 82.0, 2^20 31.9 -> 30.0; G2 batch add 2^24 ~50 % 10.20 -> 9.21; the real 32 GiB
 * partition through the daemon 928.9 -> 923.9 ms (b_g2_msm_ms 91.3 -> 86.7; the synthetic one did not move, 932.1 /
 * 932.85). Blocks of 128 threads, three an SM (168 registers, 300-460 B of spills), measured slower (317.0 ms at
 * 2^24). CZ_GPU_BAA_NORM=0 at compile time keeps the Fp2 trick (A/B builds). */
template <class F>
struct baa_den_t {
    typedef F D;
    static CZ_DEV D norm(const F &d) { return d; }
    static CZ_DEV F inv(const F &, const D &ni) { return ni; }
};
#ifndef CZ_GPU_BAA_NORM
#define CZ_GPU_BAA_NORM 1
#endif
#if CZ_GPU_BAA_NORM
template <>
struct baa_den_t<cz_dfp2> {
    typedef cz_dfp D;
    static CZ_DEV D norm(const cz_dfp2 &d) { return d.c0.sqr() + d.c1.sqr(); }
    static CZ_DEV cz_dfp2 inv(const cz_dfp2 &d, const cz_dfp &ni) { return {d.c0 * ni, (d.c1 * ni).neg()}; }
};
#endif
template <class F>
using den_t = typename baa_den_t<F>::D;

/* the backward pass's step: d^-1 from the running inverse and d's prefix, then the running inverse past d */
template <class F>
static CZ_DEV F baa_step_inv(den_t<F> &inv, const den_t<F> &pre, const F &d) {
    const den_t<F> ni = inv * pre;
    inv = inv * baa_den_t<F>::norm(d);
    return baa_den_t<F>::inv(d, ni);
}

template <class F>
static CZ_DEV void baa_st_aff(cz_daff<F> *p, const cz_daff<F> &a) {
    cz_st(&p->x, a.x);
    cz_st(&p->y, a.y);
}

/* A view of affine points: point i's x at x[i << sh], y at x[yoff + (i << sh)] (in elements of F). The
 * bases (cz_daff arrays) are sh = 1, yoff = 1; the affine rounds' own buffers are split in an x half and a
 * y half (sh = 0, yoff = capacity), so a forward pass, which needs only x, reads 48 B per G1 point out of
 * contiguous memory instead of 2 of every 3 sectors of a 96-B point (CZ_GPU_AFF_SOA=0: the interleaved
 * layout in the same buffers, for A/B). H200 (session 9, same process): batch add G1 2^26 ~50 % 10.659 ->
 * 10.397 ms, G2 2^24 11.279 -> 11.041; G1 MSM 2^27 583.4 -> 569.1. */
template <class F>
struct cz_pts {
    F *x;
    size_t yoff;
    unsigned sh;
    CZ_DEV F ldx(size_t i) const { return cz_ld(x + (i << sh)); }
    CZ_DEV cz_daff<F> ld(size_t i) const {
        cz_daff<F> p;
        p.x = cz_ld(x + (i << sh));
        p.y = cz_ld(x + yoff + (i << sh));
        return p;
    }
    CZ_DEV void st(size_t i, const cz_daff<F> &p) const {
        cz_st(x + (i << sh), p.x);
        cz_st(x + yoff + (i << sh), p.y);
    }
};
/* the bases (or any cz_daff array) as a view */
template <class F>
static __host__ __device__ cz_pts<F> pts_aos(const cz_daff<F> *a) {
    return cz_pts<F>{(F *)a, 1, 1};
}
static bool aff_soa() {
    const char *e = getenv("CZ_GPU_AFF_SOA");
    return !e || atoi(e) != 0;
}
/* a round buffer of cap points (cap cz_daff of memory) as a view: split halves, or interleaved (A/B) */
template <class F>
static cz_pts<F> pts_buf(cz_daff<F> *b, size_t cap) {
    if (!aff_soa()) return pts_aos(b);
    return cz_pts<F>{(F *)b, cap, 0};
}

/* kind of the pair a + b: 0 general, 1 doubling, 2 result b, 3 result a, 4 result infinity */
template <class F>
static CZ_DEV int baa_kind(const cz_daff<F> &a, const cz_daff<F> &b) {
    if (a.is_inf()) return 2;
    if (b.is_inf()) return 3;
    if (!(b.x - a.x).is_zero()) return 0;
    if (!(b.y - a.y).is_zero() || a.y.is_zero()) return 4; /* P + (-P); y = 0 (2-torsion, none on BLS12-381) */
    return 1;
}

/* lambda = num / d for the pair a + b (d = 1 where no inversion is needed) and the pair's kind */
template <class F>
static CZ_DEV int baa_terms(const cz_daff<F> &a, const cz_daff<F> &b, F &d, F &num) {
    d = b.x - a.x, num = b.y - a.y;
    int k = 0;
    if (d.is_zero() || a.x.is_zero() || b.x.is_zero()) {
        k = baa_kind(a, b);
        if (k == 1) {
            d = a.y.dbl();
            num = a.x.sqr();
            num = num + num.dbl();
        } else if (k > 1) {
            d = F::one();
        }
    }
    return k;
}

/* a + b from baa_terms' kind and numerator, and dinv = 1/d */
template <class F>
static CZ_DEV cz_daff<F> baa_sum(const cz_daff<F> &a, const cz_daff<F> &b, int k, const F &num, const F &dinv) {
    cz_daff<F> r;
    if (k <= 1) {
        const F lam = num * dinv;
        r.x = lam.sqr() - a.x - b.x;
        r.y = lam * (a.x - r.x) - a.y;
    } else {
        r = k == 2 ? b : a;
        if (k == 4) r.x = r.y = F::zero();
    }
    return r;
}

/* Block-wide exclusive products: e = product of a over the lower threads, x = over the higher ones
 * (blockDim.x a multiple of 32, at most 1024). */
template <class F>
static __device__ void baa_block_excl(const F &a, F &e, F &x) {
    __shared__ F wt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const F one = F::one();
    F pre = a, suf = a;
#pragma unroll 1
    for (int off = 1; off < 32; off <<= 1) {
        F o = cz_shfl_up(pre, off);
        pre = pre * (lane >= off ? o : one);
        F q = cz_shfl_down(suf, off);
        suf = suf * (lane + off < 32 ? q : one);
    }
    F ep = cz_shfl_up(pre, 1), xs = cz_shfl_down(suf, 1);
    if (lane == 0) ep = one;
    if (lane == 31) {
        xs = one;
        wt[warp] = pre;
    }
    __syncthreads();
#pragma unroll 1
    for (int v = 0; v < nw; v++) { /* warp-uniform branches: nw - 1 products per warp */
        if (v < warp) ep = ep * wt[v];
        if (v > warp) xs = xs * wt[v];
    }
    e = ep;
    x = xs;
    __syncthreads(); /* wt is reused by the next call */
}

/* The end of every forward pass: thread t stores the exclusive product of the block's other chains (ex[t]),
 * thread 0 the block's total (btot), from which baa_inv and the backward pass get each chain's inverse. */
template <class F>
static __device__ void baa_fwd_end(const F &acc, F *ex, F *btot) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F e, x;
    baa_block_excl(acc, e, x);
    cz_st(ex + t, e * x);
    if (threadIdx.x == 0) cz_st(btot + blockIdx.x, acc * x); /* thread 0: e = 1 */
}

/* the point indices of pair j: idx[2j], idx[2j+1] when given, else 2j, 2j+1 */
static CZ_DEV void baa_pair(const uint32_t *idx, size_t j, size_t &a, size_t &b) {
    if (idx) {
        const uint2 ij = reinterpret_cast<const uint2 *>(idx)[j];
        a = ij.x, b = ij.y;
    } else {
        a = 2 * j, b = 2 * j + 1;
    }
}

/* the denominator of pair (a, b) of in given x1, x2 (the y coordinates are read only in the rare cases) */
template <class F>
static CZ_DEV F baa_den(const F &x1, const F &x2, const cz_pts<F> &in, size_t a, size_t b) {
    F d = x2 - x1;
    if (d.is_zero() || x1.is_zero() || x2.is_zero()) {
        const cz_daff<F> pa = in.ld(a), pb = in.ld(b);
        const int k = baa_kind(pa, pb);
        d = k == 0 ? d : k == 1 ? pa.y.dbl() : F::one();
    }
    return d;
}

template <class F>
static __global__ void __launch_bounds__(BAA_THREADS) baa_fwd(const cz_pts<F> in, const uint32_t *idx, size_t npair,
                                                               den_t<F> *pref, den_t<F> *ex, den_t<F> *btot) {
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    den_t<F> acc = den_t<F>::one();
    for (size_t j = t; j < npair; j += T) {
        size_t a, b;
        baa_pair(idx, j, a, b);
        const F d = baa_den(in.ldx(a), in.ldx(b), in, a, b);
        cz_st(pref + j, acc);
        acc = acc * baa_den_t<F>::norm(d);
    }
    baa_fwd_end(acc, ex, btot);
}

/* binv[i] = btot[i]^-1, i < nb (one block, blockDim >= nb) */
template <class F>
static __global__ void __launch_bounds__(512) baa_inv(F *binv, const F *btot, unsigned nb) {
    __shared__ F tinv;
    const unsigned i = threadIdx.x;
    const F a = i < nb ? cz_ld(btot + i) : F::one();
    F e, x;
    baa_block_excl(a, e, x);
    if (i == 0) tinv = cz_fp_inv(a * x);
    __syncthreads();
    if (i < nb) cz_st(binv + i, e * x * tinv);
}

/* The backward pass's starting inverse for the calling thread (the inverse of its chain's product): ex[t]
 * times the inverse of its block's product, from binv when baa_inv ran, or (binv null) inverted here by
 * thread 0 of every block at once, so a round needs no one-block kernel with its product tree over the
 * blocks between the passes (~94 us a round on the H200 against one ~42 us inversion). Every thread of
 * the block must call it (a barrier), before any returns. Per-block inversions are the default where a
 * round is alone on the device (batch addition, all-window list, one work stream); with two work streams
 * the other stream's passes hide baa_inv, which holds one SM where this holds all of them. CZ_GPU_BINV=0|1
 * forces baa_inv / per-block inversions everywhere (A/B). H200 (session 10, same process, median of 9 / 5 /
 * 3): batch add G1 2^26 ~50 % 10.129 -> 9.941 ms, 100 % 19.824 -> 19.420, G2 2^24 ~50 % 11.010 -> 10.702;
 * G1 MSM (all-window list) 2^20 10.97 -> 10.70, 2^22 27.09 -> 26.77; G2 MSM 2^24 (one stream) 355.3 -> 345.0;
 * but G1 MSM on two work streams 2^24 104.8 -> 110.6, 2^27 568.8 -> 575.4, hence baa_inv there. */
template <class F>
static __device__ F baa_start_inv(const F *ex, const F *btot, const F *binv) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (binv) return cz_ld(ex + t) * cz_ld(binv + blockIdx.x);
    __shared__ F bi;
    if (threadIdx.x == 0) bi = cz_fp_inv(cz_ld(btot + blockIdx.x));
    __syncthreads();
    return cz_ld(ex + t) * bi;
}
/* per-block inversions (baa_start_inv with binv null) for a round alone on the device (one_stream), or forced */
static bool binv_block(bool one_stream) {
    const char *e = getenv("CZ_GPU_BINV");
    if (e && *e) return atoi(e) != 0;
    return one_stream;
}

template <class F>
static __global__ void __launch_bounds__(BAA_THREADS) baa_bwd(const cz_pts<F> out, const cz_pts<F> in, const uint32_t *idx, size_t m,
                                                               const den_t<F> *pref, const den_t<F> *ex, const den_t<F> *btot,
                                                               const den_t<F> *binv) {
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t npair = m / 2;
    if (t == 0 && (m & 1)) out.st(npair, in.ld(idx ? idx[m - 1] : m - 1));
    den_t<F> inv = baa_start_inv(ex, btot, binv);
    if (t >= npair) return;
    for (size_t j = t + (npair - 1 - t) / T * T;; j -= T) {
        size_t ia, ib;
        baa_pair(idx, j, ia, ib);
        const cz_daff<F> a = in.ld(ia), b = in.ld(ib);
        F d, num;
        const int k = baa_terms(a, b, d, num);
        const F dinv = baa_step_inv(inv, cz_ld(pref + j), d);
        out.st(j, baa_sum(a, b, k, num, dinv));
        if (j < T) break;
    }
}

/* part[blockIdx.x] (+)= sum of the cnt points in[idx[i]] (in[i] without idx), xyzz. */
template <class F>
static __global__ void __launch_bounds__(RED_THREADS) baa_tail(cz_dxyzz<F> *part, const cz_pts<F> in, const uint32_t *idx,
                                                                size_t cnt, int accumulate) {
    const size_t T = (size_t)gridDim.x * blockDim.x;
    cz_dxyzz<F> a = cz_dxyzz<F>::inf();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += T)
        a = cz_ec_add_aff_inl(a, in.ld(idx ? idx[i] : i));
    a = block_sum(a);
    if (threadIdx.x == 0) {
        if (accumulate) a = cz_ec_add(a, cz_ec_ld(part + blockIdx.x));
        cz_ec_st(part + blockIdx.x, a);
    }
}

static size_t env_size(const char *name, size_t def, size_t lo, size_t hi) {
    const char *s = getenv(name);
    if (!s) return def;
    long long v = atoll(s);
    return v < (long long)lo ? lo : v > (long long)hi ? hi : (size_t)v;
}

/* The largest chunk (a power of two, at most start, at least lo) whose scratch need(chunk) either fits in what this
 * scratch already holds (held: bytes of it allocated, reusable) or leaves a margin of 2 GiB of device memory free
 * beside what it newly takes; 0 if even lo fits neither way (gpu/fit_chunk.h says why both). The caches stay
 * allocated between calls, so what they newly take must not be the memory the caller allocates next.
 * CZ_GPU_FIT_HELD=0: the margin alone, as before session 71 (A/B: a 32 GiB Snap partition on an H100 1,142.2 ms
 * against 1,019.6, docs/perf.md); CZ_GPU_FIT_MARGIN_MB: the margin (default 2048; 1024 ran a 32 GiB Snap
 * partition out of device memory on an H100). */
template <class Need>
static size_t fit_chunk(size_t start, size_t lo, size_t held, Need need) {
    if (need(start) <= held) return start; /* what is held already takes the largest: no query, no new memory */
    size_t fr = 0, total = 0;
    if (cudaMemGetInfo(&fr, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return start;
    }
    const size_t margin = env_size("CZ_GPU_FIT_MARGIN_MB", 2048, 0, (size_t)1 << 20) << 20;
    const char *e = getenv("CZ_GPU_FIT_HELD");
    if (!(e && *e == '0'))
        return cz_fit_chunk_pick(start, lo, held, fr, margin,
                                 [](size_t c, const void *ctx) -> size_t { return (*(const Need *)ctx)(c); }, &need);
    for (size_t ch = start; ch >= lo; ch /= 2)
        if (need(ch) + margin <= fr + held) return ch;
    return 0;
}

/* The profile line's tail: per round r the times between events 3r, 3r+1, 3r+2, 3r+3 (forward pass,
 * inversion, backward pass), then their sums, no newline (waits for event 3R first). */
static void print_round_times(cudaEvent_t *rev, unsigned R) {
    cudaEventSynchronize(rev[3 * R]);
    float tf = 0, ti = 0, tb = 0;
    for (unsigned r = 0; r < R; r++) {
        float a = 0, b = 0, c = 0;
        cudaEventElapsedTime(&a, rev[3 * r], rev[3 * r + 1]);
        cudaEventElapsedTime(&b, rev[3 * r + 1], rev[3 * r + 2]);
        cudaEventElapsedTime(&c, rev[3 * r + 2], rev[3 * r + 3]);
        fprintf(stderr, " r%u %.3f/%.3f/%.3f", r, a, b, c);
        tf += a, ti += b, tb += c;
    }
    fprintf(stderr, " | sum fwd %.2f inv %.2f bwd %.2f", tf, ti, tb);
}

/* The affine rounds' grid: blocks of BAA_THREADS, as many as both passes keep resident at once, at most 512
 * (baa_inv is one block of at most 512 threads). */
template <class F>
static unsigned baa_grid() {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, baa_bwd<F>, BAA_THREADS, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    int per_sm_f = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_f, baa_fwd<F>, BAA_THREADS, 0) == cudaSuccess && per_sm_f >= 1 &&
        per_sm_f < per_sm)
        per_sm = per_sm_f;
    const unsigned G = (unsigned)(sm_count() * per_sm);
    return G > 512 ? 512 : G;
}

/* Affine rounds over the tot selected indices idx[] (device), in chunks of at most 2^chunk_log points
 * (bounds the scratch: ~96 B per chunk point), each chunk reduced by rounds until at most amin points
 * are left; those are summed in xyzz into part[0..tb) (tb blocks of RED_THREADS). Knobs:
 * CZ_GPU_BA_AFF_MIN (default 2^20: below that a round's fixed cost, ~3 launches and one inversion,
 * outweighs the products it saves), CZ_GPU_BA_CHUNK_LOG (default 25, 10..30). g_ba[4..7]: scratch. */
template <class F>
static int baa_run(scratch *g_ba, cz_dxyzz<F> *part, unsigned tb, const cz_daff<F> *bases, const uint32_t *idx, size_t tot,
                   cudaStream_t st) {
    typedef cz_daff<F> A;
    const auto hb = std::chrono::steady_clock::now();
    const size_t amin = env_size("CZ_GPU_BA_AFF_MIN", (size_t)1 << 20, 1, (size_t)1 << 32);
    size_t chunk = (size_t)1 << env_size("CZ_GPU_BA_CHUNK_LOG", 25, 10, 30);
    const unsigned G = baa_grid<F>();
    const size_t T = (size_t)G * BAA_THREADS;
    if (tot > amin) { /* smaller chunks when device memory is short (down to 2^16 points) */
        auto need = [&](size_t ch) {
            const size_t c = tot < ch ? tot : ch;
            return ((c / 2 + 1) + (c / 4 + 1)) * sizeof(A) + (c / 2 + T + 2 * (size_t)G) * sizeof(den_t<F>);
        };
        size_t ch = fit_chunk(chunk, (size_t)1 << 16, g_ba[4].cap + g_ba[5].cap, need);
        chunk = ch ? ch : (size_t)1 << 16; /* if even that fails, the allocation reports it */
    }
    const size_t cmax = tot < chunk ? tot : chunk;
    A *buf = nullptr;
    den_t<F> *fs = nullptr;
    int rc = 0;
    const bool rounds = tot > amin;
    if (rounds) {
        rc = scratch_get(g_ba[4], ((cmax / 2 + 1) + (cmax / 4 + 1)) * sizeof(A), (void **)&buf);
        if (!rc) rc = scratch_get(g_ba[5], (cmax / 2 + T + 2 * (size_t)G) * sizeof(den_t<F>), (void **)&fs);
        if (rc) return rc;
    }
    const cz_pts<F> bufs[2] = {pts_buf(buf, cmax / 2 + 1), pts_buf(buf + (cmax / 2 + 1), cmax / 4 + 1)};
    den_t<F> *pref = fs, *ex = fs + cmax / 2, *btot = ex + T, *binv = btot + G;
    const unsigned ig = (G + 31) / 32 * 32;
    const bool pbinv = binv_block(true);
    bool first = true;
    for (size_t off = 0; off < tot || first; off += chunk) {
        size_t m = tot - off < chunk ? tot - off : chunk;
        cz_pts<F> cur = pts_aos(bases);
        const uint32_t *ci = idx + off;
        int which = 0;
        /* CZ_GPU_BA_PROFILE: per-round kernel times of the first chunk on stderr */
        const bool rp = first && getenv("CZ_GPU_BA_PROFILE") != nullptr;
        cudaEvent_t rev[3 * 40 + 2];
        unsigned nr = 0;
        double setup_ms = 0;
        if (rp) {
            setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - hb).count();
            for (int i = 0; i < 3 * 40 + 2; i++) cudaEventCreate(&rev[i]);
            cudaEventRecord(rev[0], st);
        }
        while (m > amin) {
            const cz_pts<F> out = bufs[which];
            baa_fwd<F><<<G, BAA_THREADS, 0, st>>>(cur, ci, m / 2, pref, ex, btot);
            CZ_CUDA_LAUNCHED();
            if (rp && nr < 40) cudaEventRecord(rev[3 * nr + 1], st);
            if (!pbinv) {
                baa_inv<den_t<F>><<<1, ig, 0, st>>>(binv, btot, G);
                CZ_CUDA_LAUNCHED();
            }
            if (rp && nr < 40) cudaEventRecord(rev[3 * nr + 2], st);
            baa_bwd<F><<<G, BAA_THREADS, 0, st>>>(out, cur, ci, m, pref, ex, btot, pbinv ? nullptr : binv);
            CZ_CUDA_LAUNCHED();
            if (rp && nr < 40) cudaEventRecord(rev[3 * nr + 3], st);
            nr++;
            cur = out;
            ci = nullptr;
            m = (m + 1) / 2;
            which ^= 1;
        }
        baa_tail<F><<<tb, RED_THREADS, 0, st>>>(part, cur, ci, m, !first);
        CZ_CUDA_LAUNCHED();
        if (rp) {
            const unsigned k = nr < 40 ? nr : 40;
            cudaEventRecord(rev[3 * k + 1], st);
            cudaEventSynchronize(rev[3 * k + 1]);
            fprintf(stderr, "ba rounds tot=%zu chunk=%zu G=%u host setup %.3f ms (fwd/inv/bwd ms):", tot, chunk, G, setup_ms);
            print_round_times(rev, k);
            float t = 0;
            cudaEventElapsedTime(&t, rev[3 * k], rev[3 * k + 1]);
            fprintf(stderr, " | tail %.3f ms (%zu points)\n", t, m);
            for (int i = 0; i < 3 * 40 + 2; i++) cudaEventDestroy(rev[i]);
        }
        first = false;
    }
    return 0;
}

/* ba_run (bitmap -> index list -> rounds or xyzz sums) is in ba_impl.cuh. */

/* ---- MSM ---- */
/* Buckets per thread in the bucket combination (msm_combine): 64, halved down to 4 while that leaves fewer than
 * 2^15 threads, whose chains of dependent additions would otherwise run on a few SMs: the partition's B_G2 tail
 * (20 windows of 2^12 buckets) had 1,280 threads, 10 blocks, 18.8 ms. Smaller chunks add a double-and-add by the
 * chunk's offset per chunk. CZ_GPU_MSM_CHUNK (1..64, rounded down to a power of two) forces it (A/B). */
static unsigned msm_chunk(unsigned nb, size_t KW) {
    const size_t forced = env_size("CZ_GPU_MSM_CHUNK", 0, 0, 64);
    unsigned ch = 64;
    if (forced) {
        for (ch = 1; ch * 2 <= forced;) ch *= 2;
    } else {
        while (ch > 4 && (size_t)(nb / ch) * KW < 32768) ch /= 2;
    }
    return ch < nb ? ch : nb;
}

/* Montgomery -> canonical (times 1/R), 8x32 limbs, stored as 8 planes of words (word j of scalar i at
 * out[j * ld + i]): a window's digits then read the one or two planes that hold its bits, 0.5-1 GB at 2^27
 * instead of every scalar's whole 32-byte sector (4.3 GB a window, 13 windows, on the sort stream beside the
 * memory-bound forward passes). */
static __global__ void msm_from_mont(uint32_t *out, size_t ld, const cz_dfr *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const cz_dfr r = cz_ld(in + i).from_mont();
#pragma unroll
    for (int j = 0; j < 8; j++) out[j * ld + i] = r.v[j];
}

/* Booth digit of window w: bits [w*c - 1, w*c + c) of s (bit -1 = 0), value in [-2^(c-1), 2^(c-1)]; sc: the word
 * planes of msm_from_mont (ld apart), the segment's first scalar at sc[0]. */
static __global__ void msm_digits(uint32_t *key, uint32_t *val, const uint32_t *sc, size_t ld, size_t n, unsigned w,
                                  unsigned c, uint32_t vbase) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int32_t d = cz_booth_digit(sc + i, ld, w, c);
    key[i] = (uint32_t)(d < 0 ? -d : d);
    val[i] = ((uint32_t)i + vbase) | (d < 0 ? 0x80000000u : 0u); /* base index (vbase: its segment's first) */
}

/* the first position of the n sorted keys whose key is at least k */
static CZ_DEV size_t msm_lower_bound(const uint32_t *key, size_t n, uint32_t k) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (key[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Run bounds of the sorted keys: start[k], end[k] for every key k <= nb (0, 0 when k is absent), one thread a key
 * by binary search, so the stores are coalesced. (One thread a position storing at each run's ends made ~2^20
 * scattered 4-byte stores a window at 2^27, 0.44 ms on the H200.) A run ends where the next key's starts, so each
 * thread searches once and takes its end from the next lane (the warp's last lane searches twice); whole warps
 * (blocks of a multiple of 32 threads), every lane searching before any returns. */
static __global__ void msm_bounds(const uint32_t *key, size_t n, unsigned nb, uint32_t *start, uint32_t *end) {
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t s = msm_lower_bound(key, n, k);
    size_t e = __shfl_down_sync(0xffffffffu, s, 1);
    if ((threadIdx.x & 31) == 31) e = msm_lower_bound(key, n, k + 1);
    if (k > nb) return;
    start[k] = e > s ? (uint32_t)s : 0;
    end[k] = e > s ? (uint32_t)e : 0;
}


/* One thread per (window, bucket k = 1..2^(c-1)): bucket[w][k-1] = sum of +-bases in its run.
 * The top window holds only tb = 255 - (W-1)c real scalar bits, so its digits use the first 2^tb
 * buckets, each 2^(c-1-tb) times as full as the others: there each bucket's run is cut into
 * S = 2^split parts, thread (k-1)*S + s sums part s into bucket slot (k-1)*S + s, and msm_top_merge
 * adds the parts. Every thread then has about the same number of points (n / 2^(c-1)). */
template <class F>
static __global__ void __launch_bounds__(128, 1) msm_accumulate(cz_dxyzz<F> *bucket, const cz_daff<F> *bases,
                                                             const uint32_t *sorted, const uint32_t *start,
                                                             const uint32_t *end, size_t n, unsigned nb, unsigned W,
                                                             unsigned split) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nb * W) return;
    const unsigned w = (unsigned)(t / nb), kk = (unsigned)(t % nb);
    const uint32_t *srt = sorted + (size_t)w * n;
    const size_t off = (size_t)w * (nb + 1);
    uint32_t b, e;
    if (w == W - 1 && split) {
        const unsigned k = (kk >> split) + 1, s = kk & ((1u << split) - 1);
        const uint32_t b0 = start[off + k], len = end[off + k] - b0;
        b = b0 + (uint32_t)(((uint64_t)len * s) >> split);
        e = b0 + (uint32_t)(((uint64_t)len * (s + 1)) >> split);
    } else {
        b = start[off + kk + 1];
        e = end[off + kk + 1];
    }
    cz_dxyzz<F> a = cz_dxyzz<F>::inf();
    for (uint32_t j = b; j < e; j++) {
        uint32_t v = srt[j];
        cz_daff<F> p = cz_ec_ld_aff(bases + (v & 0x7fffffffu));
        if (v >> 31) p.y = p.y.neg();
        a = cz_ec_add_aff_inl(a, p);
    }
    cz_ec_st(bucket + t, a);
}

/* ---- bucket accumulation in affine coordinates (G1; CZ_GPU_MSM_AFF=1) ----
 * The same batch-affine rounds as the batch addition, over the segments of one window: a segment is a
 * bucket's run of the sorted list (for the top window a part of one, as in msm_accumulate). Round r
 * halves every segment: L_r = ceil(L_0 / 2^r) points at s_r, pairs (s_r + 2i, s_r + 2i + 1) go to
 * s_{r+1} + i with s_{r+1} = floor(s_r / 2) + k (k the segment index): consecutive non-empty segments
 * stay disjoint, and each round's positions fit in (previous size) / 2 + segments. Round 0 reads the
 * bases through the sorted list (sign bit: negate y), later rounds the previous round's buffer; pref is
 * indexed by output position. The window is cut in chunks of sorted positions (a segment belongs to
 * the chunk holding its first point) to bound the buffers. After ceil(log2(longest run)) rounds every
 * segment has at most one point, which becomes its xyzz bucket. Thread t owns segments t, t + T, ... */
template <class F>
struct msa_src {
    const cz_daff<F> *in;
    const uint32_t *srt; /* round 0: sorted list of the window (absolute positions); later null */
    size_t base;         /* round 0: absolute position of relative position 0 */
    CZ_DEV const cz_daff<F> *ptr(size_t pos, bool *neg) const {
        if (srt) {
            const uint32_t v = srt[base + pos];
            *neg = v >> 31;
            return in + (v & 0x7fffffffu);
        }
        *neg = false;
        return in + pos;
    }
    CZ_DEV cz_daff<F> ld(size_t pos) const {
        bool neg;
        cz_daff<F> p = cz_ec_ld_aff(ptr(pos, &neg));
        if (neg) p.y = p.y.neg();
        return p;
    }
};

/* first and end position of segment kk (absolute), as msm_accumulate cuts them */
static CZ_DEV void msa_seg(const uint32_t *start, const uint32_t *end, unsigned kk, unsigned split, uint32_t *b, uint32_t *e) {
    if (split) {
        const unsigned k = (kk >> split) + 1, s = kk & ((1u << split) - 1);
        const uint32_t b0 = start[k], len = end[k] - b0;
        *b = b0 + (uint32_t)(((uint64_t)len * s) >> split);
        *e = b0 + (uint32_t)(((uint64_t)len * (s + 1)) >> split);
    } else {
        *b = start[kk + 1];
        *e = end[kk + 1];
    }
}

struct msa_round {
    const uint32_t *start, *end; /* of the window */
    unsigned nseg, split, r;     /* segments, top-window split, round */
    size_t c0, ch;               /* chunk: absolute positions [c0, c0 + ch) */
};

/* segment kk in round rd.r: false if not in the chunk or nothing left to do; else its s_r, L_r, s_{r+1} */
static CZ_DEV bool msa_geom(const msa_round &rd, unsigned kk, size_t *s, uint32_t *L, size_t *s1) {
    uint32_t b, e;
    msa_seg(rd.start, rd.end, kk, rd.split, &b, &e);
    if (b == e || b < rd.c0 || b >= rd.c0 + rd.ch) return false;
    size_t p = b - rd.c0;
    for (unsigned q = 0; q < rd.r; q++) p = p / 2 + kk;
    *s = p;
    *L = (uint32_t)(((uint64_t)(e - b) + ((uint64_t)1 << rd.r) - 1) >> rd.r);
    *s1 = p / 2 + kk;
    return true;
}

/* The denominator of the pair at sorted positions pa, pb from their x coordinates (baa_den for a sorted
 * list, S = msa_src / msf_src: the points are read, with the sorted entries' signs, only in the rare cases). */
template <class F, class S>
static CZ_DEV F sorted_den(const S &src, size_t pa, size_t pb, const F &x1, const F &x2) {
    F d = x2 - x1;
    if (d.is_zero() || x1.is_zero() || x2.is_zero()) {
        const cz_daff<F> A = src.ld(pa), B = src.ld(pb);
        const int k = baa_kind(A, B);
        d = k == 0 ? d : k == 1 ? A.y.dbl() : F::one();
    }
    return d;
}

template <class F>
static CZ_DEV F msa_den(const msa_src<F> &src, size_t pa, size_t pb) {
    bool na, nb;
    const cz_daff<F> *a = src.ptr(pa, &na), *b = src.ptr(pb, &nb);
    return sorted_den(src, pa, pb, cz_ld(&a->x), cz_ld(&b->x));
}

template <class F>
static __global__ void __launch_bounds__(BAA_THREADS) msa_fwd(msa_src<F> src, msa_round rd, den_t<F> *pref, den_t<F> *ex,
                                                               den_t<F> *btot) {
    const unsigned T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    den_t<F> acc = den_t<F>::one();
    /* one flat loop over the thread's pairs in all its segments (nested loops would keep every lane
     * of a warp waiting for the warp's longest segment, segment after segment) */
    unsigned kk = t;
    size_t s = 0, s1 = 0;
    uint32_t i = 0, np = 0;
    for (;;) {
        while (i >= np && kk < rd.nseg) {
            uint32_t L;
            np = msa_geom(rd, kk, &s, &L, &s1) ? L / 2 : 0;
            i = 0;
            kk += T;
        }
        if (i >= np) break;
        const F d = msa_den(src, s + 2 * i, s + 2 * i + 1);
        cz_st(pref + s1 + i, acc);
        acc = acc * baa_den_t<F>::norm(d);
        i++;
    }
    baa_fwd_end(acc, ex, btot);
}

template <class F>
static __global__ void __launch_bounds__(BAA_THREADS) msa_bwd(cz_daff<F> *out, msa_src<F> src, msa_round rd,
                                                               const den_t<F> *pref, const den_t<F> *ex, const den_t<F> *binv) {
    const unsigned T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= rd.nseg) return;
    den_t<F> inv = cz_ld(ex + t) * cz_ld(binv + blockIdx.x);
    /* the pairs of msa_fwd in reverse order, one flat loop; odd segments carry their last point */
    long long kk = (long long)(t + (rd.nseg - 1 - t) / T * T);
    size_t s = 0, s1 = 0;
    uint32_t i = 0;
    for (;;) {
        while (i == 0 && kk >= 0) {
            uint32_t L;
            if (msa_geom(rd, (unsigned)kk, &s, &L, &s1)) {
                if (L & 1) baa_st_aff(out + s1 + L / 2, src.ld(s + L - 1));
                i = L / 2;
            }
            kk -= T;
        }
        if (i == 0) break;
        i--;
        const cz_daff<F> a = src.ld(s + 2 * i), b = src.ld(s + 2 * i + 1);
        F d, num;
        const int k = baa_terms(a, b, d, num);
        const F dinv = baa_step_inv(inv, cz_ld(pref + s1 + i), d);
        const cz_daff<F> r = baa_sum(a, b, k, num, dinv);
        baa_st_aff(out + s1 + i, r);
    }
}

/* bucket[kk] = the one point left of segment kk (rounds done: rd.r), infinity for empty segments */
template <class F>
static __global__ void msa_fin(cz_dxyzz<F> *bucket, msa_src<F> src, msa_round rd) {
    const unsigned kk = blockIdx.x * blockDim.x + threadIdx.x;
    if (kk >= rd.nseg) return;
    uint32_t b, e;
    msa_seg(rd.start, rd.end, kk, rd.split, &b, &e);
    if (b < rd.c0 || b >= rd.c0 + rd.ch) {
        if (!(b == e && rd.c0 == 0)) return; /* empty segments (b = 0 or anywhere): the first chunk */
    }
    cz_dxyzz<F> r = cz_dxyzz<F>::inf();
    if (b != e) {
        size_t s, s1;
        uint32_t L;
        msa_geom(rd, kk, &s, &L, &s1);
        const cz_daff<F> p = src.ld(s);
        if (!p.is_inf()) {
            r.x = p.x;
            r.y = p.y;
            r.zz = r.zzz = F::one();
        }
    }
    cz_ec_st(bucket + kk, r);
}

/* longest segment per window: mx[w] (zeroed by the caller). nb is a multiple of 32, so a warp stays in one window
 * and takes its maximum first: one atomic a warp (one a thread, all on the same word, took 0.39 ms a window at 2^19
 * buckets on the H200, on the sort stream beside the rounds; now 0.02) */
static __global__ void msa_maxlen(unsigned *mx, const uint32_t *start, const uint32_t *end, unsigned nb, unsigned W, unsigned split) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned w = (unsigned)(t / nb), kk = (unsigned)(t % nb);
    uint32_t b = 0, e = 0;
    if (t < (size_t)nb * W) msa_seg(start + (size_t)w * (nb + 1), end + (size_t)w * (nb + 1), kk, w == W - 1 ? split : 0, &b, &e);
    const unsigned len = __reduce_max_sync(0xffffffffu, e - b);
    if ((threadIdx.x & 31) == 0 && len > 1) atomicMax(mx + w, len);
}

/* Threads of the affine rounds: a power of two (nb is one, so every thread owns the same number of
 * segments), at most one wave of resident blocks. */
template <class F>
static void msa_grid(unsigned nb, unsigned *T_out, unsigned *G_out) {
    int per_sm = 0, per_sm_f = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, msa_bwd<F>, BAA_THREADS, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_f, msa_fwd<F>, BAA_THREADS, 0) == cudaSuccess && per_sm_f >= 1 &&
        per_sm_f < per_sm)
        per_sm = per_sm_f;
    unsigned T = BAA_THREADS;
    while (2 * T <= (unsigned)(sm_count() * per_sm * BAA_THREADS) && 2 * T <= nb && 2 * T <= 512 * BAA_THREADS) T *= 2;
    *T_out = T;
    *G_out = T / BAA_THREADS;
}

/* Positions used by the rounds' outputs for a chunk of cw sorted positions whose longest segment has
 * maxl points: sz(0) = (cw + maxl) / 2 + nb + 1, sz(r+1) <= sz(r) / 2 + nb + 1 (which tends to
 * 2 nb + 2, so it can grow when nb is large against the chunk); even rounds write buffer 0, odd ones
 * buffer 1; pref holds any round's. */
static void msa_sizes(size_t cw, unsigned maxl, unsigned nb, size_t szb[2]) {
    unsigned rmax = 0;
    while (maxl > (1u << rmax)) rmax++;
    szb[0] = szb[1] = 0;
    for (size_t r = 0, sz = (cw + maxl) / 2 + nb + 1; r < rmax; r++, sz = sz / 2 + nb + 1)
        if (sz > szb[r & 1]) szb[r & 1] = sz;
}

/* bytes of the affine rounds' scratch for chunks of cw positions, longest segment maxl, T threads */
template <class F>
static size_t msa_need(size_t cw, unsigned maxl, unsigned nb, unsigned T) {
    size_t z[2];
    msa_sizes(cw, maxl, nb, z);
    const size_t z1 = z[0] > z[1] ? z[0] : z[1];
    return (z[0] + z[1] + 1) * sizeof(cz_daff<F>) + (z1 + T + 2 * (size_t)(T / BAA_THREADS)) * sizeof(den_t<F>);
}

/* The first chunk size tried: CZ_GPU_MSM_AFF_CHUNK_LOG if set (the benchmark / test knob: 2^26 was the
 * default before), else the whole window (one chunk per window; at 2^27 13 GB of scratch against
 * 6.6 GB for 2^26, measured 785 against 829 ms). */
static size_t msa_first_chunk(size_t n) {
    if (getenv("CZ_GPU_MSM_AFF_CHUNK_LOG")) return (size_t)1 << env_size("CZ_GPU_MSM_AFF_CHUNK_LOG", 26, 8, 31);
    size_t ch = 1;
    while (ch < n) ch *= 2;
    return ch;
}

/* CZ_GPU_MSM_PROFILE level (0 when unset; "1" or any other value is 1, "2" adds per-round kernel times) */
static int prof_level() {
    const char *e = getenv("CZ_GPU_MSM_PROFILE");
    return e ? (atoi(e) >= 2 ? 2 : 1) : 0;
}

/* All windows' buckets by affine rounds, window by window as the side stream's sort delivers them:
 * window w may start once ev_win[w] has fired (its sorted list, bounds and longest run hmx[w], on the
 * host). g: 4 scratch buffers (g[0] is the caller's). The chunk is sized from free device memory with
 * window 0's longest run (x2 + 64: room for the others); a later window with a longer run takes smaller
 * chunks within the buffers, or (rare: heavily repeated digits) waits for the stream and regrows them.
 * Returns 1 when the scratch does not fit (below 2^20 positions per chunk): the caller takes the xyzz
 * path for all windows (it rewrites every bucket), else 0 or a CZ_E* status. */
template <class F>
static int msa_run(scratch *g, cz_dxyzz<F> *bucket, const cz_daff<F> *bases, const uint32_t *sorted, const uint32_t *start,
                   const uint32_t *end, size_t n, unsigned nb, unsigned W, unsigned split, cudaStream_t st,
                   const cudaEvent_t *ev_win, const unsigned *hmx) {
    typedef cz_daff<F> A;
    unsigned T, G;
    msa_grid<F>(nb, &T, &G);
    const unsigned ig = (G + 31) / 32 * 32;
    const size_t first = msa_first_chunk(n);
    size_t lo = getenv("CZ_GPU_MSM_AFF_CHUNK_LOG") ? 1 : (size_t)1 << 20;
    if (lo > first) lo = first; /* fewer points than that: one chunk */
    size_t cw = 0, have[2] = {0, 0}, have_pref = 0;
    A *bufs[2] = {nullptr, nullptr};
    den_t<F> *pref = nullptr, *ex = nullptr, *btot = nullptr, *binv = nullptr;
    /* does a chunk of c positions with longest segment m fit the buffers held? */
    auto fits = [&](size_t c, unsigned m) {
        size_t z[2];
        msa_sizes(n < c ? n : c, m, nb, z);
        return z[0] <= have[0] && z[1] <= have[1] && (z[0] > z[1] ? z[0] : z[1]) <= have_pref;
    };
    for (unsigned w = 0; w < W; w++) {
        CZ_CUDA(cudaEventSynchronize(ev_win[w]));
        const unsigned mw = hmx[w];
        size_t cww = cw;
        if (w) /* within the buffers: halve the chunk, at most 16-fold */
            while (cww > 1 && cww > cw / 16 && !fits(cww, mw)) cww /= 2;
        if (!w || !fits(cww, mw)) {
            const unsigned est = w ? mw : 2 * mw + 64;
            if (w) CZ_CUDA(cudaStreamSynchronize(st)); /* queued rounds still use the buffers */
            const size_t ch = fit_chunk(first, lo, g[1].cap + g[2].cap, [&](size_t c) { return msa_need<F>(n < c ? n : c, est, nb, T); });
            if (!ch) return 1;
            cw = cww = n < ch ? n : ch;
            msa_sizes(cw, est, nb, have);
            have_pref = have[0] > have[1] ? have[0] : have[1];
            A *buf = nullptr;
            den_t<F> *fs = nullptr;
            int rc = scratch_get(g[1], (have[0] + have[1] + 1) * sizeof(A), (void **)&buf);
            if (!rc) rc = scratch_get(g[2], (have_pref + T + 2 * (size_t)G) * sizeof(den_t<F>), (void **)&fs);
            if (rc) return rc;
            bufs[0] = buf;
            bufs[1] = buf + have[0];
            pref = fs, ex = fs + have_pref, btot = ex + T, binv = btot + G;
        }
        CZ_CUDA(cudaStreamWaitEvent(st, ev_win[w], 0));
        unsigned R = 0;
        while (mw > (1u << R)) R++;
        msa_round rd;
        rd.start = start + (size_t)w * (nb + 1);
        rd.end = end + (size_t)w * (nb + 1);
        rd.nseg = nb;
        rd.split = w == W - 1 ? split : 0;
        rd.ch = cww;
        /* CZ_GPU_MSM_PROFILE=2: per-round kernel times of the middle window's first chunk on stderr */
        const bool rprof = w == W / 2 && prof_level() >= 2;
        cudaEvent_t rev[3 * 32 + 1];
        if (rprof)
            for (unsigned i = 0; i <= 3 * R && i < 3 * 32 + 1; i++) cudaEventCreate(&rev[i]);
        for (size_t c0 = 0; c0 < n; c0 += cww) {
            rd.c0 = c0;
            msa_src<F> src;
            src.in = bases;
            src.srt = sorted + (size_t)w * n;
            src.base = c0;
            const bool rp = rprof && c0 == 0 && R <= 32;
            if (rp) cudaEventRecord(rev[0], st);
            for (unsigned r = 0; r < R; r++) {
                rd.r = r;
                A *out = bufs[r & 1];
                msa_fwd<F><<<G, BAA_THREADS, 0, st>>>(src, rd, pref, ex, btot);
                CZ_CUDA_LAUNCHED();
                if (rp) cudaEventRecord(rev[3 * r + 1], st);
                baa_inv<den_t<F>><<<1, ig, 0, st>>>(binv, btot, G);
                CZ_CUDA_LAUNCHED();
                if (rp) cudaEventRecord(rev[3 * r + 2], st);
                msa_bwd<F><<<G, BAA_THREADS, 0, st>>>(out, src, rd, pref, ex, binv);
                CZ_CUDA_LAUNCHED();
                if (rp) cudaEventRecord(rev[3 * r + 3], st);
                src.in = out;
                src.srt = nullptr;
                src.base = 0;
            }
            rd.r = R;
            msa_fin<F><<<(nb + 255) / 256, 256, 0, st>>>(bucket + (size_t)w * nb, src, rd);
            CZ_CUDA_LAUNCHED();
        }
        if (rprof && R <= 32) {
            fprintf(stderr, "msa rounds w=%u n=%zu chunk=%zu G=%u T=%u R=%u (fwd/inv/bwd ms):", w, n, cww, G, T, R);
            print_round_times(rev, R);
            fprintf(stderr, "\n");
        }
        if (rprof)
            for (unsigned i = 0; i <= 3 * R && i < 3 * 32 + 1; i++) cudaEventDestroy(rev[i]);
    }
    return 0;
}

/* ---- Flat affine rounds (CZ_GPU_MSM_FLAT, the default from 2^24): the pairing of the batch addition over a
 * window's sorted list. Round r pairs positions (2j, 2j+1) of its array; a pair inside one bucket's run is
 * added (out[j] = A[2j] + A[2j+1]), a pair across two runs keeps A[2j+1] (out[j]) and flushes A[2j], the last
 * point of its run, into its xyzz bucket (through a list: one flush per bucket and round at most, so the
 * bucket updates never race); an odd last point is flushed too, so the next array has floor(m/2). Consecutive threads take consecutive pairs, so every load and store is
 * coalesced (the per-segment rounds above give each thread its own bucket's run: ~2x slower per pair on the
 * H200). A run of L points keeps at most ceil(L/2) (its pairs, plus its first point when that was the second
 * of a crossing pair), so after ceil(log2(longest run)) rounds each bucket has
 * at most one point left, which msf_fin adds to its bucket. Chunks of the list are independent (a run cut
 * by a chunk border just leaves two points), so any chunk size works. Key 0 (zero digits, which the per-window
 * lists skip but the all-window list of msm_allw keeps) is never added nor flushed: its points are dropped. */
template <class F>
struct msf_src {
    cz_pts<F> in;        /* round 0: the bases; later the previous round's output */
    const uint32_t *srt; /* round 0: sorted entries (index | sign << 31); later null */
    const uint32_t *key; /* bucket + 1 per position */
    CZ_DEV cz_daff<F> ld(size_t pos) const { return ld_v(pos, srt ? srt[pos] : 0); }
    CZ_DEV F ldx(size_t pos) const { return in.ldx(srt ? (srt[pos] & 0x7fffffffu) : pos); }
    /* pair j's keys and (round 0) sorted entries, for ld_v */
    CZ_DEV void idx(size_t j, uint32_t &ka, uint32_t &kb, uint32_t &va, uint32_t &vb) const {
        ka = key[2 * j], kb = key[2 * j + 1];
        if (srt) va = srt[2 * j], vb = srt[2 * j + 1];
    }
    /* ld(pos) given pos's sorted entry v (round 0) */
    CZ_DEV cz_daff<F> ld_v(size_t pos, uint32_t v) const {
        if (srt) {
            cz_daff<F> p = in.ld(v & 0x7fffffffu);
            if (v >> 31) p.y = p.y.neg();
            return p;
        }
        return in.ld(pos);
    }
};

template <class F>
static __global__ void __launch_bounds__(BAA_THREADS) msf_fwd(msf_src<F> src, size_t m, den_t<F> *pref, den_t<F> *ex,
                                                               den_t<F> *btot) {
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    den_t<F> acc = den_t<F>::one();
    for (size_t j = t; j < m / 2; j += T) {
        if (src.key[2 * j] != src.key[2 * j + 1] || !src.key[2 * j]) continue; /* across two runs, or zero digits */
        const F d = sorted_den(src, 2 * j, 2 * j + 1, src.ldx(2 * j), src.ldx(2 * j + 1));
        cz_st(pref + j, acc);
        acc = acc * baa_den_t<F>::norm(d);
    }
    baa_fwd_end(acc, ex, btot);
}

/* Round r's sorted-list pair j: its keys and the two point indices (the sorted entries in round 0, else
 * the positions); past the end, keys that differ, so nothing is added. */
template <class F>
static CZ_DEV void msf_idx(const msf_src<F> &src, size_t j, size_t np, uint32_t &ka, uint32_t &kb, uint32_t &ia,
                           uint32_t &ib) {
    ka = 0, kb = 1, ia = ib = 0;
    if (j >= np) return;
    uint32_t va = 0, vb = 0;
    src.idx(j, ka, kb, va, vb);
    if (src.srt) ia = va & 0x7fffffffu, ib = vb & 0x7fffffffu;
    else ia = (uint32_t)(2 * j), ib = (uint32_t)(2 * j + 1);
}

/* msf_fwd with the loads in flight (the default; CZ_GPU_MSF_PF=0 for msf_fwd): the keys and sorted entries two
 * pairs ahead, the x coordinates one pair ahead, in registers, so each thread's serial chain of products does
 * not wait for its own gathers (round 0 reads its points at random). Same outputs as msf_fwd; the grid is the
 * backward pass's, whose occupancy (MINB) leaves it the registers. H200, one 2^27 window: forward passes 12.45
 * -> 11.45 ms, G1 MSM 2^27 650.0 -> 637.0 ms, G2 2^24 427.2 -> 419.2 (docs/perf.md). The same for the batch
 * addition's baa_fwd measured no change (12.07 / 12.10 ms at 2^26 ~50 %) and was dropped. */
template <class F, int MINB = sizeof(F) == 48 ? 2 : 1>
static __global__ void __launch_bounds__(BAA_THREADS, MINB) msf_fwd_pf(msf_src<F> src, size_t m, den_t<F> *pref, den_t<F> *ex,
                                                                     den_t<F> *btot) {
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t np = m / 2;
    den_t<F> acc = den_t<F>::one();
    F x1 = F::zero(), x2 = F::zero();
    uint32_t ka0, kb0, ia, ib, ka1, kb1, ia1, ib1;
    msf_idx(src, t, np, ka0, kb0, ia, ib);
    msf_idx(src, t + T, np, ka1, kb1, ia1, ib1);
    if (ka0 == kb0 && ka0) x1 = src.in.ldx(ia), x2 = src.in.ldx(ib);
    for (size_t j = t; j < np; j += T) {
        F y1 = F::zero(), y2 = F::zero();
        if (ka1 == kb1 && ka1) y1 = src.in.ldx(ia1), y2 = src.in.ldx(ib1);
        uint32_t ka2, kb2, ia2, ib2;
        msf_idx(src, j + 2 * T, np, ka2, kb2, ia2, ib2);
        if (ka0 == kb0 && ka0) {
            const F d = sorted_den(src, 2 * j, 2 * j + 1, x1, x2);
            cz_st(pref + j, acc);
            acc = acc * baa_den_t<F>::norm(d);
        }
        ka0 = ka1, kb0 = kb1, ka1 = ka2, kb1 = kb2, ia1 = ia2, ib1 = ib2;
        x1 = y1, x2 = y2;
    }
    baa_fwd_end(acc, ex, btot);
}

static bool msf_pf() {
    const char *e = getenv("CZ_GPU_MSF_PF");
    return !e || atoi(e) != 0;
}

/* MINB 2 for G1: 128 registers, two blocks per SM (unbounded it takes 132, one block). The next pair's keys and
 * sorted entries are loaded while this pair computes, so its point gathers start at once instead of after a
 * dependent index load (ncu, 2^24: memory stalls 1.74 of 10.5 cycles per instruction). H200, G1 MSM with two
 * work streams: 2^27 591.2 -> 582.9 ms, 2^24 111.5 -> 110.9; G2 2^24 unchanged (366.3 / 367.6). SRT: 1 = round 0
 * (sorted entries), 0 = later rounds, both known at compile time so the other kind's loads and branches drop out
 * of the loop (ncu, 2^24, round 1: a kernel testing the kind at run time stalls 0.69 cycles per instruction on
 * instruction fetch, the batch addition's 0.04). H200 (session 9, median of 3): G1 2^27 571.1 -> 561.8 ms, 2^24
 * 106.6 -> 104.6; G2 2^24 365.3 -> 354.1. (The variants without the loads ahead, CZ_GPU_MSF_BPF=0, tested at
 * run time, CZ_GPU_MSF_SPLIT=0, and capped for three blocks an SM, CZ_GPU_MSF_MINB=3, were A/B knobs until
 * commit 2489c26.) */
template <class F, int SRT, int MINB = sizeof(F) == 48 ? 2 : 1>
static __global__ void __launch_bounds__(BAA_THREADS, MINB) msf_bwd(const cz_pts<F> out, uint32_t *kout, cz_daff<F> *fl, uint32_t *fk,
                                                               unsigned *fcnt, msf_src<F> src_, size_t m, const den_t<F> *pref,
                                                               const den_t<F> *ex, const den_t<F> *btot, const den_t<F> *binv) {
    msf_src<F> src = src_;
    if (SRT == 0) src.srt = nullptr;
    if (SRT == 1) __builtin_assume(src.srt != nullptr);
    const size_t T = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t npair = m / 2;
    if (t == 0 && (m & 1) && src.key[m - 1]) { /* the odd last point ends its run: flushed like the first of a crossing pair */
        const unsigned q = atomicAdd(fcnt, 1u);
        baa_st_aff(fl + q, src.ld(m - 1));
        fk[q] = src.key[m - 1];
    }
    den_t<F> inv = baa_start_inv(ex, btot, binv);
    if (t >= npair) return;
    size_t j = t + (npair - 1 - t) / T * T;
    uint32_t ka = 0, kb = 0, va = 0, vb = 0; /* pair j's keys and sorted entries */
    src.idx(j, ka, kb, va, vb);
    for (;; j -= T) {
        uint32_t nka = 0, nkb = 0, nva = 0, nvb = 0;
        if (j >= T) src.idx(j - T, nka, nkb, nva, nvb);
        if (ka == kb && ka) {
            const cz_daff<F> a = src.ld_v(2 * j, va), b = src.ld_v(2 * j + 1, vb);
            F d, num;
            const int k = baa_terms(a, b, d, num);
            const F dinv = baa_step_inv(inv, cz_ld(pref + j), d);
            out.st(j, baa_sum(a, b, k, num, dinv));
        } else {
            out.st(j, src.ld_v(2 * j + 1, vb));
            if (ka) {
                const unsigned q = atomicAdd(fcnt, 1u);
                baa_st_aff(fl + q, src.ld_v(2 * j, va));
                fk[q] = ka;
            }
        }
        kout[j] = kb;
        if (j < T) break;
        ka = nka, kb = nkb, va = nva, vb = nvb;
    }
}

/* bucket[key - 1] += the flushed point (one per bucket in a round) */
template <class F>
static __global__ void msf_flush(cz_dxyzz<F> *bucket, const cz_daff<F> *fl, const uint32_t *fk, const unsigned *fcnt) {
    const unsigned cnt = *fcnt;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
        cz_dxyzz<F> *b = bucket + (fk[i] - 1);
        cz_ec_st(b, cz_ec_add_aff_inl(cz_ec_ld(b), cz_ec_ld_aff(fl + i)));
    }
}

/* the rounds done, every position holds the last point of its bucket in this chunk */
template <class F>
static __global__ void msf_fin(cz_dxyzz<F> *bucket, msf_src<F> src, size_t m) {
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (size_t)gridDim.x * blockDim.x) {
        const uint32_t k = src.key[j];
        if (!k) continue; /* zero digits (the all-window list) */
        cz_dxyzz<F> *b = bucket + (k - 1);
        cz_ec_st(b, cz_ec_add_aff_inl(cz_ec_ld(b), src.ld(j)));
    }
}

/* The rounds stopped early (msf_tail_len): one thread per bucket (key k = 1..nb) adds what is left of its run
 * to it, xyzz += affine. After r rounds position j stands for the sorted positions [j 2^r, (j + 1) 2^r) and holds
 * the key of the last of them, so bucket k's points lie in [s >> r, (e - 1) >> r] for its run [s, e) of the
 * chunk (the window's run from kstart / kend, cut to the chunk's c0 .. c0 + m0): the thread adds the positions
 * there, below m, whose key is k. At most ceil(longest run / 2^r) + 1 positions a thread. */
template <class F>
static __global__ void __launch_bounds__(128) msf_tail(cz_dxyzz<F> *bucket, msf_src<F> src, size_t m, unsigned r,
                                                       const uint32_t *kstart, const uint32_t *kend, unsigned nb, size_t c0,
                                                       size_t m0) {
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x + 1; k <= nb; k += gridDim.x * blockDim.x) {
        size_t s = kstart[k], e = kend[k];
        s = s > c0 ? s - c0 : 0;
        e = e > c0 + m0 ? m0 : e > c0 ? e - c0 : 0;
        if (s >= e) continue;
        const size_t lo = s >> r;
        size_t hi = (e - 1) >> r;
        if (hi >= m) hi = m - 1; /* m >= 1: lo < m when the run reaches this chunk */
        if (lo > hi) continue;
        cz_dxyzz<F> acc = cz_ec_ld(bucket + (k - 1));
        bool any = false;
        for (size_t j = lo; j <= hi; j++)
            if (src.key[j] == k) {
                acc = cz_ec_add_aff_inl(acc, src.ld(j));
                any = true;
            }
        if (any) cz_ec_st(bucket + (k - 1), acc);
    }
}

/* Where the flat rounds stop: once no run of a window is longer than this (CZ_GPU_MSF_TAIL, default 12; 0 =
 * never, every round down to one point a bucket, then msf_fin), msf_tail adds the rest with xyzz additions.
 * The last rounds are short but each pays a launch triple, one inversion and a flush, whose fixed ~0.2 ms
 * outweighs the ~4 products an addition the tail's xyzz adds cost on top of the affine ones. */
static unsigned msf_tail_len() {
    return (unsigned)env_size("CZ_GPU_MSF_TAIL", 12, 0, 1u << 30);
}

/* bytes of the flat rounds' scratch for chunks of cw positions, nb buckets, G blocks */
template <class F>
static size_t msf_need(size_t cw, unsigned nb, unsigned G) {
    const size_t z0 = cw / 2 + 2, z1 = cw / 4 + 2, T = (size_t)G * BAA_THREADS;
    return (z0 + z1 + nb + 2) * (sizeof(cz_daff<F>) + 4) + (cw / 2 + 1 + T + 2 * (size_t)G) * sizeof(den_t<F>) + 64 * 4;
}

static bool msm_flat() {
    const char *e = getenv("CZ_GPU_MSM_FLAT");
    return !e || atoi(e) != 0;
}

/* the backward pass for round 0 (srt 1) or a later round (srt 0) */
template <class F>
static auto msf_bwd_k(int srt) {
    return srt ? msf_bwd<F, 1> : msf_bwd<F, 0>;
}

template <class F>
static unsigned msf_blocks() {
    int per_sm = 0, per_sm_f = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, msf_bwd_k<F>(1), BAA_THREADS, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_f, msf_fwd<F>, BAA_THREADS, 0) == cudaSuccess && per_sm_f >= 1 &&
        per_sm_f < per_sm)
        per_sm = per_sm_f;
    if (msf_pf() && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_f, msf_fwd_pf<F>, BAA_THREADS, 0) == cudaSuccess &&
        per_sm_f >= 1 && per_sm_f < per_sm)
        per_sm = per_sm_f;
    unsigned G = (unsigned)(sm_count() * per_sm);
    return G > 512 ? 512 : G; /* baa_inv: one block of at most 512 threads */
}

/* Work streams of the flat rounds: windows alternate between two streams with a scratch set each (chunks of
 * half a window, so the memory is that of one whole-window chunk, plus two more sorted-key buffers), so one
 * window's one-block inversions, short late rounds and kernel tails overlap the other's work. Each stream's
 * kernels keep the whole grid (CZ_GPU_MSF_GDIV=2 halves it: slower, 659 against 637 ms at 2^27). Measured on
 * the H200 (G1, median of 3): 2^24 120.7 -> 117.3 ms, 2^26 347.0 -> 336.3, 2^27 637.2 -> 625.2; the 2^27
 * partition 1,096.9 -> 1,088.1. The default for G1; G2 (one block per SM) keeps one stream
 * (CZ_GPU_MSM_WSTREAMS=1 / 2 forces either). */
template <class F>
static unsigned msm_wstreams() {
    const char *e = getenv("CZ_GPU_MSM_WSTREAMS");
    if (e) return atoi(e) == 2 ? 2 : 1;
    return sizeof(F) == 48 ? 2 : 1;
}
static unsigned msf_gdiv(unsigned copies) {
    const char *e = getenv("CZ_GPU_MSF_GDIV");
    const int v = e ? atoi(e) : 1;
    return v >= 1 && v <= 8 && (unsigned)v <= 2 * copies ? (unsigned)v : 1;
}

/* The flat rounds' state between windows (msm_run drives the sorts: window w's keys live in one of two
 * buffers until its rounds are done). */
template <class F>
struct msf_state {
    cz_daff<F> *buf[2] = {nullptr, nullptr}, *fl = nullptr;
    uint32_t *kb[2] = {nullptr, nullptr}, *fk = nullptr;
    unsigned *fcnt = nullptr;
    den_t<F> *pref = nullptr, *ex = nullptr, *btot = nullptr, *binv = nullptr;
    size_t cw = 0, z0 = 0, z1 = 0; /* chunk positions; capacity of buf[0], buf[1] in points */
    unsigned G = 0;
    bool pbinv = false; /* per-block inversions in the backward passes (baa_start_inv), no baa_inv */
};

/* Sizes the chunk from free device memory (the whole window when it fits, half of it for two copies, at least
 * 2^20 positions or the window) and takes the scratch of `copies` states (g: 4 buffers per copy, S[i] from
 * g[4i + 1 .. 4i + 3]); 1 when they do not fit (the caller takes the xyzz path). */
template <class F>
static int msf_setup(scratch *g, msf_state<F> *S, size_t n, unsigned nb, unsigned copies = 1) {
    typedef cz_daff<F> A;
    unsigned G = msf_blocks<F>() / msf_gdiv(copies);
    if (G < 1) G = 1;
    const size_t first = msa_first_chunk(copies > 1 ? (n + 1) / 2 : n);
    size_t lo = getenv("CZ_GPU_MSM_AFF_CHUNK_LOG") ? 1 : (size_t)1 << 20;
    if (lo > first) lo = first;
    size_t held = 0;
    for (unsigned i = 0; i < copies; i++) held += g[4 * i + 1].cap + g[4 * i + 2].cap + g[4 * i + 3].cap;
    const size_t ch = fit_chunk(first, lo, held, [&](size_t c) { return copies * msf_need<F>(n < c ? n : c, nb, G); });
    if (!ch) return 1;
    for (unsigned i = 0; i < copies; i++) {
        msf_state<F> &s = S[i];
        scratch *gi = g + 4 * i;
        s.G = G;
        s.pbinv = binv_block(copies == 1);
        s.cw = n < ch ? n : ch;
        const size_t z0 = s.cw / 2 + 2, z1 = s.cw / 4 + 2, T = (size_t)s.G * BAA_THREADS;
        char *pb = nullptr, *kb = nullptr;
        den_t<F> *fs = nullptr;
        int rc = scratch_get(gi[1], (z0 + z1 + nb + 2) * sizeof(A), (void **)&pb);
        if (!rc) rc = scratch_get(gi[2], (z0 + z1 + nb + 2) * 4 + 64 * 4, (void **)&kb);
        if (!rc) rc = scratch_get(gi[3], (s.cw / 2 + 1 + T + 2 * (size_t)s.G) * sizeof(den_t<F>), (void **)&fs);
        if (rc) return rc;
        s.buf[0] = (A *)pb, s.buf[1] = s.buf[0] + z0, s.fl = s.buf[1] + z1;
        s.z0 = z0, s.z1 = z1;
        s.kb[0] = (uint32_t *)kb, s.kb[1] = s.kb[0] + z0, s.fk = s.kb[1] + z1, s.fcnt = s.fk + nb + 2;
        s.pref = fs, s.ex = fs + s.cw / 2 + 1, s.btot = s.ex + T, s.binv = s.btot + s.G;
    }
    return 0;
}

/* Window w: its z zero digits first in the sorted list srt (n entries) with keys (bucket + 1), longest run
 * mx; buckets (zeroed by the caller) accumulate the chunks. kstart / kend (nb + 1 entries, by key; null for
 * the all-window list): each key's run, for the early stop (msf_tail). On stream st. */
template <class F>
static int msf_window(msf_state<F> &S, cz_dxyzz<F> *bucket, const cz_daff<F> *bases, const uint32_t *srt, const uint32_t *keys,
                      size_t n, size_t z, unsigned mx, bool rprof, cudaStream_t st, const uint32_t *kstart = nullptr,
                      const uint32_t *kend = nullptr, unsigned nb = 0) {
    unsigned R = 0;
    while (mx > (1u << R)) R++;
    const unsigned tl = kstart ? msf_tail_len() : 0;
    unsigned R0 = R; /* rounds before the tail: while the longest run, at most ceil(mx / 2^r), exceeds tl */
    if (tl)
        for (R0 = 0; R0 < R && ((size_t)mx + ((size_t)1 << R0) - 1) >> R0 > tl;) R0++;
    const unsigned ig = (S.G + 31) / 32 * 32;
    /* the flush's grid: a thread for each flush a round can have (one a pair across two runs and the odd last
     * point: at most m / 2 + 1, and nb + 1 for the window's buckets; at most 64 blocks an SM), so each adds one
     * point instead of a strided few after one another. CZ_GPU_MSF_FLUSH_GRID=0: 4 blocks an SM (before, A/B). */
    const bool fg_old = env_size("CZ_GPU_MSF_FLUSH_GRID", 1, 0, 1) == 0;
    auto fgrid = [&](size_t m) -> unsigned {
        if (fg_old) return 4 * sm_count();
        size_t f = m / 2 + 1, cap = (size_t)64 * sm_count() * 128; /* the all-window list: grid-strided past 2^20 */
        if (nb && f > (size_t)nb + 1) f = (size_t)nb + 1;
        return (unsigned)(((f < cap ? f : cap) + 127) / 128);
    };
    const auto fwd = msf_pf() ? msf_fwd_pf<F> : msf_fwd<F>; /* the knobs read once */
    const auto bwd0 = msf_bwd_k<F>(1), bwd = msf_bwd_k<F>(0);
    const cz_pts<F> outs[2] = {pts_buf(S.buf[0], S.z0), pts_buf(S.buf[1], S.z1)};
    cudaEvent_t rev[3 * 40 + 2];
    if (rprof)
        for (int i = 0; i < 3 * 40 + 2; i++) cudaEventCreate(&rev[i]);
    for (size_t c0 = z; c0 < n; c0 += S.cw) {
        size_t m = n - c0 < S.cw ? n - c0 : S.cw;
        msf_src<F> src;
        src.in = pts_aos(bases), src.srt = srt + c0, src.key = keys + c0;
        const bool rp = rprof && c0 == z && R <= 40;
        if (rp) cudaEventRecord(rev[0], st);
        CZ_CUDA(cudaMemsetAsync(S.fcnt, 0, 40 * sizeof(unsigned), st));
        const size_t m0 = m;
        unsigned r = 0;
        for (; r < R0 && m > 1; r++) {
            const cz_pts<F> out = outs[r & 1];
            uint32_t *kout = S.kb[r & 1];
            fwd<<<S.G, BAA_THREADS, 0, st>>>(src, m, S.pref, S.ex, S.btot);
            CZ_CUDA_LAUNCHED();
            if (rp) cudaEventRecord(rev[3 * r + 1], st);
            if (!S.pbinv) {
                baa_inv<den_t<F>><<<1, ig, 0, st>>>(S.binv, S.btot, S.G);
                CZ_CUDA_LAUNCHED();
            }
            if (rp) cudaEventRecord(rev[3 * r + 2], st);
            (r ? bwd : bwd0)<<<S.G, BAA_THREADS, 0, st>>>(out, kout, S.fl, S.fk, S.fcnt + r, src, m, S.pref, S.ex, S.btot,
                                                          S.pbinv ? nullptr : S.binv);
            CZ_CUDA_LAUNCHED();
            msf_flush<F><<<fgrid(m), 128, 0, st>>>(bucket, S.fl, S.fk, S.fcnt + r);
            CZ_CUDA_LAUNCHED();
            if (rp) cudaEventRecord(rev[3 * r + 3], st);
            src.in = out, src.srt = nullptr, src.key = kout;
            m /= 2;
        }
        if (R0 < R) {
            msf_tail<F><<<(nb + 127) / 128, 128, 0, st>>>(bucket, src, m, r, kstart, kend, nb, c0, m0);
        } else {
            msf_fin<F><<<(unsigned)((m + 255) / 256 < 4096 ? (m + 255) / 256 : 4096), 256, 0, st>>>(bucket, src, m);
        }
        CZ_CUDA_LAUNCHED();
        if (rp) {
            cudaEventRecord(rev[3 * r + 1], st);
            fprintf(stderr, "msf rounds n=%zu zero=%zu chunk=%zu G=%u R=%u run=%u (fwd/inv/bwd+flush ms):", n, z, S.cw, S.G, R, r);
            print_round_times(rev, r);
            float tt = 0;
            cudaEventSynchronize(rev[3 * r + 1]);
            cudaEventElapsedTime(&tt, rev[3 * r], rev[3 * r + 1]);
            fprintf(stderr, " | %s %.3f", R0 < R ? "tail" : "fin", tt);
            fprintf(stderr, "\n");
        }
    }
    if (rprof)
        for (int i = 0; i < 3 * 40 + 2; i++) cudaEventDestroy(rev[i]);
    return 0;
}

/* One thread per (window, chunk of CH buckets, msm_chunk): sum over the chunk of k * B_k. */
template <class F>
static __global__ void __launch_bounds__(128) msm_combine(cz_dxyzz<F> *out, const cz_dxyzz<F> *bucket, unsigned nb,
                                                          unsigned W, unsigned CH) {
    const unsigned nch = nb / CH;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nch * W) return;
    const unsigned w = (unsigned)(t / nch), ch = (unsigned)(t % nch);
    const cz_dxyzz<F> *B = bucket + (size_t)w * nb;
    const unsigned lo = ch * CH + 1; /* bucket values lo .. lo + CH - 1 */
    cz_dxyzz<F> S = cz_dxyzz<F>::inf(), T = cz_dxyzz<F>::inf();
    for (int i = (int)CH - 1; i >= 0; i--) {
        S = cz_ec_add(S, cz_ec_ld(B + lo - 1 + i));
        T = cz_ec_add(T, S);
    }
    /* T = sum (k - lo + 1) B_k; add (lo - 1) * S (lo - 1 < 2^c: no need to scan 32 bits) */
    unsigned m = lo - 1;
    cz_dxyzz<F> acc = cz_dxyzz<F>::inf();
    for (int bit = m ? 31 - __clz(m) : -1; bit >= 0; bit--) {
        acc = cz_ec_dbl(acc);
        if ((m >> bit) & 1) acc = cz_ec_add(acc, S);
    }
    cz_ec_st(out + t, cz_ec_add(T, acc));
}

/* Window width c in [8, 20]: W = ceil(256/c) windows of n mixed additions each, against the bucket
 * combination (about two full additions, a doubling share and a non-inlined call per bucket, weighted
 * 6 mixed additions) over W * 2^(c-1) buckets. Long top-window runs are split (msm_accumulate), so
 * any c keeps the threads balanced. 2^27: c = 20 (13 windows); 2^24: 19; 2^20: 16 (G1; G2 below). The model
 * picks 22 (12 windows) at 2^27, but measured on the H200 (53df2c3) that is slower: 962 ms against 897 ms
 * for c = 20 (bucket accumulation 863 against 824 ms although it has one window less), so c stops
 * at 20. CZ_GPU_MSM_C (8..22) overrides, for benchmarks. */
template <class F>
static unsigned msm_window_bits(size_t n) {
    if (getenv("CZ_GPU_MSM_C")) {
        unsigned c = (unsigned)atoi(getenv("CZ_GPU_MSM_C"));
        if (c >= 8 && c <= 22) return c;
    }
    unsigned best = 8;
    double best_cost = 1e300;
    for (unsigned c = 8; c <= 20; c++) {
        const double W = (256 + c - 1) / c, cost = W * (double)n + 6.0 * W * (double)(1u << (c - 1));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    /* G2: the bucket side (xyzz flushes, early-stop tail and combination in Fp2, 255 registers, one block an SM)
     * costs more against the affine rounds than the model's weight, and the measured times are not smooth in c
     * (W steps: 13 -> 20 windows, 14 -> 19, 15 -> 18, 16 and 17 -> 16). H200, session 24, after the norm
     * inversion, `CZ_GPU_MSM_C=c CZ_BENCH_G2_ONLY=1 cz_bench_gpu 24`, two rounds, ms:
     *   c:     13     14     15     16     17     18     19
     *   2^20  28.5   30.8   31.5   29.7   37.2   48.1   63.1   (the model: 16)
     *   2^22  88.0   88.3   86.2   81.6   90.0  100.9  113.9   (16)
     *   2^24 357.9  341.2  318.0  292.1  293.7  302.8  304.6   (19)
     * hence 13 below 2^21 points (PoRep's B_G2 tail is ~1.23 M) and 16 from there. Larger sizes (session 26, the same
     * bench with CZ_BENCH_G2_LOGS="25 26 27", one process a width, medians of 3, ms):
     *   c:     16      18      19      20      21
     *   2^25  544.4   545.8   543.2   545.8   617.2
     *   2^26 1038.3  1021.3   995.9   993.7  1059.3
     *   2^27 2010.8  1951.1  1881.8  1829.1  1932.7
     * hence the model's choice (20) from 2^25 (a 32 GiB Window PoSt's B_G2 is a full MSM of 91 M points). */
    if (sizeof(F) != 48) {
        const unsigned cap = n < ((size_t)1 << 21) ? 13 : n < ((size_t)1 << 25) ? 16 : 20;
        if (best > cap) best = cap;
    }
    return best;
}

/* Phase timing on stderr when CZ_GPU_MSM_PROFILE is set (benchmark diagnostics): marks on the work
 * stream, each printed as the time since the previous one; side marks (the sort stream) as the time
 * since the first mark. */
struct msm_prof {
    bool on = getenv("CZ_GPU_MSM_PROFILE") != nullptr;
    cudaEvent_t ev[8], side[2];
    const char *name[8], *side_name[2];
    int k = 0, ks = 0;
    cudaStream_t st;
    explicit msm_prof(cudaStream_t s) : st(s) {}
    void mark(const char *what) {
        if (!on || k >= 8) return;
        cudaEventCreate(&ev[k]);
        cudaEventRecord(ev[k], st);
        name[k++] = what;
    }
    void mark_side(const char *what, cudaStream_t s) {
        if (!on || ks >= 2) return;
        cudaEventCreate(&side[ks]);
        cudaEventRecord(side[ks], s);
        side_name[ks++] = what;
    }
    void report(size_t n, unsigned c, unsigned W) {
        if (!on) return;
        cudaEventSynchronize(ev[k - 1]);
        fprintf(stderr, "msm profile n=%zu c=%u W=%u:", n, c, W);
        for (int i = 1; i < k; i++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, ev[i - 1], ev[i]);
            fprintf(stderr, " %s %.2f ms", name[i], ms);
        }
        for (int i = 0; i < ks; i++) {
            float ms = 0;
            cudaEventSynchronize(side[i]);
            cudaEventElapsedTime(&ms, ev[0], side[i]);
            fprintf(stderr, " | %s at %.2f ms", side_name[i], ms);
            cudaEventDestroy(side[i]);
        }
        fprintf(stderr, "\n");
        for (int i = 0; i < k; i++) cudaEventDestroy(ev[i]);
    }
};

/* The MSM's streams on one device, created on first use and kept: the bucket work runs on a
 * high-priority stream, the digit sort (memory-bound) on a low-priority one, window by window, so the
 * sort of window w+1 fills what the accumulation of window w leaves idle (the one-block inversions, the
 * kernels' tails); events order both after the caller's stream and the caller's stream after them.
 * hmx: page-locked, the longest run of each window (the host sizes the affine rounds from it). */
struct msm_streams {
    bool ok = false;
    cudaStream_t work = nullptr, sort = nullptr, work2 = nullptr; /* work2: the flat rounds' second stream */
    cudaEvent_t ev_in = nullptr, ev_done = nullptr, ev_w2 = nullptr, ev_win[32];
    unsigned *hmx = nullptr, *hz = nullptr; /* page-locked: longest run and zero digits per window */
};
static msm_streams g_msm_streams[CZ_GPU_SCRATCH_DEVICES];

static int msm_streams_get(msm_streams **out) {
    int dev, rc = scratch_device(&dev);
    if (rc) return rc;
    msm_streams &s = g_msm_streams[dev];
    if (!s.ok) {
        int least = 0, greatest = 0;
        CZ_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        if (getenv("CZ_GPU_MSM_PRIO") && atoi(getenv("CZ_GPU_MSM_PRIO")) == 0) least = greatest = 0; /* A/B knob */
        CZ_CUDA(cudaStreamCreateWithPriority(&s.work, cudaStreamNonBlocking, greatest));
        CZ_CUDA(cudaStreamCreateWithPriority(&s.sort, cudaStreamNonBlocking, least));
        CZ_CUDA(cudaStreamCreateWithPriority(&s.work2, cudaStreamNonBlocking, greatest));
        CZ_CUDA(cudaEventCreateWithFlags(&s.ev_w2, cudaEventDisableTiming));
        CZ_CUDA(cudaEventCreateWithFlags(&s.ev_in, cudaEventDisableTiming));
        CZ_CUDA(cudaEventCreateWithFlags(&s.ev_done, cudaEventDisableTiming));
        for (int i = 0; i < 32; i++) CZ_CUDA(cudaEventCreateWithFlags(&s.ev_win[i], cudaEventDisableTiming));
        CZ_CUDA(cudaMallocHost(&s.hmx, 64 * sizeof(unsigned)));
        s.hz = s.hmx + 32;
        s.ok = true;
    }
    *out = &s;
    return 0;
}

/* Affine rounds (msa_run) or xyzz per bucket (msm_accumulate) for n points? From 2^24 points, G1 and
 * G2. Measured on the H200 with the side-stream sort (b0664f5, ms, xyzz / affine): G1 2^20 14.0 / 29.5,
 * 2^22 39.1 / 57.5, 2^24 139.9 / 133.5, 2^26 468.1 / 404.9, 2^27 873.4 / 757.1; G2 2^20 49.3 / 79.8,
 * 2^22 141.0 / 173.7, 2^24 487.4 / 434.7 (below 2^24 the rounds' fixed costs, ~R launches and one
 * inversion per window and round, outweigh the products they save). CZ_GPU_MSM_AFF=1 / 0 forces one
 * or the other. */
template <class F>
static bool msm_affine(size_t n) {
    const char *e = getenv("CZ_GPU_MSM_AFF");
    if (e) return atoi(e) == 1;
    return n >= ((size_t)1 << 24);
}

/* All windows as one flat list (CZ_GPU_MSM_ALLW): every window's sorted list, keys offset by w * 2^(c-1) so
 * that key - 1 is the bucket's index in the W x 2^(c-1) array and zero digits keep key 0, goes through ONE
 * sequence of flat rounds, so the rounds' fixed costs (~R launches and an inversion per round) are paid once
 * instead of per window: the affine additions' ~6 products then win over xyzz's 10 below 2^24 too. The sorts
 * all run first (no overlap with the rounds). Measured on the H200 (session 9, median of 9, xyzz -> all
 * windows): G1 2^20 13.32 -> 11.16 ms, 2^22 37.12 -> 27.63; G2 2^20 42.97 -> 36.53 (c = 14 instead of 16 is
 * slower: 12.99 / 31.60); but G1 2^18 6.96 against xyzz's 6.17. "1" forces it for every affine size, "0" never;
 * unset: from 2^CZ_GPU_MSM_ALLW_LOG (default G1 2^19, between those two; G2 2^18: its B_G2 tail of 415 k points
 * took 67-69 ms of b_g2_ms against 71-77 in the partition) up to the per-window rounds' 2^24. Never with
 * CZ_GPU_MSM_AFF=0 (xyzz forced) or CZ_GPU_MSM_FLAT=0 (the per-segment rounds). */
template <class F>
static bool msm_allw(size_t n) {
    const char *a = getenv("CZ_GPU_MSM_AFF");
    if ((a && atoi(a) == 0) || !msm_flat()) return false;
    const char *e = getenv("CZ_GPU_MSM_ALLW");
    if (e) return atoi(e) == 1;
    return n >= ((size_t)1 << env_size("CZ_GPU_MSM_ALLW_LOG", sizeof(F) == 48 ? 19 : 18, 1, 31)) && n < ((size_t)1 << 24);
}

/* keys of window w's sorted list -> the all-window list's (nonzero keys + off) */
static __global__ void msm_key_off(uint32_t *k, size_t n, uint32_t off) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && k[i]) k[i] += off;
}

/* CZ_GPU_MSM_SORT_FIRST=1 (benchmark knob): every window sorted before the per-window flat rounds start, each
 * into its own key buffer (W instead of 2 per work stream), to time the rounds without the sorts beside them.
 * H200, G1 2^27 (CZ_GPU_MSM_PROFILE, session 16): the sorts 44.8 ms, then the rounds 501.7; the default's rounds
 * beside the sorts 529.6 ms, so the overlap hides 17 ms of the sorts' 45. */
static bool msm_sort_first() {
    return env_size("CZ_GPU_MSM_SORT_FIRST", 0, 0, 1) != 0;
}

/* The scratch msm_run allocates for n points with evenly spread digits (random scalars), when free
 * memory allows the affine rounds one chunk per window (they take less when it does not). */
template <class F>
static size_t msm_scratch_bytes(size_t n) {
    typedef cz_dxyzz<F> P;
    if (n == 0 || n >= ((size_t)1 << 31)) return 0;
    const unsigned c = msm_window_bits<F>(n), W = (256 + c - 1) / c, nb = 1u << (c - 1);
    const unsigned tb = 255 - (W - 1) * c, split = tb < c - 1 ? c - 1 - tb : 0;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                    (uint32_t *)nullptr, (int)n, 0, (int)c, (cudaStream_t)0);
    const size_t nch = nb / msm_chunk(nb, W);
    size_t b = n * sizeof(cz_dfr) + 3 * n * sizeof(uint32_t) + (size_t)W * n * sizeof(uint32_t) +
               2 * (size_t)W * (nb + 1) * sizeof(uint32_t) + (size_t)W * nb * sizeof(P) +
               ((size_t)W * nch + 9 * (size_t)W) * sizeof(P) /* chunk sums, window sums, 8 parts a window */ + temp_bytes + 16 + (split ? ((size_t)1 << tb) * sizeof(P) : 0);
    {
        if (msm_allw<F>(n)) {
            const size_t wn = (size_t)W * n, first = msa_first_chunk(wn), cw = wn < first ? wn : first;
            return b + (size_t)W * n * sizeof(uint32_t) + 32 * sizeof(unsigned) + msf_need<F>(cw, W * nb, msf_blocks<F>());
        }
        if (!msm_affine<F>(n)) return b;
        if (msm_flat()) {
            const unsigned nws = msm_wstreams<F>();
            const size_t first = msa_first_chunk(nws > 1 ? (n + 1) / 2 : n), cw = n < first ? n : first;
            const size_t nkb = msm_sort_first() ? W : 2 * nws; /* sorted-key buffers */
            return b + (nkb - 1) * n * sizeof(uint32_t) + 32 * sizeof(unsigned) +
                   nws * msf_need<F>(cw, nb, msf_blocks<F>() / msf_gdiv(nws));
        }
        unsigned T, G;
        msa_grid<F>(nb, &T, &G);
        const size_t first = msa_first_chunk(n), cw = n < first ? n : first;
        b += 32 * sizeof(unsigned) + msa_need<F>(cw, 2 * (unsigned)((n + nb - 1) / nb + 64) + 64, nb, T);
    }
    return b;
}

/* Several MSMs over one all-window list (msm_run's seg): segment s has n[s] scalars at sc[s] and its bases at
 * d_bases + base0[s] (all in the array msm_run is given), and its own W x 2^(c-1) buckets, its keys offset
 * by (s W + w) 2^(c-1), so the segments share the sorts' stream, ONE sequence of flat rounds and one bucket
 * combination instead of paying those fixed costs each (the prover's three G1 tails, L / A / B_G1). */
#define MSM_MAX_SEGS 4
struct msm_segs {
    unsigned k;
    const cz_fr *sc[MSM_MAX_SEGS];
    uint32_t base0[MSM_MAX_SEGS];
    size_t n[MSM_MAX_SEGS];
};

/* Window sums: host array of W xyzz points (at most 32; with seg, k W: segment s's at s W); *c_out = window
 * bits. g_msm: 16 scratch buffers (8..15 for the affine bucket accumulation). CZ_GPU_MSM_OVERLAP=0: every
 * window sorted before the buckets start (the previous order, for A/B). seg (may be NULL: one segment of the
 * n points d_scalars, bases from 0): the segments, n their total; only on the all-window list (msm_allw of
 * the total), and 1 (nothing done, no error) when that does not apply or its scratch does not fit, so the
 * caller runs them one by one. */
template <class F>
static int msm_run(scratch *g_msm, void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                   const cz_fr *d_scalars, size_t n, void *stream, const msm_segs *seg = nullptr) {
    typedef cz_dxyzz<F> P;
    cudaStream_t st = (cudaStream_t)stream;
    if (n >= ((size_t)1 << 31)) return cz_error(CZ_ERANGE, "MSM of %zu points (max 2^31-1)", n);
    if (int rm = red_mode()) return rm;
    msm_segs one;
    if (!seg) {
        one.k = 1, one.sc[0] = d_scalars, one.base0[0] = 0, one.n[0] = n;
        seg = &one;
    } else if (seg->k > 1 && (n == 0 || !msm_allw<F>(n))) { /* 1 <= k <= MSM_MAX_SEGS: the caller's check */
        return 1;
    }
    const unsigned K = seg->k;
    size_t off[MSM_MAX_SEGS + 1] = {0};
    for (unsigned i = 0; i < K; i++) off[i + 1] = off[i] + seg->n[i];
    if (off[K] != n) return cz_error(CZ_EINVAL, "MSM segments of %zu points in all, not %zu", off[K], n);
    const unsigned c = msm_window_bits<F>(n), W = (256 + c - 1) / c, nb = 1u << (c - 1);
    const unsigned tb = 255 - (W - 1) * c, split = tb < c - 1 ? c - 1 - tb : 0;
    *c_out = c;
    *w_out = W;
    if (n == 0) {
        memset(r_windows, 0, W * sizeof(P));
        return 0;
    }
    const size_t KW = (size_t)K * W; /* windows of all segments */
    msm_streams *ms = nullptr;
    int rc = msm_streams_get(&ms);
    if (rc) return rc;
    cudaStream_t ws = ms->work, ss = ms->sort;
    uint32_t *sc = nullptr; /* the canonical scalars' 8 word planes, n words apart (msm_from_mont) */
    uint32_t *key = nullptr, *val, *key2, *sorted = nullptr, *start = nullptr, *end;
    P *bucket = nullptr, *chunks = nullptr, *wins, *top = nullptr;
    unsigned *mx = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                    (uint32_t *)nullptr, (int)n, 0, (int)c, ss);
    void *temp = nullptr;
    const unsigned CH = msm_chunk(nb, KW), nch = nb / CH;
    /* all windows in one flat list (msm_allw): every window's sorted keys kept, window w's at key + (2 + w) n */
    const bool allw = msm_allw<F>(n);
    bool aff = allw || msm_affine<F>(n);
    /* flat rounds: window w's sorted keys stay in key2s[w % nkb] until its rounds are done */
    bool flat = aff && msm_flat();
    const bool sfirst = flat && !allw && msm_sort_first();
    const unsigned nws = flat && !allw ? msm_wstreams<F>() : 1, nkb = allw || sfirst ? W : 2 * nws; /* work streams, key buffers */
    rc = scratch_get(g_msm[0], n * sizeof(cz_dfr), (void **)&sc);
    if (!rc) rc = scratch_get(g_msm[1], (flat ? 2 + nkb : 3) * n * sizeof(uint32_t), (void **)&key);
    if (!rc) rc = scratch_get(g_msm[2], (size_t)W * n * sizeof(uint32_t), (void **)&sorted);
    if (!rc) rc = scratch_get(g_msm[3], 2 * KW * (nb + 1) * sizeof(uint32_t), (void **)&start);
    if (!rc) rc = scratch_get(g_msm[4], KW * nb * sizeof(P), (void **)&bucket);
    /* the window sums' parts: S = 8 a window while that leaves each part at least 256 chunks (a block's worth);
     * CZ_GPU_MSM_WSUM_PARTS=1 sums each window in one block (A/B) */
    unsigned wss = nch >= 8 * RED_THREADS ? 8 : 1;
    if (const char *e = getenv("CZ_GPU_MSM_WSUM_PARTS")) wss = atoi(e) == 1 ? 1 : wss;
    if (!rc) rc = scratch_get(g_msm[5], (KW * nch + KW + KW * wss) * sizeof(P), (void **)&chunks);
    if (!rc) rc = scratch_get(g_msm[6], temp_bytes + 16, &temp);
    if (!rc && split) rc = scratch_get(g_msm[7], ((size_t)1 << tb) * sizeof(P), (void **)&top);
    if (!rc && aff) rc = scratch_get(g_msm[8], 32 * sizeof(unsigned), (void **)&mx);
    if (rc) return rc;
    val = key + n;
    key2 = key + 2 * n;
    end = start + KW * (nb + 1);
    wins = chunks + KW * nch;
    P *const wpart = wins + KW; /* KW wss part sums */
    msm_prof prof(ws);
    for (unsigned i = 0; i < K; i++) {
        if (!seg->n[i]) continue;
        msm_from_mont<<<(unsigned)((seg->n[i] + 255) / 256), 256, 0, st>>>(sc + off[i], n, (const cz_dfr *)seg->sc[i],
                                                                            seg->n[i]);
        CZ_CUDA_LAUNCHED();
    }
    CZ_CUDA(cudaMemsetAsync(start, 0, 2 * KW * (nb + 1) * sizeof(uint32_t), st));
    CZ_CUDA(cudaEventRecord(ms->ev_in, st));
    CZ_CUDA(cudaStreamWaitEvent(ss, ms->ev_in, 0));
    CZ_CUDA(cudaStreamWaitEvent(ws, ms->ev_in, 0));
    prof.mark("start");
    /* the sort stream: window by window, digits, sort, run bounds (and for the affine rounds the
     * window's longest run, to the host); ev_win[w] when window w is ready. The flat rounds read the
     * sorted keys, so their sorts alternate between two key buffers and run at most two windows ahead
     * (enqueued by the window loop below). */
    if (aff) CZ_CUDA(cudaMemsetAsync(mx, 0, 32 * sizeof(unsigned), ss));
    uint32_t *key2s[32]; /* W <= 32 */
    for (unsigned i = 0; i < 32; i++) key2s[i] = key2;
    for (unsigned i = 1; flat && !allw && i < nkb; i++) key2s[i] = key + (2 + i) * n;
    auto k2of = [&](unsigned w) { return allw ? key + (2 + (size_t)w) * n : key2s[w % nkb]; };
    /* window w of each segment i: its part of the list at off[i] (the whole list for one segment) */
    auto sort_window = [&](unsigned w) -> int {
        for (unsigned i = 0; i < K; i++) {
            const size_t ni = seg->n[i], o = off[i];
            if (!ni) continue;
            const unsigned gi = (unsigned)((ni + 255) / 256);
            uint32_t *sw = start + ((size_t)i * W + w) * (nb + 1), *ew = end + ((size_t)i * W + w) * (nb + 1), *k2 = k2of(w) + o;
            msm_digits<<<gi, 256, 0, ss>>>(key + o, val + o, sc + o, n, ni, w, c, seg->base0[i]);
            CZ_CUDA_LAUNCHED();
            CZ_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key + o, k2, val + o, sorted + (size_t)w * n + o, (int)ni,
                                                    0, (int)c, ss));
            msm_bounds<<<(nb + 256) / 256, 256, 0, ss>>>(k2, ni, nb, sw, ew);
            CZ_CUDA_LAUNCHED();
            if (aff) { /* the longest run over the segments (atomicMax) */
                msa_maxlen<<<(nb + 255) / 256, 256, 0, ss>>>(mx + w, sw, ew, nb, 1, w == W - 1 && !flat ? split : 0);
                CZ_CUDA_LAUNCHED();
            }
            const uint32_t koff = (uint32_t)(((size_t)i * W + w) * nb);
            if (allw && koff) {
                msm_key_off<<<gi, 256, 0, ss>>>(k2, ni, koff);
                CZ_CUDA_LAUNCHED();
            }
        }
        if (aff) {
            CZ_CUDA(cudaMemcpyAsync(ms->hmx + w, mx + w, sizeof(unsigned), cudaMemcpyDeviceToHost, ss));
            CZ_CUDA(cudaMemcpyAsync(ms->hz + w, end + (size_t)w * (nb + 1), sizeof(unsigned), cudaMemcpyDeviceToHost,
                                    ss)); /* end of key 0 (one segment: the per-window rounds skip the zero digits) */
        }
        CZ_CUDA(cudaEventRecord(ms->ev_win[w], ss));
        return 0;
    };
    unsigned sorted_w = 0; /* windows whose sort is enqueued */
    for (; sorted_w < (flat ? (W < nkb ? W : nkb) : W); sorted_w++)
        if ((rc = sort_window(sorted_w))) return rc;
    if (!flat) prof.mark_side("sorted", ss);
    bool split_done = false; /* the flat rounds write the top window's buckets whole */
    const bool overlap = !(getenv("CZ_GPU_MSM_OVERLAP") && atoi(getenv("CZ_GPU_MSM_OVERLAP")) == 0);
    CZ_CUDA(cudaStreamWaitEvent(ws, ms->ev_win[overlap && !sfirst ? 0 : W - 1], 0));
    prof.mark("sort");
    /* bucket accumulation: flat affine rounds (default), affine rounds per segment (CZ_GPU_MSM_FLAT=0),
     * both from 2^24 points (msm_affine), else xyzz per bucket */
    if (allw) {
        msf_state<F> S[1];
        rc = msf_setup<F>(g_msm + 8, S, (size_t)W * n, (unsigned)(KW * nb), 1);
        if (rc == 0) {
            CZ_CUDA(cudaMemsetAsync(bucket, 0, KW * nb * sizeof(P), ws)); /* infinity, every segment's */
            CZ_CUDA(cudaEventSynchronize(ms->ev_win[W - 1])); /* every window sorted, its longest run on the host */
            unsigned mxa = 0;
            for (unsigned w = 0; w < W; w++) mxa = ms->hmx[w] > mxa ? ms->hmx[w] : mxa;
            CZ_CUDA(cudaStreamWaitEvent(ws, ms->ev_win[W - 1], 0));
            rc = msf_window<F>(S[0], bucket, (const cz_daff<F> *)d_bases, sorted, key + 2 * n, (size_t)W * n, 0, mxa,
                               prof_level() >= 2, ws);
            if (rc) return rc;
            prof.mark_side("sorted", ss);
            split_done = true;
        } else if (rc == 1) {
            if (K > 1) { /* the caller runs the segments one by one; the sorts must land before their scratch is reused */
                CZ_CUDA(cudaStreamSynchronize(ss));
                return 1;
            }
            flat = false, aff = false; /* no room: the xyzz path (start / end are per window, the keys unused) */
            prof.mark_side("sorted", ss);
        } else {
            return rc;
        }
    } else if (flat) {
        msf_state<F> S[2];
        rc = msf_setup<F>(g_msm + 8, S, n, nb, nws);
        if (rc == 0) {
            cudaStream_t wst[2] = {ws, ms->work2};
            CZ_CUDA(cudaMemsetAsync(bucket, 0, (size_t)W * nb * sizeof(P), ws)); /* infinity */
            if (nws > 1) { /* the second stream after the start and the memset */
                CZ_CUDA(cudaEventRecord(ms->ev_w2, ws));
                CZ_CUDA(cudaStreamWaitEvent(ms->work2, ms->ev_w2, 0));
            }
            for (unsigned w = 0; w < W && !rc; w++) {
                cudaStream_t s = wst[w % nws];
                CZ_CUDA(cudaEventSynchronize(ms->ev_win[w]));
                CZ_CUDA(cudaStreamWaitEvent(s, ms->ev_win[w], 0));
                rc = msf_window<F>(S[w % nws], bucket + (size_t)w * nb, (const cz_daff<F> *)d_bases, sorted + (size_t)w * n,
                                   k2of(w), n, ms->hz[w], ms->hmx[w], w == W / 2 && prof_level() >= 2, s,
                                   start + (size_t)w * (nb + 1), end + (size_t)w * (nb + 1), nb);
                if (!rc && sorted_w < W) { /* window w + nkb reuses window w's key buffer once its rounds are done */
                    CZ_CUDA(cudaEventRecord(ms->ev_in, s));
                    CZ_CUDA(cudaStreamWaitEvent(ss, ms->ev_in, 0));
                    rc = sort_window(sorted_w++);
                }
            }
            if (rc) return rc;
            if (nws > 1) { /* the combination after both streams' windows */
                CZ_CUDA(cudaEventRecord(ms->ev_w2, ms->work2));
                CZ_CUDA(cudaStreamWaitEvent(ws, ms->ev_w2, 0));
            }
            prof.mark_side("sorted", ss);
            split_done = true;
        } else if (rc == 1) {
            flat = false, aff = false; /* no room: the xyzz path over every window */
            for (; sorted_w < W; sorted_w++)
                if ((rc = sort_window(sorted_w))) return rc;
            prof.mark_side("sorted", ss);
        } else {
            return rc;
        }
    }
    if (aff && !flat) {
        rc = msa_run<F>(g_msm + 8, bucket, (const cz_daff<F> *)d_bases, sorted, start, end, n, nb, W, split, ws, ms->ev_win,
                        ms->hmx);
        if (rc == 1) aff = false; /* no room for its scratch: the xyzz path (rewrites every bucket) */
        else if (rc) return rc;
    }
    if (!aff) {
        const unsigned ag = (unsigned)(((size_t)nb * W + 127) / 128);
        CZ_CUDA(cudaStreamWaitEvent(ws, ms->ev_win[W - 1], 0));
        msm_accumulate<F><<<ag, 128, 0, ws>>>(bucket, (const cz_daff<F> *)d_bases, sorted, start, end, n, nb, W, split);
        CZ_CUDA_LAUNCHED();
    }
    prof.mark("accumulate");
    if (split && !split_done) {
        /* top window: 2^tb buckets of 2^split parts each -> the first 2^tb slots, the rest infinity */
        P *tw = bucket + (size_t)(W - 1) * nb;
        const size_t ntop = (size_t)1 << tb;
        /* one warp per bucket: a block of 256 would spend most of its additions on the tree */
        sum_segments<F><<<(unsigned)ntop, 32, 0, ws>>>(top, tw, (size_t)1 << split, (size_t)1 << split);
        CZ_CUDA_LAUNCHED();
        CZ_CUDA(cudaMemcpyAsync(tw, top, ntop * sizeof(P), cudaMemcpyDeviceToDevice, ws));
        CZ_CUDA(cudaMemsetAsync(tw + ntop, 0, (nb - ntop) * sizeof(P), ws));
    }
    prof.mark("top-merge");
    msm_combine<F><<<(unsigned)((nch * KW + 127) / 128), 128, 0, ws>>>(chunks, bucket, nb, (unsigned)KW, CH);
    CZ_CUDA_LAUNCHED();
    prof.mark("combine");
    /* window sums of the nch chunk sums each: in S parts a window first (KW blocks alone left ~120 of the 132
     * SMs idle for 0.85 ms at 2^27), then a warp per window over its S part sums */
    if (wss > 1) {
        sum_segments<F><<<(unsigned)(KW * wss), RED_THREADS, 0, ws>>>(wpart, chunks, nch / wss, nch / wss);
        CZ_CUDA_LAUNCHED();
        sum_segments<F><<<(unsigned)KW, 32, 0, ws>>>(wins, wpart, wss, wss);
    } else {
        sum_segments<F><<<(unsigned)KW, RED_THREADS, 0, ws>>>(wins, chunks, nch, nch);
    }
    CZ_CUDA_LAUNCHED();
    prof.mark("window-sums");
    /* the work stream waited for every window's sort: the caller's stream after it covers both */
    CZ_CUDA(cudaEventRecord(ms->ev_done, ws));
    CZ_CUDA(cudaStreamWaitEvent(st, ms->ev_done, 0));
    CZ_CUDA(cudaMemcpyAsync(r_windows, wins, KW * sizeof(P), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    prof.report(n, c, W);
    return 0;
}
