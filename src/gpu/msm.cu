/* G1 multi-scalar multiplication (Pippenger, Booth-signed c-bit windows, sort-based buckets) and
 * bitmap 0/1 batch addition, bases resident on the device.
 *
 * Batch addition: popcount per 64-bit word, exclusive scan (cub), scatter of the selected indices,
 * then every thread sums a strided share of the selected points (xyzz += affine), so the work per
 * thread is the same whatever the bitmap's layout; warp/block/grid tree sums finish on the device.
 *
 * MSM: scalars leave Montgomery form once; per window, Booth digits d in [-2^(c-1), 2^(c-1)] are
 * radix-sorted by |d| (cub) with the point index and sign as value; one thread per bucket sums its
 * run of the sorted list; buckets are combined with chunked running sums (sum k*B_k per chunk plus
 * (lo-1)*S by double-and-add), chunk results are tree-summed per window, and the host does the final
 * Horner over the windows (a few hundred point operations). */
#include <cub/cub.cuh>

#include "gpu/cuda_util.cuh"
#include "gpu/g1.cuh"
#include "gpu/gpu_internal.h"

/* ---- scratch: grown on demand, kept between calls (one user at a time) ---- */
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
static scratch g_ba[4], g_msm[8];

extern "C" void cz_gpu_g1_release_scratch(void) {
    for (auto &s : g_ba) { if (s.p) cudaFree(s.p); s = scratch(); }
    for (auto &s : g_msm) { if (s.p) cudaFree(s.p); s = scratch(); }
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
static __device__ cz_dg1_xyzz block_sum(cz_dg1_xyzz a) {
    __shared__ cz_dg1_xyzz part[RED_THREADS / 32];
    a = cz_dg1_warp_sum(a);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) cz_dg1_st(&part[warp], a);
    __syncthreads();
    if (warp == 0) {
        a = lane < (int)(blockDim.x >> 5) ? cz_dg1_ld(&part[lane]) : cz_dg1_xyzz::inf();
        a = cz_dg1_warp_sum(a);
    }
    return a;
}

/* out[blockIdx.x] = sum of in[blockIdx.x * stride + i], i < count (one block per segment). */
__global__ void __launch_bounds__(RED_THREADS) sum_segments(cz_dg1_xyzz *out, const cz_dg1_xyzz *in, size_t count,
                                                            size_t stride) {
    cz_dg1_xyzz a = cz_dg1_xyzz::inf();
    const cz_dg1_xyzz *seg = in + (size_t)blockIdx.x * stride;
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) a = cz_dg1_add(a, cz_dg1_ld(seg + i));
    a = block_sum(a);
    if (threadIdx.x == 0) cz_dg1_st(out + blockIdx.x, a);
}

