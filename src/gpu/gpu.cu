/* Device management, copies, timers and device-side random data for the C API in gpu.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "gpu/cuda_util.cuh"
#include "gpu/ec.cuh"
#include "gpu/field.cuh"
#include "gpu/fp_dfma.cuh"
#include "gpu/fp_inv.cuh"
#include "gpu/gpu.h"

extern "C" int cz_gpu_load_kernels_eagerly(void) { return setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

extern "C" int cz_gpu_set_sync_mode(const char *mode) {
    unsigned f;
    if (!mode || !*mode || !strcmp(mode, "auto")) f = cudaDeviceScheduleAuto;
    else if (!strcmp(mode, "spin")) f = cudaDeviceScheduleSpin;
    else if (!strcmp(mode, "yield")) f = cudaDeviceScheduleYield;
    else if (!strcmp(mode, "block")) f = cudaDeviceScheduleBlockingSync;
    else return cz_error(CZ_EINVAL, "GPU sync mode '%s': expected auto, spin, yield or block", mode);
    int n = 0, cur = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    cudaGetDevice(&cur);
    for (int d = 0; d < n; d++) {
        CZ_CUDA(cudaSetDevice(d));
        CZ_CUDA(cudaSetDeviceFlags(f));
    }
    if (n) CZ_CUDA(cudaSetDevice(cur));
    return 0;
}

extern "C" int cz_gpu_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* no driver / no device: clear the sticky error, report none */
        return 0;
    }
    return n;
}

