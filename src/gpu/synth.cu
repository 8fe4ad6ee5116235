/* Synthetic resident data for the partition benchmark, generated on the device (host generation and
 * upload of ~70 GB would dominate a benchmark run): random bases, a witness with a chosen mix of 0, 1
 * and random values, and CSR matrices with PoRep-like row weights and column densities. */
#include <cub/cub.cuh>

#include "gpu/cuda_util.cuh"
#include "gpu/field.cuh"
#include "gpu/prover_internal.h"

static __device__ __forceinline__ uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static unsigned blocks_for(size_t n) { return (unsigned)((n + 255) / 256); }

__global__ void synth_points(uint64_t *p, size_t n, uint64_t seed) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr uint64_t P[6] = CZ_FP_MODULUS;
    uint64_t s = mix64(seed ^ (i * 0xd1b54a32d192ed03ull));
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < 6; l++) {
            s = mix64(s + l + 7 * c);
            p[12 * i + 6 * c + l] = l == 5 ? s % P[5] : s;
        }
}

extern "C" int cz_gpu_synth_points_(void *d_pts, size_t n, uint64_t seed, void *s) {
    if (!n) return 0;
    synth_points<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((uint64_t *)d_pts, n, seed);
    CZ_CUDA_LAUNCHED();
    return 0;
}

static __device__ void random_fr(uint64_t *o, uint64_t s) {
    constexpr uint64_t R[4] = CZ_FR_MODULUS;
    for (int l = 0; l < 4; l++) {
        s = mix64(s + l);
        o[l] = l == 3 ? s % R[3] : s;
    }
}

/* aux j in mix (p0, p1) per mille, or (p0b, p1b) when B takes it (j a multiple of b_stride, synth_csr's B slots) */
__global__ void synth_witness(uint64_t *w, size_t ni, size_t na, unsigned p0, unsigned p1, unsigned p0b, unsigned p1b,
                              unsigned b_stride, uint64_t seed) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ni + na) return;
    constexpr uint64_t ONE[4] = CZ_FR_R;
    uint64_t *o = w + 4 * i;
    const uint64_t h = mix64(seed ^ (i * 0x9e3779b97f4a7c15ull));
    const unsigned u = (unsigned)(h % 1000);
    const bool in_b = i >= ni && (i - ni) % b_stride == 0;
    const unsigned q0 = in_b ? p0b : p0, q1 = in_b ? p1b : p1;
    const int kind = i == 0 ? 1 : i < ni ? 2 : u < q0 ? 0 : u < q0 + q1 ? 1 : 2;
    for (int l = 0; l < 4; l++) o[l] = kind == 1 ? ONE[l] : 0;
    if (kind == 2) random_fr(o, h);
}

extern "C" int cz_gpu_synth_witness_(cz_fr *d_w, size_t ni, size_t na, const unsigned mix[4], unsigned b_stride,
                                     uint64_t seed, void *s) {
    if (!(ni + na)) return 0;
    synth_witness<<<blocks_for(ni + na), 256, 0, (cudaStream_t)s>>>((uint64_t *)d_w, ni, na, mix[0], mix[1], mix[2],
                                                                    mix[3], b_stride ? b_stride : 1, seed);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* c[i] for i < rows (0 past them): 0, 1, -1, 2 with mix[0..3] parts in 100,000 each, else a random value */
__global__ void synth_cmix(cz_dfr *c, size_t n, size_t rows, unsigned m0, unsigned m1, unsigned m2, unsigned m3,
                           uint64_t seed) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t h = mix64(seed ^ (i * 0x9e3779b97f4a7c15ull));
    const unsigned u = (unsigned)(h % 100000);
    const cz_dfr one = cz_dfr::one();
    cz_dfr x = cz_dfr::zero();
    if (i >= rows || u < m0) x = cz_dfr::zero();
    else if (u < m0 + m1) x = one;
    else if (u < m0 + m1 + m2) x = one.neg();
    else if (u < m0 + m1 + m2 + m3) x = one.dbl();
    else {
        uint64_t o[4]; /* below r: a Montgomery form like any other */
        random_fr(o, h);
        memcpy(x.v, o, sizeof o);
    }
    cz_st(c + i, x);
}

