/* cz_bench_pin_wait [GB (32)] [piece MiB[:gap us] ...]: how long another thread's CUDA calls wait while a streamed
 * prover page-locks its host bases (cz_gpu_host_register_, the registry of host_reg.c), in one piece and in pieces
 * (CZ_GPU_PIN_PIECE). A 32 GiB PoRep's ~56 GB took 1.6-3.6 s to register on an H100 host, and a Winning PoSt built
 * or proved meanwhile waited for it (docs/perf.md, sessions 53, 56 and 57).
 * The buffer is mapped and touched by 8 threads (as the SRS's arrays are filled before a prover pins them). For each
 * piece size (default: the whole buffer in one piece, and 64 MiB, host_reg.c's default), CZ_BENCH_REPS (3) times: a
 * prober thread loops on what a small prover's build or start does (a 64 KiB cudaMalloc, a 4 KiB host -> device
 * copy from page-locked memory, a stream sync, the free) while the main thread registers the buffer; the lines give
 * the registration's time, the probes that ran during it and the longest one, then a host -> device copy of the first
 * 4 GB (across the pieces) with its rate, read back and compared, and the unregistration with the prober's longest
 * call during it; medians of the reps, and the worst probe's steps. A baseline line first: the probes with nothing
 * registered. An argument MiB:US sets the pause between two pieces (CZ_GPU_PIN_GAP_US, default 200; 0: none): without
 * one, the prober's cudaFree waited for the whole registration however small the pieces (session 57). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "../../../bench/bench_util.h"

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct {
    atomic_int stop, started, counting; /* counting: fn runs, the probes count */
    int rc;
    long probes;
    double max_ms, step_ms[4]; /* step_ms: the longest probe's steps (cudaMalloc, the copy, the sync, the free) */
} prober;

static void *probe_loop(void *arg) {
    prober *pb = arg;
    void *s = NULL, *h = NULL;
    int rc = cz_gpu_set_device(0);
    if (!rc) rc = cz_gpu_stream_create_(&s);
    if (!rc) rc = cz_gpu_host_alloc(&h, 4096);
    atomic_store(&pb->started, 1);
    while (!rc && !atomic_load(&pb->stop)) {
        /* a probe counts when it began while fn ran: the one held up by the registration ends after it */
        const int counted = atomic_load(&pb->counting);
        double t[5];
        t[0] = 1e3 * cz_bench_now();
        void *d = NULL;
        rc = cz_gpu_malloc(&d, (size_t)64 << 10);
        t[1] = 1e3 * cz_bench_now();
        if (!rc) rc = cz_gpu_htod_async_(d, h, 4096, s);
        t[2] = 1e3 * cz_bench_now();
        if (!rc) rc = cz_gpu_stream_sync_(s);
        t[3] = 1e3 * cz_bench_now();
        cz_gpu_free(d);
        t[4] = 1e3 * cz_bench_now();
        const double ms = t[4] - t[0];
        if (counted) {
            pb->probes++;
            if (ms > pb->max_ms) {
                pb->max_ms = ms;
                for (int k = 0; k < 4; k++) pb->step_ms[k] = t[k + 1] - t[k];
            }
        }
    }
    if (h) cz_gpu_host_free(h);
    if (s) cz_gpu_stream_destroy_(s);
    pb->rc = rc;
    return NULL;
}

/* fn(arg) timed while a prober runs: its time, the probes during it and the longest probe */
static int with_prober(int (*fn)(void *), void *arg, double *ms, long *probes, double *max_ms, double *steps) {
    prober pb;
    memset(&pb, 0, sizeof pb);
    pthread_t t;
    if (pthread_create(&t, NULL, probe_loop, &pb)) return cz_error(CZ_ENOMEM, "prober thread");
    while (!atomic_load(&pb.started)) sleep_ms(1);
    sleep_ms(20); /* the first probes (the thread's context, its stream) do not count */
    atomic_store(&pb.counting, 1);
    const double t0 = 1e3 * cz_bench_now();
    int rc = fn(arg);
    *ms = 1e3 * cz_bench_now() - t0;
    atomic_store(&pb.counting, 0);
    atomic_store(&pb.stop, 1);
    pthread_join(t, NULL);
    *probes = pb.probes, *max_ms = pb.max_ms;
    if (steps) memcpy(steps, pb.step_ms, sizeof pb.step_ms);
    return rc ? rc : pb.rc;
}

typedef struct {
    void *p;
    size_t bytes;
} buf;

static int reg(void *arg) {
    buf *b = arg;
    int ok = 0;
    int rc = cz_gpu_host_register_(b->p, b->bytes, &ok);
    return rc ? rc : ok ? 0 : cz_error(CZ_EINVAL, "registration of %zu bytes refused", b->bytes);
}

static int unreg(void *arg) {
    cz_gpu_host_unregister_(((buf *)arg)->p);
    return 0;
}

static int idle(void *arg) {
    (void)arg;
    sleep_ms(300);
    return 0;
}

