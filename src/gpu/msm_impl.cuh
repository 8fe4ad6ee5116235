/* Multi-scalar multiplication (Pippenger, Booth-signed c-bit windows, sort-based buckets) and bitmap
 * 0/1 batch addition over resident affine bases, generic over the coordinate field F of the group
 * (cz_dfp: G1, cz_dfp2: G2). Included once per group by msm.cu (G1) and msm_g2.cu (G2), so the two
 * instantiations compile in parallel; everything here is static to its translation unit.
 *
 * Batch addition: popcount per 64-bit word, exclusive scan (cub), scatter of the selected indices,
 * then every thread sums a strided share of the selected points (xyzz += affine), so the work per
 * thread is the same whatever the bitmap's layout; warp/block/grid tree sums finish on the device.
 *
 * MSM: scalars leave Montgomery form once; per window, Booth digits d in [-2^(c-1), 2^(c-1)] are
 * radix-sorted by |d| (cub) with the point index and sign as value; one thread per bucket sums its
 * run of the sorted list (the top window's few, long runs are cut into parts, one thread each, so
 * any window width keeps the threads balanced); buckets are combined with chunked running sums (sum k*B_k per chunk plus
 * (lo-1)*S by double-and-add), chunk results are tree-summed per window, and the host does the final
 * Horner over the windows (a few hundred point operations). */
#include <cub/cub.cuh>

#include "gpu/cuda_util.cuh"
#include "gpu/ec.cuh"
#include "gpu/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include <type_traits>

/* Minimum resident blocks per SM for the register-capped kernel variants (benchmark knobs below);
 * the G2 instantiation never launches them, so they are instantiated for G1 only. */
#define CZ_MINB2 2
#define CZ_MINB4 4

/* ---- scratch: grown on demand, kept between calls; one set per device (the caller's current one),
 * so GPUs proving at once never share buffers; one user at a time per device (the per-GPU lock) ---- */
