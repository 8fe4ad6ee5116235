/* CPU Pippenger MSM for G1 and G2: the window plan and signed-digit recoding shared by both groups,
 * and the two instantiations of msm_impl.h. */
#include "ec/msm.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "ec/msm_internal.h"

/* 2^15 buckets (6 MiB in G1, 12 MiB in G2) per thread at most: beyond that the buckets stop fitting
 * in any cache and the saved windows no longer pay for the misses. */
#define CZ_MSM_MAX_C 16

void *cz_msm_alloc_(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "cuzk: out of memory allocating %zu bytes for an MSM\n", size);
        abort();
    }
    return p;
}

/* Picks the window width c and the number of point chunks by a cost model counted in point
 * additions: each task (window, chunk) pays one mixed addition per point of its chunk plus about
 * 1.5 * 2^c for its bucket reduction (2 general additions per bucket, each ~1.4 mixed ones), and
 * tasks run in rounds of t. More chunks only help when there are fewer windows than threads. */
cz_msm_plan cz_msm_plan_(size_t n, int t) {
    cz_msm_plan best = {1, 256, 1};
    double best_cost = -1;
    if (t < 1) t = 1;
    for (unsigned c = 1; c <= CZ_MSM_MAX_C; c++) {
        unsigned nw = (256 + c - 1) / c;
        for (size_t p = 1; p <= (size_t)4 * (size_t)t; p++) {
            if (p > 1 && n / p < 256) break;
            size_t tasks = (size_t)nw * p, rounds = (tasks + (size_t)t - 1) / (size_t)t;
            double cost = (double)rounds * ((double)n / (double)p + 1.5 * (double)((size_t)1 << c));
            if (best_cost < 0 || cost < best_cost) {
                best_cost = cost;
                best = (cz_msm_plan){c, nw, p};
            }
        }
    }
    return best;
}

#include "ec/ec_group_g1.h"
#include "ec/msm_impl.h"
#include "ec/ec_group_end.h"

#include "ec/ec_group_g2.h"
#include "ec/msm_impl.h"
#include "ec/ec_group_end.h"
