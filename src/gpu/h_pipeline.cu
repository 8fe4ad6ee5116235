/* The pointwise step of the H pipeline (a*b - c) / Z on the coset, one fused pass over the three
 * vectors (the order of operations is cz_groth16_compute_h's; field results are canonical, so the
 * output is bit-identical to the CPU's). */
#include <stdlib.h>

#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"

struct fr_arg {
    uint32_t v[8];
    CZ_DEV cz_dfr get() const {
        cz_dfr z;
#pragma unroll
        for (int k = 0; k < 8; k++) z.v[k] = v[k];
        return z;
    }
};

/* (a[i] b[i] - c[i]) z, the c term only when c is given; without SCALE, a[i] b[i] - c[i]; b NULL: a[i] alone
 * (a bit-reversal) */
template <bool SCALE = true>
static CZ_DEV cz_dfr h_value(const cz_dfr *a, const cz_dfr *b, const cz_dfr *c, size_t i, const cz_dfr &z) {
    if (!SCALE && !b) return cz_ld(a + i);
    cz_dfr x = cz_ld(a + i) * cz_ld(b + i);
    if (c) x = x - cz_ld(c + i);
    return SCALE ? x * z : x;
}

__global__ void h_pointwise(cz_dfr *a, const cz_dfr *b, const cz_dfr *c, size_t n, fr_arg zinv) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_st(a + i, h_value(a, b, c, i, zinv.get()));
}