#define CZ_GPU_SCRATCH_DEVICES 16
struct scratch {
    void *p = nullptr;
    size_t cap = 0;
};
static int scratch_get(scratch &s, size_t bytes, void **out) {
    if (bytes > s.cap) {
        if (s.p) cudaFree(s.p);
        s.p = nullptr;
        s.cap = 0;
        CZ_CUDA(cudaMalloc(&s.p, bytes));
        s.cap = bytes;
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

/* Block-wide sum of one value per thread; thread 0 gets the total. */
template <class F>
static __device__ cz_dxyzz<F> block_sum(cz_dxyzz<F> a) {
    __shared__ cz_dxyzz<F> part[RED_THREADS / 32];
    a = cz_ec_warp_sum(a);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) cz_ec_st(&part[warp], a);
    __syncthreads();
    if (warp == 0) {
        a = lane < (int)(blockDim.x >> 5) ? cz_ec_ld(&part[lane]) : cz_dxyzz<F>::inf();
        a = cz_ec_warp_sum(a);
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
static __global__ void ba_popc(const uint64_t *bm, size_t nw, size_t n, uint32_t *cnt) {
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w > nw) return;
    if (w == nw) {
        cnt[w] = 0;
        return;
    }
    uint64_t b = bm[w];
    if (w == nw - 1 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
    cnt[w] = __popcll(b);
}

static __global__ void ba_scatter(const uint64_t *bm, size_t nw, size_t n, const uint32_t *offs, uint32_t *idx) {
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    uint64_t b = bm[w];
    if (w == nw - 1 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
    uint32_t o = offs[w];
    while (b) {
        idx[o++] = (uint32_t)(w * 64 + __ffsll((long long)b) - 1);
        b &= b - 1;
    }
}

template <class F, int MINB = 1>
static __global__ void __launch_bounds__(RED_THREADS, MINB) ba_sum(cz_dxyzz<F> *out, const cz_daff<F> *bases, const uint32_t *idx,
                                                             const uint32_t *total) {
    const size_t T = (size_t)gridDim.x * blockDim.x, tot = *total;
    cz_dxyzz<F> a = cz_dxyzz<F>::inf();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < tot; i += T)
        a = cz_ec_add_aff_inl(a, cz_ec_ld_aff(bases + idx[i]));
    a = block_sum(a);
    if (threadIdx.x == 0) cz_ec_st(out + blockIdx.x, a);
}

/* r_xyzz: host pointer to one xyzz point (the host's cz_g*_xyzz layout); g_ba: 4 scratch buffers. */
template <class F>
static int ba_run(scratch *g_ba, void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    typedef cz_dxyzz<F> P;
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) {
        memset(r_xyzz, 0, sizeof(P));
        return 0;
    }
    if (n >= ((size_t)1 << 32)) return cz_error(CZ_ERANGE, "batch add of %zu points (max 2^32-1)", n);
    const size_t nw = (n + 63) / 64;
    /* exactly one wave of resident blocks: every thread gets the same share, so none waits on a tail */
    int per_sm = 0, bt = BA_THREADS;
    if (getenv("CZ_GPU_BA_THREADS")) { /* benchmark knob: 32..256 in steps of 32 */
        bt = atoi(getenv("CZ_GPU_BA_THREADS"));
        if (bt < 32 || bt > RED_THREADS || bt % 32) bt = BA_THREADS;
    }
    /* benchmark knob CZ_GPU_BA_MINB=2 (G1 only): registers capped for two 256-thread blocks per SM */
    const bool minb2 = std::is_same<F, cz_dfp>::value && getenv("CZ_GPU_BA_MINB") && atoi(getenv("CZ_GPU_BA_MINB")) == 2;
    auto kern = ba_sum<F>;
    if constexpr (std::is_same<F, cz_dfp>::value) {
        if (minb2) kern = ba_sum<F, CZ_MINB2>;
    }
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, bt, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    const int blocks = sm_count() * per_sm;
    uint32_t *cnt = nullptr, *offs = nullptr, *idx = nullptr;
    P *part = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (int)(nw + 1), st);
    void *temp = nullptr;
    int rc = scratch_get(g_ba[0], 2 * (nw + 1) * sizeof(uint32_t), (void **)&cnt);
    if (!rc) rc = scratch_get(g_ba[1], n * sizeof(uint32_t), (void **)&idx);
    if (!rc) rc = scratch_get(g_ba[2], (blocks + 1) * sizeof(P), (void **)&part);
    if (!rc) rc = scratch_get(g_ba[3], temp_bytes + 16, &temp);
    if (rc) return rc;
    offs = cnt + nw + 1;
    ba_popc<<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, cnt);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, cnt, offs, (int)(nw + 1), st));
    ba_scatter<<<(unsigned)((nw + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, offs, idx);
    CZ_CUDA_LAUNCHED();
    kern<<<blocks, bt, 0, st>>>(part, (const cz_daff<F> *)d_bases, idx, offs + nw);
    CZ_CUDA_LAUNCHED();
    sum_segments<F><<<1, RED_THREADS, 0, st>>>(part + blocks, part, blocks, 0);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cudaMemcpyAsync(r_xyzz, part + blocks, sizeof(P), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    return 0;
}

/* ---- MSM ---- */
#define MSM_CHUNK 64 /* buckets per thread in the bucket combination */

/* Montgomery -> canonical (times 1/R), 8x32 limbs. */
static __global__ void msm_from_mont(cz_dfr *out, const cz_dfr *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr one = cz_dfr::zero();
    one.v[0] = 1;
    cz_st(out + i, cz_ld(in + i) * one);
}

/* Booth digit of window w: bits [w*c - 1, w*c + c) of s (bit -1 = 0), value in [-2^(c-1), 2^(c-1)]. */
static __global__ void msm_digits(uint32_t *key, uint32_t *val, const cz_dfr *sc, size_t n, unsigned w, unsigned c) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint32_t *s = sc[i].v;
    int lo = (int)(w * c) - 1; /* first bit */
    uint64_t bits;
    if (lo < 0) {
        bits = ((uint64_t)s[0] << 1);
    } else {
        unsigned limb = lo >> 5, sh = lo & 31;
        uint64_t v = s[limb];
        if (limb + 1 < 8) v |= (uint64_t)s[limb + 1] << 32;
        bits = v >> sh;
        if (sh && limb + 2 < 8) bits |= (uint64_t)s[limb + 2] << (64 - sh);
    }
    uint32_t wval = (uint32_t)(bits & ((1u << (c + 1)) - 1));
    uint32_t neg = wval >> c;               /* top bit: negative digit */
    uint32_t mag = (wval + 1) >> 1;         /* (lower bits + borrow-in bit) */
    int32_t d = neg ? (int32_t)mag - (1 << c) : (int32_t)mag;
    key[i] = (uint32_t)(d < 0 ? -d : d);
    val[i] = (uint32_t)i | (d < 0 ? 0x80000000u : 0u);
}