int main(int argc, char **argv) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    const double gb = argc > 1 ? atof(argv[1]) : 32;
    const size_t bytes = (size_t)(gb * 1e9) & ~(size_t)4095;
    const int reps = getenv("CZ_BENCH_REPS") ? atoi(getenv("CZ_BENCH_REPS")) : 3;
    size_t pieces[8];
    long gaps[8]; /* MiB:us: a pause of us between two pieces (CZ_GPU_PIN_GAP_US; -1: its default) */
    int np = 0;
    for (int i = 2; i < argc && np < 8; i++) {
        const char *c = strchr(argv[i], ':');
        gaps[np] = c ? atol(c + 1) : -1;
        pieces[np++] = (size_t)atoll(argv[i]) << 20;
    }
    if (!np) pieces[0] = (size_t)1 << 40, pieces[1] = (size_t)64 << 20, gaps[0] = gaps[1] = -1, np = 2;
    int rc = cz_gpu_set_device(0);
    void *m = rc ? MAP_FAILED : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "cz_bench_pin_wait: no %zu-byte buffer\n", bytes);
        return 1;
    }
    const size_t step = (size_t)2 << 20;
#pragma omp parallel for num_threads(8) schedule(static)
    for (size_t o = 0; o < bytes; o += step) memset((char *)m + o, 1, bytes - o < step ? bytes - o : step);
    printf("cz_bench_pin_wait: %zu bytes, %d reps\n", bytes, reps);
    double ms = 0, mx = 0;
    long pr = 0;
    rc = with_prober(idle, NULL, &ms, &pr, &mx, NULL);
    if (!rc)
        printf("%-22s %8.1f ms  probes %6ld (%.3f ms each)  longest probe %7.2f ms\n", "no registration", ms, pr,
               pr ? ms / pr : 0.0, mx);
    /* after each registration, a copy of the first 4 GB (across pieces: cz_gpu_htod_async_ cuts it at their ends),
     * read back and compared */
    const size_t cb = bytes < ((size_t)4 << 30) ? bytes : (size_t)4 << 30;
    void *d = NULL, *s = NULL;
    uint8_t *back = malloc(cb);
    if (!rc) rc = back ? cz_gpu_malloc(&d, cb) : cz_error(CZ_ENOMEM, "host buffer");
    if (!rc) rc = cz_gpu_stream_create_(&s);
    for (size_t o = 0; o < cb; o += 4096) ((uint8_t *)m)[o] = (uint8_t)(o >> 12);
    buf b = {m, bytes};
    for (int i = 0; i < np && !rc; i++) {
        char v[32];
        snprintf(v, sizeof v, "%zu", pieces[i]);
        setenv("CZ_GPU_PIN_PIECE", v, 1);
        snprintf(v, sizeof v, "%ld", gaps[i]);
        if (gaps[i] >= 0) setenv("CZ_GPU_PIN_GAP_US", v, 1);
        else unsetenv("CZ_GPU_PIN_GAP_US");
        double t_reg[16], t_max[16], t_un[16], n_pr[16], t_cp[16], steps[16][4], u_max[16];
        const int n = reps < 16 ? reps : 16;
        int bad = 0;
        for (int r = 0; r < n && !rc; r++) {
            rc = with_prober(reg, &b, &t_reg[r], &pr, &t_max[r], steps[r]);
            n_pr[r] = (double)pr;
            const double tc = 1e3 * cz_bench_now();
            if (!rc) rc = cz_gpu_htod_async_(d, m, cb, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            t_cp[r] = 1e3 * cz_bench_now() - tc;
            memset(back, 0, cb);
            if (!rc) rc = cz_gpu_dtoh_async_(back, d, cb, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            bad += !rc && memcmp(back, m, cb) != 0;
            long upr = 0;
            if (!rc) rc = with_prober(unreg, &b, &t_un[r], &upr, &u_max[r], NULL);
        }
        if (rc) break;
        char name[64];
        if (pieces[i] >= bytes) snprintf(name, sizeof name, "one piece");
        else if (gaps[i] >= 0) snprintf(name, sizeof name, "pieces of %zu MiB, gap %ld us", pieces[i] >> 20, gaps[i]);
        else snprintf(name, sizeof name, "pieces of %zu MiB, default gap", pieces[i] >> 20);
        int w = 0; /* the rep of the longest probe: its steps */
        for (int r = 1; r < n; r++) w = t_max[r] > t_max[w] ? r : w;
        printf("%-30s register %8.1f ms (%5.1f GB/s)  probes during it %6.0f  longest probe %7.2f ms (worst %.2f: "
               "malloc %.2f copy %.2f sync %.2f free %.2f)  unregister %7.1f ms (longest probe %.2f)  "
               "copy %.1f GB/s %s\n",
               name, cz_bench_median(t_reg, n), bytes / cz_bench_median(t_reg, n) / 1e6, cz_bench_median(n_pr, n),
               cz_bench_median(t_max, n), t_max[w], steps[w][0], steps[w][1], steps[w][2], steps[w][3],
               cz_bench_median(t_un, n), cz_bench_median(u_max, n), cb / cz_bench_median(t_cp, n) / 1e6,
               bad ? "FAILED" : "ok");
        if (bad) rc = cz_error(CZ_EVERIFY, "%s: %d copies differ", name, bad);
    }
    unsetenv("CZ_GPU_PIN_PIECE");
    unsetenv("CZ_GPU_PIN_GAP_US");
    if (rc) fprintf(stderr, "cz_bench_pin_wait: %s\n", cz_error_message());
    cz_gpu_free(d);
    if (s) cz_gpu_stream_destroy_(s);
    free(back);
    munmap(m, bytes);
    return rc ? 1 : 0;
}
