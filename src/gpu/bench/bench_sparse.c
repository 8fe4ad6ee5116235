/* cz_bench_sparse [log2 points (23)]: the ways a streamed prover can move one chunk of G1 query bases (96 B a point)
 * whose scalars are zero at a share of the positions (CZ_BENCH_DENSITY: the share needed, default 0.486, a PoRep
 * witness's nonzero aux share; iid, so the needed points come in runs of ~2):
 *   whole    one DMA of the whole chunk from page-locked memory (what the copy engines do at the link's rate);
 *   gather   cz_gpu_sparse_gather_ (the sparse uploads of prover_sched.c): a kernel reads the needed points from
 *            mapped page-locked memory, with G blocks (CZ_BENCH_GATHER_BLOCKS, default "32 64 128 256");
 *   pack     host threads pack the needed points into a page-locked buffer (T = CZ_BENCH_PACK_THREADS, default
 *            "1 2 4 8"), then one DMA of the packed bytes: each step's time, and the rate of the needed bytes.
 * Every way's needed points are compared with the host's (the gather's in place, the packed ones in order); medians
 * of CZ_BENCH_REPS (5). Lines: way, blocks or threads, ms, GB/s of needed bytes (and of the bytes moved). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "util/rng.h"
#include "bench_clock.h"

#define PT 96 /* bytes a G1 affine point */

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* the needed points of positions [lo, hi) packed at out in order; returns the count */
static size_t pack_range(uint8_t *out, const uint8_t *src, const uint32_t *nz, size_t lo, size_t hi) {
    size_t k = 0;
    for (size_t i = lo; i < hi; i++)
        if (nz[i >> 5] >> (i & 31) & 1) memcpy(out + PT * k++, src + PT * i, PT);
    return k;
}

static size_t count_range(const uint32_t *nz, size_t lo, size_t hi) {
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) k += nz[i >> 5] >> (i & 31) & 1;
    return k;
}

/* T threads, each a contiguous range of positions: counts, their prefix, then each packs at its offset */
static void pack(uint8_t *out, const uint8_t *src, const uint32_t *nz, size_t m, int T) {
    size_t cnt[65] = {0};
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const size_t lo = m * t / nt, hi = m * (t + 1) / nt;
        cnt[t + 1] = count_range(nz, lo, hi);
#pragma omp barrier
#pragma omp single
        for (int i = 0; i < nt; i++) cnt[i + 1] += cnt[i];
        pack_range(out + PT * cnt[t], src, nz, lo, hi);
    }
}

static int parse_list(const char *s, int *v, int max) {
    int n = 0;
    while (s && *s && n < max) {
        char *e;
        long x = strtol(s, &e, 10);
        if (e == s) break;
        if (x > 0) v[n++] = (int)x;
        s = e;
    }
    return n;
}

