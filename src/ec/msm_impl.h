/* Pippenger MSM template, instantiated for G1 and G2 by msm.c with the ec_impl.h macros
 * (EC_F, EC_FF, EC_P, EC_AFF, EC_XYZZ, EC_JAC) and the shared helpers of msm.c
 * (cz_msm_plan_, cz_msm_digit_, cz_msm_alloc_).
 *
 * Work is split into tasks (window w, point chunk p); each task fills its own 2^(c-1) xyzz buckets
 * with mixed additions and reduces them with a running sum, so tasks share nothing and a thread only
 * needs one bucket array. Task results are combined serially in a fixed order. */

/* sum_{b} (b+1) * buckets[b] by the running-sum trick (2 additions per bucket). */
static void EC_P(msm_reduce_)(EC_XYZZ *r, const EC_XYZZ *buckets, size_t nb) {
    EC_XYZZ run, sum;
    EC_P(xyzz_set_infinity)(&run);
    EC_P(xyzz_set_infinity)(&sum);
    for (size_t b = nb; b-- > 0;) {
        if (!EC_P(xyzz_is_infinity)(&buckets[b])) EC_P(xyzz_add)(&run, &run, &buckets[b]);
        EC_P(xyzz_add)(&sum, &sum, &run);
    }
    *r = sum;
}

/* One task: the window-w partial sum over points [lo, hi). */
static void EC_P(msm_task_)(EC_XYZZ *r, EC_XYZZ *buckets, size_t nb, const EC_AFF *bases,
                            const uint64_t (*raw)[4], size_t lo, size_t hi, unsigned w, unsigned c) {
    memset(buckets, 0, nb * sizeof *buckets);
    int d = lo < hi ? cz_msm_digit_(raw[lo], w, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        /* Look one point ahead so the next bucket's cache line is on its way during this addition. */
        int dn = i + 1 < hi ? cz_msm_digit_(raw[i + 1], w, c) : 0;
        if (dn != 0) __builtin_prefetch(&buckets[(dn > 0 ? dn : -dn) - 1], 1);
        if (d > 0) {
            EC_P(xyzz_add_affine)(&buckets[d - 1], &buckets[d - 1], &bases[i]);
        } else if (d < 0) {
            EC_P(xyzz_sub_affine)(&buckets[-d - 1], &buckets[-d - 1], &bases[i]);
        }
        d = dn;
    }
    EC_P(msm_reduce_)(r, buckets, nb);
}

static void EC_P(msm_xyzz_)(EC_XYZZ *r, const EC_AFF *bases, const cz_fr *scalars, size_t n, int nthreads) {
    EC_P(xyzz_set_infinity)(r);
    if (n == 0) return;
    int t = nthreads > 0 ? nthreads : omp_get_max_threads();
    cz_msm_plan plan = cz_msm_plan_(n, t);
    unsigned c = plan.c, nw = plan.windows;
    size_t nchunks = plan.chunks, ntasks = (size_t)nw * nchunks, nb = (size_t)1 << (c - 1);
    uint64_t(*raw)[4] = cz_msm_alloc_(n * sizeof *raw);
    EC_XYZZ *part = cz_msm_alloc_(ntasks * sizeof *part);
    if (t > (int)ntasks) t = (int)ntasks;

#pragma omp parallel num_threads(t)
    {
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) cz_fr_to_raw(raw[i], &scalars[i]);
        EC_XYZZ *buckets = cz_msm_alloc_(nb * sizeof *buckets);
        /* Windows first: with one chunk per window the threads take whole windows. */
#pragma omp for schedule(dynamic, 1)
        for (size_t k = 0; k < ntasks; k++) {
            size_t w = k / nchunks, p = k % nchunks;
            size_t lo = n * p / nchunks, hi = n * (p + 1) / nchunks;
            EC_P(msm_task_)(&part[k], buckets, nb, bases, (const uint64_t(*)[4])raw, lo, hi, (unsigned)w, c);
        }
        free(buckets);
    }

    /* Horner over windows from the top: acc = 2^c * acc + W_w. */
    EC_XYZZ acc, win;
    EC_P(xyzz_set_infinity)(&acc);
    for (size_t w = nw; w-- > 0;) {
        for (unsigned j = 0; j < c; j++) EC_P(xyzz_double)(&acc, &acc);
        EC_P(xyzz_set_infinity)(&win);
        for (size_t p = 0; p < nchunks; p++) EC_P(xyzz_add)(&win, &win, &part[w * nchunks + p]);
        EC_P(xyzz_add)(&acc, &acc, &win);
    }
    *r = acc;
    free(part);
    free(raw);
}

void EC_P(msm)(EC_JAC *r, const EC_AFF *bases, const cz_fr *scalars, size_t n, int nthreads) {
    EC_XYZZ acc;
    EC_P(msm_xyzz_)(&acc, bases, scalars, n, nthreads);
    EC_P(jac_from_xyzz)(r, &acc);
}