extern "C" int cz_gpu_synth_cmix_(cz_fr *d_c, size_t n, size_t rows, const unsigned mix[4], uint64_t seed, void *s) {
    synth_cmix<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((cz_dfr *)d_c, n, rows, mix[0], mix[1], mix[2], mix[3], seed);
    CZ_CUDA_LAUNCHED();
    return 0;
}

struct csr_shape {
    uint64_t rows, nc, ni, na;
    unsigned w_lo, w_frac, in_w, stride, one, pool;
    int kind;
    uint64_t seed;
};

/* dict[0] = 1, dict[1..pool] random */
__global__ void synth_dict(uint64_t *dict, unsigned pool, uint64_t seed) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j > pool) return;
    constexpr uint64_t ONE[4] = CZ_FR_R;
    if (j == 0)
        for (int l = 0; l < 4; l++) dict[l] = ONE[l];
    else random_fr(dict + 4 * j, mix64(seed ^ (j * 0x632be59bd9b4e019ull)));
}

__global__ void synth_weights(uint64_t *wt, csr_shape sh) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= sh.rows) return;
    uint64_t w;
    if (i < sh.nc) {
        w = sh.w_lo + ((mix64(sh.seed ^ (i * 0x2545f4914f6cdd1dull)) % 1000) < sh.w_frac ? 1 : 0);
    } else {
        w = sh.in_w;
    }
    wt[i] = w;
}

/* u64 row pointers to rb (4 or 8) bytes each */
__global__ void synth_rows(void *dst, unsigned rb, const uint64_t *src, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (rb == 4) ((uint32_t *)dst)[i] = (uint32_t)src[i];
    else ((uint64_t *)dst)[i] = src[i];
}

/* rp: rb bytes a row pointer; coef (NULL: values): cb bytes an index */
__global__ void synth_fill(uint32_t *col, uint64_t *val, void *coef, unsigned cb, const void *rp, unsigned rb,
                           csr_shape sh) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= sh.rows) return;
    constexpr uint64_t ONE[4] = CZ_FR_R;
    const uint64_t b = rb == 4 ? ((const uint32_t *)rp)[i] : ((const uint64_t *)rp)[i],
                   e = rb == 4 ? ((const uint32_t *)rp)[i + 1] : ((const uint64_t *)rp)[i + 1];
    for (uint64_t k = b; k < e; k++) {
        const uint64_t h = mix64(sh.seed ^ (k * 0x9e3779b97f4a7c15ull) ^ 0x5bd1e995ull);
        uint32_t c;
        if (i >= sh.nc) {
            c = (uint32_t)(i - sh.nc); /* input row: x_i */
        } else if (sh.kind == 0 && k == b) {
            c = (uint32_t)(sh.ni + i % sh.na); /* every aux variable appears in A */
        } else if (sh.kind == 1 && h % 1000 == 999) {
            c = 0; /* ONE, rarely, in B */
        } else if (sh.kind == 1) {
            const uint64_t slots = (sh.na + sh.stride - 1) / sh.stride;
            c = (uint32_t)(sh.ni + ((h >> 10) % slots) * sh.stride);
        } else {
            c = (uint32_t)(sh.ni + (h >> 10) % sh.na);
        }
        col[k] = c;
        const bool one = (h >> 40) % 1000 < sh.one || i >= sh.nc;
        if (coef) {
            const uint32_t x = one ? 0 : 1 + (uint32_t)((h >> 20) % sh.pool);
            if (cb == 1) ((uint8_t *)coef)[k] = (uint8_t)x;
            else if (cb == 2) ((uint16_t *)coef)[k] = (uint16_t)x;
            else ((uint32_t *)coef)[k] = x;
            continue;
        }
        uint64_t *v = val + 4 * k;
        if (one) {
            for (int l = 0; l < 4; l++) v[l] = ONE[l];
        } else {
            random_fr(v, h);
        }
    }
}