int main(int argc, char **argv) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    const int lg = argc > 1 ? atoi(argv[1]) : 23;
    if (lg < 10 || lg > 26) {
        fprintf(stderr, "usage: cz_bench_sparse [log2 points, 10..26]\n");
        return 2;
    }
    const size_t m = (size_t)1 << lg, bytes = m * PT, nw = (m + 31) / 32;
    const double dens = getenv("CZ_BENCH_DENSITY") ? atof(getenv("CZ_BENCH_DENSITY")) : 0.486;
    int reps = getenv("CZ_BENCH_REPS") ? atoi(getenv("CZ_BENCH_REPS")) : 5;
    reps = reps < 1 ? 1 : reps > 32 ? 32 : reps;
    int blocks[8], threads[8];
    int nb = parse_list(getenv("CZ_BENCH_GATHER_BLOCKS") ? getenv("CZ_BENCH_GATHER_BLOCKS") : "32 64 128 256", blocks, 8);
    int nt = parse_list(getenv("CZ_BENCH_PACK_THREADS") ? getenv("CZ_BENCH_PACK_THREADS") : "1 2 4 8", threads, 8);
    void *h = NULL, *hd = NULL, *packed = NULL, *d = NULL, *dnz = NULL, *dcnt = NULL, *s = NULL;
    uint32_t *nz = calloc(nw, 4);
    uint8_t *back = malloc(bytes);
    int rc = !nz || !back ? cz_error(CZ_ENOMEM, "host buffers of %zu bytes", bytes) : 0;
    if (!rc) rc = cz_gpu_set_device(0);
    if (!rc) rc = cz_gpu_host_alloc_mapped_(&h, &hd, bytes);
    if (!rc) rc = cz_gpu_host_alloc(&packed, bytes);
    if (!rc) rc = cz_gpu_malloc(&d, bytes);
    if (!rc) rc = cz_gpu_malloc(&dnz, nw * 4);
    if (!rc) rc = cz_gpu_malloc(&dcnt, 8);
    if (!rc) rc = cz_gpu_stream_create_(&s);
    if (rc) {
        fprintf(stderr, "setup: %s\n", cz_error_message());
        return 2;
    }
    uint8_t *hb = h;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
        x ^= x >> 29;
        memcpy(hb + i * 8, &x, 8);
    }
    cz_rng rng; /* a fresh bitmap each run */
    if (cz_rng_seed_os(&rng)) cz_rng_seed(&rng, (uint64_t)time(NULL));
    size_t need = 0;
    for (size_t i = 0; i < m; i++)
        if ((double)(cz_rng_next(&rng) >> 11) / 9007199254740992.0 < dens) nz[i >> 5] |= 1u << (i & 31), need++;
    const double nb_gb = need * (double)PT / 1e9;
    rc = cz_gpu_memcpy_htod(dnz, nz, nw * 4);
    printf("sparse bench: 2^%d points (%.3f GB), %zu needed (%.1f %%, %.3f GB); reps %d\n", lg, bytes / 1e9, need,
           100.0 * need / m, nb_gb, reps);
    int bad = 0;
    double ms[32];
    /* whole: one DMA */
    for (int i = 0; i < reps && !rc; i++) {
        const double t0 = now_ms();
        rc = cz_gpu_htod_async_(d, h, bytes, s);
        if (!rc) rc = cz_gpu_stream_sync_(s);
        ms[i] = now_ms() - t0;
    }
    if (!rc) {
        const double t = median(ms, reps);
        printf("sparse,whole,-,%.2f ms,%.1f GB/s needed,%.1f GB/s moved\n", t, nb_gb * 1e3 / t, bytes / 1e6 / t);
    }
    /* gather */
    for (int g = 0; g < nb && !rc; g++) {
        for (int i = 0; i < reps && !rc; i++) {
            rc = cz_gpu_memset(d, 0, bytes);
            if (!rc) rc = cz_gpu_memset(dcnt, 0, 8);
            if (!rc) rc = cz_gpu_sync();
            const double t0 = now_ms();
            if (!rc)
                rc = cz_gpu_sparse_gather_(d, hd, PT, NULL, 0, m, dnz, 0, (unsigned)blocks[g], (unsigned long long *)dcnt, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            ms[i] = now_ms() - t0;
        }
        unsigned long long got = 0;
        if (!rc) rc = cz_gpu_memcpy_dtoh(&got, dcnt, 8);
        if (!rc) rc = cz_gpu_memcpy_dtoh(back, d, bytes);
        size_t diff = 0;
        for (size_t i = 0; !rc && i < m; i++)
            if ((nz[i >> 5] >> (i & 31) & 1) && memcmp(back + PT * i, hb + PT * i, PT)) diff++;
        if (got != need || diff) bad++, fprintf(stderr, "gather %d blocks: %llu points counted (%zu needed), %zu differ\n",
                                                blocks[g], got, need, diff);
        if (!rc) {
            const double t = median(ms, reps);
            printf("sparse,gather,%d blocks,%.2f ms,%.1f GB/s needed\n", blocks[g], t, nb_gb * 1e3 / t);
        }
    }
    /* pack on the host, then one DMA of the packed points */
    for (int k = 0; k < nt && !rc; k++) {
        double pk[32], up[32];
        for (int i = 0; i < reps && !rc; i++) {
            const double t0 = now_ms();
            pack(packed, hb, nz, m, threads[k] > 64 ? 64 : threads[k]);
            const double t1 = now_ms();
            rc = cz_gpu_htod_async_(d, packed, need * PT, s);
            if (!rc) rc = cz_gpu_stream_sync_(s);
            pk[i] = t1 - t0, up[i] = now_ms() - t1, ms[i] = pk[i] + up[i];
        }
        if (!rc) rc = cz_gpu_memcpy_dtoh(back, d, need * PT);
        size_t diff = 0, j = 0;
        for (size_t i = 0; !rc && i < m; i++)
            if (nz[i >> 5] >> (i & 31) & 1) diff += memcmp(back + PT * j++, hb + PT * i, PT) != 0;
        if (diff) bad++, fprintf(stderr, "pack %d threads: %zu points differ\n", threads[k], diff);
        if (!rc) {
            const double p = median(pk, reps), u = median(up, reps), t = median(ms, reps);
            printf("sparse,pack,%d threads,%.2f ms (pack %.2f + DMA %.2f),%.1f GB/s needed (pack alone %.1f, DMA alone %.1f)\n",
                   threads[k], t, p, u, nb_gb * 1e3 / t, nb_gb * 1e3 / p, nb_gb * 1e3 / u);
        }
    }
    if (rc) fprintf(stderr, "error: %s\n", cz_error_message());
    printf("sparse check: %s\n", rc || bad ? "FAILED" : "ok (every way's needed points equal the host's)");
    return rc || bad ? 1 : 0;
}
