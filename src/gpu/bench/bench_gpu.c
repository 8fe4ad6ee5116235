/* GPU benchmark: first checks correctness on fresh random data at large sizes (every element against
 * src/poly's CPU NTT at 2^24 and at the largest size; GPU round trips there; the H pipeline against the same
 * steps through the checked natural-order API at 2^24 and the largest size), then times the NTT kinds and
 * the H pipeline (both ways) at several sizes with
 * CUDA events (1 warm-up, median of CZ_BENCH_REPS runs, default 7) and prints a table last, with
 * sppark's figure on the same GPU (research/anchors-measured.md) and the ratio ours/sppark.
 * Also: Fr/Fp product throughput (carry-chain vs naive CIOS, outputs compared), G1 batch addition and
 * MSM (checked vs src/ec/msm.c at 2^24), G2 batch addition and MSM up to 2^24 (checked at 2^18).
 * Usage: cz_bench_gpu [max_log_n (27)]
 * Environment: CZ_BENCH_REPS; CZ_BENCH_NO_G1 / CZ_BENCH_NO_G2 skip those parts; CZ_BENCH_NTT_ONLY (products
 * and NTT timings, no checks) and CZ_BENCH_G1_ONLY (batch add 2^26 and MSM 2^max, no checks unless
 * CZ_BENCH_G1_CHECK), CZ_BENCH_G2_ONLY (the G2 part alone), CZ_GPU_NTT_KERNEL=0 (the old NTT pass kernel; a run
 * of the default kernel 2 also compares it with kernel 0 at 2^24 and the largest size, every kind and H, element
 * by element), for quick A/B
 * runs of the library's knobs: CZ_GPU_MSM_PROFILE (MSM phase times on stderr), CZ_GPU_MSM_C (window
 * bits), CZ_GPU_BA_THREADS;
 * CZ_BENCH_G2_LOGS="26 27" (the G2 sizes timed, default "20 22 24");
 * CZ_BENCH_BA_ONLY (the batch additions alone, checked, then timed under each CZ_BENCH_BA_VARIANTS).
 * G1 MSM A/B in one process: CZ_BENCH_MSM_LOGS="24 26 27" (the MSM sizes timed with CZ_BENCH_G1_ONLY; default
 * the largest), CZ_BENCH_NO_BA (no batch-add timings), CZ_BENCH_MSM_REPS (default 3 from 2^26),
 * CZ_BENCH_MSM_AB="VAR=V,VAR=V;VAR=V" (up to 3 variants, each MSM size timed again under each, e.g.
 * "CZ_GPU_MSM_AFF_CHUNK_LOG=26,CZ_GPU_MSM_OVERLAP=0" for the previous defaults; reps interleaved). */
#define _POSIX_C_SOURCE 200809L /* setenv, strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "ff/fp.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "gpu_ref.h"
#include "util/rng.h"

static const char *kind_name[4] = {"forward", "inverse", "coset_fwd", "coset_inv"};

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

#define DIE_IF(rc, what)                                                              \
    do {                                                                              \
        if (rc) {                                                                     \
            fprintf(stderr, "FAIL: %s: %s\n", what, cz_error_message());              \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static int failures;

/* Every element of a GPU transform of 2^log_n random elements against the CPU reference. */
static void check_vs_cpu(unsigned log_n, int kind, uint64_t seed) {
    size_t n = (size_t)1 << log_n, first;
    cz_fr *in = malloc(n * sizeof(cz_fr)), *out = malloc(n * sizeof(cz_fr)), *d;
    cz_gpu_ntt *plan;
    DIE_IF(cz_gpu_ntt_create(&plan, log_n), "plan");
    DIE_IF(cz_gpu_malloc((void **)&d, n * sizeof(cz_fr)), "malloc");
    DIE_IF(cz_gpu_fr_random(d, n, seed), "random");
    DIE_IF(cz_gpu_memcpy_dtoh(in, d, n * sizeof(cz_fr)), "dtoh");
    DIE_IF(cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)kind, NULL), "ntt");
    DIE_IF(cz_gpu_sync(), "sync");
    memset(out, 0xa5, n * sizeof(cz_fr));
    DIE_IF(cz_gpu_memcpy_dtoh(out, d, n * sizeof(cz_fr)), "dtoh");
    time_t t0 = time(NULL);
    DIE_IF(cpu_ntt(in, log_n, kind), "cpu ntt");
    size_t bad = ref_count_diff(out, in, n, &first);
    printf("check %-9s 2^%u vs CPU cz_ntt: %s (%zu of %zu differ; CPU %lds)\n", kind_name[kind], log_n,
           bad ? "FAIL" : "ok", bad, n, (long)(time(NULL) - t0));
    if (bad) failures++;
    cz_gpu_free(d);
    cz_gpu_ntt_destroy(plan);
    free(in);
    free(out);
}

/* forward then inverse (and coset pair) of device-generated data at 2^log_n bring the input back. */
static void check_round_trip(unsigned log_n, uint64_t seed) {
    size_t n = (size_t)1 << log_n, first;
    cz_fr *in = malloc(n * sizeof(cz_fr)), *out = malloc(n * sizeof(cz_fr)), *d;
    cz_gpu_ntt *plan;
    DIE_IF(cz_gpu_ntt_create(&plan, log_n), "plan");
    DIE_IF(cz_gpu_malloc((void **)&d, n * sizeof(cz_fr)), "malloc");
    DIE_IF(cz_gpu_fr_random(d, n, seed), "random");
    DIE_IF(cz_gpu_memcpy_dtoh(in, d, n * sizeof(cz_fr)), "dtoh");
    for (int pair = 0; pair < 2; pair++) {
        DIE_IF(cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)(2 * pair), NULL), "ntt");
        DIE_IF(cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)(2 * pair + 1), NULL), "ntt");
        DIE_IF(cz_gpu_sync(), "sync");
        memset(out, 0xa5, n * sizeof(cz_fr));
        DIE_IF(cz_gpu_memcpy_dtoh(out, d, n * sizeof(cz_fr)), "dtoh");
        size_t bad = ref_count_diff(out, in, n, &first);
        printf("check %s round trip 2^%u on the GPU: %s (%zu differ)\n", pair ? "coset" : "plain", log_n,
               bad ? "FAIL" : "ok", bad);
        if (bad) failures++;
    }
    cz_gpu_free(d);
    cz_gpu_ntt_destroy(plan);
    free(in);
    free(out);
}

/* The selected pass kernel (CZ_GPU_NTT_KERNEL, default 2: registers + shuffles) against kernel 0 (shared-memory
 * stages, checked against the CPU at 2^27 by earlier entries of docs/perf.md) at 2^log_n, every kind, every
 * element, fresh device-random input; also the H pipeline. GPU against GPU, so it is cheap enough for
 * CZ_BENCH_NTT_ONLY runs. */
