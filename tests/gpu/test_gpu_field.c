/* Device Fr / Fp Montgomery products (the default carry-chain product and the naive CIOS one) and squares
 * (the squaring routine), and the Fp product on the FP64 pipe (all warps, or a share of them beside warps of the
 * integer one) against the host's src/ff on fresh
 * random elements plus 0, 1, p-1, p-2, 2 and values just below p: every thread runs three chained steps
 * (x *= y, w *= y; or x = x^2, w = w^2); all outputs are compared. Then the device inversion of the
 * batch-affine rounds (fp_inv.cuh), Fp and Fp2, against the host's on random elements plus 0, 1, -1 and
 * raw limb patterns that stress its 30-step batches (small integers, powers of two, values just below p,
 * p's top limbs over a zero limb, long runs of ones, low limbs cleared); one thread per element, then one
 * thread for 64 in turn (latency
 * printed). Then the reductions' warp sums of xyzz points (G1, G2), one lane an addition and four lanes an
 * addition (ec.cuh), against the host's xyzz additions (see run_ec_sums). Outputs poisoned before each run.
 * Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ff/fp.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"
#include "testutil.h"

#define NT 8192
#define ITERS 3

static const char *const mode_name[11] = {"products (default)", "products (CIOS)", "squares",
                                         "products (FP64, low halves in doubles)", "products (FP64, low halves in integers)",
                                         "products (1/2 FP64 warps, doubles)", "products (1/2 FP64 warps, integers)",
                                         "products (1/4 FP64 warps, integers)", "products (1/4 FP64 warps, doubles)",
                                         "products (x IMAD, w FP64, doubles)", "products (x IMAD, w FP64, integers)"};

/* Fr's modes of cz_gpu_mul_bench (3 is Shoup's product there, FP64 for Fp) */
static const char *const fr_mode_name[4] = {"products (default)", "products (CIOS)", "squares",
                                            "products by a constant (Shoup)"};

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
    /* raw words that give Montgomery rows a low word of 0 (m = 0), 1 or -1: the edge cases of a reduction that
     * takes Fr's words 0 and 1 (1 and 2^32 - 1) by additions, where m * (2^32 - 1)'s high word is 0 for m = 0,
     * not m - 1 (measured in session 12, docs/perf.md; not kept). x: its low k % 8 words 0, the rest random; w:
     * the same low zeros, then 2^32 - 1 and 0 alternating; y = 2^(32 j) or 2^(32 j) - 1 (j = k / 8); top
     * words kept below p's. */
    for (int k = 0; k < 64; k++) {
        const int i = 60 + 3 * k, z = k % 8, j = k / 8;
        memset(&in[i], 0, 3 * sizeof in[i]);
        for (int q = z; q < 8; q++) {
            uint32_t wx = (uint32_t)cz_rng_next(rng), ww = (q - z) % 2 ? 0 : 0xffffffffu;
            if (q == 7) wx &= 0x3fffffffu, ww &= 0x3fffffffu;
            in[i].l[q / 2] |= (uint64_t)wx << (32 * (q % 2));
            in[i + 1].l[q / 2] |= (uint64_t)ww << (32 * (q % 2));
        }
        in[i + 2].l[j / 2] = (uint64_t)1 << (32 * (j % 2));
        if (k & 1) { /* 2^(32 j) - 1 */
            uint64_t b = 1;
            for (int q = 0; q < 4; q++) {
                const uint64_t v = in[i + 2].l[q];
                in[i + 2].l[q] = v - b;
                b = v < b;
            }
        }
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
    CHECK_MSG(bad == 0, "Fr %s: %d of %d threads differ from the host", fr_mode_name[cios], bad, NT);
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
    for (int m = 1; m < 8; m++) { /* raw limbs: ones below bit 48m (whole 48-bit limbs of the FP64 product), y = p-1 or ones */
        const int i = 60 + 3 * m;
        memset(&in[i], 0, sizeof in[i]);
        for (int b = 0; b < 48 * m; b++) in[i].l[b / 64] |= (uint64_t)1 << (b % 64);
        in[i + 1] = in[i];
        if (m & 1) in[i + 2] = m1;
        else in[i + 2] = in[i];
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

#define NI 4096

/* raw (Montgomery-limb) value number k of the inversion's edge cases, k < 40 */
static void inv_edge(cz_fp *x, int k, cz_rng *rng) {
    static const uint64_t P[6] = CZ_FP_MODULUS;
    memset(x, 0, sizeof *x);
    if (k < 8) x->l[0] = (uint64_t)k + 1;                         /* 1 .. 8 */
    else if (k < 20) x->l[(k - 8) / 2] = (uint64_t)1 << (k * 7 % 60); /* powers of two below 2^380 */
    else if (k < 26) {                                             /* p - 1 - j */
        memcpy(x->l, P, sizeof P);
        x->l[0] -= (uint64_t)(k - 20) + 1;
    } else if (k < 30) {                                           /* p's top limbs over a zero middle limb */
        memcpy(x->l, P, sizeof P);
        x->l[0] -= (uint64_t)(k - 26) * 7 + 3;
        x->l[2] = 0;
    } else if (k < 34) {                                           /* all ones below bit 64 (k - 30) + 100 */
        const int bits = 64 * (k - 30) + 100;
        for (int i = 0; i < bits / 64; i++) x->l[i] = ~(uint64_t)0;
        x->l[bits / 64] = ((uint64_t)1 << (bits % 64)) - 1;
    } else {                                                       /* random with its low limbs cleared */
        cz_fp_random(x, rng);
        for (int i = 0; i < k - 33 && i < 5; i++) x->l[i] = 0;
    }
}

static void run_inv(cz_rng *rng, int fp2, void *d_in, void *d_out) {
    const size_t es = fp2 ? sizeof(cz_fp2) : sizeof(cz_fp);
    cz_fp2 *in = calloc(NI, sizeof *in), *out = calloc(NI, sizeof *out);
    cz_fp one = CZ_FP_ONE_V, m1;
    cz_fp_neg(&m1, &one);
    for (int i = 0; i < NI; i++) {
        cz_fp_random(&in[i].c0, rng);
        cz_fp_random(&in[i].c1, rng);
    }
    in[0].c0 = CZ_FP_ZERO_V, in[0].c1 = CZ_FP_ZERO_V; /* 0 -> 0 */
    in[1].c0 = one, in[2].c0 = m1, in[3].c1 = one, in[4].c0 = CZ_FP_ZERO_V;
    for (int k = 0; k < 40; k++) {
        inv_edge(&in[5 + k].c0, k, rng);
        if (fp2) inv_edge(&in[45 + k].c1, k, rng), in[45 + k].c0 = CZ_FP_ZERO_V;
    }
    /* the Fp run reads the c0 halves, packed */
    cz_fp *flat = malloc(NI * sizeof *flat);
    for (int i = 0; i < NI; i++) flat[i] = in[i].c0;
    const void *src = fp2 ? (const void *)in : (const void *)flat;
    for (int serial = 0; serial < 2; serial++) {
        const size_t n = serial ? 64 : NI;
        float ms = 0;
        int rc = cz_gpu_memcpy_htod(d_in, src, n * es);
        if (!rc) rc = cz_gpu_memset(d_out, 0xa5, n * es);
        if (!rc) rc = cz_gpu_fp_inv_test(fp2, serial, d_out, d_in, n, &ms);
        if (!rc) rc = cz_gpu_memcpy_dtoh(out, d_out, n * es);
        CHECK_MSG(rc == 0, "inversion: %s", cz_error_message());
        if (rc) break;
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            if (fp2) {
                cz_fp2 r;
                cz_fp2_inv(&r, &in[i]); /* 0 for 0 */
                bad += !cz_fp_equal(&r.c0, &out[i].c0) || !cz_fp_equal(&r.c1, &out[i].c1);
            } else {
                cz_fp r;
                cz_fp_inv(&r, &flat[i]);
                bad += !cz_fp_equal(&r, &((cz_fp *)out)[i]);
            }
        }
        CHECK_MSG(bad == 0, "%s inversion (%s): %d of %zu differ from the host", fp2 ? "Fp2" : "Fp",
                  serial ? "one thread" : "thread per element", bad, n);
        if (serial) printf("%s inversion, one thread: %.1f us each\n", fp2 ? "Fp2" : "Fp", 1000.0 * ms / n);
    }
    free(flat);
    free(in);
    free(out);
}

/* The reductions' last levels (ec.cuh): a warp's xyzz sum of its first `per` lanes by the plain additions
 * (cz_ec_warp_sum) and by quads of lanes (cz_ec_warp_sum_quad), G1 and G2, against the host's xyzz additions.
 * Inputs are points lifted to xyzz with a random factor (x l^2, y l^3, l^2, l^3) so no two representations
 * agree by accident: distinct random points; a pool of 6 points and their negations (doublings and
 * cancellations at every level); one point repeated (doublings only); half infinities. Counts that are not
 * powers of two take the quads' uneven levels. Compared as affine points; outputs poisoned before each run.
 * Then one warp's 32-value sum timed both ways. */
#define EC_SUM_TEST(G, FT, F_MUL, F_SQR, F_RANDOM, IS_G2)                                                                 \
    static void run_ec_sums_##G(cz_rng *rng) {                                                                           \
        enum { NW = 48, NFRESH = 64, NPOOL = 6 };                                                                        \
        static const unsigned pers[] = {1, 2, 3, 5, 8, 9, 13, 16, 17, 24, 31, 32};                                        \
        cz_##G##_affine fresh[NFRESH], pool[2 * NPOOL];                                                                  \
        for (int i = 0; i < NFRESH; i++) cz_##G##_random(&fresh[i], rng);                                              \
        for (int i = 0; i < NPOOL; i++) {                                                                                \
            cz_##G##_random(&pool[i], rng);                                                                              \
            cz_##G##_affine_neg(&pool[NPOOL + i], &pool[i]);                                                             \
        }                                                                                                                \
        cz_##G##_xyzz *in = malloc(NW * 32 * sizeof *in), *out = malloc(NW * sizeof *out);                             \
        void *d_in = NULL, *d_out = NULL;                                                                                \
        int rc = cz_gpu_malloc(&d_in, NW * 32 * sizeof *in);                                                            \
        if (!rc) rc = cz_gpu_malloc(&d_out, NW * sizeof *out);                                                          \
        CHECK_MSG(rc == 0, "EC sums: %s", cz_error_message());                                                          \
        for (size_t pi = 0; !rc && pi < sizeof pers / sizeof pers[0]; pi++) {                                            \
            const unsigned per = pers[pi];                                                                               \
            const size_t n = (size_t)NW * per;                                                                           \
            cz_##G##_affine want[NW];                                                                                    \
            for (unsigned w = 0; w < NW; w++) {                                                                          \
                cz_##G##_xyzz acc;                                                                                       \
                cz_##G##_xyzz_set_infinity(&acc);                                                                        \
                const unsigned rep = (unsigned)(cz_rng_next(rng) % (2 * NPOOL));                                        \
                for (unsigned j = 0; j < per; j++) {                                                                     \
                    const cz_##G##_affine *a;                                                                            \
                    switch (w % 4) {                                                                                     \
                    case 0: a = &fresh[cz_rng_next(rng) % NFRESH]; break;                                                \
                    case 1: a = &pool[cz_rng_next(rng) % (2 * NPOOL)]; break;                                            \
                    case 2: a = &pool[rep]; break;                                                                       \
                    default: a = cz_rng_next(rng) % 2 ? NULL : &fresh[cz_rng_next(rng) % NFRESH]; break;               \
                    }                                                                                                    \
                    cz_##G##_xyzz *v = &in[w * per + j];                                                                 \
                    if (!a) {                                                                                            \
                        memset(v, 0, sizeof *v);                                                                         \
                    } else {                                                                                             \
                        FT l, l2;                                                                                        \
                        F_RANDOM(&l, rng);                                                                               \
                        F_SQR(&l2, &l);                                                                                  \
                        v->zz = l2;                                                                                      \
                        F_MUL(&v->zzz, &l2, &l);                                                                         \
                        F_MUL(&v->x, &a->x, &v->zz);                                                                     \
                        F_MUL(&v->y, &a->y, &v->zzz);                                                                    \
                    }                                                                                                    \
                    cz_##G##_xyzz_add(&acc, &acc, v);                                                                    \
                }                                                                                                        \
                cz_##G##_xyzz_to_affine(&want[w], &acc);                                                                 \
            }                                                                                                            \
            rc = cz_gpu_memcpy_htod(d_in, in, n * sizeof *in);                                                           \
            for (int quad = 0; !rc && quad < 2; quad++) {                                                                \
                float ms = 0;                                                                                            \
                rc = cz_gpu_memset(d_out, 0x5a, NW * sizeof *out);                                                       \
                if (!rc) rc = cz_gpu_ec_warp_sum_test(IS_G2, quad, d_out, d_in, n, per, &ms);                           \
                if (!rc) rc = cz_gpu_memcpy_dtoh(out, d_out, NW * sizeof *out);                                          \
                CHECK_MSG(rc == 0, "EC sums (%s): %s", #G, cz_error_message());                                         \
                int bad = 0;                                                                                             \
                for (unsigned w = 0; !rc && w < NW; w++) {                                                               \
                    cz_##G##_affine got;                                                                                 \
                    cz_##G##_xyzz_to_affine(&got, &out[w]);                                                              \
                    bad += memcmp(&got, &want[w], sizeof got) != 0;                                                      \
                }                                                                                                        \
                CHECK_MSG(bad == 0, "%s warp sums of %u lanes (%s): %d of %d differ from the host", #G, per,            \
                          quad ? "quads" : "plain", bad, NW);                                                            \
            }                                                                                                            \
        }                                                                                                                \
        for (int quad = 0; !rc && quad < 2; quad++) { /* latency: one warp, 32 distinct points */                      \
            float ms = 0;                                                                                                \
            rc = cz_gpu_ec_warp_sum_test(IS_G2, quad, d_out, d_in, 32, 32, &ms);                                        \
            if (!rc) rc = cz_gpu_ec_warp_sum_test(IS_G2, quad, d_out, d_in, 32, 32, &ms);                               \
            CHECK_MSG(rc == 0, "EC sum timing: %s", cz_error_message());                                                \
            if (!rc) printf("%s warp sum of 32 (%s): %.1f us\n", #G, quad ? "quads" : "plain", 1000.0 * ms);            \
        }                                                                                                                \
        cz_gpu_free(d_in);                                                                                               \
        cz_gpu_free(d_out);                                                                                              \
        free(in);                                                                                                        \
        free(out);                                                                                                       \
    }
EC_SUM_TEST(g1, cz_fp, cz_fp_mul, cz_fp_sqr, cz_fp_random, 0)
EC_SUM_TEST(g2, cz_fp2, cz_fp2_mul, cz_fp2_sqr, cz_fp2_random, 1)

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_rng rng;
    cz_test_rng(&rng);
    void *d_in, *d_out;
    int rc = cz_gpu_malloc(&d_in, 3 * NT * sizeof(cz_fp) > NI * sizeof(cz_fp2) ? 3 * NT * sizeof(cz_fp) : NI * sizeof(cz_fp2));
    if (!rc) rc = cz_gpu_malloc(&d_out, 2 * NT * sizeof(cz_fp) > NI * sizeof(cz_fp2) ? 2 * NT * sizeof(cz_fp) : NI * sizeof(cz_fp2));
    CHECK_MSG(rc == 0, "alloc: %s", cz_error_message());
    if (rc) return cz_test_finish();
    for (int cios = 0; cios < 3; cios++) {
        run_fr(&rng, cios, d_in, d_out);
        run_fp(&rng, cios, d_in, d_out);
    }
    run_fr(&rng, 3, d_in, d_out); /* Shoup's product by each thread's y (the NTT's products by its tables) */
    for (int mode = 3; mode < 11; mode++) run_fp(&rng, mode, d_in, d_out); /* FP64-pipe products, alone and beside IMAD warps */
    run_inv(&rng, 0, d_in, d_out);
    run_inv(&rng, 1, d_in, d_out);
    run_ec_sums_g1(&rng);
    run_ec_sums_g2(&rng);
    cz_gpu_free(d_in);
    cz_gpu_free(d_out);
    return cz_test_finish();
}