/* ---- batch addition ---- */
__global__ void ba_popc(const uint64_t *bm, size_t nw, size_t n, uint32_t *cnt) {
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

__global__ void ba_scatter(const uint64_t *bm, size_t nw, size_t n, const uint32_t *offs, uint32_t *idx) {
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

__global__ void __launch_bounds__(RED_THREADS) ba_sum(cz_dg1_xyzz *out, const cz_dg1_aff *bases, const uint32_t *idx,
                                                      const uint32_t *total) {
    const size_t T = (size_t)gridDim.x * blockDim.x, tot = *total;
    cz_dg1_xyzz a = cz_dg1_xyzz::inf();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < tot; i += T)
        a = cz_dg1_add_aff_inl(a, cz_dg1_ld_aff(bases + idx[i]));
    a = block_sum(a);
    if (threadIdx.x == 0) cz_dg1_st(out + blockIdx.x, a);
}

/* r_xyzz: host pointer to one xyzz point (the cz_g1_xyzz layout). */
extern "C" int cz_gpu_g1_batch_add_xyzz_(void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n,
                                          void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) {
        memset(r_xyzz, 0, sizeof(cz_dg1_xyzz));
        return 0;
    }
    if (n >= ((size_t)1 << 32)) return cz_error(CZ_ERANGE, "batch add of %zu points (max 2^32-1)", n);
    const size_t nw = (n + 63) / 64;
    const int blocks = sm_count() * 4;
    uint32_t *cnt = nullptr, *offs = nullptr, *idx = nullptr;
    cz_dg1_xyzz *part = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (int)(nw + 1), st);
    void *temp = nullptr;
    int rc = scratch_get(g_ba[0], 2 * (nw + 1) * sizeof(uint32_t), (void **)&cnt);
    if (!rc) rc = scratch_get(g_ba[1], n * sizeof(uint32_t), (void **)&idx);
    if (!rc) rc = scratch_get(g_ba[2], (blocks + 1) * sizeof(cz_dg1_xyzz), (void **)&part);
    if (!rc) rc = scratch_get(g_ba[3], temp_bytes + 16, &temp);
    if (rc) return rc;
    offs = cnt + nw + 1;
    ba_popc<<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, cnt);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, cnt, offs, (int)(nw + 1), st));
    ba_scatter<<<(unsigned)((nw + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, offs, idx);
    CZ_CUDA_LAUNCHED();
    ba_sum<<<blocks, RED_THREADS, 0, st>>>(part, (const cz_dg1_aff *)d_bases, idx, offs + nw);
    CZ_CUDA_LAUNCHED();
    sum_segments<<<1, RED_THREADS, 0, st>>>(part + blocks, part, blocks, 0);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cudaMemcpyAsync(r_xyzz, part + blocks, sizeof(cz_dg1_xyzz), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    return 0;
}

/* ---- MSM ---- */
#define MSM_CHUNK 64 /* buckets per thread in the bucket combination */

/* Montgomery -> canonical (times 1/R), 8x32 limbs. */
__global__ void msm_from_mont(cz_dfr *out, const cz_dfr *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr one = cz_dfr::zero();
    one.v[0] = 1;
    cz_st(out + i, cz_ld(in + i) * one);
}

/* Booth digit of window w: bits [w*c - 1, w*c + c) of s (bit -1 = 0), value in [-2^(c-1), 2^(c-1)]. */
__global__ void msm_digits(uint32_t *key, uint32_t *val, const cz_dfr *sc, size_t n, unsigned w, unsigned c) {
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

__global__ void msm_bounds(const uint32_t *key, size_t n, uint32_t *start, uint32_t *end) {
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    uint32_t k = key[j];
    if (j == 0 || key[j - 1] != k) start[k] = (uint32_t)j;
    if (j == n - 1 || key[j + 1] != k) end[k] = (uint32_t)(j + 1);
}

/* One thread per (window, bucket k = 1..2^(c-1)): bucket[w][k-1] = sum of +-bases in its run. */
__global__ void __launch_bounds__(128) msm_accumulate(cz_dg1_xyzz *bucket, const cz_dg1_aff *bases, const uint32_t *sorted,
                                                      const uint32_t *start, const uint32_t *end, size_t n, unsigned nb,
                                                      unsigned W) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nb * W) return;
    const unsigned w = (unsigned)(t / nb), k = (unsigned)(t % nb) + 1;
    const uint32_t *srt = sorted + (size_t)w * n;
    const size_t off = (size_t)w * (nb + 1);
    const uint32_t b = start[off + k], e = end[off + k];
    cz_dg1_xyzz a = cz_dg1_xyzz::inf();
    for (uint32_t j = b; j < e; j++) {
        uint32_t v = srt[j];
        cz_dg1_aff p = cz_dg1_ld_aff(bases + (v & 0x7fffffffu));
        if (v >> 31) p.y = p.y.neg();
        a = cz_dg1_add_aff_inl(a, p);
    }
    cz_dg1_st(bucket + t, a);
}

/* One thread per (window, chunk of MSM_CHUNK buckets): sum over the chunk of k * B_k. */
__global__ void __launch_bounds__(128) msm_combine(cz_dg1_xyzz *out, const cz_dg1_xyzz *bucket, unsigned nb, unsigned W) {
    const unsigned nch = nb / MSM_CHUNK;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)nch * W) return;
    const unsigned w = (unsigned)(t / nch), ch = (unsigned)(t % nch);
    const cz_dg1_xyzz *B = bucket + (size_t)w * nb;
    const unsigned lo = ch * MSM_CHUNK + 1; /* bucket values lo .. lo + CHUNK - 1 */
    cz_dg1_xyzz S = cz_dg1_xyzz::inf(), T = cz_dg1_xyzz::inf();
    for (int i = MSM_CHUNK - 1; i >= 0; i--) {
        S = cz_dg1_add(S, cz_dg1_ld(B + lo - 1 + i));
        T = cz_dg1_add(T, S);
    }
    /* T = sum (k - lo + 1) B_k; add (lo - 1) * S */
    unsigned m = lo - 1;
    cz_dg1_xyzz acc = cz_dg1_xyzz::inf();
    for (int bit = 31; bit >= 0; bit--) {
        acc = cz_dg1_dbl(acc);
        if ((m >> bit) & 1) acc = cz_dg1_add(acc, S);
    }
    cz_dg1_st(out + t, cz_dg1_add(T, acc));
}