static void check_kernels(unsigned log_n, uint64_t seed) {
    size_t n = (size_t)1 << log_n, bytes = n * sizeof(cz_fr), first;
    cz_gpu_ntt *plan[2];
    const char *old = getenv("CZ_GPU_NTT_KERNEL");
    char keep[8] = "";
    if (old) snprintf(keep, sizeof keep, "%s", old);
    DIE_IF(cz_gpu_ntt_create(&plan[1], log_n), "plan");
    setenv("CZ_GPU_NTT_KERNEL", "0", 1);
    DIE_IF(cz_gpu_ntt_create(&plan[0], log_n), "plan");
    if (old) setenv("CZ_GPU_NTT_KERNEL", keep, 1);
    else unsetenv("CZ_GPU_NTT_KERNEL");
    cz_fr *d[3], *out[2];
    for (int k = 0; k < 3; k++) DIE_IF(cz_gpu_malloc((void **)&d[k], bytes), "malloc");
    for (int k = 0; k < 2; k++) DIE_IF((out[k] = malloc(bytes)) == NULL, "host malloc");
    for (int kind = 0; kind < 5; kind++) { /* 4 = the H pipeline */
        for (int k = 0; k < 2; k++) {
            for (int v = 0; v < (kind == 4 ? 3 : 1); v++) DIE_IF(cz_gpu_fr_random(d[v], n, seed + 10 * kind + v), "random");
            if (kind == 4) DIE_IF(cz_gpu_groth16_h(plan[k], log_n, d[0], d[1], d[2], NULL), "h");
            else DIE_IF(cz_gpu_ntt_run(plan[k], d[0], (cz_gpu_ntt_kind)kind, NULL), "ntt");
            DIE_IF(cz_gpu_sync(), "sync");
            memset(out[k], 0xa5, bytes);
            DIE_IF(cz_gpu_memcpy_dtoh(out[k], d[0], bytes), "dtoh");
        }
        size_t bad = ref_count_diff(out[1], out[0], n, &first);
        printf("check %-9s 2^%u kernel %s vs kernel 0: %s (%zu of %zu differ)\n", kind < 4 ? kind_name[kind] : "H",
               log_n, old ? keep : "2", bad ? "FAIL" : "ok", bad, n);
        if (bad) failures++;
    }
    for (int k = 0; k < 3; k++) cz_gpu_free(d[k]);
    for (int k = 0; k < 2; k++) {
        free(out[k]);
        cz_gpu_ntt_destroy(plan[k]);
    }
}

/* The H pipeline the old way: natural-order API transforms around the natural pointwise step. */
static int h_via_api(cz_gpu_ntt *plan, size_t n, cz_fr **d, const cz_fr *zinv) {
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_ntt_run(plan, d[k], CZ_GPU_NTT_INVERSE, NULL);
    for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_ntt_run(plan, d[k], CZ_GPU_NTT_COSET_FORWARD, NULL);
    if (!rc) rc = cz_gpu_h_pointwise_(d[0], d[1], d[2], n, zinv, NULL);
    if (!rc) rc = cz_gpu_ntt_run(plan, d[0], CZ_GPU_NTT_COSET_INVERSE, NULL);
    return rc;
}

/* H pipeline at 2^log_n (7 NTTs + pointwise on device-random a, b, c): with check, cz_gpu_groth16_h (the
 * order-agnostic transforms) against h_via_api (the API, checked against the CPU above) element by element;
 * then both timed, median of reps, rows appended to the table. */
static size_t h_bench(char *table, size_t tl, size_t cap, unsigned log_n, uint64_t seed, int reps, int check,
                      cz_gpu_timer *tm) {
    size_t n = (size_t)1 << log_n, bytes = n * sizeof(cz_fr), first;
    cz_fr *d[3], *h[3] = {NULL, NULL, NULL}, *out = NULL;
    cz_gpu_ntt *plan;
    cz_domain dom;
    DIE_IF(cz_gpu_ntt_create(&plan, log_n), "plan");
    DIE_IF(cz_domain_init(&dom, log_n), "domain");
    cz_fr z = dom.g, zinv;
    for (unsigned i = 0; i < log_n; i++) cz_fr_sqr(&z, &z);
    cz_fr_sub(&z, &z, &CZ_FR_ONE_V);
    DIE_IF(cz_fr_inv(&zinv, &z), "zinv");
    for (int k = 0; k < 3; k++) {
        DIE_IF(cz_gpu_malloc((void **)&d[k], bytes), "malloc");
        DIE_IF(cz_gpu_fr_random(d[k], n, seed + 300 + k), "random");
        if (check) {
            h[k] = malloc(bytes);
            DIE_IF(h[k] == NULL, "host malloc");
            DIE_IF(cz_gpu_memcpy_dtoh(h[k], d[k], bytes), "dtoh");
        }
    }
    if (check) {
        out = malloc(bytes);
        DIE_IF(out == NULL, "host malloc");
        DIE_IF(cz_gpu_groth16_h(plan, log_n, d[0], d[1], d[2], NULL), "h");
        DIE_IF(cz_gpu_sync(), "sync");
        DIE_IF(cz_gpu_memcpy_dtoh(out, d[0], bytes), "dtoh");
        for (int k = 0; k < 3; k++) DIE_IF(cz_gpu_memcpy_htod(d[k], h[k], bytes), "htod");
        DIE_IF(h_via_api(plan, n, d, &zinv), "h api");
        DIE_IF(cz_gpu_sync(), "sync");
        memset(h[0], 0xa5, bytes);
        DIE_IF(cz_gpu_memcpy_dtoh(h[0], d[0], bytes), "dtoh");
        size_t bad = ref_count_diff(out, h[0], n, &first);
        printf("check H pipeline 2^%u vs the natural-order API: %s (%zu of %zu differ)\n", log_n, bad ? "FAIL" : "ok",
               bad, n);
        if (bad) failures++;
    }
    for (int way = 0; way < 2; way++) {
        float ms[100];
        for (int r = -1; r < reps; r++) {
            if (r >= 0) DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
            DIE_IF(way ? h_via_api(plan, n, d, &zinv) : cz_gpu_groth16_h(plan, log_n, d[0], d[1], d[2], NULL), "h");
            if (r >= 0) DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
        }
        qsort(ms, reps, sizeof(float), cmp_float);
        const char *seven = getenv("CZ_GPU_H_SEVEN"); /* cz_gpu_groth16_h: 6 NTTs unless CZ_GPU_H_SEVEN=1 */
        tl += snprintf(table + tl, cap - tl, "| H pipeline (%s NTT + pointwise)%s | 2^%u | %.3f | %.3f | - | - |\n",
                       way || (seven && atoi(seven) == 1) ? "7" : "6", way ? ", via the natural-order API" : "", log_n,
                       ms[reps / 2], ms[0]);
    }
    { /* the Lagrange-form H query's NTT side (cz_gpu_groth16_y: 4 NTTs + pointwise), for the same size */
        float ms[100];
        for (int r = -1; r < reps; r++) {
            if (r >= 0) DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
            DIE_IF(cz_gpu_groth16_y(plan, log_n, d[0], d[1], NULL), "y");
            if (r >= 0) DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
        }
        qsort(ms, reps, sizeof(float), cmp_float);
        tl += snprintf(table + tl, cap - tl, "| y = A_coset B_coset (4 NTT + pointwise, Lagrange-form H) | 2^%u | %.3f | %.3f | - | - |\n",
                       log_n, ms[reps / 2], ms[0]);
    }
    for (int k = 0; k < 3; k++) {
        cz_gpu_free(d[k]);
        free(h[k]);
    }
    free(out);
    cz_gpu_ntt_destroy(plan);
    return tl;
}

