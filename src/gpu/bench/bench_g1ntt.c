/* The device's inverse NTT over G1 (cz_gpu_g1_intt_unscaled, the Lagrange-form H query's precompute): wall time of
 * one transform at each size (twiddles made and uploaded, bit reversal, log n stages), the time a twiddle product
 * (n/2 log n double-and-add scalar multiplications less the trivial ones) and what a 2^27 transform would take at
 * that rate. Points: k_i G for random k_i (the device's fixed-base products): tiled or structured points would make
 * the transform's intermediate points infinity (a periodic input's DFT vanishes off a sub-lattice) and the scalar
 * multiplications of infinity nearly free. The result is checked against the CPU's transform at the first size.
 * Then the prover's whole bases from n - 1 such points as H (cz_gpu_h_lagrange_bases: Lc and Lh, prescale,
 * transform, affine) and their random linear check against H (cz_gpu_h_lagrange_check, which must pass).
 * With CZ_BENCH_G1NTT_CHECK_ONLY=1, only the check's time at each size, against bases that are not H's (n points as
 * Lc, the same as Lh, n - 1 as H: k_i G for random k_i), so that 2^27 takes seconds instead of the ~8-minute build:
 * the check must fail (CZ_EVERIFY), having made every scalar and run every MSM as a passing one does.
 * usage: cz_bench_g1ntt [log2 sizes (default "12 16 18")] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "cz_error.h"
#include "gpu/gpu.h"
#include "groth16/h_lagrange.h"
#include "util/rng.h"

#include "groth16/fixed_base.h"

/* CZ_BENCH_G1NTT_CHECK_ONLY: the check's wall time on bases that are not H's (it must fail, with every MSM run) */
static int check_only(const unsigned *logs, unsigned nl, const cz_g1_affine *tab, cz_rng *rng) {
    printf("| log n | Lagrange check, s (bases not H's: must fail) |\n|---|---:|\n");
    for (unsigned li = 0; li < nl; li++) {
        const unsigned log_n = logs[li];
        const size_t n = (size_t)1 << log_n;
        cz_g1_affine *a = malloc(n * sizeof *a);
        cz_fr *ks = malloc(n * sizeof *ks);
        if (!a || !ks) {
            fprintf(stderr, "2^%u: out of memory\n", log_n);
            return 1;
        }
        for (size_t i = 0; i < n; i++) cz_fr_random(&ks[i], rng);
        int rc = cz_gpu_fb_mul_many(0, a, tab, CZ_FB_C, CZ_FB_WINDOWS, ks, n);
        free(ks);
        void *dh = NULL, *dl = NULL;
        if (!rc) rc = cz_gpu_malloc(&dh, n * sizeof *a);
        if (!rc) rc = cz_gpu_malloc(&dl, n * sizeof *a);
        if (!rc) rc = cz_gpu_memcpy_htod(dh, a, n * sizeof *a);
        if (!rc) rc = cz_gpu_memcpy_htod(dl, a, n * sizeof *a);
        free(a);
        const double t0 = now_ms();
        /* H from point 1 on: no basis point is its H point */
        if (!rc) rc = cz_gpu_h_lagrange_check(dl, dl, (const cz_g1_affine *)dh + 1, log_n, cz_rng_next(rng), NULL);
        const double ms = now_ms() - t0;
        cz_gpu_free(dh), cz_gpu_free(dl);
        if (rc != CZ_EVERIFY) {
            fprintf(stderr, "2^%u: the check answered %d, not CZ_EVERIFY: %s\n", log_n, rc,
                    rc ? cz_error_message() : "");
            return 1;
        }
        printf("| %u | %.2f |\n", log_n, ms / 1e3);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    unsigned logs[8] = {12, 16, 18}, nl = 3;
    if (argc > 1) {
        nl = 0;
        for (char *p = argv[1], *e; *p && nl < 8; p = e) {
            logs[nl++] = (unsigned)strtoul(p, &e, 10);
            if (e == p) break;
        }
    }
    if (cz_gpu_device_count() <= 0) {
        fprintf(stderr, "no CUDA device\n");
        return 2;
    }
    cz_rng rng;
    cz_rng_seed_os(&rng);
    cz_g1_affine *tab = cz_g1_fb_table_();
    if (!tab) {
        fprintf(stderr, "fixed-base table: out of memory\n");
        return 1;
    }
    const char *co = getenv("CZ_BENCH_G1NTT_CHECK_ONLY");
    if (co && *co == '1') {
        int rc = check_only(logs, nl, tab, &rng);
        free(tab);
        return rc;
    }
    printf("| log n | transform ms | scalar multiplications | ns each (wall / products) | 2^27 at this rate, s | "
           "Lc + Lh built, s | their check, s |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (unsigned li = 0; li < nl; li++) {
        const unsigned log_n = logs[li];
        const size_t n = (size_t)1 << log_n;
        cz_g1_xyzz *h = malloc(n * sizeof *h);
        cz_g1_affine *a = malloc(n * sizeof *a);
        cz_fr *ks = malloc(n * sizeof *ks);
        for (size_t i = 0; i < n; i++) cz_fr_random(&ks[i], &rng);
        int rc = cz_gpu_fb_mul_many(0, a, tab, CZ_FB_C, CZ_FB_WINDOWS, ks, n);
        for (size_t i = 0; !rc && i < n; i++) h[i].x = a[i].x, h[i].y = a[i].y, h[i].zz = CZ_FP_ONE_V, h[i].zzz = CZ_FP_ONE_V;
        free(ks);
        void *d = NULL;
        if (!rc) rc = cz_gpu_malloc(&d, n * sizeof *h);
        if (!rc) rc = cz_gpu_memcpy_htod(d, h, n * sizeof *h);
        const double t0 = now_ms();
        if (!rc) rc = cz_gpu_g1_intt_unscaled(d, log_n, NULL);
        const double ms = now_ms() - t0;
        if (!rc && li == 0) { /* against the CPU at the first size */
            cz_domain dom;
            cz_g1_jac *v = malloc(n * sizeof *v);
            cz_g1_xyzz *g = malloc(n * sizeof *g);
            rc = cz_domain_init(&dom, log_n);
            for (size_t i = 0; i < n; i++) cz_g1_jac_from_affine(&v[i], &a[i]);
            if (!rc) rc = cz_g1_intt_unscaled(&dom, v, 0);
            if (!rc) rc = cz_gpu_memcpy_dtoh(g, d, n * sizeof *g);
            size_t bad = 0;
            for (size_t i = 0; !rc && i < n; i++) {
                cz_g1_affine x, y;
                cz_g1_xyzz_to_affine(&x, &g[i]);
                cz_g1_to_affine(&y, &v[i]);
                bad += memcmp(&x, &y, sizeof x) != 0;
            }
            printf("check 2^%u against the CPU: %s (%zu of %zu differ)\n", log_n, bad ? "FAILED" : "ok", bad, n);
            if (bad) rc = 1;
            free(v), free(g);
        }
        cz_gpu_free(d);
        /* the bases the prover builds (Lc and Lh from n - 1 points as H) and their check against H */
        void *dh = NULL, *dl = NULL;
        double bms = 0, cms = 0;
        if (!rc) rc = cz_gpu_malloc(&dh, (n - 1) * sizeof *a);
        if (!rc) rc = cz_gpu_malloc(&dl, 2 * n * sizeof *a);
        if (!rc) rc = cz_gpu_memcpy_htod(dh, a, (n - 1) * sizeof *a);
        double t1 = now_ms();
        if (!rc) rc = cz_gpu_h_lagrange_bases(dl, (cz_g1_affine *)dl + n, dh, log_n, NULL);
        bms = now_ms() - t1, t1 = now_ms();
        if (!rc) rc = cz_gpu_h_lagrange_check(dl, (cz_g1_affine *)dl + n, dh, log_n, cz_rng_next(&rng), NULL);
        cms = now_ms() - t1;
        cz_gpu_free(dh), cz_gpu_free(dl);
        free(h), free(a);
        if (rc) {
            fprintf(stderr, "2^%u: %s\n", log_n, cz_error_message());
            return 1;
        }
        /* twiddle products: per stage s, n/2 butterflies of which n/2^(s+1) have k = 0 */
        double muls = 0;
        for (unsigned s = 0; s < log_n; s++) muls += (double)(n / 2) - (double)(n >> (s + 1));
        const double each = muls ? ms * 1e6 / muls : 0, m27 = 27.0 * (double)((size_t)1 << 26) - (double)(((size_t)1 << 27) - 1);
        printf("| %u | %.1f | %.0f | %.1f | %.0f | %.1f | %.2f |\n", log_n, ms, muls, each, each * m27 / 1e9, bms / 1e3,
               cms / 1e3);
    }
    free(tab);
    return 0;
}
