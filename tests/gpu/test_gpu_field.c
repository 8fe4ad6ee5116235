/* Device Fr / Fp Montgomery products (the default carry-chain product and the naive CIOS one) and squares
 * (the squaring routine) against the host's src/ff on fresh
 * random elements plus 0, 1, p-1, p-2, 2 and values just below p: every thread runs three chained steps
 * (x *= y, w *= y; or x = x^2, w = w^2); all outputs are compared. Outputs poisoned before each run.
 * Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "testutil.h"

#define NT 8192
#define ITERS 3

static const char *const mode_name[3] = {"products (default)", "products (CIOS)", "squares"};

static void run_fr(cz_rng *rng, int cios, void *d_in, void *d_out) {
    cz_fr *in = malloc(3 * NT * sizeof *in), *out = malloc(2 * NT * sizeof *out);
    for (int i = 0; i < 3 * NT; i++) cz_fr_random(&in[i], rng);
    cz_fr one = CZ_FR_ONE_V, m1;
    cz_fr_neg(&m1, &one);
    memset(&in[0], 0, sizeof in[0]);                 /* 0 * y */
    in[3] = one;                                     /* 1 * y */
    in[6] = m1, in[8] = m1;                          /* (p-1)(p-1) */
    in[9] = m1, in[11] = one;                        /* (p-1) * 1 */
    memset(&in[14], 0, sizeof in[14]);               /* x * 0 */
    cz_fr_sub(&in[15], &m1, &one);                   /* p-2 */
    cz_fr_add(&in[18], &one, &one);                  /* 2 */
    for (int i = 21; i < 60; i += 3) {               /* p - small */
        cz_fr t;
        cz_fr_set_u64(&t, 1 + cz_rng_next(rng) % 1000);
        cz_fr_neg(&in[i], &t);
        in[i + 1] = in[i];
    }
    int rc = cz_gpu_memcpy_htod(d_in, in, 3 * NT * sizeof *in);
    if (!rc) rc = cz_gpu_memset(d_out, 0xa5, 2 * NT * sizeof *out);
    float ms;
    if (!rc) rc = cz_gpu_mul_bench(0, cios, d_out, d_in, NT, ITERS, &ms);
    if (!rc) rc = cz_gpu_memcpy_dtoh(out, d_out, 2 * NT * sizeof *out);
    CHECK_MSG(rc == 0, "fr mul bench: %s", cz_error_message());
    int bad = 0;
    for (int i = 0; i < NT && !rc; i++) {
        cz_fr x = in[3 * i], w = in[3 * i + 1], y = in[3 * i + 2];
        for (int k = 0; k < ITERS; k++) {
            if (cios == 2) {
                cz_fr_sqr(&x, &x);
                cz_fr_sqr(&w, &w);
            } else {
                cz_fr_mul(&x, &x, &y);
                cz_fr_mul(&w, &w, &y);
            }
        }
        bad += !cz_fr_equal(&x, &out[2 * i]) || !cz_fr_equal(&w, &out[2 * i + 1]);
    }
    CHECK_MSG(bad == 0, "Fr %s: %d of %d threads differ from the host", mode_name[cios], bad, NT);
    free(in);
    free(out);
}

static void run_fp(cz_rng *rng, int cios, void *d_in, void *d_out) {
    cz_fp *in = malloc(3 * NT * sizeof *in), *out = malloc(2 * NT * sizeof *out);
    for (int i = 0; i < 3 * NT; i++) cz_fp_random(&in[i], rng);
    cz_fp one = CZ_FP_ONE_V, m1;
    cz_fp_neg(&m1, &one);
    memset(&in[0], 0, sizeof in[0]);
    in[3] = one;
    in[6] = m1, in[8] = m1;
    in[9] = m1, in[11] = one;
    memset(&in[14], 0, sizeof in[14]);
    cz_fp_sub(&in[15], &m1, &one); /* p-2 */
    cz_fp_add(&in[18], &one, &one); /* 2 */
    for (int i = 21; i < 60; i += 3) { /* p - small */
        cz_fp t;
        cz_fp_set_u64(&t, 1 + cz_rng_next(rng) % 1000);
        cz_fp_neg(&in[i], &t);
        in[i + 1] = in[i];
    }
    int rc = cz_gpu_memcpy_htod(d_in, in, 3 * NT * sizeof *in);
    if (!rc) rc = cz_gpu_memset(d_out, 0xa5, 2 * NT * sizeof *out);
    float ms;
    if (!rc) rc = cz_gpu_mul_bench(1, cios, d_out, d_in, NT, ITERS, &ms);
    if (!rc) rc = cz_gpu_memcpy_dtoh(out, d_out, 2 * NT * sizeof *out);
    CHECK_MSG(rc == 0, "fp mul bench: %s", cz_error_message());
    int bad = 0;
    for (int i = 0; i < NT && !rc; i++) {
        cz_fp x = in[3 * i], w = in[3 * i + 1], y = in[3 * i + 2];
        for (int k = 0; k < ITERS; k++) {
            if (cios == 2) {
                cz_fp_sqr(&x, &x);
                cz_fp_sqr(&w, &w);
            } else {
                cz_fp_mul(&x, &x, &y);
                cz_fp_mul(&w, &w, &y);
            }
        }
        bad += !cz_fp_equal(&x, &out[2 * i]) || !cz_fp_equal(&w, &out[2 * i + 1]);
    }
    CHECK_MSG(bad == 0, "Fp %s: %d of %d threads differ from the host", mode_name[cios], bad, NT);
    free(in);
    free(out);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_rng rng;
    cz_test_rng(&rng);
    void *d_in, *d_out;
    int rc = cz_gpu_malloc(&d_in, 3 * NT * sizeof(cz_fp));
    if (!rc) rc = cz_gpu_malloc(&d_out, 2 * NT * sizeof(cz_fp));
    CHECK_MSG(rc == 0, "alloc: %s", cz_error_message());
    if (rc) return cz_test_finish();
    for (int cios = 0; cios < 3; cios++) {
        run_fr(&rng, cios, d_in, d_out);
        run_fp(&rng, cios, d_in, d_out);
    }
    cz_gpu_free(d_in);
    cz_gpu_free(d_out);
    return cz_test_finish();
}