/* sppark on the same H200 (anchors-measured.md): forward NR 2^24/2^26/2^27, coset inverse 2^27 */
static double sppark_ms(unsigned log_n, int kind) {
    if (kind == 0 && log_n == 24) return 4.43;
    if (kind == 0 && log_n == 26) return 20.92;
    if (kind == 0 && log_n == 27) return 42.31;
    if (kind == 3 && log_n == 27) return 48.95;
    return 0;
}

/* ---- G1: bases = a pool of distinct random points tiled (as the sppark anchors did) ---- */
#define G1_POOL (1u << 16)

static cz_g1_affine *g1_pool(uint64_t seed) {
    cz_g1_affine *pool = malloc(G1_POOL * sizeof *pool);
#pragma omp parallel
    {
        cz_rng r;
        cz_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(omp_get_thread_num() + 1)));
#pragma omp for schedule(static)
        for (unsigned i = 0; i < G1_POOL; i++) cz_g1_random(&pool[i], &r);
    }
    return pool;
}

static double median_ms(float *ms, int reps) {
    qsort(ms, reps, sizeof(float), cmp_float);
    return ms[reps / 2];
}

/* Device inputs of the G1 / G2 benches: nmax bases tiled from the pool (elem bytes each), random scalars
 * (seed_sc) and a random bitmap (seed_bm; its host copy in *bm_out, malloc'ed). */
static void bench_inputs(void **d_bases, cz_fr **d_sc, uint64_t **d_bm, uint64_t **bm_out, const void *pool,
                         unsigned pool_n, size_t elem, size_t nmax, uint64_t seed_sc, uint64_t seed_bm) {
    const size_t nw = nmax / 64 + 1;
    DIE_IF(cz_gpu_malloc(d_bases, nmax * elem), "malloc bases");
    DIE_IF(cz_gpu_malloc((void **)d_sc, nmax * sizeof(cz_fr)), "malloc scalars");
    DIE_IF(cz_gpu_malloc((void **)d_bm, nw * sizeof(uint64_t)), "malloc bitmap");
    for (size_t off = 0; off < nmax; off += pool_n) {
        size_t m = nmax - off < pool_n ? nmax - off : pool_n;
        DIE_IF(cz_gpu_memcpy_htod((char *)*d_bases + off * elem, pool, m * elem), "bases");
    }
    DIE_IF(cz_gpu_fr_random(*d_sc, nmax, seed_sc), "scalars");
    uint64_t *bm = malloc(nw * sizeof(uint64_t));
    cz_rng rng;
    cz_rng_seed(&rng, seed_bm);
    for (size_t w = 0; w < nw; w++) bm[w] = cz_rng_next(&rng);
    DIE_IF(cz_gpu_memcpy_htod(*d_bm, bm, nw * sizeof(uint64_t)), "bitmap");
    *bm_out = bm;
}

/* A copy of n bases (G2 when g2) with their pair sums after them (gpu.h cz_gpu_g1_pair_sums), the sums' build time
 * in *build_ms; NULL (said) when the copy does not fit. */
static void *pairs_copy(int g2, const void *d_bases, size_t n, cz_gpu_timer *tm, float *build_ms) {
    const size_t elem = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    void *dp = NULL;
    if (cz_gpu_malloc(&dp, (n + n / 2) * elem)) {
        printf("pair sums at 2^%d: no room for the copy (%s)\n", __builtin_ctzll(n), cz_error_message());
        return NULL;
    }
    DIE_IF(cz_gpu_dtod_(dp, d_bases, n * elem), "copy the bases");
    DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
    DIE_IF(g2 ? cz_gpu_g2_pair_sums(dp, n, NULL) : cz_gpu_g1_pair_sums(dp, n, NULL), "pair sums");
    DIE_IF(cz_gpu_timer_stop(tm, NULL, build_ms), "timer");
    return dp;
}

/* The batch addition of n bases (elem bytes each; G2 when g2) with their pair sums (gpu.h cz_gpu_g1_pair_sums): a
 * copy of the bases with room after them, the sums' build timed once, the result against ref (the plain batch
 * addition's, itself checked against the CPU) and the median of reps into a table row beside the plain one's
 * median (plain_ms); no row where the copy does not fit. */
static size_t pairs_row(char *table, size_t tl, size_t cap, int g2, const void *d_bases, const uint64_t *d_bm, size_t n,
                        int reps, cz_gpu_timer *tm, const void *ref, double plain_ms) {
    float ms[100], build = 0;
    void *dp = pairs_copy(g2, d_bases, n, tm, &build);
    if (!dp) return tl;
    cz_g1_jac r1;
    cz_g2_jac r2;
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, checked */
        if (r >= 0) DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
        DIE_IF(g2 ? cz_gpu_g2_batch_add_pairs(&r2, dp, d_bm, n, NULL) : cz_gpu_g1_batch_add_pairs(&r1, dp, d_bm, n, NULL),
               "batch add with pair sums");
        if (r >= 0) DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
        if (r < 0) {
            const int ok = g2 ? cz_g2_jac_equal(&r2, ref) : cz_g1_jac_equal(&r1, ref);
            printf("check %s batch add 2^%d (~50%%) with pair sums vs without: %s\n", g2 ? "G2" : "G1", __builtin_ctzll(n),
                   ok ? "ok" : "FAIL");
            failures += !ok;
        }
    }
    const double med = median_ms(ms, reps);
    tl += snprintf(table + tl, cap - tl, "| %s batch add ~50%% with pair sums (built in %.3f ms) | 2^%d | %.3f | %.3f | - | %.3f of without |\n",
                   g2 ? "G2" : "G1", build, __builtin_ctzll(n), med, ms[0], med / plain_ms);
    cz_gpu_free(dp);
    return tl;
}

