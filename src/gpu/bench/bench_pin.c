/* cz_bench_pin [GiB (4.1)]: what a page-locked host buffer costs to make, as the engine's witness staging makes one
 * per worker (cz_gpu_host_alloc, cudaMallocHost: ~1.9 s on the H200 host for a dense 32 GiB Window PoSt witness of
 * 4.06 GB), against memory that is mapped, touched by 8 threads and then page-locked (cudaHostRegister): with
 * transparent huge pages asked for (madvise MADV_HUGEPAGE) and without. For each: the time to make it, its
 * host -> device copy rate (one cudaMemcpyAsync of the whole buffer, the bytes read back and compared), and the
 * time to free it; last, cz_gpu_host_alloc itself (from 8 MiB the huge-page way since this bench's first run). Medians of CZ_BENCH_REPS (3); one line per way. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "../../../bench/bench_util.h"

/* the CUDA runtime's C entry points (cudart is linked; no CUDA headers in C) */
int cudaMallocHost(void **p, size_t bytes);
int cudaFreeHost(void *p);

/* way 0: cudaMallocHost; 1: mmap + MADV_HUGEPAGE + touch + register; 2: the same with MADV_NOHUGEPAGE; 3:
 * cz_gpu_host_alloc (the library's, what the engine's staging and the prover's chunks use) */
static int make(int way, size_t bytes, void **p) {
    if (way == 0) return cudaMallocHost(p, bytes) ? cz_error(CZ_ENOMEM, "cudaMallocHost") : 0;
    if (way == 3) return cz_gpu_host_alloc(p, bytes);
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return cz_error(CZ_ENOMEM, "mmap of %zu bytes", bytes);
    (void)madvise(m, bytes, way == 1 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const size_t step = (size_t)2 << 20;
#pragma omp parallel for num_threads(8) schedule(static)
    for (size_t o = 0; o < bytes; o += step) memset((char *)m + o, 0, bytes - o < step ? bytes - o : step);
    int ok = 0;
    cz_gpu_host_register_(m, bytes, &ok);
    if (!ok) {
        munmap(m, bytes);
        return cz_error(CZ_EINVAL, "cudaHostRegister of %zu bytes failed", bytes);
    }
    *p = m;
    return 0;
}

static void unmake(int way, void *p, size_t bytes) {
    if (way == 0) {
        cudaFreeHost(p);
        return;
    }
    if (way == 3) {
        cz_gpu_host_free(p);
        return;
    }
    cz_gpu_host_unregister_(p);
    munmap(p, bytes);
}

int main(int argc, char **argv) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    const double gib = argc > 1 ? atof(argv[1]) : 4.1;
    const size_t bytes = (size_t)(gib * 1e9) & ~(size_t)4095;
    const int reps = getenv("CZ_BENCH_REPS") ? atoi(getenv("CZ_BENCH_REPS")) : 3;
    void *d = NULL, *s = NULL;
    uint8_t *back = malloc(bytes);
    int rc = back ? cz_gpu_set_device(0) : cz_error(CZ_ENOMEM, "host buffer");
    if (!rc) rc = cz_gpu_malloc(&d, bytes);
    if (!rc) rc = cz_gpu_stream_create_(&s);
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char thp[128] = "(unknown)";
    if (f) {
        if (!fgets(thp, sizeof thp, f)) snprintf(thp, sizeof thp, "(unreadable)");
        thp[strcspn(thp, "\n")] = 0;
        fclose(f);
    }
    printf("cz_bench_pin: %zu bytes, %d reps, transparent_hugepage: %s\n", bytes, reps, thp);
    static const char *names[4] = {"cudaMallocHost", "mmap+MADV_HUGEPAGE+touch+cudaHostRegister",
                                   "mmap+MADV_NOHUGEPAGE+touch+cudaHostRegister", "cz_gpu_host_alloc"};
    for (int way = 0; way < 4 && !rc; way++) {
        double tm[16], tc[16], tf[16];
        int n = reps < 16 ? reps : 16, bad = 0;
        for (int r = 0; r < n && !rc; r++) {
            void *p = NULL;
            double t0 = 1e3 * cz_bench_now();
            rc = make(way, bytes, &p);
            if (rc) break;
            tm[r] = 1e3 * cz_bench_now() - t0;
            for (size_t i = 0; i < bytes; i += 4096) ((uint8_t *)p)[i] = (uint8_t)(i >> 12 ^ r ^ way);
            t0 = 1e3 * cz_bench_now();
            rc = cz_gpu_htod_async_(d, p, bytes, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            tc[r] = 1e3 * cz_bench_now() - t0;
            if (!rc) rc = cz_gpu_dtoh_async_(back, d, bytes, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            if (!rc && memcmp(back, p, bytes)) bad++;
            t0 = 1e3 * cz_bench_now();
            unmake(way, p, bytes);
            tf[r] = 1e3 * cz_bench_now() - t0;
        }
        if (rc) break;
        const double mm = cz_bench_median(tm, n), mc = cz_bench_median(tc, n), mf = cz_bench_median(tf, n);
        printf("%-44s make %8.1f ms (%5.2f GB/s)  copy %7.1f ms (%5.1f GB/s)  free %7.1f ms  check %s\n", names[way],
               mm, bytes / mm / 1e6, mc, bytes / mc / 1e6, mf, bad ? "FAILED" : "ok");
        if (bad) rc = cz_error(CZ_EVERIFY, "%s: %d copies differ", names[way], bad);
    }
    if (rc) fprintf(stderr, "cz_bench_pin: %s\n", cz_error_message());
    cz_gpu_free(d);
    cz_gpu_stream_destroy_(s);
    free(back);
    return rc ? 1 : 0;
}
