/* CPU MSM and 0/1 batch-addition timings: G1 MSM 2^16 and 2^20, G2 MSM 2^16, G1 batch add 2^20 at
 * ~50% ones, each with 1 and 2 threads (median of a few runs), plus the single-thread xyzz mixed-add
 * loop the batched affine additions replace.
 * Usage: cz_bench_msm [runs [threads,...]]   (defaults: 3 runs; 1,2 threads).
 * Bases: 2^16 distinct random curve points, tiled; scalars uniform in Fr. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"

#define DISTINCT (1u << 16)

/* Distinct points P0 + i Q (P0, Q random on the curve), normalized with one inversion. */
#define DEFINE_BASES(G, F, ONE)                                                                      \
    static void G##_point(cz_##G##_affine *p, const cz_##F *b, cz_rng *rng) {                     \
        cz_##F rhs;                                                                               \
        do {                                                                                      \
            cz_##F##_random(&p->x, rng);                                                          \
            cz_##F##_sqr(&rhs, &p->x);                                                            \
            cz_##F##_mul(&rhs, &rhs, &p->x);                                                      \
            cz_##F##_add(&rhs, &rhs, b);                                                          \
        } while (cz_##F##_sqrt(&p->y, &rhs) != 0);                                                \
    }                                                                                             \
    static cz_##G##_affine *G##_bases(size_t n, const cz_##F *b, cz_rng *rng) {                   \
        cz_##G##_affine *out = malloc(n * sizeof *out), q;                                        \
        cz_##G##_jac *jac = malloc(DISTINCT * sizeof *jac);                                       \
        cz_##F *pref = malloc(DISTINCT * sizeof *pref), acc, inv, t;                              \
        G##_point(&q, b, rng);                                                                    \
        G##_point(&out[0], b, rng);                                                               \
        cz_##G##_jac_from_affine(&jac[0], &out[0]);                                               \
        for (size_t i = 1; i < DISTINCT; i++) cz_##G##_jac_add_affine(&jac[i], &jac[i - 1], &q);  \
        acc = ONE;                                                                                \
        for (size_t i = 0; i < DISTINCT; i++) {                                                   \
            pref[i] = acc;                                                                        \
            cz_##F##_mul(&acc, &acc, &jac[i].z);                                                  \
        }                                                                                         \
        cz_##F##_inv(&acc, &acc);                                                                 \
        for (size_t i = DISTINCT; i-- > 0;) {                                                     \
            cz_##F##_mul(&inv, &acc, &pref[i]); /* 1/z_i: acc holds 1/(z_0 ... z_i) */           \
            cz_##F##_mul(&acc, &acc, &jac[i].z);                                                  \
            cz_##F##_sqr(&t, &inv);                                                               \
            cz_##F##_mul(&out[i].x, &jac[i].x, &t);                                               \
            cz_##F##_mul(&t, &t, &inv);                                                           \
            cz_##F##_mul(&out[i].y, &jac[i].y, &t);                                               \
        }                                                                                         \
        for (size_t i = DISTINCT; i < n; i++) out[i] = out[i % DISTINCT];                         \
        free(jac);                                                                                \
        free(pref);                                                                               \
        return out;                                                                               \
    }

DEFINE_BASES(g1, fp, CZ_FP_ONE_V)
DEFINE_BASES(g2, fp2, CZ_FP2_ONE_V)

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int runs = 3;
static int threads[16] = {1, 2}, nthreads = 2;

#define TIME_MEDIAN(label, n, threads, stmt)                                                      \
    do {                                                                                          \
        double ts[16];                                                                            \
        for (int r_ = 0; r_ < runs; r_++) {                                                       \
            double t0_ = omp_get_wtime();                                                         \
            stmt;                                                                                 \
            ts[r_] = omp_get_wtime() - t0_;                                                       \
        }                                                                                         \
        qsort(ts, (size_t)runs, sizeof ts[0], cmp_double);                                        \
        printf("| %-28s | %8zu | %7d | %10.1f |\n", label, (size_t)(n), threads, ts[runs / 2] * 1e3); \
        fflush(stdout);                                                                           \
    } while (0)

