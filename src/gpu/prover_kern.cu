/* Kernels of the partition prover's scalar split (supraseal's scheme, gpu-anchors §1.4): per query,
 * scalars equal to 1 become a bitmap for the batch addition, scalars outside {0, 1} (the "tail") are
 * compacted with their bases for an ordinary MSM, zeros drop out. One thread per query position with
 * warp ballots, so the witness reads stay coalesced and every 32 positions give one bitmap word. */
#include <cub/cub.cuh>

#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/prover_internal.h"

static __device__ __forceinline__ size_t widx(const uint32_t *map, uint64_t base, size_t k) {
    return map ? (size_t)map[k] : (size_t)(base + k);
}

/* grid covers ngroups * 32 threads (ngroups even, so the bitmap ends on a whole u64 word) */
__global__ void split_classify(uint32_t *ones, uint32_t *cnt, const cz_dfr *w, const uint32_t *map, uint64_t base,
                               size_t len, size_t ngroups) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool one = false, other = false;
    if (k < len) {
        const cz_dfr x = cz_ld(w + widx(map, base, k));
        one = x == cz_dfr::one();
        other = !one && !x.is_zero();
    }
    const uint32_t b1 = __ballot_sync(0xffffffffu, one), bo = __ballot_sync(0xffffffffu, other);
    const size_t g = k >> 5;
    if ((threadIdx.x & 31) == 0 && g < ngroups) {
        ones[g] = b1;
        cnt[g] = __popc(bo);
    }
    if (k == 0) cnt[ngroups] = 0;
}

/* base_words: 16-byte words per base (6 for G1 affine, 12 for G2 affine) */
__global__ void split_scatter(cz_dfr *tail_sc, uint4 *tail_b, const cz_dfr *w, const uint32_t *map, uint64_t base,
                              size_t len, const uint4 *bases, unsigned base_words, const uint32_t *offs) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool other = false;
    cz_dfr x = cz_dfr::zero();
    if (k < len) {
        x = cz_ld(w + widx(map, base, k));
        other = !(x == cz_dfr::one()) && !x.is_zero();
    }
    const uint32_t bo = __ballot_sync(0xffffffffu, other);
    if (!other) return;
    const unsigned lane = threadIdx.x & 31;
    const size_t pos = offs[k >> 5] + __popc(bo & ((1u << lane) - 1));
    if (tail_sc) cz_st(tail_sc + pos, x);
    if (tail_b)
        for (unsigned i = 0; i < base_words; i++) tail_b[pos * base_words + i] = bases[k * base_words + i];
}

__global__ void gather_scalars(cz_dfr *out, const cz_dfr *w, const uint32_t *map, uint64_t base, size_t len) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < len) cz_st(out + k, cz_ld(w + widx(map, base, k)));
}

/* The Lagrange-form H's c (prover_run.c run_c): class of a value, 0 zero, 1 one, 2 minus one, 3 two, 4 other */
static __device__ __forceinline__ unsigned c_class(const cz_dfr &x) {
    const cz_dfr o = cz_dfr::one();
    return x.is_zero() ? 0 : x == o ? 1 : x == o.neg() ? 2 : x == o.dbl() ? 3 : 4;
}

/* bm: three bitmaps of ngroups u32 words (ones, minus ones, twos); cnt[g] = the others among positions 32 g.. */
__global__ void c_classify(uint32_t *bm, uint32_t *cnt, const cz_dfr *c, size_t n, size_t ngroups) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned cl = k < n ? c_class(cz_ld(c + k)) : 0;
    const uint32_t b1 = __ballot_sync(0xffffffffu, cl == 1), bm1 = __ballot_sync(0xffffffffu, cl == 2),
                   b2 = __ballot_sync(0xffffffffu, cl == 3), bo = __ballot_sync(0xffffffffu, cl == 4);
    const size_t g = k >> 5;
    if ((threadIdx.x & 31) == 0 && g < ngroups) {
        bm[g] = b1, bm[ngroups + g] = bm1, bm[2 * ngroups + g] = b2;
        cnt[g] = __popc(bo);
    }
    if (k == 0) cnt[ngroups] = 0;
}

__global__ void c_scatter(cz_dfr *tail_sc, uint4 *tail_b, const cz_dfr *c, size_t n, const uint4 *bases,
                          const uint32_t *offs) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    cz_dfr x = cz_dfr::zero();
    if (k < n) x = cz_ld(c + k);
    const bool other = k < n && c_class(x) == 4;
    const uint32_t bo = __ballot_sync(0xffffffffu, other);
    if (!other) return;
    const size_t pos = offs[k >> 5] + __popc(bo & ((1u << (threadIdx.x & 31)) - 1));
    cz_st(tail_sc + pos, x);
    for (unsigned i = 0; i < 6; i++) tail_b[pos * 6 + i] = bases[k * 6 + i];
}

static unsigned blocks_for(size_t n) { return (unsigned)((n + 255) / 256); }