static size_t g1_bench(char *table, size_t tl, size_t cap, unsigned max_log, uint64_t seed, int reps) {
    unsigned chk_log = max_log < 24 ? max_log : 24;
    size_t nmax = (size_t)1 << max_log, nchk = (size_t)1 << chk_log;
    time_t t0 = time(NULL);
    cz_g1_affine *pool = g1_pool(seed);
    printf("G1 pool of %u random points: %ld s\n", G1_POOL, (long)(time(NULL) - t0));
    cz_g1_affine *d_bases;
    cz_fr *d_sc;
    uint64_t *d_bm, *bm;
    bench_inputs((void **)&d_bases, &d_sc, &d_bm, &bm, pool, G1_POOL, sizeof(cz_g1_affine), nmax, seed + 7, seed + 9);

    /* CZ_BENCH_G1_ONLY (set by hand for A/B timing of the CZ_GPU_* knobs): no checks (unless
     * CZ_BENCH_G1_CHECK is set too), batch add at 2^26 and the MSM at the largest size only */
    const int quick = getenv("CZ_BENCH_G1_ONLY") != NULL;
    cz_g1_jac cpu, gpu;
    if (quick && !getenv("CZ_BENCH_G1_CHECK")) goto timing;
    /* correctness at 2^chk_log against the CPU (src/ec/msm.c) */
    cz_g1_affine *hb = malloc(nchk * sizeof *hb);
    cz_fr *hs = malloc(nchk * sizeof *hs);
    for (size_t i = 0; i < nchk; i++) hb[i] = pool[i % G1_POOL];
    DIE_IF(cz_gpu_memcpy_dtoh(hs, d_sc, nchk * sizeof(cz_fr)), "dtoh scalars");
    t0 = time(NULL);
    cz_g1_batch_add(&cpu, hb, bm, nchk, 0);
    memset(&gpu, 0xa5, sizeof gpu);
    DIE_IF(cz_gpu_g1_batch_add(&gpu, d_bases, d_bm, nchk, NULL), "gpu batch add");
    int ok = cz_g1_jac_equal(&cpu, &gpu);
    printf("check G1 batch add 2^%u (~50%%) vs CPU: %s (CPU %ld s)\n", chk_log, ok ? "ok" : "FAIL", (long)(time(NULL) - t0));
    failures += !ok;
    t0 = time(NULL);
    cz_g1_msm(&cpu, hb, hs, nchk, 0);
    memset(&gpu, 0xa5, sizeof gpu);
    DIE_IF(cz_gpu_g1_msm(&gpu, d_bases, d_sc, nchk, NULL), "gpu msm");
    ok = cz_g1_jac_equal(&cpu, &gpu);
    printf("check G1 MSM 2^%u vs CPU: %s (CPU %ld s)\n", chk_log, ok ? "ok" : "FAIL", (long)(time(NULL) - t0));
    failures += !ok;
    /* the affine bucket rounds (the default from 2^26) at this size too: whole windows, then chunks of 2^20 */
    for (int v = 0; v < 2; v++) {
        setenv("CZ_GPU_MSM_AFF", "1", 1);
        if (v) setenv("CZ_GPU_MSM_AFF_CHUNK_LOG", "20", 1);
        memset(&gpu, 0xa5, sizeof gpu);
        DIE_IF(cz_gpu_g1_msm(&gpu, d_bases, d_sc, nchk, NULL), "gpu msm (affine)");
        ok = cz_g1_jac_equal(&cpu, &gpu);
        printf("check G1 MSM 2^%u, affine buckets%s, vs CPU: %s\n", chk_log, v ? " in chunks of 2^20" : "", ok ? "ok" : "FAIL");
        failures += !ok;
        unsetenv("CZ_GPU_MSM_AFF");
        unsetenv("CZ_GPU_MSM_AFF_CHUNK_LOG");
    }
    free(hb);
    free(hs);

timing:;
    cz_gpu_timer *tm;
    DIE_IF(cz_gpu_timer_create(&tm), "timer");
    static const unsigned bsz[] = {20, 22, 24, 26, 27};
    for (size_t k = 0; k < sizeof bsz / sizeof bsz[0]; k++) {
        unsigned lg = bsz[k];
        if (lg > max_log) break;
        if (quick && lg != 26) continue;
        if (getenv("CZ_BENCH_NO_BA")) break;
        size_t n = (size_t)1 << lg;
        float ms[100];
        for (int pat = 0; pat < 2; pat++) {
            if (pat == 1 && lg != 26) continue;
            if (pat == 1) {
                memset(bm, 0xff, (n / 64) * sizeof(uint64_t));
                DIE_IF(cz_gpu_memcpy_htod(d_bm, bm, (n / 64) * sizeof(uint64_t)), "bitmap");
            }
            DIE_IF(cz_gpu_g1_batch_add(&gpu, d_bases, d_bm, n, NULL), "warm-up");
            for (int r = 0; r < reps; r++) {
                DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
                DIE_IF(cz_gpu_g1_batch_add(&gpu, d_bases, d_bm, n, NULL), "batch add");
                DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
            }
            double med = median_ms(ms, reps);
            if (pat == 0 && lg == 26)
                tl += snprintf(table + tl, cap - tl, "| G1 batch add ~50%% | 2^%u | %.3f | %.3f | 17.1 | %.2f |\n", lg, med, ms[0], med / 17.1);
            else
                tl += snprintf(table + tl, cap - tl, "| G1 batch add %s | 2^%u | %.3f | %.3f | - | - |\n", pat ? "100%" : "~50%", lg, med, ms[0]);
            if (pat == 0 && lg == 26) tl = pairs_row(table, tl, cap, 0, d_bases, d_bm, n, reps, tm, &gpu, med);
        }
    }
    /* the odd sizes are timed only when CZ_BENCH_MSM_LOGS names them (a streamed prover's chunks are 2^21..2^25) */
    static const unsigned msz[] = {18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28};
    static const double sp_msm[] = {0, 0, 22.4, 0, 54.6, 0, 161.7, 0, 567.9, 1110.8, 0}; /* 0: no anchor */
    /* CZ_BENCH_MSM_AB: variants separated by ';' (at most 7 beside the default), each "VAR=V,VAR=V" */
#define MSM_AB_MAX 8
    const char *logs = getenv("CZ_BENCH_MSM_LOGS"), *ab = getenv("CZ_BENCH_MSM_AB");
    char var[MSM_AB_MAX][160] = {""};
    int nv = 1;
    for (const char *q = ab; q && *q && nv < MSM_AB_MAX;) {
        size_t l = strcspn(q, ";");
        snprintf(var[nv], sizeof var[nv], "%.*s", (int)l, q);
        if (l) nv++;
        q += l + (q[l] != 0);
    }
    for (size_t k = 0; k < sizeof msz / sizeof msz[0]; k++) {
        unsigned lg = msz[k];
        if (lg > max_log) break;
        if (!quick && lg % 2 && lg != 27) continue;
        if (quick) {
            int want = !logs && lg == max_log;
            for (const char *q = logs; q && *q;) {
                char *e;
                long v = strtol(q, &e, 10);
                if (e == q) break;
                want |= v == (long)lg;
                q = e + (*e != 0);
            }
            if (!want) continue;
        }
        size_t n = (size_t)1 << lg;
        int mr = lg >= 26 ? 3 : reps;
        if (getenv("CZ_BENCH_MSM_REPS")) mr = atoi(getenv("CZ_BENCH_MSM_REPS"));
        if (mr < 1 || mr > 50) mr = 3;
        float ms[MSM_AB_MAX][50];
        for (int r = -1; r < mr; r++) {   /* r = -1: warm-up */
            for (int v = 0; v < nv; v++) { /* interleaved: drift hits every variant alike */
                char buf[160];
                snprintf(buf, sizeof buf, "%.159s", var[v]);
                for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                    char *eq = strchr(t, '=');
                    if (eq) *eq = 0, setenv(t, eq + 1, 1);
                }
                float x = 0;
                DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
                DIE_IF(cz_gpu_g1_msm(&gpu, d_bases, d_sc, n, NULL), "msm");
                DIE_IF(cz_gpu_timer_stop(tm, NULL, &x), "timer");
                if (r >= 0) ms[v][r] = x;
                snprintf(buf, sizeof buf, "%.159s", var[v]);
                for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                    char *eq = strchr(t, '=');
                    if (eq) *eq = 0, unsetenv(t);
                }
            }
        }
        for (int v = 0; v < nv; v++) {
            double med = median_ms(ms[v], mr);
            char anc[48] = "- | -";
            if (sp_msm[k] > 0) snprintf(anc, sizeof anc, "%.1f | %.2f", sp_msm[k], med / sp_msm[k]);
            tl += snprintf(table + tl, cap - tl, "| G1 MSM%s%s (median of %d) | 2^%u | %.3f | %.3f | %s |\n",
                           v ? " with " : "", var[v], mr, lg, med, ms[v][0], anc);
        }
    }
    cz_gpu_timer_destroy(tm);
    cz_gpu_free(d_bases);
    cz_gpu_free(d_sc);
    cz_gpu_free(d_bm);
    cz_gpu_g1_release_scratch();
    free(bm);
    free(pool);
    return tl;
}

