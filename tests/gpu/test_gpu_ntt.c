/* GPU NTT against CPU references on fresh random data: the naive DFT (the definition) for
 * 2^1..2^10, a textbook radix-2 NTT (itself checked against the DFT here) for 2^11..2^22 (2^21+ take three passes); every
 * element of every output compared (and against src/poly's cz_ntt_*), host receive buffers poisoned before each readback; round trips
 * and edge inputs (zeros, all r-1). Also the H pipeline (cz_gpu_groth16_h: its order-agnostic DIF/DIT
 * transforms and the permuting pointwise step) against the same steps on the CPU, at sizes that cover one,
 * two and three passes. Both pass kernels (CZ_GPU_NTT_KERNEL=2, registers + warp shuffles with register caps,
 * the default; 0, the shared-memory stages) are checked the same way on the same data, and kernel 2 three ways:
 * with Shoup's products by the table constants and the strided passes through the staged tile (the default), with
 * Montgomery products (CZ_GPU_NTT_SHOUP=0), and with its strided passes through the register kernel
 * (CZ_GPU_NTT_TILE=0; 2^13..2^22 have such passes of K = 7..9). And cz_gpu_groth16_y (A_coset B_coset, the
 * Lagrange-form H query's 4 NTTs) against src/poly at the H pipeline's sizes.
 * Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu_knobs.h"
#include "gpu_ref.h"
#include "testutil.h"

/* A plan with pass kernel variant kern (the plan reads CZ_GPU_NTT_KERNEL, _SHOUP and _TILE when it is created):
 * 0 kernel 0, 1 kernel 2 with Montgomery products, 2 the default (kernel 2, Shoup's products, the staged tile),
 * 3 kernel 2 with its strided passes through the register kernel (no staged tile). */
#define NKERN 4
static int plan_kern(cz_gpu_ntt **plan, unsigned log_n, int kern) {
    setenv("CZ_GPU_NTT_KERNEL", kern ? "2" : "0", 1);
    if (kern == 1) setenv("CZ_GPU_NTT_SHOUP", "0", 1);
    if (kern == 3) setenv("CZ_GPU_NTT_TILE", "0", 1);
    int rc = cz_gpu_ntt_create(plan, log_n);
    unsetenv("CZ_GPU_NTT_SHOUP");
    unsetenv("CZ_GPU_NTT_TILE");
    return rc;
}

static const char *kind_name[4] = {"forward", "inverse", "coset_forward", "coset_inverse"};

