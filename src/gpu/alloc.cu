/* Host-side CUDA plumbing for the partition prover: pinned host memory, memory info, streams, events
 * and asynchronous copies, wrapped so that the C driver (prover.c) needs no CUDA headers. */
#include "gpu/cuda_util.cuh"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"

extern "C" int cz_gpu_host_alloc(void **p, size_t bytes) {
    *p = NULL;
    cudaError_t e = cudaMallocHost(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *p = NULL;
        return cz_error(CZ_ENOMEM, "cudaMallocHost(%zu bytes): %s", bytes, cudaGetErrorString(e));
    }
    return 0;
}

extern "C" void cz_gpu_host_free(void *p) {
    if (p) cudaFreeHost(p);
}

extern "C" int cz_gpu_mem_info(size_t *free_bytes, size_t *total_bytes) {
    CZ_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
    return 0;
}

extern "C" int cz_gpu_current_device_(int *dev) {
    CZ_CUDA(cudaGetDevice(dev));
    return 0;
}

extern "C" int cz_gpu_stream_create_(void **s) {
    cudaStream_t st;
    CZ_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    *s = st;
    return 0;
}

extern "C" void cz_gpu_stream_destroy_(void *s) {
    if (s) cudaStreamDestroy((cudaStream_t)s);
}

extern "C" int cz_gpu_stream_sync_(void *s) {
    CZ_CUDA(cudaStreamSynchronize((cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_event_create_(void **e) {
    cudaEvent_t ev;
    CZ_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    *e = ev;
    return 0;
}

extern "C" void cz_gpu_event_destroy_(void *e) {
    if (e) cudaEventDestroy((cudaEvent_t)e);
}

extern "C" int cz_gpu_event_record_(void *e, void *s) {
    CZ_CUDA(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_event_sync_(void *e) {
    CZ_CUDA(cudaEventSynchronize((cudaEvent_t)e));
    return 0;
}

extern "C" int cz_gpu_stream_wait_(void *s, void *e) {
    CZ_CUDA(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0));
    return 0;
}

extern "C" int cz_gpu_htod_async_(void *dst, const void *src, size_t bytes, void *s) {
    if (bytes) CZ_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_dtoh_async_(void *dst, const void *src, size_t bytes, void *s) {
    if (bytes) CZ_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_memset_async_(void *d, int v, size_t bytes, void *s) {
    if (bytes) CZ_CUDA(cudaMemsetAsync(d, v, bytes, (cudaStream_t)s));
    return 0;
}

extern "C" int cz_gpu_host_is_pinned_(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

extern "C" int cz_gpu_host_register_(void *p, size_t bytes, int *ok) {
    *ok = 0;
    if (!bytes) return 0;
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    if (e == cudaSuccess) {
        *ok = 1;
    } else {
        cudaGetLastError(); /* not fatal: the copy falls back to staged pageable transfers */
    }
    return 0;
}

extern "C" void cz_gpu_host_unregister_(void *p) {
    if (p && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

extern "C" int cz_gpu_dtod_(void *dst, const void *src, size_t bytes) {
    if (bytes) CZ_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return 0;
}