/* ---- field multiplication throughput: default (carry chains) vs naive CIOS, outputs compared ---- */
static size_t mul_bench(char *table, size_t tl, size_t cap, uint64_t seed) {
    const size_t nt = (size_t)1 << 19;
    const int iters = 256;
    cz_fp *in = malloc(3 * nt * sizeof *in);
    cz_rng rng;
    cz_rng_seed(&rng, seed ^ 0x3141);
    void *d_in, *d_out, *d_out2;
    DIE_IF(cz_gpu_malloc(&d_in, 3 * nt * sizeof(cz_fp)), "malloc");
    DIE_IF(cz_gpu_malloc(&d_out, 2 * nt * sizeof(cz_fp)), "malloc");
    DIE_IF(cz_gpu_malloc(&d_out2, 2 * nt * sizeof(cz_fp)), "malloc");
    unsigned char *h1 = malloc(2 * nt * sizeof(cz_fp)), *h2 = malloc(2 * nt * sizeof(cz_fp));
    float ms_unused;
    for (int fp = 0; fp < 2; fp++) {
        if (fp) {
            for (size_t i = 0; i < 3 * nt; i++) cz_fp_random(&in[i], &rng);
            DIE_IF(cz_gpu_memcpy_htod(d_in, in, 3 * nt * sizeof(cz_fp)), "htod");
        } else {
            DIE_IF(cz_gpu_fr_random((cz_fr *)d_in, 3 * nt, seed ^ 0x2718), "random");
        }
        size_t es = fp ? sizeof(cz_fp) : sizeof(cz_fr);
        /* Fp also: the FP64-pipe product in all / half / a quarter of the warps, or beside IMAD in each thread
         * (modes 3..10, gpu.h) */
        static const char *const name[14] = {"mul carry chains", "mul naive CIOS", "sqr",
                                            "mul FP64 (lo in doubles)", "mul FP64 (lo in integers)",
                                            "mul 1/2 FP64 warps (lo doubles) + 1/2 IMAD", "mul 1/2 FP64 warps (lo integers) + 1/2 IMAD",
                                            "mul 1/4 FP64 warps (lo integers) + 3/4 IMAD", "mul 1/4 FP64 warps (lo doubles) + 3/4 IMAD",
                                            "mul x IMAD + w FP64 (lo doubles) per thread", "mul x IMAD + w FP64 (lo integers) per thread",
                                            "no mul: 4 int8 mma a warp a step (tensor probe)", "mul carry chains + 4 int8 mma a warp a step",
                                            "mul carry chains + 32 int8 mma a warp a step"};
        const int nmodes = fp ? 14 : 4; /* Fr mode 3: Shoup's product by a constant; Fp 11..13: the tensor probe */
#define MUL_NAME(mode) (fp || (mode) != 3 ? name[mode] : "mul by a constant (Shoup)")
        double med[14];
        DIE_IF(cz_gpu_mul_bench(fp, 0, d_out, d_in, nt, iters, &ms_unused), "mul bench");
        DIE_IF(cz_gpu_memcpy_dtoh(h1, d_out, 2 * nt * es), "dtoh");
        for (int mode = 0; mode < nmodes; mode++) { /* 2: squares (timed only; test_gpu_field checks them) */
            float ms[9];
            DIE_IF(cz_gpu_memset(d_out2, 0xa5, 2 * nt * es), "memset");
            DIE_IF(cz_gpu_mul_bench(fp, mode, d_out2, d_in, nt, iters, &ms[0]), "mul bench");
            if (mode != 0 && mode != 2 && mode != 11) { /* the same chained products as the default's, bit for bit */
                DIE_IF(cz_gpu_memcpy_dtoh(h2, d_out2, 2 * nt * es), "dtoh");
                int same = memcmp(h1, h2, 2 * nt * es) == 0;
                printf("check %s products, %s vs carry chains on %zu x %d x 2 products: %s\n", fp ? "Fp" : "Fr", MUL_NAME(mode), nt,
                       iters, same ? "ok" : "FAIL");
                failures += !same;
            }
            for (int r = 0; r < 5; r++) DIE_IF(cz_gpu_mul_bench(fp, mode, d_out2, d_in, nt, iters, &ms[r]), "mul bench");
            med[mode] = median_ms(ms, 5);
        }
        double prods = 2.0 * nt * iters;
        for (int mode = 0; mode < nmodes; mode++)
            tl += snprintf(table + tl, cap - tl, "| %s %s (%.1f G/s) | 2^19 thr x %d x 2 | %.3f | - | - | - |\n", fp ? "Fp" : "Fr",
                           MUL_NAME(mode), prods / med[mode] / 1e6, iters, med[mode]);
#undef MUL_NAME
    }
    cz_gpu_free(d_in);
    cz_gpu_free(d_out);
    cz_gpu_free(d_out2);
    free(in);
    free(h1);
    free(h2);
    return tl;
}

