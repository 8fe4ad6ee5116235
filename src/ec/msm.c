/* CPU Pippenger MSM for G1 and G2: the window plan and signed-digit recoding shared by both groups,
 * and the two instantiations of msm_impl.h. */
#include "ec/msm.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/msm_internal.h"

/* 2^15 buckets (6 MiB in G1, 12 MiB in G2) per thread at most: beyond that the buckets stop fitting
 * in any cache and the saved windows no longer pay for the misses. */
#define CZ_MSM_MAX_C 16
/* Batch-affine buckets: batches of at most CZ_MSM_BATCH points and at most a quarter of the buckets
 * (a fuller batch meets its own buckets too often and queues more points than it adds). Below
 * CZ_MSM_BA_MIN_C the batches are too small for the inversion to pay. */
#define CZ_MSM_BATCH 1024
#define CZ_MSM_BA_MIN_C 10

cz_msm_plan cz_msm_force_plan_;

void *cz_msm_alloc_(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "cuzk: out of memory allocating %zu bytes for a batch addition\n", size);
        abort();
    }
    return p;
}

/* Picks the window width c, the number of point chunks and the bucket kind by a cost model counted
 * in xyzz mixed additions (~10 products): each task (window, chunk) pays per point of its chunk one
 * mixed addition (xyzz buckets) or ~0.6 plus its share of a batch inversion (batch-affine), and per
 * bucket of its reduction ~3 (two general additions) or ~2.8 (one mixed, one general addition with
 * affine buckets); tasks run in rounds of t. More chunks only help when there are fewer windows than
 * threads. The constants were fitted to cz_bench_msm timings on the 2-core build machine. */
cz_msm_plan cz_msm_plan_(size_t n, int t, unsigned group) {
    if (cz_msm_force_plan_.c) {
        cz_msm_plan f = cz_msm_force_plan_;
        f.windows = (256 + f.c - 1) / f.c;
        if (f.chunks < 1) f.chunks = 1;
        return f;
    }
    /* One inversion in mixed additions: Fp's Fermat inversion is ~45 of G1's; Fp2's is one Fp
     * inversion plus a few products, ~15 of G2's (whose additions cost ~3x more). */
    const double inv_cost = group == 2 ? 15.0 : 45.0, ba_point = 0.62;
    cz_msm_plan best = {1, 256, 1, 0};
    double best_cost = -1;
    if (t < 1) t = 1;
    for (unsigned c = 1; c <= CZ_MSM_MAX_C; c++) {
        unsigned nw = (256 + c - 1) / c;
        size_t nb = (size_t)1 << (c - 1), cap = nb / 4 < CZ_MSM_BATCH ? nb / 4 : CZ_MSM_BATCH;
        for (size_t p = 1; p <= (size_t)4 * (size_t)t; p++) {
            if (p > 1 && n / p < 256) break;
            size_t tasks = (size_t)nw * p, rounds = (tasks + (size_t)t - 1) / (size_t)t;
            double per = (double)n / (double)p;
            double cost = (double)rounds * (per + 3.0 * (double)nb);
            if (best_cost < 0 || cost < best_cost) {
                best_cost = cost;
                best = (cz_msm_plan){c, nw, p, 0};
            }
            if (c < CZ_MSM_BA_MIN_C || per < 4.0 * (double)cap) continue;
            cost = (double)rounds * (per * (ba_point + inv_cost / (double)cap) + 2.8 * (double)nb);
            if (cost < best_cost) {
                best_cost = cost;
                best = (cz_msm_plan){c, nw, p, cap};
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