extern "C" void cz_gpu_no_device_why(char *why, size_t n) {
    int c = 0;
    cudaError_t e = cudaGetDeviceCount(&c);
    if (e != cudaSuccess) cudaGetLastError();
    if (!n) return;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv); /* 0: no driver library found */
    cudaRuntimeGetVersion(&rt);
    if (e == cudaSuccess) snprintf(why, n, "%s", c > 0 ? "" : "the driver lists none");
    else if (e == cudaErrorInsufficientDriver && drv == 0) snprintf(why, n, "no NVIDIA driver found (libcuda)");
    else if (e == cudaErrorInsufficientDriver)
        snprintf(why, n, "the NVIDIA driver supports CUDA %d.%d, this build needs CUDA %d.%d: update the driver "
                 "(cudaErrorInsufficientDriver)", drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    else snprintf(why, n, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
}

extern "C" int cz_gpu_set_device(int dev) {
    CZ_CUDA(cudaSetDevice(dev));
    return 0;
}

/* The current device in cz_gpu_peek's words; that the build's list allows it was settled when it was chosen. */
extern "C" int cz_gpu_describe(char *out, size_t cap) {
    int dev;
    char why[8];
    CZ_CUDA(cudaGetDevice(&dev));
    return cz_gpu_peek(dev, out, cap, why, sizeof why) == CZ_EDEVICE ? CZ_EDEVICE : 0;
}

extern "C" int cz_gpu_device_check(int ordinal, char *why, size_t n) {
    cudaError_t e = cudaSetDevice(ordinal);
    if (e == cudaSuccess) {
        cudaGetLastError(); /* clears a non-sticky error; a sticky one stays and the sync reports it */
        e = cudaDeviceSynchronize();
    }
    if (e == cudaSuccess) {
        if (n) why[0] = 0;
        return 0;
    }
    snprintf(why, n, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return cz_error(CZ_EDEVICE, "GPU %d is unusable: %s", ordinal, why);
}

/* Tests: what CZ_CUDA makes of a CUDA error (its code; the message on the calling thread). */
extern "C" int cz_gpu_cuda_status_for_test_(int cuda_error) {
    CZ_CUDA((cudaError_t)cuda_error);
    return 0;
}

/* volatile: the store must reach the device whatever the compiler knows about the address */
static __global__ void fault_kernel(volatile uint64_t *p) { *p = 1; }

extern "C" int cz_gpu_fault_for_test(int ordinal) {
    CZ_CUDA(cudaSetDevice(ordinal));
    fault_kernel<<<1, 1>>>((volatile uint64_t *)(uintptr_t)8); /* the first page: never mapped */
    CZ_CUDA_LAUNCHED();
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return cz_error(CZ_EDEVICE, "GPU %d: the faulting kernel did not fault", ordinal);
    return 0;
}

extern "C" int cz_gpu_malloc(void **dptr, size_t bytes) {
    *dptr = NULL;
    cudaError_t e = cudaMalloc(dptr, bytes);
    if (e != cudaSuccess) {
        *dptr = NULL;
        return cz_error(e == cudaErrorMemoryAllocation ? CZ_ENOMEM : CZ_EDEVICE, "cudaMalloc(%zu bytes): %s",
                        bytes, cudaGetErrorString(e));
    }
    return 0;
}

extern "C" void cz_gpu_free(void *dptr) {
    if (dptr) cudaFree(dptr);
}

extern "C" int cz_gpu_memcpy_htod(void *dst, const void *src, size_t bytes) {
    CZ_CUDA(cz_copy_by_piece(src, bytes, [&](size_t o, size_t n) {
        return cudaMemcpy((char *)dst + o, (const char *)src + o, n, cudaMemcpyHostToDevice);
    }));
    /* From pageable memory cudaMemcpy returns once the bytes are staged, before their DMA lands, and kernels on
     * the non-blocking streams (the provers' and the MSM's) do not wait for it: the Lagrange bases' check at
     * 2^15-2^16 read its scalars before they arrived (test_gpu_prover, session 36). */
    CZ_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    return 0;
}

extern "C" int cz_gpu_memcpy_dtoh(void *dst, const void *src, size_t bytes) {
    CZ_CUDA(cz_copy_by_piece(dst, bytes, [&](size_t o, size_t n) {
        return cudaMemcpy((char *)dst + o, (const char *)src + o, n, cudaMemcpyDeviceToHost);
    }));
    return 0;
}

extern "C" int cz_gpu_memset(void *dptr, int v, size_t bytes) {
    CZ_CUDA(cudaMemset(dptr, v, bytes));
    return 0;
}

extern "C" int cz_gpu_sync(void) {
    CZ_CUDA(cudaDeviceSynchronize());
    return 0;
}

extern "C" int cz_gpu_take_error_(void) {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return 0;
    return cz_error(CZ_EDEVICE, "CUDA error left pending: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
}

struct cz_gpu_timer {
    cudaEvent_t a, b;
};

extern "C" int cz_gpu_timer_create(cz_gpu_timer **t) {
    *t = new cz_gpu_timer;
    CZ_CUDA(cudaEventCreate(&(*t)->a));
    CZ_CUDA(cudaEventCreate(&(*t)->b));
    return 0;
}

extern "C" void cz_gpu_timer_destroy(cz_gpu_timer *t) {
    if (!t) return;
    cudaEventDestroy(t->a);
    cudaEventDestroy(t->b);
    delete t;
}

extern "C" int cz_gpu_timer_start(cz_gpu_timer *t, void *stream) {
    CZ_CUDA(cudaEventRecord(t->a, (cudaStream_t)stream));
    return 0;
}

extern "C" int cz_gpu_timer_stop(cz_gpu_timer *t, void *stream, float *ms) {
    CZ_CUDA(cudaEventRecord(t->b, (cudaStream_t)stream));
    CZ_CUDA(cudaEventSynchronize(t->b));
    CZ_CUDA(cudaEventElapsedTime(ms, t->a, t->b));
    return 0;
}

static __device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Values below r: the top limb is drawn below r's top limb (close to uniform, enough for benchmarks). */
static __global__ void fr_random_kernel(uint64_t *out, size_t n, uint64_t seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr uint64_t P[4] = CZ_FR_MODULUS;
    uint64_t s = seed ^ (i * 0xd1b54a32d192ed03ull);
    uint64_t l0 = splitmix64(s), l1 = splitmix64(l0 + s), l2 = splitmix64(l1 + s), l3 = splitmix64(l2 + s);
    out[4 * i] = l0;
    out[4 * i + 1] = l1;
    out[4 * i + 2] = l2;
    out[4 * i + 3] = l3 % P[3];
}

extern "C" int cz_gpu_fr_random(cz_fr *d_out, size_t n, uint64_t seed) {
    if (n == 0) return 0;
    fr_random_kernel<<<(unsigned)((n + 255) / 256), 256>>>((uint64_t *)d_out, n, seed);
    CZ_CUDA_LAUNCHED();
    return 0;
}

/* ---- field multiplication micro-benchmark ---- */

/* Two independent chains per thread, iters steps each: MODE 0 products x *= y, w *= y (the default routine),
 * 1 the same by the naive CIOS product, 2 squares x = x^2, w = w^2 (sqr). Fp only, the FP64-pipe product
 * (fp_dfma.cuh) in a share of the warps, the integer one in the rest: 3 / 4 every warp (low halves summed in
 * doubles / in integers), 5 / 6 half of them, 7 / 8 a quarter; 9 / 10: every thread's w on the FP64 pipe and
 * its x on IMAD (two independent products, one per pipe, in one instruction stream). The pipes belong to an
 * SM's four schedulers and warp w of a block runs on scheduler w mod 4, so the mixed modes launch blocks of 8
 * warps (two per scheduler, at most 128 registers for two blocks per SM) and pick warps 4..7: each scheduler
 * gets both kinds (a quarter: in odd blocks only). */
#define MULBENCH_MIXED_THREADS 256
#define MULBENCH_MIXED(MODE) ((MODE) >= 3 && (MODE) <= 10)
/* Fp 11 / 12 / 13, a probe of the tensor pipe beside the multiplier: four independent int8 tensor-core products a warp a
 * step (mma m16n8k32 u8 x u8 -> s32, the shape a Montgomery reduction by the constant p would take as a Toeplitz
 * GEMM: ~2.25 of them a field product), alone (11) or beside mode 0's two products a thread a step (12, which feeds
 * them from the products' limbs, as a reduction would be fed; 13: 32 mma a warp a step, half an mma a product, the
 * density a reduction on the tensor pipe would have within a factor of 5). 12's products are mode 0's, bit for bit; the
 * accumulators only decide a store that never happens, so the compiler keeps them. If 12 takes about as long as the
 * longer of 0 and 11, the two pipes overlap (the FP64 pipe did not: modes 3..10). */
static CZ_DEV void mulbench_mma(uint32_t *c, const uint32_t *a, uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    c[0] += a[0] * b0 + a[1] * b1, c[1] += a[2] * b0, c[2] += a[3] * b1, c[3] += b0 ^ b1;
#endif
}
template <class F, int MODE>
static CZ_DEV F mulbench_step(const F &x, const F &y, bool dfma) {
    if (MODE == 1) return x.mul_cios(y);
    if (MODE == 2) return x.sqr();
    if constexpr (std::is_same<F, cz_dfp>::value && MODE >= 3) {
        if (dfma) return cz_fp_mul_dfma<MODE == 10 ? 1 : MODE == 9 ? 0 : (MODE - 3) & 1>(x, y);
    }
    return x * y;
}
template <class F, int MODE>
static __global__ void __launch_bounds__(MULBENCH_MIXED(MODE) ? MULBENCH_MIXED_THREADS : 128, MULBENCH_MIXED(MODE) ? 2 : 1)
    mulbench_kernel(F *out, const F *in, size_t n, int iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return; /* n is a multiple of the block: whole warps reach the mma */
    const unsigned warp = threadIdx.x >> 5;
    const bool dfma = MULBENCH_MIXED(MODE) && (MODE < 5 || MODE >= 9 || ((warp >> 2) & 1 && (MODE < 7 || (blockIdx.x & 1))));
    F x = cz_ld(in + 3 * i), w = cz_ld(in + 3 * i + 1);
    const F y = cz_ld(in + 3 * i + 2);
    if constexpr (MODE >= 11 && MODE <= 13) {
        constexpr int rounds = MODE == 13 ? 8 : 1; /* 13: 32 mma a warp a step, half a tensor product per field product */
        uint32_t a[4] = {y.v[0], y.v[1], y.v[2], y.v[3]}, c[4][4] = {};
#pragma unroll 1
        for (int k = 0; k < iters; k++) {
            if (MODE != 11) x = x * y, w = w * y;
            const uint32_t b0 = MODE != 11 ? x.v[4] : (uint32_t)k, b1 = MODE != 11 ? w.v[4] : (uint32_t)k * 3u;
#pragma unroll
            for (int r = 0; r < rounds; r++)
#pragma unroll
                for (int q = 0; q < 4; q++) mulbench_mma(c[q], a, b0 + q + 4 * r, b1 ^ r);
        }
        uint32_t t = 0;
#pragma unroll
        for (int q = 0; q < 4; q++) t ^= c[q][0] ^ c[q][1] ^ c[q][2] ^ c[q][3];
        if (t == 0x9e3779b9u && x.v[0] == 0x7f4a7c15u) x.v[1] ^= 1; /* (never, in practice) */
    } else {
#pragma unroll 1
        for (int k = 0; k < iters; k++) {
            x = mulbench_step<F, MODE>(x, y, dfma && MODE < 9);
            w = mulbench_step<F, MODE>(w, y, dfma);
        }
    }
    cz_st(out + 2 * i, x);
    cz_st(out + 2 * i + 1, w);
}

/* *ms = the time of the kernels launch() queues on the legacy stream (CUDA events around it) */
template <class Launch>
static int timed(Launch launch, float *ms) {
    cudaEvent_t a, b;
    CZ_CUDA(cudaEventCreate(&a));
    if (cudaEventCreate(&b) != cudaSuccess) {
        cudaEventDestroy(a);
        return cz_error(CZ_EDEVICE, "cudaEventCreate failed");
    }
    cudaError_t e = cudaEventRecord(a);
    if (e == cudaSuccess) {
        launch();
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaEventRecord(b);
    if (e == cudaSuccess) e = cudaEventSynchronize(b);
    if (e == cudaSuccess) e = cudaEventElapsedTime(ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return e == cudaSuccess ? 0 : cz_error(CZ_EDEVICE, "timed kernels: %s", cudaGetErrorString(e));
}

/* CZ_BENCH_MUL_SMEM=bytes (< 48 KiB; benchmark knob): unused dynamic shared memory a block, to hold every mode at the
 * same blocks an SM (46 KiB: at most 4 of 128 threads, mode 12's count by its registers) */
template <class F, int MODE>
static void mulbench_launch(void *d_out, const void *d_in, size_t n, int iters) {
    const unsigned t = MULBENCH_MIXED(MODE) ? MULBENCH_MIXED_THREADS : 128;
    const char *e = getenv("CZ_BENCH_MUL_SMEM");
    const long sm = e ? atol(e) : 0;
    const size_t smem = sm > 0 && sm < 48 * 1024 ? (size_t)sm : 0;
    mulbench_kernel<F, MODE><<<(unsigned)((n + t - 1) / t), t, smem>>>((F *)d_out, (const F *)d_in, n, iters);
}

/* Fr mode 3: Shoup's product by the constant y of each thread (mul_shoup), the same products as mode 0's x * y;
 * the constant pairs (c = y / R, floor(c 2^256 / r)) come from shoup_prep, outside the timing */
static __global__ void shoup_prep(cz_dfr *cc, const cz_dfr *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr c, cp = cz_dfr::zero();
    cz_ld(in + 3 * i + 2).shoup_const(c, cp);
    cz_st(cc + 2 * i, c);
    cz_st(cc + 2 * i + 1, cp);
}
static __global__ void __launch_bounds__(128) shoup_bench_kernel(cz_dfr *out, const cz_dfr *in, const cz_dfr *cc, size_t n, int iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cz_dfr x = cz_ld(in + 3 * i), w = cz_ld(in + 3 * i + 1);
    const cz_dfr c = cz_ld(cc + 2 * i), cp = cz_ld(cc + 2 * i + 1);
#pragma unroll 1
    for (int k = 0; k < iters; k++) {
        x = x.mul_shoup(c, cp);
        w = w.mul_shoup(c, cp);
    }
    cz_st(out + 2 * i, x);
    cz_st(out + 2 * i + 1, w);
}

template <class F>
static int mulbench(void *d_out, const void *d_in, size_t n, int iters, int mode, float *ms) {
    if constexpr (!std::is_same<F, cz_dfp>::value) {
        if (mode == 3) {
            cz_dfr *cc = nullptr;
            if (int rc = cz_gpu_malloc((void **)&cc, 2 * n * sizeof(cz_dfr))) return rc;
            shoup_prep<<<(unsigned)((n + 127) / 128), 128>>>(cc, (const cz_dfr *)d_in, n);
            cudaError_t e = cudaGetLastError();
            int rc = e == cudaSuccess ? timed([&] { shoup_bench_kernel<<<(unsigned)((n + 127) / 128), 128>>>((cz_dfr *)d_out, (const cz_dfr *)d_in, cc, n, iters); }, ms)
                                      : cz_error(CZ_EDEVICE, "shoup_prep: %s", cudaGetErrorString(e));
            cz_gpu_free(cc);
            return rc;
        }
    }
    return timed(
        [&] {
            if constexpr (!std::is_same<F, cz_dfp>::value) { /* Fr: modes 0..2 (cz_gpu_mul_bench checks) */
                if (mode == 1) mulbench_launch<F, 1>(d_out, d_in, n, iters);
                else if (mode == 2) mulbench_launch<F, 2>(d_out, d_in, n, iters);
                else mulbench_launch<F, 0>(d_out, d_in, n, iters);
            } else {
                switch (mode) {
                case 1: mulbench_launch<F, 1>(d_out, d_in, n, iters); break;
                case 2: mulbench_launch<F, 2>(d_out, d_in, n, iters); break;
                case 3: mulbench_launch<F, 3>(d_out, d_in, n, iters); break;
                case 4: mulbench_launch<F, 4>(d_out, d_in, n, iters); break;
                case 5: mulbench_launch<F, 5>(d_out, d_in, n, iters); break;
                case 6: mulbench_launch<F, 6>(d_out, d_in, n, iters); break;
                case 7: mulbench_launch<F, 7>(d_out, d_in, n, iters); break;
                case 8: mulbench_launch<F, 8>(d_out, d_in, n, iters); break;
                case 9: mulbench_launch<F, 9>(d_out, d_in, n, iters); break;
                case 10: mulbench_launch<F, 10>(d_out, d_in, n, iters); break;
                case 11: mulbench_launch<F, 11>(d_out, d_in, n, iters); break;
                case 12: mulbench_launch<F, 12>(d_out, d_in, n, iters); break;
                case 13: mulbench_launch<F, 13>(d_out, d_in, n, iters); break;
                default: mulbench_launch<F, 0>(d_out, d_in, n, iters); break;
                }
            }
        },
        ms);
}

extern "C" int cz_gpu_mul_bench(int fp, int cios, void *d_out, const void *d_in, size_t n, int iters, float *ms) {
    if (cios < 0 || cios > 13 || (!fp && cios > 3)) return cz_error(CZ_EINVAL, "GPU product benchmark: mode %d (Fr 0..3, Fp 0..13)", cios);
    return fp ? mulbench<cz_dfp>(d_out, d_in, n, iters, cios, ms) : mulbench<cz_dfr>(d_out, d_in, n, iters, cios, ms);
}

/* ---- field inversion check and latency ---- */

/* SERIAL 0: element i inverted by thread i; 1: one thread inverts all n in turn (the latency the
 * batch-affine rounds see, as their inversion runs in one thread) */
template <class F, bool SERIAL>
static __global__ void inv_kernel(F *out, const F *in, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (SERIAL) {
        if (i != 0) return;
        for (size_t k = 0; k < n; k++) cz_st(out + k, cz_fp_inv(cz_ld(in + k)));
    } else if (i < n) {
        cz_st(out + i, cz_fp_inv(cz_ld(in + i)));
    }
}

template <class F>
static int inv_run(void *d_out, const void *d_in, size_t n, int serial, float *ms) {
    return timed(
        [&] {
            if (serial) inv_kernel<F, true><<<1, 32>>>((F *)d_out, (const F *)d_in, n);
            else inv_kernel<F, false><<<(unsigned)((n + 127) / 128), 128>>>((F *)d_out, (const F *)d_in, n);
        },
        ms);
}

extern "C" int cz_gpu_fp_inv_test(int fp2, int serial, void *d_out, const void *d_in, size_t n, float *ms) {
    if (n == 0) return 0;
    return fp2 ? inv_run<cz_dfp2>(d_out, d_in, n, serial, ms) : inv_run<cz_dfp>(d_out, d_in, n, serial, ms);
}

/* ---- the reductions' warp sums, plain and by quads (ec.cuh): check and latency ---- */

/* warp w sums in[w per .. w per + per) (per <= 32) into out[w] */
template <class F, bool QUAD>
static __global__ void warp_sum_kernel(cz_dxyzz<F> *out, const cz_dxyzz<F> *in, size_t n, unsigned per) {
    const size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned lane = threadIdx.x & 31;
    const size_t i = w * per + lane;
    cz_dxyzz<F> a = lane < per && i < n ? cz_ec_ld(in + i) : cz_dxyzz<F>::inf();
    a = QUAD ? cz_ec_warp_sum_quad(a, per) : cz_ec_warp_sum(a);
    if (lane == 0 && w * per < n) cz_ec_st(out + w, a);
}

template <class F>
static int warp_sum_run(int quad, void *d_out, const void *d_in, size_t n, unsigned per, float *ms) {
    const unsigned blocks = (unsigned)((n + (size_t)per * 4 - 1) / ((size_t)per * 4)); /* 4 warps a block */
    return timed(
        [&] {
            if (quad) warp_sum_kernel<F, true><<<blocks, 128>>>((cz_dxyzz<F> *)d_out, (const cz_dxyzz<F> *)d_in, n, per);
            else warp_sum_kernel<F, false><<<blocks, 128>>>((cz_dxyzz<F> *)d_out, (const cz_dxyzz<F> *)d_in, n, per);
        },
        ms);
}

extern "C" int cz_gpu_ec_warp_sum_test(int g2, int quad, void *d_out, const void *d_in, size_t n, unsigned per, float *ms) {
    if (per < 1 || per > 32) return cz_error(CZ_ERANGE, "warp sum of %u lanes (1..32)", per);
    if (n == 0) return 0;
    return g2 ? warp_sum_run<cz_dfp2>(quad, d_out, d_in, n, per, ms) : warp_sum_run<cz_dfp>(quad, d_out, d_in, n, per, ms);
}
