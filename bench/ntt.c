/* CPU NTT timings: forward, inverse, coset forward, coset inverse per size and thread count, median
 * of several runs. Usage: cz_bench_ntt [runs] [log sizes, comma-separated] [threads, comma-separated]
 * (defaults: 5 16,20,22 1,2). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "poly/ntt.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int parse_list(const char *s, unsigned *out, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s) break;
        out[n++] = (unsigned)v;
        s = *end ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    unsigned logs[16] = {16, 20, 22}, threads[16] = {1, 2};
    int nlogs = argc > 2 ? parse_list(argv[2], logs, 16) : 3;
    int nthr = argc > 3 ? parse_list(argv[3], threads, 16) : 2;
    if (runs < 1 || runs > 100 || nlogs < 1 || nthr < 1) {
        fprintf(stderr, "usage: %s [runs] [log sizes a,b,..] [threads a,b,..]\n", argv[0]);
        return 2;
    }
    static const char *names[4] = {"forward", "inverse", "coset_fwd", "coset_inv"};
    int (*fns[4])(const cz_domain *, cz_fr *) = {cz_ntt_forward, cz_ntt_inverse, cz_ntt_coset_forward,
                                                  cz_ntt_coset_inverse};
    printf("# cz_bench_ntt: median of %d runs, ms; omp_get_num_procs() = %d\n", runs, omp_get_num_procs());
    printf("%-6s %-8s %12s %12s %12s %12s\n", "log_n", "threads", names[0], names[1], names[2], names[3]);
    cz_rng rng;
    cz_rng_seed(&rng, 1);
    for (int li = 0; li < nlogs; li++) {
        cz_domain d;
        if (cz_domain_init(&d, logs[li])) {
            fprintf(stderr, "%s\n", cz_error_message());
            return 1;
        }
        cz_fr *a = malloc(d.n * sizeof(cz_fr));
        if (!a) {
            fprintf(stderr, "out of memory at 2^%u\n", logs[li]);
            return 1;
        }
        for (size_t i = 0; i < d.n; i++) cz_fr_random(&a[i], &rng);
        for (int ti = 0; ti < nthr; ti++) {
            omp_set_num_threads((int)threads[ti]);
            double med[4];
            for (int f = 0; f < 4; f++) {
                double t[100];
                for (int r = 0; r < runs; r++) {
                    double t0 = now();
                    if (fns[f](&d, a)) {
                        fprintf(stderr, "%s\n", cz_error_message());
                        return 1;
                    }
                    t[r] = now() - t0;
                }
                qsort(t, runs, sizeof t[0], cmp_double);
                med[f] = t[runs / 2] * 1e3;
            }
            printf("%-6u %-8u %12.2f %12.2f %12.2f %12.2f\n", logs[li], threads[ti], med[0], med[1], med[2], med[3]);
            fflush(stdout);
        }
        free(a);
    }
    return 0;
}