/* Runs kind on a copy of in (on the GPU) and returns the result in out (poisoned first). */
static int gpu_ntt(cz_fr *out, const cz_fr *in, unsigned log_n, int kind, cz_gpu_ntt *plan, cz_fr *d) {
    size_t n = (size_t)1 << log_n;
    int rc = cz_gpu_memcpy_htod(d, in, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_ntt_run(plan, d, (cz_gpu_ntt_kind)kind, NULL);
    if (!rc) rc = cz_gpu_sync();
    memset(out, 0xa5, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_dtoh(out, d, n * sizeof(cz_fr));
    if (rc) fprintf(stderr, "GPU error: %s\n", cz_error_message());
    return rc;
}

/* h = coset_inverse((A*B - C) / (g^n - 1)) with A, B, C = coset_forward(inverse(a, b, c)), on the CPU with
 * the textbook NTT, against the GPU on fresh random a, b, c, three ways per pass kernel: cz_gpu_groth16_h
 * (6 NTTs), the same under CZ_GPU_H_SEVEN=1 (7 NTTs), and cz_gpu_groth16_h_crev with c uploaded in
 * bit-reversed order. */
#define NWAY 3
static const char *const way_name[NWAY] = {"6-NTT", "7-NTT", "6-NTT, c bit-reversed"};
static void check_h(unsigned log_n, cz_rng *rng) {
    size_t n = (size_t)1 << log_n, first;
    cz_fr *v[3], *out[NKERN * NWAY], *crev = malloc(n * sizeof(cz_fr)), *d[3] = {NULL, NULL, NULL};
    cz_gpu_ntt *plan[NKERN];
    int rc = 0;
    for (int kern = 0; kern < NKERN; kern++) {
        for (int w = 0; w < NWAY; w++) out[kern * NWAY + w] = malloc(n * sizeof(cz_fr));
        plan[kern] = NULL;
        if (!rc) rc = plan_kern(&plan[kern], log_n, kern);
    }
    for (int k = 0; k < 3; k++) {
        v[k] = malloc(n * sizeof(cz_fr));
        for (size_t i = 0; i < n; i++) cz_fr_random(&v[k][i], rng);
        if (!rc) rc = cz_gpu_malloc((void **)&d[k], n * sizeof(cz_fr));
    }
    for (size_t i = 0; i < n; i++) crev[ref_bitrev(i, log_n)] = v[2][i];
    for (int kern = 0; kern < NKERN; kern++) {
        for (int w = 0; w < NWAY; w++) {
            for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_memcpy_htod(d[k], k == 2 && w == 2 ? crev : v[k], n * sizeof(cz_fr));
            if (w == 1) setenv("CZ_GPU_H_SEVEN", "1", 1);
            if (!rc) rc = w == 2 ? cz_gpu_groth16_h_crev(plan[kern], log_n, d[0], d[1], d[2], NULL)
                                 : cz_gpu_groth16_h(plan[kern], log_n, d[0], d[1], d[2], NULL);
            unsetenv("CZ_GPU_H_SEVEN");
            if (!rc) rc = cz_gpu_sync();
            memset(out[kern * NWAY + w], 0xa5, n * sizeof(cz_fr));
            if (!rc) rc = cz_gpu_memcpy_dtoh(out[kern * NWAY + w], d[0], n * sizeof(cz_fr));
            CHECK_MSG(rc == 0, "GPU H 2^%u kernel %d %s: %s", log_n, kern, way_name[w], cz_error_message());
        }
    }
    cz_fr g = {CZ_FR_GENERATOR_MONT}, z = g, zinv, t;
    for (unsigned i = 0; i < log_n; i++) cz_fr_sqr(&z, &z);
    cz_fr_sub(&z, &z, &CZ_FR_ONE_V);
    CHECK(cz_fr_inv(&zinv, &z) == 0);
    for (int k = 0; k < 3; k++) {
        ref_ntt(v[k], log_n, 1);
        ref_ntt(v[k], log_n, 2);
    }
    for (size_t i = 0; i < n; i++) {
        cz_fr_mul(&t, &v[0][i], &v[1][i]);
        cz_fr_sub(&t, &t, &v[2][i]);
        cz_fr_mul(&v[0][i], &t, &zinv);
    }
    ref_ntt(v[0], log_n, 3);
    for (int kern = 0; kern < NKERN; kern++) {
        for (int w = 0; w < NWAY; w++) {
            size_t bad = ref_count_diff(out[kern * NWAY + w], v[0], n, &first);
            CHECK_MSG(bad == 0, "GPU H 2^%u kernel %d %s: %zu of %zu differ, first at %zu", log_n, kern, way_name[w],
                      bad, n, first);
            free(out[kern * NWAY + w]);
        }
        cz_gpu_ntt_destroy(plan[kern]);
    }
    free(crev);
    for (int k = 0; k < 3; k++) {
        cz_gpu_free(d[k]);
        free(v[k]);
    }
}

/* cz_gpu_groth16_y (the Lagrange-form H query's NTT side) against src/poly: y = coset_forward(inverse(a)) times
 * coset_forward(inverse(b)), every element, natural order; the default plan. */
static void check_y(unsigned log_n, cz_rng *rng) {
    const size_t n = (size_t)1 << log_n;
    cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr)), *out = malloc(n * sizeof(cz_fr));
    cz_fr *d[2] = {NULL, NULL};
    cz_gpu_ntt *plan = NULL;
    cz_domain dom;
    size_t first;
    for (size_t i = 0; i < n; i++) cz_fr_random(&a[i], rng), cz_fr_random(&b[i], rng);
    int rc = cz_gpu_ntt_create(&plan, log_n);
    for (int k = 0; k < 2 && !rc; k++) rc = cz_gpu_malloc((void **)&d[k], n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_htod(d[0], a, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_htod(d[1], b, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_groth16_y(plan, log_n, d[0], d[1], NULL);
    if (!rc) rc = cz_gpu_sync();
    memset(out, 0xa5, n * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_dtoh(out, d[0], n * sizeof(cz_fr));
    CHECK_MSG(rc == 0, "GPU y 2^%u: %s", log_n, cz_error_message());
    CHECK(cz_domain_init(&dom, log_n) == 0);
    CHECK(cz_ntt_inverse(&dom, a) == 0 && cz_ntt_coset_forward(&dom, a) == 0);
    CHECK(cz_ntt_inverse(&dom, b) == 0 && cz_ntt_coset_forward(&dom, b) == 0);
    for (size_t i = 0; i < n; i++) cz_fr_mul(&a[i], &a[i], &b[i]);
    const size_t bad = rc ? n : ref_count_diff(out, a, n, &first);
    CHECK_MSG(bad == 0, "GPU y 2^%u: %zu of %zu differ from the CPU's, first at %zu", log_n, bad, n, rc ? 0 : first);
    for (int k = 0; k < 2; k++) cz_gpu_free(d[k]);
    cz_gpu_ntt_destroy(plan);
    free(a), free(b), free(out);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);

    /* the textbook CPU NTT agrees with the definition (so it can stand in for it above 2^10) */
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        size_t n = (size_t)1 << log_n, first;
        cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr));
        for (int kind = 0; kind < 4; kind++) {
            for (size_t i = 0; i < n; i++) cz_fr_random(&a[i], &rng);
            memcpy(b, a, n * sizeof(cz_fr));
            ref_ntt(a, log_n, kind);
            ref_ntt_naive(b, log_n, kind);
            CHECK_MSG(ref_count_diff(a, b, n, &first) == 0, "CPU ref vs DFT 2^%u %s", log_n, kind_name[kind]);
        }
        free(a);
        free(b);
    }

    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device (CPU references checked: %lu passed, %lu failed)\n", cz_test_passed,
               cz_test_failed);
        return cz_test_failed ? 1 : 77;
    }
    char desc[256];
    if (!cz_gpu_describe(desc, sizeof desc)) printf("device: %s\n", desc);

    /* CZ_TEST_GPU_MAX_N caps the transforms' sizes (compute-sanitizer runs; the staged-tile pass runs from 2^13) */
    unsigned max_log = 22;
    const size_t cap = cz_test_gpu_max_n(0);
    if (cap) {
        while (max_log > 1 && ((size_t)1 << max_log) > cap) max_log--;
        printf("sizes capped at 2^%u (CZ_TEST_GPU_MAX_N=%zu)\n", max_log, cap);
    }
    for (unsigned log_n = 1; log_n <= max_log; log_n++) {
        size_t n = (size_t)1 << log_n, first, bad;
        cz_fr *in = malloc(n * sizeof(cz_fr)), *ref = malloc(n * sizeof(cz_fr)), *out = malloc(n * sizeof(cz_fr));
        cz_fr *back = malloc(n * sizeof(cz_fr));
        cz_fr *d = NULL;
        cz_gpu_ntt *plans[NKERN] = {NULL}, *plan; /* plan: kernel 2, the default */
        int rc = 0;
        for (int kern = 0; kern < NKERN && !rc; kern++) rc = plan_kern(&plans[kern], log_n, kern);
        plan = plans[2];
        if (!rc) rc = cz_gpu_malloc((void **)&d, n * sizeof(cz_fr));
        CHECK_MSG(rc == 0, "setup 2^%u: %s", log_n, cz_error_message());
        if (rc) break;
        for (int kind = 0; kind < 4; kind++) {
            for (size_t i = 0; i < n; i++) cz_fr_random(&in[i], &rng);
            memcpy(ref, in, n * sizeof(cz_fr));
            if (log_n <= 10) ref_ntt_naive(ref, log_n, kind);
            else ref_ntt(ref, log_n, kind);
            CHECK(gpu_ntt(out, in, log_n, kind, plan, d) == 0);
            bad = ref_count_diff(out, ref, n, &first);
            CHECK_MSG(bad == 0, "GPU %s 2^%u: %zu of %zu differ, first at %zu", kind_name[kind], log_n, bad, n, first);
            for (int kern = 0; kern < NKERN; kern++) {
                if (kern == 2) continue;
                CHECK(gpu_ntt(back, in, log_n, kind, plans[kern], d) == 0);
                bad = ref_count_diff(back, ref, n, &first);
                CHECK_MSG(bad == 0, "GPU kernel %d %s 2^%u: %zu of %zu differ, first at %zu", kern, kind_name[kind], log_n,
                          bad, n, first);
            }
            /* and the project's CPU NTT (src/poly) gives the same bytes */
            memcpy(ref, in, n * sizeof(cz_fr));
            CHECK(cpu_ntt(ref, log_n, kind) == 0);
            bad = ref_count_diff(out, ref, n, &first);
            CHECK_MSG(bad == 0, "GPU vs cz_ntt %s 2^%u: %zu of %zu differ, first at %zu", kind_name[kind], log_n, bad, n,
                      first);
            /* round trip: the matching inverse brings the input back */
            int back_kind = kind ^ 1;
            CHECK(gpu_ntt(back, out, log_n, back_kind, plan, d) == 0);
            bad = ref_count_diff(back, in, n, &first);
            CHECK_MSG(bad == 0, "GPU round trip %s 2^%u: %zu differ, first at %zu", kind_name[kind], log_n, bad, first);
        }
        /* edge inputs: all zeros -> zeros; all r-1 (= -1) matches the reference */
        if (log_n == 1 || log_n == 9 || log_n == 17) {
            memset(in, 0, n * sizeof(cz_fr));
            CHECK(gpu_ntt(out, in, log_n, 2, plan, d) == 0);
            CHECK_MSG(ref_count_diff(out, in, n, &first) == 0, "zeros 2^%u", log_n);
            cz_fr m1, one = CZ_FR_ONE_V;
            cz_fr_neg(&m1, &one);
            for (size_t i = 0; i < n; i++) in[i] = m1;
            memcpy(ref, in, n * sizeof(cz_fr));
            ref_ntt(ref, log_n, 0);
            CHECK(gpu_ntt(out, in, log_n, 0, plan, d) == 0);
            CHECK_MSG(ref_count_diff(out, ref, n, &first) == 0, "all r-1 2^%u", log_n);
        }
        printf("2^%u checked\n", log_n);
        cz_gpu_free(d);
        for (int kern = 0; kern < NKERN; kern++) cz_gpu_ntt_destroy(plans[kern]);
        free(in);
        free(ref);
        free(out);
        free(back);
    }
    /* the H pipeline: one pass (<= 2^10), two (2^11..2^20), three (2^21 = 7+7+7, 2^22 = 8+7+7) */
    static const unsigned h_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 16, 19, 20, 21, 22};
    for (size_t k = 0; k < sizeof h_sizes / sizeof h_sizes[0] && h_sizes[k] <= max_log; k++) {
        check_h(h_sizes[k], &rng);
        check_y(h_sizes[k], &rng);
        printf("H 2^%u checked\n", h_sizes[k]);
    }
    /* sizes outside 2^1..2^28 are refused */
    cz_gpu_ntt *p = NULL;
    CHECK(cz_gpu_ntt_create(&p, 0) == CZ_ERANGE && p == NULL);
    CHECK(cz_gpu_ntt_create(&p, 29) == CZ_ERANGE && p == NULL);
    CHECK(cz_gpu_ntt_plan_bytes(0) == 0 && cz_gpu_ntt_plan_bytes(29) == 0 && cz_gpu_ntt_bytes(NULL) == 0);
    /* a plan's device bytes (the prover charges them to its accountant): the estimate before creation agrees with
     * the plan at every size and both Shoup settings, and matches the free memory the creation took (within the
     * allocator's 2 MiB pages: 4 or 2 allocations) */
    const int sanitized = under_initcheck();
    for (int sh = 0; sh < 2; sh++) { /* sh = 0: CZ_GPU_NTT_SHOUP=0 (no Shoup pairs); 1: the default */
        if (!sh) setenv("CZ_GPU_NTT_SHOUP", "0", 1);
        for (unsigned log_n = 1; log_n <= 28; log_n++) {
            size_t f0, f1, tot;
            CHECK(cz_gpu_mem_info(&f0, &tot) == 0);
            int rc = cz_gpu_ntt_create(&p, log_n);
            CHECK_MSG(rc == 0, "plan 2^%u: %s", log_n, cz_error_message());
            CHECK(cz_gpu_mem_info(&f1, &tot) == 0);
            const size_t est = cz_gpu_ntt_plan_bytes(log_n), got = cz_gpu_ntt_bytes(p), took = f0 - f1,
                         slack = (size_t)8 << 20;
            CHECK_MSG(est == got, "plan 2^%u (Shoup %d): %zu bytes estimated, %zu held", log_n, sh, est, got);
            if (!sanitized) {
                CHECK_MSG(took <= got + slack && took + slack >= got, "plan 2^%u (Shoup %d): %zu bytes held, %zu taken",
                          log_n, sh, got, took);
            }
            if (log_n == 27) printf("NTT plan 2^27 (Shoup %d): %zu bytes held, %zu taken\n", sh, got, took);
            cz_gpu_ntt_destroy(p);
            p = NULL;
        }
        unsetenv("CZ_GPU_NTT_SHOUP");
    }
    return cz_test_finish();
}
