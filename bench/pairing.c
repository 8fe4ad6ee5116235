/* Pairing timings (median of runs): Miller loop, final exponentiation, one pairing, a 2-pair product
 * (the work of a BLS signature check without hash-to-curve), a 4-pair product (a Groth16 check), the
 * same with prepared G2 points, G2 preparation, and 1e5 chained Fp multiplications (a gauge of how
 * loaded the shared machine is). Times are thread CPU time.
 * Usage: cz_bench_pairing [runs] (default 31). Anchor: tests/oracles/blst_pairing_bench.mjs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec/pairing.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the build machine is shared */
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Points on the curves by try-and-increment, not cleared into the subgroups: the timing does not
 * depend on it. */
static void some_g1(cz_g1_affine *p, uint64_t seed) {
    cz_fp four, rhs;
    cz_fp_set_u64(&four, 4);
    for (uint64_t x = seed;; x++) {
        cz_fp_set_u64(&p->x, x);
        cz_fp_sqr(&rhs, &p->x);
        cz_fp_mul(&rhs, &rhs, &p->x);
        cz_fp_add(&rhs, &rhs, &four);
        if (cz_fp_sqrt(&p->y, &rhs) == 0) return;
    }
}

static void some_g2(cz_g2_affine *q, uint64_t seed) {
    cz_fp2 b, rhs;
    cz_fp_set_u64(&b.c0, 4);
    cz_fp_set_u64(&b.c1, 4);
    cz_fp_set_u64(&q->x.c1, 1);
    for (uint64_t x = seed;; x++) {
        cz_fp_set_u64(&q->x.c0, x);
        cz_fp2_sqr(&rhs, &q->x);
        cz_fp2_mul(&rhs, &rhs, &q->x);
        cz_fp2_add(&rhs, &rhs, &b);
        if (cz_fp2_sqrt(&q->y, &rhs) == 0) return;
    }
}

#define TIME(label, runs, stmt)                                     \
    do {                                                            \
        double *t_ = malloc((runs) * sizeof *t_);                   \
        for (int i_ = 0; i_ < (runs); i_++) {                       \
            double s_ = now_us();                                   \
            stmt;                                                   \
            t_[i_] = now_us() - s_;                                 \
        }                                                           \
        qsort(t_, (runs), sizeof *t_, cmp);                         \
        printf("%-34s median %8.1f us   min %8.1f us\n", label, t_[(runs) / 2], t_[0]); \
        free(t_);                                                   \
    } while (0)

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 31;
    if (runs < 1) runs = 1;
    cz_g1_affine p[4];
    cz_g2_affine q[4];
    static cz_g2_prepared prep[4];
    const cz_g2_prepared *pp[4];
    for (int i = 0; i < 4; i++) {
        some_g1(&p[i], 10 + 7 * i);
        some_g2(&q[i], 20 + 5 * i);
        cz_g2_prepare(&prep[i], &q[i]);
        pp[i] = &prep[i];
    }
    cz_fp12 f, e;
    cz_miller_loop(&f, p, q, 1);
    volatile uint64_t sink = 0;
    TIME("miller loop (1 pair)", runs, cz_miller_loop(&f, p, q, 1));
    TIME("final exponentiation", runs, cz_final_exponentiation(&e, &f));
    TIME("cz_pairing", runs, cz_pairing(&e, p, q));
    sink += e.c0.c0.c0.l[0];
    TIME("cz_multi_pairing, 2 pairs", runs, cz_multi_pairing(&e, p, q, 2));
    TIME("cz_multi_pairing, 4 pairs", runs, cz_multi_pairing(&e, p, q, 4));
    TIME("cz_multi_pairing_prepared, 4 pairs", runs, cz_multi_pairing_prepared(&e, p, pp, 4));
    TIME("cz_g2_prepare", runs, cz_g2_prepare(&prep[0], &q[0]));
    sink += e.c0.c0.c0.l[0];
    cz_fp a = p[0].x, b = p[1].x;
    TIME("1e5 cz_fp_mul (fp.h)", (runs < 5 ? runs : 5), for (int k = 0; k < 100000; k++) cz_fp_mul(&a, &a, &b));
    sink += a.l[0];
    return (int)(sink & 0);
}