extern "C" int cz_gpu_h_pointwise_(cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, size_t n, const cz_fr *zinv,
                                   void *s) {
    fr_arg z;
    memcpy(z.v, zinv, sizeof z.v);
    if (!n) return 0;
    h_pointwise<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>((cz_dfr *)d_a, (const cz_dfr *)d_b,
                                                                         (const cz_dfr *)d_c, n, z);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* The same step for the order-agnostic transforms: the evaluations arrive in natural order and leave in
 * bit-reversed order (in-place pair swap), which is what the DIT coset inverse that follows reads. */
__global__ void h_pointwise_rev(cz_dfr *a, const cz_dfr *b, const cz_dfr *c, unsigned log_n, fr_arg zinv) {
    const size_t n = (size_t)1 << log_n;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t j = __brev((uint32_t)i) >> (32 - log_n);
    if (i > j) return;
    const cz_dfr z = zinv.get(), vi = h_value(a, b, c, i, z);
    if (i == j) {
        cz_st(a + i, vi);
        return;
    }
    cz_st(a + i, h_value(a, b, c, j, z));
    cz_st(a + j, vi);
}

/* The same, through tiles: index bits (h | m | l), h and l of TB bits each, reverse to (rev l | rev m | rev h), so
 * tile m (the 2^(2 TB) elements with middle bits m) goes whole to tile rev m, element (h, l) to (rev l, rev h). A
 * block takes the tiles m and rev m (m <= rev m): it reads both row by row (runs of 2^TB elements), computes the
 * values into shared memory and writes each tile's values into the other row by row, where h_pointwise_rev's
 * partner loads and stores (position rev i of thread i) touch one element of every run. From 2^(2 TB) points;
 * CZ_GPU_HPW_TILED=0 keeps h_pointwise_rev (A/B). out may be a (in place: both tiles are read before either is
 * written) or another vector. */
#define HPW_TB 4
#define HPW_T (1u << (2 * HPW_TB))
template <bool SCALE>
static __device__ __forceinline__ void pointwise_rev_tile(cz_dfr *out, const cz_dfr *a, const cz_dfr *b, const cz_dfr *c,
                                                          unsigned log_n, const fr_arg &zinv) {
    /* rows of 2^TB + 1 elements: the transposed reads conflict 4-way instead of 8 */
    __shared__ __align__(16) cz_dfr v[2][HPW_T + (1u << HPW_TB)];
    const unsigned mb = log_n - 2 * HPW_TB; /* middle bits */
    const uint32_t m = blockIdx.x, mr = mb ? __brev(m) >> (32 - mb) : 0;
    if (m > mr) return; /* the pair's other block does it */
    const cz_dfr z = zinv.get();
    const unsigned t = threadIdx.x, h = t >> HPW_TB, l = t & ((1u << HPW_TB) - 1);
    const uint32_t tm[2] = {m, mr};
#pragma unroll
    for (int q = 0; q < 2; q++) {
        const size_t i = ((size_t)h << (log_n - HPW_TB)) | ((size_t)tm[q] << HPW_TB) | l;
        cz_st(&v[q][h * ((1u << HPW_TB) + 1) + l], h_value<SCALE>(a, b, c, i, z));
    }
    __syncthreads();
    /* out (row t >> TB, column t & mask) of tile tm[q] is in (h, l) = (rev column, rev row) of tile tm[1 - q] */
    const unsigned hs = __brev(l) >> (32 - HPW_TB), ls = __brev(h) >> (32 - HPW_TB);
#pragma unroll
    for (int q = 0; q < 2; q++) {
        if (q && m == mr) break;
        const size_t o = ((size_t)h << (log_n - HPW_TB)) | ((size_t)tm[q] << HPW_TB) | l;
        cz_st(out + o, cz_ld(&v[1 - q][hs * ((1u << HPW_TB) + 1) + ls]));
    }
}

__global__ void __launch_bounds__(HPW_T) h_pointwise_rev_tiled(cz_dfr *a, const cz_dfr *b, const cz_dfr *c, unsigned log_n,
                                                               fr_arg zinv) {
    pointwise_rev_tile<true>(a, a, b, c, log_n, zinv);
}

/* c[bitrev(i)] = a[i] b[i] (cz_gpu_ab_product_), its own name in kernel traces */
__global__ void __launch_bounds__(HPW_T) ab_rev_tiled(cz_dfr *c, const cz_dfr *a, const cz_dfr *b, unsigned log_n) {
    pointwise_rev_tile<false>(c, a, b, NULL, log_n, fr_arg{});
}

/* a[bitrev(i)] = a[i] in place through the tiles (coalesced, unlike cz_gpu_bitrev_'s pair swaps) */
__global__ void __launch_bounds__(HPW_T) bitrev_tiled(cz_dfr *a, unsigned log_n) {
    pointwise_rev_tile<false>(a, a, NULL, NULL, log_n, fr_arg{});
}

extern "C" int cz_gpu_bitrev_tiled_(cz_fr *d, unsigned log_n, void *s) {
    if (log_n < 2 * HPW_TB) return cz_gpu_bitrev_(d, log_n, s);
    if (log_n > 31) return cz_error(CZ_ERANGE, "bit reversal of 2^%u", log_n);
    bitrev_tiled<<<1u << (log_n - 2 * HPW_TB), HPW_T, 0, (cudaStream_t)s>>>((cz_dfr *)d, log_n);
    CZ_CUDA_LAUNCHED();
    return 0;
}

extern "C" int cz_gpu_h_pointwise_rev_(cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, unsigned log_n,
                                       const cz_fr *zinv, void *s) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "H pointwise of 2^%u", log_n);
    fr_arg z;
    memcpy(z.v, zinv, sizeof z.v);
    const char *e = getenv("CZ_GPU_HPW_TILED");
    if (log_n >= 2 * HPW_TB && !(e && atoi(e) == 0)) {
        h_pointwise_rev_tiled<<<1u << (log_n - 2 * HPW_TB), HPW_T, 0, (cudaStream_t)s>>>((cz_dfr *)d_a, (const cz_dfr *)d_b,
                                                                                        (const cz_dfr *)d_c, log_n, z);
        CZ_CUDA_LAUNCHED();
        return 0;
    }
    const size_t n = (size_t)1 << log_n;
    h_pointwise_rev<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>((cz_dfr *)d_a, (const cz_dfr *)d_b,
                                                                             (const cz_dfr *)d_c, log_n, z);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* c = a b pointwise, natural order or into bit-reversed positions (small sizes; larger ones go through the tiles) */
__global__ void ab_product(cz_dfr *c, const cz_dfr *a, const cz_dfr *b, unsigned log_n, int rev) {
    const size_t n = (size_t)1 << log_n;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t j = rev ? __brev((uint32_t)i) >> (32 - log_n) : i;
    cz_st(c + j, cz_ld(a + i) * cz_ld(b + i));
}

extern "C" int cz_gpu_ab_product_(cz_fr *d_c, const cz_fr *d_a, const cz_fr *d_b, unsigned log_n, int rev, void *s) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "a b product of 2^%u", log_n);
    if (rev && log_n >= 2 * HPW_TB) {
        ab_rev_tiled<<<1u << (log_n - 2 * HPW_TB), HPW_T, 0, (cudaStream_t)s>>>((cz_dfr *)d_c, (const cz_dfr *)d_a,
                                                                               (const cz_dfr *)d_b, log_n);
        CZ_CUDA_LAUNCHED();
        return 0;
    }
    const size_t n = (size_t)1 << log_n;
    ab_product<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>((cz_dfr *)d_c, (const cz_dfr *)d_a,
                                                                        (const cz_dfr *)d_b, log_n, rev);
    CZ_CUDA_LAUNCHED();
    return 0;
}
