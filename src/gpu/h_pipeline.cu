/* The pointwise step of the H pipeline (a*b - c) / Z on the coset, one fused pass over the three
 * vectors (the order of operations is cz_groth16_compute_h's; field results are canonical, so the
 * output is bit-identical to the CPU's). */
#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu_internal.h"
#include "gpu/prover_internal.h"

struct fr_arg {
    uint32_t v[8];
};

__global__ void h_pointwise(cz_dfr *a, const cz_dfr *b, const cz_dfr *c, size_t n, fr_arg zinv) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr z;
#pragma unroll
    for (int k = 0; k < 8; k++) z.v[k] = zinv.v[k];
    cz_st(a + i, (cz_ld(a + i) * cz_ld(b + i) - cz_ld(c + i)) * z);
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
    cz_dfr z;
#pragma unroll
    for (int k = 0; k < 8; k++) z.v[k] = zinv.v[k];
    cz_dfr vi = cz_ld(a + i) * cz_ld(b + i);
    if (c) vi = vi - cz_ld(c + i);
    vi = vi * z;
    if (i == j) {
        cz_st(a + i, vi);
        return;
    }
    cz_dfr vj = cz_ld(a + j) * cz_ld(b + j);
    if (c) vj = vj - cz_ld(c + j);
    vj = vj * z;
    cz_st(a + i, vj);
    cz_st(a + j, vi);
}

extern "C" int cz_gpu_h_pointwise_rev_(cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, unsigned log_n,
                                       const cz_fr *zinv, void *s) {
    if (log_n < 1 || log_n > 31) return cz_error(CZ_ERANGE, "H pointwise of 2^%u", log_n);
    fr_arg z;
    memcpy(z.v, zinv, sizeof z.v);
    const size_t n = (size_t)1 << log_n;
    h_pointwise_rev<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>((cz_dfr *)d_a, (const cz_dfr *)d_b,
                                                                             (const cz_dfr *)d_c, log_n, z);
    CZ_CUDA_LAUNCHED();
    return 0;
}
