/* Whether this build has kernels for a device (gpu.h cz_gpu_arch_check). A build carries machine code and
 * PTX for the architectures in CZ_CUDA_ARCH (default 90, the H100 / H200). A GPU of an older architecture
 * (sm_80 A100, sm_86 RTX 3090 / A6000, sm_89 RTX 4090 / L40S) finds no kernel it can run (newer ones compile
 * the PTX at first use), and without this check each proof failed at its first launch with "no kernel
 * image is available for execution on the device". Every .cu of cuzk_gpu is compiled for the same
 * architectures, so one kernel here answers for all of them.
 * tests/gpu/test_gpu_arch.c builds this file twice more, for sm_80 only and for sm_90 only, under other names
 * (CZ_ARCH_PROBE_NAME), to see the refusal on a GPU of another architecture. */
#include <stdio.h>

#include "gpu/arch_list.h"
#include "gpu/cuda_util.cuh"
#include "gpu/gpu.h"

#ifndef CZ_ARCH_PROBE_NAME
#define CZ_ARCH_PROBE_NAME cz_gpu_arch_check
#define CZ_ARCH_PROBE_PEEK /* the library's copy also has cz_gpu_peek (the test's renamed copies do not) */
#endif
#ifndef CZ_ARCH_LIST
#define CZ_ARCH_LIST "?"
#endif

static __global__ void arch_probe_kernel(int *p) {
    if (p) *p = 1;
}

/* First from the build's list and the device's compute capability (device queries, no context): a GPU the list
 * rules out is refused without opening it, so it gets no CUDA context from this process (~0.5 GB of its memory
 * for the daemon's life, and a GPU in exclusive-process mode left free for its owner). When the list allows it, or
 * is not understood, the probe kernel's attributes decide (cudaSetDevice opens the device, which is then used). */
extern "C" int CZ_ARCH_PROBE_NAME(int ordinal, char *why, size_t n) {
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal) == cudaSuccess &&
        cz_gpu_arch_list_allows(CZ_ARCH_LIST, major, minor) == 0) {
        cudaDeviceProp p;
        const int named = cudaGetDeviceProperties(&p, ordinal) == cudaSuccess;
        cudaGetLastError();
        snprintf(why, n, "%s is sm_%d%d, and this build has kernels for CZ_CUDA_ARCH=%s only (its list rules the GPU "
                 "out; the GPU was not opened): rebuild with -DCZ_CUDA_ARCH=%d%d", named ? p.name : "the GPU", major,
                 minor, CZ_ARCH_LIST, major, minor);
        return cz_error(CZ_EUNSUPPORTED, "GPU %d: %s", ordinal, why);
    }
    cudaGetLastError();
    cudaError_t e = cudaSetDevice(ordinal);
    cudaFuncAttributes a;
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&a, arch_probe_kernel);
    if (e == cudaSuccess) {
        if (n) why[0] = 0;
        return 0;
    }
    cudaGetLastError(); /* not sticky: the context stays usable */
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, n, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return cz_error(CZ_EDEVICE, "GPU %d: %s", ordinal, why);
    }
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction || e == cudaErrorInvalidPtx ||
        e == cudaErrorUnsupportedPtxVersion) {
        snprintf(why, n, "%s is sm_%d%d, and this build has kernels for CZ_CUDA_ARCH=%s only (%s): rebuild with "
                 "-DCZ_CUDA_ARCH=%d%d", p.name, p.major, p.minor, CZ_ARCH_LIST, cudaGetErrorName(e), p.major, p.minor);
        return cz_error(CZ_EUNSUPPORTED, "GPU %d: %s", ordinal, why);
    }
    snprintf(why, n, "%s (sm_%d%d): %s: %s", p.name, p.major, p.minor, cudaGetErrorName(e), cudaGetErrorString(e));
    return cz_error(CZ_EDEVICE, "GPU %d: %s", ordinal, why);
}

#ifdef CZ_ARCH_PROBE_PEEK
/* Device queries only (cudaGetDeviceProperties opens no context): what `cuzk --check-config` says of a GPU while a
 * daemon may be proving on it. */
extern "C" int cz_gpu_peek(int ordinal, char *desc, size_t dn, char *why, size_t wn) {
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, ordinal);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return cz_error(CZ_EDEVICE, "GPU %d cannot be queried: %s: %s", ordinal, cudaGetErrorName(e),
                        cudaGetErrorString(e));
    }
    snprintf(desc, dn, "%s, %d SMs, %.1f GiB, sm_%d%d", p.name, p.multiProcessorCount,
             p.totalGlobalMem / 1073741824.0, p.major, p.minor);
    if (wn) why[0] = 0;
    if (cz_gpu_arch_list_allows(CZ_ARCH_LIST, p.major, p.minor) != 0) return 0;
    snprintf(why, wn, "this build has kernels for CZ_CUDA_ARCH=%s only: rebuild with -DCZ_CUDA_ARCH=%d%d",
             CZ_ARCH_LIST, p.major, p.minor);
    return CZ_EUNSUPPORTED;
}
#endif
