/* cz_bench_upload [GiB (8)]: host -> device copies of a pageable (malloc'd, touched) buffer as the prover's
 * creation makes them for its resident bases: the driver's pageable cudaMemcpy against the pinned-chunk copy
 * (cz_gpu_staged_htod_: 3 page-locked chunks of 64 MiB, up to 8 threads), and page-locking the whole buffer
 * (cudaHostRegister, copy, unregister). Each way's bytes are read back and compared; medians of
 * CZ_BENCH_REPS (3). One line per way: name, GB, median ms, GB/s. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "bench_clock.h"

int main(int argc, char **argv) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    const double gib = argc > 1 ? atof(argv[1]) : 8;
    const size_t bytes = ((size_t)(gib * 1073741824.0) / 96 + 7) * 96; /* whole points, not a chunk multiple */
    const int reps = getenv("CZ_BENCH_REPS") ? atoi(getenv("CZ_BENCH_REPS")) : 3;
    uint8_t *h = malloc(bytes), *back = malloc(bytes);
    void *d = NULL, *s = NULL, *bufs[3] = {0}, *evs[3] = {0};
    const size_t chunk = 64u << 20;
    int rc = !h || !back ? cz_error(CZ_ENOMEM, "host buffers of %zu bytes", bytes) : 0;
    if (!rc) rc = cz_gpu_set_device(0);
    if (!rc) rc = cz_gpu_malloc(&d, bytes);
    if (!rc) rc = cz_gpu_stream_create_(&s);
    for (int i = 0; i < 3 && !rc; i++)
        if (!(rc = cz_gpu_host_alloc(&bufs[i], chunk))) rc = cz_gpu_event_create_(&evs[i]);
    if (rc) {
        fprintf(stderr, "setup: %s\n", cz_error_message());
        return 2;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
        x ^= x >> 29;
        memcpy(h + i * 8, &x, 8);
    }
    int nt = omp_get_max_threads() < 8 ? omp_get_max_threads() : 8;
    static const char *const names[3] = {"pageable cudaMemcpy", "pinned chunks (3 x 64 MiB)", "cudaHostRegister + copy"};
    int bad = 0;
    for (int way = 0; way < 3; way++) {
        double ms[16];
        int n = reps < 1 ? 1 : reps > 16 ? 16 : reps;
        for (int r = 0; r < n && !rc; r++) {
            cz_gpu_memset(d, 0, bytes);
            cz_gpu_sync();
            double t0 = now_ms();
            if (way == 0) rc = cz_gpu_memcpy_htod(d, h, bytes);
            if (way == 1) {
                rc = cz_gpu_staged_htod_(d, h, bytes, bufs, evs, 3, chunk, nt, s);
                if (!rc) rc = cz_gpu_stream_sync_(s);
            }
            if (way == 2) {
                int ok = 0;
                rc = cz_gpu_host_register_(h, bytes, &ok);
                if (!rc) rc = cz_gpu_memcpy_htod(d, h, bytes);
                if (ok) cz_gpu_host_unregister_(h);
            }
            ms[r] = now_ms() - t0;
            if (!rc) rc = cz_gpu_memcpy_dtoh(back, d, bytes);
            if (!rc && memcmp(back, h, bytes)) bad++, fprintf(stderr, "%s: the device bytes differ\n", names[way]);
        }
        if (rc) break;
        qsort(ms, (size_t)n, sizeof *ms, cmp_d);
        printf("upload,%s,%.2f GB,%.1f ms,%.1f GB/s\n", names[way], bytes / 1e9, ms[n / 2], bytes / 1e6 / ms[n / 2]);
        fflush(stdout);
    }
    if (rc) fprintf(stderr, "error: %s\n", cz_error_message());
    printf("upload check: %s\n", rc || bad ? "FAILED" : "ok (every way's bytes equal the host's)");
    return rc || bad ? 1 : 0;
}
