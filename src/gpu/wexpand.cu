/* Compact witness (r1cs/wcompact.h) -> dense device aux, for cz_gpu_prover_start_compact: only the bitmaps
 * and the values outside {0, 1} cross PCIe (87 MB instead of 4.17 GB for a 32 GiB PoRep partition); the
 * device rebuilds the 32-byte vector the SpMV, L, A and B read. Value i of a word: 0 / R (Montgomery one)
 * from the bitmaps, else dense[offs[word] + clear is_bit bits below i in the word], offs the exclusive
 * scan of the per-word dense counts. Values move as two 16-byte words and R comes from the host
 * (CZ_FR_ONE_V), so this file does not depend on field.cuh's representation. */
#include <string.h>

#include "gpu/cuda_util.cuh"
#include "gpu/prover_internal.h"

struct fr32 {
    uint4 lo, hi;
};

/* cnt[w] = clear is_bit bits of word w below n, for w < nw; cnt[nw] = 0 (so offs[nw] = the total) */
__global__ void wc_count(uint32_t *cnt, const uint64_t *is_bit, size_t nw, size_t n) {
    const size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w > nw) return;
    if (w == nw) {
        cnt[w] = 0;
        return;
    }
    uint64_t x = ~is_bit[w];
    if (w == nw - 1 && (n & 63)) x &= ((uint64_t)1 << (n & 63)) - 1;
    cnt[w] = (uint32_t)__popcll(x);
}

/* one thread per value: consecutive threads write consecutive 32-byte values */
__global__ void wc_expand(uint4 *out, const uint64_t *is_bit, const uint64_t *bit, const uint4 *dense,
                          const uint32_t *offs, size_t n, fr32 one) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t w = i >> 6;
    const uint64_t m = (uint64_t)1 << (i & 63), ib = is_bit[w];
    uint4 lo, hi;
    if (ib & m) {
        const bool b = (bit[w] & m) != 0;
        lo = b ? one.lo : make_uint4(0, 0, 0, 0);
        hi = b ? one.hi : make_uint4(0, 0, 0, 0);
    } else {
        const size_t k = (size_t)offs[w] + (size_t)__popcll(~ib & (m - 1));
        lo = dense[2 * k], hi = dense[2 * k + 1];
    }
    out[2 * i] = lo, out[2 * i + 1] = hi;
}

static unsigned blocks_for(size_t n) { return (unsigned)((n + 255) / 256); }

extern "C" int cz_gpu_wcompact_offsets_(uint32_t *offs, const uint64_t *is_bit, size_t n, uint32_t *cnt, void **temp,
                                        size_t *temp_cap, void *s) {
    if (!n) return 0;
    const size_t nw = (n + 63) / 64;
    wc_count<<<blocks_for(nw + 1), 256, 0, (cudaStream_t)s>>>(cnt, is_bit, nw, n);
    CZ_CUDA_LAUNCHED();
    return cz_gpu_scan_u32_(offs, cnt, nw + 1, temp, temp_cap, s);
}

extern "C" int cz_gpu_wcompact_expand_offs_(cz_fr *out, const uint64_t *is_bit, const uint64_t *bit, const cz_fr *dense,
                                            const uint32_t *offs, size_t n, void *s) {
    if (!n) return 0;
    fr32 one;
    static_assert(sizeof one == sizeof(cz_fr), "Fr is 32 bytes");
    memcpy(&one, &CZ_FR_ONE_V, sizeof one);
    wc_expand<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((uint4 *)out, is_bit, bit, (const uint4 *)dense, offs, n, one);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_wcompact_expand_(cz_fr *out, const uint64_t *is_bit, const uint64_t *bit, const cz_fr *dense,
                                       size_t n, uint32_t *cnt, void **temp, size_t *temp_cap, void *s) {
    if (!n) return 0;
    uint32_t *offs = cnt + (n + 63) / 64 + 1;
    int rc = cz_gpu_wcompact_offsets_(offs, is_bit, n, cnt, temp, temp_cap, s);
    return rc ? rc : cz_gpu_wcompact_expand_offs_(out, is_bit, bit, dense, offs, n, s);
}
