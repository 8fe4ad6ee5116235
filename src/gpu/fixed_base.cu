/* Fixed-base products of the G1 / G2 generator on the device, for the seeded setup (groth16/setup.h's
 * cz_groth16_fb_ops): out[i] = k[i] G from a host table tab[w 2^(c-1) + j] = (j + 1) 2^(c w) G (the same
 * table as the CPU's groth16/fixed_base.h). One thread an output: the scalar's signed c-bit digits (the
 * MSM's cz_booth_digit) pick at most `windows` table points, added into an xyzz accumulator by the
 * exact mixed addition (doubling and infinity handled), then one inversion makes it affine. Affine
 * points are unique, so the bytes equal the CPU's batch-affine results. The table (4.3 MiB in G1, 8.6 in
 * G2) stays in L2 while the outputs pass over it.
 *
 * Host arrays in and out, in chunks of CZ_GPU_FB_CHUNK outputs: a seeded 32 GiB PoRep setup multiplies
 * ~330 M G1 and ~33 M G2 points, which this moves through ~1 GB of device memory. */
#include "gpu/cuda_util.cuh"
#include "gpu/digits.cuh"
#include "gpu/ec.cuh"
#include "gpu/field.cuh"
#include "gpu/fp_inv.cuh"
#include "gpu/gpu.h"

#define CZ_GPU_FB_CHUNK ((size_t)1 << 21)

template <class F>
static __global__ void fb_kernel(cz_daff<F> *out, const cz_daff<F> *tab, unsigned c, unsigned windows,
                                 const cz_dfr *k, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const cz_dfr s = cz_ld(k + i).from_mont();
    const size_t half = (size_t)1 << (c - 1);
    cz_dxyzz<F> acc = cz_dxyzz<F>::inf();
#pragma unroll 1
    for (unsigned w = 0; w < windows; w++) {
        const int d = cz_booth_digit(s.v, 1, w, c);
        if (d == 0) continue;
        cz_daff<F> q = cz_ec_ld_aff(tab + w * half + (size_t)(d > 0 ? d : -d) - 1);
        if (d < 0) q.y = q.y.neg();
        acc = cz_ec_add_aff(acc, q);
    }
    cz_daff<F> r;
    if (acc.is_inf()) {
        r.x = r.y = F::zero();
    } else { /* x = X / ZZ, y = Y / ZZZ with one inversion of ZZ ZZZ */
        const F t = cz_fp_inv(acc.zz * acc.zzz);
        r.x = acc.x * (t * acc.zzz);
        r.y = acc.y * (t * acc.zz);
    }
    cz_st(&out[i].x, r.x);
    cz_st(&out[i].y, r.y);
}

template <class F>
static int fb_run(void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k, size_t n) {
    typedef cz_daff<F> A;
    if (c < 2 || c > 20 || windows == 0 || (size_t)windows * c < 256 || (size_t)(windows - 1) * c > 256)
        return cz_error(CZ_EINVAL, "fixed-base products: %u windows of %u bits do not cover a 256-bit scalar exactly",
                        windows, c);
    if (n == 0) return 0;
    const size_t tab_n = (size_t)windows << (c - 1), chunk = n < CZ_GPU_FB_CHUNK ? n : CZ_GPU_FB_CHUNK;
    A *d_tab = nullptr, *d_out = nullptr;
    cz_dfr *d_k = nullptr;
    int rc = 0;
    cudaError_t e = cudaMalloc(&d_tab, tab_n * sizeof(A));
    if (e == cudaSuccess) e = cudaMalloc(&d_out, chunk * sizeof(A));
    if (e == cudaSuccess) e = cudaMalloc(&d_k, chunk * sizeof(cz_dfr));
    if (e == cudaSuccess) e = cudaMemcpy(d_tab, tab, tab_n * sizeof(A), cudaMemcpyHostToDevice);
    for (size_t lo = 0; e == cudaSuccess && lo < n; lo += chunk) {
        const size_t m = n - lo < chunk ? n - lo : chunk;
        e = cudaMemcpy(d_k, k + lo, m * sizeof(cz_dfr), cudaMemcpyHostToDevice);
        if (e != cudaSuccess) break;
        fb_kernel<F><<<(unsigned)((m + 127) / 128), 128>>>(d_out, d_tab, c, windows, d_k, m);
        if ((e = cudaGetLastError()) != cudaSuccess) break;
        e = cudaMemcpy((A *)out + lo, d_out, m * sizeof(A), cudaMemcpyDeviceToHost);
    }
    if (e != cudaSuccess) {
        cudaGetLastError(); /* a failed allocation is not sticky: leave the context clean for the caller */
        rc = cz_error(CZ_EDEVICE, "fixed-base products of %zu points on the GPU: %s: %s", n, cudaGetErrorName(e),
                      cudaGetErrorString(e));
    }
    cudaFree(d_tab);
    cudaFree(d_out);
    cudaFree(d_k);
    return rc;
}

extern "C" int cz_gpu_fb_mul_many(int g2, void *out, const void *tab, unsigned c, unsigned windows, const cz_fr *k,
                                  size_t n) {
    return g2 ? fb_run<cz_dfp2>(out, tab, c, windows, k, n) : fb_run<cz_dfp>(out, tab, c, windows, k, n);
}