/* ---- G2: pool of random points tiled; check vs the CPU at 2^chk, time MSM up to 2^24 ---- */
#define G2_POOL (1u << 12)
static cz_g2_affine *g2_pool(uint64_t seed) {
    cz_g2_affine *pool = malloc(G2_POOL * sizeof *pool);
#pragma omp parallel
    {
        cz_rng r;
        cz_rng_seed(&r, seed ^ (0x7f4a7c159e3779b9ull * (uint64_t)(omp_get_thread_num() + 1)));
#pragma omp for schedule(static)
        for (unsigned i = 0; i < G2_POOL; i++) cz_g2_random(&pool[i], &r);
    }
    return pool;
}

static size_t g2_bench(char *table, size_t tl, size_t cap, unsigned max_log, uint64_t seed, int reps) {
    /* the sizes timed: 2^20, 2^22, 2^24, or CZ_BENCH_G2_LOGS (up to 4 of them, at most 2^27 and max_log) */
    unsigned sz[4] = {20, 22, 24, 0}, nsz = 3;
    if (getenv("CZ_BENCH_G2_LOGS")) {
        char buf[64], *save = NULL;
        snprintf(buf, sizeof buf, "%s", getenv("CZ_BENCH_G2_LOGS"));
        nsz = 0;
        for (char *tok = strtok_r(buf, " ,", &save); tok && nsz < 4; tok = strtok_r(NULL, " ,", &save)) {
            unsigned lg = (unsigned)atoi(tok);
            if (lg >= 10 && lg <= 27 && lg <= max_log) sz[nsz++] = lg;
        }
    }
    unsigned top = 0;
    for (unsigned k = 0; k < nsz; k++) top = sz[k] > top ? sz[k] : top;
    top = top < 18 ? 18 : top;
    top = top < max_log ? top : max_log;
    unsigned chk_log = top < 18 ? top : 18;
    size_t nmax = (size_t)1 << top, nchk = (size_t)1 << chk_log;
    time_t t0 = time(NULL);
    cz_g2_affine *pool = g2_pool(seed);
    printf("G2 pool of %u random points: %ld s\n", G2_POOL, (long)(time(NULL) - t0));
    cz_g2_affine *d_bases;
    cz_fr *d_sc;
    uint64_t *d_bm, *bm;
    bench_inputs((void **)&d_bases, &d_sc, &d_bm, &bm, pool, G2_POOL, sizeof(cz_g2_affine), nmax, seed + 17, seed + 19);

    cz_g2_affine *hb = malloc(nchk * sizeof *hb);
    cz_fr *hs = malloc(nchk * sizeof *hs);
    for (size_t i = 0; i < nchk; i++) hb[i] = pool[i % G2_POOL];
    DIE_IF(cz_gpu_memcpy_dtoh(hs, d_sc, nchk * sizeof(cz_fr)), "dtoh scalars");
    cz_g2_jac cpu, gpu;
    t0 = time(NULL);
    cz_g2_batch_add(&cpu, hb, bm, nchk, 0);
    memset(&gpu, 0xa5, sizeof gpu);
    DIE_IF(cz_gpu_g2_batch_add(&gpu, d_bases, d_bm, nchk, NULL), "gpu g2 batch add");
    int ok = cz_g2_jac_equal(&cpu, &gpu);
    printf("check G2 batch add 2^%u (~50%%) vs CPU: %s (CPU %ld s)\n", chk_log, ok ? "ok" : "FAIL", (long)(time(NULL) - t0));
    failures += !ok;
    t0 = time(NULL);
    cz_g2_msm(&cpu, hb, hs, nchk, 0);
    memset(&gpu, 0xa5, sizeof gpu);
    DIE_IF(cz_gpu_g2_msm(&gpu, d_bases, d_sc, nchk, NULL), "gpu g2 msm");
    ok = cz_g2_jac_equal(&cpu, &gpu);
    printf("check G2 MSM 2^%u vs CPU: %s (CPU %ld s)\n", chk_log, ok ? "ok" : "FAIL", (long)(time(NULL) - t0));
    failures += !ok;
    free(hb);
    free(hs);

    cz_gpu_timer *tm;
    DIE_IF(cz_gpu_timer_create(&tm), "timer");
    for (unsigned k = 0; k < nsz; k++) {
        unsigned lg = sz[k];
        if (lg > top) break;
        size_t n = (size_t)1 << lg;
        float ms[100];
        for (int op = 0; op < 2; op++) {
            int mr = lg >= 24 && op == 0 && reps > 3 ? 3 : reps;
            if (op == 0) DIE_IF(cz_gpu_g2_msm(&gpu, d_bases, d_sc, n, NULL), "warm-up");
            else DIE_IF(cz_gpu_g2_batch_add(&gpu, d_bases, d_bm, n, NULL), "warm-up");
            for (int r = 0; r < mr; r++) {
                DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
                if (op == 0) DIE_IF(cz_gpu_g2_msm(&gpu, d_bases, d_sc, n, NULL), "g2 msm");
                else DIE_IF(cz_gpu_g2_batch_add(&gpu, d_bases, d_bm, n, NULL), "g2 batch add");
                DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
            }
            double med = median_ms(ms, mr);
            tl += snprintf(table + tl, cap - tl, "| G2 %s (median of %d) | 2^%u | %.3f | %.3f | - | - |\n",
                           op ? "batch add ~50%" : "MSM", mr, lg, med, ms[0]);
            if (op == 1 && lg == 24) tl = pairs_row(table, tl, cap, 1, d_bases, d_bm, n, mr, tm, &gpu, med);
        }
    }
    cz_gpu_timer_destroy(tm);
    cz_gpu_free(d_bases);
    cz_gpu_free(d_sc);
    cz_gpu_free(d_bm);
    cz_gpu_g2_release_scratch();
    free(bm);
    free(pool);
    return tl;
}

/* ---- CZ_BENCH_BA_ONLY: the batch additions alone (G1 2^26 ~50 % and 100 %, G2 2^24 ~50 %), checked
 * against the CPU first (G1 2^24 ~50 %: 2^23 points, G2 2^22 ~50 %: 2^21 points, both above the 2^20 where
 * the affine rounds start) unless CZ_BENCH_BA_NOCHECK, then timed under each variant of
 * CZ_BENCH_BA_VARIANTS ("A;B;...", each a space-separated list of NAME=VALUE of the CZ_GPU_BA_* knobs and
 * CZ_GPU_AFF_SOA, "-" for the defaults), all in one process so the variants see the same data and clocks. A
 * variant with the word PAIRS=1 runs the batch additions over copies of the bases with their pair sums (gpu.h
 * cz_gpu_g1_pair_sums, built once, their time printed), each result checked against the default's at the same
 * size (whose kernels the CPU check covers). ---- */