static __global__ void msm_bounds(const uint32_t *key, size_t n, uint32_t *start, uint32_t *end) {
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    uint32_t k = key[j];
    if (j == 0 || key[j - 1] != k) start[k] = (uint32_t)j;
    if (j == n - 1 || key[j + 1] != k) end[k] = (uint32_t)(j + 1);
}


/* One thread per (window, bucket k = 1..2^(c-1)): bucket[w][k-1] = sum of +-bases in its run.
 * The top window holds only tb = 255 - (W-1)c real scalar bits, so its digits use the first 2^tb
 * buckets, each 2^(c-1-tb) times as full as the others: there each bucket's run is cut into
 * S = 2^split parts, thread (k-1)*S + s sums part s into bucket slot (k-1)*S + s, and msm_top_merge
 * adds the parts. Every thread then has about the same number of points (n / 2^(c-1)). */
template <class F, int MINB = 1>
static __global__ void __launch_bounds__(128, MINB) msm_accumulate(cz_dxyzz<F> *bucket, const cz_daff<F> *bases,
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

/* One thread per (window, chunk of MSM_CHUNK buckets): sum over the chunk of k * B_k. */
template <class F>
static __global__ void __launch_bounds__(128) msm_combine(cz_dxyzz<F> *out, const cz_dxyzz<F> *bucket, unsigned nb,
                                                          unsigned W) {
    const unsigned nch = nb / MSM_CHUNK;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nch * W) return;
    const unsigned w = (unsigned)(t / nch), ch = (unsigned)(t % nch);
    const cz_dxyzz<F> *B = bucket + (size_t)w * nb;
    const unsigned lo = ch * MSM_CHUNK + 1; /* bucket values lo .. lo + CHUNK - 1 */
    cz_dxyzz<F> S = cz_dxyzz<F>::inf(), T = cz_dxyzz<F>::inf();
    for (int i = MSM_CHUNK - 1; i >= 0; i--) {
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
 * any c keeps the threads balanced. 2^27: c = 20 (13 windows); 2^24: 19; 2^20: 16. The model picks 22
 * (12 windows) at 2^27, but measured on the H200 (53df2c3) that is slower: 962 ms against 897 ms
 * for c = 20 (bucket accumulation 863 against 824 ms although it has one window less), so c stops
 * at 20. CZ_GPU_MSM_C (8..22) overrides, for benchmarks. */
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
    return best;
}

/* Phase timing on stderr when CZ_GPU_MSM_PROFILE is set (benchmark diagnostics). */
struct msm_prof {
    bool on = getenv("CZ_GPU_MSM_PROFILE") != nullptr;
    cudaEvent_t ev[8];
    const char *name[8];
    int k = 0;
    cudaStream_t st;
    explicit msm_prof(cudaStream_t s) : st(s) {}
    void mark(const char *what) {
        if (!on || k >= 8) return;
        cudaEventCreate(&ev[k]);
        cudaEventRecord(ev[k], st);
        name[k++] = what;
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
        fprintf(stderr, "\n");
        for (int i = 0; i < k; i++) cudaEventDestroy(ev[i]);
    }
};

/* Window sums: host array of W xyzz points (at most 32); *c_out = window bits. g_msm: 8 scratch buffers. */
template <class F>
static int msm_run(scratch *g_msm, void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                   const cz_fr *d_scalars, size_t n, void *stream) {
    typedef cz_dxyzz<F> P;
    cudaStream_t st = (cudaStream_t)stream;
    if (n >= ((size_t)1 << 31)) return cz_error(CZ_ERANGE, "MSM of %zu points (max 2^31-1)", n);
    const unsigned c = msm_window_bits(n), W = (256 + c - 1) / c, nb = 1u << (c - 1);
    const unsigned tb = 255 - (W - 1) * c, split = tb < c - 1 ? c - 1 - tb : 0;
    *c_out = c;
    *w_out = W;
    if (n == 0) {
        memset(r_windows, 0, W * sizeof(P));
        return 0;
    }
    cz_dfr *sc = nullptr;
    uint32_t *key = nullptr, *val, *key2, *sorted = nullptr, *start = nullptr, *end;
    P *bucket = nullptr, *chunks = nullptr, *wins, *top = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                    (uint32_t *)nullptr, (int)n, 0, (int)c, st);
    void *temp = nullptr;
    const unsigned nch = nb / MSM_CHUNK;
    int rc = scratch_get(g_msm[0], n * sizeof(cz_dfr), (void **)&sc);
    if (!rc) rc = scratch_get(g_msm[1], 3 * n * sizeof(uint32_t), (void **)&key);
    if (!rc) rc = scratch_get(g_msm[2], (size_t)W * n * sizeof(uint32_t), (void **)&sorted);
    if (!rc) rc = scratch_get(g_msm[3], 2 * (size_t)W * (nb + 1) * sizeof(uint32_t), (void **)&start);
    if (!rc) rc = scratch_get(g_msm[4], (size_t)W * nb * sizeof(P), (void **)&bucket);
    if (!rc) rc = scratch_get(g_msm[5], ((size_t)W * nch + W) * sizeof(P), (void **)&chunks);
    if (!rc) rc = scratch_get(g_msm[6], temp_bytes + 16, &temp);
    if (!rc && split) rc = scratch_get(g_msm[7], ((size_t)1 << tb) * sizeof(P), (void **)&top);
    if (rc) return rc;
    val = key + n;
    key2 = key + 2 * n;
    end = start + (size_t)W * (nb + 1);
    wins = chunks + (size_t)W * nch;
    msm_prof prof(st);
    prof.mark("start");
    const unsigned g = (unsigned)((n + 255) / 256);
    msm_from_mont<<<g, 256, 0, st>>>(sc, (const cz_dfr *)d_scalars, n);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cudaMemsetAsync(start, 0, 2 * (size_t)W * (nb + 1) * sizeof(uint32_t), st));
    for (unsigned w = 0; w < W; w++) {
        msm_digits<<<g, 256, 0, st>>>(key, val, sc, n, w, c);
        CZ_CUDA_LAUNCHED();
        CZ_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, key2, val, sorted + (size_t)w * n, (int)n, 0,
                                                (int)c, st));
        msm_bounds<<<g, 256, 0, st>>>(key2, n, start + (size_t)w * (nb + 1), end + (size_t)w * (nb + 1));
        CZ_CUDA_LAUNCHED();
    }
    prof.mark("sort");
    /* benchmark knob CZ_GPU_ACC_MINB=4 (G1 only): registers capped for four 128-thread blocks per SM */
    const unsigned ag = (unsigned)(((size_t)nb * W + 127) / 128);
    auto acc = msm_accumulate<F>;
    if constexpr (std::is_same<F, cz_dfp>::value) {
        if (getenv("CZ_GPU_ACC_MINB") && atoi(getenv("CZ_GPU_ACC_MINB")) == 4) acc = msm_accumulate<F, CZ_MINB4>;
    }
    acc<<<ag, 128, 0, st>>>(bucket, (const cz_daff<F> *)d_bases, sorted, start, end, n, nb, W, split);
    CZ_CUDA_LAUNCHED();
    prof.mark("accumulate");
    if (split) {
        /* top window: 2^tb buckets of 2^split parts each -> the first 2^tb slots, the rest infinity */
        P *tw = bucket + (size_t)(W - 1) * nb;
        const size_t ntop = (size_t)1 << tb;
        /* one warp per bucket: a block of 256 would spend most of its additions on the tree */
        sum_segments<F><<<(unsigned)ntop, 32, 0, st>>>(top, tw, (size_t)1 << split, (size_t)1 << split);
        CZ_CUDA_LAUNCHED();
        CZ_CUDA(cudaMemcpyAsync(tw, top, ntop * sizeof(P), cudaMemcpyDeviceToDevice, st));
        CZ_CUDA(cudaMemsetAsync(tw + ntop, 0, (nb - ntop) * sizeof(P), st));
    }
    prof.mark("top-merge");
    msm_combine<F><<<(unsigned)(((size_t)nch * W + 127) / 128), 128, 0, st>>>(chunks, bucket, nb, W);
    CZ_CUDA_LAUNCHED();
    prof.mark("combine");
    sum_segments<F><<<W, RED_THREADS, 0, st>>>(wins, chunks, nch, nch);
    CZ_CUDA_LAUNCHED();
    prof.mark("window-sums");
    CZ_CUDA(cudaMemcpyAsync(r_windows, wins, W * sizeof(P), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    prof.report(n, c, W);
    return 0;
}
