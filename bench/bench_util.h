/* Helpers for the bench programs (a header: each .c file in bench/ is its own executable): a monotonic
 * clock, a median-of-rounds timing macro, the CPU name for the log, and curve points built from the
 * field layer alone (y = sqrt(x^3 + b) for a random x), so the group-law benchmarks need nothing
 * beyond the inline formulas in g1.h / g2.h. */
#ifndef CZ_BENCH_UTIL_H
#define CZ_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec/g1.h"
#include "ec/g2.h"

static double cz_bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cz_bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v and returns its median. */
static double cz_bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cz_bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void cz_bench_cpu_name(char *out, size_t n) {
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && c) {
            snprintf(out, n, "%s", c + 2);
            out[strcspn(out, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}

#define CZ_BENCH_ROUNDS 15

/* CPU time of the calling thread: on a shared machine wall time also counts waiting for a core. */
static double cz_bench_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs the body (the variadic part) iters times per round, CZ_BENCH_ROUNDS rounds; prints a Markdown
 * table row: median wall ns, median thread-CPU ns, min wall ns per iteration; stores the median CPU
 * ns in *(out_ns) (may be NULL). */
#define CZ_BENCH(label, iters, out_ns, ...)                                                            \
    do {                                                                                               \
        double w_[CZ_BENCH_ROUNDS], c_[CZ_BENCH_ROUNDS];                                               \
        for (int r_ = 0; r_ < CZ_BENCH_ROUNDS; r_++) {                                                 \
            double t0_ = cz_bench_now(), c0_ = cz_bench_cpu_now();                                     \
            for (long i = 0; i < (long)(iters); i++) {                                                 \
                __VA_ARGS__;                                                                           \
            }                                                                                          \
            c_[r_] = (cz_bench_cpu_now() - c0_) * 1e9 / (double)(iters);                               \
            w_[r_] = (cz_bench_now() - t0_) * 1e9 / (double)(iters);                                   \
        }                                                                                              \
        double wm_ = cz_bench_median(w_, CZ_BENCH_ROUNDS), cm_ = cz_bench_median(c_, CZ_BENCH_ROUNDS); \
        printf("| %-30s | %10.1f | %10.1f | %10.1f | %2d x %-8ld |\n", label, wm_, cm_, w_[0],         \
               CZ_BENCH_ROUNDS, (long)(iters));                                                        \
        double *o_ = (out_ns);                                                                         \
        if (o_) *o_ = cm_;                                                                             \
    } while (0)

#define CZ_BENCH_HEADER()                                                                                  \
    printf("| %-30s | %10s | %10s | %10s | %-13s |\n|%s|%s|%s|%s|%s|\n", "operation", "wall ns", "CPU ns", \
           "min wall", "rounds x ops", "--------------------------------",                                 \
           "-----------:", "-----------:", "-----------:", "---------------")

/* A point of y^2 = x^3 + 4 over Fp (not necessarily in the prime-order subgroup: the formulas do not
 * care, and the field layer alone can make it). */
static void cz_bench_g1_point(cz_g1_affine *p, cz_rng *rng) {
    static const cz_fp b = {CZ_FP_B_MONT};
    for (;;) {
        cz_fp t;
        cz_fp_random(&p->x, rng);
        cz_fp_sqr(&t, &p->x);
        cz_fp_mul(&t, &t, &p->x);
        cz_fp_add(&t, &t, &b);
        if (cz_fp_sqrt(&p->y, &t) == 0) return;
    }
}

/* A point of y^2 = x^3 + 4(u+1) over Fp2. */
static void cz_bench_g2_point(cz_g2_affine *p, cz_rng *rng) {
    static const cz_fp b = {CZ_FP_B_MONT};
    const cz_fp2 b2 = {b, b};
    for (;;) {
        cz_fp2 t;
        cz_fp2_random(&p->x, rng);
        cz_fp2_sqr(&t, &p->x);
        cz_fp2_mul(&t, &t, &p->x);
        cz_fp2_add(&t, &t, &b2);
        if (cz_fp2_sqrt(&p->y, &t) == 0) return;
    }
}

/* Jacobian -> affine with one inversion (infinity -> (0,0)). */
static void cz_bench_g1_affine(cz_g1_affine *r, const cz_g1_jac *p) {
    if (cz_g1_jac_is_infinity(p)) {
        memset(r, 0, sizeof *r);
        return;
    }
    cz_fp zi, zi2;
    cz_fp_inv(&zi, &p->z);
    cz_fp_sqr(&zi2, &zi);
    cz_fp_mul(&r->x, &p->x, &zi2);
    cz_fp_mul(&zi2, &zi2, &zi);
    cz_fp_mul(&r->y, &p->y, &zi2);
}

static void cz_bench_g2_affine(cz_g2_affine *r, const cz_g2_jac *p) {
    if (cz_g2_jac_is_infinity(p)) {
        memset(r, 0, sizeof *r);
        return;
    }
    cz_fp2 zi, zi2;
    cz_fp2_inv(&zi, &p->z);
    cz_fp2_sqr(&zi2, &zi);
    cz_fp2_mul(&r->x, &p->x, &zi2);
    cz_fp2_mul(&zi2, &zi2, &zi);
    cz_fp2_mul(&r->y, &p->y, &zi2);
}

#endif