static const char *const ba_knob_names[] = {"CZ_GPU_BA_XYZZ", "CZ_GPU_BA_AFF_MIN", "CZ_GPU_BA_CHUNK_LOG", "CZ_GPU_AFF_SOA",
                                            "CZ_GPU_BINV"};

static void ba_variant(const char *v) {
    for (size_t i = 0; i < sizeof ba_knob_names / sizeof ba_knob_names[0]; i++) unsetenv(ba_knob_names[i]);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        setenv(tok, eq + 1, 1);
    }
}

static void ba_bench(uint64_t seed, int reps) {
    const unsigned lg1 = 26, lg2 = 24;
    const size_t n1 = (size_t)1 << lg1, n2 = (size_t)1 << lg2;
    cz_g1_affine *pool1 = g1_pool(seed);
    cz_g2_affine *pool2 = g2_pool(seed);
    void *d1, *d2;
    cz_fr *ds1, *ds2;
    uint64_t *dbm1, *dbm2, *bm1, *bm2;
    bench_inputs(&d1, &ds1, &dbm1, &bm1, pool1, G1_POOL, sizeof(cz_g1_affine), n1, seed + 7, seed + 9);
    bench_inputs(&d2, &ds2, &dbm2, &bm2, pool2, G2_POOL, sizeof(cz_g2_affine), n2, seed + 17, seed + 19);
    cz_gpu_free(ds1);
    cz_gpu_free(ds2);
    uint64_t *dones;
    DIE_IF(cz_gpu_malloc((void **)&dones, (n1 / 64 + 1) * 8), "malloc");
    uint64_t *ones = malloc((n1 / 64 + 1) * 8);
    memset(ones, 0xff, (n1 / 64 + 1) * 8);
    DIE_IF(cz_gpu_memcpy_htod(dones, ones, (n1 / 64 + 1) * 8), "bitmap");
    free(ones);
    const char *vs = getenv("CZ_BENCH_BA_VARIANTS") ? getenv("CZ_BENCH_BA_VARIANTS") : "-";
    if (!getenv("CZ_BENCH_BA_NOCHECK")) {
        char vb[1024];
        snprintf(vb, sizeof vb, "%s", vs);
        const size_t c1 = (size_t)1 << 24, c2 = (size_t)1 << 22;
        cz_g1_affine *hb1 = malloc(c1 * sizeof *hb1);
        cz_g2_affine *hb2 = malloc(c2 * sizeof *hb2);
        for (size_t i = 0; i < c1; i++) hb1[i] = pool1[i % G1_POOL];
        for (size_t i = 0; i < c2; i++) hb2[i] = pool2[i % G2_POOL];
        cz_g1_jac cpu1, gpu1;
        cz_g2_jac cpu2, gpu2;
        time_t t0 = time(NULL);
        cz_g1_batch_add(&cpu1, hb1, bm1, c1, 0);
        cz_g2_batch_add(&cpu2, hb2, bm2, c2, 0);
        printf("CPU batch adds for the checks: %ld s\n", (long)(time(NULL) - t0));
        for (char *save = NULL, *v = strtok_r(vb, ";", &save); v; v = strtok_r(NULL, ";", &save)) {
            ba_variant(v);
            memset(&gpu1, 0xa5, sizeof gpu1);
            memset(&gpu2, 0xa5, sizeof gpu2);
            DIE_IF(cz_gpu_g1_batch_add(&gpu1, d1, dbm1, c1, NULL), "g1 batch add");
            DIE_IF(cz_gpu_g2_batch_add(&gpu2, d2, dbm2, c2, NULL), "g2 batch add");
            int ok1 = cz_g1_jac_equal(&cpu1, &gpu1), ok2 = cz_g2_jac_equal(&cpu2, &gpu2);
            printf("check [%s] G1 batch add 2^24 ~50%%: %s, G2 batch add 2^22 ~50%%: %s\n", v, ok1 ? "ok" : "FAIL",
                   ok2 ? "ok" : "FAIL");
            failures += !ok1 + !ok2;
        }
        free(hb1);
        free(hb2);
    }
    char vb[1024];
    snprintf(vb, sizeof vb, "%s", vs);
    cz_gpu_timer *tm;
    DIE_IF(cz_gpu_timer_create(&tm), "timer");
    void *dp1 = NULL, *dp2 = NULL; /* the bases with their pair sums, for the PAIRS=1 variants */
    cz_g1_jac ref1[2];
    cz_g2_jac ref2;
    if (strstr(vs, "PAIRS=1")) {
        ba_variant("-");
        DIE_IF(cz_gpu_g1_batch_add(&ref1[0], d1, dbm1, n1, NULL), "g1 batch add");
        DIE_IF(cz_gpu_g1_batch_add(&ref1[1], d1, dones, n1, NULL), "g1 batch add");
        DIE_IF(cz_gpu_g2_batch_add(&ref2, d2, dbm2, n2, NULL), "g2 batch add");
        float b1 = 0, b2 = 0;
        dp1 = pairs_copy(0, d1, n1, tm, &b1);
        dp2 = pairs_copy(1, d2, n2, tm, &b2);
        DIE_IF(!dp1 || !dp2, "the bases with their pair sums");
        printf("pair sums built: G1 2^%u in %.3f ms, G2 2^%u in %.3f ms\n", lg1, b1, lg2, b2);
    }
    printf("\n| variant | G1 2^26 ~50%% ms | G1 2^26 100%% ms | G2 2^24 ~50%% ms | G1 ~50%% / sppark 17.1 |\n|---|---|---|---|---|\n");
    for (char *save = NULL, *v = strtok_r(vb, ";", &save); v; v = strtok_r(NULL, ";", &save)) {
        ba_variant(v);
        const int pv = strstr(v, "PAIRS=1") != NULL;
        double med[3];
        for (int k = 0; k < 3; k++) {
            float ms[100];
            cz_g1_jac g1;
            cz_g2_jac g2;
            for (int r = -1; r < reps; r++) {
                if (r >= 0) DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
                if (k < 2 && pv) DIE_IF(cz_gpu_g1_batch_add_pairs(&g1, dp1, k ? dones : dbm1, n1, NULL), "g1 batch add");
                else if (k < 2) DIE_IF(cz_gpu_g1_batch_add(&g1, d1, k ? dones : dbm1, n1, NULL), "g1 batch add");
                else if (pv) DIE_IF(cz_gpu_g2_batch_add_pairs(&g2, dp2, dbm2, n2, NULL), "g2 batch add");
                else DIE_IF(cz_gpu_g2_batch_add(&g2, d2, dbm2, n2, NULL), "g2 batch add");
                if (r >= 0) DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
                if (r < 0 && pv) {
                    const int ok = k < 2 ? cz_g1_jac_equal(&g1, &ref1[k]) : cz_g2_jac_equal(&g2, &ref2);
                    if (!ok) printf("check [%s] %s with pair sums against without: FAIL\n", v, k == 0 ? "G1 ~50%" : k == 1 ? "G1 100%" : "G2 ~50%");
                    failures += !ok;
                }
            }
            med[k] = median_ms(ms, reps);
        }
        printf("| %s | %.3f | %.3f | %.3f | %.2f |\n", v, med[0], med[1], med[2], med[0] / 17.1);
        fflush(stdout);
    }
    printf("(median of %d runs after 1 warm-up, CUDA events)\n", reps);
    cz_gpu_timer_destroy(tm);
    cz_gpu_free(dp1);
    cz_gpu_free(dp2);
    cz_gpu_free(d1);
    cz_gpu_free(d2);
    cz_gpu_free(dbm1);
    cz_gpu_free(dbm2);
    cz_gpu_free(dones);
    cz_gpu_g1_release_scratch();
    cz_gpu_g2_release_scratch();
    free(bm1);
    free(bm2);
    free(pool1);
    free(pool2);
}

