/* Host-side CUDA plumbing for the partition prover: pinned host memory, memory info, streams, events
 * and asynchronous copies, wrapped so that the C driver (prover.c) needs no CUDA headers. */
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "gpu/cuda_util.cuh"
#include "gpu/gpu.h"
#include "gpu/host_reg.h"
#include "gpu/prover_internal.h"
extern "C" {
#include "util/mem.h"
}

/* Page-locked host memory. From MAP_MIN: anonymous memory on a 2 MiB boundary with transparent huge pages asked for
 * (madvise MADV_HUGEPAGE), faulted in by up to 8 threads, then page-locked with cudaHostRegister. On the H200 host
 * (cz_bench_pin, THP "madvise") a 4.1 GB buffer, a worker's first dense 32 GiB Window PoSt witness, takes 197-214 ms
 * that way against 1,305-1,329 ms with cudaMallocHost, and is freed in 68 against 330-340 ms; copies run at the same
 * 55.5 GB/s. Smaller buffers, or when the mapping or the registration fails, come from cudaMallocHost. */
#define MAP_MIN ((size_t)8 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

struct host_map {
    void *p;     /* what the caller got */
    void *base;  /* the mapping */
    size_t size; /* its length */
};
static std::mutex g_maps_mu;
static std::vector<host_map> g_maps;

/* One write a 4 KiB page (the kernel zeroes each page it faults in), in contiguous slices over up to 8 threads,
 * one a 16 MiB (110 MB, a 32 GiB PoRep witness: 15.7 ms on one thread, 5.7 on 8). */
static void fault_in(char *p, size_t bytes) {
    const size_t per = bytes >> 24;
    const unsigned nt = per >= 8 ? 8 : per ? (unsigned)per : 1;
    const size_t slice = (bytes / nt + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    auto touch = [p, bytes](size_t lo, size_t hi) {
        for (size_t o = lo; o < hi && o < bytes; o += 4096) p[o] = 0;
    };
    std::vector<std::thread> th;
    try {
        for (unsigned t = 1; t < nt; t++) th.emplace_back(touch, t * slice, (t + 1) * slice);
    } catch (...) { /* no threads: this one touches what they would have */
        touch(slice * (th.size() + 1), bytes);
    }
    touch(0, slice);
    for (auto &x : th) x.join();
}

static void *map_locked(size_t bytes, unsigned flags) {
    const size_t size = bytes + HUGE_PAGE;
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)base + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    cz_advise_hugepages(p, bytes); /* advice: without THP the pages are small, and it still works */
    fault_in(p, bytes);
    if (cudaHostRegister(p, bytes, flags) != cudaSuccess) {
        cudaGetLastError();
        munmap(base, size);
        return NULL;
    }
    try {
        std::lock_guard<std::mutex> g(g_maps_mu);
        g_maps.push_back(host_map{p, base, size});
    } catch (...) {
        cudaHostUnregister(p);
        munmap(base, size);
        return NULL;
    }
    return p;
}

extern "C" int cz_gpu_host_alloc(void **p, size_t bytes) {
    *p = NULL;
    if (bytes >= MAP_MIN && (*p = map_locked(bytes, cudaHostRegisterDefault))) return 0;
    cudaError_t e = cudaMallocHost(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *p = NULL;
        return cz_error(CZ_ENOMEM, "cudaMallocHost(%zu bytes): %s", bytes, cudaGetErrorString(e));
    }
    return 0;
}

/* Page-locked host memory that kernels read in place over PCIe (mapped into every device's address space): *p for
 * the host, *d for kernels (the same pointer under unified addressing). Freed with cz_gpu_host_free. */
extern "C" int cz_gpu_host_alloc_mapped_(void **p, void **d, size_t bytes) {
    *p = *d = NULL;
    if (bytes < MAP_MIN || !(*p = map_locked(bytes, cudaHostRegisterMapped | cudaHostRegisterPortable))) {
        cudaError_t e = cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocMapped | cudaHostAllocPortable);
        if (e != cudaSuccess) {
            *p = NULL;
            return cz_error(CZ_ENOMEM, "cudaHostAlloc(%zu bytes, mapped): %s", bytes, cudaGetErrorString(e));
        }
    }
    cudaError_t e = cudaHostGetDevicePointer(d, *p, 0);
    if (e != cudaSuccess) {
        cz_gpu_host_free(*p);
        *p = *d = NULL;
        return cz_error(CZ_ENOMEM, "cudaHostGetDevicePointer: %s", cudaGetErrorString(e));
    }
    return 0;
}