extern "C" int cz_gpu_synth_csr_(void **row_ptr, unsigned *row_bytes, uint32_t **col, cz_fr **val, void **coef,
                                 unsigned *coef_bytes, cz_fr **dict, uint64_t *nnz, uint64_t rows, uint64_t nc,
                                 uint64_t ni, uint64_t na, unsigned w_lo, unsigned w_frac, unsigned in_w, int kind,
                                 unsigned stride, unsigned one, unsigned pool, uint64_t seed, cz_gpu_alloc_fn alloc,
                                 void *ctx, void *s) {
    cudaStream_t st = (cudaStream_t)s;
    csr_shape sh = {rows, nc, ni, na, w_lo, w_frac, in_w, stride ? stride : 1, one, pool, kind, seed};
    *row_ptr = NULL;
    *col = NULL;
    *val = NULL;
    *coef = NULL;
    *dict = NULL;
    *row_bytes = 8;
    *coef_bytes = 0;
    /* the row pointers as u64 in a temporary (outside the accounting, as the weights' array was): their device
     * width (spmv.cu's narrow layout) depends on the total, known after the scan */
    uint64_t *rp64 = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    CZ_CUDA(cudaMalloc((void **)&rp64, (rows + 1) * 8));
    synth_weights<<<blocks_for(rows), 256, 0, st>>>(rp64 + 1, sh);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemsetAsync(rp64, 0, 8, st);
    if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, rp64 + 1, rp64 + 1, (int64_t)rows, st);
    if (e == cudaSuccess) e = cudaMalloc(&temp, temp_bytes + 16);
    if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(temp, temp_bytes, rp64 + 1, rp64 + 1, (int64_t)rows, st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(nnz, rp64 + rows, 8, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    cudaFree(temp);
    int rc = e == cudaSuccess ? 0 : cz_error(CZ_EDEVICE, "synthetic CSR row pointers: %s", cudaGetErrorString(e));
    const unsigned rb = rc ? 8 : cz_gpu_csr_row_bytes_(*nnz);
    if (!rc) rc = alloc(ctx, row_ptr, (rows + 1) * rb, "CSR row pointers");
    if (!rc) {
        synth_rows<<<blocks_for(rows + 1), 256, 0, st>>>(*row_ptr, rb, rp64, rows + 1);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaStreamSynchronize(st);
        if (e != cudaSuccess) rc = cz_error(CZ_EDEVICE, "synthetic CSR row pointers: %s", cudaGetErrorString(e));
    }
    cudaFree(rp64);
    if (rc) return rc;
    *row_bytes = rb;
    const unsigned cb = pool ? cz_gpu_csr_coef_bytes_((uint64_t)pool + 1) : 0;
    rc = alloc(ctx, (void **)col, (*nnz ? *nnz : 1) * 4, "CSR columns");
    if (!rc && !pool) rc = alloc(ctx, (void **)val, (*nnz ? *nnz : 1) * sizeof(cz_fr), "CSR coefficients");
    if (!rc && pool) rc = alloc(ctx, coef, (*nnz ? *nnz : 1) * cb, "CSR coefficient indices");
    if (!rc && pool) rc = alloc(ctx, (void **)dict, ((size_t)pool + 1) * sizeof(cz_fr), "CSR coefficient dictionary");
    if (rc) return rc;
    *coef_bytes = cb;
    if (pool) {
        synth_dict<<<blocks_for((size_t)pool + 1), 256, 0, st>>>((uint64_t *)*dict, pool, seed ^ 0xd1c7ull);
        CZ_CUDA_LAUNCHED();
    }
    synth_fill<<<blocks_for(rows), 256, 0, st>>>(*col, (uint64_t *)*val, *coef, cb, *row_ptr, rb, sh);
    CZ_CUDA_LAUNCHED();
    return 0;
}

__global__ void mark_columns(unsigned long long *bits, uint64_t nbits, uint64_t col_base, const uint32_t *col,
                             uint64_t nnz) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nnz) return;
    const uint64_t c = col[k];
    if (c < col_base || c - col_base >= nbits) return;
    const uint64_t j = c - col_base;
    const unsigned long long m = 1ull << (j & 63);
    if (!(bits[j >> 6] & m)) atomicOr(bits + (j >> 6), m);
}

extern "C" int cz_gpu_mark_columns_(uint64_t *bits, uint64_t nbits, uint64_t col_base, const uint32_t *col,
                                    uint64_t nnz, void *s) {
    if (!nnz) return 0;
    mark_columns<<<blocks_for(nnz), 256, 0, (cudaStream_t)s>>>((unsigned long long *)bits, nbits, col_base, col, nnz);
    CZ_CUDA_LAUNCHED();
    return 0;
}