int main(int argc, char **argv) {
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 27;
    int reps = getenv("CZ_BENCH_REPS") ? atoi(getenv("CZ_BENCH_REPS")) : 7;
    if (reps < 1 || reps > 100) reps = 7;
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    char desc[256];
    DIE_IF(cz_gpu_describe(desc, sizeof desc), "describe");
    printf("device: %s\n", desc);
    cz_rng rng;
    uint64_t seed;
    cz_os_random(&seed, sizeof seed);
    cz_rng_seed(&rng, seed);
    printf("seed: 0x%016llx\n", (unsigned long long)seed);

    if (getenv("CZ_BENCH_BA_ONLY")) {
        ba_bench(seed, reps);
        return failures ? 1 : 0;
    }
    if (getenv("CZ_BENCH_G2_ONLY")) { /* G2 check at 2^18 and timings only (A/B of the batch-add paths) */
        char t[2048];
        size_t l = snprintf(t, sizeof t, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
        g2_bench(t, l, sizeof t, max_log, seed, reps);
        printf("\n%s\n", t);
        return failures ? 1 : 0;
    }
    if (getenv("CZ_BENCH_G1_ONLY")) {
        char t[8192]; /* up to 5 sizes x 4 variants of the MSM */
        size_t l = snprintf(t, sizeof t, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
        g1_bench(t, l, sizeof t, max_log, seed, reps);
        printf("\n%s\n", t);
        return failures ? 1 : 0;
    }
    {
        char mt[4096];
        size_t ml = snprintf(mt, sizeof mt, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
        ml = mul_bench(mt, ml, sizeof mt, seed);
        printf("\n%s\n", mt);
        fflush(stdout);
        if (getenv("CZ_BENCH_MUL_ONLY")) return failures ? 1 : 0;
    }
    /* CZ_BENCH_NTT_ONLY (set by hand for a quick timing run): the product and NTT tables only, no checks
     * (the gpu tests check the same kernels) */
    const int ntt_only = getenv("CZ_BENCH_NTT_ONLY") != NULL;
    if (!ntt_only) {
        unsigned check_log = max_log < 24 ? max_log : 24;
        for (int kind = 0; kind < 4; kind++) check_vs_cpu(check_log, kind, seed + 100 + kind);
        check_vs_cpu(max_log, 0, seed + 200);
        check_vs_cpu(max_log, 3, seed + 201);
        check_round_trip(max_log, seed ^ 0x5eed);
    }
    const char *kern = getenv("CZ_GPU_NTT_KERNEL"); /* an A/B run of kernel 0 skips the comparison */
    if (max_log >= 24 && !(kern && kern[0] == '0')) check_kernels(24, seed + 400);
    if (max_log > 24 && !(kern && kern[0] == '0')) check_kernels(max_log, seed + 500);

    static const unsigned sizes[] = {16, 20, 22, 24, 26, 27, 28};
    char table[8192];
    size_t tl = 0;
    tl += snprintf(table + tl, sizeof table - tl, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
    cz_gpu_timer *tm;
    DIE_IF(cz_gpu_timer_create(&tm), "timer");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        unsigned log_n = sizes[si];
        if (log_n > max_log) break;
        size_t n = (size_t)1 << log_n;
        cz_fr *d;
        cz_gpu_ntt *plan;
        DIE_IF(cz_gpu_ntt_create(&plan, log_n), "plan");
        DIE_IF(cz_gpu_malloc((void **)&d, n * sizeof(cz_fr)), "malloc");
        DIE_IF(cz_gpu_fr_random(d, n, seed + log_n), "random");
        for (int kind = 0; kind < 4; kind++) {
            float ms[100];
            DIE_IF(cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)kind, NULL), "warm-up");
            for (int r = 0; r < reps; r++) {
                DIE_IF(cz_gpu_timer_start(tm, NULL), "timer");
                DIE_IF(cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)kind, NULL), "ntt");
                DIE_IF(cz_gpu_timer_stop(tm, NULL, &ms[r]), "timer");
            }
            qsort(ms, reps, sizeof(float), cmp_float);
            double sp = sppark_ms(log_n, kind);
            char spb[32] = "-", rb[32] = "-";
            if (sp > 0) {
                snprintf(spb, sizeof spb, "%.2f", sp);
                snprintf(rb, sizeof rb, "%.2f", ms[reps / 2] / sp);
            }
            tl += snprintf(table + tl, sizeof table - tl, "| NTT %s | 2^%u | %.3f | %.3f | %s | %s |\n", kind_name[kind],
                           log_n, ms[reps / 2], ms[0], spb, rb);
        }
        cz_gpu_free(d);
        cz_gpu_ntt_destroy(plan);
    }
    /* the H check is GPU against GPU (a few seconds), so it runs with CZ_BENCH_NTT_ONLY too */
    if (max_log >= 24) tl = h_bench(table, tl, sizeof table, 24, seed, reps, 1, tm);
    if (max_log > 24) tl = h_bench(table, tl, sizeof table, max_log, seed, reps, 1, tm);
    cz_gpu_timer_destroy(tm);
    printf("\n%s\n", table); /* NTT table first, so it survives a G1 failure */
    fflush(stdout);
    if (ntt_only) return failures ? 1 : 0;
    if (!getenv("CZ_BENCH_NO_G1")) {
        tl = snprintf(table, sizeof table, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
        tl = g1_bench(table, tl, sizeof table, max_log, seed, reps);
    }
    if (!getenv("CZ_BENCH_NO_G2")) {
        printf("\n%s\n", table); /* G1 table first, so it survives a G2 failure */
        fflush(stdout);
        tl = snprintf(table, sizeof table, "| op | size | median ms | min ms | sppark ms | ours/sppark |\n|---|---|---|---|---|---|\n");
        tl = g2_bench(table, tl, sizeof table, max_log, seed, reps);
    }
    printf("\n%s(median of %d runs after 1 warm-up, CUDA events; data resident on the device)\n", table, reps);
    printf("correctness: %s\n", failures ? "FAILED" : "all checks ok");
    return failures ? 1 : 0;
}