extern "C" void cz_gpu_host_free(void *p) {
    if (!p) return;
    host_map m = {NULL, NULL, 0};
    {
        std::lock_guard<std::mutex> g(g_maps_mu);
        for (size_t i = 0; i < g_maps.size(); i++)
            if (g_maps[i].p == p) {
                m = g_maps[i];
                g_maps[i] = g_maps.back();
                g_maps.pop_back();
                break;
            }
    }
    if (!m.p) {
        cudaFreeHost(p);
        return;
    }
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
    munmap(m.base, m.size);
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

/* host memory we page-locked in pieces is copied piece by piece (cz_copy_by_piece) */
extern "C" int cz_gpu_htod_async_(void *dst, const void *src, size_t bytes, void *s) {
    CZ_CUDA(cz_copy_by_piece(src, bytes, [&](size_t o, size_t n) {
        return cudaMemcpyAsync((char *)dst + o, (const char *)src + o, n, cudaMemcpyHostToDevice, (cudaStream_t)s);
    }));
    return 0;
}

extern "C" int cz_gpu_dtoh_async_(void *dst, const void *src, size_t bytes, void *s) {
    CZ_CUDA(cz_copy_by_piece(dst, bytes, [&](size_t o, size_t n) {
        return cudaMemcpyAsync((char *)dst + o, (const char *)src + o, n, cudaMemcpyDeviceToHost, (cudaStream_t)s);
    }));
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

/* ---- registered host memory (prover.c's host bases, prover_run.c's big pageable parts): host_reg.c keeps who
 * holds each range and pins it in pieces; these are its CUDA calls. The pieces are portable (page-locked for every
 * device's context: the same circuit's provers on other GPUs copy from them) and mapped (the sparse gather reads
 * them in place). CZ_GPU_PIN_PIECE: the piece in bytes (a multiple of 4096; default 64 MiB; one larger than the
 * range, e.g. 1099511627776, pins it in one piece). */
static int pin_cuda(void *p, size_t bytes) {
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped) == cudaSuccess) return 0;
    cudaGetLastError(); /* not fatal: the copies stay pageable */
    return -1;
}

/* Between two pieces: CZ_GPU_PIN_GAP_US microseconds (default 200; 0: none), in which threads waiting for the
 * driver's lock get it (host_reg.c: without it they waited for the whole range) */
static void pin_gap(void) {
    const char *e = getenv("CZ_GPU_PIN_GAP_US");
    const long gap = e && *e ? atol(e) : 200;
    if (gap > 0) {
        struct timespec ts = {gap / 1000000, (gap % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
}

static void unpin_cuda(void *p) {
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

extern "C" void *cz_gpu_host_dev_ptr_(const void *p) {
    void *d = NULL;
    if (!p || cudaHostGetDevicePointer(&d, (void *)p, 0) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return d;
}

static const cz_host_pin_ops g_pin_ops = {pin_cuda, unpin_cuda, cz_gpu_host_is_pinned_, cz_gpu_host_dev_ptr_, pin_gap};

extern "C" int cz_gpu_host_register_(void *p, size_t bytes, int *ok) {
    const char *e = getenv("CZ_GPU_PIN_PIECE");
    const long long v = e && *e ? atoll(e) : 0;
    return cz_host_reg_acquire_(&g_pin_ops, p, bytes, v > 0 ? (size_t)v : 0, ok); /* 0: host_reg's default */
}

extern "C" int cz_gpu_host_register_whole_(void *p, size_t bytes, int *ok) {
    return cz_host_reg_acquire_(&g_pin_ops, p, bytes, CZ_HOST_REG_WHOLE, ok);
}

extern "C" void cz_gpu_host_unregister_(void *p) { cz_host_reg_release_(&g_pin_ops, p); }

extern "C" void *cz_gpu_host_dev_span_(const void *p, size_t bytes) { return cz_host_reg_span_(&g_pin_ops, p, bytes); }

extern "C" int cz_gpu_dtod_(void *dst, const void *src, size_t bytes) {
    if (bytes) CZ_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return 0;
}

/* ---- MSM / batch-add scratch growth (gpu_internal.h) ---- */
#define SCRATCH_DEVICES 16
#define SLACK_MAX ((size_t)64 << 20)
static std::atomic<uint64_t> g_grows[SCRATCH_DEVICES], g_grow_us[SCRATCH_DEVICES];

extern "C" int cz_gpu_scratch_grow_(void **p, size_t *cap, size_t bytes) {
    const auto t0 = std::chrono::steady_clock::now();
    int dev = 0;
    CZ_CUDA(cudaGetDevice(&dev));
    const char *e_slack = getenv("CZ_GPU_SCRATCH_SLACK");
    size_t slack = *p && !(e_slack && *e_slack == '0') ? bytes / 8 : 0; /* grown before: room ahead */
    if (slack > SLACK_MAX) slack = SLACK_MAX;
    if (*p) cudaFree(*p);
    *p = nullptr, *cap = 0;
    cudaError_t e = cudaMalloc(p, bytes + slack);
    if (e == cudaErrorMemoryAllocation && slack) { /* no room for the slack: what was asked */
        cudaGetLastError();
        slack = 0;
        e = cudaMalloc(p, bytes);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *p = nullptr;
        return cz_error(e == cudaErrorMemoryAllocation ? CZ_ENOMEM : CZ_EDEVICE, "GPU scratch of %zu bytes: %s", bytes,
                        cudaGetErrorString(e));
    }
    *cap = bytes + slack;
    if (dev >= 0 && dev < SCRATCH_DEVICES) {
        g_grows[dev]++;
        g_grow_us[dev] += (uint64_t)std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    }
    return 0;
}

extern "C" void cz_gpu_scratch_growth_(int dev, uint64_t *count, double *ms) {
    *count = 0, *ms = 0;
    if (dev < 0 || dev >= SCRATCH_DEVICES) return;
    *count = g_grows[dev].load();
    *ms = g_grow_us[dev].load() / 1e3;
}
