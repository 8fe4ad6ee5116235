/* The benchmark programs' wall clock (CLOCK_MONOTONIC, milliseconds) and the qsort order of doubles for medians. */
#ifndef CZ_BENCH_CLOCK_H
#define CZ_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