int main(int argc, char **argv) {
    if (argc > 1) runs = atoi(argv[1]);
    if (runs < 1) runs = 1;
    if (runs > 16) runs = 16;
    if (argc > 2) {
        nthreads = 0;
        for (char *p = argv[2]; *p && nthreads < 16;) {
            threads[nthreads++] = (int)strtol(p, &p, 10);
            if (*p == ',') p++;
            else break;
        }
    }
    cz_rng rng;
    cz_rng_seed(&rng, 1);
    cz_fp b1;
    cz_fp2 b2;
    cz_fp_set_u64(&b1, 4);
    b2.c0 = b1;
    b2.c1 = b1;

    const size_t big = (size_t)1 << 20, small = (size_t)1 << 16;
    cz_g1_affine *g1 = g1_bases(big, &b1, &rng);
    cz_g2_affine *g2 = g2_bases(small, &b2, &rng);
    cz_fr *k = malloc(big * sizeof *k);
    for (size_t i = 0; i < big; i++) cz_fr_random(&k[i], &rng);
    uint64_t *bm = malloc(big / 64 * sizeof *bm);
    for (size_t i = 0; i < big / 64; i++) bm[i] = cz_rng_next(&rng);

    /* Sanity: the generated bases are on the curve (else the timings would mean little). */
    for (size_t i = 0; i < DISTINCT; i += 4099) {
        cz_fp l, r;
        cz_fp_sqr(&l, &g1[i].y);
        cz_fp_sqr(&r, &g1[i].x);
        cz_fp_mul(&r, &r, &g1[i].x);
        cz_fp_add(&r, &r, &b1);
        cz_fp2 l2, r2;
        cz_fp2_sqr(&l2, &g2[i].y);
        cz_fp2_sqr(&r2, &g2[i].x);
        cz_fp2_mul(&r2, &r2, &g2[i].x);
        cz_fp2_add(&r2, &r2, &b2);
        if (!cz_fp_equal(&l, &r) || !cz_fp2_equal(&l2, &r2)) {
            fprintf(stderr, "bench_msm: generated base %zu is off the curve\n", i);
            return 1;
        }
    }

    char load[64] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(load, sizeof load, f)) strcpy(load, "?");
        fclose(f);
        load[strcspn(load, "\n")] = 0;
    }
    printf("cz_bench_msm: %d runs, median wall ms; omp max threads %d; loadavg %s\n", runs,
           omp_get_max_threads(), load);
    printf("| %-28s | %8s | %7s | %10s |\n|---|---|---|---|\n", "operation", "n", "threads", "ms");

    cz_g1_jac r1;
    cz_g2_jac r2;
    for (int ti = 0; ti < nthreads; ti++) TIME_MEDIAN("G1 MSM", small, threads[ti], cz_g1_msm(&r1, g1, k, small, threads[ti]));
    for (int ti = 0; ti < nthreads; ti++) TIME_MEDIAN("G1 MSM", big, threads[ti], cz_g1_msm(&r1, g1, k, big, threads[ti]));
    for (int ti = 0; ti < nthreads; ti++) TIME_MEDIAN("G2 MSM", small, threads[ti], cz_g2_msm(&r2, g2, k, small, threads[ti]));
    for (int ti = 0; ti < nthreads; ti++) TIME_MEDIAN("G1 batch add (50%)", big, threads[ti], cz_g1_batch_add(&r1, g1, bm, big, threads[ti]));
    TIME_MEDIAN("G1 xyzz mixed-add loop (50%)", big, 1, {
        cz_g1_xyzz acc;
        cz_g1_xyzz_set_infinity(&acc);
        for (size_t i = 0; i < big; i++)
            if ((bm[i / 64] >> (i % 64)) & 1) cz_g1_xyzz_add_affine(&acc, &acc, &g1[i]);
        cz_g1_jac_from_xyzz(&r1, &acc);
    });
    for (int ti = 0; ti < nthreads; ti++) TIME_MEDIAN("G2 batch add (50%)", small, threads[ti], cz_g2_batch_add(&r2, g2, bm, small, threads[ti]));
    free(g1);
    free(g2);
    free(k);
    free(bm);
    return 0;
}
