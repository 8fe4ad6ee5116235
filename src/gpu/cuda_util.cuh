/* CUDA error plumbing for the backend: every runtime call and launch is checked and turned into a
 * CZ_EDEVICE status with a cz_error() message naming the call. */
#ifndef CZ_GPU_CUDA_UTIL_CUH
#define CZ_GPU_CUDA_UTIL_CUH

#include <cuda_runtime.h>

extern "C" {
#include "cz_error.h"
#include "gpu/host_reg.h"
}

/* A failed call's error is reported here and taken (cudaGetLastError: a non-sticky one would otherwise fail the
 * thread's next launch check, far from its cause; a sticky one stays, and cz_gpu_device_check finds it). Out of
 * memory, from an allocation or a launch (a kernel's resources on a full device: B_G2's batch addition under a 1 GiB
 * margin on an H100, session 72), is CZ_ENOMEM, which the engine answers by freeing the device's scratch and trying
 * the partition once more; anything else is CZ_EDEVICE. */
#define CZ_CUDA(call)                                                                                      \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) {                                                                           \
            (void)cudaGetLastError();                                                                      \
            return cz_error(e_ == cudaErrorMemoryAllocation ? CZ_ENOMEM : CZ_EDEVICE, "%s:%d: %s: %s",     \
                            __FILE__, __LINE__, #call, cudaGetErrorString(e_));                            \
        }                                                                                                  \
    } while (0)

/* After a launch: configuration errors show up here; execution errors at the next sync. */
#define CZ_CUDA_LAUNCHED() CZ_CUDA(cudaGetLastError())

/* A copy of `bytes` to or from host memory at `host`, as copy(offset, n) calls cut at the ends of the pieces we
 * page-locked it in (host_reg.c cz_host_reg_cut_: without the cut, test_gpu_prover_stream's shared bases in 4 KiB
 * pieces failed on an H100 with an invalid argument, session 56; with it they pass, session 57); the first
 * failure's error. */
template <class F>
static inline cudaError_t cz_copy_by_piece(const void *host, size_t bytes, F copy) {
    for (size_t o = 0, n; o < bytes; o += n) {
        n = cz_host_reg_cut_((const char *)host + o, bytes - o);
        const cudaError_t e = copy(o, n);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

#endif