extern "C" int cz_gpu_split_classify_(uint32_t *ones, uint32_t *cnt, const cz_fr *d_w, const uint32_t *map,
                                      uint64_t base, size_t len, void *s) {
    const size_t ngroups = 2 * ((len + 63) / 64);
    const size_t threads = ngroups * 32 > 0 ? ngroups * 32 : 32;
    split_classify<<<blocks_for(threads), 256, 0, (cudaStream_t)s>>>(ones, cnt, (const cz_dfr *)d_w, map, base, len,
                                                                     ngroups);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_c_classify_(uint32_t *bm, uint32_t *cnt, const cz_fr *d_c, size_t n, void *s) {
    const size_t ngroups = 2 * ((n + 63) / 64);
    c_classify<<<blocks_for(ngroups * 32), 256, 0, (cudaStream_t)s>>>(bm, cnt, (const cz_dfr *)d_c, n, ngroups);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_c_scatter_(cz_fr *tail_sc, void *tail_b, const cz_fr *d_c, size_t n, const void *bases,
                                 const uint32_t *offs, void *s) {
    c_scatter<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((cz_dfr *)tail_sc, (uint4 *)tail_b, (const cz_dfr *)d_c, n,
                                                          (const uint4 *)bases, offs);
    CZ_CUDA_LAUNCHED();
    return 0;
}

static int temp_get(void **temp, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    if (*temp) cudaFree(*temp);
    *temp = NULL;
    *cap = 0;
    CZ_CUDA(cudaMalloc(temp, need));
    *cap = need;
    return 0;
}

extern "C" int cz_gpu_scan_u32_(uint32_t *offs, const uint32_t *cnt, size_t count, void **temp, size_t *temp_cap,
                                void *s) {
    size_t need = 0;
    CZ_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, need, cnt, offs, (int64_t)count, (cudaStream_t)s));
    int rc = temp_get(temp, temp_cap, need + 16);
    if (rc) return rc;
    CZ_CUDA(cub::DeviceScan::ExclusiveSum(*temp, need, cnt, offs, (int64_t)count, (cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_split_scatter_(cz_fr *tail_sc, void *tail_b, const cz_fr *d_w, const uint32_t *map,
                                     uint64_t base, size_t len, const void *bases, size_t base_bytes,
                                     const uint32_t *offs, void *s) {
    if (!len) return 0;
    if (base_bytes % 16) return cz_error(CZ_EINVAL, "split scatter: bases of %zu bytes", base_bytes);
    split_scatter<<<blocks_for(len), 256, 0, (cudaStream_t)s>>>((cz_dfr *)tail_sc, (uint4 *)tail_b,
                                                                (const cz_dfr *)d_w, map, base, len,
                                                                (const uint4 *)bases, (unsigned)(base_bytes / 16),
                                                                offs);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_gather_scalars_(cz_fr *out, const cz_fr *d_w, const uint32_t *map, uint64_t base, size_t len,
                                      void *s) {
    if (!len) return 0;
    gather_scalars<<<blocks_for(len), 256, 0, (cudaStream_t)s>>>((cz_dfr *)out, (const cz_dfr *)d_w, map, base, len);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* ---- density bitmap -> index map ---- */
__global__ void bm_popc(uint32_t *cnt, const uint64_t *bm, size_t nw, size_t nbits) {
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w > nw) return;
    if (w == nw) {
        cnt[w] = 0;
        return;
    }
    uint64_t b = bm[w];
    if (w == nw - 1 && (nbits & 63)) b &= ((uint64_t)1 << (nbits & 63)) - 1;
    cnt[w] = __popcll(b);
}

__global__ void bm_scatter(uint32_t *map, const uint64_t *bm, size_t nw, size_t nbits, const uint32_t *offs,
                           uint32_t base) {
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    uint64_t b = bm[w];
    if (w == nw - 1 && (nbits & 63)) b &= ((uint64_t)1 << (nbits & 63)) - 1;
    uint32_t o = offs[w];
    while (b) {
        map[o++] = base + (uint32_t)(w * 64 + __ffsll((long long)b) - 1);
        b &= b - 1;
    }
}

extern "C" int cz_gpu_bitmap_to_map_(uint32_t *map, size_t *count, const uint64_t *bitmap, size_t nbits,
                                     uint32_t base, uint32_t *cnt, void **temp, size_t *temp_cap, void *s) {
    *count = 0;
    if (!nbits) return 0;
    const size_t nw = (nbits + 63) / 64;
    cudaStream_t st = (cudaStream_t)s;
    uint32_t *offs = cnt + nw + 1;
    bm_popc<<<blocks_for(nw + 1), 256, 0, st>>>(cnt, bitmap, nw, nbits);
    CZ_CUDA_LAUNCHED();
    int rc = cz_gpu_scan_u32_(offs, cnt, nw + 1, temp, temp_cap, s);
    if (rc) return rc;
    bm_scatter<<<blocks_for(nw), 256, 0, st>>>(map, bitmap, nw, nbits, offs, base);
    CZ_CUDA_LAUNCHED();
    uint32_t total = 0;
    CZ_CUDA(cudaMemcpyAsync(&total, offs + nw, 4, cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    *count = total;
    return 0;
}

__global__ void iota_kernel(uint32_t *map, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) map[i] = (uint32_t)i;
}

extern "C" int cz_gpu_iota_(uint32_t *map, size_t n, void *s) {
    if (!n) return 0;
    iota_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>(map, n);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_dtod_async_s_(void *dst, const void *src, size_t bytes, void *s) {
    if (bytes) CZ_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)s));
    return 0;
}

/* ---- streamed query chunks uploaded sparsely: only the bases whose scalar is not 0 cross PCIe ----
 * nz bit j (u32 words, bit j & 31 of word j >> 5) = aux value j is not 0. */
__global__ void nz_dense(uint32_t *nz, const cz_dfr *aux, size_t na) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t b = __ballot_sync(0xffffffffu, j < na && !cz_ld(aux + j).is_zero());
    if ((threadIdx.x & 31) == 0 && j < na) nz[j >> 5] = b;
}

/* from a compact witness's bitmaps: a value is 0 when it is a bit and the bit is 0 */
__global__ void nz_compact(uint32_t *nz, const uint64_t *is_bit, const uint64_t *bit, size_t nw) {
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < nw) {
        const uint64_t v = ~is_bit[w] | bit[w];
        nz[2 * w] = (uint32_t)v, nz[2 * w + 1] = (uint32_t)(v >> 32);
    }
}

extern "C" int cz_gpu_nz_dense_(uint32_t *nz, const cz_fr *aux, size_t na, void *s) {
    if (!na) return 0;
    nz_dense<<<blocks_for(na), 256, 0, (cudaStream_t)s>>>(nz, (const cz_dfr *)aux, na);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_nz_compact_(uint32_t *nz, const uint64_t *is_bit, const uint64_t *bit, size_t na, void *s) {
    const size_t nw = (na + 63) / 64;
    if (!nw) return 0;
    nz_compact<<<blocks_for(nw), 256, 0, (cudaStream_t)s>>>(nz, is_bit, bit, nw);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* dst[k] = src[k] (W 16-byte words a point) for the positions k < m whose witness index j (widx) is an input
 * (j < ni) or has nz bit j - ni; the others are left as they are (their scalar is 0: no kernel reads them). src
 * is page-locked host memory mapped for the device, read over PCIe. A grid-stride loop over the words with
 * SPARSE_U loads in flight a thread, so a few blocks keep PCIe busy. *cnt += the points copied. */
#define SPARSE_U 4
template <unsigned W>
__global__ void __launch_bounds__(256) sparse_gather(uint4 *dst, const uint4 *src, const uint32_t *map, uint64_t base,
                                                    uint64_t m, const uint32_t *nz, uint64_t ni,
                                                    unsigned long long *cnt) {
    const uint64_t total = m * W, stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned copied = 0;
    for (uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += SPARSE_U * stride) {
        uint4 v[SPARSE_U];
        bool need[SPARSE_U];
#pragma unroll
        for (int u = 0; u < SPARSE_U; u++) {
            const uint64_t i = t + u * stride;
            need[u] = false;
            if (i < total) {
                const uint64_t j = widx(map, base, i / W);
                need[u] = j < ni || (nz[(j - ni) >> 5] >> ((j - ni) & 31) & 1);
                if (need[u]) v[u] = src[i];
            }
        }
#pragma unroll
        for (int u = 0; u < SPARSE_U; u++)
            if (need[u]) {
                const uint64_t i = t + u * stride;
                dst[i] = v[u];
                copied += i % W == 0;
            }
    }
    for (int o = 16; o; o >>= 1) copied += __shfl_down_sync(0xffffffffu, copied, o);
    if ((threadIdx.x & 31) == 0 && copied) atomicAdd(cnt, (unsigned long long)copied);
}

extern "C" int cz_gpu_sparse_gather_(void *dst, const void *src, size_t el, const uint32_t *map, uint64_t base,
                                     uint64_t m, const uint32_t *nz, uint64_t ni, unsigned blocks,
                                     unsigned long long *cnt, void *s) {
    if (!m) return 0;
    const size_t words = m * (el / 16);
    unsigned g = blocks ? blocks : 1;
    if ((size_t)g * 256 * SPARSE_U > words) g = (unsigned)((words + 256 * SPARSE_U - 1) / (256 * SPARSE_U));
    cudaStream_t st = (cudaStream_t)s;
    if (el == 96)
        sparse_gather<6><<<g, 256, 0, st>>>((uint4 *)dst, (const uint4 *)src, map, base, m, nz, ni, cnt);
    else if (el == 192)
        sparse_gather<12><<<g, 256, 0, st>>>((uint4 *)dst, (const uint4 *)src, map, base, m, nz, ni, cnt);
    else
        return cz_error(CZ_EINVAL, "sparse upload: points of %zu bytes", el);
    CZ_CUDA_LAUNCHED();
    return 0;
}