/* Window width. The top window only holds the bits of the 255-bit scalar above (W-1)*c, and one
 * thread sums each bucket's run, so a nearly empty top window puts most points into a few buckets
 * (c = 17 at 2^20: 2^19 points in one bucket, 16 s). c = 8, 16 and 20 keep the top window at least
 * 2^7 / 2^15 / 2^15 buckets wide. Splitting long runs over several threads would lift this limit. */
static unsigned msm_window_bits(size_t n) {
    if (n < ((size_t)1 << 14)) return 8;
    if (n < ((size_t)1 << 25)) return 16;
    return 20;
}

/* Window sums: host array of W xyzz points; *c_out = window bits. r_windows must hold 32 points. */
extern "C" int cz_gpu_g1_msm_windows_(void *r_windows, unsigned *w_out, unsigned *c_out, const void *d_bases,
                                       const cz_fr *d_scalars, size_t n, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (n >= ((size_t)1 << 31)) return cz_error(CZ_ERANGE, "MSM of %zu points (max 2^31-1)", n);
    const unsigned c = msm_window_bits(n), W = (256 + c - 1) / c, nb = 1u << (c - 1);
    *c_out = c;
    *w_out = W;
    if (n == 0) {
        memset(r_windows, 0, W * sizeof(cz_dg1_xyzz));
        return 0;
    }
    cz_dfr *sc = nullptr;
    uint32_t *key = nullptr, *val, *key2, *sorted = nullptr, *start = nullptr, *end;
    cz_dg1_xyzz *bucket = nullptr, *chunks = nullptr, *wins;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                    (uint32_t *)nullptr, (int)n, 0, (int)c, st);
    void *temp = nullptr;
    const unsigned nch = nb / MSM_CHUNK;
    int rc = scratch_get(g_msm[0], n * sizeof(cz_dfr), (void **)&sc);
    if (!rc) rc = scratch_get(g_msm[1], 3 * n * sizeof(uint32_t), (void **)&key);
    if (!rc) rc = scratch_get(g_msm[2], (size_t)W * n * sizeof(uint32_t), (void **)&sorted);
    if (!rc) rc = scratch_get(g_msm[3], 2 * (size_t)W * (nb + 1) * sizeof(uint32_t), (void **)&start);
    if (!rc) rc = scratch_get(g_msm[4], (size_t)W * nb * sizeof(cz_dg1_xyzz), (void **)&bucket);
    if (!rc) rc = scratch_get(g_msm[5], ((size_t)W * nch + W) * sizeof(cz_dg1_xyzz), (void **)&chunks);
    if (!rc) rc = scratch_get(g_msm[6], temp_bytes + 16, &temp);
    if (rc) return rc;
    val = key + n;
    key2 = key + 2 * n;
    end = start + (size_t)W * (nb + 1);
    wins = chunks + (size_t)W * nch;
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
    msm_accumulate<<<(unsigned)(((size_t)nb * W + 127) / 128), 128, 0, st>>>(bucket, (const cz_dg1_aff *)d_bases, sorted,
                                                                             start, end, n, nb, W);
    CZ_CUDA_LAUNCHED();
    msm_combine<<<(unsigned)(((size_t)nch * W + 127) / 128), 128, 0, st>>>(chunks, bucket, nb, W);
    CZ_CUDA_LAUNCHED();
    sum_segments<<<W, RED_THREADS, 0, st>>>(wins, chunks, nch, nch);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cudaMemcpyAsync(r_windows, wins, W * sizeof(cz_dg1_xyzz), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    return 0;
}
